"""The case set and output files: the shipped set keeps the contract and its schema, and a bad line
is refused with its line number (CE811, CE812), never skipped."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from claim_evidence._core.diagnostics import InputError
from claim_evidence._extract.cases import load_cases, load_outputs
from claim_evidence._extract.contract import SCHEMA_FILE, violations

from ...conftest import ROOT

CASES = ROOT / "examples" / "extraction" / "cases.jsonl"
CASE = {
    "id": "c1",
    "category": "plain_quote",
    "input": "紙を1箱見積もってください。",
    "reference_date": "2026-04-01",
    "timezone": "Asia/Tokyo",
    "expected": {
        "action": "quote",
        "reference": None,
        "currency": "JPY",
        "items": [{"product": "紙", "quantity": "1", "unit": "箱", "unit_price": None}],
        "tax_included": None,
        "delivery_date": None,
        "issues": [],
        "status": "complete",
    },
}


def test_shipped_set_is_48_cases_in_12_categories_of_4() -> None:
    cases = load_cases(CASES)
    assert len(cases) == 48
    assert set(Counter(c.category for c in cases).values()) == {4}
    assert len({c.category for c in cases}) == 12


def test_shipped_set_expected_outputs_keep_the_contract_and_the_schema() -> None:
    validator = Draft202012Validator(json.loads((ROOT / "schemas" / SCHEMA_FILE).read_text(encoding="utf-8")))
    for case in load_cases(CASES):
        assert violations(case.expected) == [], case.id
        assert list(validator.iter_errors(case.expected)) == [], case.id


def test_heldout_set_keeps_the_contract_one_case_per_category() -> None:
    heldout = load_cases(ROOT / "examples" / "extraction" / "heldout.jsonl")
    assert all(violations(case.expected) == [] for case in heldout)
    assert sorted(c.category for c in heldout) == sorted({c.category for c in load_cases(CASES)})


def test_shipped_set_covers_every_issue() -> None:
    from claim_evidence._extract.contract import ISSUES

    found = {issue for case in load_cases(CASES) for issue in case.expected["issues"]}
    assert found == set(ISSUES)


def _write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ("{not json", "not one JSON value per line ("),
        ([], "a case must be a JSON object"),
        (
            {**CASE, "id": "c2", "extra": 1},
            "unknown key 'extra' (the keys are id, category, input, reference_date, timezone, expected, note)",
        ),
        (
            {k: v for k, v in CASE.items() if k != "timezone"} | {"id": "c2"},
            "timezone is missing (a case has id, category, input, reference_date, timezone, expected; note is optional)",
        ),
        (CASE, "id 'c1' is used by an earlier case; ids are unique"),
        ({**CASE, "id": "c2", "input": " "}, "input must be a non-empty string"),
        (
            {**CASE, "id": "c2", "reference_date": "2026-02-30"},
            "reference_date must be an existing date written YYYY-MM-DD; found '2026-02-30'",
        ),
        (
            {**CASE, "id": "c2", "expected": {**CASE["expected"], "status": "needs_review"}},
            'expected breaks the contract at $.expected.status: CE807 status must be "complete" because there is no issue; found "needs_review"',
        ),
    ],
)
def test_load_cases_refuses_a_bad_line_with_its_number(tmp_path: Path, second: object, message: str) -> None:
    path = _write(tmp_path, CASE, "", second)
    with pytest.raises(InputError) as raised:
        load_cases(path)
    d = raised.value.diagnostic
    assert (d.code, d.file, d.line) == ("CE811", str(path), 3)
    assert d.message.startswith(message) if message.endswith("(") else d.message == message


def test_load_cases_refuses_an_empty_set(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="CE811 the case set holds no case"):
        load_cases(_write(tmp_path, ""))


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ({"id": "a"}, "output is missing (null, with error and raw, when the reply was no JSON)"),
        ({"id": "b", "output": None}, "an output of null needs error, a string saying what was wrong with the reply"),
        ({"id": "x", "output": {}}, "id 'x' has an earlier output; one output per case"),
        ({"id": "", "output": {}}, "id must be the case's id, a non-empty string"),
        ({"id": "c", "output": {}, "score": 1}, "unknown key 'score' (the keys are id, output, error, raw, model)"),
    ],
)
def test_load_outputs_refuses_a_bad_line_with_its_number(tmp_path: Path, second: object, message: str) -> None:
    path = _write(tmp_path, {"id": "x", "output": {}}, second)
    with pytest.raises(InputError) as raised:
        load_outputs(path)
    d = raised.value.diagnostic
    assert (d.code, d.line, d.message) == ("CE812", 2, message)


def test_load_outputs_keeps_a_malformed_reply(tmp_path: Path) -> None:
    path = _write(tmp_path, {"id": "x", "output": None, "error": "not JSON", "raw": "Sure!"})
    [record] = load_outputs(path)
    assert record.as_json() == {"id": "x", "output": None, "error": "not JSON", "raw": "Sure!"}
