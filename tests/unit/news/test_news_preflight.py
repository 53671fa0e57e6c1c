from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._core.report import text_report
from claim_evidence.news import (
    CorrectionRegistry,
    apply_article_correction,
    check_derived_outputs,
    compare_article_evidence,
    compare_homepage_evidence,
    homepage_projection,
    iter_article_diagnostics,
    load_corrections,
)

from ...news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items

A = f"article {URL}"
H = f"homepage {URL}"


@pytest.fixture
def registry() -> CorrectionRegistry:
    return load_corrections(CORRECTIONS)


@pytest.fixture
def item(registry: CorrectionRegistry) -> dict[str, Any]:
    return apply_article_correction(example_items()[0], registry)


@pytest.fixture
def reviewed(registry: CorrectionRegistry) -> dict[str, Any]:
    return {**registry.corrections[URL].subject, "url": URL}


def test_compare_article_evidence_clean_copy_passes(item: dict[str, Any], registry: CorrectionRegistry) -> None:
    assert compare_article_evidence(item, canonical_bundle(), expected_fields=registry.corrections[URL].fields) == []


def test_compare_article_evidence_changed_checked_at(item: dict[str, Any]) -> None:
    item["claim_evidence"]["claims"][0]["verification"]["checked_at"] = "2026-09-05"
    assert compare_article_evidence(item, canonical_bundle()) == [
        f'{A}: claim_evidence differs from the correction registry: $.claims[0].verification.checked_at is "2026-09-05", the registry has "2026-09-04"'
    ]


def test_compare_article_evidence_changed_evidence_label_in_bundle(item: dict[str, Any]) -> None:
    item["claim_evidence"]["claims"][1]["evidence_label"] = "Fact"
    assert compare_article_evidence(item, canonical_bundle()) == [
        f'{A}: claim_evidence differs from the correction registry: $.claims[1].evidence_label is "Fact", the registry has "Fact-B"',
        f"{A}, claim nornbay-raise: review fingerprint does not match current statement/conditions/sources",
    ]


def test_compare_article_evidence_changed_item_evidence_label(
    item: dict[str, Any], registry: CorrectionRegistry
) -> None:
    item["evidence_label"] = "Fact-A"
    assert compare_article_evidence(item, canonical_bundle(), expected_fields=registry.corrections[URL].fields) == [
        f'{A}: evidence_label is "Fact-A", the correction registry has "Fact-B"'
    ]


def test_compare_article_evidence_dropped_bundle(item: dict[str, Any]) -> None:
    del item["claim_evidence"]
    assert compare_article_evidence(item, canonical_bundle()) == [
        f"{A}: claim_evidence dropped: the correction registry has a bundle for this URL"
    ]


def test_compare_article_evidence_edited_summary_cannot_reuse_review(item: dict[str, Any]) -> None:
    item["summary"] = "ノルンベイ計算機は企業価値30億ドルと評価された。"
    assert compare_article_evidence(item, canonical_bundle()) == [
        f"{A}: article text differs from the reviewed subject"
    ]


def test_compare_article_evidence_int_and_float_differ(item: dict[str, Any]) -> None:
    item["claim_evidence"]["version"] = 1.0
    assert compare_article_evidence(item, canonical_bundle()) != []


def test_iter_article_diagnostics_typed_paths(item: dict[str, Any]) -> None:
    item["claim_evidence"]["claims"][2]["verification"]["method"] = "human_document_review"
    [d] = iter_article_diagnostics(item, canonical_bundle())
    assert (d.code, d.path, d.severity) == ("NW402", "$.claim_evidence.claims[2].verification.method", "error")


def test_compare_article_evidence_unexpected_bundle(item: dict[str, Any]) -> None:
    assert compare_article_evidence(item, None) == [
        f"{A}: carries claim_evidence the correction registry does not have for this URL"
    ]


