from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from claim_evidence import (
    Diagnostic,
    EvidenceValidationError,
    claim_fingerprint,
    evidence_review_pending,
    iter_diagnostics,
    require_valid_evidence,
    validate_bundle,
)
from claim_evidence._record.schema import bundle_schema, bundle_validator

from ...conftest import ROOT


def _codes(bundle: Any, subject: Any = None) -> list[tuple[str, str]]:
    return [(d.code, d.path) for d in iter_diagnostics(bundle, subject) if d.is_error]


def test_validation_seed_bundle_is_clean(bundle: dict, subject: dict) -> None:
    """Valid; its one warning is that it was reviewed before quotes existed, so its 72.6 is unchecked."""
    assert [(d.code, d.severity) for d in iter_diagnostics(bundle, subject)] == [("CE905", "warning")]
    assert validate_bundle(bundle, subject) == []


@pytest.mark.parametrize("legacy", [None, {}])
def test_validation_legacy_none_and_empty_have_no_errors(legacy: Any) -> None:
    assert validate_bundle(legacy) == []
    assert validate_bundle(legacy, {"title": "x"}) == []


@pytest.mark.parametrize(
    "value, seen",
    [([], "an empty array"), ("x", "the string 'x'"), (3, "the number 3"), ([{"version": 1}], "an array")],
)
def test_validation_non_object_is_an_error(value: Any, seen: str) -> None:
    assert validate_bundle(value) == [
        f"claim_evidence: object required: the bundle must be an object, or null or {{}} for no evidence (found {seen})"
    ]


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def apply(bundle: dict) -> None:
        node: Any = bundle
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[int(part)] if part.isdigit() else node[part]
        last = parts[-1]
        if value is _DELETE:
            del node[int(last) if last.isdigit() else last]
        else:
            node[int(last) if last.isdigit() else last] = value

    return apply


_DELETE = object()
C = "claims.0"
V = "claims.0.verification"
# What the messages say a field must be (the words come from the schema: _schema.allowed).
ID_RULE = "an id is an ASCII letter, then up to 99 ASCII letters, digits, '_' or '-' (the schema's pattern ^[A-Za-z][A-Za-z0-9_-]{0,99}$)"
URL_RULE = "url must be a direct http:// or https:// URL with a host (no credentials, whitespace, control characters or backslash; a valid port)"
BASES = "official_spec, vendor_claim, independent_measurement, reporting, operator_measurement, editorial"
LABELS = "'', 'Fact', 'Fact-A', 'Fact-B', 'Fact-C', 'Claim', 'Opinion', 'Forecast', 'Opinion / Forecast', 'Opinion/Forecast', 'Rumor', 'Curated'"
DATE_OR_NULL = "as_of must be an existing date as YYYY-MM-DD, or null"
REVIEW_DATE = "checked_at must be an existing date as YYYY-MM-DD for a matched claim"

