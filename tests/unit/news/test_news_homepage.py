from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence.news import (
    DEFAULT_EVIDENCE_URL,
    EvidenceLink,
    apply_article_correction,
    check_derived_outputs,
    compare_homepage_evidence,
    evidence_url,
    homepage_projection,
    iter_homepage_diagnostics,
    load_corrections,
    parse_evidence_url,
    top_page_data,
)

from ...news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items


def top_items() -> list[dict]:
    registry = load_corrections(CORRECTIONS)
    return top_page_data([apply_article_correction(i, registry) for i in example_items()], date=DATE)["items"]


def test_homepage_projection_matches_golden() -> None:
    golden = json.loads((GOLDEN / "homepage.json").read_text(encoding="utf-8"))
    assert homepage_projection(top_items(), date=DATE, limit=5) == golden


def test_homepage_projection_evidence_item_has_bundle_and_dated_link() -> None:
    entry = homepage_projection(top_items(), date=DATE)["items"][0]
    assert list(entry) == ["title", "blurb", "url", "claim_evidence", "evidence_url"]
    assert entry["claim_evidence"] == canonical_bundle()
    assert entry["evidence_url"] == "/daily-news/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"
    assert entry["blurb"] == top_items()[0]["tldr"]


def test_homepage_projection_legacy_item_has_no_evidence_keys() -> None:
    entry = homepage_projection(top_items(), date=DATE)["items"][1]
    assert entry == {
        "title": "ケストレル研究所、端末向け小型モデルを公開",
        "blurb": "架空の研究所が応答時間「<1秒」をうたう小型モデルを公開した。",
        "url": "https://example.com/news/kestrel-lab-small-model",
    }


def test_homepage_projection_pattern_is_configurable() -> None:
    pattern = "https://news.example.org/{date}/report.html#evidence-{claim_id}"
    entry = homepage_projection(top_items(), date=DATE, pattern=pattern)["items"][0]
    assert entry["evidence_url"] == "https://news.example.org/2026-09-04/report.html#evidence-nornbay-valuation"


def test_homepage_projection_does_not_mutate_items() -> None:
    items = top_items()
    before = copy.deepcopy(items)
    projection = homepage_projection(items, date=DATE)
    projection["items"][0]["claim_evidence"]["claims"].clear()
    assert items == before


@pytest.mark.parametrize(
    "pattern",
    [
        "/daily/latest.html#evidence-{claim_id}",
        "/daily/{yyyy}_{mm}.html#evidence-{claim_id}",
        "/d/{date}.html",
        "/d/{when}#{claim_id}",
    ],
)
def test_evidence_url_pattern_must_be_dated_and_anchored(pattern: str) -> None:
    with pytest.raises(ValueError, match="evidence URL pattern"):
        evidence_url(DATE, "x", pattern)


def test_parse_evidence_url_reads_date_and_claim() -> None:
    url = "/daily-news/auto_daily_report_2026_09_04.html#evidence-nornbay-raise"
    assert parse_evidence_url(url) == EvidenceLink("2026-09-04", "nornbay-raise")
    assert parse_evidence_url("/daily-news/auto_daily_report_2026_02_30.html#evidence-a") is None
    assert parse_evidence_url("/daily-news/latest.html#evidence-a") is None
    assert parse_evidence_url(None) is None


# The existing site's homepage JSON links its dated detail pages in another folder,
# relative to the site root (awano27/ai-news-site, scripts/check_claim_evidence.py):
SITE_LINK = "presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation"


