"""``--write``: re-render a page's stale evidence slots in place, safely.

The check itself is the library's (``claim_evidence``); what this module adds is
the one thing only the helper does: replacing the file, under a lock, only when
it is still the text that was checked, atomically. A page that is not a file
(``static-helper --write -``, a page on stdin) is rewritten in memory instead.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from claim_evidence import Diagnostic, InputError
from claim_evidence._atomic import atomic_write_bytes
from claim_evidence._jsonio import decode_utf8, read_text
from claim_evidence._options import PageOptions

# The checker is imported where a page is checked: a run answered from the cache never loads it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from claim_evidence._page import Page

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

_BOM = b"\xef\xbb\xbf"
WRITE_ATTEMPTS = 5


def write_page(path: str, options: PageOptions, name: str | None = None) -> tuple[Page, int]:
    """Re-render the stale slots of ``path`` in place; ``(page as checked, slots rewritten)``.

    Writes only when nothing but staleness is wrong, and only when the file is
    still what was read (checked under a lock on the file, just before the
    atomic replace); a page edited meanwhile is read and checked again.
    """
    from claim_evidence._page import check_text

    shown = name or path
    for _ in range(WRITE_ATTEMPTS):
        text, bom = read_text(path), _has_bom(path)
        page = check_text(text, shown, options)
        if not _rewritable(page):
            return page, 0
        new_data = _encoded(page.rendered_text(), bom)
        with _locked(path):
            if read_text(path) != text or _has_bom(path) != bom:
                continue
            atomic_write_bytes(path, new_data)
        return page, len(page.stale)
    message = f"page changed {WRITE_ATTEMPTS} times while --write ran; nothing written, run it again"
    raise InputError(Diagnostic("SH005", message, file=shown))


def rewrite_bytes(data: bytes, options: PageOptions, name: str) -> tuple[Page, bytes]:
    """The in-memory ``--write``: ``(page as checked, its bytes with the stale slots re-rendered)``.

    ``data`` comes back as it is when nothing is stale or anything else is wrong;
    a BOM and the line endings are kept. Bytes that are not UTF-8 raise
    :class:`InputError` (CE002) naming ``name``.
    """
    from claim_evidence._page import check_text

    page = check_text(decode_utf8(data, name), name, options)
    if not _rewritable(page):
        return page, data
    return page, _encoded(page.rendered_text(), data.startswith(_BOM))


class MemoryPage:
    """A page that is not a file (one read from stdin), for the runner's ``writer``.

    :meth:`rewrite` has a writer's signature but writes nothing: it keeps the
    result in :attr:`output`, which holds the input bytes until a rewrite succeeds.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.output = data

    def rewrite(self, path: str, options: PageOptions, name: str | None = None) -> tuple[Page, int]:
        page, self.output = rewrite_bytes(self.data, options, name or path)
        return page, len(page.stale) if _rewritable(page) else 0


def _rewritable(page: Page) -> bool:
    """Stale slots and nothing that stops --write: claims whose page and record disagree get the safe
    block (their findings remain and fail the run); anything else must be fixed by hand first."""
    return not page.blocking and bool(page.stale)


def _encoded(text: str, bom: bool) -> bytes:
    return (_BOM if bom else b"") + text.encode("utf-8")


def _has_bom(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(3) == _BOM
    except OSError:
        return False  # read_text reports the problem


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """Hold an exclusive lock on the page file itself (no lock files are left in the site)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(os.path.realpath(path), os.O_RDONLY)
    except OSError as exc:
        raise InputError(Diagnostic("CE001", f"cannot read file: {exc.strerror or exc}", file=path)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