CASES = [
    (
        "version 2",
        _set("version", 2),
        "CE101",
        "$.version",
        "claim_evidence: unsupported version: version must be 1 (found 2)",
    ),
    (
        "version missing",
        _set("version", _DELETE),
        "CE101",
        "$.version",
        "claim_evidence: unsupported version: version must be 1 (the key is missing)",
    ),
    (
        "sources not list",
        _set("sources", {}),
        "CE102",
        "$.sources",
        "claim_evidence: sources list and nonempty claims list required: sources must be an array of source objects (found an empty object)",
    ),
    (
        "claims empty",
        _set("claims", []),
        "CE103",
        "$.claims",
        "claim_evidence: sources list and nonempty claims list required: claims must be a non-empty array of claim objects (found an empty array)",
    ),
    (
        "source not object",
        _set("sources.0", "x"),
        "CE200",
        "$.sources[0]",
        "source #0: object required: sources[0] must be an object (found the string 'x')",
    ),
    (
        "source id invalid",
        _set("sources.0.id", "1bad"),
        "CE201",
        "$.sources[0].id",
        "source #0: invalid or duplicate id: '1bad' is invalid; " + ID_RULE,
    ),
    (
        "source publisher blank",
        _set("sources.0.publisher", "  "),
        "CE202",
        "$.sources[0].publisher",
        "source fictional-vendor-doc: publisher required: publisher must be a non-blank string (found '  ')",
    ),
    (
        "source title missing",
        _set("sources.0.title", _DELETE),
        "CE203",
        "$.sources[0].title",
        "source fictional-vendor-doc: title required: title must be a non-blank string (the key is missing)",
    ),
    (
        "source url javascript",
        _set("sources.0.url", "javascript:alert(1)"),
        "CE204",
        "$.sources[0].url",
        "source fictional-vendor-doc: safe HTTP(S) URL required: " + URL_RULE,
    ),
    (
        "source url credentials",
        _set("sources.0.url", "https://u:p@example.com/"),
        "CE204",
        "$.sources[0].url",
        "source fictional-vendor-doc: safe HTTP(S) URL required: " + URL_RULE,
    ),
    (
        "source published_at bad",
        _set("sources.0.published_at", "2026-9-3"),
        "CE205",
        "$.sources[0].published_at",
        "source fictional-vendor-doc: invalid published_at: published_at must be an existing date as YYYY-MM-DD, or null (found '2026-9-3'; did you mean '2026-09-03'?)",
    ),
    (
        "claim not object",
        _set("claims.0", 5),
        "CE300",
        "$.claims[0]",
        "claim #0: object required: claims[0] must be an object (found the number 5)",
    ),
    (
        "claim id invalid",
        _set(f"{C}.id", "has space"),
        "CE301",
        "$.claims[0].id",
        "claim #0: invalid or duplicate id: 'has space' is invalid; " + ID_RULE,
    ),
    (
        "statement blank",
        _set(f"{C}.statement", " \u3000"),
        "CE302",
        "$.claims[0].statement",
        "claim fictional-rate: statement required: statement must be a non-blank string (found ' \\u3000')",
    ),
    (
        "basis unknown",
        _set(f"{C}.basis", "vibes"),
        "CE303",
        "$.claims[0].basis",
        "claim fictional-rate: unknown basis: basis must be one of " + BASES + " (found 'vibes')",
    ),
    (
        "evidence_label unknown",
        _set(f"{C}.evidence_label", "fact"),
        "CE304",
        "$.claims[0].evidence_label",
        "claim fictional-rate: unknown evidence_label: evidence_label must be one of "
        + LABELS
        + " (found 'fact'; did you mean 'Fact'?)",
    ),
    (
        "status unknown",
        _set(f"{C}.status", "verified"),
        "CE305",
        "$.claims[0].status",
        "claim fictional-rate: unknown status: status must be one of matched, partial, unverified, conflict (found 'verified'; did you mean 'unverified'?)",
    ),
    (
        "conditions blank item",
        _set(f"{C}.conditions", ["ok", " "]),
        "CE306",
        "$.claims[0].conditions[1]",
        "claim fictional-rate: conditions must be a list of nonempty strings (found ' ')",
    ),
    (
        "conditions not list",
        _set(f"{C}.conditions", "x"),
        "CE306",
        "$.claims[0].conditions",
        "claim fictional-rate: conditions must be a list of nonempty strings (found the string 'x')",
    ),
    (
        "as_of nonexistent day",
        _set(f"{C}.as_of", "2026-02-30"),
        "CE307",
        "$.claims[0].as_of",
        "claim fictional-rate: invalid as_of: " + DATE_OR_NULL + " (found '2026-02-30'; no such date)",
    ),
    (
        "as_of datetime",
        _set(f"{C}.as_of", "2026-09-03T00:00:00"),
        "CE307",
        "$.claims[0].as_of",
        "claim fictional-rate: invalid as_of: "
        + DATE_OR_NULL
        + " (found '2026-09-03T00:00:00'; did you mean '2026-09-03'?)",
    ),
    (
        "source_refs not list",
        _set(f"{C}.source_refs", {}),
        "CE308",
        "$.claims[0].source_refs",
        "claim fictional-rate: source_refs list required: source_refs must be an array of source_ref objects (found an empty object)",
    ),
    (
        "ref unknown source",
        _set(f"{C}.source_refs.0.source_id", "nope"),
        "CE309",
        "$.claims[0].source_refs[0].source_id",
        "claim fictional-rate: missing referenced source: source_id must be the id of a source of this bundle: fictional-vendor-doc (found 'nope')",
    ),
    (
        "ref section blank",
        _set(f"{C}.source_refs.0.section", ""),
        "CE310",
        "$.claims[0].source_refs[0].section",
        "claim fictional-rate: each source needs section and supports: section must be a non-blank string (found '')",
    ),
    (
        "matched without verification",
        _set(f"{V}", None),
        "CE311",
        "$.claims[0]",
        "claim fictional-rate: stated verification requires sources and a review record",
    ),
    (
        "verification not object",
        _set(f"{V}", "yes"),
        "CE400",
        "$.claims[0].verification",
        "claim fictional-rate: invalid verification record: verification must be an object, or null (found the string 'yes')",
    ),
    (
        "checked_at missing",
        _set(f"{V}.checked_at", _DELETE),
        "CE401",
        "$.claims[0].verification.checked_at",
        "claim fictional-rate: valid checked_at required: " + REVIEW_DATE + " (the key is missing)",
    ),
    (
        "checked_at invalid",
        _set(f"{V}.checked_at", "2026-13-01"),
        "CE401",
        "$.claims[0].verification.checked_at",
        "claim fictional-rate: valid checked_at required: " + REVIEW_DATE + " (found '2026-13-01'; no such date)",
    ),
    (
        "method unknown",
        _set(f"{V}.method", "vibes"),
        "CE402",
        "$.claims[0].verification.method",
        "claim fictional-rate: documented review method required: method must be one of ai_document_review, human_document_review, operator_test (found 'vibes')",
    ),
    (
        "fingerprint stale",
        _set(f"{C}.statement", "別の文。"),
        "CE403",
        "$.claims[0].verification.fingerprint",
        "claim fictional-rate: review fingerprint does not match current statement/conditions/sources",
    ),
    (
        "label wrong type",
        _set(f"{C}.label", 3),
        "CE313",
        "$.claims[0].label",
        "claim fictional-rate: label must be a string (found the number 3)",
    ),
]


