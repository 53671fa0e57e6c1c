"""Canonical JSON and the review fingerprints.

Bit-compatible with bundles sealed by the existing system: changing anything
here invalidates every seal in the wild, so the vectors in ``schemas/`` and
``../shared/vectors`` pin it.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

CLAIM_FIELDS = ("statement", "evidence_label", "basis", "conditions", "as_of", "uncertainty", "measurement")
ARTICLE_FIELDS = ("title", "tldr", "summary")

_WHITESPACE = re.compile(r"\s+")


def normalized_text(value: Any) -> str:
    """Fold every run of Unicode whitespace (U+3000 included) to one space, strip."""
    return _WHITESPACE.sub(" ", str(value or "")).strip()


def canonical(value: Any) -> bytes:
    """The exact bytes hashed: sorted keys, no spaces, raw UTF-8, Python float repr."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def claim_payload(claim: Mapping[str, Any], sources: Any) -> dict[str, Any]:
    """What a review covers: wording, conditions and every cited source record.

    ``status``, ``label``, ``id`` and ``verification`` are deliberately left out:
    the fingerprint binds the review to the text, not to its outcome.
    """
    source_map = {
        s["id"]: s
        for s in (sources if isinstance(sources, list) else [])
        if isinstance(s, Mapping) and isinstance(s.get("id"), str)
    }
    refs = claim.get("source_refs")
    payload: dict[str, Any] = {field: claim.get(field) for field in CLAIM_FIELDS}
    payload["statement"] = normalized_text(payload["statement"])
    payload["source_refs"] = [
        {"reference": ref, "source": source_map.get(str(ref.get("source_id")))}
        for ref in (refs if isinstance(refs, list) else [])
        if isinstance(ref, Mapping)
    ]
    return payload


def claim_fingerprint(claim: Mapping[str, Any], sources: Any) -> str:
    """SHA-256 of the canonical claim payload (see SCHEMA.md, "Fingerprints")."""
    return digest(claim_payload(claim, sources))


def article_fingerprint(item: Mapping[str, Any]) -> str:
    """SHA-256 over the normalized title, tldr and summary an editor reviewed."""
    return digest({field: normalized_text(item.get(field)) for field in ARTICLE_FIELDS})
