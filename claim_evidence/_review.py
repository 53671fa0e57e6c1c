"""Recording a review: the only code that stores a fingerprint.

The reviewer says which claim they checked, how and when; the fingerprint is
computed from the record as it stands now. Nothing here reads the clock.
"""
from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass
from typing import Any

from ._atomic import atomic_write_bytes
from ._diagnostics import CLEARED_BY_REVIEW, ClaimEvidenceError, Diagnostic, EvidenceValidationError, InputError
from ._documents import ARTICLE_KEY, is_page
from ._fingerprint import article_fingerprint, claim_fingerprint
from ._jsonio import decode_utf8, loads
from ._page import replace_bundle
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


def write_bundle_file(path: str | os.PathLike[str], bundle: dict[str, Any]) -> bool:
    """Store ``bundle`` back into the file it came from; return whether it changed.

    A JSON file keeps its style: key order (dicts are ordered), indentation,
    line endings, the trailing newline, ASCII escaping and a BOM. A static page
    changes only inside script#claim-evidence-data (re-serialized with ``<``
    escaped); its body and slots are untouched, so ``static-helper --write``
    re-renders the slot afterwards. An unchanged file is not rewritten.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(Diagnostic("CE001", f"cannot read file: {exc.strerror or exc}", file=name)) from None
    original = decode_utf8(data, name)
    if is_page(name):
        text = replace_bundle(original, bundle)
    else:
        value = loads(original, name).value
        text = dumps_like({**value, ARTICLE_KEY: bundle} if isinstance(value, dict) and ARTICLE_KEY in value else bundle, original)
    if text == original:
        return False
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    atomic_write_bytes(name, bom + text.encode("utf-8"))
    return True


_INDENT = re.compile(r"^[{\[][ \t]*\r?\n([ \t]+)\S")


def dumps_like(value: Any, original: str) -> str:
    """Serialize ``value`` the way ``original`` looks (as far as JSON allows)."""
    newline = "\r\n" if "\r\n" in original else "\n"
    match = _INDENT.match(original.lstrip())
    indent: str | int | None = match.group(1) if match else (None if "\n" not in original.strip() else 2)
    ascii_only = original.isascii() and "\\u" in original
    separators = (",", ": ") if indent is not None or ", " in original else (",", ":")
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=separators)
    if newline != "\n":
        text = text.replace("\n", newline)
    trailing = original[len(original.rstrip("\r\n")) :]
    return text + trailing
