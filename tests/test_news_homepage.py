from __future__ import annotations

import copy
import json

import pytest

from claim_evidence.news import (
    EvidenceLink,
    apply_article_correction,
    evidence_url,
    homepage_projection,
    load_corrections,
    parse_evidence_url,
    top_page_data,
)

from .news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items


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
    ["/daily/latest.html#evidence-{claim_id}", "/daily/{yyyy}_{mm}.html#evidence-{claim_id}", "/d/{date}.html", "/d/{when}#{claim_id}"],
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


def test_homepage_projection_bundle_without_valid_claim_id_gets_null_link() -> None:
    items = top_items()
    items[0]["claim_evidence"] = {"version": 1, "claims": [{"id": "9bad"}]}
    assert homepage_projection(items[:1], date=DATE)["items"][0]["evidence_url"] is None
    assert URL == items[0]["url"]
