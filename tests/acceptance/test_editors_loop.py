"""README "The editor's loop", run as written on a copy of the example site kept in a real git repository.

The block is the README's: every command line is run in order and its exit code compared with what the
block's comments promise; the one hand edit it describes (the sentence of ABOUT-AI) is applied where it
says. ``review diff`` needs the reviewed version, which the copy's first commit holds, as a clone's
history holds it for a reader trying the loop in the repository itself.
"""

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

TOOLS = {
    "claim-evidence": [sys.executable, "-m", "claim_evidence"],
    "static-helper": [sys.executable, "-m", "static_helper"],
}
SENTENCE = "記事の下書きには生成AIを使い、公開前に編集者が資料と照合する。"
EDITED = "記事の下書きには生成AIを使い、公開前に編集者が必ず資料と照合する。"
EPOCHS = {  # SOURCE_DATE_EPOCH (UTC midnight) of each build date the loop must pass on (the README gives no --today)
    "2026-12-01": "1796083200",  # the day the example is rendered for: two reviews due soon
    "2027-01-15": "1799971200",  # both expired since (the day-count markers made every page stale here)
    "2027-06-01": "1811808000",
    "2028-01-01": "1830297600",  # a year on: every dated review expired
}


def loop_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The editor's loop (static pages)", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()  # type: ignore[union-attr]


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: review diff reads the history")
@pytest.mark.parametrize("day", sorted(EPOCHS))
def test_editors_loop_runs_as_written_on_a_clone_of_the_example(tmp_path: Path, day: str) -> None:
    root = tmp_path / "repo"
    shutil.copytree(
        ROOT / "examples" / "site", root / "examples" / "site", ignore=shutil.ignore_patterns(".claim-evidence-cache")
    )
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the reviewed site")
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCHS[day]}
    cwd = root
    steps: list[tuple[str, str, int, str]] = []
    for line in loop_block():
        if line.startswith("# edit the sentence of ABOUT-AI"):
            page = cwd / "about.html"
            text = page.read_text(encoding="utf-8")
            marked = f'<p data-claim-id="ABOUT-AI">{SENTENCE}</p>'
            assert text.count(marked) == 1
            page.write_text(text.replace(marked, f'<p data-claim-id="ABOUT-AI">{EDITED}</p>'), encoding="utf-8")
            continue
        command = line.split("#", 1)[0].strip()
        if not command or command.startswith(". "):
            continue
        argv = shlex.split(command)
        if argv[0] == "cd":
            cwd = cwd / argv[1]
            continue
        done = subprocess.run(
            [*TOOLS[argv[0]], *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        steps.append((argv[0], " ".join(argv[1:3]), done.returncode, done.stdout + done.stderr))
    codes = [(tool, args, code) for tool, args, code, _ in steps]
    assert codes == [
        ("static-helper", "--write", 0),
        ("static-helper", "", 0),
        ("claim-evidence", "claim set", 0),
        ("static-helper", "", 1),
        ("static-helper", "--write", 1),
        ("claim-evidence", "review diff", 0),
        ("claim-evidence", "review record", 0),
        ("static-helper", "--write", 0),
        ("static-helper", "", 0),
    ], steps
    claim_set, failing, _, diff, record = (steps[i][3] for i in range(2, 7))
    assert f'+      "statement": "{EDITED}",' in claim_set
    assert "this undoes the review of claim ABOUT-AI" in claim_set
    assert "CE403" in failing and "review diff about.html --claim ABOUT-AI" in failing
    assert "statement" in diff and "必ず" in diff
    assert '"checked_at": "2026-10-01"' in record
    assert f"review ages counted to {day} (build date from SOURCE_DATE_EPOCH)" in steps[-1][3]
    assert steps[-1][3].startswith("PASS") and "4 pages: 4 passed, 0 failed\n" in steps[-1][3], steps[-1][3]
