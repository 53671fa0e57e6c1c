"""Golden files for every output format; regenerate deliberately with
``UPDATE_GOLDEN=1 pytest tests/unit/core/test_report.py`` and review the diff."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from claim_evidence import Diagnostic
from claim_evidence._core.report import REPORTERS, FileResult
from claim_evidence.cli import main

from ...conftest import ROOT

GOLDEN = ROOT / "tests" / "data" / "report"


def _results() -> list[FileResult]:
    return [
        FileResult("site/ok.html", detail="statement bindings, recorded reviews and evidence display"),
        FileResult(
            "site/a,b:c%.html",
            [
                Diagnostic(
                    "SH103",
                    "body text differs from reviewed statement\nline two",
                    "$.claims[0]",
                    "error",
                    "claim x",
                    line=12,
                    column=5,
                ),
                Diagnostic(
                    "CE900",
                    "unknown key 'uncertanity'; did you mean 'uncertainty'?",
                    "$.claims[0].uncertanity",
                    "warning",
                    "claim x",
                ),
            ],
        ),
        FileResult(
            "site/legacy.html",
            status="unregistered",
            detail="carries evidence markup but is not registered in claim-evidence.toml",
        ),
        FileResult(
            "bundle.json",
            [Diagnostic("CE003", "invalid JSON: Expecting value", file="bundle.json", line=2, column=14)],
            status="unreadable",
        ),
    ]


@pytest.mark.parametrize("name", sorted(REPORTERS))
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_report_golden(name: str, strict: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    output = REPORTERS[name](_results(), strict, "page")
    golden = GOLDEN / f"{name}-{'strict' if strict else 'default'}.out"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(output, encoding="utf-8")
    assert output == golden.read_text(encoding="utf-8")


def test_report_github_escapes_data_and_properties() -> None:
    out = REPORTERS["github"](_results(), False, "page")
    assert (
        "::error file=site/a%2Cb%3Ac%25.html,line=12,col=5,title=SH103::$.claims[0]: body text differs from reviewed statement%0Aline two"
        in out
    )


def test_report_sarif_is_2_1_0_with_rules_and_relative_uris(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = json.loads(REPORTERS["sarif"](_results(), False, "page"))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["CE003", "CE900", "SH103"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    assert uris == ["site/a%2Cb%3Ac%25.html", "site/a%2Cb%3Ac%25.html", "bundle.json"]
    assert [r["ruleIndex"] for r in run["results"]] == [2, 1, 0]


def test_report_summary_counts_unregistered_separately() -> None:
    assert (
        REPORTERS["text"](_results(), False, "page").splitlines()[-1] == "4 pages: 1 passed, 2 failed, 1 unregistered"
    )


# --- SARIF 2.1.0 schema conformance, with format checking -------------------------------------

SARIF_SCHEMA_FILE = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"  # see SOURCE.md beside it


def _sarif_errors(log: dict[str, Any]) -> list[str]:
    """Every violation of the official SARIF 2.1.0 schema, ``uri``/``uri-reference`` formats included."""
    schema = json.loads(SARIF_SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    checker = Draft7Validator.FORMAT_CHECKER
    # jsonschema checks these formats only when rfc3986-validator (or rfc3987) is importable, and
    # otherwise passes every string silently: fail here rather than validate nothing.
    assert {"uri", "uri-reference"} <= set(checker.checkers), (
        "uri formats unchecked: install the test extra (rfc3986-validator)"
    )
    validator = Draft7Validator(schema, format_checker=checker)
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def _assert_covers_the_cases(log: dict[str, Any]) -> None:
    """The log must exercise what the schema checks: errors and warnings, findings with and
    without a region, more than one file."""
    results = log["runs"][0]["results"]
    assert {r["level"] for r in results} == {"error", "warning"}
    assert {"region" in r["locations"][0]["physicalLocation"] for r in results} == {True, False}
    assert len({r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}) >= 2


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_report_sarif_validates_against_the_sarif_2_1_0_schema(
    strict: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    outside = tmp_path / "elsewhere.json"  # not under the working folder: an absolute file: URI
    results = _results() + [
        FileResult(
            "記事 1.json",
            [
                Diagnostic(
                    "CE403",
                    "review fingerprint does not match current statement/conditions/sources",
                    "$.claims[0].verification.fingerprint",
                    "error",
                    "claim x",
                )
            ],
        ),
        FileResult(
            str(outside),
            [
                Diagnostic(
                    "CE901",
                    "duplicate key in the JSON text: only the last value is kept",
                    "$.claims[0].status",
                    "warning",
                    "claim x",
                    line=20,
                    column=7,
                )
            ],
        ),
    ]
    log = json.loads(REPORTERS["sarif"](results, strict, "page"))
    if not strict:  # strict raises every warning to an error
        _assert_covers_the_cases(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert {"%E8%A8%98%E4%BA%8B%201.json", outside.resolve().as_uri()} <= uris
    for found in log["runs"][0]["results"]:  # a base only beside a relative URI (sarif-sdk rule SARIF1004)
        location = found["locations"][0]["physicalLocation"]["artifactLocation"]
        assert ("uriBaseId" in location) == (not location["uri"].startswith("file:")), location
    assert _sarif_errors(log) == []


def test_report_sarif_schema_check_rejects_a_relative_help_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: the same validation must catch what the reporter used to emit, so a pass
    above means the formats were checked."""
    monkeypatch.chdir(ROOT)
    log = json.loads(REPORTERS["sarif"](_results(), False, "page"))
    assert _sarif_errors(log) == []
    log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "SCHEMA.md"
    assert _sarif_errors(log) == ["/runs/0/tool/driver/rules/0/helpUri: 'SCHEMA.md' is not a 'uri'"]
    log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "https://example.org/rules/CE003"
    assert _sarif_errors(log) == []


