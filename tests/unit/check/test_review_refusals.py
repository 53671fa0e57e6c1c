"""``review record`` refuses every bundle ``validate`` would still fail, not only the reviewed claim's errors.

Left to other reviews: what recording another claim's review (or the subject's) clears (CLEARED_BY_REVIEW
outside the reviewed claim), so that two edited claims never wait for each other.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import EvidenceValidationError, claim_fingerprint, iter_diagnostics
from claim_evidence._check.review import ReviewRequest, record_review
from claim_evidence._core.diagnostics import CLEARED_BY_REVIEW

from ...acceptance.test_json_types import BASE, CASES, _case_id, _replaced

REQUEST = ReviewRequest("rate", "human_document_review", "2026-09-06")


def _write(path: Path, bundle: Any) -> Path:
    path.write_text(json.dumps(bundle, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_review_refusals_a_source_error_stops_the_seal(run: Any, tmp_path: Path, bundle: dict[str, Any]) -> None:
    bundle["sources"][0]["publisher"] = " "
    path = _write(tmp_path / "b.json", bundle)
    before = path.read_bytes()
    code, out, err = run(
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-10-01",
    )
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"claim-evidence: {path}:$.sources[0].publisher: CE202 [source fictional-vendor-doc] publisher required: publisher must be a "
        "non-blank string (found ' ')",
        f"claim-evidence: review of fictional-rate not recorded: fix the errors above first; {path} is unchanged",
    ]
    assert path.read_bytes() == before


def test_review_refusals_a_top_level_error_stops_the_seal(bundle: dict[str, Any]) -> None:
    bundle["version"] = 2
    with pytest.raises(EvidenceValidationError) as caught:
        record_review(bundle, ReviewRequest("fictional-rate", "human_document_review", "2026-10-01"))
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE101", "$.version")]


def test_review_refusals_another_claims_errors_stop_it_but_its_pending_review_does_not(bundle: dict[str, Any]) -> None:
    """Claims 1 and 10: ``$.claims[1]`` is a prefix of ``$.claims[10]``, and must not be taken for it."""
    for n in range(1, 11):
        extra = copy.deepcopy(bundle["claims"][0])
        extra["id"] = f"c{n}"
        bundle["claims"].append(extra)
    bundle["claims"][1]["statement"] = "c1 の文は書き換えられた。"  # CE403: c1 waits for its own review
    bundle["claims"][10]["statement"] = "c10 の文も書き換えられた。"  # and c10 for its own
    sealed = record_review(bundle, ReviewRequest("c1", "human_document_review", "2026-10-01"))
    assert [(d.code, d.path) for d in iter_diagnostics(sealed) if d.is_error] == [
        ("CE403", "$.claims[10].verification.fingerprint")
    ]
    sealed = record_review(sealed, ReviewRequest("c10", "human_document_review", "2026-10-01"))
    assert [d for d in iter_diagnostics(sealed) if d.is_error] == []
    bundle["claims"][10]["basis"] = "vibes"  # not cleared by any review: stops every seal of the bundle
    with pytest.raises(EvidenceValidationError) as caught:
        record_review(bundle, ReviewRequest("c1", "human_document_review", "2026-10-01"))
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE303", "$.claims[10].basis")]


def test_review_refusals_the_claims_own_cleared_codes_count_after_the_review(bundle: dict[str, Any]) -> None:
    """A matched claim without sources stays CE311 after its review: sealing it would leave validate failing."""
    claim = bundle["claims"][0]
    claim["source_refs"] = []
    bundle["sources"] = []
    with pytest.raises(EvidenceValidationError) as caught:
        record_review(bundle, ReviewRequest("fictional-rate", "human_document_review", "2026-10-01"))
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE311", "$.claims[0]")]
    assert record_review(
        bundle, ReviewRequest("fictional-rate", "human_document_review", "2026-10-01", status="unverified")
    )


# The reviewed claim of the type matrix is "rate" (claims[0]); every case the review accepts must leave
# validate with nothing but what other reviews clear.
@pytest.mark.parametrize("path, value", CASES, ids=[_case_id(p, v) for p, v in CASES])
def test_review_refusals_a_recorded_review_leaves_only_what_other_reviews_clear(
    path: tuple[str | int, ...], value: Any
) -> None:
    bundle = _replaced(BASE, path, value)
    try:
        sealed = record_review(bundle, REQUEST)
    except EvidenceValidationError as refused:
        assert refused.diagnostics and all(d.is_error for d in refused.diagnostics)
        return
    except Exception as other:  # a request the bundle cannot take (no claims list, no claim "rate"): never a crash
        assert type(other).__name__ == "ReviewError", repr(other)
        return
    left = [d for d in iter_diagnostics(sealed) if d.is_error]
    assert all(
        d.code in CLEARED_BY_REVIEW
        and not d.path.startswith(("$.claims[0].", "$.claims[0]["))
        and d.path != "$.claims[0]"
        for d in left
    ), [(d.code, d.path) for d in left]
    rate = sealed["claims"][0]
    assert rate["verification"]["fingerprint"] == claim_fingerprint(rate, sealed["sources"])
