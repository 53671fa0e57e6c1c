"""``claim-evidence init`` in a real generator's project, then the next steps it prints, run for real.

A Hugo site (the recipe's, without its ``claim-evidence.toml``) and a MkDocs site are initialized,
get one claim through ``claim-evidence claim add``, and are built and checked with the commands
``init`` printed: the gate passes, and an edited sentence then fails it. Each skips with a one-line
reason when its generator is missing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT

TOOLS = Path(sys.executable).parent  # static-helper and claim-evidence beside this interpreter
CLAIM = "latency"
STATEMENT = "架空の試験機は固定条件で応答時間の中央値を記録した。"
EDITED = STATEMENT.replace("記録", "計測")
TIMEOUT = 120


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """One printed command, with this environment's tools first on PATH (``mkdocs`` as this Python's)."""
    argv = shlex.split(command)
    if argv[0] == "mkdocs":
        argv = [sys.executable, "-m", "mkdocs", *argv[1:]]
    env = {**os.environ, "PATH": f"{TOOLS}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def _step(out: str, label: str) -> list[str]:
    """The commands of ``init``'s ``N. build: …`` or ``N. check: …`` line."""
    (line,) = [line for line in out.splitlines() if f". {label}: " in line]
    return line.split(f". {label}: ", 1)[1].split(" fails on a finding")[0].split(", then ")


def _build_and_check(out: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the printed build commands, then the check (the last build command when the build is the check)."""
    last = None
    for command in _step(out, "build"):
        last = _shell(command, cwd)
    check = _step(out, "check")
    if check != _step(out, "build"):
        assert last is not None and last.returncode in (0, 1), last.stdout + last.stderr  # --write: 1 = rewrote
        last = _shell(check[0], cwd)
    assert last is not None
    return last


def test_init_builds_hugo_site_passes_its_gate_and_fails_an_edit(run: Any, tmp_path: Path) -> None:
    if shutil.which("hugo") is None:
        pytest.skip("hugo not installed (apt-get install hugo; .ci/run does this)")
    site = tmp_path / "hugo"
    shutil.copytree(ROOT / "tests" / "data" / "recipes" / "hugo", site)
    tested = site / "static" / "claim-evidence.toml"
    recipe_config = tomllib.loads(tested.read_text(encoding="utf-8"))  # the config test_recipes builds with
    tested.unlink()
    code, out, err = run("init", os.fspath(site))
    assert (code, err) == (0, ""), out
    written = tested.read_text(encoding="utf-8")
    # The recipe's require names its page; init shows it commented (no page is built yet).
    if "require" in recipe_config:
        (example,) = [line[2:] for line in written.splitlines() if line.startswith("# require = ")]
        assert tomllib.loads(example)["require"] == recipe_config.pop("require")
    assert tomllib.loads(written) == recipe_config
    (site / "data" / "evidence").mkdir(parents=True)
    bundle = os.fspath(site / "data" / "evidence" / "about.json")
    assert run("claim", "add", bundle, "--id", CLAIM, "--statement", STATEMENT, "--basis", "reporting")[0] == 0
    gate = _build_and_check(out, site)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "PASS public/about/index.html: 1 claim bound\n" in gate.stdout
    assert (site / "public" / "assets" / "claim-evidence.css").is_file()
    about = site / "content" / "about.md"
    about.write_text(about.read_text(encoding="utf-8").replace(STATEMENT, EDITED), encoding="utf-8")
    gate = _build_and_check(out, site)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert f"SH120 [{CLAIM}]" in gate.stdout


def test_init_builds_mkdocs_site_passes_its_strict_build_and_fails_an_edit(run: Any, tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs not installed (pip install -e '.[test]')")
    site = tmp_path / "mkdocs"
    (site / "docs").mkdir(parents=True)
    # What the printed next steps say to add to mkdocs.yml.
    (site / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - claim-evidence\nextra_css:\n  - assets/claim-evidence.css\n", encoding="utf-8"
    )
    code, out, err = run("init", os.fspath(site))
    assert (code, err) == (0, ""), out
    assert "plugins: [search, claim-evidence]" in out and "extra_css: [assets/claim-evidence.css]" in out
    record = tmp_path / "record.json"
    assert (
        run("claim", "add", os.fspath(record), "--id", CLAIM, "--statement", STATEMENT, "--basis", "reporting")[0] == 0
    )
    page = site / "docs" / "index.md"
    page.write_text(
        f'<p data-claim-id="{CLAIM}">{STATEMENT}</p>\n<div data-evidence-for="{CLAIM}"></div>\n\n'
        f'<script type="application/json" id="claim-evidence-data">\n{record.read_text(encoding="utf-8")}</script>\n',
        encoding="utf-8",
    )
    assert json.loads(record.read_text(encoding="utf-8"))["claims"][0]["statement"] == STATEMENT
    build = _build_and_check(out, site)
    assert build.returncode == 0, build.stdout + build.stderr
    built = (site / "site" / "index.html").read_text(encoding="utf-8")
    assert f'<aside class="claim-evidence" id="evidence-{CLAIM}"' in built
    assert (site / "site" / "assets" / "claim-evidence.css").is_file()
    page.write_text(page.read_text(encoding="utf-8").replace(f">{STATEMENT}</p>", f">{EDITED}</p>"), encoding="utf-8")
    build = _build_and_check(out, site)
    assert build.returncode == 1, build.stdout + build.stderr
    assert f"SH120 [{CLAIM}]" in build.stdout + build.stderr
