"""``review record`` refuses a review that could not have happened: dated after the build date (CE406),
or due again on or before its own date (CE407). The build date is freshness's: --today, else
SOURCE_DATE_EPOCH (2026-12-01 in every test, tests/conftest.py), else the clock."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import render_evidence, validate_bundle
from claim_evidence._check.review import ReviewError, ReviewRequest, record_review

ARGS = ["--claim", "fictional-rate", "--method", "human_document_review"]
FUTURE = (
    "claim-evidence: error: CE406 --checked-at {checked} is after the build date {today} ({origin}): a review cannot be dated "
    "after the build; give the day you read the sources (or --today, if the build date is wrong)\n"
)


@pytest.fixture
def path(tmp_path: Path, bundle: dict[str, Any]) -> Path:
    target = tmp_path / "b.json"
    target.write_text(json.dumps(bundle, ensure_ascii=False, indent=2), encoding="utf-8")
    return target


def _record(run: Any, path: Path, *extra: str) -> tuple[int, str, str]:
    code, out, err = run("review", "record", str(path), *ARGS, *extra)
    return code, out, err


def test_review_dates_checked_at_after_the_build_date_is_refused(run: Any, path: Path) -> None:
    before = path.read_bytes()
    origin = "from SOURCE_DATE_EPOCH, a UTC date: reviews up to 2026-12-02 are accepted"
    assert _record(run, path, "--checked-at", "2099-01-01") == (
        2,
        "",
        FUTURE.format(checked="2099-01-01", today="2026-12-01", origin=origin),
    )
    assert _record(run, path, "--checked-at", "2026-12-03")[0] == 2
    assert path.read_bytes() == before


def test_review_dates_a_utc_build_date_allows_the_next_day(run: Any, path: Path) -> None:
    """SOURCE_DATE_EPOCH and the clock are UTC dates: in Japan before 09:00 the local date is one ahead."""
    assert _record(run, path, "--checked-at", "2026-12-02")[0] == 0
    assert json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verification"]["checked_at"] == "2026-12-02"


def test_review_dates_today_is_exact_and_wins(run: Any, path: Path) -> None:
    assert _record(run, path, "--checked-at", "2026-12-02", "--today", "2026-12-01") == (
        2,
        "",
        FUTURE.format(checked="2026-12-02", today="2026-12-01", origin="from --today"),
    )
    assert _record(run, path, "--checked-at", "2027-05-01", "--today", "2027-05-01")[0] == 0
    code, _, err = _record(run, path, "--checked-at", "2026-10-01", "--today", "2026-02-30")
    assert (code, err) == (
        2,
        "claim-evidence: error: CE600 --today must be an existing date as YYYY-MM-DD (found '2026-02-30')\n",
    )


def test_review_dates_the_clock_when_nothing_names_the_date(
    run: Any, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    monkeypatch.setattr("claim_evidence._record.freshness.clock_date", lambda: date(2026, 10, 1))
    origin = "from clock, a UTC date: reviews up to 2026-10-02 are accepted"
    assert _record(run, path, "--checked-at", "2026-10-03")[2] == FUTURE.format(
        checked="2026-10-03", today="2026-10-01", origin=origin
    )
    assert _record(run, path, "--checked-at", "2026-10-02")[0] == 0


@pytest.mark.parametrize("review_by", ["2026-09-30", "2026-10-01"])
def test_review_dates_review_by_on_or_before_checked_at_is_refused(run: Any, path: Path, review_by: str) -> None:
    before = path.read_bytes()
    code, _, err = _record(run, path, "--checked-at", "2026-10-01", "--review-by", review_by)
    assert (code, err) == (
        2,
        f"claim-evidence: error: CE407 --review-by {review_by} is not after --checked-at 2026-10-01: a review due on or before the day "
        "it was made would show the claim as expired at once; give a date after 2026-10-01, or leave --review-by out\n",
    )
    assert path.read_bytes() == before
    assert _record(run, path, "--checked-at", "2026-10-01", "--review-by", "2026-10-02")[0] == 0


def test_review_dates_the_library_checks_only_the_build_date_it_is_given(bundle: dict[str, Any]) -> None:
    """record_review never reads the clock: without a build date, a date is only checked to exist."""
    request = ReviewRequest("fictional-rate", "human_document_review", "2099-01-01")
    assert record_review(bundle, request)["claims"][0]["verification"]["checked_at"] == "2099-01-01"
    with pytest.raises(
        ReviewError, match=r"^CE406 --checked-at 2099-01-01 is after the build date 2026-12-01 \(from --today\)"
    ):
        record_review(bundle, request, build_date=("2026-12-01", "--today"))


def test_review_dates_review_by_not_after_checked_at_is_invalid_everywhere(bundle: dict[str, Any]) -> None:
    """CE407 is the record's own contradiction: an error of validation, with or without a build date,
    so the block shows the claim unverified rather than expired from the start."""
    bundle["claims"][0]["verification"]["review_by"] = "2026-09-05"  # its checked_at
    assert validate_bundle(bundle) == [
        "claim fictional-rate: review_by 2026-09-05 is not after checked_at 2026-09-05: a review due on or before the day it was made "
        "would show the claim as expired at once; set review_by to a date after 2026-09-05, or remove it"
    ]
    assert "未確認・根拠未登録" in render_evidence(bundle)
    bundle["claims"][0]["verification"]["review_by"] = "2026-09-06"
    assert validate_bundle(bundle) == []
