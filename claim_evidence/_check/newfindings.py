"""What an edit to a page's markup would newly break: the one comparison behind ``claim add`` (markup
inserted) and ``claim remove --markup`` (markup taken out), which both refuse an edit that makes the
page fail its check in a way it did not before.

A finding counts by its code and subject, not its message: a message may name a line, and every
line after an edit moves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from .._core.diagnostics import Diagnostic
from .page import PageOptions, check_text


def added_errors(
    before: str, after: str, name: str, options: PageOptions, expected: Collection[str]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """``(errors of after that before did not have, every finding of after)``; codes in ``expected``
    are what the edit explains (a stale summary slot, a new claim's own review) and never count."""
    old = Counter(_kind(d) for d in check_text(before, name, options).diagnostics if d.is_error)
    found = check_text(after, name, options).diagnostics
    seen = Counter(_kind(d) for d in found if d.is_error)
    added = [d for d in found if d.is_error and d.code not in expected and seen[_kind(d)] > old[_kind(d)]]
    return added, found


def _kind(d: Diagnostic) -> tuple[str, str]:
    return d.code, d.subject
