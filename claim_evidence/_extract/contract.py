"""The extraction contract, version 1, and the checker that holds every rule it can hold without the input.

An output is exactly eight keys (:data:`KEYS`). What a checker can prove from the output alone: the key
set, the types, the vocabularies, the decimal-string form of quantities and prices, the date form, the
status rule (``needs_review`` if any issue, else ``cancelled`` for a cancel, else ``complete``), no items
on a cancel, ``USD`` exactly when ``unsupported_currency``, no issue twice. Whether the values are the
right ones for the request is the scorer's (:mod:`.score`), against a reference answer.

Each violation is a :class:`~claim_evidence._core.diagnostics.Diagnostic` with its code (CE800–CE810),
the JSON path and what to write instead. One generator underneath (:func:`iter_violations`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, PathParts, json_path
from .normalize import AmbiguousNumber, is_decimal_string, normalize_decimal, split_quantity

__all__ = [
    "ACTIONS",
    "CODES",
    "CURRENCIES",
    "ISSUES",
    "ITEM_KEYS",
    "KEYS",
    "STATUSES",
    "SCHEMA_FILE",
    "expected_status",
    "iter_violations",
    "schema_text",
    "violations",
]

KEYS = ("action", "reference", "currency", "items", "tax_included", "delivery_date", "issues", "status")
ITEM_KEYS = ("product", "quantity", "unit", "unit_price")
ACTIONS = ("quote", "order", "change", "cancel", "unknown")
CURRENCIES = ("JPY", "USD")
STATUSES = ("complete", "needs_review", "cancelled")
ISSUES = (
    "missing_quantity",
    "ambiguous_quantity",
    "conflicting_quantity",
    "ambiguous_unit",
    "missing_reference",
    "ambiguous_date",
    "conflicting_date",
    "untrusted_instruction",
    "unknown_request",
    "conflicting_action",
    "unsupported_currency",
    "insufficient_context",
)
# Code → what it means (SCHEMA.md "Extraction contract" lists the same; a test holds the two together).
CODES = {
    "CE800": "the output is not a JSON object",
    "CE801": "a required key is missing",
    "CE802": "a key the contract does not have",
    "CE803": "a value of the wrong type",
    "CE804": "a value outside the contract's vocabulary",
    "CE805": "a quantity or price that is not a decimal string",
    "CE806": "a delivery date that is not an existing YYYY-MM-DD date",
    "CE807": "a status that breaks the status rule",
    "CE808": "a cancel that lists items",
    "CE809": "currency USD without the issue unsupported_currency, or the issue without USD",
    "CE810": "an issue listed twice",
    # not the checker's, the files' (exit 2 for the first two: the set or the outputs cannot be used)
    "CE811": "a line of the case set that is no valid case",
    "CE812": "a line of an outputs file that is no output record, or an output for no case of the set",
    "CE813": "a run record whose model reply was no JSON (output null)",
}
_SUBJECT = "extraction output"
_WORDS = {str: "a string", bool: "true or false", list: "an array", dict: "an object"}


def expected_status(action: object, issues: list[Any]) -> str:
    """The status rule: ``needs_review`` if any issue, else ``cancelled`` for a cancel, else ``complete``."""
    if issues:
        return "needs_review"
    return "cancelled" if action == "cancel" else "complete"


def violations(output: Any, base: PathParts = ()) -> list[Diagnostic]:
    """Every violation of ``output``, in key order (:func:`iter_violations` as a list)."""
    return list(iter_violations(output, base))


def iter_violations(output: Any, base: PathParts = ()) -> Iterator[Diagnostic]:
    """The contract's violations in ``output``; ``base`` prefixes every path (``("output",)`` for a run record)."""

    def finding(code: str, parts: PathParts, message: str) -> Diagnostic:
        return Diagnostic(code, message, json_path(base + parts), subject=_SUBJECT)

    if not isinstance(output, dict):
        yield finding(
            "CE800", (), f"the output must be a JSON object with the keys {', '.join(KEYS)}; found {_kind(output)}"
        )
        return
    for key in KEYS:
        if key not in output:
            yield finding(
                "CE801", (), f"{key} is missing; every output has all eight keys (write null or [] when unknown)"
            )
    for key in output:
        if key not in KEYS:
            yield finding(
                "CE802", (key,), f"{key!r} is not a key of the contract; remove it (the keys are {', '.join(KEYS)})"
            )
    for parts, code, message in _field_problems(output):
        yield finding(code, parts, message)
    yield from (finding(code, parts, message) for parts, code, message in _rule_problems(output))


def _field_problems(output: dict[str, Any]) -> Iterator[tuple[PathParts, str, str]]:
    if "action" in output:
        yield from _choice(("action",), output["action"], ACTIONS, nullable=False)
    if "reference" in output:
        yield from _string(("reference",), output["reference"], 'an explicit target number such as "Q-101"')
    if "currency" in output:
        yield from _choice(("currency",), output["currency"], CURRENCIES, nullable=False)
    if "items" in output:
        yield from _items(output["items"])
    if "tax_included" in output and output["tax_included"] is not None and not isinstance(output["tax_included"], bool):
        yield (
            ("tax_included",),
            "CE803",
            f"tax_included must be true, false or null; found {_kind(output['tax_included'])}",
        )
    if "delivery_date" in output:
        yield from _date(output["delivery_date"])
    if "issues" in output:
        issues = output["issues"]
        if not isinstance(issues, list):
            yield ("issues",), "CE803", f"issues must be an array of issue names ([] for none); found {_kind(issues)}"
        else:
            for index, issue in enumerate(issues):
                yield from _choice(("issues", index), issue, ISSUES, nullable=False)
    if "status" in output:
        yield from _choice(("status",), output["status"], STATUSES, nullable=False)


