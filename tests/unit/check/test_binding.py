"""The page binding's SH140 for a slot that differs from its block only in the freshness marker
(``claim_evidence/_check/binding.py``): the message names the state change and the day it happened."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from claim_evidence._record.freshness import Freshness
from static_helper import PageOptions, check_text, replace_bundle

PAGE = (
    '<!DOCTYPE html><html lang="ja"><head><link rel="stylesheet" href="/assets/claim-evidence.css"></head><body>\n'
    '<p data-claim-id="fictional-rate">{statement}</p>\n'
    '<aside data-evidence-for="fictional-rate"></aside>\n'
    '<script type="application/json" id="claim-evidence-data">{{}}</script>\n</body></html>\n'
)
STALE = "evidence display is stale: only its freshness marker differs: "
WRITE = "; run --write to show the current marker"


def _on(day: str, markers: bool = True) -> PageOptions:
    return PageOptions(freshness=Freshness(today=day, source="--today", markers=markers))


def _rendered(bundle: dict[str, Any], day: str, markers: bool = True) -> str:
    """The seed page with its slot written as --write writes it on ``day``."""
    text = replace_bundle(PAGE.format(statement=bundle["claims"][0]["statement"]), bundle)
    page = check_text(text, "page.html", _on(day, markers))
    assert not page.blocking
    return page.rendered_text()


def _sh140(text: str, day: str, markers: bool = True) -> list[tuple[str, str]]:
    page = check_text(text, "page.html", _on(day, markers))
    return [(d.subject, d.message) for d in page.diagnostics if d.code == "SH140"]


@pytest.mark.parametrize(
    "written, checked, why",
    [
        ("2026-09-05", "2027-02-04", None),  # fresh on both days: not stale
        ("2026-09-05", "2027-02-05", "fresh → due soon on 2027-02-05 (reviewed 2026-09-05, due 2027-03-04)"),
        ("2026-10-01", "2027-06-01", "fresh → expired on 2027-03-05 (reviewed 2026-09-05, due 2027-03-04)"),
        ("2027-02-20", "2027-03-05", "due soon → expired on 2027-03-05 (reviewed 2026-09-05, due 2027-03-04)"),
        (
            "2027-03-05",
            "2026-12-01",
            "the slot shows expired, and on the build date (2026-12-01) it is fresh (reviewed 2026-09-05, due 2027-03-04)",
        ),
    ],
)
def test_binding_marker_stale_names_the_state_change_and_its_day(
    bundle: dict[str, Any], written: str, checked: str, why: str | None
) -> None:
    text = _rendered(bundle, written)
    assert _sh140(text, checked) == ([] if why is None else [("claim fictional-rate", STALE + why + WRITE)])


def test_binding_marker_stale_for_a_review_by_date(bundle: dict[str, Any]) -> None:
    bundle = copy.deepcopy(bundle)
    bundle["claims"][0]["verification"]["review_by"] = "2026-12-14"
    text = _rendered(bundle, "2026-11-28")
    assert _sh140(text, "2026-11-29") == [
        ("claim fictional-rate", STALE + "fresh → due soon on 2026-11-29 (reviewed 2026-09-05, due 2026-12-14)" + WRITE)
    ]


def test_binding_marker_stale_in_the_day_count_form_of_earlier_versions(bundle: dict[str, Any]) -> None:
    """A page written by an earlier version (``確認から 87 日``) is stale once, and the message says why."""
    text = _rendered(bundle, "2026-12-01")
    current = "[180日] 照合 2026-09-05 · 次回確認 2027-03-04まで"
    assert text.count(current) == 1
    old = text.replace(current, "確認から 87 日")
    assert _sh140(old, "2026-12-01") == [
        (
            "claim fictional-rate",
            STALE + "it is fresh (reviewed 2026-09-05, due 2027-03-04), and the slot shows the marker in another form "
            "(an earlier version's, or another policy's)" + WRITE,
        )
    ]
    assert check_text(old, "page.html", _on("2026-12-01")).rendered_text() == text
    edited = text.replace('data-freshness="fresh"', 'data-freshness="stale"')  # a state no version writes
    assert [m for _, m in _sh140(edited, "2026-12-01")] == [m for _, m in _sh140(old, "2026-12-01")]


def test_binding_marker_switched_on_or_off(bundle: dict[str, Any]) -> None:
    plain, marked = _rendered(bundle, "2026-12-01", markers=False), _rendered(bundle, "2026-12-01")
    assert _sh140(plain, "2026-12-01") == [
        (
            "claim fictional-rate",
            "evidence display is stale: it shows no freshness marker, and this site shows them ([freshness] markers); "
            "run --write to add it",
        )
    ]
    assert _sh140(marked, "2026-12-01", markers=False) == [
        (
            "claim fictional-rate",
            "evidence display is stale: it shows a freshness marker, and this site shows none ([freshness] markers); "
            "run --write to remove it",
        )
    ]
