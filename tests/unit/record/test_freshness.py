"""Review age: the [freshness] policy, review_by, the build date, and where the findings show."""

from __future__ import annotations

import copy
import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import InputError, render_evidence
from claim_evidence._check.page import check_text
from claim_evidence._core.diagnostics import Diagnostic
from claim_evidence._record.freshness import DEFAULT_MAX_AGE_DAYS, Freshness, build_date, freshness_diagnostics
from claim_evidence._record.validation import iter_diagnostics
from claim_evidence._record.vocabulary import BASES
from claim_evidence._site.config import load_config

from ...conftest import ROOT, cli_in_process, example_site_copy

EXAMPLE = ROOT / "examples" / "site"
RELEASE = "articles/kumo-engine-3.html:201:9: CE601 [KUMO-RELEASE] review is 91 days old (checked 2026-09-05); the policy for reporting is 90 days: read the sources again and record the review"
REPORT = "slides/day-2026-09-04.html:152:9: CE601 [S3-REPORT] review is 92 days old (checked 2026-09-04); the policy for reporting is 90 days: read the sources again and record the review"


def _dated(today: str, **kwargs: Any) -> Freshness:
    return dataclasses.replace(Freshness(**kwargs), today=today, source="--today")


def _codes(found: list[Diagnostic]) -> list[tuple[str, str, str, str]]:
    return [(d.code, d.severity, d.path, d.message) for d in found]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site without ``[freshness]``, run from its folder."""
    folder = example_site_copy(tmp_path / "site", freshness="")  # no policy, no markers: each test sets its own
    monkeypatch.chdir(folder)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return folder


def _policy(site: Path, table: str) -> None:
    with open(site / "claim-evidence.toml", "a", encoding="utf-8") as handle:
        handle.write("\n" + table)


def _static(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return cli_in_process("static-helper", argv, capsys)


# --- the policy ---------------------------------------------------------------------


def test_freshness_policy_defaults_are_documented() -> None:
    assert DEFAULT_MAX_AGE_DAYS == {
        "official_spec": 365,
        "vendor_claim": 180,
        "independent_measurement": 365,
        "reporting": 90,
        "operator_measurement": 365,
        "editorial": None,
    }
    assert tuple(DEFAULT_MAX_AGE_DAYS) == BASES
    assert (Freshness().expired, Freshness().today) == ("warning", None)


def test_freshness_policy_absent_table_means_no_policy(site: Path) -> None:
    assert load_config(site / "claim-evidence.toml").options.freshness is None


def test_freshness_policy_empty_table_turns_the_defaults_on(site: Path) -> None:
    _policy(site, "[freshness]\n")
    assert load_config(site / "claim-evidence.toml").options.freshness == Freshness()


def test_freshness_policy_overrides(site: Path) -> None:
    _policy(
        site,
        '[freshness]\nexpired = "error"\n[freshness.max_age_days]\nreporting = 60\neditorial = 30\nvendor_claim = false\n',
    )
    freshness = load_config(site / "claim-evidence.toml").options.freshness
    assert freshness is not None and freshness.expired == "error"
    assert dict(freshness.max_age_days) == {
        "official_spec": 365,
        "vendor_claim": None,
        "independent_measurement": 365,
        "reporting": 60,
        "operator_measurement": 365,
        "editorial": 30,
    }


@pytest.mark.parametrize(
    ("table", "code", "message"),
    [
        (
            "[freshness.max_age_days]\nreportng = 60\n",
            "SH002",
            "unknown key freshness.max_age_days.'reportng' (did you mean 'reporting'?)",
        ),
        ("[freshness]\nexpire = 'error'\n", "SH002", "unknown key freshness.'expire' (did you mean 'expired'?)"),
        (
            '[freshness.max_age_days]\nreporting = "60"\n',
            "SH003",
            "freshness.max_age_days.reporting must be a whole number of days (1 or more), or false for no limit (found '60')",
        ),
        (
            "[freshness.max_age_days]\nreporting = 1.5\n",
            "SH003",
            "freshness.max_age_days.reporting must be a whole number of days (1 or more), or false for no limit (found 1.5)",
        ),
        (
            '[freshness]\nexpired = "fatal"\n',
            "SH003",
            'freshness.expired must be "warning" or "error" (found \'fatal\')',
        ),
        ("freshness = 3\n", "SH003", "freshness must be a table: [freshness]"),
    ],
)
def test_freshness_config_errors(
    site: Path, table: str, code: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _policy(site, table)
    with pytest.raises(InputError) as caught:
        load_config(site / "claim-evidence.toml")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.message) == (code, message)
    assert _static(capsys, "--no-cache", "--today", "2026-09-06")[0] == 2


# --- the findings -------------------------------------------------------------------


def test_freshness_expired_by_policy(bundle: dict[str, Any]) -> None:
    # vendor_claim, checked 2026-09-05: 180 days hold until 2027-03-04
    assert freshness_diagnostics(bundle, _dated("2027-03-04")) == [
        Diagnostic(
            "CE602",
            "review due today (by 2027-03-04)",
            "$.claims[0].verification.checked_at",
            "note",
            "claim fictional-rate",
        )
    ]
    assert _codes(freshness_diagnostics(bundle, _dated("2027-03-05"))) == [
        (
            "CE601",
            "warning",
            "$.claims[0].verification.checked_at",
            "review is 181 days old (checked 2026-09-05); the policy for vendor_claim is 180 days: read the sources again and record the review",
        )
    ]
    assert _codes(freshness_diagnostics(bundle, _dated("2027-03-05", expired="error")))[0][1] == "error"


def test_freshness_due_soon_in_the_last_15_percent(bundle: dict[str, Any]) -> None:
    # 15 % of 180 days is 27 days: from 2027-02-05 on, a note
    assert freshness_diagnostics(bundle, _dated("2027-02-04")) == []
    assert _codes(freshness_diagnostics(bundle, _dated("2027-02-05"))) == [
        ("CE602", "note", "$.claims[0].verification.checked_at", "review due in 27 days (by 2027-03-04)")
    ]
    assert _codes(freshness_diagnostics(bundle, _dated("2027-03-03")))[0][3] == "review due in 1 day (by 2027-03-04)"


def test_freshness_review_by_earlier_than_the_policy(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["review_by"] = "2026-10-01"
    assert iter_diagnostics(bundle) is not None and not [
        d for d in iter_diagnostics(bundle) if d.is_error
    ]  # not in the fingerprint
    assert _codes(freshness_diagnostics(bundle, _dated("2026-10-03"))) == [
        (
            "CE601",
            "warning",
            "$.claims[0].verification.review_by",
            "review_by 2026-10-01 has passed (2 days ago): read the sources again and record the review",
        )
    ]


def test_freshness_review_by_later_than_the_policy(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["review_by"] = "2028-01-01"
    assert freshness_diagnostics(bundle, _dated("2027-06-01")) == []  # the policy alone would have expired it
    assert _codes(freshness_diagnostics(bundle, _dated("2028-01-02")))[0][3] == (
        "review_by 2028-01-01 has passed (1 day ago): read the sources again and record the review"
    )


def test_freshness_review_by_applies_to_editorial_and_only_to_reviewed_claims(bundle: dict[str, Any]) -> None:
    claim = bundle["claims"][0]
    claim["basis"] = "editorial"
    assert freshness_diagnostics(bundle, _dated("2040-01-01")) == []  # editorial: no limit
    claim["verification"]["review_by"] = "2027-01-01"
    assert [d.code for d in freshness_diagnostics(bundle, _dated("2040-01-01"))] == ["CE601"]
    claim["status"] = "unverified"
    assert freshness_diagnostics(bundle, _dated("2040-01-01")) == []


def test_freshness_invalid_review_by_is_ce405(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["review_by"] = "2027-02-30"
    found = [(d.code, d.path, d.message) for d in iter_diagnostics(bundle) if d.is_error]
    assert found == [
        (
            "CE405",
            "$.claims[0].verification.review_by",
            "invalid review_by: review_by must be an existing date as YYYY-MM-DD (found '2027-02-30'; no such date)",
        )
    ]
    # the policy applies meanwhile
    assert [d.code for d in freshness_diagnostics(bundle, _dated("2027-03-05"))] == ["CE601"]


def test_freshness_without_a_build_date_or_policy_finds_nothing(bundle: dict[str, Any]) -> None:
    assert freshness_diagnostics(bundle, Freshness()) == []
    assert freshness_diagnostics(bundle, None) == []


# --- the commands -------------------------------------------------------------------


def test_freshness_static_helper_expired_warning_passes(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _policy(site, "[freshness]\n")
    code, out, err = _static(capsys, "--no-cache", "--today", "2026-12-05")
    assert code == 0
    assert f"{RELEASE} (warning)" in out.splitlines() and f"{REPORT} (warning)" in out.splitlines()
    assert err == "static-helper: freshness: review ages counted to 2026-12-05 (build date from --today)\n"


def test_freshness_static_helper_expired_error_fails(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _policy(site, '[freshness]\nexpired = "error"\n')
    code, out, _ = _static(capsys, "--no-cache", "--today", "2026-12-05")
    assert code == 1
    assert RELEASE in out.splitlines() and out.endswith("4 pages: 2 passed, 2 failed\n")


def test_freshness_prepublish_expired_warning_vs_error(site: Path, run: Any) -> None:
    _policy(site, "[freshness]\n")
    code, out, err = run("prepublish", "--jobs", "1", "--today", "2026-12-05")
    assert (code, f"{RELEASE} (warning)" in out.splitlines()) == (0, True)
    assert err == "claim-evidence: freshness: review ages counted to 2026-12-05 (build date from --today)\n"
    _policy(site, 'expired = "error"\n')
    code, out, _ = run("prepublish", "--jobs", "1", "--today", "2026-12-05")
    assert (code, RELEASE in out.splitlines()) == (1, True)


def test_freshness_no_table_no_findings_no_date(site: Path, run: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _static(capsys, "--no-cache", "--today", "2040-01-01")
    assert (code, "CE60" in out, err) == (0, False, "")
    code, out, err = run("prepublish", "--jobs", "1")
    assert (code, "CE60" in out, err) == (0, False, "")


def test_freshness_validate_needs_config_and_due_soon_note_never_fails(site: Path, run: Any) -> None:
    page = "articles/kumo-engine-3.html"
    code, out, err = run("validate", "--strict", "--today", "2027-03-01", page)
    assert (code, "CE60" in out, err) == (0, False, "")  # without --config, reviews are not aged
    _policy(site, "[freshness.max_age_days]\nreporting = 365\n")
    code, out, err = run(
        "validate",
        "--strict",
        "--snapshot-dir",
        "evidence-snapshots",
        "--config",
        "claim-evidence.toml",
        "--today",
        "2027-03-01",
        page,
    )
    assert out.splitlines() == [
        f"PASS {page}",
        f"{page}:166:9: CE602 [KUMO-SPEED] review due in 3 days (by 2027-03-04) (note)",
        "1 file: 1 passed, 0 failed",
    ]
    assert (code, err) == (
        0,
        "claim-evidence: freshness: review ages counted to 2027-03-01 (build date from --today)\n",
    )


def test_freshness_build_date_order(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"SOURCE_DATE_EPOCH": "1800000000"}  # 2027-01-15 UTC
    assert build_date("2026-12-31", env) == ("2026-12-31", "--today")
    assert build_date(None, env) == ("2027-01-15", "SOURCE_DATE_EPOCH")
    monkeypatch.setattr("claim_evidence._record.freshness.clock_date", lambda: date(2030, 1, 2))
    assert build_date(None, {}) == ("2030-01-02", "clock")


def test_freshness_build_date_sources_named_in_output(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _policy(site, "[freshness]\n")
    monkeypatch.setattr("claim_evidence._record.freshness.clock_date", lambda: date(2026, 12, 5))
    code, out, err = _static(capsys, "--no-cache")
    assert (code, RELEASE + " (warning)" in out.splitlines()) == (0, True)
    assert err == "static-helper: freshness: review ages counted to 2026-12-05 (build date from clock)\n"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    assert (
        _static(capsys, "--no-cache")[2]
        == "static-helper: freshness: review ages counted to 2027-01-15 (build date from SOURCE_DATE_EPOCH)\n"
    )
    assert _static(capsys, "--no-cache", "--today", "2026-09-06")[2].endswith("(build date from --today)\n")


def test_freshness_bad_build_date_is_a_usage_error(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], run: Any
) -> None:
    _policy(site, "[freshness]\n")
    code, _, err = _static(capsys, "--no-cache", "--today", "2026-02-30")
    assert (code, err) == (
        2,
        "static-helper: error: CE600 --today must be an existing date as YYYY-MM-DD (found '2026-02-30')\n",
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    code, _, err = run("prepublish", "--jobs", "1")
    assert (code, err) == (
        2,
        "claim-evidence: error: CE600 SOURCE_DATE_EPOCH must be whole seconds since 1970-01-01 UTC (found 'soon')\n",
    )


def test_freshness_cache_does_not_hide_an_expiry(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _policy(site, '[freshness]\nexpired = "error"\n')
    cache = str(tmp_path / "cache")
    assert _static(capsys, "--cache-dir", cache, "--today", "2026-09-06")[0] == 0
    code, _, err = _static(capsys, "--cache-dir", cache, "--today", "2026-09-06", "--stats")
    assert (code, err.splitlines()[-1]) == (0, "static-helper stats: pages=13 checked=0 cached=13")
    code, out, _ = _static(capsys, "--cache-dir", cache, "--today", "2026-12-05")
    assert (code, RELEASE in out.splitlines()) == (1, True)


def test_freshness_rendering_unchanged(site: Path) -> None:
    text = (site / "articles" / "kumo-engine-3.html").read_text(encoding="utf-8")
    options = load_config(site / "claim-evidence.toml").options
    aged = dataclasses.replace(options, freshness=_dated("2040-01-01", expired="error"))
    plain, strict = check_text(text, "a.html", options), check_text(text, "a.html", aged)
    assert [d.code for d in strict.diagnostics if d.code.startswith("CE60")] == ["CE601"] * 4  # editorial: no limit
    assert [(s.start, c) for s, c in strict.rendered] == [(s.start, c) for s, c in plain.rendered]
    # a stale slot is re-rendered the same way under the policy
    stale = text.replace("資料との照合済み", "X", 1)
    assert (
        check_text(stale, "a.html", aged).rendered_text()
        == check_text(stale, "a.html", options).rendered_text()
        == text
    )


def test_freshness_news_registry_is_aged(bundle: dict[str, Any], subject: dict[str, Any]) -> None:
    from claim_evidence.news import registry_from_value

    url = "https://example.com/a"
    registry = registry_from_value(
        {url: {**subject, "claim_evidence": copy.deepcopy(bundle)}}, freshness=_dated("2027-03-05")
    )
    assert [(d.code, d.path, d.subject) for d in registry.diagnostics if d.code != "CE905"] == [
        (
            "CE601",
            f'$["{url}"].claim_evidence.claims[0].verification.checked_at',
            f"article {url}, claim fictional-rate",
        )
    ]


def test_freshness_review_record_keeps_a_review_by_still_ahead_and_sets_one(
    bundle: dict, run: Any, tmp_path: Path
) -> None:
    import json as _json

    bundle["claims"][0]["verification"]["review_by"] = "2027-01-31"
    path = tmp_path / "b.json"
    path.write_text(_json.dumps(bundle, ensure_ascii=False, indent=2), encoding="utf-8")
    # built on 2027-02-01: a review of that day is no review from the future (CE406)
    args = [
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "human_document_review",
        "--today",
        "2027-02-01",
    ]
    assert run(*args, "--checked-at", "2026-12-01")[0] == 0
    assert _json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verification"]["review_by"] == "2027-01-31"
    assert run(*args, "--checked-at", "2027-02-01")[0] == 0  # reached by this review: met, dropped
    assert "review_by" not in _json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verification"]
    assert run(*args, "--checked-at", "2027-02-01", "--review-by", "2027-06-30")[0] == 0
    assert _json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verification"]["review_by"] == "2027-06-30"
    assert run(*args, "--checked-at", "2027-02-01", "--review-by", "")[0] == 0
    assert "review_by" not in _json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verification"]
    code, _, err = run(*args, "--checked-at", "2027-02-01", "--review-by", "2027-02-30")
    assert code == 2 and "--review-by must be an existing date" in err


# --- markers on the page ------------------------------------------------------------------------------------


def _marked(today: str, **kwargs: Any) -> Freshness:
    return dataclasses.replace(Freshness(**kwargs), today=today, source="--today", markers=True)


_MARKER = (
    ' · <span class="claim-evidence-freshness" data-freshness="{}"><span aria-hidden="true">{}</span> {}</span></p>'
)


@pytest.mark.parametrize(
    "today, lang, state, symbol, text",
    [
        ("2026-09-05", "ja", "fresh", "🟢", "[180日] 照合 2026-09-05 · 次回確認 2027-03-04まで"),
        ("2026-09-06", "en", "fresh", "🟢", "[180 days] checked 2026-09-05 · re-check by 2027-03-04"),
        ("2027-02-04", "ja", "fresh", "🟢", "[180日] 照合 2026-09-05 · 次回確認 2027-03-04まで"),
        ("2027-02-04", "en", "fresh", "🟢", "[180 days] checked 2026-09-05 · re-check by 2027-03-04"),
        ("2027-02-05", "ja", "due-soon", "🟡", "[180日] 照合 2026-09-05 · まもなく再確認（2027-03-04まで）"),
        ("2027-03-04", "en", "due-soon", "🟡", "[180 days] checked 2026-09-05 · re-check soon (by 2027-03-04)"),
        ("2027-03-05", "ja", "expired", "⚠", "[180日] 照合 2026-09-05 ⚠ 古い: 再確認が必要（期限 2027-03-04）"),
        (
            "2027-03-05",
            "en",
            "expired",
            "⚠",
            "[180 days] checked 2026-09-05 ⚠ outdated: needs re-checking (due 2027-03-04)",
        ),
    ],
)
def test_freshness_markers_exact_strings(
    bundle: dict[str, Any], today: str, lang: str, state: str, symbol: str, text: str
) -> None:
    """The seed claim: vendor_claim (180 days), checked 2026-09-05, due 2027-03-04; due soon from 2027-02-05
    (27 days left: 27 × 100 ≤ 180 × 15)."""
    plain = render_evidence(bundle, lang=lang)
    marked = render_evidence(bundle, lang=lang, freshness=_marked(today))
    line_end = plain.index("</p>")
    assert marked == plain[:line_end] + _MARKER.format(state, symbol, text) + plain[line_end + len("</p>") :]


def test_freshness_markers_off_renders_byte_for_byte_as_before(bundle: dict[str, Any]) -> None:
    plain = render_evidence(bundle)
    assert render_evidence(bundle, freshness=dataclasses.replace(_marked("2027-03-05"), markers=False)) == plain
    assert (
        render_evidence(bundle, freshness=dataclasses.replace(_marked("2027-03-05"), today=None)) == plain
    )  # not dated: none
    assert render_evidence(bundle, freshness=None) == plain


def test_freshness_markers_only_on_reviews_the_block_shows(bundle: dict[str, Any]) -> None:
    """An invalid record shows no review, so no marker; nor does an unverified claim; review_by decides the state."""
    broken = copy.deepcopy(bundle)
    broken["claims"][0]["statement"] += "（改）"  # CE403: the review no longer covers it
    assert "claim-evidence-freshness" not in render_evidence(broken, freshness=_marked("2026-12-01"))
    unverified = copy.deepcopy(bundle)
    unverified["claims"][0].update(status="unverified", verification=None)
    unverified["claims"][0].pop("verification")
    assert "claim-evidence-freshness" not in render_evidence(unverified, freshness=_marked("2026-12-01"))
    early = copy.deepcopy(bundle)
    early["claims"][0]["verification"]["review_by"] = "2026-11-30"
    assert 'data-freshness="expired"' in render_evidence(early, freshness=_marked("2026-12-01"))


def test_freshness_markers_config_and_the_example_site(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """markers = true: a build date that turns a marker makes the slot stale, --write shows the new one;
    markers switched off, --write removes them, and the pages are as without any policy."""
    before = {p: p.read_bytes() for p in site.rglob("*.html")}
    _policy(site, "[freshness]\nmarkers = true\n")
    code, out, err = _static(capsys, "--no-cache", "--today", "2026-12-01")
    assert (
        code == 1
        and "SH140 [KUMO-SPEED] evidence display is stale: it shows no freshness marker, and this site shows them ([freshness] markers); run --write to add it"
        in out
    )
    assert _static(capsys, "--no-cache", "--today", "2026-12-01", "--write")[0] == 0
    assert "🟢</span> [365日] 照合 2026-09-05 · 次回確認 2027-09-05まで" in (
        site / "articles" / "kumo-engine-3.html"
    ).read_text(encoding="utf-8")
    assert _static(capsys, "--no-cache", "--today", "2026-12-01")[0] == 0
    assert _static(capsys, "--no-cache", "--today", "2026-12-03")[0] == 0  # days later, every review in its state
    code, out, _ = _static(capsys, "--no-cache", "--today", "2026-12-05")
    assert (
        code == 1
        and (
            "SH140 [KUMO-RELEASE] evidence display is stale: only its freshness marker differs: due soon → expired on "
            "2026-12-05 (reviewed 2026-09-05, due 2026-12-04); run --write to show the current marker"
        )
        in out
    )
    assert "SH140 [KUMO-SPEED]" not in out  # its review is fresh on both days
    _policy_replace(site, "")
    code, out, _ = _static(capsys, "--no-cache")
    assert (
        code == 1
        and "it shows a freshness marker, and this site shows none ([freshness] markers); run --write to remove it"
        in out
    )
    assert _static(capsys, "--no-cache", "--write")[0] == 0
    assert {p: p.read_bytes() for p in site.rglob("*.html")} == before


def _policy_replace(site: Path, table: str) -> None:
    config = site / "claim-evidence.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text[: text.index("[freshness]")] + table, encoding="utf-8")


def test_freshness_markers_must_be_a_boolean(site: Path) -> None:
    _policy(site, '[freshness]\nmarkers = "yes"\n')
    with pytest.raises(InputError) as caught:
        load_config(site / "claim-evidence.toml")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.message) == (
        "SH003",
        "freshness.markers must be true or false (found 'yes')",
    )
