"""``claim-evidence answer eval``: the guard's regression set passes, and a broken expectation fails by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...conftest import ROOT

SET = ROOT / "tests" / "data" / "answer_regression.jsonl"
KB = ROOT / "tests" / "data" / "answer_kb.json"


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_answer_eval_regression_set_passes(run: Any) -> None:
    cases = _cases()
    categories = sorted({c["category"] for c in cases})
    assert len(cases) >= 48 and len(categories) >= 12
    code, stdout, stderr = run("answer", "eval", str(SET), "--kb", str(KB))
    width = max(map(len, categories))
    counts = [
        f"  {name.ljust(width)}  {n}/{n}" for name in categories for n in [sum(c["category"] == name for c in cases)]
    ]
    assert (code, stderr) == (0, "")
    assert stdout.splitlines() == [
        f"{SET}: {len(cases)} cases in {len(categories)} categories",
        *counts,
        f"{len(cases)} passed, 0 failed",
    ]


def test_answer_eval_covers_every_rule() -> None:
    codes = {code for c in _cases() for code in c["expect"].get("codes", [])}
    assert codes == {
        "CE710",
        "CE711",
        "CE712",
        "CE713",
        "CE720",
        "CE721",
        "CE722",
        "CE723",
        "CE724",
        "CE725",
        "CE730",
        "CE731",
        "CE732",
        "CE733",
        "CE734",
        "CE740",
        "CE741",
        "CE742",
        "CE743",
        "CE751",
        "CE752",
    }


def test_answer_eval_a_broken_expectation_fails(run: Any, tmp_path: Path) -> None:
    cases = _cases()
    line = next(i for i, c in enumerate(cases) if c["id"] == "number-300oku-vs-30oku")
    cases[line]["expect"]["answer"] = (
        "ノルンベイ計算機は約300億米ドルを調達したと報じられました。"  # what a broken guard would let through
    )
    history = next(i for i, c in enumerate(cases) if c["category"] == "history_overflow")
    cases[history]["expect"]["history_len"] = 20
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    code, stdout, _ = run("answer", "eval", str(broken), "--kb", str(KB))
    assert code == 1
    lines = stdout.splitlines()
    assert [entry for entry in lines if entry.startswith("  ungrounded_number")][0].endswith(
        f"{sum(c['category'] == 'ungrounded_number' for c in cases) - 1}/{sum(c['category'] == 'ungrounded_number' for c in cases)}"
    )
    assert [entry for entry in lines if entry.startswith("FAIL")] == [
        f"FAIL {broken}:{line + 1} [number-300oku-vs-30oku] ungrounded_number: answer: expected "
        '"ノルンベイ計算機は約300億米ドルを調達したと報じられました。", got "この資料からは確認できません。"',
        f"FAIL {broken}:{history + 1} [{cases[history]['id']}] history_overflow: history_len: expected 20, got {len(cases[history]['expect']['history'])}",
    ]
    assert lines[-1] == f"{len(cases) - 2} passed, 2 failed"


def test_answer_eval_inline_chunks_need_no_kb(run: Any, tmp_path: Path) -> None:
    chunk = {
        "id": "x",
        "state": "CONFIRMED",
        "title": "t",
        "text": "料金は 300 円。",
        "url": "/x.html#evidence-x",
        "sources": [],
    }
    case = {
        "id": "inline",
        "category": "c",
        "chunks": [chunk],
        "model": json.dumps(
            {
                "answer": "料金は 300 円。",
                "confirmed": [],
                "unknown": [],
                "state": "ESTIMATE",
                "sources": ["/x.html#evidence-x"],
                "refused": False,
            }
        ),
        "expect": {"codes": [], "sources": ["/x.html#evidence-x"], "refused": False},
    }
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(case) + "\n\n", encoding="utf-8")
    assert run("answer", "eval", str(path)) == (
        0,
        f"{path}: 1 cases in 1 categories\n  c  1/1\n1 passed, 0 failed\n",
        "",
    )
    case["expect"]["refused"] = 0  # strict: 0 is not false
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    assert (
        run("answer", "eval", str(path))[1].splitlines()[2]
        == f"FAIL {path}:1 [inline] c: refused: expected 0, got false"
    )


def test_answer_eval_unreadable_input_exits_2_with_the_line(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    good = SET.read_text(encoding="utf-8").splitlines()[0]
    problems = [
        (good + "\n{not json\n", f"{path}:2:2: CE003 invalid JSON: Expecting property name enclosed in double quotes"),
        (good + "\n[]\n", f"{path}:2:1: CE701 a case must be a JSON object"),
        (
            '{"id": "a", "category": "c", "model": "{}", "expect": {"state": "X", "stat": 1}, "chunks": []}\n',
            f"{path}:1:1: CE701 unknown expectation 'stat' (the keys are codes, answer, confirmed, unknown, state, sources, refused, copy, history, history_len)",
        ),
        (
            '{"id": "a", "category": "c", "model": "{}", "expect": {"state": "X"}, "chunks": ["nope"]}\n',
            f"{path}:1:1: CE701 no chunk 'nope' in the knowledge base",
        ),
        ("\n", f"{path}: CE701 the regression set holds no case"),
    ]
    for text, message in problems:
        path.write_text(text, encoding="utf-8")
        assert run("answer", "eval", str(path), "--kb", str(KB)) == (2, "", f"claim-evidence: error: {message}\n")
    path.write_text(good + "\n", encoding="utf-8")
    code, _, stderr = run("answer", "eval", str(path))
    assert (code, stderr) == (
        2,
        f"claim-evidence: error: {path}:1:1: CE701 this case names chunks of a knowledge base (or retrieves them): give --kb KB\n",
    )
    assert run("answer", "eval", str(tmp_path / "missing.jsonl"))[::2] == (
        2,
        f"claim-evidence: error: {tmp_path / 'missing.jsonl'}: CE001 file not found\n",
    )
    assert run("answer", "eval", str(path), "--kb", str(path))[0] == 2
