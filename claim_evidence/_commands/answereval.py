"""``answer eval``: the answer guard's regression set, run case by case and counted per category.

A guard is only as good as the replies it has been shown. The set (JSON Lines, one case per
line; SCHEMA.md "Answer guard" gives the shape) pins what the guard must make of each reply —
the finding codes and the guarded fields — so a change that lets a forged tag, an invented URL
or 300億 for 30億 through fails here by name. Collect, then report: :func:`run_eval` returns
values, :func:`render_eval` lays them out; a malformed case is an :class:`InputError` naming
its line (exit 2), never a silent skip.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._answer.conversation import copy_text, trim_history
from .._answer.guard import GuardedAnswer, guard_answer
from .._answer.kb import KnowledgeBase
from .._answer.retrieve import retrieve
from .._core.diagnostics import Diagnostic, InputError, MalformedInput
from .._core.jsonio import loads
from .._core.textio import read_text

EXPECT_KEYS = (
    "codes",
    "answer",
    "confirmed",
    "unknown",
    "state",
    "sources",
    "refused",
    "copy",
    "history",
    "history_len",
)
CASE_KEYS = ("id", "category", "question", "chunks", "lang", "banned", "model", "history", "expect", "note")


@dataclass(frozen=True)
class CaseResult:
    line: int
    id: str
    category: str
    failures: tuple[str, ...]  # "field: expected …, got …"; empty when the case passed

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True)
class EvalResult:
    path: str
    cases: tuple[CaseResult, ...]

    @property
    def failed(self) -> int:
        return sum(not c.passed for c in self.cases)

    def by_category(self) -> dict[str, tuple[int, int]]:
        """Category → (passed, total), sorted by category."""
        total = Counter(c.category for c in self.cases)
        passed = Counter(c.category for c in self.cases if c.passed)
        return {name: (passed[name], total[name]) for name in sorted(total)}


def load_cases(path: str | os.PathLike[str]) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, case)`` for every non-blank line; a line that is no valid case is an InputError."""
    name = os.fspath(path)
    cases = []
    for number, line in enumerate(read_text(name).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = loads(line, name, line_offset=number - 1).value
        except MalformedInput as exc:  # a test input, not an editor's record: unusable input (exit 2)
            raise InputError(exc.diagnostic) from None
        problem = _case_problem(case)
        if problem:
            raise _bad(name, number, problem)
        cases.append((number, case))
    if not cases:
        raise _bad(name, None, "the regression set holds no case")
    return cases


def run_eval(path: str | os.PathLike[str], kb: KnowledgeBase | None) -> EvalResult:
    """Every case of the set at ``path``, against ``kb`` for chunk ids and retrieval."""
    name = os.fspath(path)
    results = []
    for number, case in load_cases(name):
        if "history" in case:
            failures = _compare_history(case["expect"], trim_history(case["history"]))
        else:
            guarded = guard_answer(
                case["model"], _chunks(case, kb, name, number), lang=case.get("lang", "ja"), banned=case.get("banned")
            )
            failures = _compare(case["expect"], guarded)
        results.append(CaseResult(number, case["id"], case["category"], tuple(failures)))
    return EvalResult(name, tuple(results))


def render_eval(result: EvalResult) -> str:
    """Per-category pass counts, then each failure with its line, then the totals."""
    categories = result.by_category()
    width = max(map(len, categories))
    lines = [f"{result.path}: {len(result.cases)} cases in {len(categories)} categories"]
    lines += [f"  {name.ljust(width)}  {passed}/{total}" for name, (passed, total) in categories.items()]
    for case in result.cases:
        lines += [f"FAIL {result.path}:{case.line} [{case.id}] {case.category}: {failure}" for failure in case.failures]
    lines.append(f"{len(result.cases) - result.failed} passed, {result.failed} failed")
    return "\n".join(lines) + "\n"


def _case_problem(case: Any) -> str | None:
    if not isinstance(case, dict):
        return "a case must be a JSON object"
    unknown = [k for k in case if k not in CASE_KEYS]
    if unknown:
        return f"unknown key {unknown[0]!r} (the keys are {', '.join(CASE_KEYS)})"
    for key in ("id", "category"):
        if not isinstance(case.get(key), str) or not case[key]:
            return f"{key} must be a non-empty string"
    expect = case.get("expect")
    if not isinstance(expect, dict) or not expect:
        return "expect must be an object naming what the guard must produce"
    wrong = [k for k in expect if k not in EXPECT_KEYS]
    if wrong:
        return f"unknown expectation {wrong[0]!r} (the keys are {', '.join(EXPECT_KEYS)})"
    if "history" in case:
        if not isinstance(case["history"], list) or "model" in case:
            return "a history case has a history list and no model output"
        return None
    if not isinstance(case.get("model"), str):
        return "model must be the raw model output, a string"
    chunks = case.get("chunks")
    if chunks is None and not isinstance(case.get("question"), str):
        return "without chunks, question must be a string (the chunks are retrieved for it)"
    if chunks is not None and (not isinstance(chunks, list) or not all(isinstance(c, (str, dict)) for c in chunks)):
        return "chunks must be a list of chunk ids and chunk objects"
    banned = case.get("banned")
    if banned is not None and (not isinstance(banned, list) or not all(isinstance(b, str) for b in banned)):
        return "banned must be a list of phrases"
    return None


def _chunks(case: Mapping[str, Any], kb: KnowledgeBase | None, name: str, number: int) -> list[Any]:
    wanted = case.get("chunks")
    if kb is None and (wanted is None or any(isinstance(c, str) for c in wanted)):
        raise _bad(name, number, "this case names chunks of a knowledge base (or retrieves them): give --kb KB")
    if wanted is None:
        assert kb is not None
        return retrieve(kb, case["question"])
    by_id = {c["id"]: c for c in kb.chunks} if kb is not None else {}
    out = []
    for chunk in wanted:
        if isinstance(chunk, str) and chunk not in by_id:
            raise _bad(name, number, f"no chunk {chunk!r} in the knowledge base")
        out.append(by_id[chunk] if isinstance(chunk, str) else chunk)
    return out


def _compare(expect: Mapping[str, Any], guarded: GuardedAnswer) -> list[str]:
    got: dict[str, Any] = {
        "codes": sorted(guarded.codes),
        "answer": guarded.answer,
        "confirmed": list(guarded.confirmed),
        "unknown": list(guarded.unknown),
        "state": guarded.state,
        "sources": [s["url"] for s in guarded.sources],
        "refused": guarded.refused,
        "copy": copy_text(guarded),
    }
    wanted = dict(expect)
    if "codes" in wanted and isinstance(wanted["codes"], list):
        wanted["codes"] = sorted(wanted["codes"], key=str)
    return _differences(wanted, got, ("history", "history_len"))


def _compare_history(expect: Mapping[str, Any], trimmed: list[dict[str, str]]) -> list[str]:
    got = {"history": trimmed, "history_len": len(trimmed)}
    return _differences(expect, got, tuple(k for k in EXPECT_KEYS if k not in got))


def _differences(wanted: Mapping[str, Any], got: Mapping[str, Any], foreign: tuple[str, ...]) -> list[str]:
    out = []
    for key, value in wanted.items():
        if key in foreign:
            out.append(f"{key}: not an expectation of this kind of case")
        elif json.dumps(value, sort_keys=True) != json.dumps(got[key], sort_keys=True):  # strict: true is not 1
            out.append(f"{key}: expected {_json(value)}, got {_json(got[key])}")
    return out


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _bad(name: str, line: int | None, message: str) -> InputError:
    return InputError(Diagnostic("CE701", message, subject="regression set", file=name, line=line))
