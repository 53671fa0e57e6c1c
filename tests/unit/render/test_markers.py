"""A freshness marker's words (``claim_evidence/_render/markers.py``) across a review's whole life: the
block changes on the day the review turns due soon and on the day it expires, and on no other day."""

from __future__ import annotations

import copy
import dataclasses
from datetime import date, timedelta
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, render_evidence
from claim_evidence._check.options import render_settings
from claim_evidence._record.freshness import Freshness, review_marker, state_changes
from claim_evidence._render.markers import marker_text, marker_words, policy_tag
from static_helper import PageOptions, check_text

REVIEWED = date(2026, 9, 5)  # the seed claim's checked_at (vendor_claim: 180 days, due 2027-03-04)


def _on(day: date) -> Freshness:
    return Freshness(today=day.isoformat(), source="--today", markers=True)


def _life(bundle: dict[str, Any], lang: str) -> list[date]:
    """The days from the review to a year after on which the block differs from the day before."""
    changed, before = [], None
    for n in range(366):
        day = REVIEWED + timedelta(days=n)
        block = render_evidence(bundle, lang=lang, freshness=_on(day))
        if before is not None and block != before:
            changed.append(day)
        before = block
    return changed


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_markers_period_change_exactly_at_due_soon_and_expiry(bundle: dict[str, Any], lang: str) -> None:
    assert _life(bundle, lang) == [
        date(2027, 2, 5),
        date(2027, 3, 5),
    ]  # 27 of 180 days left; the day after the due date


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_markers_review_by_change_exactly_at_due_soon_and_expiry(bundle: dict[str, Any], lang: str) -> None:
    bundle["claims"][0]["verification"]["review_by"] = "2026-12-14"  # 100 days: due soon for the last 15
    assert _life(bundle, lang) == [date(2026, 11, 29), date(2026, 12, 15)]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_markers_permanent_never_change(bundle: dict[str, Any], lang: str) -> None:
    no_limit = copy.deepcopy(bundle)
    policy = dataclasses.replace(_on(REVIEWED), max_age_days=(("vendor_claim", None),))
    assert "[常設]" in render_evidence(no_limit, freshness=policy)  # max_age None: permanent too
    bundle["claims"][0]["basis"] = "editorial"  # no period
    bundle["claims"][0]["verification"]["fingerprint"] = claim_fingerprint(bundle["claims"][0], bundle["sources"])
    assert ("[常設]" if lang == "ja" else "[permanent]") in render_evidence(bundle, lang=lang, freshness=_on(REVIEWED))
    assert _life(bundle, lang) == []


def test_markers_page_bytes_change_only_with_the_state(bundle: dict[str, Any]) -> None:
    """A whole page, re-rendered every day of the year: its bytes change on the two days, and a page
    rendered on one day passes on every other day of the same state."""
    page = (
        '<!DOCTYPE html><html lang="ja"><head><link rel="stylesheet" href="/assets/claim-evidence.css"></head><body>\n'
        f'<p data-claim-id="fictional-rate">{bundle["claims"][0]["statement"]}</p>\n'
        '<aside data-evidence-for="fictional-rate"></aside>\n'
    )
    from static_helper import replace_bundle

    text = replace_bundle(
        page + '<script type="application/json" id="claim-evidence-data">{}</script>\n</body></html>\n', bundle
    )
    seen: dict[str, date] = {}
    changed, before = [], None
    for n in range(366):
        day = REVIEWED + timedelta(days=n)
        rendered = check_text(text, "page.html", PageOptions(freshness=_on(day))).rendered_text()
        if before is not None and rendered != before:
            changed.append(day)
        seen.setdefault(rendered, day)
        before = rendered
    assert changed == [date(2027, 2, 5), date(2027, 3, 5)]
    assert len(seen) == 3
    for day in (date(2026, 9, 5), date(2026, 12, 31), date(2027, 2, 4)):  # a fresh page passes all its fresh days
        found = check_text(next(iter(seen)), "page.html", PageOptions(freshness=_on(day)))
        assert not found.stale, day


