"""The day-file: a plain-text list of the day's articles, one block per item.

::

    # 2026-09-04

    ■ title
    TL;DR: tldr
    summary line
    ・point
    Category: category
    Source: source
    Label: evidence_label
    Score: 87.5
    URL: https://example.com/a
    🔎 Claim Evidence: {"version":1,…}

The metadata line holds the bundle as compact JSON on one line and is written
only for items that have a bundle. Lines are separated by ``\\n`` (``\\r\\n`` is
read too); nothing else splits a line, so U+2028 in text stays text, and the
JSON escapes U+2028/U+2029/U+0085 so readers using ``str.splitlines`` agree.

The reader also reads the existing system's day-files (line 1 starting with
``YYYY年MM月DD日``; see :mod:`._legacy_dayfile`), and a file without a date
line takes its date from its name: a site moving over keeps its archive.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from .._core.atomic import atomic_write_bytes
from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, InputError, Severity, json_path
from .._core.errors import DayfileError
from .._core.jsonio import loads
from .._core.textio import read_text
from ._corrections import EVIDENCE_KEY
from ._legacy_dayfile import META as LEGACY_META
from ._legacy_dayfile import classify, is_legacy, name_date, title_date, year_less_name

ITEM_MARK = "■ "
POINT_MARK = "・"
META_PREFIX = "🔎 Claim Evidence: "
ESCAPE = "\\"
# Single-line fields: (item key, line prefix), in the order they are written.
FIELD_LINES = (
    ("category", "Category: "),
    ("source", "Source: "),
    ("evidence_label", "Label: "),
    ("score", "Score: "),
    ("url", "URL: "),
)
TLDR_PREFIX = "TL;DR: "
_PREFIXES = (ITEM_MARK, POINT_MARK, META_PREFIX, TLDR_PREFIX, ESCAPE, "#") + tuple(p for _, p in FIELD_LINES)
# Characters str.splitlines() breaks on that json.dumps leaves raw.
_LINE_BREAKERS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


class ParsedDayfile(TypedDict):
    """What :func:`parse_dayfile` returns; ``lines[i]`` is the line of ``headlines[i]``'s ``■``."""

    date: str | None
    headlines: list[dict[str, Any]]
    lines: list[int]
    diagnostics: list[Diagnostic]


# --- writing ------------------------------------------------------------------------


def date_text(date: str | datetime.date) -> str:
    text = date.isoformat() if isinstance(date, datetime.date) else date
    if not is_valid_date(text):
        raise ValueError(f"date must be YYYY-MM-DD, got {date!r}")
    return text


