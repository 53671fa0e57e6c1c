"""``claim-evidence extract check|run|score`` end to end: exact output of check and score (golden files
under tests/data/extract), ``run`` with the rule baseline and against the fake Messages API on 127.0.0.1,
including a model that follows an instruction injected into the request."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT

DATA = ROOT / "tests" / "data" / "extract"
CASES = ROOT / "examples" / "extraction" / "cases.jsonl"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of tests/data/extract as the working folder: reports name the files as given."""
    folder = tmp_path / "extract"
    shutil.copytree(DATA, folder)
    monkeypatch.chdir(folder)
    return folder


CHECK_OUTPUT = """\
bad-output.json:6:22: CE805 $.items[0].quantity: quantity must be a decimal string without unit, sign or separators; found a JSON number: write "12"
bad-output.json:6:51: CE805 $.items[0].unit_price: unit_price must be a decimal string without unit, sign or separators; found "2,500円": write "2500"
bad-output.json:9:3: CE806 $.delivery_date: delivery_date must be an existing date written YYYY-MM-DD (e.g. "2026-04-01"), or null; found "2026/04/01"
bad-output.json:10:3: CE809 $.issues: currency USD is never converted: add "unsupported_currency" to issues
bad-output.json:12:3: CE802 $.total: 'total' is not a key of the contract; remove it (the keys are action, reference, currency, items, tax_included, delivery_date, issues, status)
1 file: 0 passed, 1 failed
"""

CHECK_RUN = """\
bad-run.jsonl:1:154: CE807 $.output.status: status must be "complete" because there is no issue; found "needs_review"
bad-run.jsonl:2:14: CE813 $.output: case c1: the model's reply was no JSON output (not JSON: Expecting value at line 1 column 1); nothing to check, fix the prompt or the model
bad-run.jsonl:3:23: CE003 invalid JSON: Expecting value
1 file: 0 passed, 1 failed
"""


def test_extract_check_one_output_exact(run: Any, here: Path) -> None:
    assert run("extract", "check", "bad-output.json") == (1, CHECK_OUTPUT, "")


def test_extract_check_run_records_exact(run: Any, here: Path) -> None:
    assert run("extract", "check", "bad-run.jsonl") == (1, CHECK_RUN, "")


