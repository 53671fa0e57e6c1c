"""``_commands.extract``: what check makes of each shape of input, and that nothing loads the SDK
unless a model is asked."""

from __future__ import annotations

import json
import subprocess
import sys

from claim_evidence._commands.extract import check_text

from ...conftest import ROOT

GOOD = {
    "action": "cancel",
    "reference": "O-1",
    "currency": "JPY",
    "items": [],
    "tax_included": None,
    "delivery_date": None,
    "issues": [],
    "status": "cancelled",
}


def _found(text: str, name: str = "out.json") -> list[tuple[str, int | None, int | None, str]]:
    return [(d.code, d.line, d.column, d.message) for d in check_text(text, name).diagnostics]


def test_check_text_empty() -> None:
    message = "empty file: no extraction output (an output is one JSON object; JSON Lines hold one per line)"
    assert _found(" \n") == [("CE003", None, None, message)]


def test_check_text_one_output_over_lines_and_null() -> None:
    assert _found(json.dumps(GOOD, indent=2)) == []
    assert _found("null") == [
        (
            "CE800",
            1,
            1,
            "the output must be a JSON object with the keys action, reference, currency, items, tax_included, delivery_date, issues, status; found null",
        )
    ]


def test_check_text_json_lines_name_each_line() -> None:
    text = json.dumps(GOOD) + "\n\n" + json.dumps({**GOOD, "status": "complete"}) + "\n"
    assert _found(text, "out.jsonl") == [
        ("CE807", 3, 133, '$.status: status must be "cancelled" because the action is cancel; found "complete"')
    ]


def test_check_text_one_bad_line() -> None:
    assert [code for code, *_ in _found('{"action": ')] == ["CE003"]


def test_baseline_run_never_loads_the_sdk(tmp_path: object) -> None:
    code = (
        "import sys\n"
        "from claim_evidence.cli import main\n"
        f"main(['extract', 'run', '--cases', {str(ROOT / 'examples' / 'extraction' / 'cases.jsonl')!r}, '--out', {str(tmp_path) + '/o.jsonl'!r}])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'anthropic'), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stderr == "[]\n"
