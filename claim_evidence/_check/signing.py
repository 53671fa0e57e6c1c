"""The review signatures of a bundle, verified against the site's ``allowed_signers`` (CE411-CE415).

A site check (:mod:`.sitechecks`): it depends on the site's ``[reviews]`` table, not on the record
alone. Each signature is checked over the values it covers (:func:`claim_message`), then for its
signer and for the day of the review (``checked_at``: as git dates a commit's signature, so a key
retired with ``valid-before`` keeps the reviews it signed before that day). Offline, no private key.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from .._core.diagnostics import Diagnostic, json_path
from .._core.sshsig import NAMESPACE, verify
from .._record.signature import Reviews, claim_message, signature_of

SIGNATURE_INVALID = "CE411"
SIGNER_UNKNOWN = "CE412"
KEY_NOT_VALID = "CE413"
UNSIGNED = "CE414"
NOT_VERIFIED = "CE415"
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_VALUES = "claim id, fingerprint, status, checked_at, method, review_by, signer"


def signing_diagnostics(bundle: Any, reviews: Reviews | None, file: str | None) -> list[Diagnostic]:
    """The findings on every review signature of ``bundle`` (and on each review left unsigned, when the
    site has a ``[reviews]`` table); ``file`` is the file holding the records, for the commands named."""
    claims = bundle.get("claims") if isinstance(bundle, Mapping) else None
    if not isinstance(claims, list):
        return []
    return [d for i, claim in enumerate(claims) if isinstance(claim, Mapping) for d in _claim(i, claim, reviews, file)]


def _claim(index: int, claim: Mapping[str, Any], reviews: Reviews | None, file: str | None) -> Iterator[Diagnostic]:
    verification = claim.get("verification")
    if not isinstance(verification, Mapping) or not isinstance(claim.get("id"), str):
        return
    found = signature_of(claim)
    if found is None and reviews is None:
        return  # (the common case: nothing signed, nothing asked; no message made)
    claim_id = claim["id"]
    subject = f"claim {claim_id}"
    at = ("claims", index, "verification")
    target = shlex.quote(file or "FILE")
    sign = f"claim-evidence review sign {target} --claim {shlex.quote(claim_id)}"
    if found is None:
        if reviews is not None and "signature" not in verification and isinstance(verification.get("fingerprint"), str):
            severity = reviews.unsigned_severity(claim.get("basis"))
            message = (
                f"the review of claim {claim_id} is not signed: nobody vouches for its status, "
                f"checked_at and method; sign it with {sign} (the reviewer's SSH key; --key PATH)"
            )
            yield Diagnostic(UNSIGNED, message, json_path(at), severity, subject)
        return
    signer, armored = found.get("signer"), found.get("sig")
    if not isinstance(signer, str) or not isinstance(armored, str):
        return  # CE410: the schema's
    where = json_path((*at, "signature"))
    if reviews is None or reviews.allowed_signers is None:
        message = (
            f"the signature of {signer} was not verified: no allowed_signers to verify it against; set "
            f'[reviews] allowed_signers = "PATH" in claim-evidence.toml (validate: --config FILE)'
        )
        yield Diagnostic(NOT_VERIFIED, message, where, "note", subject)
        return
    checked_at = verification.get("checked_at")
    day = checked_at if isinstance(checked_at, str) and _DATE.fullmatch(checked_at) else None
    verdict = verify(claim_message(claim, signer), armored, signer, reviews.allowed_signers, day)
    record = (
        f"read the sources again and record the review with claim-evidence review record {target} "
        f"--claim {shlex.quote(claim_id)} --method … --checked-at … --sign"
    )
    if verdict.outcome == "missing":
        message = (
            f"the signature of {signer} cannot be verified: ssh-keygen not found on PATH; install OpenSSH's "
            "ssh-keygen (git's SSH signing uses the same), or set CLAIM_EVIDENCE_SSH_KEYGEN to its path"
        )
        yield Diagnostic(NOT_VERIFIED, message, where, "error", subject)
    elif verdict.outcome == "bad" and verdict.other_namespace:
        message = (
            f"the signature of {signer} was made for another namespace than {NAMESPACE} (a key's git or "
            f"file signature is no review signature); sign the review with {sign}"
        )
        yield Diagnostic(SIGNATURE_INVALID, message, where, "error", subject)
    elif verdict.outcome == "bad":
        message = (
            f"the signature of {signer} does not match this review ({_VALUES}): a value was changed after "
            f"signing, or the signature was copied from another claim; {record}"
        )
        yield Diagnostic(SIGNATURE_INVALID, message, where, "error", subject)
    elif verdict.outcome == "unknown":
        line = f" (line {verdict.line} allows the key for other namespaces only)" if verdict.line else ""
        message = (
            f"signer {signer} is not allowed by {reviews.shown}: no line there allows this key for {signer} "
            f'in the namespace {NAMESPACE}{line}; add `{signer} namespaces="{NAMESPACE}" KEY` (the public key) '
            f"to it if {signer} is to be trusted, else sign again with {sign} --key PATH"
        )
        yield Diagnostic(SIGNER_UNKNOWN, message, where, "error", subject)
    elif verdict.outcome == "expired":
        message = (
            f"the key {signer} signed with was not valid on checked_at {day} ({reviews.shown} line {verdict.line}: "
            f"valid-before/valid-after): a retired or revoked key; {record} --key PATH (a current key)"
        )
        yield Diagnostic(KEY_NOT_VALID, message, where, "error", subject)


# Every code this module reports: what a (re-)signing replaces, so never a reason to refuse one.
SIGNING_CODES = frozenset({"CE410", SIGNATURE_INVALID, SIGNER_UNKNOWN, KEY_NOT_VALID, UNSIGNED, NOT_VERIFIED})