@pytest.mark.parametrize("name, mutate, code, path, text", CASES, ids=[c[0] for c in CASES])
def test_validation_rule_reports_code_path_and_legacy_phrase(
    bundle: dict, name: str, mutate: Callable, code: str, path: str, text: str
) -> None:
    mutate(bundle)
    diagnostics = [d for d in iter_diagnostics(bundle) if d.is_error]
    assert (code, path) in [(d.code, d.path) for d in diagnostics]
    assert text in validate_bundle(bundle)


def test_validation_duplicate_ids(bundle: dict) -> None:
    bundle["sources"].append(copy.deepcopy(bundle["sources"][0]))
    bundle["claims"].append(copy.deepcopy(bundle["claims"][0]))
    errors = validate_bundle(bundle)
    assert (
        "source fictional-vendor-doc: invalid or duplicate id: 'fictional-vendor-doc' is a duplicate; the first source with this id is at $.sources[0].id"
        in errors
    )
    assert (
        "claim fictional-rate: invalid or duplicate id: 'fictional-rate' is a duplicate; the first claim with this id is at $.claims[0].id"
        in errors
    )
    assert [d.path for d in iter_diagnostics(bundle) if d.code in ("CE201", "CE301")] == [
        "$.claims[1].id",
        "$.sources[1].id",
    ]  # the first is fine


def test_validation_id_with_trailing_newline_is_invalid(bundle: dict) -> None:
    bundle["claims"][0]["id"] = "abc\n"
    assert ("CE301", "$.claims[0].id") in _codes(bundle)


