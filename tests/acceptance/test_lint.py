"""ruff (lint with import sorting, pyupgrade and bugbear; and its formatter) over the whole checkout, as
part of the suite, so that ``.ci/run`` fails on a violation exactly as on a failing test. The rules are
in ``pyproject.toml`` ([tool.ruff]); ``.pre-commit-config.yaml`` runs the same two commands."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT


def _ruff() -> str:
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.exists() else shutil.which("ruff")
    if found is None:
        pytest.skip("ruff not installed (pip install -e '.[test]')")
    return found


@pytest.mark.parametrize("argv", [["check", "--no-cache", "."], ["format", "--check", "--no-cache", "."]])
def test_lint_ruff_passes(argv: list[str]) -> None:
    done = subprocess.run([_ruff(), *argv], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, (
        f"ruff {' '.join(argv)} (fix with: ruff check --fix . && ruff format .)\n{done.stdout}{done.stderr}"
    )
