"""README "Your own site in ten minutes", run exactly as written on a fresh folder of plain pages
("The editor's loop" is run by test_editors_loop.py)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT

PLAIN = """<!DOCTYPE html>
<html lang="ja">
<head>
  <meta charset="utf-8">
  <title>ミナト量子のニュース</title>
</head>
<body>
  <p>ミナト量子はシリーズBラウンドで30億円を調達した。</p>
  <p>ほかの段落。</p>
</body>
</html>
"""
TOOLS = {
    "claim-evidence": [sys.executable, "-m", "claim_evidence"],
    "static-helper": [sys.executable, "-m", "static_helper"],
}


def readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Your own site in ten minutes", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()  # type: ignore[union-attr]


@pytest.mark.parametrize("epoch", ["1796083200", "1830297600"])  # build dates 2026-12-01 and 2028-01-01
def test_readme_loop_runs_as_written_and_ends_with_a_passing_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, epoch: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)  # the commands inherit it: the README gives no --today
    site = tmp_path / "my-site"
    site.mkdir()
    page = site / "index.html"
    page.write_text(PLAIN, encoding="utf-8")
    marked = [line.strip("# ").strip() for line in readme_block() if line.startswith("#   <")]
    assert len(marked) == 1, marked  # the sentence to mark: claim add links the stylesheet itself
    (sentence,) = marked
    results = []
    for line in readme_block():
        if line.startswith("#   <"):
            # the editor's hand edit the block describes, applied as written
            text = page.read_text(encoding="utf-8")
            text = text.replace(f"<p>{re.sub('<[^>]+>', '', sentence)}</p>", sentence)
            assert sentence in text
            page.write_text(text, encoding="utf-8")
        if not line or line.startswith("#"):
            continue
        argv = shlex.split(line, comments=True)
        done = subprocess.run(
            [*TOOLS[argv[0]], *argv[1:]], cwd=site, capture_output=True, text=True, timeout=120, check=False
        )
        results.append((argv[:3], done.returncode, done.stdout, done.stderr))
    codes = [(argv[0], argv[1], code) for argv, code, _, _ in results]
    assert codes == [
        ("claim-evidence", "init", 0),
        ("claim-evidence", "claim", 0),
        ("claim-evidence", "source", 0),
        ("claim-evidence", "ref", 0),
        ("claim-evidence", "review", 0),
        ("static-helper", "--write", 0),
        ("claim-evidence", "prepublish", 0),
    ], results
    gate = results[-1][2]
    assert gate == "PASS index.html: 1 claim bound\n1 target: 1 passed, 0 failed\n", gate
    added = results[1][2]
    assert (
        "note: the evidence stylesheet is linked now, before </head>: "
        '<link rel="stylesheet" href="/assets/claim-evidence.css">\n'
    ) in added, added
    final = page.read_text(encoding="utf-8")
    assert final.count("<link ") == 1
    assert (
        '  <title>ミナト量子のニュース</title>\n  <link rel="stylesheet" href="/assets/claim-evidence.css">\n</head>'
        in final
    )
    assert '<span class="claim-evidence-status">資料との照合済み</span>' in final
    assert "引用「シリーズBラウンドにおいて総額30億円の資金調達を完了しました」" in final
    assert "<p>ほかの段落。</p>" in final
