"""The rules over what a review says: a stated status needs sources and a review record, its
dates must be real and in order, its seals (the claim's and the subject's fingerprints) must
match, an operator measurement must say how it was made.

Rules of :mod:`.validation` (registered in its ``RULES``), like :mod:`.recordrules`.
:func:`review_by_not_after` is CE407's message, shared with ``review record``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._core.dates import is_valid_date
from .._core.urls import safe_http_url
from .fingerprint import ClaimFingerprints, article_fingerprint, matches_with_numbers_rewritten
from .recordrules import refs
from .schema import MISSING, field_message, property_node
from .vocabulary import FINGERPRINT_RE, VERIFIED_STATUSES, str_or_none

if TYPE_CHECKING:
    from .validation import Context, Finding


def stated_verification(ctx: Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        if str_or_none(claim.get("status")) in VERIFIED_STATUSES and (
            not refs(claim) or not isinstance(claim.get("verification"), dict)
        ):
            yield "CE311", ("claims", i), "stated verification requires sources and a review record", "error"


def checked_at(ctx: Context) -> Iterator[Finding]:
    node = property_node("verification", "checked_at")
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        status = str_or_none(claim.get("status"))
        if isinstance(verification, dict) and status in VERIFIED_STATUSES:
            if not is_valid_date(verification.get("checked_at")):
                path = ("claims", i, "verification", "checked_at")
                # Not "or null", as the schema alone would say: the status asserts that a review took place.
                expected = f"an existing date as YYYY-MM-DD for a {status} claim"
                yield (
                    "CE401",
                    path,
                    field_message(node, path, verification.get("checked_at", MISSING), expected=expected),
                    "error",
                )


def review_by_after_check(ctx: Context) -> Iterator[Finding]:
    """A review_by on or before the review's own date makes the claim expired the moment it is sealed."""
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        if not isinstance(verification, dict):
            continue
        checked_at, review_by = verification.get("checked_at"), verification.get("review_by")
        if is_valid_date(checked_at) and is_valid_date(review_by) and str(review_by) <= str(checked_at):
            yield (
                "CE407",
                ("claims", i, "verification", "review_by"),
                review_by_not_after(str(review_by), str(checked_at)),
                "error",
            )


def review_by_not_after(
    review_by: str, checked_at: str, names: tuple[str, str] = ("review_by", "checked_at"), fix: str = ""
) -> str:
    """CE407's message; ``names`` are how the caller calls the two dates (``--review-by`` for ``review record``)."""
    fix = fix or f"set {names[0]} to a date after {checked_at}, or remove it"
    return (
        f"{names[0]} {review_by} is not after {names[1]} {checked_at}: a review due on or before the day it was made "
        f"would show the claim as expired at once; {fix}"
    )


def fingerprint(ctx: Context) -> Iterator[Finding]:
    fingerprints = ClaimFingerprints(ctx.sources)
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        if isinstance(verification, dict) and verification.get("fingerprint") != fingerprints.of(claim):
            message = "review fingerprint does not match current statement/conditions/sources"
            recorded = verification.get("fingerprint")
            if isinstance(recorded, str) and matches_with_numbers_rewritten(claim, ctx.sources, recorded):
                message += (
                    ", but only because JSON numbers were rewritten (12.0 written as 12, or the reverse): a build tool "
                    "reformatted the bundle (hugo --minify, jsonify); keep the bundle script's JSON as it was written"
                )
            yield "CE403", ("claims", i, "verification", "fingerprint"), message, "error"


def operator_measurement(ctx: Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        if claim.get("basis") != "operator_measurement":
            continue
        measurement = claim.get("measurement")
        complete = (
            isinstance(measurement, dict)
            and all(isinstance(measurement.get(k), str) and measurement[k].strip() for k in ("environment", "method"))
            and safe_http_url(measurement.get("results_url"))
        )
        if not complete:
            message = "operator measurement requires environment, method and results URL"
            yield "CE312", ("claims", i, "measurement"), message, "error"


def subject(ctx: Context) -> Iterator[Finding]:
    recorded = ctx.bundle.get("subject_fingerprint")
    if ctx.subject is None:
        return
    if recorded is None:
        yield "CE105", ("subject_fingerprint",), "article metadata requires a reviewed subject fingerprint", "error"
    elif (
        isinstance(recorded, str)
        and FINGERPRINT_RE.fullmatch(recorded)
        and recorded != article_fingerprint(ctx.subject)
    ):
        yield "CE106", ("subject_fingerprint",), "article text differs from the reviewed subject", "error"


def published_after_check(ctx: Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        checked_at = verification.get("checked_at") if isinstance(verification, dict) else None
        if not is_valid_date(checked_at):
            continue
        for j, ref in refs(claim):
            sid = ref.get("source_id") if isinstance(ref, dict) else None
            index = ctx.source_ids.get(sid) if isinstance(sid, str) else None
            published = ctx.sources[index].get("published_at") if index is not None else None
            if isinstance(published, str) and is_valid_date(published) and published > str(checked_at):
                message = f"source published {published}, after the review on {checked_at}: was it really read?"
                yield "CE903", ("claims", i, "source_refs", j), message, "warning"
