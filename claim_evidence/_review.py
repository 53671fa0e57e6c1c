"""Recording a review: the only code that stores a fingerprint.

The reviewer says which claim they checked, how and when; the fingerprint is
computed from the record as it stands now. Nothing here reads the clock.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ._diagnostics import CLEARED_BY_REVIEW, ClaimEvidenceError, EvidenceValidationError
from ._fingerprint import article_fingerprint, claim_fingerprint
from ._policy import DEFAULT_POLICY, Policy
from ._validation import iter_diagnostics
from ._vocabulary import METHODS, STATUSES, is_valid_date


class ReviewError(ClaimEvidenceError):
    """The review request itself is wrong (unknown id, bad date or method): exit 2."""


@dataclass(frozen=True)
class ReviewRequest:
    claim_id: str
    method: str
    checked_at: str
    note: str | None = None  # None keeps the existing note; "" removes it
    status: str | None = None  # None keeps the recorded status
    review_by: str | None = None  # None keeps a recorded review_by still ahead of checked_at; "" removes it


def record_review(bundle: dict[str, Any], request: ReviewRequest, *, policy: Policy = DEFAULT_POLICY) -> dict[str, Any]:
    """Return a copy of ``bundle`` with the claim's verification recorded.

    Refuses (ReviewError) unknown ids, invalid dates or methods, and
    (EvidenceValidationError) a claim whose record has other errors under the
    site's ``policy`` — a figure its quotes do not have (CE317) included: a seal
    over a broken record would certify the breakage.
    """
    if not is_valid_date(request.checked_at):
        raise ReviewError(f"--checked-at must be an existing date as YYYY-MM-DD, got {request.checked_at!r}")
    if request.method not in METHODS:
        raise ReviewError(f"unknown method {request.method!r}; expected one of {', '.join(METHODS)}")
    if request.review_by and not is_valid_date(request.review_by):
        raise ReviewError(f"--review-by must be an existing date as YYYY-MM-DD, got {request.review_by!r}")
    if request.status is not None and request.status not in STATUSES:
        raise ReviewError(f"unknown status {request.status!r}; expected one of {', '.join(STATUSES)}")
    if not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        raise ReviewError("the file holds no bundle with a claims list")
    updated = copy.deepcopy(bundle)
    matches = [c for c in updated["claims"] if isinstance(c, dict) and c.get("id") == request.claim_id]
    if len(matches) != 1:
        known = ", ".join(str(c.get("id")) for c in updated["claims"] if isinstance(c, dict))
        raise ReviewError(f"no single claim with id {request.claim_id!r} (claims: {known})")
    claim = matches[0]
    if request.status is not None:
        claim["status"] = request.status
    recorded = claim.get("verification")
    previous: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    verification: dict[str, Any] = {"checked_at": request.checked_at, "method": request.method}
    note = previous.get("note") if request.note is None else request.note
    if note:
        verification["note"] = note
    # A review_by the new review has reached was met by it; one still ahead stays (a forecast's date).
    kept = previous.get("review_by")
    if request.review_by is not None:
        review_by: str | None = request.review_by
    else:
        review_by = kept if isinstance(kept, str) and is_valid_date(kept) and kept > request.checked_at else None
    if review_by:
        verification["review_by"] = review_by
    verification["fingerprint"] = claim_fingerprint(claim, updated.get("sources"))
    claim["verification"] = verification
    index = updated["claims"].index(claim)
    remaining = [
        d
        for d in iter_diagnostics(updated, policy=policy)
        if d.is_error and d.path.startswith(f"$.claims[{index}]") and d.code not in CLEARED_BY_REVIEW
    ]
    if remaining:
        raise EvidenceValidationError(remaining)
    return updated


def record_subject(bundle: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Copy of ``bundle`` sealed to the article's current title/tldr/summary."""
    if not isinstance(bundle, dict) or not bundle:
        raise ReviewError("the article has no claim_evidence bundle to seal")
    updated = copy.deepcopy(bundle)
    updated["subject_fingerprint"] = article_fingerprint(item)
    return updated
