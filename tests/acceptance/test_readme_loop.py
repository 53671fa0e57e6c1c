"""README "Your own site in ten minutes", run exactly as written on a fresh folder of plain pages, and
"The editor's loop" on a copy of the example site, on build dates far apart."""

from __future__ import annotations

import os
import re
import shlex
import shutil
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
    assert len(marked) == 2, marked
    link, sentence = marked
    results = []
    for line in readme_block():
        if line.startswith("#   <") and line.strip("# ").strip() == sentence:
            # the editor's hand edit the block describes, applied as written
            text = page.read_text(encoding="utf-8")
            text = text.replace("</head>", f"  {link}\n</head>").replace(
                f"<p>{re.sub('<[^>]+>', '', sentence)}</p>", sentence
            )
            assert sentence in text and link in text
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
    final = page.read_text(encoding="utf-8")
    assert '<span class="claim-evidence-status">資料との照合済み</span>' in final
    assert "引用「シリーズBラウンドにおいて総額30億円の資金調達を完了しました」" in final
    assert "<p>ほかの段落。</p>" in final


# --- "The editor's loop (static pages)", on the example site, on build dates far apart -----------------

EDITED_FROM = "記事の下書きには生成AIを使い、公開前に編集者が資料と照合する。"
EDITED_TO = "記事の下書きには生成AIを使い、公開前に編集者が必ず資料と照合する。"
EPOCHS = {  # SOURCE_DATE_EPOCH (UTC midnight) of each build date the loop must pass on
    "2026-12-01": "1796083200",  # the day the example is rendered for: two reviews due soon
    "2027-01-15": "1799971200",  # both expired since (the day-count markers made every page stale here)
    "2027-06-01": "1811808000",
    "2028-01-01": "1830297600",  # a year on: every dated review expired
}


def editors_loop() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The editor's loop (static pages)", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()  # type: ignore[union-attr]


@pytest.mark.parametrize("day", sorted(EPOCHS))
def test_readme_editors_loop_passes_on_any_build_date(tmp_path: Path, day: str) -> None:
    """The block as written, on a copy of examples/site, with the build date from SOURCE_DATE_EPOCH (the
    README gives no --today): the same exit codes on every date, and the last gate passes."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "examples" / "site", site, ignore=shutil.ignore_patterns(".claim-evidence-cache"))
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCHS[day]}
    results = []
    for line in editors_loop():
        command = line.split("#", 1)[0].strip()
        if line.startswith("# edit a sentence"):
            page = site / "about.html"
            text = page.read_text(encoding="utf-8")
            # the sentence (first) and its statement in the bundle (last; the block between shows it)
            first, last = text.index(EDITED_FROM), text.rindex(EDITED_FROM)
            assert first < last
            text = text[:last] + EDITED_TO + text[last + len(EDITED_FROM) :]
            page.write_text(text[:first] + EDITED_TO + text[first + len(EDITED_FROM) :], encoding="utf-8")
        if not command or command.startswith((".", "cd ")):
            continue  # activating the environment and entering the folder: done by cwd and TOOLS here
        argv = shlex.split(command)
        done = subprocess.run(
            [*TOOLS[argv[0]], *argv[1:]], cwd=site, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        results.append((argv[:2], done.returncode, done.stdout, done.stderr))
    codes = [(argv[0], argv[1] if len(argv) > 1 else "", code) for argv, code, _, _ in results]
    assert codes == [
        ("static-helper", "--write", 0),
        ("static-helper", "", 0),
        ("static-helper", "", 1),
        ("static-helper", "--write", 1),
        ("claim-evidence", "review", 0),
        ("static-helper", "--write", 0),
        ("static-helper", "", 0),
    ], results
    assert "CE403 [ABOUT-AI]" in results[2][2]
    assert f"review ages counted to {day} (build date from SOURCE_DATE_EPOCH)" in results[-1][3]
    assert results[-1][2].endswith("4 pages: 4 passed, 0 failed\n"), results[-1][2]
