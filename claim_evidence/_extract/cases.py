"""The case set and the output files, read line by line with every problem naming its line.

A case (JSON Lines, one per line; SCHEMA.md "Extraction contract")::

    {"id": "quote-01", "category": "plain_quote", "input": "…", "reference_date": "2026-04-01",
     "timezone": "Asia/Tokyo", "expected": {…the output the contract asks for…}}

``note`` may say why a case exists. An output file holds one record per case,
``{"id", "output"}``, and for a reply that was no JSON ``{"id", "output": null, "error", "raw"}``.
A line that is neither is an :class:`~claim_evidence._core.diagnostics.InputError` (exit 2), never
skipped: a regression set that silently loses a case has stopped measuring it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, InputError, MalformedInput
from .._core.jsonio import loads
from .._core.textio import read_text
from .contract import violations

__all__ = ["CASE_KEYS", "RECORD_KEYS", "Case", "OutputRecord", "load_cases", "load_outputs"]

CASE_KEYS = ("id", "category", "input", "reference_date", "timezone", "expected", "note")
RECORD_KEYS = ("id", "output", "error", "raw", "model")


@dataclass(frozen=True)
class Case:
    line: int
    id: str
    category: str
    input: str
    reference_date: str
    timezone: str
    expected: dict[str, Any]

    def as_request(self) -> dict[str, Any]:
        """What an extractor sees: the request and its date context, never the expected answer."""
        return {"id": self.id, "input": self.input, "reference_date": self.reference_date, "timezone": self.timezone}


@dataclass(frozen=True)
class OutputRecord:
    line: int
    id: str
    output: Any  # None when the reply was no JSON (``error`` says why)
    error: str | None = None
    raw: str | None = None

    def as_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {"id": self.id, "output": None, "error": self.error, "raw": self.raw}
        return {"id": self.id, "output": self.output}


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """Every case of the set at ``path``; a line that is no valid case raises CE811 with its line."""
    name = os.fspath(path)
    cases: list[Case] = []
    seen: set[str] = set()
    for number, value in _lines(name, "CE811"):
        problem = _case_problem(value, seen)
        if problem:
            raise _bad("CE811", name, number, problem)
        seen.add(value["id"])
        keys = {k: value[k] for k in CASE_KEYS[:-1]}
        cases.append(Case(number, **keys))
    if not cases:
        raise _bad("CE811", name, None, "the case set holds no case")
    return cases


def load_outputs(path: str | os.PathLike[str]) -> list[OutputRecord]:
    """Every output record at ``path``; a line that is none raises CE812 with its line."""
    name = os.fspath(path)
    records: list[OutputRecord] = []
    seen: set[str] = set()
    for number, value in _lines(name, "CE812"):
        problem = _record_problem(value, seen)
        if problem:
            raise _bad("CE812", name, number, problem)
        seen.add(value["id"])
        records.append(OutputRecord(number, value["id"], value["output"], value.get("error"), value.get("raw")))
    return records


def _lines(name: str, code: str) -> list[tuple[int, Any]]:
    out = []
    for number, line in enumerate(read_text(name).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, loads(line, name, line_offset=number - 1).value))
        except MalformedInput as exc:  # a test input, not an editor's record: unusable input (exit 2)
            raise _bad(code, name, number, f"not one JSON value per line ({exc.diagnostic.message})") from None
    return out


def _case_problem(case: Any, seen: set[str]) -> str | None:
    if not isinstance(case, dict):
        return "a case must be a JSON object"
    unknown = [k for k in case if k not in CASE_KEYS]
    if unknown:
        return f"unknown key {unknown[0]!r} (the keys are {', '.join(CASE_KEYS)})"
    missing = [k for k in CASE_KEYS[:-1] if k not in case]
    if missing:
        return f"{missing[0]} is missing (a case has {', '.join(CASE_KEYS[:-1])}; note is optional)"
    for key in ("id", "category", "input", "timezone"):
        if not isinstance(case[key], str) or not case[key].strip():
            return f"{key} must be a non-empty string"
    if case["id"] in seen:
        return f"id {case['id']!r} is used by an earlier case; ids are unique"
    if not is_valid_date(case["reference_date"]):
        return f"reference_date must be an existing date written YYYY-MM-DD; found {case['reference_date']!r}"
    wrong = violations(case["expected"], ("expected",))
    if wrong:
        return f"expected breaks the contract at {wrong[0].path}: {wrong[0].code} {wrong[0].message}"
    return None


def _record_problem(record: Any, seen: set[str]) -> str | None:
    if not isinstance(record, dict):
        return 'an output record must be a JSON object {"id": …, "output": …}'
    unknown = [k for k in record if k not in RECORD_KEYS]
    if unknown:
        return f"unknown key {unknown[0]!r} (the keys are {', '.join(RECORD_KEYS)})"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "id must be the case's id, a non-empty string"
    if record["id"] in seen:
        return f"id {record['id']!r} has an earlier output; one output per case"
    if "output" not in record:
        return "output is missing (null, with error and raw, when the reply was no JSON)"
    if record["output"] is None and not isinstance(record.get("error"), str):
        return "an output of null needs error, a string saying what was wrong with the reply"
    return None


def _bad(code: str, name: str, line: int | None, message: str) -> InputError:
    return InputError(
        Diagnostic(code, message, subject="case set" if code == "CE811" else "outputs", file=name, line=line)
    )
