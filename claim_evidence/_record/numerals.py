"""Every number in a piece of Japanese or English prose, read to one canonical value.

A checker that compares a statement with its quoted passages must see that
``300億``, ``三百億円`` and ``30,000,000,000円`` say the same thing and that
``30億`` does not. So each number keeps its span as written (for messages) and
gets its value as one exact decimal string (for comparison).

The reader is deliberately conservative about kanji: a lone ``一`` or ``千`` is
far more often part of a word (一部, 千葉) than a number, and vague amounts
(数十億, 十数社, 何百) have no value to compare, so neither is reported. A single
kanji before a counter (二箱, 十個, 一つ) is a count all the same.

:func:`read_amount` reads a field that should hold exactly one amount (a quantity or a
price in an extraction): the whole text is one number, a counter or currency at most
around it, and what could be read two ways (``12,5``: 12.5 or the list 12 and 5) is
refused with :class:`AmbiguousNumber` rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, localcontext

__all__ = ["AmbiguousNumber", "Amount", "Number", "canonical", "find_numbers", "read_amount"]

_WIDE_DIGITS = "０１２３４５６７８９"
_TO_ASCII = str.maketrans(_WIDE_DIGITS + "，．", "0123456789,.")
_DIGITS = frozenset("0123456789" + _WIDE_DIGITS)
_KANJI_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# Units below 万 scale the digit group they follow; 十 after Arabic digits is not
# written in practice and would turn 5十分 into 50.
_SMALL_UNITS = {"十": 1, "百": 2, "千": 3}
_ARABIC_SMALL_UNITS = {"百": 2, "千": 3}
_LARGE_UNITS = {"万": 4, "億": 8, "兆": 12}
# Words that begin with a large unit's character: after a number they are not its unit.
_UNIT_WORDS = ("万博", "万全", "万能")
_KANJI_NUMERALS = frozenset(_KANJI_DIGITS) | frozenset(_SMALL_UNITS) | frozenset(_LARGE_UNITS)
_NEGATIVE_SIGNS = frozenset("-−－")
_SIGNS = _NEGATIVE_SIGNS | frozenset("+＋")
_STARTS = _DIGITS | frozenset(_KANJI_DIGITS) | frozenset(_SMALL_UNITS) | _SIGNS
# Where the next number can start: the scan jumps there in C instead of testing each character of
# the prose (most of it) in Python. The class is built from _STARTS, so the two cannot differ.
_NEXT_START = re.compile("[" + "".join(sorted(re.escape(char) for char in _STARTS)) + "]")

_D = "[0-9０-９]"
# Grouping only when every group after the first has exactly three digits, and
# never right after "digit + comma": in 1,2,345 the 2 and 345 are list items.
_INTEGER = re.compile(rf"(?<!{_D}[,，]){_D}{{1,3}}(?:[,，]{_D}{{3}})+(?!{_D})|{_D}+")
# A point is decimal only when the run has exactly one: 1.2.3 is a version.
_FRACTION = re.compile(rf"[.．]{_D}+(?![.．]?{_D})")
_SPACE = "[ \u00a0]?"
# Word: (power of ten, large unit?). "thousand" scales like 千 and, like it, is no large unit.
_SCALE_WORDS = {"thousand": (3, False), "million": (6, True), "billion": (9, True), "trillion": (12, True)}
_SCALE = re.compile(rf"{_SPACE}(thousand|million|billion|trillion)(?![A-Za-z])", re.IGNORECASE)
_SUFFIX = re.compile(
    rf"{_SPACE}(?:[%％倍円元]|米?ドル|ユーロ|ポンド|ウォン|パーセント|(?i:usd|jpy|eur|gbp|cny|percent)(?![A-Za-z]))"
)
# Counters after which a lone kanji is a count (二箱, 十個, 一つ), longest first. Not 部 (一部 is
# "a part"), 件 (一件落着) or 分 (十分 is "enough").
COUNTERS = (
    "セット", "ケース", "ダース", "パック", "ロール", "カートン",
    "個", "箱", "本", "枚", "台", "冊", "巻", "袋", "缶", "瓶", "束", "組", "脚", "着", "足", "匹", "杯", "点", "つ",
)  # fmt: skip
_COUNTER = re.compile(rf"{_SPACE}(?:{'|'.join(COUNTERS)})")
_PREFIX = re.compile(rf"(?:[$＄¥￥€£]|(?<![A-Za-z])(?i:usd|jpy|eur)){_SPACE}$")
# Long enough for "USD" plus a space; the look-behind still sees the character before.
_PREFIX_WINDOW = 4
# Exact arithmetic: additions and multiplications of finite decimals never round
# under MAX_PREC, so a 200-digit run keeps every digit.
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


@dataclass(frozen=True)
class Number:
    """One number as written in ``input[start:end]`` and its canonical value.

    ``text`` keeps the sign and the scale units (万, 億, 兆, 千, million …) because
    they are part of how the number reads, but not currency, percent or 倍
    markers, which say what it counts. ``quantity`` is True when it carries a
    large unit or such a marker: an amount or a ratio rather than a date part,
    an article number or a version.
    """

    text: str
    value: str
    start: int
    end: int
    quantity: bool


def canonical(value: Decimal) -> str:
    """Write ``value`` as a plain decimal: no exponent, no trailing zeros, no ``-0``.

    Equal amounts must compare equal as strings (``3.0`` and ``3``, ``1E+3`` and
    ``1000``), so this is the only form ``Number.value`` takes. Raises
    ``ValueError`` for NaN and infinities, which no written number produces.
    """
    if not value.is_finite():
        raise ValueError(f"not a finite number: {value}")
    if value.is_zero():
        return "0"
    return f"{value.normalize(_EXACT):f}"


def find_numbers(text: str) -> tuple[Number, ...]:
    """All numbers in ``text``, in order of appearance; never raises on a ``str``."""
    found: list[Number] = []
    start = _NEXT_START.search(text)
    if start is None:
        return ()
    with localcontext(_EXACT):
        while start is not None:
            number, position = _read(text, start.start())
            if number is not None:
                found.append(number)
            start = _NEXT_START.search(text, position)
    return tuple(found)


def _read(text: str, start: int) -> tuple[Number | None, int]:
    """The number starting at ``start`` (or None) and where scanning resumes."""
    body = start
    if text[start] in _SIGNS:
        if not _sign_allowed(text, start):
            return None, start + 1
        body += 1
    magnitude = _magnitude(text, body)
    if magnitude is None:
        return None, _after_kanji(text, body)
    value, end, large = magnitude
    if _is_vague(text, body, end) or _is_lone_kanji(text, body, end):
        return None, _after_kanji(text, end)
    if text[start] in _NEGATIVE_SIGNS:
        value = -value
    quantity = large or _SUFFIX.match(text, end) is not None
    quantity = quantity or _PREFIX.search(text, max(0, start - _PREFIX_WINDOW), start) is not None
    return Number(text[start:end], canonical(value), start, end, quantity), end


def _sign_allowed(text: str, position: int) -> bool:
    """A sign needs a digit after it and no digit, numeral or letter before it.

    ``2026-09-05`` and ``GPT-4`` use the hyphen as a joiner, not a minus.
    """
    if position + 1 == len(text) or text[position + 1] not in _DIGITS:
        return False
    if position == 0:
        return True
    before = text[position - 1]
    return before not in _DIGITS and before not in _KANJI_NUMERALS and not _is_latin_letter(before)


def _is_latin_letter(char: str) -> bool:
    return "A" <= char <= "Z" or "a" <= char <= "z" or "Ａ" <= char <= "Ｚ" or "ａ" <= char <= "ｚ"


def _is_vague(text: str, body: int, end: int) -> bool:
    """数十億, 十数社, 何百, 3千数百: an approximate amount has no value to compare.

    Only a kanji number is vague after 数: Arabic digits after it are a count
    (件数3件, 人数10人).
    """
    if end < len(text) and text[end] == "数":
        return True
    return text[body] not in _DIGITS and body > 0 and text[body - 1] in "数何"


def _is_lone_kanji(text: str, body: int, end: int) -> bool:
    """A single kanji (一部, 統一, 九州, 千葉, 十分) is a word, not a number.

    It still counts before a currency, percent or 倍 marker (三倍, 百円), before a
    counter (二箱, 一つ) and after 第 (第三条), but not before 元, which is a word there too (一元化, 二元論).
    """
    if end - body != 1 or text[body] in _DIGITS:
        return False
    if body > 0 and text[body - 1] == "第":
        return False
    counter = _COUNTER.match(text, end)
    if counter is not None:
        return text[body] == "一" and _idiom(text, body, counter.end())
    marker = _SUFFIX.match(text, end)
    return marker is None or marker.group().endswith("元")


def _after_kanji(text: str, position: int) -> int:
    """Skip the rest of a rejected kanji run so no part of it is read on its own."""
    while position < len(text) and text[position] in _KANJI_NUMERALS:
        position += 1
    return position


def _magnitude(text: str, position: int) -> tuple[Decimal, int, bool] | None:
    """Groups with strictly falling large units added up: 1億2000万, 3万5千, 一億二千万.

    Returns the value, the end and whether a large unit (万, 億, 兆, million, …)
    appeared. A later group must be smaller than the unit before it, so
    ``1万23456`` is two numbers rather than 33456.
    """
    total = Decimal(0)
    end = position
    units: list[int] = []  # the large unit of each group taken; 0 for none
    while (coefficient := _coefficient(text, end)) is not None:
        value, group_end = coefficient
        unit = 0
        found = _large_unit(text, group_end)
        if found is not None:
            unit, group_end = found
        if units and (unit >= units[-1] or value.scaleb(unit) >= Decimal(1).scaleb(units[-1])):
            break
        if not units and unit == 0 and _arabic(text, position) == coefficient:
            return _english_scale(text, value, group_end)
        total += value.scaleb(unit)
        end = group_end
        units.append(unit)
    if not units:
        return None
    # Units fall strictly, so the first group carries the largest one.
    return total, end, units[0] in _LARGE_UNITS.values()


def _large_unit(text: str, position: int) -> tuple[int, int] | None:
    """万, 億 or 兆 at ``position`` (exponent, end), or None.

    Sites that space Latin text from Japanese write ``300 億円`` and ``100 万トークン``:
    one space is allowed after Arabic digits, so that 300 億 is read as the amount
    it is and cannot slip past the check as a bare 300. Kanji never take a space.
    """
    at = position
    if at < len(text) and text[at] in " \u00a0" and text[position - 1] in _DIGITS:  # (a coefficient precedes)
        at += 1
    if at < len(text) and text[at] in _LARGE_UNITS and not text.startswith(_UNIT_WORDS, at):
        return _LARGE_UNITS[text[at]], at + 1
    return None


def _english_scale(text: str, value: Decimal, end: int) -> tuple[Decimal, int, bool]:
    """``3 billion``, ``1.5 million``: a scale word after plain digits, whole word only."""
    scale = _SCALE.match(text, end)
    if scale is None:
        return value, end, False
    power, large = _SCALE_WORDS[scale.group(1).lower()]
    return value.scaleb(power), scale.end(), large


def _coefficient(text: str, position: int) -> tuple[Decimal, int] | None:
    """The digits before a large unit: 千五百, 2千500, 二十一, 3,000, or 二〇二六.

    Terms need strictly falling small units, each smaller than the unit before
    it. Kanji written digit by digit (二〇二六) take no small unit at all; 二三十
    ("twenty or thirty") is vague and read as nothing.
    """
    run = position
    while run < len(text) and text[run] in _KANJI_DIGITS:
        run += 1
    if run - position >= 2:
        if run < len(text) and text[run] in _SMALL_UNITS:
            return None
        return Decimal("".join(str(_KANJI_DIGITS[char]) for char in text[position:run])), run
    total = Decimal(0)
    end = position
    units: list[int] = []  # the small unit of each term taken; 0 for none
    while (term := _term(text, end)) is not None:
        value, unit, term_end = term
        if units and (unit >= units[-1] or value.scaleb(unit) >= Decimal(1).scaleb(units[-1])):
            break
        total += value.scaleb(unit)
        end = term_end
        units.append(unit)
    if not units:
        return None
    return total, end


def _term(text: str, position: int) -> tuple[Decimal, int, int] | None:
    """One digit group and the small unit after it: value, unit exponent, end."""
    if position >= len(text):
        return None
    arabic = _arabic(text, position)
    char = text[position]
    if arabic is not None:
        value, end = arabic
        units = _ARABIC_SMALL_UNITS
    elif char in _SMALL_UNITS:
        return Decimal(1), _SMALL_UNITS[char], position + 1
    elif char in _KANJI_DIGITS:
        value, end = Decimal(_KANJI_DIGITS[char]), position + 1
        units = _SMALL_UNITS if value else {}
    else:
        return None
    if end < len(text) and text[end] in units:
        return value, units[text[end]], end + 1
    return value, 0, end


def _arabic(text: str, position: int) -> tuple[Decimal, int] | None:
    """ASCII or full-width digits with their group separators and decimal point, exactly."""
    integer = _INTEGER.match(text, position)
    if integer is None:
        return None
    written = integer.group()
    end = integer.end()
    in_version = position >= 2 and text[position - 1] in ".．" and text[position - 2] in _DIGITS
    fraction = None if in_version else _FRACTION.match(text, end)
    if fraction is not None:
        written += fraction.group()
        end = fraction.end()
    return Decimal(written.translate(_TO_ASCII).replace(",", "")), end


# 一 before a counter inside a word: 精一杯, 手一杯 (a kanji before it), 一本化, 一点張り, 一足先 (a kanji
# after the counter that makes a compound). Not 二, 三…: those idioms are built on 一.
_IDIOM_AFTER = frozenset("化張先")


def _idiom(text: str, body: int, after: int) -> bool:
    """The lone ``一`` at ``body`` and its counter (ending at ``after``) are part of a word, not a count."""
    before = text[body - 1] if body > 0 else ""
    return bool(before) and _is_han(before) or text[after : after + 1] in _IDIOM_AFTER


def _is_han(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf" or "\uf900" <= char <= "\ufaff"


class AmbiguousNumber(ValueError):
    """A field's text is no single amount, or reads two ways; the message says why and what to write."""