@pytest.mark.parametrize(
    "url",
    [
        SITE_LINK,
        "auto_daily_report_2026_09_05.html#evidence-valuation",
        "../daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation",
        "./auto_daily_report_2026_09_05.html#evidence-valuation",
        "/presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation",
        "/daily-news/auto_daily_report_2026_09_05.html#evidence-valuation",
        "/auto_daily_report_2026_09_05.html#evidence-valuation",
        "/%E3%83%8B%E3%83%A5%E3%83%BC%E3%82%B9/auto_daily_report_2026_09_05.html#evidence-valuation",
        "https://news.example.org/presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation",
        "https://news.example.org/auto_daily_report_2026_09_05.html#evidence-valuation",
        "HTTP://localhost:8000/daily-news/auto_daily_report_2026_09_05.html#evidence-valuation",
    ],
)
def test_parse_evidence_url_default_accepts_any_folder(url: str) -> None:
    assert parse_evidence_url(url) == EvidenceLink("2026-09-05", "valuation")
    assert parse_evidence_url(url, DEFAULT_EVIDENCE_URL) == EvidenceLink("2026-09-05", "valuation")


@pytest.mark.parametrize(
    "url",
    [
        "presentations/auto_daily_report.html",
        "presentations/auto_daily_report.html#evidence-valuation",
        "presentations/daily_reports/latest.html#evidence-valuation",
        "presentations/daily_reports/auto_daily_report_2026_02_30.html#evidence-valuation",
        "presentations/daily_reports/auto_daily_report_2026_13_05.html#evidence-valuation",
        "presentations/daily_reports/auto_daily_report_2026_9_5.html#evidence-valuation",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-9valuation",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-" + "v" * 101,
        "presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation?x=1",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html#claim-valuation",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html",
        "presentations/daily_reports/auto_daily_report_2026_09_05.html?lang=en#evidence-valuation",
        "presentations/daily_reports?x=/auto_daily_report_2026_09_05.html#evidence-valuation",
        "presentations/daily_reports/auto_daily_report_2026_09_05_en.html#evidence-valuation",
        "presentations/daily_reports/xauto_daily_report_2026_09_05.html#evidence-valuation",
        "presentations/daily_reports/daily_report_2026_09_05.html#evidence-valuation",
        "presentations\\daily_reports\\auto_daily_report_2026_09_05.html#evidence-valuation",
        " presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-valuation",
        "presentations//auto_daily_report_2026_09_05.html#evidence-valuation",
        "javascript:auto_daily_report_2026_09_05.html#evidence-valuation",
        "javascript:alert(1)//auto_daily_report_2026_09_05.html#evidence-valuation",
        "data:text/html,auto_daily_report_2026_09_05.html#evidence-valuation",
        "ftp://news.example.org/auto_daily_report_2026_09_05.html#evidence-valuation",
        "//news.example.org/auto_daily_report_2026_09_05.html#evidence-valuation",
        "https://user@news.example.org/auto_daily_report_2026_09_05.html#evidence-valuation",
        "https:/auto_daily_report_2026_09_05.html#evidence-valuation",
    ],
)
def test_parse_evidence_url_default_rejects_undated_or_unsafe(url: str) -> None:
    assert parse_evidence_url(url) is None


def test_parse_evidence_url_configured_pattern_is_exact() -> None:
    site = "presentations/daily_reports/auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}"
    assert parse_evidence_url(SITE_LINK, site) == EvidenceLink("2026-09-05", "valuation")
    assert parse_evidence_url("/" + SITE_LINK, site) is None
    assert parse_evidence_url("https://news.example.org/" + SITE_LINK, site) is None
    assert parse_evidence_url("/daily-news/auto_daily_report_2026_09_05.html#evidence-valuation", site) is None
    other = "https://news.example.org/{date}/report.html#evidence-{claim_id}"
    assert parse_evidence_url(
        "https://news.example.org/2026-09-05/report.html#evidence-valuation", other
    ) == EvidenceLink("2026-09-05", "valuation")
    assert parse_evidence_url("/2026-09-05/report.html#evidence-valuation", other) is None
    assert parse_evidence_url(SITE_LINK, other) is None


def test_evidence_url_default_still_makes_daily_news_link() -> None:
    assert evidence_url("2026-09-05", "valuation") == "/daily-news/auto_daily_report_2026_09_05.html#evidence-valuation"


def test_homepage_projection_bundle_without_valid_claim_id_gets_null_link() -> None:
    items = top_items()
    items[0]["claim_evidence"] = {"version": 1, "claims": [{"id": "9bad"}]}
    assert homepage_projection(items[:1], date=DATE)["items"][0]["evidence_url"] is None
    assert URL == items[0]["url"]


