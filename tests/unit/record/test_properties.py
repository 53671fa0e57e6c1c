"""Property tests over random bundles: a covered edit is always caught, and a
bundle with any error is never displayed as 資料との照合済み."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from claim_evidence import claim_fingerprint, render_evidence, validate_bundle
from claim_evidence._record.vocabulary import BASES, EVIDENCE_LABELS, METHODS, STATUSES

MATCHED = "資料との照合済み"
IDS = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,12}", fullmatch=True)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(lambda s: s.strip())
ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
DATES = st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10)
URLS = st.builds(
    lambda host, path: f"https://{host}.example/{path}",
    st.from_regex(r"[a-z]{1,10}", fullmatch=True),
    st.from_regex(r"[a-z0-9/]{0,10}", fullmatch=True),
)


@st.composite
def sealed_bundles(draw: Any) -> dict[str, Any]:
    source_ids = draw(st.lists(IDS, min_size=1, max_size=3, unique=True))
    sources = [
        {
            "id": sid,
            "publisher": draw(TEXT),
            "title": draw(TEXT),
            "url": draw(URLS),
            "published_at": draw(st.none() | DATES),
        }
        for sid in source_ids
    ]
    claims = []
    for cid in draw(st.lists(IDS, min_size=1, max_size=3, unique=True)):
        status = draw(st.sampled_from(STATUSES))
        refs = [
            {"source_id": sid, "section": draw(TEXT), "supports": draw(TEXT)}
            for sid in draw(
                st.lists(st.sampled_from(source_ids), min_size=1 if status != "unverified" else 0, max_size=2)
            )
        ]
        claim = {
            "id": cid,
            "label": draw(st.none() | TEXT),
            "statement": draw(TEXT),
            "evidence_label": draw(st.sampled_from(EVIDENCE_LABELS)),
            "basis": draw(st.sampled_from([b for b in BASES if b != "operator_measurement"])),
            "status": status,
            "source_refs": refs,
            "conditions": draw(st.lists(TEXT, max_size=2)),
            "as_of": draw(st.none() | DATES),
            "uncertainty": draw(st.none() | ANY_TEXT),
        }
        claim["verification"] = {
            "checked_at": draw(DATES),
            "method": draw(st.sampled_from(METHODS)),
            "fingerprint": claim_fingerprint(claim, sources),
        }
        claims.append(claim)
    return {"version": 1, "sources": sources, "claims": claims}


COVERED = ["statement", "evidence_label", "basis", "conditions", "as_of", "uncertainty", "measurement"]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(sealed_bundles(), st.sampled_from(COVERED), st.data())
def test_property_any_covered_edit_is_rejected(bundle: dict[str, Any], field: str, data: Any) -> None:
    assert validate_bundle(bundle) == []
    index = data.draw(st.integers(0, len(bundle["claims"]) - 1))
    claim = bundle["claims"][index]
    replacement = {
        "statement": TEXT,
        "evidence_label": st.sampled_from(EVIDENCE_LABELS),
        "basis": st.sampled_from([b for b in BASES if b != "operator_measurement"]),
        "conditions": st.lists(TEXT, max_size=2),
        "as_of": st.none() | DATES,
        "uncertainty": st.none() | ANY_TEXT,
        "measurement": st.dictionaries(IDS, st.integers(), min_size=1, max_size=2),
    }[field]
    new = data.draw(replacement)
    old = claim.get(field)
    if field == "statement":
        assume(" ".join(new.split()) != " ".join(str(old).split()))
    assume(new != old)
    claim[field] = new
    errors = validate_bundle(bundle)
    assert f"claim {claim['id']}: review fingerprint does not match current statement/conditions/sources" in errors


@settings(max_examples=100)
@given(sealed_bundles(), st.data())
def test_property_cited_source_edit_is_rejected(bundle: dict[str, Any], data: Any) -> None:
    cited = {ref["source_id"] for claim in bundle["claims"] for ref in claim["source_refs"]}
    assume(cited)
    sid = data.draw(st.sampled_from(sorted(cited)))
    source = next(s for s in bundle["sources"] if s["id"] == sid)
    source["title"] = source["title"] + data.draw(TEXT)
    assert any("review fingerprint does not match" in e for e in validate_bundle(bundle))


@settings(max_examples=150)
@given(sealed_bundles(), st.data())
def test_property_invalid_never_renders_matched(bundle: dict[str, Any], data: Any) -> None:
    path = data.draw(
        st.sampled_from(["version", "claims.statement", "sources.url", "claims.verification", "claims.basis"])
    )
    claim = bundle["claims"][0]
    if path == "version":
        bundle["version"] = data.draw(st.integers().filter(lambda v: v != 1))
    elif path == "claims.statement":
        claim["statement"] = claim["statement"] + "!"
    elif path == "sources.url":
        bundle["sources"][0]["url"] = data.draw(
            st.sampled_from(["javascript:alert(1)", "//evil", "data:,x", "https://u:p@h/"])
        )
    elif path == "claims.verification":
        claim["verification"] = data.draw(st.none() | st.just("x") | st.just({}))
        assume(claim["status"] != "unverified" or claim["verification"] != None)  # noqa: E711
    else:
        claim["basis"] = data.draw(ANY_TEXT.filter(lambda b: b not in BASES))
    assume(validate_bundle(bundle))
    # The claims the error concerns: all for the bundle's version, the edited claim, or those citing the source.
    if path == "version":
        concerned = bundle["claims"]
    elif path.startswith("claims"):
        concerned = [claim]
    else:
        sid = bundle["sources"][0]["id"]
        concerned = [c for c in bundle["claims"] if any(r["source_id"] == sid for r in c["source_refs"])]
    unverified = '<span class="claim-evidence-status">未確認・根拠未登録</span>'
    for cid in {c["id"] for c in concerned}:
        html = render_evidence(bundle, [cid])
        count = sum(c["id"] == cid for c in bundle["claims"])
        assert html.count('<span class="claim-evidence-status">') == html.count(unverified) == count
        assert html.count('<p class="claim-evidence-warning">') == count
        assert "<time" not in html


@settings(max_examples=100)
@given(sealed_bundles())
def test_property_render_deterministic_and_pure(bundle: dict[str, Any]) -> None:
    before = json.dumps(bundle, sort_keys=True)
    first = render_evidence(bundle)
    assert render_evidence(copy.deepcopy(bundle)) == first
    assert json.dumps(bundle, sort_keys=True) == before
    assert first.count("<aside") == len(bundle["claims"])
