"""Golden files for every output format; regenerate deliberately with
``UPDATE_GOLDEN=1 pytest tests/test_report.py`` and review the diff."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claim_evidence import Diagnostic
from claim_evidence._report import REPORTERS, FileResult

from .conftest import ROOT

GOLDEN = ROOT / "tests" / "data" / "report"


def _results() -> list[FileResult]:
    return [
        FileResult("site/ok.html", detail="statement bindings, recorded reviews and evidence display"),
        FileResult(
            "site/a,b:c%.html",
            [
                Diagnostic("SH103", "body text differs from reviewed statement\nline two", "$.claims[0]", "error", "claim x", line=12, column=5),
                Diagnostic("CE900", "unknown key 'uncertanity'; did you mean 'uncertainty'?", "$.claims[0].uncertanity", "warning", "claim x"),
            ],
        ),
        FileResult("site/legacy.html", status="unregistered", detail="carries evidence markup but is not registered in claim-evidence.toml"),
        FileResult("bundle.json", [Diagnostic("CE003", "invalid JSON: Expecting value", file="bundle.json", line=2, column=14)], status="unreadable"),
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
    assert "::error file=site/a%2Cb%3Ac%25.html,line=12,col=5,title=SH103::$.claims[0]: body text differs from reviewed statement%0Aline two" in out


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
    assert REPORTERS["text"](_results(), False, "page").splitlines()[-1] == "4 pages: 1 passed, 2 failed, 1 unregistered"
