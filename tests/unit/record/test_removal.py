"""Removing a claim, a reference or a source: judged like every edit, a source still cited kept, and the
review a removal undoes named (a removed claim's own review is gone, not undone)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from claim_evidence import iter_diagnostics, validate_bundle
from claim_evidence._record.authoring import AuthoringError, EditRefused, add_claim, add_ref, add_source
from claim_evidence._record.removal import remove_claim, remove_ref, remove_source

from ...conftest import SEED_FINGERPRINT
from .test_authoring import fingerprints

UNDONE = (
    "this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review record FILE "
    "--claim fictional-rate …"
)


def _two_claims(bundle: dict[str, Any]) -> dict[str, Any]:
    return add_claim(bundle, "second", "二つ目の主張。", basis="reporting").bundle


def test_removal_claim_leaves_the_others_and_undoes_no_review(bundle: dict) -> None:
    two = _two_claims(bundle)
    change = remove_claim(two, "second")
    assert change.bundle == bundle and change.notes == ()
    gone = remove_claim(two, "fictional-rate")
    assert [c["id"] for c in gone.bundle["claims"]] == ["second"]
    assert gone.notes == (
        "source fictional-vendor-doc is cited by no claim now (CE902): claim-evidence source remove FILE --id "
        "fictional-vendor-doc, if it is no longer needed",
    )
    assert fingerprints(gone.bundle) == [] and [c["id"] for c in two["claims"]] == ["fictional-rate", "second"]


def test_removal_last_claim_is_refused_with_ce103(bundle: dict) -> None:
    with pytest.raises(EditRefused) as caught:
        remove_claim(bundle, "fictional-rate")
    assert [f"{d.path}: {d.code} {d.message}" for d in caught.value.diagnostics] == [
        "$.claims: CE103 sources list and nonempty claims list required: claims must be a non-empty array of claim "
        "objects (found an empty array)"
    ]


def test_removal_unknown_ids_list_the_known_ones(bundle: dict) -> None:
    with pytest.raises(AuthoringError) as caught:
        remove_claim(bundle, "nope")
    assert str(caught.value) == "no single claim with id 'nope' (claims: fictional-rate)"
    with pytest.raises(AuthoringError) as caught:
        remove_source(bundle, "nope")
    assert str(caught.value) == (
        "no source with id 'nope' (sources: fictional-vendor-doc); add it with claim-evidence source add"
    )
    with pytest.raises(AuthoringError) as caught:
        remove_ref(bundle, "fictional-rate", "nope")
    assert str(caught.value) == "claim fictional-rate cites no source 'nope' (it cites: fictional-vendor-doc)"
    uncited = _two_claims(bundle)
    with pytest.raises(AuthoringError) as caught:
        remove_ref(uncited, "second", "fictional-vendor-doc")
    assert str(caught.value) == "claim second cites no source 'fictional-vendor-doc' (it cites none)"


def test_removal_ref_undoes_the_review_and_says_what_is_left(bundle: dict) -> None:
    change = remove_ref(bundle, "fictional-rate", "fictional-vendor-doc")
    assert change.bundle["claims"][0]["source_refs"] == []
    assert change.notes == (
        UNDONE,
        "claim fictional-rate cites no source now, and its status matched asserts a review (CE311 until it cites one "
        "again, or claim-evidence claim set FILE --claim fictional-rate --status unverified)",
        "source fictional-vendor-doc is cited by no claim now (CE902): claim-evidence source remove FILE --id "
        "fictional-vendor-doc, if it is no longer needed",
    )
    assert sorted(d.code for d in iter_diagnostics(change.bundle) if d.is_error) == ["CE311", "CE403"]
    assert fingerprints(change.bundle) == [SEED_FINGERPRINT]  # never refreshed, never dropped


def test_removal_ref_removes_every_reference_to_that_source(bundle: dict) -> None:
    twice = add_ref(bundle, "fictional-rate", "fictional-vendor-doc", "表 2", "値").bundle
    twice = add_source(twice, "other", "https://example.com/o", "P", "T").bundle
    twice = add_ref(twice, "fictional-rate", "other", "本文", "値").bundle
    change = remove_ref(twice, "fictional-rate", "fictional-vendor-doc")
    assert [r["source_id"] for r in change.bundle["claims"][0]["source_refs"]] == ["other"]
    assert change.notes == (
        "claim fictional-rate cited fictional-vendor-doc 2 times: all are removed",
        "source fictional-vendor-doc is cited by no claim now (CE902): claim-evidence source remove FILE --id "
        "fictional-vendor-doc, if it is no longer needed",
    )


def test_removal_source_refused_while_cited_naming_each_claim(bundle: dict) -> None:
    with pytest.raises(AuthoringError) as caught:
        remove_source(bundle, "fictional-vendor-doc")
    assert str(caught.value) == (
        "source fictional-vendor-doc is cited by claim fictional-rate: remove that reference first "
        "(claim-evidence ref remove FILE --claim fictional-rate --source fictional-vendor-doc)"
    )
    two = add_ref(_two_claims(bundle), "second", "fictional-vendor-doc", "S", "T").bundle
    with pytest.raises(AuthoringError) as caught:
        remove_source(two, "fictional-vendor-doc")
    assert str(caught.value) == (
        "source fictional-vendor-doc is cited by claims fictional-rate, second: remove those references first "
        "(claim-evidence ref remove FILE --claim fictional-rate --source fictional-vendor-doc; claim-evidence ref "
        "remove FILE --claim second --source fictional-vendor-doc)"
    )


def test_removal_source_uncited_goes_and_changes_no_seal(bundle: dict) -> None:
    extra = add_source(bundle, "other", "https://example.com/o", "P", "T").bundle
    change = remove_source(extra, "other")
    assert change.bundle == bundle and change.notes == ()
    assert validate_bundle(change.bundle) == []


def test_removal_refuses_a_record_of_the_wrong_shape(bundle: dict) -> None:
    broken = copy.deepcopy(bundle)
    broken["claims"][0]["source_refs"] = "fictional-vendor-doc"
    with pytest.raises(AuthoringError) as caught:
        remove_ref(broken, "fictional-rate", "fictional-vendor-doc")
    assert str(caught.value) == (
        "claim fictional-rate's source_refs is not a list; fix it (claim-evidence validate FILE) first"
    )
    with pytest.raises(AuthoringError, match="^the file's bundle has no sources and claims lists"):
        remove_claim({"version": 1, "claims": {}, "sources": []}, "x")
