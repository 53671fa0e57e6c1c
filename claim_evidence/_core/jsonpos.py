"""Where a JSON path points inside JSON text, so bundle findings get the page's line numbers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from .diagnostics import Diagnostic, line_column, line_starts

_PART = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def parse_path(path: str) -> list[str | int]:
    """``$.claims[0]["odd key"]`` -> ``["claims", 0, "odd key"]``; stops at anything unexpected."""
    parts: list[str | int] = []
    pos = 1 if path.startswith("$") else 0
    while pos < len(path):
        match = _PART.match(path, pos)
        if match is None:
            break
        name, index, quoted = match.groups()
        parts.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        pos = match.end()
    return parts


def _skip_ws(text: str, pos: int) -> int:
    """Offset of the first non-whitespace character at or after ``pos``."""
    found = _WS.match(text, pos)
    return found.end() if found else pos


def offset_of(text: str, path: str) -> int:
    """Offset in ``text`` of the deepest part of ``path`` found: a key, or an array element."""
    pos = _skip_ws(text, 0)
    best = pos
    try:
        for part in parse_path(path):
            found = _child(text, pos, part)
            if found is None:
                break
            best, pos = found
    except (ValueError, IndexError):
        pass
    return best


def _child(text: str, pos: int, part: str | int) -> tuple[int, int] | None:
    """``(where to point, where the value starts)`` for one step, or None."""
    opener = text[pos]
    if (opener == "{") != isinstance(part, str) or opener not in "{[":
        return None
    closer = "}" if opener == "{" else "]"
    pos = _skip_ws(text, pos + 1)
    index = 0
    while text[pos] != closer:
        at = pos
        if opener == "{":
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _skip_ws(text, pos) + 1  # the colon
            pos = _skip_ws(text, pos)
            if key == part:
                return at, pos
        elif index == part:
            return at, pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        index += 1
    return None


# A path's parts as a tree: each part to the parts that follow it in some path.
_Tree = dict[Any, "_Tree"]


def offsets_of(text: str, paths: Iterable[str]) -> dict[str, int]:
    """:func:`offset_of` of every path in ``paths``, by one walk of ``text``: each value is read once,
    where :func:`offset_of` reads every value before the one it looks for again for each path (a page
    with a warning on each of its ten claims read its bundle ten times over, issue 32)."""
    parts = {path: _parts(path) for path in paths}
    tree: _Tree = {}
    for split in parts.values():
        node = tree
        for part in split:
            node = node.setdefault(part, {})
    start = _skip_ws(text, 0)
    found: dict[tuple[str | int, ...], int] = {}
    try:
        _walk(text, start, tree, (), found)
    except (ValueError, IndexError):
        pass
    offsets = {}
    for path, split in parts.items():
        best = start
        for end in range(1, len(split) + 1):
            at = found.get(tuple(split[:end]))
            if at is None:
                break
            best = at
        offsets[path] = best
    return offsets


def _parts(path: str) -> list[str | int]:
    try:
        return parse_path(path)
    except ValueError:  # (a quoted part that is no JSON string: offset_of points at the text's start)
        return []


def _walk(
    text: str, pos: int, tree: _Tree, prefix: tuple[str | int, ...], found: dict[tuple[str | int, ...], int]
) -> None:
    """Record in ``found`` where each child of the container at ``pos`` that ``tree`` names is (the first of a
    repeated key, as :func:`_child`), and walk on into it; stop when every one is found. An error (broken
    text) ends the whole walk: a value that breaks a walk into it breaks the reading of it that steps over it,
    so :func:`offset_of` stops there as well, for every path that must pass it."""
    opener = text[pos]
    if opener not in "{[":
        return
    is_object = opener == "{"
    wanted = {part: below for part, below in tree.items() if isinstance(part, str) == is_object}
    closer = "}" if is_object else "]"
    pos = _skip_ws(text, pos + 1)
    index = 0
    while wanted and text[pos] != closer:
        at = pos
        if is_object:
            part, pos = _DECODER.raw_decode(text, pos)
            pos = _skip_ws(text, pos) + 1  # the colon
            pos = _skip_ws(text, pos)
        else:
            part = index
        below = wanted.pop(part, None)
        if below is not None:
            found[(*prefix, part)] = at
            if below:
                _walk(text, pos, below, (*prefix, part), found)
            if not wanted:
                return  # (the rest of this container is read by no path)
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        index += 1


def placed(found: Iterable[Diagnostic], text: str, origin: tuple[int, int] = (1, 1)) -> list[Diagnostic]:
    """``found`` with the line and column of the JSON value each path names in ``text``.

    ``origin`` is where ``text`` starts in its file (a page's bundle script), so the
    position is the file's, not the JSON text's.
    """
    found = list(found)
    if not found:
        return found
    starts = line_starts(text)
    first_line, first_column = origin
    offsets = offsets_of(text, [d.path for d in found])
    out = []
    for d in found:
        line, column = line_column(starts, offsets[d.path])
        out.append(replace(d, line=line + first_line - 1, column=column + (first_column - 1 if line == 1 else 0)))
    return out
