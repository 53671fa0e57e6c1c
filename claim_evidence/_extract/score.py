"""Scoring extraction outputs against the case set: collect (:func:`score_outputs`), then report
(:func:`render`, in ``text``, ``json``, ``markdown`` or ``html``).

Per case: exact match (issues compared as a set), each of the eight fields right or wrong, the items
also field by field in order, the issues' true and false positives, and the contract's violations
(counted apart: a wrong value and a broken contract are different failures). With a baseline run, a
case got worse when fewer of its fields are right than in the baseline; any such case is a
regression. Every report says what the set is not: a small synthetic regression start, no accuracy
claim for unseen data.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.diagnostics import Diagnostic, InputError
from .._core.hints import terminal_safe
from .cases import Case, OutputRecord
from .contract import ITEM_KEYS, KEYS, iter_violations

__all__ = ["FORMATS", "LIMITS", "CaseScore", "Regression", "Score", "render", "score_outputs"]

FORMATS = ("text", "json", "markdown", "html")
# True of any set scored, a site's own too: the shipped one is also synthetic, and says so.
LIMITS = (
    "Limits: {n} cases chosen by hand (the shipped set is synthetic, written for the contract, not real "
    "requests): a regression start, not an accuracy claim for unseen data. Tuning an extractor or a prompt "
    "on this set says nothing about other data."
)


@dataclass(frozen=True)
class CaseScore:
    id: str
    category: str
    fields: dict[str, bool]  # KEYS -> right; issues compared as a set
    item_fields: tuple[int, int]  # (right, compared): items in order, field by field
    true_issues: frozenset[str]
    missed_issues: frozenset[str]
    extra_issues: frozenset[str]
    violations: tuple[str, ...]  # contract codes of the output
    problem: str | None = None  # "no output" or the reason the reply was no JSON

    @property
    def exact(self) -> bool:
        return all(self.fields.values())

    @property
    def points(self) -> int:
        return sum(self.fields.values())


@dataclass(frozen=True)
class Regression:
    id: str
    category: str
    before: int
    after: int
    lost: tuple[str, ...]  # fields right in the baseline, wrong now


@dataclass(frozen=True)
class Score:
    cases_path: str
    outputs_path: str
    cases: tuple[CaseScore, ...]
    baseline_path: str | None = None
    regressions: tuple[Regression, ...] = field(default=())

    @property
    def regressed(self) -> bool:
        return bool(self.regressions)


def score_outputs(
    cases: Sequence[Case],
    records: Sequence[OutputRecord],
    *,
    cases_path: str,
    outputs_path: str,
    baseline: Sequence[OutputRecord] | None = None,
    baseline_path: str | None = None,
) -> Score:
    """Every case scored against its output; an output for no case is an InputError (CE812)."""
    scored = _score_all(cases, records, outputs_path)
    regressions: tuple[Regression, ...] = ()
    if baseline is not None:
        before = {s.id: s for s in _score_all(cases, baseline, baseline_path or "")}
        regressions = tuple(_regression(before[s.id], s) for s in scored if s.points < before[s.id].points)
    return Score(cases_path, outputs_path, tuple(scored), baseline_path, regressions)


def _score_all(cases: Sequence[Case], records: Sequence[OutputRecord], name: str) -> list[CaseScore]:
    by_id = {r.id: r for r in records}
    known = {c.id for c in cases}
    for record in records:
        if record.id not in known:
            message = f"an output for {record.id!r}, which is no case of the set; score outputs of this set only"
            raise InputError(Diagnostic("CE812", message, subject="outputs", file=name, line=record.line))
    return [_score_case(case, by_id.get(case.id)) for case in cases]


def _score_case(case: Case, record: OutputRecord | None) -> CaseScore:
    expected = case.expected
    wanted = set(expected["issues"])
    if record is None or record.output is None:
        problem = "no output" if record is None else f"malformed output: {record.error}"
        return CaseScore(
            case.id, case.category, dict.fromkeys(KEYS, False), (0, _item_total(expected["items"], [])),
            frozenset(), frozenset(wanted), frozenset(), (), problem,
        )  # fmt: skip
    output = record.output
    codes = tuple(d.code for d in iter_violations(output))
    got = output if isinstance(output, dict) else {}
    issues = got.get("issues")
    found = {i for i in issues if isinstance(i, str)} if isinstance(issues, list) else set()
    fields = {key: _same(key, expected[key], got.get(key, _ABSENT)) for key in KEYS}
    listed = got.get("items")
    items: list[Any] = listed if isinstance(listed, list) else []
    right = sum(
        isinstance(g, dict) and key in g and _same(key, e[key], g[key])
        for e, g in zip(expected["items"], items, strict=False)
        for key in ITEM_KEYS
    )
    return CaseScore(
        case.id, case.category, fields, (right, _item_total(expected["items"], items)),
        frozenset(found & wanted), frozenset(wanted - found), frozenset(found - wanted), codes,
    )  # fmt: skip


_ABSENT = object()


def _same(key: str, expected: Any, got: Any) -> bool:
    if key == "issues":
        return isinstance(got, list) and all(isinstance(i, str) for i in got) and set(got) == set(expected)
    # type-exact: "12" is not 12, false is not 0
    return json.dumps(expected, sort_keys=True) == json.dumps(got, sort_keys=True) if got is not _ABSENT else False


def _item_total(expected: list[Any], got: list[Any]) -> int:
    return max(len(expected), len(got)) * len(ITEM_KEYS)


def _regression(before: CaseScore, after: CaseScore) -> Regression:
    lost = tuple(k for k in KEYS if before.fields[k] and not after.fields[k])
    return Regression(after.id, after.category, before.points, after.points, lost)


# --- what the reports say ------------------------------------------------------------------------


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def _summary(scores: Sequence[CaseScore]) -> dict[str, Any]:
    tp = sum(len(s.true_issues) for s in scores)
    fn = sum(len(s.missed_issues) for s in scores)
    fp = sum(len(s.extra_issues) for s in scores)
    return {
        "cases": len(scores),
        "exact": sum(s.exact for s in scores),
        "fields": {k: sum(s.fields[k] for s in scores) for k in KEYS},
        "item_fields": [sum(s.item_fields[0] for s in scores), sum(s.item_fields[1] for s in scores)],
        "issues": {"true": tp, "missed": fn, "extra": fp},
        "status": sum(s.fields["status"] for s in scores),
    }


def _categories(score: Score) -> dict[str, list[CaseScore]]:
    out: dict[str, list[CaseScore]] = {}
    for case in score.cases:
        out.setdefault(case.category, []).append(case)
    return out


def as_json(score: Score) -> dict[str, Any]:
    """The report's data with fixed keys (the ``json`` format)."""
    violations = Counter(code for s in score.cases for code in s.violations)
    return {
        "cases_file": score.cases_path,
        "outputs_file": score.outputs_path,
        "total": _summary(score.cases),
        "issues_missed": dict(sorted(Counter(i for s in score.cases for i in s.missed_issues).items())),
        "issues_extra": dict(sorted(Counter(i for s in score.cases for i in s.extra_issues).items())),
        "contract_violations": {
            "outputs": sum(bool(s.violations) for s in score.cases),
            "codes": dict(sorted(violations.items())),
        },
        "malformed": sum(s.problem is not None and s.problem != "no output" for s in score.cases),
        "missing": sum(s.problem == "no output" for s in score.cases),
        "categories": {name: _summary(group) for name, group in _categories(score).items()},
        "cases": [
            {
                "id": s.id,
                "category": s.category,
                "exact": s.exact,
                "wrong": [k for k in KEYS if not s.fields[k]],
                "issues_missed": sorted(s.missed_issues),
                "issues_extra": sorted(s.extra_issues),
                "violations": list(s.violations),
                "problem": s.problem,
            }
            for s in score.cases
        ],
        "baseline_file": score.baseline_path,
        "regressions": [
            {"id": r.id, "category": r.category, "before": r.before, "after": r.after, "lost": list(r.lost)}
            for r in score.regressions
        ],
        "limits": LIMITS.format(n=len(score.cases)),
    }


