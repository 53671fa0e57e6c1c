"""Reading JSON the careful way, and writing JSON that is safe inside ``<script>``.

Every failure becomes an :class:`InputError` with a diagnostic that names the
file and, for syntax errors, the line and column: callers never see a raw
``JSONDecodeError``, ``UnicodeDecodeError`` or ``RecursionError``. Files are
read as text by :mod:`.textio`, the one reader.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from .diagnostics import Diagnostic, MalformedInput, PathParts, json_path, line_column, line_starts
from .textio import MAX_BYTES, read_text

MAX_DEPTH = 64


def _malformed(
    code: str, message: str, file: str | None, line: int | None = None, column: int | None = None
) -> MalformedInput:
    return MalformedInput(Diagnostic(code, message, file=file, line=line, column=column))


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
        raise _malformed(
            "CE003", message, name, line_offset + 1 if embedded else None, column_offset + 1 if embedded else None
        )
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

    huge, parse_int, parse_float = _number_hooks()

    def reject_constant(token: str) -> Any:
        raise ValueError(f"{token} is not valid JSON")

    try:
        value = json.loads(
            text,
            object_pairs_hook=pairs_hook,
            parse_constant=reject_constant,
            parse_int=parse_int,
            parse_float=parse_float,
        )
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
    problem = hostile_value(value) if huge or ("\\u" in text and _SURROGATE_ESCAPE.search(text)) else None
    if problem is not None:
        from .jsonpos import offset_of  # (imports this module)

        code, parts, message = problem
        line, column = line_column(line_starts(text), offset_of(text, json_path(parts)))
        column += column_offset if line == 1 else 0
        raise _malformed(code, message, name, line + line_offset, column)
    duplicates = (
        [(*parts, key) for parts, obj in walk(value) if id(obj) in seen_twice for key in seen_twice[id(obj)]]
        if seen_twice
        else []
    )
    return LoadedJSON(value, duplicates)


# What parses but no UTF-8 writer or float can carry is found without a walk of clean input (nearly
# all): a lone surrogate can only come from a ``\\uD800``-style escape (the text was decoded from
# UTF-8, which holds none raw), so text without ``\\u`` is clean (a C substring search); numbers are
# flagged by the parser's own hooks, which it calls only for number literals.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# A float holds no integer of 310 digits or more (its largest is about 1.8e308); from 309 on, the walk decides.
_FLOAT_DIGITS = 309


class _Overlong(int):
    """An integer literal past Python's int-to-str limit (4,300 digits), kept as 0 with its digit
    count: ``int()`` would refuse it, and the finding still gets its JSON path."""

    digits: int


def _number_hooks() -> tuple[list[str], Any, Any]:
    """``(flagged literals, parse_int, parse_float)`` for one parse."""
    flagged: list[str] = []
    limit = sys.get_int_max_str_digits()

    def parse_int(literal: str) -> int:
        digits = len(literal) - literal.startswith("-")
        if digits < _FLOAT_DIGITS:
            return int(literal)
        flagged.append(literal)
        if limit and digits > limit:
            found = _Overlong(0)
            found.digits = digits
            return found
        return int(literal)

    def parse_float(literal: str) -> float:
        number = float(literal)
        if math.isinf(number):
            flagged.append(literal)
        return number

    return flagged, parse_int, parse_float


_SURROGATE = re.compile("[\ud800-\udfff]")
UNICODE_CODE = "CE007"
NUMBER_CODE = "CE008"


def hostile_value(value: Any) -> tuple[str, PathParts, str] | None:
    """``(code, path parts, message)`` of the first value that JSON can carry and this toolkit cannot:
    a string (or key) holding a lone surrogate (``"\\ud800"`` parses, but no UTF-8 encoder writes it:
    fingerprints, pages and terminals would fail on it), or a number past what a float holds (a
    401-digit integer, ``1e400``: the number rewrites of fingerprint checks and every JavaScript
    reader turn it into infinity or fail). None when there is none.

    Checked right after parsing, for every reader, and by validation for values that come from
    Python rather than from JSON text.
    """
    stack: list[tuple[PathParts, Any]] = [((), value)]
    seen: set[int] = set()  # containers looked into (a value from Python may hold one many times, or itself)
    while stack:
        here, node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if isinstance(node, str):
            found = _SURROGATE.search(node)
            if found:
                return UNICODE_CODE, here, _surrogate_message(found.group(), json_path(here), "")
        elif isinstance(node, bool):
            continue
        elif isinstance(node, _Overlong):
            return NUMBER_CODE, here, _number_message(f"an integer of {node.digits} digits", json_path(here))
        elif isinstance(node, int):
            try:
                float(node)
            except OverflowError:
                return NUMBER_CODE, here, _number_message(f"an integer of {_digits(node)} digits", json_path(here))
        elif isinstance(node, float):
            if math.isinf(node):
                return NUMBER_CODE, here, _number_message("a number that reads as infinity", json_path(here))
        elif isinstance(node, dict):
            for key in node:
                found = _SURROGATE.search(key) if isinstance(key, str) else None
                if found:
                    return (
                        UNICODE_CODE,
                        (*here, key),
                        _surrogate_message(found.group(), json_path((*here, key)), "the key of "),
                    )
            stack.extend(((*here, k), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend(((*here, i), v) for i, v in reversed(list(enumerate(node))))
    return None


def _surrogate_message(char: str, path: str, what: str) -> str:
    return (
        f"text is not valid Unicode: a lone surrogate \\u{ord(char):04x} in {what}{path} (half of a "
        "UTF-16 pair, which no UTF-8 file can hold); remove it or write the whole character"
    )


def _number_message(what: str, path: str) -> str:
    return (
        f"number too large: {what}{f' at {path}' if path else ''}, past the largest number a JSON reader holds (about 1.8e308); "
        "write it as a string"
    )


def _digits(number: int) -> int:
    """Digits of ``number`` without ``str()``, which refuses past Python's int-to-str limit (4300 digits)."""
    size = abs(number)
    guess = int(math.log10(size)) + 1
    return guess + 1 if size >= 10**guess else guess - 1 if size < 10 ** (guess - 1) else guess


