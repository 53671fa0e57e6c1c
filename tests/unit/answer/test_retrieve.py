"""Retrieval: distinct shared bigrams after NFKC, case folding and whitespace removal, through an index built once."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence import KnowledgeBase, retrieve
from claim_evidence._answer.retrieve import Index, bigrams, scored
from claim_evidence._core.normalize import folded_for_bigrams


def _chunks(*texts: str) -> list[dict[str, Any]]:
    return [{"id": f"c{i}", "text": text} for i, text in enumerate(texts)]


def test_retrieve_normalize_is_nfkc_casefold_without_whitespace() -> None:
    assert folded_for_bigrams("Ｋｕｍｏ　Engine\n３\t STRASSE ß") == "kumoengine3strassess"


def test_retrieve_bigrams_are_distinct_pairs() -> None:
    assert bigrams("abab") == frozenset({"ab", "ba"})
    assert bigrams("クモ エンジン") == frozenset({"クモ", "モエ", "エン", "ンジ", "ジン"})
    assert bigrams("a") == frozenset() and bigrams(" a \n") == frozenset()


def test_retrieve_exact_scores_and_ties_by_position() -> None:
    chunks = _chunks("abcd", "bcde", "xyz", "bc")
    assert [(score, chunk["id"]) for score, chunk in scored(chunks, "bcd")] == [(2, "c0"), (2, "c1"), (1, "c3")]
    assert [c["id"] for c in retrieve(chunks, "BCD", k=2)] == ["c0", "c1"]


def test_retrieve_never_returns_score_zero_and_takes_no_bad_input() -> None:
    chunks = _chunks("abc", "def")
    assert retrieve(chunks, "xyz") == []
    assert retrieve(chunks, "a") == []  # one character: no bigram
    assert retrieve(chunks, "abc", k=0) == []
    assert retrieve(chunks, None, k=3) == []  # type: ignore[arg-type]
    assert retrieve([{"id": "x", "text": 5}, "not a chunk"], "ab") == []  # type: ignore[list-item]


def test_retrieve_matches_across_widths_and_case() -> None:
    chunks = _chunks("クモエンジン 3 の最大入力長は 256,000 トークン", "Tsuki Model 2 pricing")
    assert [c["id"] for c in retrieve(chunks, "ＴＳＵＫＩ　ｍｏｄｅｌ")] == ["c1"]
    assert [score for score, _ in scored(chunks, "２５６，０００")] == [5]  # 25 56 6, ,0 00


def test_retrieve_default_top_eight() -> None:
    chunks = _chunks(*[f"共通の語 {n:02d}" for n in range(20)])
    found = retrieve(chunks, "共通の語")
    assert [c["id"] for c in found] == [f"c{n}" for n in range(8)]


def test_retrieve_returns_copies_and_the_kb_keeps_its_index() -> None:
    kb = KnowledgeBase(tuple(_chunks("abc", "abd")), "2026-09-01", "clock")
    found = retrieve(kb, "ab")
    found[0]["text"] = "changed"
    assert kb.chunks[0]["text"] == "abc"
    assert kb.index is kb.index
    assert [c["id"] for c in retrieve(kb, "abd")] == ["c1", "c0"]


def _brute(texts: list[str], question: str, k: int) -> list[tuple[int, int]]:
    """The definition, chunk by chunk: shared distinct bigrams, score descending, then position."""
    wanted = bigrams(question)
    scores = [(i, len(wanted & bigrams(text))) for i, text in enumerate(texts)]
    return sorted((pair for pair in scores if pair[1] > 0), key=lambda pair: (-pair[1], pair[0]))[:k]


_TEXT = st.text(alphabet="abcｄ エンジンクモ株式ＡB\n", max_size=12)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_TEXT, max_size=30), question=_TEXT, k=st.integers(min_value=0, max_value=10))
def test_retrieve_index_equals_brute_force(texts: list[str], question: str, k: int) -> None:
    assert Index(texts).top(question, k) == _brute(texts, question, k)
