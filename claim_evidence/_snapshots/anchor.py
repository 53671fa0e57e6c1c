"""Finding a quoted passage in the text a review read, exactly — never approximately.

A quote (``exact``, with optional ``prefix``/``suffix`` context, as the W3C
TextQuoteSelector) is anchored in a snapshot's text after both sides are
normalized the same way: Unicode NFKC (full-width forms, compatibility
characters) and runs of whitespace collapsed, so a line break in the source or
a full-width space in the quote does not matter. Nothing else is forgiven: a
passage that is not there is reported with the closest passage as a *hint*,
because re-attaching a quote to something merely similar is how annotation
tools end up pointing at the wrong sentence.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from .._core.normalize import normalized_quote

HINT_CHARS = 160  # the closest passage shown: enough to recognize, short enough for one line


@dataclass(frozen=True)
class Anchoring:
    """Where a quote stands in a text: ``found`` once, ``missing``, or ``ambiguous`` (several places
    and not enough context to choose); ``closest`` is a hint for a missing quote, ``count`` the places."""

    outcome: Literal["found", "missing", "ambiguous", "context"]
    count: int = 0
    closest: str | None = None


def anchor(text: str, exact: str, prefix: str | None = None, suffix: str | None = None) -> Anchoring:
    """Anchor ``exact`` (with its context) in ``text``; both are normalized here.

    ``context``: the passage is there, but never with the given prefix/suffix —
    the quote points at another place than the one recorded.
    """
    haystack, needle = normalized_quote(text), normalized_quote(exact)
    if not needle:
        return Anchoring("missing")
    places = _occurrences(haystack, needle)
    if not places:
        return Anchoring("missing", 0, closest_passage(haystack, needle))
    before, after = normalized_quote(prefix or ""), normalized_quote(suffix or "")
    fitting = [at for at in places if _fits(haystack, at, len(needle), before, after)]
    if not fitting:
        first = places[0]
        margin = max(0, (HINT_CHARS - len(needle)) // 2)
        start, end = max(0, first - margin), min(len(haystack), first + len(needle) + margin)
        shown = ("…" if start > 0 else "") + haystack[start:end] + ("…" if end < len(haystack) else "")
        return Anchoring("context", len(places), shown)
    if len(fitting) > 1:
        return Anchoring("ambiguous", len(fitting))
    return Anchoring("found", 1)


def _occurrences(haystack: str, needle: str) -> list[int]:
    found = []
    at = haystack.find(needle)
    while at >= 0:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


def _fits(haystack: str, at: int, length: int, before: str, after: str) -> bool:
    """The context stands right before and after the passage (a space between is allowed: the
    normalized source may break a line where the quote's context does not)."""
    return haystack[:at].rstrip().endswith(before) and haystack[at + length :].lstrip().startswith(after)


def closest_passage(haystack: str, needle: str) -> str | None:
    """The passage of ``haystack`` most like ``needle``, for a human to compare; None when nothing is shared.

    Built around the longest stretch the two have in common, as long as the quote
    (capped at :data:`HINT_CHARS`): cheap on long texts, and what a reader looks
    for first when a figure or a word was changed.
    """
    if not haystack:
        return None
    match = difflib.SequenceMatcher(None, haystack, needle, autojunk=False).find_longest_match(
        0, len(haystack), 0, len(needle)
    )
    if match.size == 0:
        return None
    start = max(0, match.a - match.b)
    length = min(max(len(needle), match.size), HINT_CHARS)
    passage = haystack[start : start + length]
    return ("…" if start > 0 else "") + passage + ("…" if start + length < len(haystack) else "")
