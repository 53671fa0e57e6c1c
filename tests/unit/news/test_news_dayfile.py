from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claim_evidence._record.fingerprint import canonical
from claim_evidence.news import (
    DayfileError,
    apply_article_correction,
    check_derived_outputs,
    extract_dayfile_text,
    format_dayfile,
    load_corrections,
    parse_dayfile,
    parse_dayfile_text,
    write_dayfile,
)

from ...news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items

# Text that is hard to carry through a text file: markup, quotes, escapes, line
# separators JSON leaves raw, astral emoji, Japanese, and control characters.
HARD = st.sampled_from(
    [
        "<",
        ">",
        "</script>",
        '"',
        "\\",
        "\u2028",
        "\u2029",
        "\x85",
        "\x00",
        "\x1f",
        "\t",
        "🔎",
        "😀",
        "日本語",
        "■ ",
        "・",
        "URL: ",
        "\u3000",
        "\n",
    ]
)
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
@given(
    bundle=BUNDLES,
    title=ONE_LINE,
    tldr=ONE_LINE,
    summary=TEXT.map(lambda s: s.replace("\r", "")),
    point=ONE_LINE,
    score=st.integers() | st.floats(allow_nan=False, allow_infinity=False),
)
def test_parse_dayfile_text_round_trips_random_bundles(
    bundle: dict[str, Any], title: str, tldr: str, summary: str, point: str, score: float
) -> None:
    item = {
        "title": title,
        "tldr": tldr,
        "summary": summary,
        "points": [point],
        "category": title,
        "source": tldr,
        "evidence_label": point,
        "score": score,
        "url": tldr,
        "claim_evidence": bundle,
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
    assert extract_dayfile_text(text) == extract_dayfile_text(
        format_dayfile([legacy, {"title": "legacy", "summary": "s", "url": "u"}], DATE)
    )


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
    text = format_dayfile([{"title": "t", "claim_evidence": {"s": 'a\u2028b<"\\😀'}}], DATE)
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
    item = {
        "title": "t",
        "summary": "URL: not a url\n\n・not a point\n\\back\n🔎 Claim Evidence: {}\n■ not an item",
        "url": "https://example.com/a",
    }
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
        (
            "NW201",
            str(path),
            5,
            33,
            "claim evidence line is not valid JSON (Expecting property name enclosed in double quotes); the item is kept without evidence",
        ),
        ("NW202", str(path), 9, 19, "claim evidence line must hold a JSON object; the item is kept without evidence"),
        (
            "NW203",
            str(path),
            14,
            None,
            "second claim evidence line for one item (first on line 13); the item is kept without evidence",
        ),
    ]
    assert all(d.is_error for d in parsed["diagnostics"])
    # every item is kept, none with a badge
    assert [h["title"] for h in parsed["headlines"]] == ["bad json", "not an object", "two lines", "fine"]
    assert all("claim_evidence" not in h for h in parsed["headlines"])


