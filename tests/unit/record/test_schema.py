"""The compiled conformance check must never accept what jsonschema rejects.

``bundle_conforms`` is a filter in front of jsonschema: True skips jsonschema,
so a single wrong True would let an invalid bundle through. These tests compare
the two on sealed bundles edited at random places with random JSON values, and
on the type and equality corners where Python and JSON Schema disagree.
"""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claim_evidence import validate_bundle
from claim_evidence._core.dates import is_valid_date
from claim_evidence._record.schema import (
    bundle_conforms,
    bundle_schema,
    bundle_validator,
    compile_conformance,
    deferred_keywords,
)

from ...conftest import ROOT, example_page_without_markers
from .test_properties import sealed_bundles

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.sampled_from([1.0, 0.0, 2.5])
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "",
            " ",
            "2026-02-30",
            "2026-01-02",
            "https://x.example/",
            "a" * 64,
            "0" * 64,
            "matched",
            "vendor_claim",
            "Fact",
            "ai_document_review",
        ]
    ),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


def conforms(value: Any) -> bool:
    """The check compiled afresh: ``bundle_conforms`` caches its compiled form for the process, so a
    test that only called it would exercise the compiler once per session, whatever it asserts."""
    return compile_conformance(bundle_schema())(value)


def schema_accepts(value: Any) -> bool:
    return next(iter(bundle_validator().iter_errors(value)), None) is None


