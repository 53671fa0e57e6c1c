"""Numbers read from Japanese and English prose: a table of written forms, spans,
and properties that round-trip every supported way of writing a value."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._record.numerals import AmbiguousNumber, Amount, Number, canonical, find_numbers, read_amount

CANONICAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?")


def values(text: str) -> list[tuple[str, bool]]:
    return [(number.value, number.quantity) for number in find_numbers(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Arabic digits, separators and points
        ("売上は1200件", [("1200", False)]),
        ("1,200", [("1200", False)]),
        ("1，200", [("1200", False)]),
        ("30,000,000,000", [("30000000000", False)]),
        ("1,2,3", [("1", False), ("2", False), ("3", False)]),
        ("12,34", [("12", False), ("34", False)]),
        ("1234,567", [("1234", False), ("567", False)]),
        ("1,2345", [("1", False), ("2345", False)]),
        ("1,234,5678", [("1234", False), ("5678", False)]),
        ("3,1,200", [("3", False), ("1", False), ("200", False)]),
        ("1,234.5", [("1234.5", False)]),
        ("2.50", [("2.5", False)]),
        ("3.0", [("3", False)]),
        ("１．５", [("1.5", False)]),
        ("１，２３４．５０", [("1234.5", False)]),
        ("0.05", [("0.05", False)]),
        ("3.", [("3", False)]),
        ("1.2.3", [("1", False), ("2", False), ("3", False)]),
        ("v1.23.4", [("1", False), ("23", False), ("4", False)]),
        ("2026.9.5", [("2026", False), ("9", False), ("5", False)]),
        ("2026年9月5日", [("2026", False), ("9", False), ("5", False)]),
        ("2026-09-05", [("2026", False), ("9", False), ("5", False)]),
        ("第14条", [("14", False)]),
        ("12:30", [("12", False), ("30", False)]),
        # signs
        ("-1.5%", [("-1.5", True)]),
        ("前年比-3%", [("-3", True)]),
        ("前年比−3％", [("-3", True)]),
        ("前年比－３％", [("-3", True)]),
        ("+5%", [("5", True)]),
        ("＋５％", [("5", True)]),
        ("GPT-4", [("4", False)]),
        ("ＧＰＴ－４", [("4", False)]),
        ("gpt-4o", [("4", False)]),
        ("3億-5億", [("300000000", True), ("500000000", True)]),
        ("三-5", [("5", False)]),
        ("10-20%", [("10", False), ("20", True)]),
        ("-0", [("0", False)]),
        ("- 5", [("5", False)]),
        ("--5", [("-5", False)]),
        ("−三百", [("300", False)]),
        ("1X2.5", [("1", False), ("2.5", False)]),
        # large units
        ("300億", [("30000000000", True)]),
        ("300 億円", [("30000000000", True)]),
        ("100 万トークン", [("1000000", True)]),
        ("1.5\u00a0兆", [("1500000000000", True)]),
        ("1 万人", [("10000", True)]),
        ("三百 億", [("300", False)]),
        ("300  億", [("300", False)]),
        ("3X億", [("3", False)]),
        ("2025万博", [("2025", False)]),
        ("2025 万博", [("2025", False)]),
        ("3万全", [("3", False)]),
        ("5万能", [("5", False)]),
        ("3兆候", [("3000000000000", True)]),
        ("三百億円", [("30000000000", True)]),
        ("30,000,000,000円", [("30000000000", True)]),
        ("30億", [("3000000000", True)]),
        ("１０億", [("1000000000", True)]),
        ("3,000万", [("30000000", True)]),
        ("1.5兆", [("1500000000000", True)]),
        ("-1.5兆円", [("-1500000000000", True)]),
        ("5千万", [("50000000", True)]),
        ("5千", [("5000", False)]),
        ("5千人", [("5000", False)]),
        ("3百万円", [("3000000", True)]),
        ("1,500千円", [("1500000", True)]),
        ("2千500", [("2500", False)]),
        ("2千5000", [("2000", False), ("5000", False)]),
        ("1億2000万", [("120000000", True)]),
        ("1億2,000万", [("120000000", True)]),
        ("3万5千", [("35000", True)]),
        ("1万2345", [("12345", True)]),
        ("1万23456", [("10000", True), ("23456", False)]),
        ("1万 2345", [("10000", True), ("2345", False)]),
        ("1万2億", [("10000", True), ("200000000", True)]),
        ("1億5", [("100000005", True)]),
        ("2兆3億4万5", [("2000300040005", True)]),
        ("1万0万", [("10000", True), ("0", True)]),
        ("1万10000", [("10000", True), ("10000", False)]),
        ("1万15000", [("10000", True), ("15000", False)]),
        ("2千1000", [("2000", False), ("1000", False)]),
        ("5千0.5千", [("5000", False), ("500", False)]),
        ("5十", [("5", False)]),
        # kanji
        ("三百", [("300", False)]),
        ("千五百", [("1500", False)]),
        ("一千五百", [("1500", False)]),
        ("二十一", [("21", False)]),
        ("二千二十六", [("2026", False)]),
        ("百二十", [("120", False)]),
        ("二〇二六年", [("2026", False)]),
        ("一九九〇年", [("1990", False)]),
        ("零〇七", [("7", False)]),
        ("一億", [("100000000", True)]),
        ("一億二千万", [("120000000", True)]),
        ("千万円", [("10000000", True)]),
        ("一億二〇〇〇万", [("120000000", True)]),
        ("十一月", [("11", False)]),
        ("五千五千", [("5000", False), ("5000", False)]),
        ("二十5", [("25", False)]),
        ("千〇", [("1000", False)]),
        # single kanji: words, unless a marker or 第 makes them numbers
        ("一部", []),
        ("統一", []),
        ("九州", []),
        ("千葉", []),
        ("十分", []),
        ("唯一", []),
        ("万一", []),
        ("万全", []),
        ("三倍", [("3", True)]),
        ("百円", [("100", True)]),
        ("十%", [("10", True)]),
        ("三 倍", [("3", True)]),
        ("第三条", [("3", False)]),
        ("第十", [("10", False)]),
        ("一元化", []),
        ("二元論", []),
        ("十元", []),
        ("二十元", [("20", True)]),
        ("3元", [("3", True)]),
        ("千千", []),
        ("千千5", [("5", False)]),
        ("〇千", []),
        ("三の第", []),
        ("三5", [("5", False)]),
        # vague
        ("数十億円", []),
        ("十数社", []),
        ("何百人", []),
        ("数千万", []),
        ("百数十", []),
        ("3千数百万", []),
        ("10数年", []),
        ("二三十人", []),
        ("件数3件", [("3", False)]),
        ("三百人の何", [("300", False)]),
        ("X三百", [("300", False)]),
        ("数10億", [("1000000000", True)]),
        # English scale words
        ("3 billion", [("3000000000", True)]),
        ("1.5 million", [("1500000", True)]),
        ("2 trillion", [("2000000000000", True)]),
        ("2.5 Billion", [("2500000000", True)]),
        ("4MILLION", [("4000000", True)]),
        ("3\u00a0billion", [("3000000000", True)]),
        ("3 thousand", [("3000", False)]),
        ("3  billion", [("3", False)]),
        ("3 billions", [("3", False)]),
        ("3 millionaires", [("3", False)]),
        ("1,200 million", [("1200000000", True)]),
        ("3億 million", [("300000000", True)]),
        ("二〇 million", [("20", False)]),
        ("5千 million", [("5000", False)]),
        # currencies, percent and 倍 after
        ("100円", [("100", True)]),
        ("5ドル", [("5", True)]),
        ("5米ドル", [("5", True)]),
        ("5ユーロ", [("5", True)]),
        ("5ポンド", [("5", True)]),
        ("5ウォン", [("5", True)]),
        ("5 USD", [("5", True)]),
        ("5jpy", [("5", True)]),
        ("5 EUR", [("5", True)]),
        ("5GBP", [("5", True)]),
        ("5 CNY", [("5", True)]),
        ("5 USDT", [("5", False)]),
        ("5パーセント", [("5", True)]),
        ("5 percent", [("5", True)]),
        ("5 percentage", [("5", False)]),
        ("5 %", [("5", True)]),
        ("5  %", [("5", False)]),
        ("1.8倍", [("1.8", True)]),
        # currencies before
        ("$5", [("5", True)]),
        ("US$5", [("5", True)]),
        ("$ 5", [("5", True)]),
        ("$  5", [("5", False)]),
        ("＄5", [("5", True)]),
        ("¥1,000", [("1000", True)]),
        ("￥１，０００", [("1000", True)]),
        ("€3", [("3", True)]),
        ("£3", [("3", True)]),
        ("USD 5", [("5", True)]),
        ("JPY5", [("5", True)]),
        ("eur 5", [("5", True)]),
        ("XUSD5", [("5", False)]),
        ("XUSD 5", [("5", False)]),
        ("٣٤", []),
        ("$-5", [("-5", True)]),
        ("-$5", [("5", True)]),
        ("$1.5 million", [("1500000", True)]),
    ],
)
def test_numerals_written_forms(text: str, expected: list[tuple[str, bool]]) -> None:
    assert values(text) == expected


def test_numerals_same_amount_in_three_forms() -> None:
    written = ["300億", "三百億円", "30,000,000,000円"]
    assert {find_numbers(text)[0].value for text in written} == {"30000000000"}
    assert find_numbers("30億")[0].value == "3000000000"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("売上300億円", [Number("300億", "30000000000", 2, 6, True)]),
        ("前年比-1.5%", [Number("-1.5", "-1.5", 3, 7, True)]),
        ("$3 billion", [Number("3 billion", "3000000000", 1, 10, True)]),
        ("約5千万人", [Number("5千万", "50000000", 1, 4, True)]),
        ("第三条", [Number("三", "3", 1, 2, False)]),
        ("USD 1,200", [Number("1,200", "1200", 4, 9, True)]),
        ("＋１，２００．５０", [Number("＋１，２００．５０", "1200.5", 0, 9, False)]),
        ("9月5日", [Number("9", "9", 0, 1, False), Number("5", "5", 2, 3, False)]),
        ("ver 1.2.3", [Number("1", "1", 4, 5, False), Number("2", "2", 6, 7, False), Number("3", "3", 8, 9, False)]),
        ("一億二千万円", [Number("一億二千万", "120000000", 0, 5, True)]),
        ("🙂3万5千", [Number("3万5千", "35000", 1, 5, True)]),
    ],
)
def test_numerals_text_and_spans(text: str, expected: list[Number]) -> None:
    found = find_numbers(text)
    assert list(found) == expected
    assert all(text[number.start : number.end] == number.text for number in found)


@pytest.mark.parametrize("before", list("AZazＡＺａｚ"))
def test_numerals_no_sign_after_a_latin_letter(before: str) -> None:
    assert values(f"{before}-1") == [("1", False)]


@pytest.mark.parametrize("before", list("@[`{＠［｀｛") + ["", " ", "、"])
def test_numerals_sign_after_other_characters(before: str) -> None:
    assert values(f"{before}-1") == [("-1", False)]


def test_numerals_empty_and_numberless_text() -> None:
    assert find_numbers("") == ()
    assert find_numbers("根拠のない文章です。") == ()
    assert find_numbers("-") == ()
    assert find_numbers("x-") == ()


def test_numerals_result_is_a_tuple() -> None:
    assert isinstance(find_numbers("1と2"), tuple)


def test_numerals_huge_digit_runs_are_exact() -> None:
    digits = "9" * 150
    (number,) = find_numbers(f"約{digits}兆円")
    assert number.value == digits + "0" * 12
    assert number.text == digits + "兆"
    (fraction,) = find_numbers("0." + "0" * 120 + "1")
    assert fraction.value == "0." + "0" * 120 + "1"
    (long_sum,) = find_numbers("1" * 120 + "億" + "1" * 4 + "万")
    assert long_sum.value == "1" * 120 + "1111" + "0000"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("3.0"), "3"),
        (Decimal("2.50"), "2.5"),
        (Decimal(100), "100"),
        (Decimal("1E+3"), "1000"),
        (Decimal("1.5E+12"), "1500000000000"),
        (Decimal("-0"), "0"),
        (Decimal("-0.00"), "0"),
        (Decimal("0E+5"), "0"),
        (Decimal("0E-5"), "0"),
        (Decimal("-1.50"), "-1.5"),
        (Decimal("1E-7"), "0.0000001"),
        (Decimal("-120.000"), "-120"),
        (Decimal("-0E+3"), "0"),
        (Decimal("1" * 40 + ".10"), "1" * 40 + ".1"),
        (Decimal("1E+40"), "1" + "0" * 40),
    ],
)
def test_numerals_canonical(value: Decimal, expected: str) -> None:
    assert canonical(value) == expected


@pytest.mark.parametrize("value", [Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-Infinity")])
def test_numerals_canonical_refuses_non_finite(value: Decimal) -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        canonical(value)


# ---- round trip: every supported written form reads back to its value ----

WIDE = str.maketrans("0123456789.,", "０１２３４５６７８９．，")
KANJI = "〇一二三四五六七八九"
# Japanese that cannot form, extend, mark or qualify a number.
SURROUNDING = st.text(
    st.sampled_from(
        "あいうかきくさしすたちつなにぬはひふまみむよらりるわをんアイウカキクサシスタチツ会社売上高利益率前期比年度報告。、「」（）："
    ),
    max_size=4,
)
PREFIXES = ["", "$", "US$", "¥", "￥", "€ ", "£", "USD "]
SUFFIXES = ["", "円", "%", "％", "倍", " USD", "ドル", "米ドル", "パーセント", " percent"]


def _decimals(max_digits: int, signed: bool = True) -> st.SearchStrategy[Decimal]:
    limit = 10**max_digits - 1
    low = -limit if signed else 0
    return st.builds(lambda i, places: Decimal(i).scaleb(-places), st.integers(low, limit), st.integers(0, 4))


def _group(integer: str, separator: str) -> str:
    head = len(integer) % 3 or 3
    return separator.join([integer[:head]] + [integer[i : i + 3] for i in range(head, len(integer), 3)])


@st.composite
def _arabic(draw: Any, value: Decimal, signed: bool = True) -> str:
    """Plain, grouped, full-width digits or point, with any sign the module accepts."""
    magnitude = format(abs(value), "f")
    integer, _, fraction = magnitude.partition(".")
    separator = draw(st.sampled_from(["", ",", "，"]))
    written = _group(integer, separator) if separator else integer
    if fraction:
        written += draw(st.sampled_from([".", "．"])) + fraction
    if draw(st.booleans()):
        written = written.translate(WIDE)
    if not signed:
        return written
    sign = draw(st.sampled_from("-−－")) if value.is_signed() else draw(st.sampled_from(["", "+", "＋"]))
    return sign + written


def _kanji_below_10000(group: int, explicit_one: bool) -> str:
    written = ""
    for unit, power in (("千", 1000), ("百", 100), ("十", 10)):
        digit = group // power % 10
        if digit:
            written += ("" if digit == 1 and not explicit_one else KANJI[digit]) + unit
    return written + (KANJI[group % 10] if group % 10 else "")


def _kanji_positional(n: int, explicit_one: bool) -> str:
    written = ""
    for unit, power in (("兆", 10**12), ("億", 10**8), ("万", 10**4), ("", 1)):
        group = n // power % 10**4
        if group:
            written += _kanji_below_10000(group, explicit_one) + unit
    return written


@st.composite
def plain_numbers(draw: Any) -> tuple[str, Decimal, bool]:
    value = draw(_decimals(18))
    return draw(_arabic(value)), value, False


@st.composite
def kanji_positional(draw: Any) -> tuple[str, Decimal, bool]:
    n = draw(st.integers(1, 10**16 - 1))
    written = _kanji_positional(n, draw(st.booleans()))
    if len(written) == 1:  # a lone kanji is a word; 十 alone is exercised in the table
        written = "一" + written if n >= 10 else KANJI[n] + "十"
        n = n if n >= 10 else n * 10
    return written, Decimal(n), n >= 10**4


@st.composite
def kanji_digits(draw: Any) -> tuple[str, Decimal, bool]:
    n = draw(st.integers(10, 10**12))
    zero = draw(st.sampled_from("〇零"))
    return "".join(zero if char == "0" else KANJI[int(char)] for char in str(n)), Decimal(n), False


@st.composite
def unit_groups(draw: Any) -> tuple[str, Decimal, bool]:
    """1億2000万, 3万5千, 2兆3億4万5 (with grouped or full-width digits in a group)."""
    n = draw(st.integers(1, 10**16 - 1))
    written = ""
    for unit, power in (("兆", 10**12), ("億", 10**8), ("万", 10**4), ("", 1)):
        group = n // power % 10**4
        if not group:
            continue
        if not unit and group % 1000 == 0 and draw(st.booleans()):
            digits = f"{group // 1000}千"
        else:
            digits = draw(_arabic(Decimal(group), signed=not written))
        written += digits + unit
    return written, Decimal(n), n >= 10**4


@st.composite
def digits_and_unit(draw: Any) -> tuple[str, Decimal, bool]:
    """1.5兆, -3,000万, 5千万, ３百万."""
    coefficient = draw(_decimals(6))
    unit, power = draw(
        st.sampled_from(
            [("万", 4), ("億", 8), ("兆", 12), ("千", 3), ("千万", 7), ("百", 2), ("百万", 6), ("千億", 11)]
        )
    )
    large = any(char in "万億兆" for char in unit)
    return draw(_arabic(coefficient)) + unit, coefficient.scaleb(power), large


@st.composite
def english_scale(draw: Any) -> tuple[str, Decimal, bool]:
    coefficient = draw(_decimals(6))
    word, power = draw(st.sampled_from([("thousand", 3), ("million", 6), ("billion", 9), ("trillion", 12)]))
    word = "".join(char.upper() if draw(st.booleans()) else char for char in word)
    space = draw(st.sampled_from(["", " ", "\u00a0"]))
    return draw(_arabic(coefficient)) + space + word, coefficient.scaleb(power), power >= 6


WRITTEN = st.one_of(
    plain_numbers(), kanji_positional(), kanji_digits(), unit_groups(), digits_and_unit(), english_scale()
)


@settings(max_examples=300, deadline=None)
@given(WRITTEN, SURROUNDING, SURROUNDING, st.sampled_from(PREFIXES), st.sampled_from(SUFFIXES))
def test_numerals_round_trip_every_written_form(
    written: tuple[str, Decimal, bool], before: str, after: str, prefix: str, suffix: str
) -> None:
    text, value, large = written
    if text[0] not in "0123456789０１２３４５６７８９-−－+＋":
        prefix = ""  # currency symbols go before Arabic digits only
    sentence = before + prefix + text + suffix + after
    start = len(before + prefix)
    (number,) = find_numbers(sentence)
    assert (number.text, number.start, number.end) == (text, start, start + len(text))
    assert Decimal(number.value) == value
    assert CANONICAL.fullmatch(number.value) and number.value != "-0"
    assert number.quantity == (large or bool(prefix) or bool(suffix))


def _check_consistent(text: str) -> None:
    found = find_numbers(text)
    position = 0
    for number in found:
        assert text[number.start : number.end] == number.text
        assert position <= number.start < number.end
        position = number.end
        assert CANONICAL.fullmatch(number.value) and number.value != "-0"
        assert canonical(Decimal(number.value)) == number.value


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_numerals_never_raise_on_any_text(text: str) -> None:
    _check_consistent(text)


NUMERIC_ALPHABET = st.sampled_from(
    list("0１,，.．-−－+＋ 〇零一二三四五六七八九十百千万億兆数何第円元倍%％$¥ABxyz語\u0301")
    + ["\U0001f600", "million", "USD", "9" * 120]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMERIC_ALPHABET, max_size=25).map("".join))
def test_numerals_spans_consistent_on_numeral_soup(text: str) -> None:
    _check_consistent(text)


# --- single kanji before a counter, and read_amount (one amount per field) ---------------------

COUNTED = [
    ("二箱", [("2", False)]),
    ("十個", [("10", False)]),
    ("一つ", [("1", False)]),
    ("三本と五枚", [("3", False), ("5", False)]),
    ("六パック", [("6", False)]),
    # still words, not counts: 一部, 十分, 一件落着 take no counter of the list
    ("一部の商品", []),
    ("十分です", []),
    ("一件落着", []),
    # 一 and its counter inside a word: 精一杯, 手一杯, 一本化, 一点張り, 一足先; a count where it stands alone
    ("精一杯の努力", []),
    ("手一杯だ", []),
    ("対応を一本化した", []),
    ("一点張り", []),
    ("一足先に", []),
    ("コーヒー一杯と二杯", [("1", False), ("2", False)]),
    ("二本化", [("2", False)]),
    ("第一つ", [("1", False)]),
]


@pytest.mark.parametrize(("text", "expected"), COUNTED)
def test_find_numbers_lone_kanji_before_counter(text: str, expected: list[tuple[str, bool]]) -> None:
    assert values(text) == expected


AMOUNTS = [
    ("１，２００", Amount("1200", "", None)),
    ("三百億", Amount("30000000000", "", None)),
    ("1.2万", Amount("12000", "", None)),
    ("2.50", Amount("2.5", "", None)),
    ("二箱", Amount("2", "箱", None)),
    ("十個", Amount("10", "個", None)),
    ("一つ", Amount("1", "つ", None)),
    ("〇", Amount("0", "", None)),
    ("0.50", Amount("0.5", "", None)),
    ("12,500", Amount("12500", "", None)),
    ("二十四巻", Amount("24", "巻", None)),
    ("5ダース", Amount("5", "ダース", None)),
    (" ３本 ", Amount("3", "本", None)),
    ("¥3,000", Amount("3000", "", "JPY")),
    ("1200円", Amount("1200", "", "JPY")),
    ("$12.50", Amount("12.5", "", "USD")),
    ("＄５", Amount("5", "", "USD")),
    ("12ドル", Amount("12", "", "USD")),
    ("1億2000万", Amount("120000000", "", None)),
]


@pytest.mark.parametrize(("text", "expected"), AMOUNTS)
def test_read_amount_table(text: str, expected: Amount) -> None:
    assert read_amount(text) == expected


REFUSED = [
    ("12,5", "'12,5' reads two ways (a decimal comma or a list of numbers); write 12.5, or 1,250 with groups of three"),
    ("1,23", "'1,23' reads two ways (a decimal comma or a list of numbers); write 12.5, or 1,250 with groups of three"),
    (
        "１２，５",
        "'１２，５' reads two ways (a decimal comma or a list of numbers); write 12.5, or 1,250 with groups of three",
    ),
    ("", "'' is not a number; write digits such as 12 or 2.5"),
    ("たくさん", "'たくさん' is not a number; write digits such as 12 or 2.5"),
    ("-3", "'-3' is not a number; write digits such as 12 or 2.5"),
    ("数十", "'数十' is not a number; write digits such as 12 or 2.5"),
    ("十数個", "'十数個' is a vague amount; it has no value"),
    ("12本と3本", "'12本と3本' holds more than one number or sign; write one amount such as 12"),
    ("10-20", "'10-20' holds more than one number or sign; write one amount such as 12"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_read_amount_refuses(text: str, message: str) -> None:
    with pytest.raises(AmbiguousNumber) as raised:
        read_amount(text)
    assert str(raised.value) == message


@settings(max_examples=500, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("0123456789０１２,，.．一二三十百千万億兆〇数何箱本つ円ドル$¥- ")), max_size=12
    )
)
def test_read_amount_gives_a_canonical_value_or_refuses(text: str) -> None:
    try:
        amount = read_amount(text)
    except AmbiguousNumber:
        return
    assert CANONICAL.fullmatch(amount.value) and not amount.value.startswith("-")


def _find_numbers_by_character(text: str) -> tuple[Number, ...]:
    """The reader's scan as it was before the regex jump (``find_numbers`` tested every character against
    the start set in Python): the reference the faster scan must agree with."""
    from decimal import localcontext

    from claim_evidence._record import numerals

    found: list[Number] = []
    position = 0
    with localcontext(numerals._EXACT):
        while position < len(text):
            if text[position] in numerals._STARTS:
                number, position = numerals._read(text, position)
                if number is not None:
                    found.append(number)
            else:
                position += 1
    return tuple(found)


# Every character the reader treats specially, and prose around it.
_NUMBER_ALPHABET = "0123456789０１２３４５６７８９〇零一二三四五六七八九十百千万億兆-−－+＋.,，．%％ 年月日個つ本件円倍第数何約精杯足張化点先手あいう語abc"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=_NUMBER_ALPHABET, max_size=40))
def test_find_numbers_jumps_to_the_same_numbers_as_a_scan_of_every_character(text: str) -> None:
    assert find_numbers(text) == _find_numbers_by_character(text)


def test_find_numbers_without_a_start_character_finds_none() -> None:
    assert find_numbers("生成AIの推論は速くなった。") == ()
    assert find_numbers("") == ()
