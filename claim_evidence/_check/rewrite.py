"""The one rule of what ``--write`` puts back into a page, and the findings such a write reports.

Three callers rewrite pages: ``static-helper --write`` on a file (``static_helper._write``, which adds
the lock and the atomic replace), the same on a page from stdin (in memory), and the generator plugins on
a page they just built (:mod:`claim_evidence.integrations._built`). They must agree byte for byte: a page
rewritten by a plugin and then checked by ``static-helper`` must pass, and the same page rewritten by
either must be the same file. So the rule lives here once:

- a page with stale slots is rewritten unless its structure is broken (:func:`rewritable`,
  :data:`.page.STRUCTURE`): a claim whose record is invalid, or whose page and record disagree, gets the
  safe 未確認 block and keeps failing, so a build never publishes an empty or outdated slot; a broken
  structure must be fixed by hand first (SH150 names it), and :attr:`Rewrite.left_stale` tells the caller;
- only the stale slots change, and :meth:`Page.rendered_text` proves that nothing else moved (a failed
  proof is :attr:`Rewrite.failure`: a bug, nothing written);
- a leading BOM is not part of the page but is kept, and the newlines are the page's own;
- a rewritten page no longer reports its staleness (SH140), and a page left stale says why (SH150).

What a failed proof costs differs by caller and stays theirs: the command line fails the page (SH009 as
its one finding, status ``error``); a plugin publishes the page as built and adds SH009 to its findings.

The checker is imported where a page is checked: the runner imports this module, and a run answered from
the cache never loads the checker.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core.diagnostics import Diagnostic
from .._core.splice import InternalError
from .._core.textio import BOM

if TYPE_CHECKING:
    from .options import PageOptions
    from .page import Page
    from .recordcache import RecordCache


@dataclass(frozen=True)
class Rewrite:
    """A page as checked and what a write makes of it.

    ``text``: the page with its stale slots re-rendered (its BOM kept), or None when it stays as it is.
    ``failure``: the re-rendered text failed its proof (a bug); ``text`` is None then.
    """

    page: Page
    text: str | None = None
    failure: InternalError | None = None

    @property
    def rewritten(self) -> int:
        """Evidence slots re-rendered (0 when the page stays as it is)."""
        return len(self.page.stale) if self.text is not None else 0

    @property
    def left_stale(self) -> bool:
        """The page as it stays (``text``, else as checked) still has a slot that does not show its claim's
        block: stale slots not re-rendered (a broken structure, a failed proof, or no write asked), a
        broken structure (:attr:`Page.blocking`), whose slots the helper cannot fill at all, or a slot for
        a claim the bundle does not register (SH112, :attr:`Page.orphan_slots`). A build that publishes
        such a page ships an empty or outdated slot, so a plugin fails it even when not strict; a page
        whose only errors are in its records is not left stale: its slots show 未確認."""
        page = self.page
        return bool(page.blocking) or (bool(page.stale) and self.text is None) or bool(page.orphan_slots)


def rewritable(page: Page) -> bool:
    """Stale slots and a page structure the helper can own (:attr:`Page.blocking` empty): claims whose
    record is invalid or whose page and record disagree get the safe block (their findings remain and
    fail the run); a broken structure must be fixed by hand first."""
    return not page.blocking and bool(page.stale)


def rewrite(
    text: str, name: str | None, options: PageOptions, write: bool = True, records: RecordCache | None = None
) -> Rewrite:
    """Check ``text`` (a page as read, a leading BOM allowed) and, with ``write``, re-render its stale
    slots when :func:`rewritable` allows it. Never raises for the page's content; the proof's failure is
    :attr:`Rewrite.failure`. ``records``: the run's record cache, if it keeps one."""
    from .page import check_text

    bom = text.startswith(BOM)
    page = check_text(text[1:] if bom else text, name, options, records=records)
    if not write or not rewritable(page):
        return Rewrite(page)
    try:
        new_text = page.rendered_text()
    except InternalError as exc:  # the rewrite failed its own proof: a bug, nothing written
        return Rewrite(page, failure=exc)
    return Rewrite(page, (BOM if bom else "") + new_text)


def write_findings(page: Page, name: str, rewritten: int, write: bool = True) -> list[Diagnostic]:
    """``page``'s findings as a run with ``write`` reports them, ``rewritten`` slots re-rendered:
    the staleness a rewrite fixed is gone (SH140), the rest placed in the page as written
    (:meth:`.page.Page.as_written`), and a page left stale says why (SH150)."""
    from .page import STALE

    found = [d for d in page.diagnostics if not (rewritten and d.code == STALE)]
    if rewritten:
        found = page.as_written(found)
    still_stale = {d.path for d in found if d.code == STALE}  # these say what to type themselves
    found = [
        _with_review_hint(page, d) if d.code == SEAL_BROKEN and _claim_path(d) not in still_stale else d for d in found
    ]
    if write and page.blocking and page.stale:
        found.append(not_rewritten(page, name))
    return found


# A claim's review no longer covers its record: once its slot shows 未確認, this finding carries the command.
SEAL_BROKEN = "CE403"
_CLAIM_PATH = re.compile(r"\$\.claims\[(\d+)\]")


def _claim_path(d: Diagnostic) -> str | None:
    at = _CLAIM_PATH.match(d.path)
    return at.group(0) if at else None


def _with_review_hint(page: Page, d: Diagnostic) -> Diagnostic:
    """``d`` (a CE403 on a page whose slot for that claim is not stale: it shows 未確認 already, or a write
    just put that block there and removed the slot's finding) saying what the slot's finding said: the
    command that records the review."""
    from .binding import review_hint

    at = _CLAIM_PATH.match(d.path)
    index = int(at.group(1)) if at else None
    if index is None or index not in page.invalid or page.located.slots == []:
        return d
    message = (
        f"{d.message}; its slot shows 未確認 until the review is recorded: {review_hint(page, index)}, then run --write"
    )
    return dataclasses.replace(d, message=message)


def not_rewritten(page: Page, display: str) -> Diagnostic:
    """Why ``--write`` left a page with stale slots alone: the broken structure to fix first."""
    first = page.blocking[0]
    gist = first.message.split(":")[0].split(" (")[0].split(". ")[0]
    others = sorted({d.code for d in page.blocking} - {first.code})
    also = f" (and {', '.join(others)})" if others else ""
    message = f"not rewritten: fix {first.code} ({gist}){also} first; the page was left unchanged"
    return Diagnostic("SH150", message, file=display, subject="page")
