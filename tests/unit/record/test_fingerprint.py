from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claim_evidence import article_fingerprint, claim_fingerprint, normalized_text
from claim_evidence._core.diagnostics import EvidenceValidationError
from claim_evidence._record.fingerprint import CLAIM_FIELDS, ClaimFingerprints, canonical, claim_payload

from ...conftest import ROOT, SEED_FINGERPRINT, SEED_SUBJECT_FINGERPRINT
from .test_properties import sealed_bundles

PROJECT_VECTORS = json.loads((ROOT / "schemas" / "fingerprint-vectors.json").read_text(encoding="utf-8"))


def _shared_vectors(shared: Path) -> dict:
    return json.loads((shared / "vectors" / "fingerprint-vectors.json").read_text(encoding="utf-8"))


def test_fingerprint_matches_every_shared_claim_vector(shared: Path) -> None:
    vectors = _shared_vectors(shared)["claims"]
    assert len(vectors) >= 11
    for vector in vectors:
        assert claim_fingerprint(vector["claim"], vector["sources"]) == vector["fingerprint"], vector["name"]


def test_fingerprint_matches_every_shared_article_vector(shared: Path) -> None:
    for vector in _shared_vectors(shared)["articles"]:
        assert article_fingerprint(vector["item"]) == vector["fingerprint"], vector["name"]


@pytest.mark.parametrize("vector", PROJECT_VECTORS["claims"], ids=lambda v: v["name"])
def test_fingerprint_project_vectors_canonical_text_and_digest(vector: dict) -> None:
    assert canonical(claim_payload(vector["claim"], vector["sources"])).decode("utf-8") == vector["canonical"]
    assert claim_fingerprint(vector["claim"], vector["sources"]) == vector["fingerprint"]


def test_fingerprint_project_vectors_include_every_shared_vector(shared: Path) -> None:
    ours = {v["name"]: v["fingerprint"] for v in PROJECT_VECTORS["claims"]}
    for vector in _shared_vectors(shared)["claims"]:
        assert ours[vector["name"]] == vector["fingerprint"]


def test_fingerprint_seed_example_literal(bundle: dict, subject: dict) -> None:
    claim = bundle["claims"][0]
    assert claim_fingerprint(claim, bundle["sources"]) == SEED_FINGERPRINT
    assert article_fingerprint(subject) == SEED_SUBJECT_FINGERPRINT


def test_fingerprint_ignores_status_label_id_and_verification(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim.update(status="conflict", label="別", id="other", verification={"x": 1})
    assert claim_fingerprint(claim, bundle["sources"]) == SEED_FINGERPRINT


@pytest.mark.parametrize(
    "field, value",
    [
        ("statement", "架空ベンダーは固定条件で達成率72.7%と公表した。"),
        ("conditions", ["架空の固定ベンチマーク"]),
        ("basis", "independent_measurement"),
        ("evidence_label", "Fact"),
        ("as_of", "2026-09-04"),
        ("uncertainty", ""),
        ("measurement", {}),
    ],
)
def test_fingerprint_changes_with_each_covered_field(bundle: dict, field: str, value: object) -> None:
    claim = bundle["claims"][0]
    claim[field] = value
    assert claim_fingerprint(claim, bundle["sources"]) != SEED_FINGERPRINT


def test_fingerprint_changes_with_cited_source_record(bundle: dict) -> None:
    bundle["sources"][0]["title"] = "改題"
    assert claim_fingerprint(bundle["claims"][0], bundle["sources"]) != SEED_FINGERPRINT


def test_fingerprint_unaffected_by_uncited_source(bundle: dict) -> None:
    bundle["sources"].append({"id": "other", "publisher": "p", "title": "t", "url": "https://e.com"})
    assert claim_fingerprint(bundle["claims"][0], bundle["sources"]) == SEED_FINGERPRINT


def test_fingerprint_statement_whitespace_is_folded(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["statement"] = "\u3000架空ベンダーは固定条件で達成率72.6%と公表した。\n"
    assert claim_fingerprint(claim, bundle["sources"]) == SEED_FINGERPRINT


def test_fingerprint_non_list_refs_and_sources_tolerated() -> None:
    claim = {"statement": "x", "basis": "editorial", "source_refs": "junk"}
    assert claim_fingerprint(claim, None) == claim_fingerprint({**claim, "source_refs": []}, [])


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, ""),
        ("", ""),
        (0, ""),
        (" a\u3000\tb\n", "a b"),
        (12, "12"),
        ("a\u2028\u2029b", "a b"),
        ("x\u00a0y", "x y"),
    ],
)
def test_normalized_text_folds_unicode_whitespace(value: object, expected: str) -> None:
    assert normalized_text(value) == expected


