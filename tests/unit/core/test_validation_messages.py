"""Messages that tell the editor what to type: the value found, what is allowed, a did-you-mean; shown safely.

Every message still starts with the contract's phrase (SCHEMA.md: callers that match substrings keep working).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from claim_evidence import iter_diagnostics
from claim_evidence._core.diagnostics import json_path
from claim_evidence._core.hints import SHOWN_CHARACTERS, closest, date_hint, found, shown, terminal_safe
from claim_evidence._core.jsonpos import parse_path
from claim_evidence._record.schema import PATTERN_WORDS, bundle_schema

from ...acceptance.test_json_types import BASE, CASES, _replaced

BASES = "official_spec, vendor_claim, independent_measurement, reporting, operator_measurement, editorial"
METHODS = "ai_document_review, human_document_review, operator_test"


def _errors(bundle: Any, code: str) -> list[tuple[str, str]]:
    return [(d.path, d.message) for d in iter_diagnostics(bundle) if d.code == code and d.is_error]


def _claim(bundle: dict[str, Any]) -> dict[str, Any]:
    claim: dict[str, Any] = bundle["claims"][0]
    return claim


# --- the examples of issue #23 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "code", "message"),
    [
        (
            "basis",
            "offical_spec",
            "CE303",
            f"unknown basis: basis must be one of {BASES} (found 'offical_spec'; did you mean 'official_spec'?)",
        ),
        (
            "status",
            "matchd",
            "CE305",
            "unknown status: status must be one of matched, partial, unverified, conflict (found 'matchd'; did you mean 'matched'?)",
        ),
        ("statement", [], "CE302", "statement required: statement must be a non-blank string (found an empty array)"),
        ("statement", ["文"], "CE302", "statement required: statement must be a non-blank string (found an array)"),
        ("statement", 12, "CE302", "statement required: statement must be a non-blank string (found the number 12)"),
        ("label", True, "CE313", "label must be a string (found the boolean true)"),
        (
            "as_of",
            "2026/09/03",
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found '2026/09/03'; did you mean '2026-09-03'?)",
        ),
        (
            "as_of",
            "２０２６-09-03",
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found '２０２６-09-03'; did you mean '2026-09-03'?)",
        ),
        (
            "as_of",
            "2026年9月3日",
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found '2026年9月3日'; did you mean '2026-09-03'?)",
        ),
        (
            "as_of",
            20260903,
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found the number 20260903; did you mean '2026-09-03'?)",
        ),
        (
            "as_of",
            "2026-02-29",
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found '2026-02-29'; no such date)",
        ),
        (
            "as_of",
            "soon",
            "CE307",
            "invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found 'soon')",
        ),
    ],
)
def test_validation_messages_claim_fields(
    bundle: dict[str, Any], field: str, value: Any, code: str, message: str
) -> None:
    _claim(bundle)[field] = value
    assert _errors(bundle, code) == [(f"$.claims[0].{field}", message)]


def test_validation_messages_review_method_and_date(bundle: dict[str, Any]) -> None:
    verification = _claim(bundle)["verification"]
    verification.update(method="human_review", checked_at="2026-2-1")
    assert _errors(bundle, "CE402") == [
        (
            "$.claims[0].verification.method",
            f"documented review method required: method must be one of {METHODS} (found 'human_review'; did you mean 'human_document_review'?)",
        )
    ]
    assert _errors(bundle, "CE401") == [
        (
            "$.claims[0].verification.checked_at",
            "valid checked_at required: checked_at must be an existing date as YYYY-MM-DD for a matched claim (found '2026-2-1'; did you mean '2026-02-01'?)",
        )
    ]
    del verification["method"]
    assert (
        _errors(bundle, "CE402")[0][1]
        == f"documented review method required: method must be one of {METHODS} (the key is missing)"
    )


def test_validation_messages_evidence_label_lists_the_labels_quoted(bundle: dict[str, Any]) -> None:
    """Labels with spaces and the empty label cannot be listed bare: every one is quoted."""
    _claim(bundle)["evidence_label"] = "opinion/forecast"
    [(_, message)] = _errors(bundle, "CE304")
    assert message.startswith("unknown evidence_label: evidence_label must be one of '', 'Fact', 'Fact-A',")
    assert message.endswith("'Rumor', 'Curated' (found 'opinion/forecast'; did you mean 'Opinion/Forecast'?)")


def test_validation_messages_id_says_invalid_with_the_schema_rule(bundle: dict[str, Any]) -> None:
    _claim(bundle)["id"] = "主張1"
    pattern = bundle_schema()["$defs"]["claim"]["properties"]["id"]["pattern"]
    assert _errors(bundle, "CE301") == [
        (
            "$.claims[0].id",
            "invalid or duplicate id: '主張1' is invalid; an id is an ASCII letter, then up to 99 ASCII letters, digits, '_' or '-' "
            f"(the schema's pattern {pattern})",
        )
    ]
    _claim(bundle)["id"] = 7
    assert _errors(bundle, "CE301")[0][1].startswith("invalid or duplicate id: the number 7 is invalid; an id is")


def test_validation_messages_id_says_duplicate_and_where_the_first_is(bundle: dict[str, Any]) -> None:
    for n in range(1, 12):
        extra = copy.deepcopy(_claim(bundle))
        extra["id"] = f"c{n}"
        bundle["claims"].append(extra)
    bundle["claims"][11]["id"] = "c3"
    bundle["sources"].append(copy.deepcopy(bundle["sources"][0]))
    assert _errors(bundle, "CE301") == [
        (
            "$.claims[11].id",
            "invalid or duplicate id: 'c3' is a duplicate; the first claim with this id is at $.claims[3].id",
        )
    ]
    assert _errors(bundle, "CE201") == [
        (
            "$.sources[1].id",
            "invalid or duplicate id: 'fictional-vendor-doc' is a duplicate; the first source with this id is at $.sources[0].id",
        )
    ]


def test_validation_messages_missing_source_lists_the_ids_and_suggests_one(bundle: dict[str, Any]) -> None:
    ref = _claim(bundle)["source_refs"][0]
    ref["source_id"] = "fictional-vendor"
    expected = "missing referenced source: source_id must be the id of a source of this bundle: fictional-vendor-doc"
    assert _errors(bundle, "CE309") == [
        (
            "$.claims[0].source_refs[0].source_id",
            f"{expected} (found 'fictional-vendor'; did you mean 'fictional-vendor-doc'?)",
        )
    ]
    ref["source_id"] = 5
    assert _errors(bundle, "CE309")[0][1] == f"{expected} (found the number 5)"
    del ref["source_id"]
    assert _errors(bundle, "CE309")[0][1] == f"{expected} (the key is missing)"
    bundle["sources"] += [
        {"id": f"s{n}", "publisher": "p", "title": "t", "url": "https://example.com/"} for n in range(9)
    ]
    ref["source_id"] = "nope"
    assert _errors(bundle, "CE309")[0][1] == (
        "missing referenced source: source_id must be the id of a source of this bundle: fictional-vendor-doc, s0, s1, s2, s3, s4, s5, s6, "
        "… (10 in all) (found 'nope')"
    )


def test_validation_messages_a_url_is_never_echoed(bundle: dict[str, Any]) -> None:
    """A URL may carry credentials: the message says what a URL must be, not what this one is."""
    bundle["sources"][0]["url"] = "ftp://user:secret@example.com/"
    [(_, message)] = _errors(bundle, "CE204")
    assert "secret" not in message and message.startswith(
        "safe HTTP(S) URL required: url must be a direct http:// or https:// URL"
    )
    bundle["sources"][0]["url"] = 3
    assert _errors(bundle, "CE204")[0][1].endswith("(found the number 3)")


def test_validation_messages_unexpected_quote_key_suggests_the_known_one(bundle: dict[str, Any]) -> None:
    _claim(bundle)["source_refs"][0]["quote"] = {"exact": "72.6", "sufix": "。"}
    [(path, message)] = _errors(bundle, "CE316")
    assert path == "$.claims[0].source_refs[0].quote.sufix"
    assert message.startswith("unexpected key 'sufix' (did you mean 'suffix'?); quote must be an object: {")


# --- shown safely -----------------------------------------------------------------------------------------------


def test_validation_messages_values_are_escaped_and_cut(bundle: dict[str, Any]) -> None:
    hostile = "\x1b[2J\u202eevil" + "x" * 200
    _claim(bundle)["basis"] = hostile
    [(_, message)] = _errors(bundle, "CE303")
    assert "\x1b" not in message and "\u202e" not in message
    shown_part = re.search(r"\(found (.*)\)$", message)
    assert (
        shown_part is not None
        and shown_part.group(1) == "'\\x1b[2J\\u202eevil" + "x" * (SHOWN_CHARACTERS - 1 - 9) + "…'"
    )


def test_validation_messages_unknown_key_is_escaped(bundle: dict[str, Any]) -> None:
    _claim(bundle)["\u202enote"] = 1
    [d] = [d for d in iter_diagnostics(bundle) if d.code == "CE900"]
    assert (d.path, d.message) == ('$.claims[0]["\\u202enote"]', "unknown key '\\u202enote'")
    assert parse_path(d.path) == ["claims", 0, "\u202enote"]  # the escaped path still finds the key in the text


def test_validation_messages_hints_units() -> None:
    assert [shown(v) for v in ("a'b", 1.5, True, None, [], [0], {}, {"a": 1})] == [
        '"a\'b"',
        "1.5",
        "true",
        "null",
        "an empty array",
        "an array",
        "an empty object",
        "an object",
    ]
    assert [found(v, ("string",)) for v in ("x", 3, False, None, ["x"])] == [
        "'x'",
        "the number 3",
        "the boolean false",
        "null",
        "an array",
    ]
    assert [
        date_hint(v) for v in ("2026-2-1", "20260201", "2026-02-30", "2026-02-01T09:00:00+09:00", "soon", True, 2.5)
    ] == [
        "did you mean '2026-02-01'?",
        "did you mean '2026-02-01'?",
        "no such date",
        "did you mean '2026-02-01'?",
        None,
        None,
        None,
    ]
    assert (
        closest("uncertanity", ["uncertainty", "statement"]) == "uncertainty" and closest("zzz", ["statement"]) is None
    )
    assert terminal_safe("a\x1b[31mb\nc\u2066d\te") == "a\\x1b[31mb\nc\\u2066d\\te"
    assert json_path(("claims", 0, "a\u202eb\U000e0001")) == '$.claims[0]["a\\u202eb\\udb40\\udc01"]'


def test_validation_messages_every_schema_pattern_has_words() -> None:
    """A pattern added to the schema without words would print the regular expression to editors."""
    patterns: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(bundle_schema())
    assert patterns <= set(PATTERN_WORDS), sorted(patterns - set(PATTERN_WORDS))


# --- the contract's phrase still leads --------------------------------------------------------------------------


def _phrases() -> dict[str, set[str]]:
    """x-code -> the phrases (x-message, up to a shape's colon) the schema gives that code."""
    out: dict[str, set[str]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "x-code" in node and "x-message" in node:
                out.setdefault(node["x-code"], set()).add(
                    node["x-message"].partition(": ")[0] if " must be " in node["x-message"] else node["x-message"]
                )
            for value in node.values():
                walk(value)

    walk(bundle_schema())
    return out


PHRASES = _phrases()


def test_validation_messages_keep_the_contract_phrase_first_across_the_type_matrix() -> None:
    """Every field replaced by every kind of JSON value: each schema-coded error starts with its phrase
    (or, for an unexpected key, names it), so a caller matching the SCHEMA.md phrase keeps working."""
    checked = 0
    for path, value in CASES:
        for d in iter_diagnostics(_replaced(BASE, path, value)):
            if d.code in PHRASES and not d.message.startswith("unexpected key "):
                assert any(d.message.startswith(p) for p in PHRASES[d.code]), (path, value, d.code, d.message)
                checked += 1
    assert checked > 500
