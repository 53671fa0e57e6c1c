"""``extract check``, ``extract run`` and ``extract score``: the extraction contract's commands.

``check`` holds outputs to the contract (:mod:`claim_evidence._extract.contract`), one finding per
violation with its line and column. ``run`` asks an extractor for every case of a set — the
rule baseline offline, or a model through the Anthropic Messages API (the ``chat`` extra; the key
from ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL`` honoured by the SDK) — and writes one record per
case, a reply that is no JSON recorded as such. ``score`` compares outputs with the set's expected
answers. None of them prints; the CLI does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import Diagnostic, MalformedInput, json_path
from .._core.errors import ExtractionRunError, InputError
from .._core.jsonio import loads
from .._core.jsonpos import placed
from .._core.report import FileResult, input_error_result
from .._core.textio import read_text
from .._extract.baseline import extract
from .._extract.cases import Case, OutputRecord, load_cases, load_outputs
from .._extract.contract import violations
from .._extract.prompt import parse_reply, request_body
from .._extract.score import Score, score_outputs

__all__ = ["BASELINE", "RunResult", "check_file", "check_text", "run_cases", "score_files"]

BASELINE = "baseline"
KEY_ENV = "ANTHROPIC_API_KEY"


# --- check ---------------------------------------------------------------------------------------


def check_file(path: str) -> FileResult:
    """The contract's findings for the output file at ``path`` (JSON, or JSON Lines)."""
    try:
        text = read_text(path)
    except InputError as exc:
        return input_error_result(path, exc)
    return check_text(text, path)


def check_text(text: str, name: str) -> FileResult:
    """The findings for ``text``: one output (a JSON object), or one output or run record per line.

    A run record (``{"id", "output", …}``) is checked at ``$.output``; its ``output: null`` (the
    reply was no JSON) is CE813. Text that is one JSON value is one output even when spread over
    lines; otherwise every non-blank line is one value.
    """
    found: list[Diagnostic] = []
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        message = "empty file: no extraction output (an output is one JSON object; JSON Lines hold one per line)"
        return FileResult(name, [Diagnostic("CE003", message, subject="file")])
    whole: Any = None
    parsed = False
    if not name.endswith(".jsonl"):
        try:
            whole, parsed = loads(text, name).value, True
        except MalformedInput as exc:
            if len(lines) == 1:
                return FileResult(name, [exc.diagnostic])
    if parsed:
        found = placed(_findings(whole), text)
    else:
        for number, line in lines:
            try:
                value = loads(line, name, line_offset=number - 1).value
            except MalformedInput as exc:
                found.append(exc.diagnostic)
                continue
            found += placed(_findings(value), line, origin=(number, 1))
    # The position says where; the JSON path says which field, in the words of the contract.
    return FileResult(name, [d if d.path == "$" else replace(d, message=f"{d.path}: {d.message}") for d in found])


def _findings(value: Any) -> list[Diagnostic]:
    if isinstance(value, dict) and "output" in value and "id" in value:
        if value["output"] is None:
            why = value.get("error") if isinstance(value.get("error"), str) else "no reason recorded"
            message = f"case {value['id']}: the model's reply was no JSON output ({why}); nothing to check, fix the prompt or the model"
            return [Diagnostic("CE813", message, json_path(("output",)), subject="extraction output")]
        return violations(value["output"], ("output",))
    return violations(value)


# --- run -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    out: str
    model: str
    records: tuple[OutputRecord, ...]

    @property
    def malformed(self) -> int:
        return sum(r.output is None for r in self.records)

    @property
    def violating(self) -> int:
        return sum(r.output is not None and bool(violations(r.output)) for r in self.records)


Extractor = Callable[[Case], OutputRecord]


def run_cases(
    cases_path: str, out: str, model: str = BASELINE, *, max_tokens: int = 1024, timeout: float = 60.0
) -> RunResult:
    """One output record per case of the set at ``cases_path``, written to ``out`` (JSON Lines, atomically)."""
    cases = load_cases(cases_path)
    extractor = _baseline if model == BASELINE else _model(model, max_tokens, timeout)
    records = tuple(extractor(case) for case in cases)
    data = "".join(json.dumps(r.as_json(), ensure_ascii=False) + "\n" for r in records)
    atomic_write_bytes(out, data.encode("utf-8"))
    return RunResult(out, model, records)


def _baseline(case: Case) -> OutputRecord:
    return OutputRecord(case.line, case.id, extract(case.as_request()))


def _model(model: str, max_tokens: int, timeout: float) -> Extractor:
    try:
        import anthropic
    except ImportError:
        raise ExtractionRunError(
            f"--model {model} asks the Anthropic API, and the SDK is not installed: "
            "pip install 'claim-evidence[chat]' (or use --model baseline, offline)"
        ) from None
    api_key = os.environ.get(KEY_ENV)
    if not api_key:
        raise ExtractionRunError(f"{KEY_ENV} is not set; --model {model} needs it (or use --model baseline, offline)")
    client = anthropic.Anthropic(api_key=api_key, timeout=timeout, max_retries=2)

    def ask(case: Case) -> OutputRecord:
        try:
            reply = client.messages.create(**request_body(case.as_request(), model, max_tokens))
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            # the same answer for every case: stop, write nothing
            raise ExtractionRunError(f"the API refused the key ({exc.status_code}: {_api_message(exc)})") from None
        except anthropic.APIStatusError as exc:
            failure = f"the API answered {exc.status_code}: {_api_message(exc)}"
            return OutputRecord(case.line, case.id, None, failure, None)
        except anthropic.AnthropicError as exc:  # connection, timeout: the case has no reply
            return OutputRecord(case.line, case.id, None, f"the API call failed: {type(exc).__name__}: {exc}", None)
        raw = "".join(block.text for block in reply.content if getattr(block, "type", "") == "text")
        output, error = parse_reply(raw)
        if error is not None:
            return OutputRecord(case.line, case.id, None, error, raw)
        return OutputRecord(case.line, case.id, output)

    return ask


def _api_message(exc: Any) -> str:
    """The API's own words for an error (``error.message`` of its JSON body), else the SDK's."""
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict) and isinstance(body["error"].get("message"), str):
        return f"{body['error'].get('type', 'error')}: {body['error']['message']}"
    return str(exc.message)


# --- score ---------------------------------------------------------------------------------------


def score_files(cases_path: str, outputs_path: str, baseline_path: str | None = None) -> Score:
    """The score of the outputs at ``outputs_path`` (and, with ``baseline_path``, the regressions)."""
    cases = load_cases(cases_path)
    baseline = load_outputs(baseline_path) if baseline_path is not None else None
    return score_outputs(
        cases,
        load_outputs(outputs_path),
        cases_path=cases_path,
        outputs_path=outputs_path,
        baseline=baseline,
        baseline_path=baseline_path,
    )