def _containers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every dict and list in ``value`` with its path, the value itself first."""
    found = [(path, value)] if isinstance(value, (dict, list)) else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.extend(_containers(child, (*path, key)))
    return found


@st.composite
def edited_bundles(draw: Any) -> Any:
    """A sealed bundle with one to three edits: a value replaced, a key removed or added, an item appended."""
    bundle = copy.deepcopy(draw(sealed_bundles()))
    for _ in range(draw(st.integers(1, 3))):
        path, node = draw(st.sampled_from(_containers(bundle)))
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if isinstance(node, dict):
            keys = sorted(node)
            if action == "add" or not keys:
                node[draw(st.sampled_from(keys + ["x", "id", "status"]))] = draw(JSON_VALUES)
            elif action == "remove":
                del node[draw(st.sampled_from(keys))]
            else:
                node[draw(st.sampled_from(keys))] = draw(JSON_VALUES)
        elif node and action == "replace":
            node[draw(st.integers(0, len(node) - 1))] = draw(JSON_VALUES)
        elif node and action == "remove":
            node.pop(draw(st.integers(0, len(node) - 1)))
        else:
            node.append(draw(JSON_VALUES))
    return bundle


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edited_bundles())
def test_conformance_agrees_with_jsonschema_on_edited_bundles(bundle: Any) -> None:
    assert conforms(bundle) == schema_accepts(bundle)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
def test_conformance_agrees_with_jsonschema_on_any_json_value(value: Any) -> None:
    assert conforms(value) == schema_accepts(value)


def _example_bundles() -> list[Any]:
    fixtures = json.loads((ROOT / "examples" / "claim-evidence" / "fixtures.json").read_text(encoding="utf-8"))
    return [fixtures["bundle"], fixtures["implausible_bundle"]]


@pytest.mark.parametrize("index", [0, 1])
def test_conformance_agrees_on_the_example_bundles(index: int) -> None:
    bundle = _example_bundles()[index]
    assert conforms(bundle) == schema_accepts(bundle) == bundle_conforms(bundle)


def test_conformance_accepts_the_valid_example_so_the_filter_does_work() -> None:
    bundle = _example_bundles()[0]
    assert validate_bundle(bundle) == []
    assert bundle_conforms(bundle) is True
    assert conforms(bundle) is True


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "integer"}, 1.0),
        ({"type": "integer"}, True),
        ({"type": "integer"}, 1.5),
        ({"type": "number"}, False),
        ({"type": ["string", "null"]}, None),
        ({"type": ["string", "null"]}, 0),
        ({"const": 1}, 1.0),
        ({"const": 1}, True),
        ({"const": 1}, "1"),
        ({"enum": ["a", "b"]}, "b"),
        ({"enum": ["a", "b"]}, ["a"]),
        ({"minLength": 2}, "é"),
        ({"minLength": 2}, "😀😀"),
        ({"minLength": 2}, 5),
        ({"pattern": "\\S"}, " \u3000"),
        ({"pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}, "2026-01-02\n"),
        ({"minItems": 1}, []),
        ({"required": ["a"]}, {"b": 1}),
        ({"required": ["a"]}, "not an object"),
        ({"properties": {"a": {"type": "string"}}}, {"a": 1}),
        ({"items": {"type": "string"}}, ["a", 1]),
        ({"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}, "x"),
        ({"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}, 3),
    ],
)
def test_keyword_semantics_match_jsonschema(schema: dict[str, Any], value: Any) -> None:
    from jsonschema import Draft202012Validator

    expected = Draft202012Validator(schema).is_valid(value)
    assert compile_conformance(schema)(value) == expected


@pytest.mark.parametrize(
    "schema", [{"maximum": 3}, {"items": [{"type": "string"}]}, {"enum": [[1]]}, {"$ref": "http://x/y"}]
)
def test_an_unknown_keyword_or_form_always_defers_to_jsonschema(schema: dict[str, Any]) -> None:
    check = compile_conformance(schema)
    assert [check(v) for v in (1, 5, ["a"], [1], "x")] == [False] * 5


def test_subclasses_are_left_to_jsonschema() -> None:
    bundle = _example_bundles()[0]
    assert conforms(OrderedDict(bundle)) is False  # not exact JSON types: jsonschema decides
    broken = OrderedDict(bundle, version="1")
    assert schema_accepts(broken) is False and conforms(broken) is False


def test_the_bundle_schema_compiles_without_deferring() -> None:
    """A keyword added to the schema that the compiler does not know would quietly disable the filter."""
    assert deferred_keywords(bundle_schema()) == []
    assert deferred_keywords({"type": "object", "properties": {"n": {"maximum": 3}}}) == ["maximum"]


def test_checking_a_valid_page_never_imports_jsonschema(tmp_path: Path) -> None:
    """jsonschema is a quarter of the start-up of a one-page check; valid bundles must not need it."""
    import subprocess
    import sys

    page = tmp_path / "kumo-engine-3.html"
    page.write_bytes(example_page_without_markers("articles/kumo-engine-3.html"))
    code = (
        "import sys; from static_helper import load_page; "
        f"page = load_page({str(page)!r}); "
        "print(len([d for d in page.diagnostics if d.code != 'CE520']), 'jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["0", "False"]
    invalid = "from claim_evidence import validate_bundle; import sys; validate_bundle({'version': 2}); print('jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", invalid], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == ["True"]


@pytest.mark.parametrize(
    ("schema", "accepted", "refused"),
    [
        (True, [1, None, "x"], []),
        ({}, [1, None], []),
        ({"title": "annotations only", "x-code": "CE1"}, [1, "x"], []),
        ({"type": "string", "minLength": 2, "pattern": "^a"}, ["ab"], ["a", "ba", 3]),
        ({"type": ["integer", "null"]}, [None, 3], ["3", 1.5]),
        ({"format": "date"}, ["2026-01-31", 5], ["2026-02-30"]),
        ({"format": "email"}, ["not checked"], []),
        ({"items": {"type": "string"}, "minItems": 2}, [["a", "b"], "not a list"], [["a"], ["a", 1]]),
        (
            {"properties": {"a": {"const": 1}, "b": {"type": "string"}}, "required": ["a"]},
            [{"a": 1}, {"a": 1, "b": "x", "c": 2}, []],
            [{"b": "x"}, {"a": 2}, {"a": 1, "b": 2}],
        ),
        ({"$defs": {"d": {"enum": ["x", 2]}}, "items": {"$ref": "#/$defs/d"}}, [["x", 2, 2.0]], [["y"], [True]]),
        ({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}, [[[[]]]], [[[1]]]),
    ],
)
def test_compiled_keywords_accept_and_refuse_like_the_standard(
    schema: Any, accepted: list[Any], refused: list[Any]
) -> None:
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("date")(lambda v: not isinstance(v, str) or is_valid_date(v))
    check = compile_conformance(schema)
    for value in accepted:
        assert Draft202012Validator(schema, format_checker=checker).is_valid(value), value
        assert check(value) is True, value
    for value in refused:
        assert not Draft202012Validator(schema, format_checker=checker).is_valid(value), value
        assert check(value) is False, value


def test_a_reference_the_compiler_cannot_follow_defers() -> None:
    assert deferred_keywords({"$ref": "#/$defs/missing"}) == ["$ref #/$defs/missing"]
    assert deferred_keywords({"$ref": "other.json#/x"}) == ["$ref other.json#/x"]
    assert deferred_keywords({"type": ["string", "decimal"]}) == ["type"]
    assert deferred_keywords({"enum": ["a", None]}) == ["enum"]
    assert compile_conformance({"$ref": "#/$defs/missing"})("x") is False


def test_the_schema_is_read_from_the_installed_package_or_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import resources

    from claim_evidence._record import schema as _schema

    packaged = _schema.schemas_folder()
    assert packaged == resources.files("claim_evidence.schemas")
    text = _schema.schema_text()
    assert json.loads(text)["$id"] == "urn:claim-evidence:schema:bundle:v1"

    def missing(name: str) -> Any:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(_schema.resources, "files", missing)
    folder = _schema.schemas_folder()
    assert folder == ROOT / "schemas"
    assert _schema.schema_text() == text


# --- the fused nodes: one closure per node of one type (or it or null) -----------------------

_FUSED_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1, 2)
    | st.sampled_from([1.0, "", " ", "a", "ab", "abc", "2026-01-02", "2026-02-30", "x\n", "\u3000"])
    | st.builds(type("Text", (str,), {}), st.sampled_from(["ab", "2026-01-02"])),
    lambda children: (
        st.lists(children, max_size=3)
        | st.tuples(children)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2).map(OrderedDict)
    ),
    max_leaves=6,
)


@st.composite
def fused_schemas(draw: Any) -> dict[str, Any]:
    """A node of the shape the compiler fuses: one type, maybe with null, and keywords about that type."""
    kind = draw(st.sampled_from(["string", "object", "array"]))
    schema: dict[str, Any] = {"type": [kind, "null"] if draw(st.booleans()) else kind, "x-code": "CE1"}
    leaf = st.sampled_from([{"type": "string"}, {"type": ["string", "null"], "minLength": 2}, {"enum": ["ab", 1]}])
    options: dict[str, Any] = {
        "string": {
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "pattern": st.sampled_from(["\\S", "^a", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"]),
            "format": st.sampled_from(["date", "email"]),
        },
        "object": {
            "required": st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
            "properties": st.dictionaries(st.sampled_from(["a", "b"]), leaf, max_size=2),
            "additionalProperties": st.just(False),
        },
        "array": {"minItems": st.integers(0, 2), "items": leaf},
    }[kind]
    for keyword in draw(st.lists(st.sampled_from(sorted(options)), unique=True)):
        schema[keyword] = draw(options[keyword])
    return schema


def _keyword_by_keyword(schema: dict[str, Any]) -> Any:
    """The generic path the fused node replaces: each keyword's own closure, all of them required.
    ``type`` gets a keyword of another type beside it (``minItems`` 0 on strings, ``minLength`` 0
    otherwise, both always true) so that it too is compiled by the generic path, not fused."""
    parts = [{"type": schema["type"], "minItems" if "string" in schema["type"] else "minLength": 0}]
    for keyword, value in schema.items():
        if keyword == "additionalProperties":
            parts.append({keyword: value, "properties": schema.get("properties", {})})
        elif keyword not in ("type", "x-code"):
            parts.append({keyword: value})
    checks = [compile_conformance(part) for part in parts]
    return lambda value: all(check(value) for check in checks)


def _standard(schema: Any) -> Any:
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("date")(lambda v: not isinstance(v, str) or is_valid_date(v))
    return Draft202012Validator(schema, format_checker=checker)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(fused_schemas(), st.lists(_FUSED_VALUES, min_size=1, max_size=6))
def test_fused_nodes_answer_as_the_keywords_one_by_one_and_as_jsonschema(
    schema: dict[str, Any], values: list[Any]
) -> None:
    fused, generic, standard = compile_conformance(schema), _keyword_by_keyword(schema), _standard(schema)
    assert deferred_keywords(schema) == []
    for value in values:
        answer = fused(value)
        assert answer == generic(value), value
        if answer:
            assert standard.is_valid(value), value  # a True skips jsonschema: it must be right
        elif not _holds_a_subclass(value):
            assert not standard.is_valid(value), value


@pytest.mark.parametrize(
    ("schema", "accepted", "refused"),
    [
        (
            {"type": ["string", "null"], "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            [None, "2026-01-02"],
            ["2026-02-30", "2026-1-2", 20260102, ""],
        ),
        ({"type": "string", "minLength": 1, "maxLength": 2, "pattern": "\\S"}, ["a", "ab"], ["", " ", "abc", None]),
        ({"type": ["string", "null"]}, [None, "", "x"], [0, False, [], {}]),
        (
            {
                "type": "object",
                "required": ["a"],
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
            [{"a": "x"}],
            [{}, {"a": 1}, {"a": "x", "b": 1}, None, ["a"]],
        ),
        ({"type": ["object", "null"], "required": ["a"]}, [None, {"a": 1, "b": 2}], [{}, "a"]),
        ({"type": "array", "minItems": 1, "items": {"type": "string"}}, [["a"], ["a", "b"]], [[], [1], None, "a"]),
        ({"type": ["array", "null"], "items": {"enum": ["a"]}}, [None, [], ["a"]], [["b"], {}]),
    ],
)
def test_fused_nodes_accept_and_refuse_like_the_standard(schema: Any, accepted: list[Any], refused: list[Any]) -> None:
    fused, generic, standard = compile_conformance(schema), _keyword_by_keyword(schema), _standard(schema)
    for value in accepted:
        assert fused(value) is True and generic(value) is True and standard.is_valid(value), value
    for value in refused:
        assert fused(value) is False and generic(value) is False and not standard.is_valid(value), value


def _holds_a_subclass(value: Any) -> bool:
    """Whether a value that is not plain JSON (a str subclass, a tuple, an OrderedDict) is inside: the
    compiled check leaves those to jsonschema (False), so only its True must then agree."""
    if isinstance(value, (tuple, OrderedDict)) or (isinstance(value, str) and type(value) is not str):
        return True
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_holds_a_subclass(child) for child in children)


@pytest.mark.parametrize(
    ("schema", "deferred"),
    [
        ({"type": "object", "additionalProperties": 0}, ["additionalProperties"]),
        ({"type": "object", "additionalProperties": True}, ["additionalProperties"]),
        ({"type": "object", "additionalProperties": {"type": "string"}}, ["additionalProperties"]),
        ({"type": "string", "minLength": True}, ["minLength"]),
        ({"type": ["string", "null"], "maxLength": 2.0}, ["maxLength"]),
        ({"type": "string", "format": 1}, ["format"]),
        ({"type": "array", "items": [{"type": "string"}]}, ["items"]),
        ({"type": "array", "minItems": False}, ["minItems"]),
        ({"type": ["string", "string"]}, []),
        ({"type": "object", "properties": {"n": {"type": "string", "maximum": 3}}}, ["maximum"]),
    ],
)
def test_a_node_the_fused_form_cannot_hold_takes_the_generic_path(schema: dict[str, Any], deferred: list[str]) -> None:
    assert deferred_keywords(schema) == deferred
    if deferred and "properties" not in schema:
        assert compile_conformance(schema)("ab") is False and compile_conformance(schema)({}) is False