@dataclass(frozen=True)
class Amount:
    """One amount read from a whole field: its canonical ``value``, the ``unit`` written after it
    (a counter such as 箱, or ``""``) and its ``currency`` (``"JPY"``, ``"USD"`` or ``None``)."""

    value: str
    unit: str
    currency: str | None


_CURRENCY_BEFORE = {"¥": "JPY", "￥": "JPY", "$": "USD", "＄": "USD"}
_CURRENCY_AFTER = (("円", "JPY"), ("米ドル", "USD"), ("ドル", "USD"))
_SEPARATOR_THEN_DIGIT = re.compile(rf"[,，]{_D}")


def read_amount(text: str) -> Amount:
    """The one amount that ``text`` is as a whole: ``"１，２００"`` → 1200, ``"三百億"``, ``"1.2万"``,
    ``"二箱"`` → 2 with unit 箱, ``"¥3,000"`` → 3000 JPY, ``"〇"`` → 0.

    Raises :class:`AmbiguousNumber` for text that is not exactly one non-negative amount (empty,
    words, two numbers, a vague 数十), and for a separator that groups no three digits
    (``12,5``, ``1,23``): a decimal comma or a list, which cannot be told apart.
    """
    written = text.strip()
    currency = None
    if written[:1] in _CURRENCY_BEFORE:
        currency = _CURRENCY_BEFORE[written[0]]
        written = written[1:].lstrip()
    if not written or written[0] not in _DIGITS and written[0] not in _KANJI_NUMERALS:
        raise AmbiguousNumber(f"{text!r} is not a number; write digits such as 12 or 2.5")
    with localcontext(_EXACT):
        magnitude = _magnitude(written, 0)
    if magnitude is None:
        raise AmbiguousNumber(f"{text!r} is not a number; write digits such as 12 or 2.5")
    value, end, _large = magnitude
    rest = written[end:]
    if _SEPARATOR_THEN_DIGIT.match(rest):
        raise AmbiguousNumber(
            f"{text!r} reads two ways (a decimal comma or a list of numbers); write 12.5, or 1,250 with groups of three"
        )
    if rest.startswith("数") or _is_vague(written, 0, end):
        raise AmbiguousNumber(f"{text!r} is a vague amount; it has no value")
    for suffix, code in _CURRENCY_AFTER:
        if rest.startswith(suffix) and currency is None:
            currency, rest = code, rest[len(suffix) :]
            break
    unit = rest.strip()
    if unit and (any(char in _DIGITS or char in _KANJI_DIGITS for char in unit) or not unit.isalpha()):
        raise AmbiguousNumber(f"{text!r} holds more than one number or sign; write one amount such as 12")
    return Amount(canonical(value), unit, currency)
