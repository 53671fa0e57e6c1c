"""The existing system's day-file form, read so that a site moving over keeps its archive readable.

The existing pipeline wrote ``MMDD.txt`` day-files in its own form (its
``DayFileFormatter``), before and after it added the evidence line::

    2026年09月05日のAIニュース速報 - <top title>

    ==================================================
    📰 ヘッドライン速報（5件）
    ==================================================

    ■ title（Business / スコア: 85）
      ソース: TechCrunch
      🎯 TL;DR: tldr
      summary
      🔎 Claim Evidence: {"claims":[…],…}
      ・point
      📊 数値: …
      🏷️ Label: Claim
      URL: https://example.com/a

Line 1 carries the date (``YYYY年MM月DD日``, where its reader took it); item
lines are indented, each known by its prefix; section headers and ``=`` rules
only structure the file. This module only *classifies* such lines: the day-file
parser (``_dayfile``) keeps one set of rules for items, fields, evidence lines
and their diagnostics, whichever form it reads. Nothing here is ever written:
``write_dayfile`` writes the project's own form, so reading an old file and
writing it again converts it.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from .._core.dates import is_valid_date

# Line 1 of the existing form: the date it was read from, then the top title.
TITLE_DATE = re.compile(r"([0-9]{4})年([0-9]{2})月([0-9]{2})日")
# ``■ title（category / スコア: 85）``: the suffix the existing writer added; the title may hold （…） itself.
_ITEM = re.compile(r"■ (?P<title>.*)（(?P<category>[^（）]+?) / スコア: (?P<score>-?[0-9]+(?:\.[0-9]+)?)）")
# Section headers as the existing writer wrote them (``📰 ヘッドライン速報（15件）``), or bare.
_SECTION = re.compile(
    r"(?:\S+ )?(?:ヘッドライン速報|市場・資金動向|GitHub Trending(?: AI/ML)?|HuggingFace注目モデル)(?:（[0-9]+件）)?"
)
_RULE = re.compile(r"=+")
_TLDR = re.compile(r"🎯\s*(?:TL;DR\s*:\s*)?", re.IGNORECASE)
META = "🔎 Claim Evidence:"
# Fields this project's items carry: (line prefix after the indentation, item key), in the existing reader's order.
_FIELDS = (("ソース:", "source"), ("🏷️ Label:", "evidence_label"), ("🏷 Label:", "evidence_label"), ("URL:", "url"))
# Lines of fields the project's items do not carry (metrics, competitors, impact, actions, HN score,
# correction note, integrity state, licence, topics, downloads, likes): not summary text.
_DROPPED = ("📊", "🔄", "🇯🇵", "⚡", "HN Score:", "🛠 訂正:", "⚠ 整合性:", "📄", "🏷", "📥", "❤")
_POINTS = ("・", "- ")
# A date in a file name, as the existing system's archive read names: YYYY-MM-DD or YYYY_MM_DD anywhere
# in the stem, else YYYYMMDD at its start. Its MMDD.txt names carry no year at all.
_NAME_DATE = re.compile(r"([0-9]{4})[-_]([0-9]{2})[-_]([0-9]{2})")
_NAME_DIGITS = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")
_NAME_MMDD = re.compile(r"([0-9]{2})([0-9]{2})(?![0-9])")


class Line(NamedTuple):
    """One classified line: ``kind`` is ``item``, ``field``, ``point``, ``meta``, ``summary``, ``skip``
    or ``dropped``; ``text`` its value (a title, a field's text, a point, the JSON, a summary line);
    ``key`` the item key of a field; ``column`` where ``text`` starts in the line (0-based, for JSON
    positions); ``fields`` the category and score an item line carries."""

    kind: str
    text: str = ""
    key: str = ""
    column: int = 0
    fields: tuple[tuple[str, str], ...] = ()


def is_legacy(first_line: str) -> bool:
    """Whether a day-file is in the existing system's form: its line 1 starts with ``YYYY年MM月DD日``."""
    return TITLE_DATE.match(first_line) is not None


def title_date(first_line: str) -> str | None:
    """The date of an existing-form day-file's line 1 (``2026年09月05日…`` → ``2026-09-05``), None if not a real date."""
    match = TITLE_DATE.match(first_line)
    day = "-".join(match.groups()) if match else ""
    return day if is_valid_date(day) else None


def name_date(name: str | None) -> str | None:
    """The date a day-file's name holds (``news_2026-09-04.txt``, ``2026_09_04.txt``, ``20260904.txt``), or None.

    The existing system's archive took a day-file's date from its name; a bare
    ``MMDD.txt`` gives none here, because the year it lacks was guessed from
    today's date there, and this reader never reads the clock.
    """
    stem = os.path.splitext(os.path.basename(name or ""))[0]
    for match in (_NAME_DATE.search(stem), _NAME_DIGITS.match(stem)):
        day = "-".join(match.groups()) if match else ""
        if is_valid_date(day):
            return day
    return None


def year_less_name(name: str | None) -> bool:
    """Whether a day-file is named like the existing system's ``MMDD.txt`` (a date without its year)."""
    match = _NAME_MMDD.match(os.path.basename(name or ""))
    return match is not None and is_valid_date(f"2000-{match[1]}-{match[2]}")  # 2000: 0229 is a day too


def classify(line: str) -> Line:
    """What an existing-form line holds, read as that system's own reader read it (the line stripped)."""
    if line.startswith("■ "):  # never indented: an indented ■ was summary text to that reader too
        item = _ITEM.fullmatch(line.rstrip())
        if item is None:
            return Line("item", line[2:].strip())
        return Line("item", item["title"], fields=(("category", item["category"]), ("score", item["score"])))
    text = line.strip()
    column = len(line) - len(line.lstrip())
    if not text or _RULE.fullmatch(text) or _SECTION.fullmatch(text):
        return Line("skip")
    if text.startswith(META):
        body = text[len(META) :]
        return Line("meta", body.strip(), column=column + len(META) + len(body) - len(body.lstrip()))
    if text.startswith("🎯"):
        return Line("field", _TLDR.sub("", text, count=1).strip(), "tldr")
    for prefix, key in _FIELDS:
        if text.startswith(prefix):
            return Line("field", text[len(prefix) :].strip(), key)
    if text.startswith(_DROPPED):
        return Line("dropped")
    for mark in _POINTS:
        if text.startswith(mark):
            return Line("point", text[len(mark) :])
    return Line("summary", text)