def test_markers_exact_words_per_state_and_language(bundle: dict[str, Any]) -> None:
    claim = bundle["claims"][0]
    words = {
        (state, lang): marker_text(review_marker(claim, _on(day)), lang)  # type: ignore[arg-type]
        for state, day in (("fresh", date(2026, 9, 5)), ("due soon", date(2027, 2, 5)), ("expired", date(2027, 3, 5)))
        for lang in ("ja", "en")
    }
    assert words == {
        ("fresh", "ja"): "[180日] 照合 2026-09-05 · 次回確認 2027-03-04まで",
        ("fresh", "en"): "[180 days] checked 2026-09-05 · re-check by 2027-03-04",
        ("due soon", "ja"): "[180日] 照合 2026-09-05 · まもなく再確認（2027-03-04まで）",
        ("due soon", "en"): "[180 days] checked 2026-09-05 · re-check soon (by 2027-03-04)",
        ("expired", "ja"): "[180日] 照合 2026-09-05 ⚠ 古い: 再確認が必要（期限 2027-03-04）",
        ("expired", "en"): "[180 days] checked 2026-09-05 ⚠ outdated: needs re-checking (due 2027-03-04)",
    }
    by = copy.deepcopy(claim)
    by["verification"]["review_by"] = "2027-01-31"
    marker = review_marker(by, _on(date(2026, 9, 5)))
    assert marker is not None
    assert marker_text(marker, "ja") == "[期日指定] 照合 2026-09-05 · 次回確認 2027-01-31まで"
    assert marker_text(marker, "en") == "[fixed date] checked 2026-09-05 · re-check by 2027-01-31"
    permanent = review_marker({**claim, "basis": "editorial"}, _on(date(2027, 9, 5)))
    assert permanent is not None
    assert (marker_text(permanent, "ja"), marker_text(permanent, "en")) == (
        "[常設] 照合 2026-09-05",
        "[permanent] checked 2026-09-05",
    )
    assert marker_words(permanent, "ja") == ("[常設]", "照合 2026-09-05", "")
    expired = review_marker(claim, _on(date(2027, 3, 5)))
    assert expired is not None
    assert marker_words(expired, "en") == (
        "[180 days]",
        "checked 2026-09-05",
        "⚠ outdated: needs re-checking (due 2027-03-04)",
    )
    one_day = dataclasses.replace(expired, period_days=1)
    assert (policy_tag(one_day, "ja"), policy_tag(one_day, "en")) == ("[1日]", "[1 day]")


def test_markers_state_changes_are_the_days_the_state_turns(bundle: dict[str, Any]) -> None:
    claim = bundle["claims"][0]
    marker = review_marker(claim, _on(REVIEWED))
    assert marker is not None
    assert state_changes(marker) == (date(2027, 2, 5), date(2027, 3, 5))
    late = copy.deepcopy(claim)
    late["verification"]["review_by"] = "2026-09-01"  # before the review itself: never due soon, expired at once
    marker = review_marker(late, _on(REVIEWED))
    assert marker is not None and marker.state == "expired"
    assert state_changes(marker) == (None, date(2026, 9, 2))
    permanent = review_marker({**claim, "basis": "editorial"}, _on(REVIEWED))
    assert permanent is not None and state_changes(permanent) == (None, None)


def test_markers_cache_settings_follow_the_state_not_the_build_date(bundle: dict[str, Any]) -> None:
    """What the memo, the facts memo and the record cache key on: equal for two days of one state."""

    def settings(day: str) -> tuple[Any, ...]:
        return render_settings(PageOptions(freshness=_on(date.fromisoformat(day))), bundle)

    assert settings("2026-09-05") == settings("2027-02-04")
    assert settings("2027-02-04") != settings("2027-02-05")
    assert settings("2027-03-05") == settings("2028-01-01")
    assert render_settings(PageOptions(), bundle) == render_settings(PageOptions(), None)  # no markers: no states
