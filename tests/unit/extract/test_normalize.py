"""The contract's decimal strings, read by the one number reader: a table of tricky inputs."""

from __future__ import annotations

import pytest

from claim_evidence._extract.normalize import AmbiguousNumber, is_decimal_string, normalize_decimal, split_quantity

DECIMALS = [
    ("１，２００", "1200"),
    ("三百億", "30000000000"),
    ("1.2万", "12000"),
    ("2.50", "2.5"),
    ("１２", "12"),
    ("12.0", "12"),
    ("0.10", "0.1"),
    ("千二百", "1200"),
    ("二〇二六", "2026"),
    ("¥2,750", "2750"),
    ("2,750円", "2750"),
    ("$5.50", "5.5"),
    ("〇", "0"),
]


@pytest.mark.parametrize(("text", "value"), DECIMALS)
def test_normalize_decimal_table(text: str, value: str) -> None:
    assert normalize_decimal(text) == value
    assert is_decimal_string(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "12,5",
            "'12,5' reads two ways (a decimal comma or a list of numbers); write 12.5, or 1,250 with groups of three",
        ),
        ("12本", "'12本' carries the unit '本'; write the number alone"),
        ("約10", "'約10' is not a number; write digits such as 12 or 2.5"),
    ],
)
def test_normalize_decimal_refuses(text: str, message: str) -> None:
    with pytest.raises(AmbiguousNumber) as raised:
        normalize_decimal(text)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("二箱", ("2", "箱")),
        ("12本", ("12", "本")),
        ("５", ("5", "")),
        ("5ダース", ("5", "ダース")),
        ("一つ", ("1", "つ")),
    ],
)
def test_split_quantity_table(text: str, expected: tuple[str, str]) -> None:
    assert split_quantity(text) == expected


def test_split_quantity_refuses_a_price() -> None:
    with pytest.raises(AmbiguousNumber, match="is a price, not a quantity"):
        split_quantity("300円")


@pytest.mark.parametrize("value", ["12", "2.5", "0", "0.05", "30000000000"])
def test_is_decimal_string_accepts(value: str) -> None:
    assert is_decimal_string(value)


@pytest.mark.parametrize("value", ["012", "2.50", "-1", "1e3", "1,200", "12本", "", " 1", "2.", ".5", 12, None])
def test_is_decimal_string_refuses(value: object) -> None:
    assert not is_decimal_string(value)
