"""Reading JSON the careful way, and writing JSON that is safe inside ``<script>``.

Every failure becomes an :class:`InputError` with a diagnostic that names the
file and, for syntax errors, the line and column: callers never see a raw
``JSONDecodeError``, ``UnicodeDecodeError`` or ``RecursionError``.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from ._diagnostics import Diagnostic, InputError, MalformedInput, PathParts, line_column, line_starts

# A bundle of a few thousand claims is well under 1 MiB; 32 MiB leaves ample
# room while keeping memory bounded (json + validation need ~10x the size).
MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 64


def _fail(code: str, message: str, file: str | None, line: int | None = None, column: int | None = None) -> InputError:
    return InputError(Diagnostic(code, message, file=file, line=line, column=column))


def _malformed(code: str, message: str, file: str | None, line: int | None = None, column: int | None = None) -> MalformedInput:
    return MalformedInput(Diagnostic(code, message, file=file, line=line, column=column))


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> str:
    """Read a UTF-8 file (a leading BOM is dropped) keeping its line endings."""
    name = os.fspath(path)
    try:
        size = os.stat(name).st_size
        if size > max_bytes:
            raise _fail("CE004", too_large(size, max_bytes), name)
        with open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise _fail("CE001", "file not found", name) from None
    except IsADirectoryError:
        raise _fail("CE001", "is a directory, expected a file", name) from None
    except OSError as exc:
        raise _fail("CE001", f"cannot read file: {exc.strerror or exc}", name) from None
    return decode_utf8(data, name)


def too_large(size: int, max_bytes: int) -> str:
    """CE004's message: one wording wherever a file is read. It names no option: only ``validate`` has one
    (``--max-bytes``), and it adds that advice where it prints the finding (see ``cli.validate``)."""
    return f"file is {size} bytes, over the {max_bytes}-byte limit; split it"


def decode_utf8(data: bytes, name: str | None) -> str:
    try:
        text = data.decode("utf-8")
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
    return text[1:] if text.startswith("\ufeff") else text


class LoadedJSON:
    """A parsed JSON document plus the JSON paths of keys that occurred twice."""

    __slots__ = ("value", "duplicate_keys")

    def __init__(self, value: Any, duplicate_keys: list[PathParts]) -> None:
        self.value = value
        self.duplicate_keys = duplicate_keys


def loads(
    text: str, name: str | None = None, *, line_offset: int = 0, column_offset: int = 0, empty: str = "empty file"
) -> LoadedJSON:
    """Parse JSON text strictly (no NaN/Infinity), noting duplicate keys.

    ``line_offset``/``column_offset`` shift reported positions, for JSON embedded
    in a larger file (a page's ``<script>``); ``empty`` names what holds no value.
    Malformed text raises :class:`MalformedInput` (a finding, exit 1).
    """
    if not text.strip(" \t\n\r"):
        message = f'{empty}: no JSON value (a bundle is an object: {{"version": 1, "sources": [], "claims": []}})'
        embedded = bool(line_offset or column_offset)  # then point at where the script's text starts
        raise _malformed("CE003", message, name, line_offset + 1 if embedded else None, column_offset + 1 if embedded else None)
    seen_twice: dict[int, list[str]] = {}

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        dups = []
        for key, value in pairs:
            if key in result:
                dups.append(key)
            result[key] = value  # JSON's de-facto rule: the later value wins
        if dups:
            seen_twice[id(result)] = dups
        return result

    def reject_constant(token: str) -> Any:
        raise ValueError(f"{token} is not valid JSON")

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        line, column = line_column(line_starts(text), exc.pos)  # (json counts only LF as a line end)
        column += column_offset if line == 1 else 0
        raise _malformed("CE003", f"invalid JSON: {exc.msg}", name, line + line_offset, column) from None
    except ValueError as exc:
        raise _malformed("CE003", f"invalid JSON: {exc}", name, line_offset + 1 if line_offset else None) from None
    except RecursionError:
        raise _malformed("CE005", f"JSON nested deeper than {MAX_DEPTH} levels", name) from None
    depth = text_depth(text)
    if depth > MAX_DEPTH:
        raise _malformed("CE005", f"JSON nested {depth} levels deep, over the limit of {MAX_DEPTH}", name)
    duplicates = [
        (*parts, key) for parts, obj in walk(value) if id(obj) in seen_twice for key in seen_twice[id(obj)]
    ] if seen_twice else []
    return LoadedJSON(value, duplicates)


def load_file(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> LoadedJSON:
    name = os.fspath(path)
    return loads(read_text(name, max_bytes), name)


_STRING = re.compile(r'"[^"\\]*+(?>(?:\\.[^"\\]*+)*)"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def text_depth(text: str) -> int:
    """:func:`nesting_depth` of the value that valid JSON ``text`` parses to, read off the text:
    strings dropped, then the running sum of the brackets (all in C; walking the value costs ~5x)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def nesting_depth(value: Any) -> int:
    """Depth of nested lists/dicts, computed without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node)
    return deepest


def walk(value: Any) -> Iterator[tuple[PathParts, dict[str, Any]]]:
    """Every dict in ``value`` with the parts of its JSON path, parents first."""
    stack: list[tuple[PathParts, Any]] = [((), value)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            yield here, node
            stack.extend(((*here, k), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend(((*here, i), v) for i, v in reversed(list(enumerate(node))))


def dumps_for_script(value: Any, indent: int | None = 2) -> str:
    """JSON that can sit inside ``<script type="application/json">`` unharmed.

    ``<`` becomes ``\\u003c`` so ``</script>`` and ``<!--`` in data cannot end or
    confuse the element; U+2028/2029 are escaped for JavaScript consumers.
    Everything else stays readable UTF-8.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
