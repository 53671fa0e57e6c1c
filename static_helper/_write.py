"""``--write``: re-render a page's stale evidence slots in place, safely.

The check itself is the library's (``claim_evidence``); what this module adds is
the one thing only the helper does: replacing the file, under a lock, only when
it is still the text that was checked, atomically. A page that is not a file
(``static-helper --write -``, a page on stdin) is rewritten in memory instead.
"""

from __future__ import annotations

from claim_evidence import Diagnostic, InputError
from claim_evidence._check.options import PageOptions
from claim_evidence._check.rewrite import Rewrite, rewrite
from claim_evidence._core.atomic import REPLACED, pin
from claim_evidence._core.textio import BOM, BOM_BYTES, decode_utf8

# The checker is imported where a page is checked: a run answered from the cache never loads it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from claim_evidence._check.page import Page
    from claim_evidence._check.recordcache import RecordCache

WRITE_ATTEMPTS = 5


def write_page(
    path: str,
    options: PageOptions,
    name: str | None = None,
    root: str | None = None,
    records: RecordCache | None = None,
) -> tuple[Page, int]:
    """Re-render the stale slots of ``path`` in place; ``(page as checked, slots rewritten)`` (see
    :func:`rewrite_file`)."""
    page, rewritten, _ = rewrite_file(path, options, name, root, records)
    return page, rewritten


def rewrite_file(
    path: str,
    options: PageOptions,
    name: str | None = None,
    root: str | None = None,
    records: RecordCache | None = None,
) -> tuple[Page, int, bytes | None]:
    """:func:`write_page`, with the bytes it wrote (None when it wrote none): the runner's writer, whose page
    cache keeps the written page's result under them.

    Writes only when nothing but staleness is wrong, and only when the file is
    still what was read: the page is opened once (:func:`claim_evidence._core.atomic.pin`),
    read, checked, and replaced through the same folder descriptor after its bytes
    and identity are compared under a lock on the file, so a page edited or swapped
    for a symlink meanwhile is read and checked again, never written through.
    With ``root`` (the site's folder), a page that resolves outside it is not
    written (CE011). ``records``: the run's record cache (the runner hands it in), if it keeps one.
    """
    shown = name or path
    for _ in range(WRITE_ATTEMPTS):
        try:
            done = _write_once(path, options, shown, root, records)
        except InputError as exc:
            if exc.diagnostic.message != REPLACED:
                raise
            continue  # replaced or swapped while it was opened or written: look again from the start
        if done is not None:
            return done
    message = f"page changed {WRITE_ATTEMPTS} times while --write ran; nothing written, run it again"
    raise InputError(Diagnostic("SH005", message, file=shown))


def _write_once(
    path: str, options: PageOptions, shown: str, root: str | None, records: RecordCache | None
) -> tuple[Page, int, bytes | None] | None:
    """One attempt of :func:`write_page`; None when the page's bytes changed between the check and the lock."""
    with pin(path, root) as pinned:
        data = pinned.read()
        done = _rewrite(data, shown, options, records)
        if done.text is None:
            return done.page, 0, None
        new_data = done.text.encode("utf-8")
        with pinned.locked():
            if pinned.read() != data:
                return None
            pinned.replace(new_data)
    return done.page, done.rewritten, new_data


def rewrite_bytes(
    data: bytes, options: PageOptions, name: str, records: RecordCache | None = None
) -> tuple[Page, bytes]:
    """The in-memory ``--write``: ``(page as checked, its bytes with the stale slots re-rendered)``.

    ``data`` comes back as it is when nothing is stale or anything else is wrong;
    a BOM and the line endings are kept. Bytes that are not UTF-8 raise
    :class:`InputError` (CE002) naming ``name``.
    """
    done = _rewrite(data, name, options, records)
    return done.page, data if done.text is None else done.text.encode("utf-8")


class MemoryPage:
    """A page that is not a file (one read from stdin), for the runner's ``writer``.

    :meth:`rewrite` has a writer's signature but writes nothing: it keeps the
    result in :attr:`output`, which holds the input bytes until a rewrite succeeds.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.output = data

    def rewrite(
        self,
        path: str,
        options: PageOptions,
        name: str | None = None,
        root: str | None = None,
        records: RecordCache | None = None,
    ) -> tuple[Page, int, bytes | None]:
        done = _rewrite(self.data, name or path, options, records)
        if done.text is None:
            return done.page, 0, None
        self.output = done.text.encode("utf-8")
        return done.page, done.rewritten, self.output


def _rewrite(data: bytes, name: str, options: PageOptions, records: RecordCache | None) -> Rewrite:
    """:func:`claim_evidence._check.rewrite.rewrite` on a page's bytes (not UTF-8: :class:`InputError`, CE002,
    naming ``name``). A failed proof fails the page (the runner reports it as SH009, status ``error``):
    the helper never writes, nor reports as checked, a page whose rewrite it could not prove."""
    text = decode_utf8(data, name)  # (without the BOM, which rewrite keeps: it is given back)
    done = rewrite(BOM + text if data.startswith(BOM_BYTES) else text, name, options, records=records)
    if done.failure is not None:
        raise done.failure
    return done
