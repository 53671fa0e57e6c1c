"""Figures of an answer: a number's value *and* what it counts, so ``22 倍`` is not ``8 月 22 日``.

The number reader (``_record.numerals``) gives a value; a value alone grounds too much, because a
chunk full of dates holds most small integers. So the guard compares ``(value, counter)``: the
counter is the word written right after the number (one optional space between), folded to one
form per meaning (``%``, ``％``, ``パーセント`` and ``percent`` are ``%``), or a currency sign
written before it. A number with no counter after it keeps the counter ``""`` and, in an
answer, is grounded by the same value with any counter (a version, an id, a bare count); a
number *with* a counter is grounded only by the same value with the same counter.

An ISO date (``2026-09-03``, ``2026/9/3``) is read as its three figures ``2026 年``, ``9 月``,
``3 日``: that is how an answer writes the date a record holds. Every URL is blanked first (the
digits of a path are no figure).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from .._record.numerals import find_numbers
from .text import without_urls

# Folded counter → the ways it is written (NFKC, case folded), longest first when matched.
_COUNTERS: dict[str, tuple[str, ...]] = {
    "%": ("%", "パーセント", "percent", "per cent"),
    "倍": ("倍", "times", "x", "×"),
    "円": ("円", "yen", "jpy"),
    "ドル": ("ドル", "米ドル", "dollars", "dollar", "usd"),
    "ユーロ": ("ユーロ", "euros", "euro", "eur"),
    "元": ("元", "yuan", "cny"),
    "年": ("年",),
    "月": ("月",),
    "日": ("日", "days", "day"),
    "時間": ("時間", "hours", "hour"),
    "分": ("分", "minutes", "minute"),
    "秒": ("秒", "seconds", "second"),
    "週": ("週", "weeks", "week"),
    "件": ("件", "cases", "case"),
    "人": ("人", "名", "people", "persons"),
    "社": ("社", "companies", "firms"),
    "回": ("回",),
    "個": ("個",),
    "台": ("台", "units", "unit"),
    "本": ("本",),
    "歳": ("歳", "years old"),
    "位": ("位",),
    "点": ("点", "points", "point"),
    "トークン": ("トークン", "tokens", "token"),
    "文字": ("文字", "characters", "chars"),
    "行": ("行", "lines"),
    "ページ": ("ページ", "pages", "page"),
    "gb": ("gb",),
    "mb": ("mb",),
    "tb": ("tb",),
}
_SPELLINGS = sorted(((w, c) for c, ws in _COUNTERS.items() for w in ws), key=lambda p: (-len(p[0]), p[0]))
_PREFIXES = {"$": "ドル", "＄": "ドル", "¥": "円", "￥": "円", "€": "ユーロ", "£": "ポンド"}
_ISO_DATE = re.compile(r"(?<![0-9])([0-9]{4})[-/]([0-9]{1,2})[-/]([0-9]{1,2})(?![0-9])")


@dataclass(frozen=True)
class Figure:
    """One figure as written (``text``, for messages), its canonical ``value`` and folded ``counter``."""

    text: str
    value: str
    counter: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return self.value, self.counter

    def shown(self) -> str:
        """``22 倍 (value 22, counter 倍)`` style detail for a message."""
        counter = f", counter {self.counter}" if self.counter else ", no counter"
        return f"(value {self.value}{counter})"


def figures(text: str) -> tuple[Figure, ...]:
    """Every figure of ``text`` in order: ISO dates as three figures, then each number with its counter."""
    blank = without_urls(text)
    found: list[tuple[int, Figure]] = []
    for match in _ISO_DATE.finditer(blank):
        for group, counter in zip((1, 2, 3), ("年", "月", "日"), strict=True):
            found.append((match.start(group), Figure(match.group(group), str(int(match.group(group))), counter)))
        blank = blank[: match.start()] + " " * (match.end() - match.start()) + blank[match.end() :]
    for number in find_numbers(blank):
        counter, end = _counter_after(blank, number.end)
        if not counter:
            counter = _prefix_before(blank, number.start)
        found.append((number.start, Figure(blank[number.start : end].strip(), number.value, counter)))
    return tuple(figure for _, figure in sorted(found, key=lambda pair: pair[0]))


def grounded_by(figure: Figure, held: AbstractSet[tuple[str, str]]) -> bool:
    """A figure with a counter needs that value with that counter; one without needs the value alone."""
    if figure.counter:
        return figure.key in held
    return any(value == figure.value for value, _ in held)


def _counter_after(text: str, end: int) -> tuple[str, int]:
    rest = unicodedata.normalize("NFKC", text[end : end + 16]).casefold()
    skip = 1 if rest[:1] in (" ", "\u00a0") else 0
    for spelling, counter in _SPELLINGS:
        if rest.startswith(spelling, skip):
            after = rest[skip + len(spelling) : skip + len(spelling) + 1]
            if spelling.isascii() and spelling[-1].isalpha() and after.isascii() and after.isalpha():
                continue  # "x" of "xyz", "day" of "daylight": a word, not a counter
            return counter, end + skip + len(spelling)
    return "", end


def _prefix_before(text: str, start: int) -> str:
    before = text[max(0, start - 2) : start].rstrip()
    return _PREFIXES.get(before[-1:], "") if before else ""