def test_parse_dayfile_text_header_and_stray_lines() -> None:
    text = "2026-09-04\nstray\n🔎 Claim Evidence: {}\n■ t\nURL: a\nURL: b\nScore: high\n"
    parsed = parse_dayfile_text(text, "d.txt")
    assert [(d.code, d.line, d.severity) for d in parsed["diagnostics"]] == [
        ("NW200", 1, "error"),
        ("NW207", 1, "warning"),
        ("NW207", 2, "warning"),
        ("NW204", 3, "error"),
        ("NW206", 6, "error"),
        ("NW208", 7, "error"),
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


# --- the existing system's day-files (its MMDD.txt), read as they are ---------------------------------

# The form its writer laid out, before the evidence line existed: the date on line 1 (where its reader
# took it), section headers between rules, "■ title（category / スコア: N）", indented fields, and lines
# of fields the project's items do not carry (metrics, competitors, impact, actions, licence, topics).
EXISTING_OLDER = """2026年04月07日のAIニュース速報 - 架空のオルカ衛星、シリーズBで1億ドルを調達

==================================================
📰 ヘッドライン速報（2件）
==================================================

■ 架空のオルカ衛星、シリーズBで1億ドルを調達（Hardware / スコア: 85）
  ソース: 架空テック（速報）
  🎯 TL;DR: 架空の衛星企業が資金を調達した。
  架空のオルカ衛星は観測網の拡大に充てると発表した。
  ・調達額は1億ドル（シリーズB）
  ・提携先は未公表
  📊 数値: 1億ドル / シリーズB
  🔄 競合: 架空の競合A
  🇯🇵 影響: 国内の観測データ利用に影響しうる。
  ⚡ 今すぐ: 公式発表を確認する。
  🏷️ Label: Fact-B
  HN Score: 120
  URL: https://example.com/news/orca-series-b

■ 架空ファンド（小型）が初号ファンドを組成 （Business / スコア: 70.5）
  ソース: 架空ベンチャー通信
  First fund of a fictional venture firm.
  📊 数値: 💰 $100M
  URL: https://example.com/news/fund

==================================================
🔥 GitHub Trending AI/ML（1件）
==================================================

■ example/fictional-repo
  A fictional repository for tests.
  📊 ⭐ 1,234 stars / 🔀 56 forks
  📄 License: MIT
  ⚡ git clone https://example.com/example/fictional-repo
  🏷️ testing, fixtures
  URL: https://example.com/example/fictional-repo
"""


def existing_form(items: list[dict[str, Any]], date: str, *, evidence: bool = True) -> str:
    """Items as the existing system's writer laid them out; ``evidence``: with its (indented,
    key-sorted) evidence line, which it added later, so without it this is an older day-file."""
    year, month, day = date.split("-")
    lines = [
        f"{year}年{month}月{day}日のAIニュース速報 - {items[0]['title']}",
        "",
        "=" * 50,
        f"📰 ヘッドライン速報（{len(items)}件）",
        "=" * 50,
        "",
    ]
    for item in items:
        score = item.get("score", 0)  # the writer's default for an unscored item
        lines += [
            f"■ {item['title']}（{item['category']} / スコア: {score}）",
            f"  ソース: {item['source']}",
            f"  🎯 TL;DR: {item['tldr']}",
            f"  {item['summary']}",
        ]
        if evidence and item.get("claim_evidence"):
            lines.append(
                "  🔎 Claim Evidence: "
                + json.dumps(item["claim_evidence"], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            )
        lines += [f"  ・{point}" for point in item.get("points", [])]
        lines += ["  📊 数値: 架空の数値", f"  🏷️ Label: {item['evidence_label']}", f"  URL: {item['url']}", ""]
    return "\n".join(lines)


def test_parse_dayfile_text_existing_form_older_file() -> None:
    parsed = parse_dayfile_text(EXISTING_OLDER, "input/day/0407.txt")
    assert parsed["diagnostics"] == []
    assert parsed["date"] == "2026-04-07"
    assert parsed["lines"] == [7, 21, 31]
    assert parsed["headlines"] == [
        {
            "title": "架空のオルカ衛星、シリーズBで1億ドルを調達",
            "category": "Hardware",
            "score": 85,
            "source": "架空テック（速報）",
            "tldr": "架空の衛星企業が資金を調達した。",
            "summary": "架空のオルカ衛星は観測網の拡大に充てると発表した。",
            "points": ["調達額は1億ドル（シリーズB）", "提携先は未公表"],
            "evidence_label": "Fact-B",
            "url": "https://example.com/news/orca-series-b",
        },
        {
            "title": "架空ファンド（小型）が初号ファンドを組成 ",
            "category": "Business",
            "score": 70.5,
            "source": "架空ベンチャー通信",
            "summary": "First fund of a fictional venture firm.",
            "url": "https://example.com/news/fund",
        },
        {
            "title": "example/fictional-repo",
            "summary": "A fictional repository for tests.",
            "url": "https://example.com/example/fictional-repo",
        },
    ]


def test_parse_dayfile_text_existing_sites_own_fixture() -> None:
    """The older day-file of the existing site's own test suite (test_claim_evidence_news.py)."""
    text = "2026年09月05日 AIニュース\nヘッドライン速報\n■ Legacy（Business / スコア: 85）\nsummary\nURL: https://example.test/legacy\n"
    parsed = parse_dayfile_text(text, "0905.txt")
    assert (parsed["date"], parsed["diagnostics"]) == ("2026-09-05", [])
    assert parsed["headlines"] == [
        {
            "title": "Legacy",
            "category": "Business",
            "score": 85,
            "summary": "summary",
            "url": "https://example.test/legacy",
        }
    ]


def scored(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**item, "score": item.get("score", 0)} for item in items]


def test_parse_dayfile_existing_form_round_trips_the_registry_bundle(tmp_path: Path) -> None:
    """A newer existing day-file (its evidence line indented, keys sorted) gives back the corrected
    items exactly: multi-line summaries included, which its writer left as line breaks."""
    items = corrected_items()
    path = tmp_path / "0904.txt"
    path.write_text(existing_form(items, DATE), encoding="utf-8")
    parsed = parse_dayfile(path)
    assert (parsed["date"], parsed["diagnostics"]) == (DATE, [])
    assert parsed["headlines"] == scored(items)
    assert same_json(parsed["headlines"][0]["claim_evidence"], canonical_bundle())
    results = check_derived_outputs(load_corrections(CORRECTIONS), dayfiles=[path])
    assert [(r.path, r.outcome(), r.detail) for r in results] == [(URL, "pass", "1 derived copy match the registry")]


def test_parse_dayfile_existing_older_form_reports_the_dropped_bundle(tmp_path: Path) -> None:
    path = tmp_path / "0904.txt"
    path.write_text(existing_form(corrected_items(), DATE, evidence=False), encoding="utf-8")
    results = check_derived_outputs(load_corrections(CORRECTIONS), dayfiles=[path])
    assert [(r.path, r.outcome(), [(d.code, d.line) for d in r.diagnostics]) for r in results] == [
        (URL, "fail", [("NW401", 7)])
    ]


def test_parse_dayfile_existing_form_converts_by_writing_it_again(tmp_path: Path) -> None:
    parsed = parse_dayfile_text(existing_form(corrected_items(), DATE), "0904.txt")
    write_dayfile(parsed["headlines"], tmp_path / "day.txt", parsed["date"] or "")
    converted = parse_dayfile(tmp_path / "day.txt")
    assert (converted["date"], converted["diagnostics"]) == (DATE, [])
    assert converted["headlines"] == scored(corrected_items())
    assert (tmp_path / "day.txt").read_text(encoding="utf-8").startswith("# 2026-09-04\n\n■ ノルンベイ計算機")


def test_parse_dayfile_text_existing_form_malformed_lines_are_diagnostics() -> None:
    text = (
        "2026年09月04日のAIニュース速報 - t\n  🔎 Claim Evidence: {}\nstray text\n"
        '■ a（Business / スコア: 80）\n  🔎 Claim Evidence: {"version": 1,\n  URL: https://example.com/a\n  URL: https://example.com/b\n'
        "■ b\n  🔎 Claim Evidence:[1]\n"
    )
    found = [(d.code, d.line, d.column, d.severity) for d in parse_dayfile_text(text, "0904.txt")["diagnostics"]]
    assert found == [
        ("NW204", 2, None, "error"),
        ("NW207", 3, None, "warning"),
        ("NW201", 5, 35, "error"),
        ("NW206", 7, None, "error"),
        ("NW205", 8, None, "warning"),
        ("NW202", 9, 20, "error"),
    ]


def test_parse_dayfile_text_existing_form_impossible_date() -> None:
    parsed = parse_dayfile_text("2026年02月30日のAIニュース速報 - t\n■ a\nURL: u\n", "0230.txt")
    assert parsed["date"] is None
    assert [(d.code, d.line, d.message) for d in parsed["diagnostics"]] == [
        (
            "NW200",
            1,
            "the date that starts line 1 (YYYY年MM月DD日) is not a real date: '2026年02月30日のAIニュース速報 - t'",
        )
    ]


@pytest.mark.parametrize(
    ("name", "date"),
    [
        ("news_2026-09-04.txt", "2026-09-04"),
        ("archive/2026_09_04.txt", "2026-09-04"),
        ("20260904.txt", "2026-09-04"),
        ("20260904-extra.txt", "2026-09-04"),
    ],
)
def test_parse_dayfile_text_date_from_the_file_name(name: str, date: str) -> None:
    """Without a date on line 1, the file name gives it, as the existing system's archive read names."""
    parsed = parse_dayfile_text("■ t\nURL: https://example.com/a\n", name)
    assert (parsed["date"], parsed["diagnostics"]) == (date, [])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (None, "date header '# YYYY-MM-DD' missing on line 1"),
        (
            "day.txt",
            "date header '# YYYY-MM-DD' missing on line 1, and the file name holds no date (YYYY-MM-DD, YYYY_MM_DD or YYYYMMDD)",
        ),
        (
            "2026-02-30.txt",
            "date header '# YYYY-MM-DD' missing on line 1, and the file name holds no date (YYYY-MM-DD, YYYY_MM_DD or YYYYMMDD)",
        ),
        (
            "input/day/0904.txt",
            "date header '# YYYY-MM-DD' missing on line 1, and the file name holds no date (YYYY-MM-DD, YYYY_MM_DD or YYYYMMDD); "
            "an MMDD name has no year (the existing system guessed it from the clock)",
        ),
    ],
)
def test_parse_dayfile_text_no_date_anywhere(name: str | None, message: str) -> None:
    parsed = parse_dayfile_text("■ t\nURL: https://example.com/a\n", name)
    assert parsed["date"] is None
    assert [(d.code, d.line, d.file, d.message) for d in parsed["diagnostics"]] == [("NW200", 1, name, message)]


def test_parse_dayfile_text_header_wins_over_the_file_name() -> None:
    assert parse_dayfile_text("# 2026-09-03\n\n■ t\nURL: u\n", "news_2026-09-04.txt")["date"] == "2026-09-03"
    bad = parse_dayfile_text("# 2026-02-30\n\n■ t\nURL: u\n", "news_2026-09-04.txt")
    assert bad["date"] is None and [d.code for d in bad["diagnostics"]] == ["NW200"]


def test_extract_dayfile_text_existing_form_drops_its_indented_evidence_lines() -> None:
    """As the existing archive reader did (``line.strip()``); the project's form keeps such a summary line."""
    items = corrected_items()
    with_meta, without = existing_form(items, DATE), existing_form(items, DATE, evidence=False)
    assert "  🔎 Claim Evidence: {" in with_meta
    assert extract_dayfile_text(with_meta) == extract_dayfile_text(without) == without
    ours = format_dayfile([{"title": "t", "summary": "  🔎 Claim Evidence: kept", "url": "u"}], DATE)
    assert extract_dayfile_text(ours) == ours
