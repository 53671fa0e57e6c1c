from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from claim_evidence.news import (
    apply_article_correction,
    daily_page_data,
    load_corrections,
    rank_items,
    render_daily_page,
    render_top_page,
    top_page_data,
    write_json,
)

from ...news_support import CORRECTIONS, DATE, GOLDEN, URL, canonical_bundle, example_items


def corrected_items() -> list[dict[str, Any]]:
    registry = load_corrections(CORRECTIONS)
    return [apply_article_correction(item, registry) for item in example_items()]


def legacy_items() -> list[dict[str, Any]]:
    return example_items()[1:]


def articles(page: str) -> dict[str, str]:
    """Each <article> of a page by its link, verbatim."""
    found = re.findall(r'<article class="news-item">.*?</article>', page, flags=re.S)
    return {re.search(r'href="([^"]+)"', a).group(1): a for a in found}  # type: ignore[union-attr]


def test_render_top_page_matches_golden() -> None:
    html = render_top_page(corrected_items(), date=DATE)
    assert html == (GOLDEN / "top15" / "index.html").read_text(encoding="utf-8")


def test_render_daily_page_matches_golden() -> None:
    html = render_daily_page(corrected_items(), date=DATE)
    assert html == (GOLDEN / "daily-news" / "auto_daily_report_2026_09_04.html").read_text(encoding="utf-8")


def test_render_daily_page_legacy_only_matches_golden_without_badge_or_stylesheet() -> None:
    html = render_daily_page(legacy_items(), date=DATE)
    assert html == (GOLDEN / "legacy_daily.html").read_text(encoding="utf-8")
    assert "claim-evidence" not in html


def test_render_daily_page_legacy_items_unchanged_beside_evidence_items() -> None:
    mixed = articles(render_daily_page(corrected_items(), date=DATE))
    legacy = articles(render_daily_page(legacy_items(), date=DATE))
    assert set(mixed) - set(legacy) == {URL}
    for url, fragment in legacy.items():
        assert mixed[url] == fragment


def test_render_daily_page_evidence_block_follows_the_summary() -> None:
    fragment = articles(render_daily_page(corrected_items(), date=DATE))[URL]
    summary_end = fragment.index("クレスト金融ニュースの元の報道は直接確認していない。</p>")
    anchors = [
        fragment.index(f'id="evidence-{cid}"') for cid in ("nornbay-valuation", "nornbay-raise", "nornbay-contract")
    ]
    assert summary_end < anchors[0] < anchors[1] < anchors[2] < fragment.index('<ul class="news-points">')


def test_render_top_page_stylesheet_is_configurable() -> None:
    assert '<link rel="stylesheet" href="/css/ce.css">\n' in render_top_page(
        corrected_items(), date=DATE, stylesheet="/css/ce.css"
    )
    assert "<link" not in render_top_page(corrected_items(), date=DATE, stylesheet=None)


def test_render_top_page_edited_summary_shows_unverified_warning() -> None:
    items = corrected_items()
    items[0]["summary"] = "ノルンベイ計算機は企業価値30億ドルと評価された。"
    html = render_top_page(items, date=DATE)
    assert "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。" in html
    assert "資料との照合済み" not in html


def test_render_top_page_template_override(tmp_path: Path) -> None:
    (tmp_path / "news_item.html.j2").write_text(
        "<p>{{ i.title }}{% if i.evidence %} [evidence]{% endif %}</p>\n", encoding="utf-8"
    )
    html = render_top_page(corrected_items()[:2], date=DATE, template_dir=tmp_path)
    assert "<li>\n<p>ノルンベイ計算機、企業価値約300億米ドルで約30億米ドルを調達と報道 [evidence]</p>\n</li>" in html
    assert "<li>\n<p>ケストレル研究所、端末向け小型モデルを公開</p>\n</li>" in html


def test_render_pages_do_not_mutate_items() -> None:
    items = corrected_items()
    before = copy.deepcopy(items)
    render_top_page(items, date=DATE)
    render_daily_page(items, date=DATE)
    top_page_data(items, date=DATE)
    assert items == before


def test_rank_items_highest_score_first_ties_stable_unscored_last() -> None:
    items: list[dict[str, Any]] = [
        {"url": "a", "score": 1},
        {"url": "b"},
        {"url": "c", "score": 5},
        {"url": "d", "score": 1.0},
        {"url": "e", "score": True},
    ]
    assert [i["url"] for i in rank_items(items, None)] == ["c", "a", "d", "b", "e"]
    assert [i["url"] for i in rank_items(items, 2)] == ["c", "a"]