def test_compare_homepage_evidence_clean_entry_passes(item: dict[str, Any], reviewed: dict[str, Any]) -> None:
    entry = homepage_projection([item], date=DATE)["items"][0]
    assert compare_homepage_evidence(entry, canonical_bundle(), reviewed) == []


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "evidence_url",
            "/daily-news/latest.html#evidence-nornbay-valuation",
            'evidence_url "/daily-news/latest.html#evidence-nornbay-valuation" is not a link to a dated detail page '
            "(expected auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id} in any folder)",
        ),
        (
            "evidence_url",
            "/daily-news/auto_daily_report_2026_09_04.html#evidence-other",
            "evidence_url anchor evidence-other is not a claim of the bundle",
        ),
        (
            "blurb",
            "ノルンベイ計算機が300億ドル評価で調達。",
            'blurb differs at character 1: "ノルンベイ計算機が300億ドル評価で調達…", the reviewed tldr has "ハーバーライン・テックがクレスト金融ニュ…": '
            "changed wording needs a new review",
        ),
        (
            "title",
            "ノルンベイ計算機、300億ドル評価",
            'title is "ノルンベイ計算機、300億ドル評価", the reviewed title has "ノルンベイ計算機、企業価値約300億米ドルで約30億米ドルを調達と報道": '
            "changed wording needs a new review",
        ),
        ("claim_evidence", None, "claim_evidence dropped from the homepage entry"),
    ],
)
def test_compare_homepage_evidence_drift(
    item: dict[str, Any], reviewed: dict[str, Any], key: str, value: Any, message: str
) -> None:
    entry = homepage_projection([item], date=DATE)["items"][0]
    entry[key] = value
    assert compare_homepage_evidence(entry, canonical_bundle(), reviewed) == [f"{H}: {message}"]


def test_compare_homepage_evidence_wrong_day(item: dict[str, Any]) -> None:
    entry = homepage_projection([item], date="2026-09-03")["items"][0]
    assert compare_homepage_evidence(entry, canonical_bundle(), date=DATE) == [
        f"{H}: evidence_url points to the page of 2026-09-03, expected 2026-09-04"
    ]


# The existing site's homepage JSON (news/latest.json of awano27/ai-news-site): a record
# keeps the article URL under "source" and links the dated detail page in another
# folder, relative to the site root.
SITE_LINK = "presentations/daily_reports/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"


def site_record(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": item["title"],
        "blurb": item["tldr"],
        "source": {"url": URL},
        "claim_evidence": canonical_bundle(),
        "evidence_url": SITE_LINK,
    }


def test_compare_homepage_evidence_site_link_in_another_folder_passes(item: dict[str, Any]) -> None:
    assert compare_homepage_evidence(site_record(item), canonical_bundle()) == []
    assert compare_homepage_evidence(site_record(item), canonical_bundle(), date=DATE) == []
    bare = {"blurb": "短い表示", "claim_evidence": canonical_bundle(), "evidence_url": SITE_LINK}
    assert compare_homepage_evidence(bare, canonical_bundle()) == []


def test_compare_homepage_evidence_site_link_wrong_day(item: dict[str, Any]) -> None:
    record = site_record(item)
    record["evidence_url"] = (
        "https://news.example.org/presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-nornbay-raise"
    )
    assert compare_homepage_evidence(record, canonical_bundle(), date=DATE, index=0) == [
        f'homepage item 0 ("{item["title"]}"): evidence_url points to the page of 2026-09-05, expected 2026-09-04'
    ]


def test_compare_homepage_evidence_configured_pattern_is_exact(item: dict[str, Any], reviewed: dict[str, Any]) -> None:
    pattern = "presentations/daily_reports/auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}"
    entry = homepage_projection([item], date=DATE, pattern=pattern)["items"][0]
    assert entry["evidence_url"] == SITE_LINK
    assert compare_homepage_evidence(entry, canonical_bundle(), reviewed, pattern=pattern) == []
    entry["evidence_url"] = "/daily-news/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"
    assert compare_homepage_evidence(entry, canonical_bundle(), reviewed, pattern=pattern) == [
        f'{H}: evidence_url "/daily-news/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation" '
        f"is not a link to a dated detail page (expected the pattern {pattern})"
    ]


def test_compare_homepage_evidence_missing_url_names_the_item(item: dict[str, Any], reviewed: dict[str, Any]) -> None:
    record = site_record(item)
    record["evidence_url"] = "presentations/auto_daily_report.html"
    expected_link = (
        'evidence_url "presentations/auto_daily_report.html" is not a link to a dated detail page '
        "(expected auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id} in any folder)"
    )
    named = 'homepage item 2 ("ノルンベイ計算機、企業価値約300億米ドルで約30億米ドルを調達と報道")'
    assert compare_homepage_evidence(record, canonical_bundle(), index=2) == [f"{named}: {expected_link}"]
    # The existing site's form: the article URL under source.url, no top-level url.
    assert compare_homepage_evidence(record, canonical_bundle(), reviewed, index=2) == [f"{named}: {expected_link}"]
    del record["source"]  # neither url nor source.url
    assert compare_homepage_evidence(record, canonical_bundle(), reviewed, index=2) == [
        f"{named}: {expected_link}",
        f"{named}: url null is not the reviewed article's",
    ]
    assert compare_homepage_evidence(record, canonical_bundle()) == [
        f'homepage item ("ノルンベイ計算機、企業価値約300億米ドルで約30億米ドルを調達と報道"): {expected_link}'
    ]
    del record["title"]
    assert compare_homepage_evidence(record, canonical_bundle(), index=2) == [f"homepage item 2: {expected_link}"]