def metadata_line(bundle: Any) -> str:
    """``🔎 Claim Evidence: {compact JSON}``: key order kept, raw UTF-8, no line breaks."""
    text = json.dumps(bundle, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in _LINE_BREAKERS.items():
        text = text.replace(char, escaped)
    return META_PREFIX + text


def format_dayfile(items: Iterable[Mapping[str, Any]], date: str | datetime.date) -> str:
    """The day-file text for ``items`` (in the order given) under ``date``."""
    blocks = [f"# {date_text(date)}\n"]
    for index, item in enumerate(items):
        blocks.append("\n".join(_item_lines(item, index)) + "\n")
    return "\n".join(blocks)


def write_dayfile(items: Iterable[Mapping[str, Any]], path: str | os.PathLike[str], date: str | datetime.date) -> Path:
    """Write the day-file atomically; return the path written. Items are not changed."""
    return atomic_write_bytes(path, format_dayfile(items, date).encode("utf-8"))


def _item_lines(item: Mapping[str, Any], index: int) -> list[str]:
    name = f"item {index} ({item.get('url', 'no url')})"
    lines = [ITEM_MARK + _one_line(item.get("title"), "title", name)]
    if item.get("tldr") is not None:
        lines.append(TLDR_PREFIX + _one_line(item["tldr"], "tldr", name))
    summary = item.get("summary")
    if summary:
        lines.extend(_escaped(line) for line in _no_cr(str(summary), "summary", name).split("\n"))
    for point in item.get("points") or ():
        lines.append(POINT_MARK + _one_line(point, "points", name))
    for key, prefix in FIELD_LINES:
        value = item.get(key)
        if value is not None:
            lines.append(prefix + (_score(value, name) if key == "score" else _one_line(value, key, name)))
    bundle = item.get(EVIDENCE_KEY)
    if bundle is not None and bundle != {}:
        try:
            lines.append(metadata_line(bundle))
        except ValueError as exc:
            raise DayfileError(
                Diagnostic("NW211", f"claim_evidence cannot be written as JSON: {exc}", subject=name)
            ) from None
    return lines


def _score(value: Any, name: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise DayfileError(Diagnostic("NW211", f"score cannot be written as JSON: {exc}", subject=name)) from None


def _escaped(line: str) -> str:
    """A summary line that would read as markup (or is blank) gets a leading backslash."""
    return ESCAPE + line if not line.strip() or line.startswith(_PREFIXES) else line


def _no_cr(text: str, key: str, name: str) -> str:
    if "\r" in text:
        raise DayfileError(Diagnostic("NW210", f"{key} contains a carriage return", subject=name))
    return text


def _one_line(value: Any, key: str, name: str) -> str:
    text = "" if value is None else str(value)
    if "\n" in text or "\r" in text:
        raise DayfileError(
            Diagnostic("NW210", f"{key} contains a line break; a day-file field is one line", subject=name)
        )
    return text


# --- reading ------------------------------------------------------------------------


@dataclass
class _Item:
    line: int
    value: dict[str, Any]
    summary: list[str] = field(default_factory=list)
    evidence_lines: list[int] = field(default_factory=list)
    bundle: Any = None
    seen: set[str] = field(default_factory=set)


class _Parser:
    """One set of rules for items, fields and evidence lines, whichever form the lines come in.

    ``legacy``: the existing system's form (:mod:`._legacy_dayfile` classifies its
    lines). Summary lines are joined with line breaks in both forms: the existing
    writer put a summary's own line breaks there (its reader joined them with spaces;
    fingerprints fold whitespace either way), so its summary comes back as written.
    """

    def __init__(self, name: str | None, legacy: bool = False) -> None:
        self.name = name
        self.legacy = legacy
        self.date: str | None = None
        self.items: list[_Item] = []
        self.diagnostics: list[Diagnostic] = []

    def report(
        self, code: str, line: int, message: str, severity: Severity = "error", column: int | None = None
    ) -> None:
        self.diagnostics.append(
            Diagnostic(code, message, severity=severity, subject="day-file", file=self.name, line=line, column=column)
        )

    def feed(self, number: int, line: str) -> None:
        if self.legacy:
            self.feed_legacy(number, line)
            return
        if number == 1 and line.startswith("# "):
            self.date = line[2:] if is_valid_date(line[2:]) else None
            if self.date is None:
                self.report("NW200", 1, f"date header must be '# YYYY-MM-DD', got {line!r}")
            return
        if line.startswith(ITEM_MARK):
            self.items.append(_Item(number, {"title": line[len(ITEM_MARK) :]}))
        elif not self.items:
            self.outside(number, line.startswith(META_PREFIX), bool(line.strip()))
        elif line == "":
            return
        else:
            self.item_line(self.items[-1], number, line)

    def outside(self, number: int, evidence: bool, text: bool) -> None:
        """A line before the first item: an evidence line belongs to no item; other text is ignored."""
        if evidence:
            self.report("NW204", number, "claim evidence line outside an item is ignored")
        elif text:
            self.report("NW207", number, "text before the first item is ignored", "warning")

    def item_line(self, item: _Item, number: int, line: str) -> None:
        if line.startswith(META_PREFIX):
            self.evidence(item, number, line[len(META_PREFIX) :], len(META_PREFIX))
        elif line.startswith(POINT_MARK):
            item.value.setdefault("points", []).append(line[len(POINT_MARK) :])
        elif line.startswith(TLDR_PREFIX):
            self.field(item, number, "tldr", line[len(TLDR_PREFIX) :])
        elif line.startswith(ESCAPE):
            item.summary.append(line[1:])
        else:
            for key, prefix in FIELD_LINES:
                if line.startswith(prefix):
                    self.field(item, number, key, line[len(prefix) :])
                    return
            item.summary.append(line)

    def feed_legacy(self, number: int, line: str) -> None:
        if number == 1:  # the title line the existing reader took the date from
            self.date = title_date(line)
            if self.date is None:
                self.report("NW200", 1, f"the date that starts line 1 (YYYY年MM月DD日) is not a real date: {line!r}")
            return
        found = classify(line)
        if found.kind == "skip":
            return
        if found.kind == "item":
            item = _Item(number, {"title": found.text})
            self.items.append(item)
            for key, text in found.fields:
                self.field(item, number, key, text)
        elif not self.items:
            self.outside(number, found.kind == "meta", True)
        elif found.kind == "meta":
            self.evidence(self.items[-1], number, found.text, found.column)
        elif found.kind == "point":
            self.items[-1].value.setdefault("points", []).append(found.text)
        elif found.kind == "field":
            self.field(self.items[-1], number, found.key, found.text)
        elif found.kind == "summary":
            self.items[-1].summary.append(found.text)

    def evidence(self, item: _Item, number: int, text: str, column: int) -> None:
        """An item's evidence line; ``column``: where its JSON starts in the line (0-based)."""
        item.evidence_lines.append(number)
        if len(item.evidence_lines) == 1:
            item.bundle = self.decode(number, text, column)
        else:
            first = item.evidence_lines[0]
            message = (
                f"second claim evidence line for one item (first on line {first}); the item is kept without evidence"
            )
            self.report("NW203", number, message)

    def field(self, item: _Item, number: int, key: str, text: str) -> None:
        if key in item.seen:
            self.report("NW206", number, f"second {key} line for one item is ignored")
            return
        item.seen.add(key)
        if key != "score":
            item.value[key] = text
            return
        try:
            item.value["score"] = loads(text, self.name).value
        except InputError:
            self.report("NW208", number, f"score must be a JSON number, got {text!r}")

    def decode(self, number: int, text: str, column_offset: int) -> Any:
        column = column_offset + 1
        try:
            loaded = loads(text, self.name, line_offset=number - 1, column_offset=column_offset)
        except InputError as exc:
            d = exc.diagnostic
            reason = d.message.removeprefix("invalid JSON: ")
            message = f"claim evidence line is not valid JSON ({reason}); the item is kept without evidence"
            self.report("NW201", number, message, column=d.column or column)
            return None
        if not isinstance(loaded.value, dict):
            self.report(
                "NW202",
                number,
                "claim evidence line must hold a JSON object; the item is kept without evidence",
                column=column,
            )
            return None
        for parts in loaded.duplicate_keys:
            message = f"duplicate key at {json_path(parts)} in the claim evidence JSON: only the last value is kept"
            self.report("NW209", number, message, "warning", column)
        return loaded.value

    def dated(self) -> None:
        """No date on line 1: the file's name may hold it, as the existing system's archive read it."""
        if self.date is not None or any(d.code == "NW200" for d in self.diagnostics):
            return
        self.date = name_date(self.name)
        if self.date is not None:
            return
        message = "date header '# YYYY-MM-DD' missing on line 1"
        if self.name is not None:
            message += ", and the file name holds no date (YYYY-MM-DD, YYYY_MM_DD or YYYYMMDD)"
            if year_less_name(self.name):
                message += "; an MMDD name has no year (the existing system guessed it from the clock)"
        self.report("NW200", 1, message)

    def result(self) -> ParsedDayfile:
        self.dated()
        headlines = []
        for item in self.items:
            value = item.value
            value["summary"] = "\n".join(item.summary)
            if "url" not in value:
                self.report("NW205", item.line, "item has no URL line", "warning")
            if len(item.evidence_lines) == 1 and item.bundle is not None and item.bundle != {}:
                value[EVIDENCE_KEY] = item.bundle
            headlines.append(value)
        ordered = sorted(self.diagnostics, key=lambda d: (d.line or 0, d.code))
        return {
            "date": self.date,
            "headlines": headlines,
            "lines": [i.line for i in self.items],
            "diagnostics": ordered,
        }


def _lines(text: str) -> list[str]:
    """The lines of day-file text: split at ``\\n`` only (a ``\\r`` before it dropped), no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_dayfile_text(text: str, name: str | None = None) -> ParsedDayfile:
    """Parse day-file text; problems are diagnostics (file, line), never exceptions.

    Reads this project's form and the existing system's (line 1 starting with
    ``YYYY年MM月DD日``). Without a date on line 1 the date comes from ``name``
    (``news_2026-09-04.txt``) when it holds one.
    """
    lines = _lines(text)
    parser = _Parser(name, legacy=bool(lines) and is_legacy(lines[0]))
    for number, line in enumerate(lines, start=1):
        parser.feed(number, line)
    return parser.result()


def parse_dayfile(path: str | os.PathLike[str]) -> ParsedDayfile:
    """Read and parse a day-file. Raises :class:`~claim_evidence.InputError` only when it cannot be read."""
    name = os.fspath(path)
    return parse_dayfile_text(read_text(name), name)


def extract_dayfile_text(text: str) -> str:
    """The legacy reader's view for archives and summaries: every line but the metadata lines.

    A day-file with metadata lines and the same day-file without them give the same text.
    In the existing system's form the evidence line is indented, as its archive reader saw it.
    """
    lines = text.split("\n")
    if lines and is_legacy(lines[0]):
        return "\n".join(line for line in lines if not line.strip().startswith(LEGACY_META))
    return "\n".join(line for line in lines if not line.startswith(META_PREFIX))
