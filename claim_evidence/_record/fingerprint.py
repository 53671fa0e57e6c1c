"""Canonical JSON and the review fingerprints.

Bit-compatible with bundles sealed by the existing system: changing anything
here invalidates every seal in the wild, so the vectors in ``schemas/`` and
``../shared/vectors`` pin it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from typing import Any

from .._core.diagnostics import Diagnostic, EvidenceValidationError, json_path
from .._core.normalize import normalized_text

CLAIM_FIELDS = ("statement", "evidence_label", "basis", "conditions", "as_of", "uncertainty", "measurement")
ARTICLE_FIELDS = ("title", "tldr", "summary")


_OPTIONS: dict[str, Any] = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
# json.dumps with these options builds an encoder per call and has the C encoder note every container
# it enters, to refuse a cycle: a seventh of a fingerprint's cost. The one encoder below skips both; a
# cycle then recurses until RecursionError, and json.dumps, asked again, gives the answer it always gave.
_CANONICAL = json.JSONEncoder(check_circular=False, **_OPTIONS)


def canonical(value: Any) -> bytes:
    """The exact bytes hashed: sorted keys, no spaces, raw UTF-8, Python float repr."""
    return _canonical_text(value).encode("utf-8")


def _canonical_text(value: Any) -> str:
    # What the encoder writes of a string, of null and of a list of strings (most of a payload's values),
    # without a call into it: each such call makes an encoder.
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if value is None:
        return "null"
    if kind is list and all(type(item) is str for item in value):
        return f"[{','.join(map(_STRING, value))}]"
    try:
        return _CANONICAL.encode(value)
    except RecursionError:  # a cycle (ValueError from json.dumps) or nesting past Python's recursion limit
        return json.dumps(value, **_OPTIONS)


_STRING = json.encoder.encode_basestring  # (the encoder's own, for ensure_ascii=False)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def claim_payload(claim: Mapping[str, Any], sources: Any) -> dict[str, Any]:
    """What a review covers: wording, conditions and every cited source record.

    ``status``, ``label``, ``id`` and ``verification`` are deliberately left out:
    the fingerprint binds the review to the text, not to its outcome.
    """
    source_map = _source_map(sources)
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
    """SHA-256 of the canonical claim payload (see SCHEMA.md, "Fingerprints").

    :class:`EvidenceValidationError` (CE007/CE008) for a value no canonical JSON can hold: a lone
    surrogate cannot be encoded as UTF-8, and an integer past Python's int-to-str limit cannot be
    written. Those never hash, so nothing that hashed before changes."""
    return ClaimFingerprints(sources).of(claim)


class ClaimFingerprints:
    """:func:`claim_fingerprint` of the claims of one bundle: its sources' map is made once, and each
    cited source's canonical JSON written once, where hashing each claim's payload wrote a source again
    for every reference to it (a bundle's claims cite a few sources over and over: some two fifths of
    the bytes hashed).

    The payload's canonical text is written here a member at a time, in the order its sorted keys give,
    each value by the same encoder: the text :func:`canonical` writes of :func:`claim_payload` (the
    encoder is the same for a value wherever it sits), which ``tests/unit/record/test_fingerprint.py``
    holds on random claims and sources, and the vectors pin."""

    def __init__(self, sources: Any) -> None:
        self.given = sources
        self.sources = _source_map(sources)
        self.texts: dict[str, str] = {}

    def of(self, claim: Mapping[str, Any]) -> str:
        try:
            return hashlib.sha256(self._payload_text(claim).encode("utf-8")).hexdigest()
        except (UnicodeEncodeError, ValueError) as exc:
            raise _unhashable({"claim": claim, "sources": self.given}) or exc from None

    def _payload_text(self, claim: Mapping[str, Any]) -> str:
        members = []
        for field in _PAYLOAD_ORDER:
            if field == "source_refs":
                refs = claim.get("source_refs")
                cited = [
                    f'{{"reference":{_canonical_text(ref)},"source":{self._source_text(ref)}}}'
                    for ref in (refs if isinstance(refs, list) else [])
                    if _is_mapping(ref)
                ]
                text = f"[{','.join(cited)}]"
            elif field == "statement":
                text = _STRING(normalized_text(claim.get(field)))
            else:
                text = _canonical_text(claim.get(field))
            members.append(f'"{field}":{text}')
        return f"{{{','.join(members)}}}"

    def _source_text(self, ref: Mapping[str, Any]) -> str:
        sid = str(ref.get("source_id"))
        text = self.texts.get(sid)
        if text is None:
            text = self.texts[sid] = _canonical_text(self.sources.get(sid))
        return text


# The payload's keys as canonical JSON sorts them.
_PAYLOAD_ORDER = tuple(sorted((*CLAIM_FIELDS, "source_refs")))


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _source_map(sources: Any) -> dict[str, Any]:
    """The sources by id (the last of a repeated id), as a payload finds a reference's source."""
    return {
        s["id"]: s
        for s in (sources if isinstance(sources, list) else [])
        if _is_mapping(s) and isinstance(s.get("id"), str)
    }


