from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claim_evidence._fingerprint import canonical
from claim_evidence.news import (
    DayfileError,
    apply_article_correction,
    extract_dayfile_text,
    format_dayfile,
    load_corrections,
    parse_dayfile,
    parse_dayfile_text,
    write_dayfile,
)

from .news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items

# Text that is hard to carry through a text file: markup, quotes, escapes, line
# separators JSON leaves raw, astral emoji, Japanese, and control characters.
HARD = st.sampled_from(["<", ">", "</script>", '"', "\\", "\u2028", "\u2029", "\x85", "\x00", "\x1f", "\t", "🔎", "😀", "日本語", "■ ", "・", "URL: ", "\u3000", "\n"])
TEXT = st.lists(st.one_of(HARD, st.text(max_size=5)), max_size=6).map("".join)
ONE_LINE = TEXT.map(lambda s: s.replace("\n", " ").replace("\r", " "))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=25,
)
BUNDLES = st.dictionaries(TEXT, JSON, min_size=1, max_size=5)


def corrected_items() -> list[dict[str, Any]]:
    registry = load_corrections(CORRECTIONS)
    return [apply_article_correction(item, registry) for item in example_items()]


def same_json(a: Any, b: Any) -> bool:
    """Deep equality that also tells 1 from 1.0 and true, and -0.0 from 0.0."""
    return a == b and canonical(a) == canonical(b)


def test_write_dayfile_matches_golden(tmp_path: Path) -> None:
    path = tmp_path / "day.txt"
    write_dayfile(corrected_items(), path, DATE)
    assert path.read_bytes() == (GOLDEN / "news_2026-09-04.txt").read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["day.txt"]  # atomic: no temp file left


def test_write_dayfile_does_not_mutate_items(tmp_path: Path) -> None:
    items = corrected_items()
    before = copy.deepcopy(items)
    write_dayfile(items, tmp_path / "day.txt", DATE)
    assert items == before