def _rows(score: Score) -> tuple[list[str], list[list[str]]]:
    """The per-category table: a header and one row per category, then the total."""
    header = ["category", "cases", "exact", "fields", "items (field by field)", "issues P", "issues R", "status"]
    rows = []
    groups = {**_categories(score), "total": list(score.cases)}
    for name, group in groups.items():
        s = _summary(group)
        right = sum(s["fields"].values())
        i = s["issues"]
        rows.append(
            [
                name,
                str(s["cases"]),
                f"{s['exact']}/{s['cases']}",
                _pct(right, s["cases"] * len(KEYS)),
                _pct(*s["item_fields"]),
                _pct(i["true"], i["true"] + i["extra"]),
                _pct(i["true"], i["true"] + i["missed"]),
                _pct(s["status"], s["cases"]),
            ]
        )
    return header, rows


def _lines(score: Score) -> list[str]:
    """The findings under the tables, as plain sentences (shared by every format but json)."""
    data = as_json(score)
    total = data["total"]
    lines = [f"exact match: {total['exact']}/{total['cases']} ({_pct(total['exact'], total['cases'])})"]
    lines += [f"field {key}: {n}/{total['cases']} ({_pct(n, total['cases'])})" for key, n in total["fields"].items()]
    lines.append(
        f"items field by field: {total['item_fields'][0]}/{total['item_fields'][1]} ({_pct(*total['item_fields'])})"
    )
    i = total["issues"]
    lines.append(
        f"issues: precision {_pct(i['true'], i['true'] + i['extra'])} ({i['true']}/{i['true'] + i['extra']}), "
        f"recall {_pct(i['true'], i['true'] + i['missed'])} ({i['true']}/{i['true'] + i['missed']})"
    )
    lines.append("issues missed: " + (", ".join(f"{k} {n}" for k, n in data["issues_missed"].items()) or "none"))
    lines.append("issues extra: " + (", ".join(f"{k} {n}" for k, n in data["issues_extra"].items()) or "none"))
    cv = data["contract_violations"]
    codes = ", ".join(f"{k} {n}" for k, n in cv["codes"].items())
    lines.append(
        f"contract violations: {cv['outputs']} of {len(score.cases)} outputs" + (f" ({codes})" if codes else "")
    )
    lines.append(f"malformed outputs: {data['malformed']}; no output: {data['missing']}")
    for s in score.cases:
        if s.exact:
            continue
        why = [s.problem] if s.problem else []
        why += ["wrong " + ", ".join(k for k in KEYS if not s.fields[k])] if not s.problem else []
        why += ["missed " + ", ".join(sorted(s.missed_issues))] if s.missed_issues else []
        why += ["extra " + ", ".join(sorted(s.extra_issues))] if s.extra_issues else []
        why += ["violates " + ", ".join(s.violations)] if s.violations else []
        lines.append(f"MISS {s.id} ({s.category}): " + "; ".join(why))
    if score.baseline_path is not None:
        lines.append(f"against {score.baseline_path}: {len(score.regressions)} cases got worse")
        lines += [
            f"WORSE {r.id} ({r.category}): {r.before}/{len(KEYS)} -> {r.after}/{len(KEYS)} fields right; lost {', '.join(r.lost)}"
            for r in score.regressions
        ]
    lines.append(LIMITS.format(n=len(score.cases)))
    return lines