# --- every derived output, from files -------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN, tmp_path / "out")
    return tmp_path / "out"


def check(registry: CorrectionRegistry, site: Path) -> list:
    return check_derived_outputs(
        registry,
        dayfiles=[site / "news_2026-09-04.txt"],
        data_json=[site / "top15" / "data.json", site / "daily-news" / "data.json"],
        homepage_json=site / "homepage.json",
        pages=[site / "top15" / "index.html", site / "daily-news" / "auto_daily_report_2026_09_04.html"],
    )


def edit_json(path: Path, change: Any) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")


def edit_text(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def summary(results: list) -> list[tuple[str, str, list[tuple[str, str | None, int | None, str]]]]:
    return [
        (r.path, r.outcome(), [(d.code, Path(d.file).name if d.file else None, d.line, d.path) for d in r.diagnostics])
        for r in results
    ]


def test_check_derived_outputs_clean_example_passes(registry: CorrectionRegistry, site: Path) -> None:
    results = check(registry, site)
    assert summary(results) == [(URL, "pass", [])]
    assert (
        text_report(results, False, "target")
        == f"PASS {URL}: 6 derived copies match the registry\n1 target: 1 passed, 0 failed\n"
    )


def test_check_derived_outputs_changed_review_date_in_dayfile(registry: CorrectionRegistry, site: Path) -> None:
    edit_text(site / "news_2026-09-04.txt", '"checked_at":"2026-09-04"', '"checked_at":"2026-09-05"')
    assert summary(check(registry, site)) == [
        (URL, "fail", [("NW402", "news_2026-09-04.txt", 3, "$.claim_evidence.claims[0].verification.checked_at")])
    ]


def test_check_derived_outputs_changed_label_in_top_data(registry: CorrectionRegistry, site: Path) -> None:
    edit_json(site / "top15" / "data.json", lambda v: v["items"][0].update(evidence_label="Fact"))
    assert summary(check(registry, site)) == [
        (URL, "fail", [("NW403", "data.json", None, "$.items[0].evidence_label")])
    ]


def test_check_derived_outputs_dropped_bundle_in_daily_data(registry: CorrectionRegistry, site: Path) -> None:
    edit_json(site / "daily-news" / "data.json", lambda v: v["items"][0].pop("claim_evidence"))
    assert summary(check(registry, site)) == [
        (URL, "fail", [("NW401", "data.json", None, "$.items[0].claim_evidence")])
    ]


def test_check_derived_outputs_changed_summary_in_dayfile(registry: CorrectionRegistry, site: Path) -> None:
    edit_text(site / "news_2026-09-04.txt", "クレスト金融ニュースの元の報道は直接確認していない。\n", "")
    results = check(registry, site)
    assert summary(results) == [
        (
            URL,
            "fail",
            [
                ("CE106", "news_2026-09-04.txt", 3, "$.claim_evidence.subject_fingerprint"),
                ("NW403", "news_2026-09-04.txt", 3, "$.summary"),
            ],
        )
    ]
    assert results[0].diagnostics[1].message == (
        'summary differs at character 150: "…達額・契約額と企業価値は別の数字である。", the correction registry has '
        '"…達額・契約額と企業価値は別の数字である。\\nクレスト金融ニュースの元の報道は直接確…"'
    )


def test_check_derived_outputs_undated_homepage_link(registry: CorrectionRegistry, site: Path) -> None:
    edit_json(
        site / "homepage.json",
        lambda v: v["items"][0].update(evidence_url="/daily-news/latest.html#evidence-nornbay-valuation"),
    )
    assert summary(check(registry, site)) == [
        (URL, "fail", [("NW413", "homepage.json", None, "$.items[0].evidence_url")])
    ]


def test_check_derived_outputs_homepage_link_in_another_folder_passes(registry: CorrectionRegistry, site: Path) -> None:
    edit_json(site / "homepage.json", lambda v: v["items"][0].update(evidence_url=SITE_LINK))
    assert summary(check(registry, site)) == [(URL, "pass", [])]


def test_check_derived_outputs_configured_pattern_is_exact(registry: CorrectionRegistry, site: Path) -> None:
    link = "auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"
    edit_json(site / "homepage.json", lambda v: v["items"][0].update(evidence_url=link))
    assert summary(check_derived_outputs(registry, homepage_json=site / "homepage.json")) == [(URL, "pass", [])]
    pattern = "/news/auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}"
    results = check_derived_outputs(registry, homepage_json=site / "homepage.json", pattern=pattern)
    assert summary(results) == [(URL, "fail", [("NW413", "homepage.json", None, "$.items[0].evidence_url")])]
    assert results[0].diagnostics[0].message == (
        f'evidence_url "{link}" is not a link to a dated detail page '
        "(expected the pattern /news/auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id})"
    )


def test_check_derived_outputs_changed_homepage_blurb(registry: CorrectionRegistry, site: Path) -> None:
    edit_json(site / "homepage.json", lambda v: v["items"][0].update(blurb="ノルンベイ計算機、300億ドル評価で調達"))
    assert summary(check(registry, site)) == [(URL, "fail", [("NW416", "homepage.json", None, "$.items[0].blurb")])]


def test_check_derived_outputs_malformed_metadata_line(registry: CorrectionRegistry, site: Path) -> None:
    edit_text(site / "news_2026-09-04.txt", '🔎 Claim Evidence: {"version":1,', '🔎 Claim Evidence: {"version":1,,')
    results = check(registry, site)
    assert summary(results) == [
        (
            URL,
            "fail",
            [
                ("NW201", "news_2026-09-04.txt", 14, "$"),
                ("NW401", "news_2026-09-04.txt", 3, "$.claim_evidence"),
            ],
        )
    ]
    assert results[0].diagnostics[0].column == 32


def test_check_derived_outputs_unregistered_evidence_is_listed_not_passed(
    registry: CorrectionRegistry, site: Path
) -> None:
    edit_json(site / "top15" / "data.json", lambda v: v["items"][1].update(claim_evidence=canonical_bundle()))
    results = check(registry, site)
    assert summary(results) == [
        (URL, "pass", []),
        ("https://example.com/news/kestrel-lab-small-model", "unregistered", []),
    ]
    assert (
        results[1].detail
        == f"carries claim_evidence in {site / 'top15' / 'data.json'}:$.items[1] but is not in the correction registry"
    )
    assert text_report(results, False, "target").endswith("2 targets: 1 passed, 0 failed, 1 unregistered\n")


def test_check_derived_outputs_malformed_line_on_unregistered_item_fails(
    registry: CorrectionRegistry, site: Path
) -> None:
    edit_text(
        site / "news_2026-09-04.txt",
        "URL: https://example.com/news/orchard-ai-policy\n",
        "URL: https://example.com/news/orchard-ai-policy\n🔎 Claim Evidence: [1]\n",
    )
    results = check(registry, site)
    assert summary(results) == [
        (URL, "pass", []),
        ("https://example.com/news/orchard-ai-policy", "fail", [("NW202", "news_2026-09-04.txt", 36, "$")]),
    ]


def test_check_derived_outputs_stale_evidence_block_on_list_page(registry: CorrectionRegistry, site: Path) -> None:
    edit_text(site / "top15" / "index.html", "資料との照合済み", "一部のみ裏付けあり")
    assert summary(check(registry, site)) == [(URL, "fail", [("NW421", "index.html", None, "$")])]


def test_check_derived_outputs_list_page_without_evidence_block(registry: CorrectionRegistry, site: Path) -> None:
    page = site / "daily-news" / "auto_daily_report_2026_09_04.html"
    text = page.read_text(encoding="utf-8")
    page.write_text("\n".join(line for line in text.split("\n") if "<aside" not in line), encoding="utf-8")
    assert summary(check(registry, site)) == [
        (URL, "fail", [("NW421", "auto_daily_report_2026_09_04.html", None, "$")])
    ]


def test_check_derived_outputs_unregistered_block_on_list_page(registry: CorrectionRegistry, site: Path) -> None:
    page = site / "top15" / "index.html"
    edit_text(page, "</main>", '<aside class="claim-evidence" data-evidence-id="x"></aside>\n</main>')
    assert summary(check(registry, site)) == [(URL, "pass", []), (str(page), "unregistered", [])]


def test_check_derived_outputs_registered_article_missing_everywhere(
    registry: CorrectionRegistry, tmp_path: Path
) -> None:
    results = check_derived_outputs(registry)
    assert summary(results) == [(URL, "fail", [("NW409", "corrections.json", None, "$")])]


def test_check_derived_outputs_unreadable_and_misshapen_files(
    registry: CorrectionRegistry, site: Path, tmp_path: Path
) -> None:
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    results = check_derived_outputs(
        registry,
        dayfiles=[site / "news_2026-09-04.txt", tmp_path / "missing.txt"],
        data_json=[tmp_path / "list.json"],
    )
    assert summary(results) == [
        (URL, "pass", []),
        (str(tmp_path / "missing.txt"), "unreadable", [("CE001", "missing.txt", None, "$")]),
        (str(tmp_path / "list.json"), "fail", [("NW501", "list.json", None, "$")]),
    ]


def test_check_derived_outputs_never_writes(registry: CorrectionRegistry, site: Path) -> None:
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    check(registry, site)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