def test_parse_dayfile_round_trips_the_example(tmp_path: Path) -> None:
    items = corrected_items()
    path = tmp_path / "day.txt"
    write_dayfile(items, path, DATE)
    parsed = parse_dayfile(path)
    assert parsed["date"] == DATE
    assert parsed["diagnostics"] == []
    assert parsed["lines"] == [3, 16, 28, 37, 47]
    assert parsed["headlines"] == items
    assert same_json(parsed["headlines"][0]["claim_evidence"], canonical_bundle())
    assert [h.get("evidence_label") for h in parsed["headlines"]] == ["Fact-B", "Claim", "Fact-A", "Claim", "Opinion"]
    assert "claim_evidence" not in parsed["headlines"][1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bundle=BUNDLES, title=ONE_LINE, tldr=ONE_LINE, summary=TEXT.map(lambda s: s.replace("\r", "")), point=ONE_LINE, score=st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_parse_dayfile_text_round_trips_random_bundles(bundle: dict[str, Any], title: str, tldr: str, summary: str, point: str, score: float) -> None:
    item = {
        "title": title, "tldr": tldr, "summary": summary, "points": [point], "category": title, "source": tldr,
        "evidence_label": point, "score": score, "url": tldr, "claim_evidence": bundle,
    }
    text = format_dayfile([item, {"title": "legacy", "summary": "s", "url": "u"}], DATE)
    parsed = parse_dayfile_text(text, "day.txt")
    assert parsed["diagnostics"] == []
    assert same_json(parsed["headlines"][0], item)
    assert parsed["headlines"][1] == {"title": "legacy", "summary": "s", "url": "u"}
    meta = [line for line in text.split("\n") if line.startswith("🔎 Claim Evidence: ")]
    assert len(meta) == 1 and meta[0].splitlines() == meta  # readers using splitlines() see one line too
    legacy = dict(item)
    del legacy["claim_evidence"]
    assert extract_dayfile_text(text) == extract_dayfile_text(format_dayfile([legacy, {"title": "legacy", "summary": "s", "url": "u"}], DATE))


QUOTE = st.fixed_dictionaries({"exact": TEXT}, optional={"prefix": TEXT, "suffix": TEXT})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(quotes=st.lists(st.one_of(st.none(), QUOTE), min_size=1, max_size=3))
def test_parse_dayfile_text_carries_quotes_unchanged(quotes: list[Any]) -> None:
    """Quotes (W3C TextQuoteSelector: exact, prefix, suffix) hold source text as it was written: markup,
    line separators and quote characters must survive the day-file byte for byte."""
    item = corrected_items()[0]
    refs = item["claim_evidence"]["claims"][0]["source_refs"]
    item["claim_evidence"]["claims"][0]["source_refs"] = [{**refs[0], "quote": quote} for quote in quotes]
    parsed = parse_dayfile_text(format_dayfile([item], DATE), "day.txt")
    assert parsed["diagnostics"] == []
    assert same_json(parsed["headlines"][0], item)


def test_metadata_line_escapes_line_separators_only() -> None:
    text = format_dayfile([{"title": "t", "claim_evidence": {"s": "a\u2028b<\"\\😀"}}], DATE)
    assert text.split("\n")[3] == '🔎 Claim Evidence: {"s":"a\\u2028b<\\"\\\\😀"}'


def test_extract_dayfile_text_same_with_and_without_metadata_lines(tmp_path: Path) -> None:
    items = corrected_items()
    legacy = [{k: v for k, v in item.items() if k != "claim_evidence"} for item in items]
    with_meta = format_dayfile(items, DATE)
    without = format_dayfile(legacy, DATE)
    assert "🔎" in with_meta and "🔎" not in without
    assert extract_dayfile_text(with_meta) == extract_dayfile_text(without) == without
    assert "claim_evidence" not in extract_dayfile_text(with_meta)


def test_format_dayfile_escapes_summary_lines_that_look_like_markup() -> None:
    item = {"title": "t", "summary": "URL: not a url\n\n・not a point\n\\back\n🔎 Claim Evidence: {}\n■ not an item", "url": "https://example.com/a"}
    text = format_dayfile([item], DATE)
    assert text == (
        "# 2026-09-04\n\n■ t\n\\URL: not a url\n\\\n\\・not a point\n\\\\back\n\\🔎 Claim Evidence: {}\n\\■ not an item\n"
        "URL: https://example.com/a\n"
    )
    parsed = parse_dayfile_text(text)
    assert parsed["headlines"] == [item]
    assert extract_dayfile_text(text) == text


MALFORMED = """# 2026-09-04

■ bad json
URL: https://example.com/a
🔎 Claim Evidence: {"version": 1,

■ not an object
URL: https://example.com/b
🔎 Claim Evidence: [1, 2]

■ two lines
URL: https://example.com/c
🔎 Claim Evidence: {"version": 1}
🔎 Claim Evidence: {"version": 1}

■ fine
URL: https://example.com/d
"""


def test_parse_dayfile_malformed_metadata_lines_are_diagnostics_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "day.txt"
    path.write_text(MALFORMED, encoding="utf-8")
    parsed = parse_dayfile(path)
    found = [(d.code, d.file, d.line, d.column, d.message) for d in parsed["diagnostics"]]
    assert found == [
        ("NW201", str(path), 5, 33, "claim evidence line is not valid JSON (Expecting property name enclosed in double quotes); the item is kept without evidence"),
        ("NW202", str(path), 9, 19, "claim evidence line must hold a JSON object; the item is kept without evidence"),
        ("NW203", str(path), 14, None, "second claim evidence line for one item (first on line 13); the item is kept without evidence"),
    ]
    assert all(d.is_error for d in parsed["diagnostics"])
    # every item is kept, none with a badge
    assert [h["title"] for h in parsed["headlines"]] == ["bad json", "not an object", "two lines", "fine"]
    assert all("claim_evidence" not in h for h in parsed["headlines"])


def test_parse_dayfile_text_header_and_stray_lines() -> None:
    text = "2026-09-04\nstray\n🔎 Claim Evidence: {}\n■ t\nURL: a\nURL: b\nScore: high\n"
    parsed = parse_dayfile_text(text, "d.txt")
    assert [(d.code, d.line, d.severity) for d in parsed["diagnostics"]] == [
        ("NW200", 1, "error"), ("NW207", 1, "warning"), ("NW207", 2, "warning"), ("NW204", 3, "error"),
        ("NW206", 6, "error"), ("NW208", 7, "error"),
    ]
    assert parsed["date"] is None
    assert parsed["headlines"] == [{"title": "t", "summary": "", "url": "a"}]


def test_parse_dayfile_text_accepts_crlf() -> None:
    text = format_dayfile(corrected_items(), DATE).replace("\n", "\r\n")
    parsed = parse_dayfile_text(text)
    assert parsed["diagnostics"] == []
    assert parsed["headlines"] == corrected_items()


def test_parse_dayfile_text_item_without_url_is_a_warning() -> None:
    parsed = parse_dayfile_text("# 2026-09-04\n\n■ t\nsummary\n")
    assert [(d.code, d.line, d.severity) for d in parsed["diagnostics"]] == [("NW205", 3, "warning")]


def test_write_dayfile_rejects_line_break_in_title(tmp_path: Path) -> None:
    with pytest.raises(DayfileError) as caught:
        write_dayfile([{"title": "a\nb", "url": URL}], tmp_path / "day.txt", DATE)
    assert str(caught.value) == f"item 0 ({URL}): NW210 title contains a line break; a day-file field is one line"
    assert not (tmp_path / "day.txt").exists()


def test_write_dayfile_rejects_invalid_date(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="date must be YYYY-MM-DD, got '2026-02-30'"):
        write_dayfile([], tmp_path / "day.txt", "2026-02-30")


def test_write_dayfile_is_deterministic(tmp_path: Path) -> None:
    write_dayfile(corrected_items(), tmp_path / "a.txt", DATE)
    write_dayfile(corrected_items(), tmp_path / "b.txt", DATE)
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]
