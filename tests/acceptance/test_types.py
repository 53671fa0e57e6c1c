"""Both packages type-check (``[tool.mypy]`` in pyproject.toml: every function annotated)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_packages_type_check(tmp_path: Path) -> None:
    # The cache goes to tmp_path: a test never writes into the checkout.
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy"), "claim_evidence", "static_helper"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")