def test_canonical_exact_bytes() -> None:
    assert canonical({"b": [1, 2.5], "a": "é<"}) == '{"a":"é<","b":[1,2.5]}'.encode()


def test_fingerprint_ignores_malformed_source_entries(bundle: dict) -> None:
    claim, sources = bundle["claims"][0], bundle["sources"]
    expected = claim_fingerprint(claim, sources)
    assert claim_fingerprint(claim, ["junk", 7, {"id": 5}, *sources]) == expected
    assert claim_fingerprint(claim, {"not": "a list"}) == claim_fingerprint(claim, [])


def test_fingerprint_source_refs_not_a_list_cover_no_sources(bundle: dict) -> None:
    claim, sources = bundle["claims"][0], bundle["sources"]
    empty = claim_fingerprint(dict(claim, source_refs=[]), sources)
    assert claim_fingerprint(dict(claim, source_refs=None), sources) == empty
    assert claim_fingerprint(dict(claim, source_refs="abc"), sources) == empty
    assert empty != claim_fingerprint(claim, sources)


# --- canonical JSON against SCHEMA.md "Fingerprints", written out here -------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _spec_string(text: str) -> str:
    """A string as SCHEMA.md says: the seven short escapes, ``\\u00XX`` for the other C0 controls, the rest raw."""
    return '"' + "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in text) + '"'


def _spec_canonical(value: Any) -> str:
    """Canonical JSON from the spec alone: keys by code point, no whitespace, floats as repr."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value)
    if isinstance(value, str):
        return _spec_string(value)
    if isinstance(value, list):
        return "[" + ",".join(_spec_canonical(item) for item in value) + "]"
    return "{" + ",".join(f"{_spec_string(k)}:{_spec_canonical(value[k])}" for k in sorted(value)) + "}"


def _spec_fingerprint(claim: dict[str, Any], sources: Any) -> str:
    """claim_fingerprint's five steps as SCHEMA.md lists them."""
    source_map = {}
    for source in sources if isinstance(sources, list) else []:
        if isinstance(source, dict) and isinstance(source.get("id"), str):
            source_map[source["id"]] = source
    payload = {f: claim.get(f) for f in CLAIM_FIELDS}
    payload["statement"] = re.sub(r"\s+", " ", str(payload["statement"] or "")).strip()
    refs = claim.get("source_refs")
    payload["source_refs"] = [
        {"reference": ref, "source": source_map.get(str(ref.get("source_id")))}
        for ref in (refs if isinstance(refs, list) else [])
        if isinstance(ref, dict)
    ]
    return hashlib.sha256(_spec_canonical(payload).encode("utf-8")).hexdigest()


# Every character class the spec names: the escaped ones, the other controls, what stays raw
# (``/``, U+007F, U+2028/2029, non-ASCII, astral), whitespace the statement folds.
_SPEC_TEXT = st.text(
    alphabet=st.sampled_from(list('"\\/\b\f\n\r\t\x00\x1f\x7f\u2028\u2029\u3000\u00a0aZ9 é\uff01\U0001f600'))
    | st.characters(),
    max_size=10,
).filter(lambda s: not any("\ud800" <= c <= "\udfff" for c in s))
_SPEC_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**20, max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1.0, -0.0, 1e16, 1e-07, 1.5e300])
    | _SPEC_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_SPEC_TEXT, children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300)