def load_file(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> LoadedJSON:
    name = os.fspath(path)
    return loads(read_text(name, max_bytes), name)


# Every byte but the five that decide nesting (the quote and the brackets), for ``bytes.translate``.
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'"[]{}')))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def text_depth(text: str) -> int:
    """:func:`nesting_depth` of the value that valid JSON ``text`` parses to, read off the text: the
    running sum of the brackets outside strings (all in C: walking the value costs ~5x, and this runs on
    every bundle a check loads, where two regex passes over the text cost a sixth of the bundle).

    On the UTF-8 bytes (a lone surrogate, which ``json`` accepts raw, written with ``surrogatepass``): no
    byte of a multi-byte character is ASCII, so the quotes and brackets are the text's. Backslashes occur
    only in strings, and each escape is one backslash and one character from the left of a run, so
    dropping ``\\`` pairs and then ``\"`` leaves every quote a string's start or end; what the five
    kept bytes then hold is quotes in pairs, each pair around the brackets its string holds. Dropping
    ``""`` (leftmost first) removes exactly the strings without brackets: the first quote left is a
    string's start, which goes only with its own end, and so on. Nearly every text ends there with
    brackets only; otherwise the strings are cut out between every other quote."""
    data = text.encode("utf-8", "surrogatepass")
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = data.translate(None, _NOT_STRUCTURE)
    brackets = kept.replace(b'""', b"")
    if b'"' in brackets:
        brackets = b"".join(kept.split(b'"')[::2])
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


CYCLIC = sys.maxsize  # the depth of a value that holds itself


def nesting_depth(value: Any) -> int:
    """Depth of nested lists/dicts, computed without recursion, each container once.

    A value from Python (not parsed from text) may hold one list many times, ``[x, x]`` nested sixty
    times has 2**60 paths, or hold itself (no JSON text can): each container's depth is computed once,
    and a value that holds itself is :data:`CYCLIC`, deeper than any limit."""
    depths: dict[int, int] = {}
    open_: set[int] = set()  # containers entered and not finished: the path from the top
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, finished = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        key = id(node)
        if finished:
            open_.discard(key)
            depths[key] = 1 + max((depths[id(c)] for c in children if isinstance(c, (dict, list))), default=0)
        elif key in open_:
            return CYCLIC
        elif key not in depths:
            open_.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)))
    return depths.get(id(value), 0)


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


def dumps_for_script(value: Any, indent: int | str | None = 2) -> str:
    """JSON that can sit inside ``<script type="application/json">`` unharmed.

    ``<`` becomes ``\\u003c`` so ``</script>`` and ``<!--`` in data cannot end or
    confuse the element; U+2028/2029 are escaped for JavaScript consumers.
    Everything else stays readable UTF-8.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
