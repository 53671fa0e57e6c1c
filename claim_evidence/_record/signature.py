"""What a review signature covers, and a site's settings for verifying one (``[reviews]``).

A signature (``verification.signature``: ``{"signer", "sig"}``) is an SSH signature over
:func:`review_message`: the claim id, its fingerprint, ``status``, ``checked_at``, ``method``,
``review_by`` and the signer, as one line of canonical JSON. The fingerprint covers the record; the
signature adds who approved it and the review's own values, which the fingerprint leaves out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._core.diagnostics import Severity

SIGNATURE_KEY = "signature"
MESSAGE_VERSION = "claim-evidence review signature v1"
# What require_signature's values make of an unsigned review.
REQUIRE_SEVERITIES: dict[Any, Severity] = {False: "note", True: "warning", "error": "error"}


def review_message(claim_id: str, verification: Mapping[str, Any], status: Any, signer: str) -> bytes:
    """The bytes a review signature signs: every value it vouches for, in fixed order, as canonical JSON
    (sorted keys, no spaces, UTF-8): a value of another type or an added field is another message."""
    values = {
        "v": MESSAGE_VERSION,
        "claim": claim_id,
        "fingerprint": verification.get("fingerprint"),
        "status": status,
        "checked_at": verification.get("checked_at"),
        "method": verification.get("method"),
        "review_by": verification.get("review_by"),
        "signer": signer,
    }
    return json.dumps(values, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def claim_message(claim: Mapping[str, Any], signer: str) -> bytes:
    """:func:`review_message` of a claim record as it stands."""
    verification = claim.get("verification")
    return review_message(
        str(claim.get("id")), verification if isinstance(verification, Mapping) else {}, claim.get("status"), signer
    )


def signature_of(claim: Any) -> Mapping[str, Any] | None:
    """The claim's recorded signature object, None when it has none."""
    verification = claim.get("verification") if isinstance(claim, Mapping) else None
    found = verification.get(SIGNATURE_KEY) if isinstance(verification, Mapping) else None
    return found if isinstance(found, Mapping) else None


@dataclass(frozen=True)
class Reviews:
    """The ``[reviews]`` table of ``claim-evidence.toml``: whom the site trusts to sign reviews.

    Strings and tuples only: page options are part of cache keys, and ``digest`` (of the allowed_signers
    bytes) makes an edit of that file change them.
    """

    allowed_signers: str | None = None  # absolute path; None: signatures are not verified (CE415 note)
    shown: str = ""  # the path as the config names it, for messages
    digest: str = ""
    require: tuple[tuple[str, Severity], ...] = ()  # per basis: what an unsigned review is (note, warning, error)
    require_all: Severity = "note"  # for a basis the table leaves out
    show_signer: bool = False  # the block and the Cited Sources name the signer

    def unsigned_severity(self, basis: Any) -> Severity:
        """What a review without a signature is on this site, for a claim of ``basis``."""
        return dict(self.require).get(basis, self.require_all) if isinstance(basis, str) else self.require_all