def test_validation_id_length_limit(bundle: dict) -> None:
    bundle["claims"][0]["id"] = "a" * 100
    assert _codes(bundle) == []
    bundle["claims"][0]["id"] = "a" * 101
    assert ("CE301", "$.claims[0].id") in _codes(bundle)


@pytest.mark.parametrize("value", ["2026-02-29", "2026-9-5", "2026-09-05 ", "２０２６-09-05", "20260905", 20260905])
def test_validation_dates_are_strict(bundle: dict, value: Any) -> None:
    bundle["claims"][0]["as_of"] = value
    bundle["claims"][0]["verification"]["fingerprint"] = claim_fingerprint(bundle["claims"][0], bundle["sources"])
    assert _codes(bundle) == [("CE307", "$.claims[0].as_of")]


def test_validation_unverified_without_refs_or_verification_is_valid(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim.update(status="unverified", source_refs=[], verification=None)
    assert validate_bundle(bundle) == []


@pytest.mark.parametrize("status", ["matched", "partial", "conflict"])
def test_validation_stated_status_without_refs_is_rejected(bundle: dict, status: str) -> None:
    claim = bundle["claims"][0]
    claim.update(status=status, source_refs=[])
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    assert "claim fictional-rate: stated verification requires sources and a review record" in validate_bundle(bundle)


def test_validation_unverified_with_record_needs_valid_date_only_when_given(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["status"] = "unverified"
    del claim["verification"]["checked_at"]
    assert validate_bundle(bundle) == []
    claim["verification"]["checked_at"] = "yesterday"
    assert validate_bundle(bundle) == [
        "claim fictional-rate: valid checked_at required: checked_at must be an existing date as YYYY-MM-DD, or null (found 'yesterday')"
    ]


def test_validation_operator_measurement_requirements(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["basis"] = "operator_measurement"
    claim["measurement"] = {"environment": "Linux", "method": "fixed", "results_url": "javascript:x"}
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    assert validate_bundle(bundle) == [
        "claim fictional-rate: operator measurement requires environment, method and results URL"
    ]
    claim["measurement"]["results_url"] = "https://example.com/results"
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    assert validate_bundle(bundle) == []


def test_validation_subject_rules(bundle: dict, subject: dict) -> None:
    assert validate_bundle(bundle, subject) == []
    changed = dict(subject, summary="この本文は書き換えられた。")
    assert validate_bundle(bundle, changed) == ["claim_evidence: article text differs from the reviewed subject"]
    bundle["subject_fingerprint"] = "ABC"
    assert validate_bundle(bundle, subject) == [
        "claim_evidence: invalid subject fingerprint: subject_fingerprint must be 64 lowercase hex digits (a SHA-256), or null (found 'ABC')"
    ]
    bundle["subject_fingerprint"] = None
    assert validate_bundle(bundle) == []
    assert validate_bundle(bundle, subject) == [
        "claim_evidence: article metadata requires a reviewed subject fingerprint"
    ]


def test_validation_subject_whitespace_only_change_still_matches(bundle: dict, subject: dict) -> None:
    subject["title"] = "  架空の根拠表示の見出し\u3000"
    assert validate_bundle(bundle, subject) == []


def test_validation_warnings_do_not_fail_validate_bundle(bundle: dict) -> None:
    bundle["claims"][0]["uncertanity"] = "typo"
    bundle["sources"].append({"id": "unused", "publisher": "p", "title": "t", "url": "https://example.org/"})
    bundle["sources"][0]["published_at"] = "2026-09-30"
    bundle["claims"][0]["verification"]["fingerprint"] = claim_fingerprint(bundle["claims"][0], bundle["sources"])
    assert validate_bundle(bundle) == []
    warnings = [(d.code, d.path, d.message) for d in iter_diagnostics(bundle) if not d.is_error]
    assert warnings == [
        (
            "CE905",
            "$.claims[0].source_refs",
            "statement has numbers but no quoted passage to check them against (add quote.exact to a source_ref): 72.6",
        ),
        (
            "CE903",
            "$.claims[0].source_refs[0]",
            "source published 2026-09-30, after the review on 2026-09-05: was it really read?",
        ),
        ("CE900", "$.claims[0].uncertanity", "unknown key 'uncertanity'; did you mean 'uncertainty'?"),
        ("CE902", "$.sources[1]", "source 'unused' is not cited by any claim"),
    ]


def test_validation_duplicate_keys_reported_as_warnings(bundle: dict) -> None:
    found = list(iter_diagnostics(bundle, duplicate_keys=[("claims", 0, "status")]))
    assert [(d.code, d.path, d.severity) for d in found if d.code != "CE905"] == [
        ("CE901", "$.claims[0].status", "warning")
    ]


def test_validation_diagnostics_are_typed_values(bundle: dict) -> None:
    bundle["claims"][0]["basis"] = "vibes"
    found = [d for d in iter_diagnostics(bundle) if d.code == "CE303"]
    message = f"unknown basis: basis must be one of {BASES} (found 'vibes')"
    assert found == [Diagnostic("CE303", message, "$.claims[0].basis", "error", "claim fictional-rate")]


def test_validation_require_valid_evidence_raises_value_error_with_diagnostics(bundle: dict) -> None:
    require_valid_evidence(bundle)
    bundle["claims"][0]["statement"] = "変更"
    with pytest.raises(ValueError) as caught:
        require_valid_evidence(bundle)
    assert isinstance(caught.value, EvidenceValidationError)
    assert [d.code for d in caught.value.diagnostics] == ["CE403"]
    assert "review fingerprint does not match" in str(caught.value)


def test_validation_deep_nesting_is_a_diagnostic_not_a_crash(bundle: dict) -> None:
    deep: Any = "x"
    for _ in range(10_000):
        deep = [deep]
    bundle["claims"][0]["measurement"] = deep
    assert validate_bundle(bundle) == ["claim_evidence: bundle nested deeper than 64 levels"]


def test_validation_wrong_types_everywhere_never_raise() -> None:
    weird = {
        "version": 1,
        "sources": [1, None, {"id": 3}],
        "claims": [None, {"id": 1, "source_refs": [None, {"source_id": 5}], "verification": {"fingerprint": 1}}],
    }
    errors = validate_bundle(weird)
    assert errors and all(isinstance(e, str) for e in errors)


def test_validation_evidence_review_pending(bundle: dict, subject: dict) -> None:
    item = dict(subject, claim_evidence=bundle)
    assert evidence_review_pending(item) is False
    assert evidence_review_pending(dict(subject)) is True
    assert evidence_review_pending(dict(subject, claim_evidence={})) is True
    assert evidence_review_pending(dict(subject, summary="changed", claim_evidence=bundle)) is True
    assert evidence_review_pending("not a dict") is True
    unverified = copy.deepcopy(bundle)
    unverified["claims"][0].update(status="unverified")
    assert evidence_review_pending(dict(subject, claim_evidence=unverified)) is True
    labelled = dict(subject, evidence_label="Fact", claim_evidence=unverified)
    assert evidence_review_pending(labelled) is True


def test_schema_is_valid_2020_12_with_id() -> None:
    schema = bundle_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "urn:claim-evidence:schema:bundle:v1"
    assert bundle_validator() is bundle_validator()  # compiled once


def test_schema_file_in_repo_is_the_one_loaded() -> None:
    assert json.loads((ROOT / "schemas" / "bundle-v1.schema.json").read_text(encoding="utf-8")) == bundle_schema()


def test_schema_every_leaf_has_a_code_and_message() -> None:
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "type" in node or "enum" in node or "const" in node:
                assert "x-code" in node and "x-message" in node, where
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for name, sub in value.items():
                        walk(sub, f"{where}.{name}")
                elif key == "items":
                    walk(value, f"{where}[]")

    walk(bundle_schema(), "$")


def test_validation_format_checker_enabled_for_dates(bundle: dict) -> None:
    bundle["sources"][0]["published_at"] = "2026-02-30"
    assert [e.validator for e in bundle_validator().iter_errors(bundle)] == ["format"]


def test_validation_corpus_bundles_validate_unchanged(shared: Any) -> None:
    import re

    pages = sorted((shared / "corpora" / "ai-news-site").rglob("*.html"))
    found = 0
    for page in pages:
        match = re.search(
            r'<script type="application/json" id="claim-evidence-data">(.*?)</script>',
            page.read_text(encoding="utf-8"),
            re.S,
        )
        if match:
            found += 1
            assert validate_bundle(json.loads(match.group(1))) == [], page.name
    assert found == 3


def test_validation_schema_findings_are_errors_with_contract_codes(bundle: dict) -> None:
    claim = bundle["claims"][0]
    del claim["statement"]
    claim["as_of"] = 5
    bundle["claims"].append(3)
    found = [(d.code, d.path, d.message, d.severity, d.subject) for d in iter_diagnostics(bundle)]
    assert found == [
        (
            "CE307",
            "$.claims[0].as_of",
            f"invalid as_of: {DATE_OR_NULL} (found the number 5)",
            "error",
            "claim fictional-rate",
        ),
        (
            "CE302",
            "$.claims[0].statement",
            "statement required: statement must be a non-blank string (the key is missing)",
            "error",
            "claim fictional-rate",
        ),
        (
            "CE403",
            "$.claims[0].verification.fingerprint",
            "review fingerprint does not match current statement/conditions/sources",
            "error",
            "claim fictional-rate",
        ),
        (
            "CE300",
            "$.claims[1]",
            "object required: claims[1] must be an object (found the number 3)",
            "error",
            "claim #1",
        ),
    ]


def test_validation_findings_ordered_by_index_numerically(bundle: dict) -> None:
    for index in range(1, 12):
        extra = copy.deepcopy(bundle["claims"][0])
        extra["id"] = f"c{index}"
        bundle["claims"].append(extra)
    bundle["claims"][2]["as_of"] = "2026-13-01"
    bundle["claims"][10]["as_of"] = "2026-13-01"
    paths = [d.path for d in iter_diagnostics(bundle) if d.code == "CE307"]
    assert paths == ["$.claims[2].as_of", "$.claims[10].as_of"]


def test_validation_source_findings_name_the_source(bundle: dict) -> None:
    bundle["sources"][0]["url"] = "javascript:alert(1)"
    bundle["sources"].append("not a source")
    subjects = {(d.path, d.subject) for d in iter_diagnostics(bundle) if d.path.startswith("$.sources")}
    assert ("$.sources[1]", "source #1") in subjects
    assert any(s == "source fictional-vendor-doc" for p, s in subjects if p.startswith("$.sources[0]"))


def test_validation_require_valid_evidence_checks_the_subject(bundle: dict, subject: dict) -> None:
    require_valid_evidence(bundle, subject)
    subject["title"] = "変えた見出し"
    with pytest.raises(EvidenceValidationError):
        require_valid_evidence(bundle, subject)


def test_validation_non_object_bundle_is_ce100() -> None:
    assert list(iter_diagnostics([1])) == [
        Diagnostic(
            "CE100", "object required: the bundle must be an object, or null or {} for no evidence (found an array)"
        )
    ]


def test_validation_nesting_limit_is_exclusive(bundle: dict) -> None:
    from claim_evidence._core.jsonio import MAX_DEPTH

    def nested(levels: int) -> Any:
        value: Any = "leaf"
        for _ in range(levels):
            value = [value]
        return value

    bundle["claims"][0]["measurement"] = {"deep": nested(MAX_DEPTH - 4)}  # the bundle is exactly MAX_DEPTH deep
    assert all(d.code != "CE005" for d in iter_diagnostics(bundle))
    bundle["claims"][0]["measurement"] = {"deep": nested(MAX_DEPTH - 3)}
    assert list(iter_diagnostics(bundle)) == [Diagnostic("CE005", f"bundle nested deeper than {MAX_DEPTH} levels")]


def test_validation_unknown_key_without_close_match_has_no_hint(bundle: dict) -> None:
    bundle["claims"][0]["zzz"] = 1
    found = [(d.code, d.path, d.message) for d in iter_diagnostics(bundle) if d.code == "CE900"]
    assert found == [("CE900", "$.claims[0].zzz", "unknown key 'zzz'")]


@pytest.mark.parametrize(
    "claims, seen",
    [
        (_DELETE, "the key is missing"),
        ("x", "found the string 'x'"),
        (None, "found null"),
        ({}, "found an empty object"),
    ],
)
def test_validation_claims_missing_or_not_a_list(bundle: dict, claims: Any, seen: str) -> None:
    if claims is _DELETE:
        del bundle["claims"]
    else:
        bundle["claims"] = claims
    assert validate_bundle(bundle) == [
        f"claim_evidence: sources list and nonempty claims list required: claims must be a non-empty array of claim objects ({seen})"
    ]


def test_validation_schema_node_without_contract_code_falls_back(bundle: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A schema edit that forgets x-code degrades to CE000 with jsonschema's words, never a crash."""
    import claim_evidence._record.validation as validation

    schema = copy.deepcopy(bundle_schema())
    for key in ("x-code", "x-message"):
        del schema["properties"]["version"][key]
        del schema["properties"]["sources"][key]
    monkeypatch.setattr(validation, "bundle_validator", lambda: jsonschema.Draft202012Validator(schema))
    bundle["claims"][0]["label"] = "fallback test"  # content the memo has not seen with the real schema
    bundle["version"] = 2
    found = [(d.code, d.path, d.message) for d in iter_diagnostics(copy.deepcopy(bundle))]
    assert [f for f in found if f[0] not in ("CE403", "CE905")] == [("CE000", "$.version", "1 was expected")]
    del bundle["sources"]
    found = [(d.code, d.path, d.message) for d in iter_diagnostics(bundle)]
    assert ("CE000", "$.sources", "'sources' is a required property") in found


def test_validation_each_distinct_bundle_is_checked_once(
    bundle: dict, subject: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many pages carry the same records: the schema pass runs once per distinct content."""
    import claim_evidence._record.validation as validation

    calls: list[int] = []
    real = validation._schema_findings
    monkeypatch.setattr(validation, "_schema_findings", lambda b: calls.append(1) or real(b))
    bundle["claims"][0]["label"] = "memo test label"  # content no earlier test validated
    first = list(iter_diagnostics(bundle))
    assert list(iter_diagnostics(copy.deepcopy(bundle))) == first
    assert len(calls) == 1
    list(iter_diagnostics(bundle, subject))
    assert len(calls) == 2  # a different subject is a different question
    bundle["claims"][0]["label"] = "memo test label 2"
    list(iter_diagnostics(bundle))
    assert len(calls) == 3


def test_validation_fingerprint_broken_only_by_rewritten_numbers_says_so(bundle: dict) -> None:
    """hugo --minify and jsonify write 12.0 as 12; canonical JSON keeps them apart, so the seal breaks
    although nobody changed the record: the finding names the real cause."""
    claim = bundle["claims"][0]
    claim["basis"] = "operator_measurement"
    claim["measurement"] = {
        "environment": "e",
        "method": "m",
        "results_url": "https://example.com/r",
        "runs": 5,
        "score": 12.0,
        "ratio": 0.5,
    }
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    assert validate_bundle(bundle) == []
    rewritten = copy.deepcopy(bundle)
    rewritten["claims"][0]["measurement"]["score"] = 12
    rewritten["claims"][0]["measurement"]["runs"] = 5.0  # both directions at once
    [message] = validate_bundle(rewritten)
    assert message == (
        "claim fictional-rate: review fingerprint does not match current statement/conditions/sources, but only because JSON "
        "numbers were rewritten (12.0 written as 12, or the reverse): a build tool reformatted the bundle (hugo --minify, "
        "jsonify); keep the bundle script's JSON as it was written"
    )
    edited = copy.deepcopy(bundle)
    edited["claims"][0]["measurement"]["score"] = 13
    assert validate_bundle(edited) == [
        "claim fictional-rate: review fingerprint does not match current statement/conditions/sources"
    ]