def test_cli_validate_format_sarif_validates_against_the_schema(
    bundle: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    repo.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(repo)
    findings = copy.deepcopy(bundle)
    findings["claims"][0]["basis"] = "vibes"  # CE303 error, and CE403 (the review no longer matches)
    findings["claims"][0]["uncertanity"] = "typo"  # CE900 warning
    Path("a,b:c%.json").write_text(json.dumps(findings, ensure_ascii=False, indent=2), encoding="utf-8")
    Path("記事 1.json").write_text('{\n  "claims": [\n    NaN\n  ]\n}\n', encoding="utf-8")  # CE003, no position
    Path("syntax.json").write_text('{\n  "claims": [\n    1,\n  ]\n}\n', encoding="utf-8")  # CE003 at 4:3
    duplicate = elsewhere / "dup.json"  # CE901 warning, outside the working folder
    text = json.dumps(bundle, ensure_ascii=False, indent=2)
    duplicate.write_text(
        text.replace('"status": "matched"', '"status": "unverified", "status": "matched"', 1), encoding="utf-8"
    )

    code = main(["validate", "--format", "sarif", "a,b:c%.json", "記事 1.json", "syntax.json", str(duplicate)])
    out, _ = capsys.readouterr()
    assert code != 0
    log = json.loads(out)
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == [
        "CE003",
        "CE303",
        "CE403",
        "CE900",
        "CE901",
        "CE905",
    ]
    _assert_covers_the_cases(log)
    assert _sarif_errors(log) == []


def test_report_public_entry_point_matches_each_reporter() -> None:
    import claim_evidence
    from claim_evidence._core.report import REPORTERS, text_report

    results = [
        claim_evidence.FileResult(
            "a.json", [claim_evidence.Diagnostic("CE303", "unknown basis", "$.claims[0].basis", subject="claim x")]
        ),
        claim_evidence.FileResult("b.json"),
    ]
    assert claim_evidence.REPORT_FORMATS == ("text", "json", "github", "sarif")
    for fmt in claim_evidence.REPORT_FORMATS:
        assert claim_evidence.report(results, fmt, noun="file") == REPORTERS[fmt](results, False, "file")
    assert claim_evidence.report(results, headers=True, noun="target") == text_report(
        results, False, "target", headers=True
    )
    assert claim_evidence.report(results).splitlines()[0] == "a.json:$.claims[0].basis: CE303 [x] unknown basis"
    assert claim_evidence.exit_code(results) == 1
    with pytest.raises(ValueError, match="unknown report format 'xml'; expected one of text, json, github, sarif"):
        claim_evidence.report(results, "xml")


def test_report_text_lists_a_files_findings_in_position_order() -> None:
    """By line and column, as an editor reads the file; a finding without a position keeps its place (the
    page check puts one about the whole page first, --write its SH150 last); a finding in another file (an
    article's registry) after this file's, in the order files first come."""
    here = [
        Diagnostic("CE303", "late", "$.claims[0].basis", line=9, column=3),
        Diagnostic("CE900", "no position", "$.claims[0].x", "warning"),
        Diagnostic("CE302", "second", "$.claims[0].statement", line=2, column=5),
        Diagnostic("CE001", "other file", file="registry.json", line=1, column=1),
        Diagnostic("CE101", "first", "$.version", line=2, column=1),
        Diagnostic("CE104", "tie keeps the checks' order", "$.subject_fingerprint", line=2, column=5),
    ]
    lines = REPORTERS["text"]([FileResult("a.json", here)], False, "file").splitlines()
    assert [line.split(": ", 1)[0] for line in lines[:-1]] == [
        "a.json:2:1",
        "a.json:$.claims[0].x",
        "a.json:2:5",
        "a.json:2:5",
        "a.json:9:3",
        "registry.json:1:1",
    ]
    assert lines[3].endswith("tie keeps the checks' order")
    json_order = [
        d["code"]
        for d in json.loads(REPORTERS["json"]([FileResult("a.json", here)], False, "file"))["files"][0]["diagnostics"]
    ]
    assert json_order == [d.code for d in here]  # JSON keeps the checks' order


def test_report_text_validate_bundle_file_in_line_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Validation orders findings by JSON path (basis before verification); a file written with the
    review record first reads top to bottom all the same."""
    from ...conftest import _BUNDLE

    claim = copy.deepcopy(_BUNDLE["claims"][0])
    claim["basis"], claim["verification"]["method"] = "vibes", "vibes"
    reordered = {"verification": claim.pop("verification"), **claim}
    path = tmp_path / "b.json"
    path.write_text(json.dumps({**_BUNDLE, "claims": [reordered]}, ensure_ascii=False, indent=2), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    codes = [
        line.split(": ")[1].split(" ")[0] for line in capsys.readouterr().out.splitlines() if line.startswith(str(path))
    ]
    assert codes == ["CE402", "CE403", "CE303", "CE905"]  # by path it would be CE303, CE905, CE403, CE402


def test_report_text_escapes_terminal_controls_in_messages() -> None:
    found = [Diagnostic("SH120", 'page "\x1b]0;pwned\x07\u202e…"\nnext line', line=1, column=1)]
    text = REPORTERS["text"]([FileResult("p.html", found)], False, "page")
    assert text.splitlines()[:2] == ['p.html:1:1: SH120 page "\\x1b]0;pwned\\x07\\u202e…"', "    next line"]


def test_report_summarized_keeps_one_warning_and_every_error() -> None:
    from claim_evidence._core.report import summarized

    def ce905(cid: str, severity: str = "warning", line: int = 1) -> Diagnostic:
        return Diagnostic("CE905", "statement has numbers", severity=severity, subject=f"claim {cid}", line=line)

    one = [ce905("a")]
    assert summarized(one) == one
    errors = [ce905("a", "error"), ce905("b", "error")]
    assert summarized(errors) == errors
    other = Diagnostic("CE904", "x", severity="warning")
    found = summarized([ce905("a", line=3), other, ce905("b", line=5), *[ce905(f"c{i}") for i in range(5)]])
    assert [(d.code, d.line) for d in found] == [("CE905", 3), ("CE904", None)]
    assert found[0].message == (
        "7 claims' statements have numbers but no quoted passage to check them against (a, b, c0, c1, c2, …): "
        "add quote.exact to a source_ref of each (--all-warnings lists each claim)"
    )


# --- the JSON documents, spooled (issue 32: a run over a large site holds its report's text, not its results)


def _reference_json(results: list[FileResult], strict: bool, noun: str) -> str:
    """The JSON report as one ``json.dumps`` of the whole document (what json_report wrote before it spooled)."""
    passed = sum(r.outcome(strict) == "pass" for r in results)
    unregistered = sum(r.outcome(strict) == "unregistered" for r in results)
    summary = f"{len(results)} {noun}{'' if len(results) == 1 else 's'}: {passed} passed, {len(results) - passed - unregistered} failed"
    summary += f", {unregistered} unregistered" if unregistered else ""
    files = []
    for r in results:
        entry: dict[str, Any] = {"path": r.path, "status": r.outcome(strict)}
        if r.rewritten:
            entry["rewritten"] = r.rewritten
        entry["diagnostics"] = []
        for d in r.diagnostics:
            item = {
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "path": d.path,
                "subject": d.subject,
                "file": d.file or r.path,
                "line": d.line,
                "column": d.column,
            }
            if d.written:
                item["written_at"] = [{"file": f, "line": n} for f, n in d.written]
            entry["diagnostics"].append(item)
        files.append(entry)
    return json.dumps({"summary": summary, "files": files}, ensure_ascii=False, indent=2) + "\n"


def _reference_sarif(results: list[FileResult], strict: bool) -> str:
    """The SARIF log as one ``json.dumps``, its structure written out here from the SARIF 2.1.0 layout
    the reporter follows (rules are the codes, sorted; a finding placed in one source is located there)."""
    import claim_evidence
    from claim_evidence._core.report import SARIF_SCHEMA, _physical_location

    found = []
    codes = sorted({d.code for r in results for d in r.diagnostics})
    for r in results:
        for d in r.diagnostics:
            built = _physical_location(d.file or r.path, d.line, d.column)
            written = [_physical_location(f, n, None) for f, n in d.written]
            if len(written) == 1:
                primary, related = written[0], [(built, "built page")]
            else:
                primary, related = built, [(w, "written here") for w in written]
            item: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": codes.index(d.code),
                "level": "error" if d.fails(strict) else d.severity,
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": primary,
                        "logicalLocations": [{"fullyQualifiedName": d.path, "kind": "member"}],
                    }
                ],
            }
            if related:
                item["relatedLocations"] = [
                    {"id": i, "physicalLocation": w, "message": {"text": t}} for i, (w, t) in enumerate(related)
                ]
            found.append(item)
    driver = {"name": "claim-evidence", "version": claim_evidence.__version__, "rules": [{"id": c} for c in codes]}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": found}]}
    return json.dumps(log, ensure_ascii=False, indent=2) + "\n"


def _many_results() -> list[FileResult]:
    """Every shape a file's entry takes: no findings, many, rewritten, placed in one source or several,
    text that is not ASCII or not valid Unicode (a lone surrogate passes through as it came)."""
    placed_once = dataclasses.replace(
        Diagnostic("SH120", "本文が記録と違う「引用」", "$.claims[1]", "error", "claim y", line=3, column=1),
        written=(("content/a.md", 4),),
    )
    placed_twice = dataclasses.replace(
        Diagnostic("SH121", 'two "places"', "$", "warning", "page", line=9, column=2),
        written=(("content/a.md", 5), ("layouts/b.html", 7)),
    )
    odd = Diagnostic("CE900", "a \ud800 b \\ c\t\u2028", "$.x", "warning", "claim z")
    return [
        *_results(),
        FileResult("site/rewritten.html", [odd], rewritten=3),
        FileResult("site/placed.html", [placed_once, placed_twice, odd]),
        FileResult("site/empty.html", status="error"),
    ]


@pytest.mark.parametrize("spool_chars", [4 << 20, 1], ids=["in-memory", "on-disk"])
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("count", [0, 1, 4, 7])
def test_report_json_and_sarif_are_one_dump_of_the_whole_document(
    monkeypatch: pytest.MonkeyPatch, spool_chars: int, strict: bool, count: int
) -> None:
    """The spooled documents are byte for byte the whole document dumped at once, with the spool in memory
    and past its size on disk; the file and finding counts include none and one."""
    from claim_evidence._core import report as reporting

    monkeypatch.setattr(reporting, "SPOOL_CHARS", spool_chars)
    results = _many_results()[:count]
    assert REPORTERS["json"](results, strict, "page") == _reference_json(results, strict, "page")
    assert REPORTERS["sarif"](results, strict, "page") == _reference_sarif(results, strict)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_report_write_report_keeps_no_result_of_a_json_document(fmt: str) -> None:
    """``write_report`` lets each result go once spooled (the summary and the rules come first, so the
    document is written once all are in), and writes what :func:`report` gives for them."""
    import gc
    import weakref
    from collections.abc import Iterator

    from claim_evidence._core.report import report, write_report

    results = _many_results()
    alive: list[int] = []
    refs: list[weakref.ref[FileResult]] = []

    def given() -> Iterator[FileResult]:
        for result in results:
            copy_ = copy.deepcopy(result)
            refs.append(weakref.ref(copy_))
            yield copy_
            del copy_
            gc.collect()
            alive.append(sum(ref() is not None for ref in refs))

    written: list[str] = []
    write_report(given(), fmt, written.append, noun="page")
    # (asked for the next one, only the last handed on is alive: the reporter's loop variable still holds it)
    assert alive == [1] * len(results)
    assert "".join(written) == report(results, fmt, noun="page")
