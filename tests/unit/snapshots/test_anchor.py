"""Anchoring a quote in a snapshot's text: exact after NFKC and whitespace folding, never approximate."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._core.normalize import normalized_quote
from claim_evidence._snapshots.anchor import HINT_CHARS, anchor, closest_passage

TEXT = "2.1 入力上限\nクモエンジン 3 の最大入力長は 256,000 トークンです。出力は最大 8,192 トークンです。"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a\n\tb\u3000c  ", "a b c"),
        ("ＡＢＣ１２３？", "ABC123?"),
        ("ｶﾀｶﾅ", "カタカナ"),
        ("\u2028x\u00a0y", "x y"),
    ],
)
def test_anchor_normalized(raw: str, expected: str) -> None:
    assert normalized_quote(raw) == expected


def test_anchor_found_across_a_line_break_and_full_width_forms() -> None:
    assert anchor(TEXT, "入力上限 クモエンジン 3 の最大入力長は 256,000 トークンです").outcome == "found"
    assert anchor(TEXT, "最大入力長は\u3000２５６,０００ トークン").outcome == "found"


def test_anchor_missing_gives_the_closest_passage_as_a_hint() -> None:
    found = anchor(TEXT, "クモエンジン 3 の最大入力長は 128,000 トークンです")
    assert found.outcome == "missing" and found.count == 0
    assert found.closest == "…クモエンジン 3 の最大入力長は 256,000 トークンです…"


def test_anchor_context_must_stand_right_before_and_after() -> None:
    assert anchor(TEXT, "256,000 トークンです", prefix="最大入力長は", suffix="。出力").outcome == "found"
    wrong = anchor(TEXT, "256,000 トークンです", prefix="出力は")
    assert (wrong.outcome, wrong.count) == ("context", 1)
    assert wrong.closest is not None and "256,000 トークンです" in wrong.closest


def test_anchor_ambiguous_until_context_tells_which() -> None:
    text = "A 社は 3 倍と発表した。B 社は 3 倍と発表した。"
    assert (anchor(text, "3 倍と発表した").outcome, anchor(text, "3 倍と発表した").count) == ("ambiguous", 2)
    assert anchor(text, "3 倍と発表した", prefix="B 社は").outcome == "found"
    assert anchor(text, "3 倍と発表した", prefix="社は").outcome == "ambiguous"


@pytest.mark.parametrize("exact", ["", "   ", "\n"])
def test_anchor_blank_quote_is_missing(exact: str) -> None:
    assert anchor(TEXT, exact).outcome == "missing"


def test_anchor_closest_passage_edges() -> None:
    assert closest_passage("", "x") is None
    assert closest_passage("abc", "xyz") is None
    assert closest_passage("abcdef", "abX") == "abc…"
    long = "あ" * 1000 + "目印" + "い" * 1000
    hint = closest_passage(long, "目印" + "う" * 500)
    assert hint is not None and "目印" in hint and len(hint) <= HINT_CHARS + 2


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.text(min_size=1, max_size=20))
def test_anchor_a_passage_cut_from_the_text_is_always_found_or_ambiguous(text: str, extra: str) -> None:
    whole = text + " " + extra  # (a space: NFKC may compose a half-width mark with the character before it)
    outcome = anchor(whole, extra).outcome
    assert outcome in ("found", "ambiguous") if normalized_quote(extra) else outcome == "missing"
