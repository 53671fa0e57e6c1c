"""CE406: a review dated after the build date is an error wherever a build date is resolved — the page
check (static-helper), prepublish, validate, the news registry, the plugins — on the same path as the
review ages (CE601): the dated ``[freshness]`` policy, or, on a site without one, the build date alone
(``Freshness.aging`` False). A library call given no build date says nothing and reads no clock."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._core.diagnostics import Diagnostic
from claim_evidence._record.freshness import Freshness, freshness_diagnostics, reviews_after_build
from claim_evidence._record.validation import iter_diagnostics

from ...conftest import example_site_copy

PAGE = "about.html"
FUTURE = (
    "checked_at 2099-01-01 is after the build date 2026-12-01 (from --today): a review cannot be dated after the build; record it "
    "with the day the sources were read (claim-evidence review record … --checked-at YYYY-MM-DD), or correct the build date"
)


def _dated(today: str, source: str = "--today", **kwargs: Any) -> Freshness:
    return dataclasses.replace(Freshness(**kwargs), today=today, source=source)


def test_freshness_future_review_is_an_error_not_an_age(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["checked_at"] = "2099-01-01"  # not covered by the fingerprint
    expected = Diagnostic("CE406", FUTURE, "$.claims[0].verification.checked_at", "error", "claim fictional-rate")
    assert freshness_diagnostics(bundle, _dated("2026-12-01")) == [expected]
    assert freshness_diagnostics(bundle, _dated("2026-12-01", expired="warning")) == [expected]  # never a mere warning
    assert reviews_after_build(bundle, "2026-12-01", "--today") == [expected]  # a build date is all it needs
    bundle["claims"][0]["status"] = (
        "unverified"  # a review record that cannot have happened is wrong whatever the status
    )
    assert [d.code for d in freshness_diagnostics(bundle, _dated("2026-12-01"))] == ["CE406"]


def test_freshness_future_a_utc_build_date_allows_one_day(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["checked_at"] = "2026-12-02"
    assert freshness_diagnostics(bundle, _dated("2026-12-01", "SOURCE_DATE_EPOCH")) == []
    assert freshness_diagnostics(bundle, _dated("2026-12-01", "clock")) == []
    assert [d.code for d in freshness_diagnostics(bundle, _dated("2026-12-01", "--today"))] == ["CE406"]
    [late] = freshness_diagnostics(bundle, _dated("2026-11-30", "SOURCE_DATE_EPOCH"))
    assert late.message.startswith(
        "checked_at 2026-12-02 is after the build date 2026-11-30 (from SOURCE_DATE_EPOCH, a UTC date: reviews up to 2026-12-01 are accepted)"
    )


def test_freshness_future_without_a_build_date_nothing_and_no_clock(
    bundle: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validation alone knows no build date: deterministic, the clock is never read (as for review ages)."""

    def no_clock() -> date:
        raise AssertionError("the clock was read")

    monkeypatch.setattr("claim_evidence._record.freshness.clock_date", no_clock)
    bundle["claims"][0]["verification"]["checked_at"] = "2099-01-01"
    assert [d for d in iter_diagnostics(bundle) if d.is_error] == []
    assert freshness_diagnostics(bundle, None) == [] and freshness_diagnostics(bundle, Freshness()) == []


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site (``[freshness]`` with markers) with one review dated 2099-01-01, run from its folder."""
    folder = example_site_copy(tmp_path / "site")
    page = folder / PAGE
    page.write_text(
        page.read_text(encoding="utf-8").replace('"checked_at": "2026-07-02"', '"checked_at": "2099-01-01"', 1),
        encoding="utf-8",
    )
    monkeypatch.chdir(folder)
    return folder


def _line(site: Path) -> str:
    """The page's line and column of the edited checked_at (its key, where the page check places findings)."""
    text = (site / PAGE).read_text(encoding="utf-8")
    offset = text.index('"checked_at": "2099-01-01"')
    return f"{text.count(chr(10), 0, offset) + 1}:{offset - text.rfind(chr(10), 0, offset)}"


def test_freshness_future_static_helper_and_prepublish_fail(
    site: Path, run: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from static_helper.cli import main

    expected = f"{PAGE}:{_line(site)}: CE406 [ABOUT-AI] {FUTURE}"
    code = main(["--no-cache", "--today", "2026-12-01", PAGE])
    out = capsys.readouterr().out
    assert (code, expected in out.splitlines()) == (1, True), out
    code, out, _ = run("prepublish", "--jobs", "1", "--today", "2026-12-01")
    assert (code, expected in out.splitlines()) == (1, True), out


def test_freshness_future_validate_fails_with_and_without_a_config(site: Path, run: Any) -> None:
    expected = f"{PAGE}:{_line(site)}: CE406 [ABOUT-AI] {FUTURE}"
    code, out, _ = run("validate", "--config", "claim-evidence.toml", "--today", "2026-12-01", PAGE)
    assert (code, expected in out.splitlines()) == (1, True), out
    code, out, err = run(
        "validate", "--today", "2026-12-01", PAGE
    )  # no ages without a policy, but the build date holds
    assert (code, expected in out.splitlines(), err) == (1, True, ""), out


def test_freshness_future_site_without_freshness_table_fails(
    site: Path, run: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A site that ages no review still has a build date: a review dated after it fails every gate."""
    from static_helper.cli import main

    config = site / "claim-evidence.toml"
    text = config.read_text(encoding="utf-8")
    assert text.count("[freshness]\nmarkers = true\n") == 1
    config.write_text(text.replace("[freshness]\nmarkers = true\n", ""), encoding="utf-8")
    expected = f"{PAGE}:{_line(site)}: CE406 [ABOUT-AI] {FUTURE}"
    code = main(["--no-cache", "--today", "2026-12-01", PAGE])
    captured = capsys.readouterr()
    assert (code, expected in captured.out.splitlines(), captured.err) == (1, True, ""), captured.out
    code, out, _ = run("prepublish", "--jobs", "1", "--today", "2026-12-01")
    assert (code, expected in out.splitlines()) == (1, True), out
    main(["--no-cache", "--today", "2099-01-01", PAGE])  # on that day the review is possible
    assert "CE406" not in capsys.readouterr().out