def render(score: Score, fmt: str = "text") -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`); the same inputs give the same bytes."""
    if fmt == "json":
        return json.dumps(as_json(score), ensure_ascii=False, indent=2) + "\n"
    header, rows = _rows(score)
    title = f"extraction score: {score.outputs_path} against {score.cases_path}"
    lines = _lines(score)
    if fmt == "text":
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        table = [
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]
        ]
        # ids and paths come from the files: nothing in them may act on a terminal
        return "\n".join(terminal_safe(line) for line in [title, *table, *lines]) + "\n"
    if fmt == "markdown":
        table = ["| " + " | ".join(_md(c) for c in row) + " |" for row in [header, ["---"] * len(header), *rows]]
        return "\n".join([f"# {_md(title)}", "", *table, "", *(f"- {_md(line)}" for line in lines)]) + "\n"
    if fmt == "html":
        head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>\n" for row in rows)
        items = "".join(f"<li>{html.escape(line)}</li>\n" for line in lines)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>'
            f"{html.escape(title)}</title></head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
            f"<table>\n<tr>{head}</tr>\n{body}</table>\n<ul>\n{items}</ul>\n</body>\n</html>\n"
        )
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def _md(text: str) -> str:
    """Markdown-inert: a pipe or a markup character in an id or a path stays text."""
    return "".join("\\" + c if c in "\\|*_`[]<#" else c for c in text)