def _rule_problems(output: dict[str, Any]) -> Iterator[tuple[PathParts, str, str]]:
    issues = output.get("issues")
    issues = [i for i in issues if isinstance(i, str)] if isinstance(issues, list) else None
    if issues is not None:
        seen: set[str] = set()
        for index, issue in enumerate(output["issues"]):
            if isinstance(issue, str) and issue in seen:
                yield ("issues", index), "CE810", f"{issue} is listed twice; issues are a set, list it once"
            if isinstance(issue, str):
                seen.add(issue)
    action = output.get("action")
    status = output.get("status")
    if issues is not None and action in ACTIONS and status in STATUSES:
        wanted = expected_status(action, issues)
        if status != wanted:
            why = (
                "there are issues"
                if issues
                else ("the action is cancel" if action == "cancel" else "there is no issue")
            )
            yield ("status",), "CE807", f'status must be "{wanted}" because {why}; found "{status}"'
    items = output.get("items")
    if action == "cancel" and isinstance(items, list) and items:
        yield ("items",), "CE808", "a cancel lists no items; write [] (the reference names what is cancelled)"
    currency = output.get("currency")
    if issues is not None and currency in CURRENCIES:
        flagged = "unsupported_currency" in issues
        if currency == "USD" and not flagged:
            yield ("issues",), "CE809", 'currency USD is never converted: add "unsupported_currency" to issues'
        elif currency == "JPY" and flagged:
            yield (
                ("currency",),
                "CE809",
                'unsupported_currency is for a request in US dollars: write "USD", or drop the issue',
            )


def _items(items: Any) -> Iterator[tuple[PathParts, str, str]]:
    if not isinstance(items, list):
        yield ("items",), "CE803", f"items must be an array ([] for none); found {_kind(items)}"
        return
    for index, item in enumerate(items):
        at: PathParts = ("items", index)
        if not isinstance(item, dict):
            yield at, "CE803", f"an item must be an object with the keys {', '.join(ITEM_KEYS)}; found {_kind(item)}"
            continue
        for key in ITEM_KEYS:
            if key not in item:
                yield at, "CE801", f"{key} is missing from the item; write null when unknown"
        for key in item:
            if key not in ITEM_KEYS:
                yield (
                    (*at, key),
                    "CE802",
                    f"{key!r} is not a key of an item; remove it (the keys are {', '.join(ITEM_KEYS)})",
                )
        if "product" in item:
            product = item["product"]
            if not isinstance(product, str) or not product.strip():
                yield (
                    (*at, "product"),
                    "CE803",
                    f"product must be the name as written, a non-empty string; found {_kind(product)}",
                )
        for key in ("quantity", "unit_price"):
            if key in item:
                yield from _decimal((*at, key), item[key])
        if "unit" in item:
            yield from _string((*at, "unit"), item["unit"], 'the unit as written, such as "箱"')


def _decimal(at: PathParts, value: Any) -> Iterator[tuple[PathParts, str, str]]:
    if value is None or is_decimal_string(value):
        return
    name = str(at[-1])
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        yield at, "CE803", f'{name} must be a decimal string such as "12", or null; found {_kind(value)}'
        return
    written = str(value)
    try:
        instead = f'write "{normalize_decimal(written)}"'
    except AmbiguousNumber:
        instead = 'write the number alone, such as "12" or "2.5"'
        try:
            number, unit = split_quantity(written)
            instead = f'write "{number}" (and "{unit}" as the unit)' if unit else instead
        except AmbiguousNumber:
            pass
    kind = "a JSON number" if not isinstance(value, str) else f'"{value}"'
    yield at, "CE805", f"{name} must be a decimal string without unit, sign or separators; found {kind}: {instead}"


def _date(value: Any) -> Iterator[tuple[PathParts, str, str]]:
    if value is None:
        return
    if not isinstance(value, str):
        yield ("delivery_date",), "CE803", f"delivery_date must be a YYYY-MM-DD string or null; found {_kind(value)}"
    elif not is_valid_date(value):
        yield (
            ("delivery_date",),
            "CE806",
            f'delivery_date must be an existing date written YYYY-MM-DD (e.g. "2026-04-01"), or null; found "{value}"',
        )


def _string(at: PathParts, value: Any, what: str) -> Iterator[tuple[PathParts, str, str]]:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        yield at, "CE803", f"{at[-1]} must be {what}, or null; found {_kind(value)}"


def _choice(
    at: PathParts, value: Any, allowed: tuple[str, ...], *, nullable: bool
) -> Iterator[tuple[PathParts, str, str]]:
    name = "an issue" if at[0] == "issues" else str(at[-1])
    if value is None and nullable:
        return
    if not isinstance(value, str):
        yield at, "CE803", f"{name} must be one of {', '.join(allowed)}; found {_kind(value)}"
    elif value not in allowed:
        yield at, "CE804", f'{name} must be one of {", ".join(allowed)}; found "{value}"'


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if value == "":
        return "an empty string"
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:40] + "…", ensure_ascii=False)
    return _WORDS.get(type(value), type(value).__name__)


SCHEMA_FILE = "extraction-v1.schema.json"


def schema_text() -> str:
    """The contract's JSON Schema as shipped (``claim_evidence/schemas/extraction-v1.schema.json``)."""
    from .._record.schema import schemas_folder

    return schemas_folder().joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
