"""``--write``: re-render a page's stale evidence slots in place, safely.

The check itself is the library's (``claim_evidence``); what this module adds is
the one thing only the helper does: replacing the file, under a lock, only when
it is still the text that was checked, atomically. A page that is not a file
(``static-helper --write -``, a page on stdin) is rewritten in memory instead.
"""

from __future__ import annotations

from claim_evidence import Diagnostic, InputError
from claim_evidence._check.options import PageOptions
from claim_evidence._core.atomic import REPLACED, pin
from claim_evidence._core.textio import BOM_BYTES, decode_utf8

# The checker is imported where a page is checked: a run answered from the cache never loads it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from claim_evidence._check.page import Page

WRITE_ATTEMPTS = 5


def write_page(path: str, options: PageOptions, name: str | None = None, root: str | None = None) -> tuple[Page, int]:
    """Re-render the stale slots of ``path`` in place; ``(page as checked, slots rewritten)``.

    Writes only when nothing but staleness is wrong, and only when the file is
    still what was read: the page is opened once (:func:`claim_evidence._core.atomic.pin`),
    read, checked, and replaced through the same folder descriptor after its bytes
    and identity are compared under a lock on the file, so a page edited or swapped
    for a symlink meanwhile is read and checked again, never written through.
    With ``root`` (the site's folder), a page that resolves outside it is not
    written (CE011).
    """
    shown = name or path
    for _ in range(WRITE_ATTEMPTS):
        try:
            done = _write_once(path, options, shown, root)
        except InputError as exc:
            if exc.diagnostic.message != REPLACED:
                raise
            continue  # replaced or swapped while it was opened or written: look again from the start
        if done is not None:
            return done
    message = f"page changed {WRITE_ATTEMPTS} times while --write ran; nothing written, run it again"
    raise InputError(Diagnostic("SH005", message, file=shown))


def _write_once(path: str, options: PageOptions, shown: str, root: str | None) -> tuple[Page, int] | None:
    """One attempt of :func:`write_page`; None when the page's bytes changed between the check and the lock."""
    from claim_evidence._check.page import check_text

    with pin(path, root) as pinned:
        data = pinned.read()
        page = check_text(decode_utf8(data, shown), shown, options)
        if not _rewritable(page):
            return page, 0
        new_data = _encoded(page.rendered_text(), data.startswith(BOM_BYTES))
        with pinned.locked():
            if pinned.read() != data:
                return None
            pinned.replace(new_data)
    return page, len(page.stale)


def rewrite_bytes(data: bytes, options: PageOptions, name: str) -> tuple[Page, bytes]:
    """The in-memory ``--write``: ``(page as checked, its bytes with the stale slots re-rendered)``.

    ``data`` comes back as it is when nothing is stale or anything else is wrong;
    a BOM and the line endings are kept. Bytes that are not UTF-8 raise
    :class:`InputError` (CE002) naming ``name``.
    """
    from claim_evidence._check.page import check_text

    page = check_text(decode_utf8(data, name), name, options)
    if not _rewritable(page):
        return page, data
    return page, _encoded(page.rendered_text(), data.startswith(BOM_BYTES))


class MemoryPage:
    """A page that is not a file (one read from stdin), for the runner's ``writer``.

    :meth:`rewrite` has a writer's signature but writes nothing: it keeps the
    result in :attr:`output`, which holds the input bytes until a rewrite succeeds.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.output = data

    def rewrite(
        self, path: str, options: PageOptions, name: str | None = None, root: str | None = None
    ) -> tuple[Page, int]:
        page, self.output = rewrite_bytes(self.data, options, name or path)
        return page, len(page.stale) if _rewritable(page) else 0


def _rewritable(page: Page) -> bool:
    """Stale slots and nothing that stops --write: claims whose page and record disagree get the safe
    block (their findings remain and fail the run); anything else must be fixed by hand first."""
    return not page.blocking and bool(page.stale)


def _encoded(text: str, bom: bool) -> bytes:
    return (BOM_BYTES if bom else b"") + text.encode("utf-8")
