"""Reading text files: the one rule for UTF-8, the BOM and line endings, wherever a file is read.

A file is UTF-8. A leading BOM (some Windows editors write one) is accepted and dropped, so the
text checked, hashed and shown is the same with or without it; a reader that writes the file back
keeps it (``keep_bom``, or :func:`bom_of` beside the text) so that the bytes it did not change stay
as they were. Line endings are never translated: the positions of findings and the bytes of a
rewrite are the file's own. Bytes that are not UTF-8 are CE002, naming the first such byte by its
offset, line and column; a reader that only shows or searches a file (``errors="replace"``) reads
them as U+FFFD instead, since a finding about the file comes from the checking read.
"""

from __future__ import annotations

import os
from typing import Literal

from .diagnostics import Diagnostic, InputError

# A bundle of a few thousand claims is well under 1 MiB; 32 MiB leaves ample
# room while keeping memory bounded (json + validation need ~10x the size).
MAX_BYTES = 32 * 1024 * 1024

BOM = "\ufeff"  # the byte order mark, as text
BOM_BYTES = BOM.encode("utf-8")  # and as a UTF-8 file starts with it: b"\xef\xbb\xbf"

Errors = Literal["strict", "replace"]


def _fail(code: str, message: str, file: str | None, line: int | None = None, column: int | None = None) -> InputError:
    return InputError(Diagnostic(code, message, file=file, line=line, column=column))


def read_text(
    path: str | os.PathLike[str],
    max_bytes: int | None = MAX_BYTES,
    *,
    errors: Errors = "strict",
    keep_bom: bool = False,
) -> str:
    """Read a UTF-8 file (a leading BOM is dropped) keeping its line endings.

    CE001 when it cannot be read, CE004 past ``max_bytes`` (``None``: no limit, for files that are
    only searched or shown), CE002 when it is not UTF-8 (see :func:`decode_utf8` for ``errors`` and
    ``keep_bom``)."""
    name = os.fspath(path)
    try:
        size = os.stat(name).st_size
        if max_bytes is not None and size > max_bytes:
            raise _fail("CE004", too_large(size, max_bytes), name)
        with open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise _fail("CE001", "file not found", name) from None
    except IsADirectoryError:
        raise _fail("CE001", "is a directory, expected a file", name) from None
    except OSError as exc:
        raise _fail("CE001", f"cannot read file: {exc.strerror or exc}", name) from None
    return decode_utf8(data, name, errors=errors, keep_bom=keep_bom)


def too_large(size: int, max_bytes: int) -> str:
    """CE004's message: one wording wherever a file is read. It names no option: only ``validate`` has one
    (``--max-bytes``), and it adds that advice where it prints the finding (see ``cli.validate``)."""
    return f"file is {size} bytes, over the {max_bytes}-byte limit; split it"


def decode_utf8(data: bytes, name: str | None, *, errors: Errors = "strict", keep_bom: bool = False) -> str:
    """``data`` as text by the rule above: CE002 for bytes that are not UTF-8 (U+FFFD for them with
    ``errors="replace"``), a leading BOM dropped unless ``keep_bom``."""
    try:
        text = data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _fail(
            "CE002",
            f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}; re-save the file as UTF-8",
            name,
            line,
            column,
        ) from None
    return text[1:] if text.startswith(BOM) and not keep_bom else text


def bom_of(data: bytes) -> bytes:
    """The BOM ``data`` starts with (``b""`` without one): what a rewrite of the file puts back."""
    return BOM_BYTES if data.startswith(BOM_BYTES) else b""
