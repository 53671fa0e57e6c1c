"""A page a generator built, checked as ``static-helper`` checks it, and its findings placed in the source.

What the three plugins share and no generator is needed for: the check and the optional re-rendering
(``static-helper --write``'s rule: only a page whose one problem is stale slots is rewritten) and the
one-line form of a finding. The line in the source file where a finding's markup was written is the
command lines' too: :func:`claim_evidence._site.sourcemap.source_line`.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from .._check.page import Page, PageOptions
from .._check.rewrite import rewrite, write_findings
from .._core.diagnostics import Diagnostic
from .._core.report import finding_line
from .._record.freshness import at_build
from .._site.config import CONFIG_NAME, at_build_date, load_config

__all__ = ["CONFIG_NAME", "Built", "at_page", "check_built", "describe", "display_path", "site_options"]


@dataclass
class Built:
    """What the check of one built page came to: the text to publish and every finding to report."""

    page: Page
    text: str  # the page re-rendered when ``write`` allowed it, else exactly as the generator built it
    findings: list[Diagnostic] = field(default_factory=list)
    rewritten: int = 0  # evidence slots re-rendered


def check_built(text: str, name: str, options: PageOptions, write: bool) -> Built:
    """Check ``text`` (a built page) and, with ``write``, re-render its stale slots exactly when
    ``static-helper --write`` would: the page has no other error. Otherwise the page stays as built
    and its findings say why (``SH150`` names the errors to fix first). The rule is the command line's
    (:mod:`claim_evidence._check.rewrite`); only a failed proof differs: the page is published as built,
    with SH009 among its findings, where the command line fails the page."""
    done = rewrite(text, name, options, write)
    found = write_findings(done.page, name, done.rewritten, write)
    if done.failure is not None:  # the rewrite failed its own proof: a bug, reported, nothing written
        found.append(Diagnostic("SH009", str(done.failure), file=name))
    return Built(done.page, text if done.text is None else done.text, found, done.rewritten)


def at_page(options: PageOptions, served: str) -> PageOptions:
    """``options`` for the page served at ``served`` (its path under the output folder, POSIX): relative
    stylesheet hrefs are resolved from there, as ``static-helper`` resolves them on the built site."""
    return dataclasses.replace(options, page=served)


def site_options(path: str | os.PathLike[str] | None) -> PageOptions:
    """The page options of a ``claim-evidence.toml`` (:class:`InputError` when it does not load), or the
    defaults without one. A ``[freshness]`` policy is dated as a build dates it: ``SOURCE_DATE_EPOCH``,
    else the clock (generators have no ``--today``; they honour ``SOURCE_DATE_EPOCH`` too)."""
    return (
        at_build_date(load_config(path), None).options
        if path is not None
        else PageOptions(freshness=at_build(None, None))
    )


def display_path(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """``path`` relative to ``base`` when it lies inside it (POSIX separators), else as given."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        return os.fspath(path)


def describe(d: Diagnostic, where: str | None = None) -> str:
    """``claim-evidence: WHERE: CODE [ID] message``, worded as ``static-helper`` words a finding
    (a warning or note says so at the end); without ``where`` when the generator places it."""
    return f"claim-evidence: {finding_line(d, where)}"
