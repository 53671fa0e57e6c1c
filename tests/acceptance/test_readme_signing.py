"""README "Signed reviews": its three set-up commands run as written (in bash, HOME in the test's folder),
then a signed review passes and a status edited after signing fails."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..conftest import ROOT
from ..signing_support import needs_ssh_keygen

CLI = [sys.executable, "-m", "claim_evidence"]


def setup_commands() -> list[str]:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Signed reviews", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()  # type: ignore[union-attr]


@needs_ssh_keygen
def test_readme_signing_setup_in_three_commands(tmp_path: Path, bundle: dict[str, Any]) -> None:
    commands = setup_commands()
    assert len(commands) == 3
    home, folder = tmp_path / "home", tmp_path / "site"
    (home / ".ssh").mkdir(parents=True)
    folder.mkdir()
    (folder / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    (folder / "b.json").write_text(json.dumps(bundle, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "PYTHONPATH": str(ROOT)}
    for command in commands:
        # No terminal to type a passphrase at: the key made here has none (yours should).
        line = command.replace("ssh-keygen -t ed25519", "ssh-keygen -q -N '' -t ed25519", 1)
        subprocess.run(["bash", "-c", line], cwd=folder, env=env, check=True, capture_output=True)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *argv], cwd=folder, env=env, capture_output=True, text=True, check=False)

    validate = ("validate", "--config", "claim-evidence.toml", "--today", "2026-12-01", "b.json")
    assert run(*validate).returncode == 1  # require_signature = "error": the unsigned review fails
    review = ("--claim", "fictional-rate", "--method", "human_document_review", "--checked-at", "2026-09-05")
    done = run("review", "record", "b.json", *review, "--today", "2026-12-01", "--sign")
    assert (done.returncode, done.stderr) == (0, "")
    assert "b.json: review of fictional-rate recorded, signed by 編集部\n" in done.stdout
    assert run(*validate).returncode == 0
    text = (folder / "b.json").read_text(encoding="utf-8")
    (folder / "b.json").write_text(text.replace('"matched"', '"partial"', 1), encoding="utf-8")
    failed = run(*validate)
    assert failed.returncode == 1
    assert "CE411 [fictional-rate] the signature of 編集部 does not match this review" in failed.stdout