def test_top_page_data_holds_ranked_items_with_evidence_verbatim(tmp_path: Path) -> None:
    data = top_page_data(corrected_items(), date=DATE, limit=3)
    assert [i["url"] for i in data["items"]] == [
        URL,
        "https://example.com/news/kestrel-lab-small-model",
        "https://example.com/news/orchard-ai-policy",
    ]
    assert data["items"][0]["claim_evidence"] == canonical_bundle()
    assert "claim_evidence" not in data["items"][1]
    write_json(tmp_path / "data.json", data)
    assert json.loads((tmp_path / "data.json").read_text(encoding="utf-8")) == data


def test_daily_page_data_matches_golden() -> None:
    # The golden was written from the items parsed back from the day-file: same values, day-file key order.
    golden = json.loads((GOLDEN / "daily-news" / "data.json").read_text(encoding="utf-8"))
    assert daily_page_data(corrected_items(), date=DATE) == golden


def test_write_json_escapes_script_breakers(tmp_path: Path) -> None:
    write_json(tmp_path / "x.json", {"t": "</script>\u2028"})
    assert (tmp_path / "x.json").read_text(encoding="utf-8") == '{\n  "t": "\\u003c/script>\\u2028"\n}\n'


def test_render_pages_follow_the_freshness_policy_and_change_only_with_the_state() -> None:
    """The items' reviews (reporting, 90 days, checked 2026-09-04) are due 2026-12-03: the list pages show
    the site's markers, with the same bytes on every day of one state and without markers as before."""
    from claim_evidence._record.freshness import Freshness

    def on(day: str) -> Freshness:
        return Freshness(today=day, source="--today", markers=True)

    items = corrected_items()
    for render in (render_top_page, render_daily_page):
        fresh = render(items, date=DATE, freshness=on("2026-09-04"))
        assert fresh == render(items, date=DATE, freshness=on("2026-11-19"))
        assert (
            fresh.count(
                'data-freshness="fresh"><span aria-hidden="true">🟢</span> [90日] 照合 2026-09-04 · 次回確認 2026-12-03まで</span>'
            )
            == 3
        )
        soon = render(items, date=DATE, freshness=on("2026-11-20"))
        assert soon != fresh and soon == render(items, date=DATE, freshness=on("2026-12-03"))
        assert soon.count("まもなく再確認（2026-12-03まで）") == 3
        expired = render(items, date=DATE, freshness=on("2026-12-04"))
        assert expired.count("[90日] 照合 2026-09-04 ⚠ 古い: 再確認が必要（期限 2026-12-03）") == 3
        assert expired == render(items, date=DATE, freshness=on("2027-09-04"))
        assert render(items, date=DATE, freshness=None) == render(items, date=DATE)
    assert (
        render_top_page(items, date=DATE, freshness=on("2026-12-04"), lang="en").count(
            "[90 days] checked 2026-09-04 ⚠ outdated: needs re-checking (due 2026-12-03)"
        )
        == 3
    )


def test_prepublish_compares_list_pages_rendered_with_the_sites_markers(tmp_path: Path) -> None:
    """A site with ``[freshness] markers = true`` renders its list pages with the markers; prepublish compares
    them as they were rendered (they were NW421 before), and a page rendered without the markers is stale."""
    from claim_evidence._commands.prepublish import check_site
    from claim_evidence._record.freshness import Freshness
    from claim_evidence._site.config import at_build_date, load_config

    from ...news_support import registry_value, write_registry

    write_registry(tmp_path, registry_value())
    config = tmp_path / "claim-evidence.toml"
    config.write_text(
        '[freshness]\nmarkers = true\n\n[news]\ncorrections = "corrections.json"\npages = ["top.html"]\n',
        encoding="utf-8",
    )
    page = tmp_path / "top.html"
    on = Freshness(today="2026-11-20", source="--today", markers=True)
    page.write_text(render_top_page(corrected_items(), date=DATE, freshness=on), encoding="utf-8")
    assert "まもなく再確認（2026-12-03まで）" in page.read_text(encoding="utf-8")

    def errors() -> list[str]:
        (result,) = [r for r in check_site(at_build_date(load_config(config), "2026-11-20")) if r.path == URL]
        return [d.code for d in result.diagnostics if d.is_error]

    assert errors() == []
    page.write_text(render_top_page(corrected_items(), date=DATE), encoding="utf-8")
    assert errors() == ["NW421"]