# --- the existing system's homepage records (its news/latest.json): the article URL under source.url ----

EXISTING_LINK = "presentations/daily_reports/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"


def existing_record() -> dict[str, Any]:
    """A record as the existing homepage builder writes it: no top-level ``url``; the article's
    URL is ``source.url``, next to the source's display name."""
    item = top_items()[0]
    return {
        "title": item["title"],
        "blurb": item["tldr"],
        "category": "business",
        "date": DATE,
        "stars": 5,
        "source": {"name": "ハーバーライン・テック", "url": URL},
        "claim_evidence": canonical_bundle(),
        "evidence_url": EXISTING_LINK,
    }


def reviewed_item() -> dict[str, Any]:
    registry = load_corrections(CORRECTIONS)
    return {**registry.corrections[URL].subject, "url": URL}


def test_compare_homepage_evidence_existing_record_is_compared_on_source_url() -> None:
    record = existing_record()
    assert compare_homepage_evidence(record, canonical_bundle(), reviewed_item(), date=DATE, index=0) == []
    record["source"]["url"] = "https://example.com/news/another-article"
    found = list(iter_homepage_diagnostics(record, canonical_bundle(), reviewed_item(), index=0))
    assert [(d.code, d.path, d.text) for d in found] == [
        (
            "NW417",
            "$.source.url",
            f'homepage item 0 ("{record["title"]}"): source.url "https://example.com/news/another-article" is not the reviewed article\'s',
        )
    ]


@pytest.mark.parametrize("source", [{"name": "n"}, "ハーバーライン・テック", None])
def test_compare_homepage_evidence_without_any_url_is_still_a_finding(source: Any) -> None:
    record = existing_record()
    record["source"] = source
    assert compare_homepage_evidence(record, canonical_bundle(), reviewed_item(), index=0) == [
        f'homepage item 0 ("{record["title"]}"): url null is not the reviewed article\'s'
    ]


def test_compare_homepage_evidence_url_and_source_url_must_agree() -> None:
    record = existing_record()
    record["url"] = URL
    assert compare_homepage_evidence(record, canonical_bundle(), reviewed_item()) == []
    record["source"]["url"] = "https://example.com/news/another-article"
    found = list(iter_homepage_diagnostics(record, canonical_bundle(), reviewed_item()))
    assert [(d.code, d.path, d.text) for d in found] == [
        (
            "NW419",
            "$.source.url",
            f'homepage {URL}: url "{URL}" and source.url "https://example.com/news/another-article" name different articles',
        )
    ]
    # no reviewed item to compare with: the entry still names two articles
    assert [d.code for d in iter_homepage_diagnostics(record, canonical_bundle())] == ["NW419"]
    record["url"] = "https://example.com/news/third"
    assert [d.code for d in iter_homepage_diagnostics(record, canonical_bundle(), reviewed_item())] == [
        "NW419",
        "NW417",
    ]


def test_check_derived_outputs_finds_existing_records_by_source_url(tmp_path: Path) -> None:
    registry = load_corrections(CORRECTIONS)
    path = tmp_path / "latest.json"
    path.write_text(json.dumps({"date": DATE, "items": [existing_record()]}, ensure_ascii=False), encoding="utf-8")
    assert [(r.path, r.outcome(), r.diagnostics) for r in check_derived_outputs(registry, homepage_json=path)] == [
        (URL, "pass", [])
    ]
    record = existing_record()
    record["url"] = URL
    record["source"]["url"] = "https://example.com/news/another-article"
    path.write_text(json.dumps({"date": DATE, "items": [record]}, ensure_ascii=False), encoding="utf-8")
    results = check_derived_outputs(registry, homepage_json=path)
    assert [(r.path, r.outcome(), [(d.code, d.path) for d in r.diagnostics]) for r in results] == [
        (URL, "fail", [("NW419", "$.items[0].source.url")])
    ]
