"""Figures of an answer: a number's value with the counter written after it (or the currency sign before it)."""

from __future__ import annotations

import pytest

from claim_evidence._answer.figures import Figure, figures, grounded_by


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("22 倍", [("22 倍", "22", "倍")]),
        ("8 月 22 日", [("8 月", "8", "月"), ("22 日", "22", "日")]),
        ("100 万トークンあたり 300 円", [("100 万トークン", "1000000", "トークン"), ("300 円", "300", "円")]),
        ("約30億米ドル", [("30億米ドル", "3000000000", "ドル")]),
        (
            "12％ と 12 パーセント と 12 percent",
            [("12％", "12", "%"), ("12 パーセント", "12", "%"), ("12 percent", "12", "%")],
        ),
        ("$5 and 1.8x", [("5", "5", "ドル"), ("1.8x", "1.8", "倍")]),
        ("時点: 2026-09-03", [("2026", "2026", "年"), ("09", "9", "月"), ("03", "3", "日")]),
        ("クモエンジン 3 は速い", [("3", "3", "")]),
        ("3 xyz と 2 daylight", [("3", "3", ""), ("2", "2", "")]),
        ("https://example.com/2031/a は 12 件", [("12 件", "12", "件")]),
    ],
)
def test_figures_reads_each_number_with_its_counter(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(f.text, f.value, f.counter) for f in figures(text)] == expected


def test_figures_a_counter_must_match_and_a_bare_number_matches_any() -> None:
    held = {("22", "日"), ("8", "月"), ("3", "")}
    assert not grounded_by(Figure("22 倍", "22", "倍"), held)
    assert grounded_by(Figure("22 日", "22", "日"), held)
    assert grounded_by(Figure("22", "22", ""), held)
    assert not grounded_by(Figure("3 倍", "3", "倍"), held)
    assert Figure("22 倍", "22", "倍").shown() == "(value 22, counter 倍)"
    assert Figure("3", "3").shown() == "(value 3, no counter)"
