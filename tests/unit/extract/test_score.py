"""The scorer on hostile outputs: every field of an output (and of its item) replaced by every kind
of JSON value is scored, and counted as a violation where the contract says so, never a crash. The
reports themselves are compared byte for byte in tests/acceptance/test_extract.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from claim_evidence._extract.cases import Case, OutputRecord
from claim_evidence._extract.contract import ITEM_KEYS, KEYS, violations
from claim_evidence._extract.score import FORMATS, render, score_outputs

VALUES: list[Any] = [None, True, 0, -1.5, "", "x", [], [1], ["a", []], {}, {"a": 1}, [{}], [[]], "１２", "\ud800"]
EXPECTED: dict[str, Any] = {
    "action": "order",
    "reference": "Q-1",
    "currency": "JPY",
    "items": [{"product": "紙", "quantity": "10", "unit": "箱", "unit_price": "2.5"}],
    "tax_included": True,
    "delivery_date": "2026-04-02",
    "issues": [],
    "status": "complete",
}
CASE = Case(1, "c1", "plain", "紙を10箱", "2026-04-01", "Asia/Tokyo", EXPECTED)


def _outputs() -> list[dict[str, Any]]:
    out = []
    for value in VALUES:
        for key in KEYS:
            out.append({**copy.deepcopy(EXPECTED), key: value})
        for key in ITEM_KEYS:
            changed = copy.deepcopy(EXPECTED)
            changed["items"][0][key] = value
            out.append(changed)
    return out


@pytest.mark.parametrize("output", _outputs())
def test_score_any_json_value(output: dict[str, Any]) -> None:
    score = score_outputs([CASE], [OutputRecord(1, "c1", output)], cases_path="c", outputs_path="o")
    [case] = score.cases
    assert case.exact == (output == EXPECTED)
    assert bool(case.violations) == bool(violations(output))
    for fmt in FORMATS:
        assert render(score, fmt)


def test_score_exact_output_is_exact_and_issue_order_does_not_count() -> None:
    expected = {**EXPECTED, "issues": ["ambiguous_date", "missing_quantity"], "status": "needs_review"}
    case = Case(1, "c1", "plain", "x", "2026-04-01", "Asia/Tokyo", expected)
    output = {**expected, "issues": ["missing_quantity", "ambiguous_date"]}
    [scored] = score_outputs([case], [OutputRecord(1, "c1", output)], cases_path="c", outputs_path="o").cases
    assert scored.exact and scored.points == len(KEYS) and scored.item_fields == (4, 4)


def test_score_type_exact_and_missing_output() -> None:
    output = copy.deepcopy(EXPECTED)
    output["items"][0]["quantity"] = 10
    output["tax_included"] = 1
    score = score_outputs([CASE], [OutputRecord(1, "c1", output)], cases_path="c", outputs_path="o")
    [scored] = score.cases
    assert [k for k in KEYS if not scored.fields[k]] == ["items", "tax_included"]
    assert scored.item_fields == (3, 4) and scored.violations == ("CE805", "CE803")
    [missing] = score_outputs([CASE], [], cases_path="c", outputs_path="o").cases
    assert (missing.problem, missing.points, missing.item_fields) == ("no output", 0, (0, 4))
