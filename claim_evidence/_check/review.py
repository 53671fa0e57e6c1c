"""Recording a review: the only code that stores a fingerprint.

The reviewer says which claim they checked, how and when; the fingerprint is
computed from the record as it stands now. Nothing here reads the clock: the
build date a review cannot be later than is the caller's (``--today``, else
``SOURCE_DATE_EPOCH``, else the clock, resolved by the command line).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.dates import is_valid_date
from .._core.diagnostics import CLEARED_BY_REVIEW, Diagnostic, json_path
from .._core.errors import EvidenceValidationError, ReviewError
from .._core.hints import date_hint, shown
from .._record.fingerprint import article_fingerprint, claim_fingerprint
from .._record.freshness import REVIEW_AFTER_BUILD, review_after_build
from .._record.policy import DEFAULT_POLICY, Policy
from .._record.reviewrules import review_by_not_after
from .._record.validation import iter_diagnostics
from .._record.vocabulary import METHODS, STATUSES, is_valid_id
from .._snapshots.check import snapshot_diagnostics

if TYPE_CHECKING:
    from .._snapshots.store import SnapshotStore


@dataclass(frozen=True)
class ReviewRequest:
    claim_id: str
    method: str
    checked_at: str
    note: str | None = None  # None keeps the existing note; "" removes it
    status: str | None = None  # None keeps the recorded status
    review_by: str | None = None  # None keeps a recorded review_by still ahead of checked_at; "" removes it


@dataclass(frozen=True)
class Sealed:
    """A recorded review: the bundle with the claim sealed, the sealed claim's index, and the warnings and
    notes still pending on that claim (its own JSON paths, the sources it cites, the snapshot checks of
    those): what the seal does not settle, and what ``review record --strict`` refuses to seal over."""

    bundle: dict[str, Any]
    index: int
    pending: tuple[Diagnostic, ...] = ()


def record_review(
    bundle: dict[str, Any],
    request: ReviewRequest,
    *,
    policy: Policy = DEFAULT_POLICY,
    build_date: tuple[str, str] | None = None,
    snapshots: SnapshotStore | None = None,
) -> dict[str, Any]:
    """Return a copy of ``bundle`` with the claim's verification recorded (:func:`seal_review`'s bundle)."""
    return seal_review(bundle, request, policy=policy, build_date=build_date, snapshots=snapshots).bundle


def seal_review(
    bundle: dict[str, Any],
    request: ReviewRequest,
    *,
    policy: Policy = DEFAULT_POLICY,
    build_date: tuple[str, str] | None = None,
    snapshots: SnapshotStore | None = None,
) -> Sealed:
    """A copy of ``bundle`` with the claim's verification recorded, and what stays pending on it.

    Refuses (ReviewError) unknown ids, invalid dates or methods, a ``checked_at``
    after ``build_date`` (``(YYYY-MM-DD, source)``; None: not checked) and a
    ``review_by`` not after ``checked_at``; and (EvidenceValidationError) a bundle
    that would still have errors under the site's ``policy`` once the review is
    recorded — in the claim (a figure its quotes do not have, CE317, included),
    in a source, at the top level or in another claim: a seal over a broken
    record would certify the breakage, and an error the claims share (a cited
    source, the top level) shows them as unverified too. Only what the reviews
    of other claims (or of the subject)
    clear is left for them. With the site's ``snapshots`` store, the snapshot
    checks the page check runs (:func:`._snapcheck.snapshot_diagnostics`: a
    snapshot missing or altered, a quote not in the text of its bytes) refuse
    too: a seal over a quote the source does not hold would certify it.
    """
    if not is_valid_date(request.checked_at):
        raise ReviewError(f"--checked-at must be an existing date as YYYY-MM-DD, got {_date_shown(request.checked_at)}")
    if request.method not in METHODS:
        raise ReviewError(f"unknown method {shown(request.method)}; expected one of {', '.join(METHODS)}")
    if request.review_by and not is_valid_date(request.review_by):
        raise ReviewError(f"--review-by must be an existing date as YYYY-MM-DD, got {_date_shown(request.review_by)}")
    if build_date is not None:
        fix = "give the day you read the sources (or --today, if the build date is wrong)"
        late = review_after_build(request.checked_at, *build_date, field="--checked-at", fix=fix)
        if late is not None:
            raise ReviewError(f"{REVIEW_AFTER_BUILD} {late}")
    if request.review_by and request.review_by <= request.checked_at:
        fix = f"give a date after {request.checked_at}, or leave --review-by out"
        raise ReviewError(
            "CE407 " + review_by_not_after(request.review_by, request.checked_at, ("--review-by", "--checked-at"), fix)
        )
    if request.status is not None and request.status not in STATUSES:
        raise ReviewError(f"unknown status {shown(request.status)}; expected one of {', '.join(STATUSES)}")
    if not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        raise ReviewError("the file holds no bundle with a claims list")
    updated = copy.deepcopy(bundle)
    matches = [c for c in updated["claims"] if isinstance(c, dict) and c.get("id") == request.claim_id]
    if len(matches) != 1:
        known = ", ".join(
            c["id"] if is_valid_id(c.get("id")) else shown(c.get("id"))
            for c in updated["claims"]
            if isinstance(c, dict)
        )
        raise ReviewError(f"no single claim with id {shown(request.claim_id)} (claims: {known})")
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
    found = [*iter_diagnostics(updated, policy=policy), *snapshot_diagnostics(updated, snapshots)]
    remaining = [d for d in found if d.is_error and not _left_to_other_reviews(d, index)]
    if remaining:
        raise EvidenceValidationError(remaining)
    pending = tuple(d for d in found if not d.is_error and _concerns(d, index, updated))
    return Sealed(updated, index, pending)


def _concerns(d: Diagnostic, index: int, bundle: dict[str, Any]) -> bool:
    """A finding about claim ``index`` of ``bundle``: at its own path, at a source it cites, or about
    the snapshot checks as a whole (``$.sources``: CE520, checks skipped) when a source it cites has one."""
    claim = bundle["claims"][index]
    refs = claim.get("source_refs")
    ids = {r.get("source_id") for r in (refs if isinstance(refs, list) else []) if isinstance(r, dict)}
    listed = bundle.get("sources")
    cited = [
        (i, s)
        for i, s in enumerate(listed if isinstance(listed, list) else [])
        if isinstance(s, dict) and s.get("id") in ids
    ]
    if d.path == "$.sources":
        return any("snapshot" in s for _, s in cited)
    places = [json_path(("claims", index)), *(json_path(("sources", i)) for i, _ in cited)]
    return any(d.path == at or d.path.startswith((at + ".", at + "[")) for at in places)


def _left_to_other_reviews(d: Diagnostic, index: int) -> bool:
    """An error that recording another claim's review (or the subject's) clears, so it does not stop
    this one: two edited claims each wait for their own review, never for each other's. The reviewed
    claim's own errors all count, even those codes: after this review they are real."""
    own = json_path(("claims", index))
    return d.code in CLEARED_BY_REVIEW and not (d.path == own or d.path.startswith((own + ".", own + "[")))


def _date_shown(value: str) -> str:
    """An option's date as a refusal shows it, with the date it looks like when there is one."""
    hint = date_hint(value)
    return shown(value) + (f" ({hint})" if hint else "")


def record_subject(bundle: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Copy of ``bundle`` sealed to the article's current title/tldr/summary."""
    if not isinstance(bundle, dict) or not bundle:
        raise ReviewError("the article has no claim_evidence bundle to seal")
    updated = copy.deepcopy(bundle)
    updated["subject_fingerprint"] = article_fingerprint(item)
    return updated