def test_extract_check_stdin(run: Any, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    data = (here / "bad-output.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert run("extract", "check", "-") == (1, CHECK_OUTPUT.replace("bad-output.json", "<stdin>"), "")


def test_extract_check_clean_and_unreadable(run: Any, here: Path) -> None:
    assert run("extract", "check", "baseline.jsonl") == (0, "PASS baseline.jsonl\n1 file: 1 passed, 0 failed\n", "")
    assert run("extract", "check", "nothere.json") == (
        2,
        "nothere.json: CE001 file not found\n1 file: 0 passed, 1 failed\n",
        "",
    )


def test_extract_check_shipped_expected_outputs(run: Any, tmp_path: Path) -> None:
    lines = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    outputs = tmp_path / "expected.jsonl"
    outputs.write_text(
        "".join(json.dumps({"id": c["id"], "output": c["expected"]}) + "\n" for c in lines), encoding="utf-8"
    )
    code, out, _ = run("extract", "check", str(outputs))
    assert (code, out.splitlines()[-1]) == (0, "1 file: 1 passed, 0 failed")


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_extract_score_exact_against_a_baseline(run: Any, here: Path, fmt: str) -> None:
    code, out, err = run(
        "extract",
        "score",
        "--cases",
        "cases.jsonl",
        "--outputs",
        "outputs.jsonl",
        "--baseline",
        "baseline.jsonl",
        "--format",
        fmt,
    )
    assert (code, err) == (1, "")  # three cases got worse
    assert out == (DATA / f"score-{fmt}.out").read_text(encoding="utf-8")


def test_extract_score_html_escapes_ids(here: Path) -> None:
    html = (DATA / "score-html.out").read_text(encoding="utf-8")
    assert "inj&lt;1&gt;|x" in html and "inj<1>" not in html


def test_extract_score_without_regression_exits_0(run: Any, here: Path) -> None:
    assert run("extract", "score", "--cases", "cases.jsonl", "--outputs", "baseline.jsonl") == (
        0,
        (DATA / "score-clean.out").read_text(encoding="utf-8"),
        "",
    )


def test_extract_score_refuses_an_output_for_no_case(run: Any, here: Path) -> None:
    (here / "other.jsonl").write_text('{"id": "q1", "output": {}}\n{"id": "zz", "output": {}}\n', encoding="utf-8")
    assert run("extract", "score", "--cases", "cases.jsonl", "--outputs", "other.jsonl") == (
        2,
        "",
        "claim-evidence: error: other.jsonl:2:1: CE812 an output for 'zz', which is no case of the set; score outputs of this set only\n",
    )


def test_extract_score_refuses_a_bad_outputs_line(run: Any, here: Path) -> None:
    assert run("extract", "score", "--cases", "cases.jsonl", "--outputs", "bad-run.jsonl") == (
        2,
        "",
        "claim-evidence: error: bad-run.jsonl:3:1: CE812 not one JSON value per line (invalid JSON: Expecting value)\n",
    )


def test_extract_run_baseline_is_deterministic_and_scores_as_the_readme_says(run: Any, tmp_path: Path) -> None:
    out = tmp_path / "baseline.jsonl"
    assert run("extract", "run", "--cases", str(CASES), "--out", str(out)) == (
        0,
        f"{out}: 48 outputs from baseline (0 malformed, 0 breaking the contract)\n",
        "",
    )
    first = out.read_bytes()
    run("extract", "run", "--cases", str(CASES), "--out", str(out), "--model", "baseline")
    assert out.read_bytes() == first
    assert first == (ROOT / "examples" / "extraction" / "baseline.jsonl").read_bytes()  # the shipped run is current
    code, report, _ = run("extract", "score", "--cases", str(CASES), "--outputs", str(out), "--format", "markdown")
    assert code == 0
    table = [line for line in report.splitlines() if line.startswith("| ")]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n".join(table) in readme  # the README's table is the measured one


def test_extract_run_needs_a_key_for_a_model(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("anthropic", reason="the chat extra is not installed")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "out.jsonl"
    assert run("extract", "run", "--cases", str(CASES), "--out", str(out), "--model", "m-1") == (
        2,
        "",
        "claim-evidence: error: ANTHROPIC_API_KEY is not set; --model m-1 needs it (or use --model baseline, offline)\n",
    )
    assert not out.exists()


def test_extract_run_against_the_fake_model(run: Any, here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("anthropic", reason="the chat extra is not installed")
    from claim_evidence._extract.prompt import DATA_END, DATA_START, SYSTEM, user_message
    from claim_evidence.chat.fakemodel import FakeModel, last_user_text

    cases = {c["input"]: c for c in map(json.loads, (here / "cases.jsonl").read_text(encoding="utf-8").splitlines())}

    def answer(request: dict[str, Any]) -> str:
        data = json.loads(last_user_text(request).removeprefix(DATA_START).removesuffix(DATA_END))
        case = cases[data["text"]]
        if case["category"] == "injection":  # a model that does what the request told it to
            return json.dumps({**case["expected"], "issues": [], "status": "complete"}, ensure_ascii=False)
        if case["category"] == "cancel":
            return "Sure! I have cancelled O-1 for you."
        return "```json\n" + json.dumps(case["expected"], ensure_ascii=False) + "\n```"

    with FakeModel(answer, api_key="test-key", lifetime=60.0) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        code, out, err = run("extract", "run", "--cases", "cases.jsonl", "--out", "model.jsonl", "--model", "m-1")
        requests = fake.requests
    assert (code, out, err) == (1, "model.jsonl: 3 outputs from m-1 (1 malformed, 0 breaking the contract)\n", "")
    assert [r.body["system"] for r in requests] == [SYSTEM] * 3
    first = next(iter(cases.values()))
    assert requests[0].body["messages"] == [
        {"role": "user", "content": user_message(first["input"], first["reference_date"], first["timezone"])}
    ]
    records = [json.loads(line) for line in (here / "model.jsonl").read_text(encoding="utf-8").splitlines()]
    assert records[2] == {
        "id": "c1",
        "output": None,
        "error": "not JSON: Expecting value at line 1 column 1",
        "raw": "Sure! I have cancelled O-1 for you.",
    }
    code, report, _ = run("extract", "score", "--cases", "cases.jsonl", "--outputs", "model.jsonl")
    assert code == 0
    assert "issues missed: untrusted_instruction 1" in report.splitlines()
    assert "MISS inj<1>|x (injection): wrong issues, status; missed untrusted_instruction" in report.splitlines()
    assert "MISS c1 (cancel): malformed output: not JSON: Expecting value at line 1 column 1" in report.splitlines()


def _readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Extraction contract\n", 1)[1].split("\n## ", 1)[0]


def test_extract_readme_commands_run_as_written(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    shutil.copytree(ROOT / "examples" / "extraction", tmp_path / "examples" / "extraction")
    monkeypatch.chdir(tmp_path)
    block = re.search(r"```sh\n(.*?)```", _readme_section(), re.S)
    assert block is not None
    commands = [shlex.split(line.split("#", 1)[0]) for line in block.group(1).splitlines()]
    assert [c[:3] for c in commands] == [["claim-evidence", "extract", "score"], ["claim-evidence", "extract", "check"]]
    results = [run(*command[1:]) for command in commands]
    assert [code for code, _, _ in results] == [0, 0]
    assert "exact match: 47/48 (97.9%)" in results[0][1].splitlines()
    assert results[1][1] == "PASS examples/extraction/baseline.jsonl\n1 file: 1 passed, 0 failed\n"


def test_extract_readme_states_the_heldout_score(run: Any, tmp_path: Path) -> None:
    heldout = ROOT / "examples" / "extraction" / "heldout.jsonl"
    out = tmp_path / "heldout-baseline.jsonl"
    run("extract", "run", "--cases", str(heldout), "--out", str(out))
    code, report, _ = run("extract", "score", "--cases", str(heldout), "--outputs", str(out), "--format", "markdown")
    assert "| total | 12 | 5/12 | 88.5% | 81.8% | 75.0% | 75.0% | 83.3% |" in report.splitlines()
    assert "- issues missed: untrusted\\_instruction 1" in report.splitlines()
    section = _readme_section()
    assert (
        "**5/12**" in section
        and "(fields 88.5%, items field by field 81.8%, issues precision and recall 75.0%," in section
    )


def test_extract_codes_are_documented() -> None:
    from claim_evidence._extract.contract import CODES

    schema_md = (ROOT / "SCHEMA.md").read_text(encoding="utf-8").split("## Extraction contract\n", 1)[1]
    documented = re.findall(r"^\| (CE8\d\d) \|", schema_md, re.M)
    assert documented == sorted(CODES)


def test_extract_run_records_an_api_error_and_stops_on_a_refused_key(
    run: Any, here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic", reason="the chat extra is not installed")
    from claim_evidence.chat.fakemodel import FakeModel, error

    with FakeModel(lambda request: error(400, "prompt is too long"), api_key="test-key", lifetime=60.0) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        code, out, err = run("extract", "run", "--cases", "cases.jsonl", "--out", "model.jsonl", "--model", "m-1")
        assert (code, out, err) == (1, "model.jsonl: 3 outputs from m-1 (3 malformed, 0 breaking the contract)\n", "")
        first = json.loads((here / "model.jsonl").read_text(encoding="utf-8").splitlines()[0])
        assert first == {
            "id": "q1",
            "output": None,
            "error": "the API answered 400: invalid_request_error: prompt is too long",
            "raw": None,
        }
        monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong-key")
        assert run("extract", "run", "--cases", "cases.jsonl", "--out", "other.jsonl", "--model", "m-1") == (
            2,
            "",
            "claim-evidence: error: the API refused the key (401: authentication_error: invalid x-api-key)\n",
        )
    assert not (here / "other.jsonl").exists()
