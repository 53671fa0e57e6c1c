"""The extraction contract's checker: every finding code with its exact path and message, and the
shipped JSON Schema agreeing with the checker on the same outputs."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from claim_evidence._core.dates import is_valid_date
from claim_evidence._extract.contract import CODES, KEYS, SCHEMA_FILE, expected_status, schema_text, violations
from claim_evidence._record.schema import schemas_folder

from ...conftest import ROOT

SHIPPED = ROOT / "schemas" / SCHEMA_FILE

GOOD: dict[str, Any] = {
    "action": "order",
    "reference": None,
    "currency": "JPY",
    "items": [{"product": "コピー用紙", "quantity": "10", "unit": "箱", "unit_price": None}],
    "tax_included": None,
    "delivery_date": None,
    "issues": [],
    "status": "complete",
}
KEY_LIST = "action, reference, currency, items, tax_included, delivery_date, issues, status"
ISSUE_LIST = (
    "missing_quantity, ambiguous_quantity, conflicting_quantity, ambiguous_unit, missing_reference, ambiguous_date, "
    "conflicting_date, untrusted_instruction, unknown_request, conflicting_action, unsupported_currency, "
    "insufficient_context"
)


def changed(**values: Any) -> dict[str, Any]:
    output = copy.deepcopy(GOOD)
    output.update(values)
    return output


def item(**values: Any) -> list[dict[str, Any]]:
    return [{**GOOD["items"][0], **values}]


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in GOOD.items() if k != key}


TABLE: list[tuple[Any, list[tuple[str, str, str]]]] = [
    (1, [("CE800", "$", f"the output must be a JSON object with the keys {KEY_LIST}; found the number 1")]),
    ([], [("CE800", "$", f"the output must be a JSON object with the keys {KEY_LIST}; found an array")]),
    (
        without("status"),
        [("CE801", "$", "status is missing; every output has all eight keys (write null or [] when unknown)")],
    ),
    (
        changed(items=[{"product": "紙", "quantity": "1", "unit": "箱"}]),
        [("CE801", "$.items[0]", "unit_price is missing from the item; write null when unknown")],
    ),
    (
        changed(total="1200"),
        [("CE802", "$.total", f"'total' is not a key of the contract; remove it (the keys are {KEY_LIST})")],
    ),
    (
        changed(items=item(sku="A-1")),
        [
            (
                "CE802",
                "$.items[0].sku",
                "'sku' is not a key of an item; remove it (the keys are product, quantity, unit, unit_price)",
            )
        ],
    ),
    (
        changed(tax_included="yes"),
        [("CE803", "$.tax_included", 'tax_included must be true, false or null; found "yes"')],
    ),
    (changed(items={}), [("CE803", "$.items", "items must be an array ([] for none); found an object")]),
    (
        changed(reference=""),
        [
            (
                "CE803",
                "$.reference",
                'reference must be an explicit target number such as "Q-101", or null; found an empty string',
            )
        ],
    ),
    (
        changed(items=item(product="")),
        [
            (
                "CE803",
                "$.items[0].product",
                "product must be the name as written, a non-empty string; found an empty string",
            )
        ],
    ),
    (
        changed(items=item(quantity=True)),
        [("CE803", "$.items[0].quantity", 'quantity must be a decimal string such as "12", or null; found true')],
    ),
    (
        changed(delivery_date=20260401),
        [("CE803", "$.delivery_date", "delivery_date must be a YYYY-MM-DD string or null; found the number 20260401")],
    ),
    (
        changed(issues="none"),
        [("CE803", "$.issues", 'issues must be an array of issue names ([] for none); found "none"')],
    ),
    (
        changed(action="buy"),
        [("CE804", "$.action", 'action must be one of quote, order, change, cancel, unknown; found "buy"')],
    ),
    (
        changed(issues=["urgent"], status="needs_review"),
        [("CE804", "$.issues[0]", f'an issue must be one of {ISSUE_LIST}; found "urgent"')],
    ),
    (changed(currency="EUR"), [("CE804", "$.currency", 'currency must be one of JPY, USD; found "EUR"')]),
    (
        changed(status="approved"),
        [("CE804", "$.status", 'status must be one of complete, needs_review, cancelled; found "approved"')],
    ),
    (
        changed(items=item(quantity=12, unit_price="2,500円")),
        [
            (
                "CE805",
                "$.items[0].quantity",
                'quantity must be a decimal string without unit, sign or separators; found a JSON number: write "12"',
            ),
            (
                "CE805",
                "$.items[0].unit_price",
                'unit_price must be a decimal string without unit, sign or separators; found "2,500円": write "2500"',
            ),
        ],
    ),
    (
        changed(items=item(quantity="12本", unit_price="2.50")),
        [
            (
                "CE805",
                "$.items[0].quantity",
                'quantity must be a decimal string without unit, sign or separators; found "12本": write "12" (and "本" as the unit)',
            ),
            (
                "CE805",
                "$.items[0].unit_price",
                'unit_price must be a decimal string without unit, sign or separators; found "2.50": write "2.5"',
            ),
        ],
    ),
    (
        changed(items=item(quantity="12,5")),
        [
            (
                "CE805",
                "$.items[0].quantity",
                'quantity must be a decimal string without unit, sign or separators; found "12,5": write the number alone, such as "12" or "2.5"',
            )
        ],
    ),
    (
        changed(delivery_date="2026/04/01"),
        [
            (
                "CE806",
                "$.delivery_date",
                'delivery_date must be an existing date written YYYY-MM-DD (e.g. "2026-04-01"), or null; found "2026/04/01"',
            )
        ],
    ),
    (
        changed(delivery_date="2026-02-30"),
        [
            (
                "CE806",
                "$.delivery_date",
                'delivery_date must be an existing date written YYYY-MM-DD (e.g. "2026-04-01"), or null; found "2026-02-30"',
            )
        ],
    ),
    (
        changed(issues=["ambiguous_date"]),
        [("CE807", "$.status", 'status must be "needs_review" because there are issues; found "complete"')],
    ),
    (
        changed(action="cancel", items=[]),
        [("CE807", "$.status", 'status must be "cancelled" because the action is cancel; found "complete"')],
    ),
    (
        changed(status="needs_review"),
        [("CE807", "$.status", 'status must be "complete" because there is no issue; found "needs_review"')],
    ),
    (
        changed(action="cancel", status="cancelled"),
        [("CE808", "$.items", "a cancel lists no items; write [] (the reference names what is cancelled)")],
    ),
    (
        changed(currency="USD"),
        [("CE809", "$.issues", 'currency USD is never converted: add "unsupported_currency" to issues')],
    ),
    (
        changed(issues=["unsupported_currency"], status="needs_review"),
        [
            (
                "CE809",
                "$.currency",
                'unsupported_currency is for a request in US dollars: write "USD", or drop the issue',
            )
        ],
    ),
    (
        changed(issues=["ambiguous_date", "ambiguous_date"], status="needs_review"),
        [("CE810", "$.issues[1]", "ambiguous_date is listed twice; issues are a set, list it once")],
    ),
]


@pytest.mark.parametrize(("output", "expected"), TABLE)
def test_violations_exact(output: Any, expected: list[tuple[str, str, str]]) -> None:
    assert [(d.code, d.path, d.message) for d in violations(output)] == expected


def test_violations_every_checker_code_has_a_case() -> None:
    tested = {code for _, found in TABLE for code, _, _ in found}
    assert tested == {code for code in CODES if code <= "CE810"}


def test_violations_good_output_and_base_path() -> None:
    assert violations(GOOD) == []
    assert [d.path for d in violations(changed(currency="EUR"), ("output",))] == ["$.output.currency"]


@pytest.mark.parametrize(
    ("action", "issues", "status"),
    [
        ("cancel", [], "cancelled"),
        ("cancel", ["missing_reference"], "needs_review"),
        ("quote", [], "complete"),
        ("unknown", ["unknown_request"], "needs_review"),
    ],
)
def test_expected_status_rule(action: str, issues: list[str], status: str) -> None:
    assert expected_status(action, issues) == status


def _schema_valid(output: Any) -> bool:
    checker = FormatChecker(formats=())
    checker.checks("date")(lambda value: not isinstance(value, str) or is_valid_date(value))
    return Draft202012Validator(json.loads(SHIPPED.read_text(encoding="utf-8")), format_checker=checker).is_valid(
        output
    )


@pytest.mark.parametrize(("output", "expected"), TABLE)
def test_schema_agrees_with_the_checker(output: Any, expected: list[tuple[str, str, str]]) -> None:
    assert not _schema_valid(output), expected[0][0]


def test_schema_accepts_good_output_and_names_every_key() -> None:
    schema = json.loads(SHIPPED.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert _schema_valid(GOOD)
    assert tuple(schema["required"]) == KEYS


def test_schema_text_is_the_shipped_file() -> None:
    if str(schemas_folder()) != str(ROOT / "schemas"):
        pytest.skip(f"claim_evidence.schemas is installed from another checkout ({schemas_folder()})")
    assert schema_text() == SHIPPED.read_text(encoding="utf-8")