@given(_SPEC_VALUES)
def test_canonical_is_the_spec_text_for_any_json_value(value: Any) -> None:
    assert canonical(value) == _spec_canonical(value).encode("utf-8")


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(sealed_bundles(), st.dictionaries(st.sampled_from(CLAIM_FIELDS), _SPEC_VALUES, max_size=3))
def test_claim_fingerprint_is_the_spec_fingerprint_for_sealed_and_edited_claims(
    bundle: dict[str, Any], edits: dict[str, Any]
) -> None:
    for claim in bundle["claims"]:
        assert claim_fingerprint(claim, bundle["sources"]) == _spec_fingerprint(claim, bundle["sources"])
        edited = {**claim, **edits}
        assert claim_fingerprint(edited, bundle["sources"]) == _spec_fingerprint(edited, bundle["sources"])


def test_claim_fingerprint_is_the_spec_fingerprint_for_every_shared_vector(shared: Path) -> None:
    for vector in _shared_vectors(shared)["claims"]:
        assert _spec_fingerprint(vector["claim"], vector["sources"]) == vector["fingerprint"], vector["name"]
        assert claim_fingerprint(vector["claim"], vector["sources"]) == vector["fingerprint"], vector["name"]


def test_canonical_refuses_a_cycle_and_too_deep_a_value_as_json_dumps_does() -> None:
    cyclic: dict[str, Any] = {"a": [1]}
    cyclic["a"].append(cyclic)
    with pytest.raises(ValueError, match="^Circular reference detected$"):
        canonical(cyclic)
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit() * 2):
        deep = [deep]
    with pytest.raises(RecursionError):
        canonical(deep)
    assert canonical({"a": [cyclic["a"][0]], "b": [cyclic["a"][0]]}) == b'{"a":[1],"b":[1]}'  # shared, not a cycle


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    sealed_bundles(),
    st.lists(
        st.dictionaries(st.sampled_from(["id", "title", "url", "publisher"]), _SPEC_VALUES, max_size=3), max_size=3
    ),
    st.lists(st.sampled_from(["s1", "None", "missing", 3]), max_size=3),
)
def test_claim_fingerprints_of_a_bundle_are_each_claims_spec_fingerprint(
    bundle: dict[str, Any], more_sources: list[dict[str, Any]], cited: list[Any]
) -> None:
    """One ClaimFingerprints for all the claims of a bundle (each source written once) gives each claim its
    spec fingerprint: with sources sharing an id (the last one counts), odd sources, references to ids no
    source has (``str(None)`` too) and references that are no objects."""
    sources = [*bundle["sources"], *more_sources, {"id": "None", "title": "t"}, "not a source"]
    fingerprints = ClaimFingerprints(sources)
    for claim in bundle["claims"]:
        refs = [*claim.get("source_refs", []), *({"source_id": sid} for sid in cited), None, [1]]
        for variant in (claim, {**claim, "source_refs": refs}):
            assert fingerprints.of(variant) == _spec_fingerprint(variant, sources)
            assert claim_fingerprint(variant, sources) == _spec_fingerprint(variant, sources)


def test_claim_fingerprints_unhashable_named_at_the_sources_path() -> None:
    sources = ["not a source", {"id": "a", "title": "ok"}, {"id": "b", "title": "bad \ud800"}]
    claim = {"statement": "x", "source_refs": [{"source_id": "b"}]}
    with pytest.raises(EvidenceValidationError) as caught:
        ClaimFingerprints(sources).of(claim)
    assert [d.path for d in caught.value.diagnostics] == ["$.sources[2].title"]