def article_fingerprint(item: Mapping[str, Any]) -> str:
    """SHA-256 over the normalized title, tldr and summary an editor reviewed (errors as for
    :func:`claim_fingerprint`)."""
    try:
        return digest({field: normalized_text(item.get(field)) for field in ARTICLE_FIELDS})
    except (UnicodeEncodeError, ValueError) as exc:
        raise _unhashable({field: item.get(field) for field in ARTICLE_FIELDS}) or exc from None


def _unhashable(parts: dict[str, Any]) -> EvidenceValidationError | None:
    """The finding for what made canonical JSON fail, with its path among the arguments
    (``$.claim.statement``, ``$.sources[0].title``); None for anything else: a bug, raised as it is."""
    from .._core.jsonio import hostile_value  # (jsonio is the reader; the hash needs it only here)

    problem = hostile_value(parts)
    if problem is None:
        return None
    code, path, message = problem
    return EvidenceValidationError([Diagnostic(code, f"{message}: no fingerprint", json_path(path))])


# Up to this many whole numbers are tried one subset at a time (2**8 digests); more, only all at once.
_NUMBER_SUBSETS = 8
_LARGEST_FLOAT = int(sys.float_info.max)


def matches_with_numbers_rewritten(claim: Mapping[str, Any], sources: Any, recorded: str) -> bool:
    """True when ``recorded`` is the fingerprint the claim would have if some of its whole numbers were
    written as floats again (``12`` back to ``12.0``) or its integral floats as integers.

    Build tools rewrite JSON numbers (``hugo --minify``, Hugo's ``jsonify``) while canonical JSON keeps
    ``12`` and ``12.0`` apart: the seal then breaks although nobody changed the record. Knowing that
    turns a misleading "the statement changed" into the real cause.
    """
    payload = claim_payload(claim, sources)
    spots = list(_whole_numbers(payload, ()))
    if not spots:
        return False
    candidates: list[list[tuple[tuple[Any, ...], Any]]] = [
        [(path, float(value) if isinstance(value, int) else int(value)) for path, value in spots]
    ]
    if len(spots) <= _NUMBER_SUBSETS:
        candidates = [
            [
                (path, float(value) if isinstance(value, int) else int(value))
                for bit, (path, value) in enumerate(spots)
                if mask >> bit & 1
            ]
            for mask in range(1, 1 << len(spots))
        ]
    for changes in candidates:
        if digest(_with(payload, changes)) == recorded:
            return True
    return False


def _whole_numbers(value: Any, path: tuple[Any, ...]) -> Any:
    """(path, number) of every int (not bool) and integral float in ``value``."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > _LARGEST_FLOAT:
        return  # no float was ever written for it (validation reports it: CE008)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 2**53):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _whole_numbers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _whole_numbers(item, (*path, index))


def _with(value: Any, changes: list[tuple[tuple[Any, ...], Any]]) -> Any:
    copied = json.loads(json.dumps(value))
    for path, new in changes:
        node = copied
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = new
    return copied
