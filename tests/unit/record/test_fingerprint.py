from __future__ import annotations

import json
from pathlib import Path

import pytest

from claim_evidence import article_fingerprint, claim_fingerprint, normalized_text
from claim_evidence._record.fingerprint import canonical, claim_payload

from ...conftest import ROOT, SEED_FINGERPRINT, SEED_SUBJECT_FINGERPRINT

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
