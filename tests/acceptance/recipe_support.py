"""What the recipe tests share: the sealed bundle, a copy of a recipe's site, the generators and the
checks run as a user runs them, and the built site served over HTTP under a sub-path.

Each recipe test (``test_recipes.py``: Hugo, Eleventy, Jekyll; ``test_recipes_astro.py``;
``test_recipes_subpath.py``) copies a small site from ``tests/data/recipes/`` into ``tmp_path``, writes
a sealed bundle into it (with a ``12.0`` the seal covers), builds it with the generator's own binary,
lets the recipe fill the evidence slots, and checks the built page. ``static-helper --write``'s own
exit status is never asserted (it changes from "1: a file changed" to "0: nothing left to report");
the check after it is.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, render_evidence

from ..conftest import ROOT
from ..httpserver import LoopbackServer

RECIPES = ROOT / "tests" / "data" / "recipes"
DOCS = ROOT / "docs" / "generators"
STYLESHEET = ROOT / "claim_evidence" / "assets" / "claim-evidence.css"
TOOLS = Path(sys.executable).parent  # static-helper and claim-evidence beside this interpreter
NODE_MODULES = ROOT / "tests" / "generators" / "node_modules"
ELEVENTY = NODE_MODULES / ".bin" / "eleventy"
ASTRO = NODE_MODULES / ".bin" / "astro"
TIMEOUT = 120
CLAIM = "latency"
STATEMENT = "架空の試験機は固定条件で応答時間の中央値を記録した。"
SCRIPT = '<script type="application/json" id="claim-evidence-data">'
NUMBERS_REWRITTEN = "but only because JSON numbers were rewritten"
EDITED = STATEMENT.replace("記録", "計測")  # the sentence as edited after the review: SH120
SUB = "/sub/"  # the sub-path the sub-path tests serve each site under
# A Node or Ruby stack frame, and a Ruby backtrace line: never part of a failed build's output.
NODE_FRAME = re.compile(r"^\s+at \S", re.M)
RUBY_FRAME = re.compile(r"\.rb:\d+:in ", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def sealed_bundle() -> dict[str, Any]:
    """One sealed claim; ``median_ms: 12.0`` is covered by the seal (``measurement`` is fingerprinted)."""
    sources = [
        {
            "id": "lab-log",
            "publisher": "架空計測室",
            "title": "架空の計測記録",
            "url": "https://example.com/lab/log",
            "published_at": "2026-09-01",
        }
    ]
    claim: dict[str, Any] = {
        "id": CLAIM,
        "label": "応答時間",
        "statement": STATEMENT,
        "basis": "operator_measurement",
        "evidence_label": "Fact",
        "status": "matched",
        "source_refs": [{"source_id": "lab-log", "section": "結果", "supports": "応答時間の中央値"}],
        "conditions": ["架空の固定条件"],
        "as_of": "2026-09-01",
        "measurement": {
            "environment": "架空の試験機",
            "method": "固定条件で100回計測",
            "results_url": "https://example.com/lab/results",
            "median_ms": 12.0,
        },
    }
    claim["verification"] = {
        "checked_at": "2026-09-02",
        "method": "human_document_review",
        "fingerprint": claim_fingerprint(claim, sources),
    }
    return {"version": 1, "sources": sources, "claims": [claim]}


BUNDLE = sealed_bundle()
BUNDLE_TEXT = dumps_for_script(BUNDLE) + "\n"
SLOT = render_evidence(BUNDLE, [CLAIM])


def site(tmp_path: Path, name: str, bundle_dir: str, assets_dir: str) -> Path:
    """The recipe's site in ``tmp_path``, with the sealed bundle and the stylesheet written in."""
    root = tmp_path / name
    shutil.copytree(RECIPES / name, root)
    (root / bundle_dir).mkdir(parents=True)
    (root / bundle_dir / "about.json").write_text(BUNDLE_TEXT, encoding="utf-8")
    (root / assets_dir).mkdir(parents=True)
    shutil.copyfile(STYLESHEET, root / assets_dir / "claim-evidence.css")
    assert '"median_ms": 12.0' in BUNDLE_TEXT
    return root


def run(command: Sequence[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in ``cwd``, with this environment's static-helper and claim-evidence first on PATH
    (and Astro's telemetry off: a build in a test never talks to the network)."""
    env = {
        **os.environ,
        "PATH": f"{TOOLS}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
        "ASTRO_TELEMETRY_DISABLED": "1",
    }
    return subprocess.run(
        [os.fspath(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )


def check(root: Path, output: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The page check and the publish gate on the built site, both reading the config in the output folder."""
    config = f"{output}/claim-evidence.toml"
    return (
        run([TOOLS / "static-helper", "--no-cache", "--config", config], root),
        run([TOOLS / "claim-evidence", "prepublish", "--config", config], root),
    )


def assert_passes(root: Path, output: str, page: str) -> None:
    helper, gate = check(root, output)
    assert helper.returncode == 0, helper.stdout + helper.stderr
    assert f"PASS {output}/{page}: 1 claim bound\n" in helper.stdout
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert f"PASS {output}/{page}: 1 claim bound\n" in gate.stdout


def assert_fails(root: Path, output: str, *findings: str) -> str:
    helper, gate = check(root, output)
    assert helper.returncode == 1, helper.stdout + helper.stderr
    assert gate.returncode == 1, gate.stdout + gate.stderr
    for finding in findings:
        assert finding in helper.stdout and finding in gate.stdout, gate.stdout
    return gate.stdout


def placed(report: str, finding: str) -> tuple[str, str]:
    """Where the text report puts the one finding that holds ``finding`` (``PATH:LINE:COL``), and
    the line after it (where ``sources`` places it: ``    written at FILE:LINE``)."""
    lines = report.splitlines()
    at = [i for i, line in enumerate(lines) if f": {finding}" in line]
    assert len(at) == 1, report
    return lines[at[0]].split(f": {finding}")[0], lines[at[0] + 1]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} does not hold {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def unmark(path: Path) -> None:
    """Every line of the page ``path`` that writes evidence markup (claim, slot, bundle) taken out, as an
    editor who drops the evidence of a page would: the page still builds, with nothing to check."""
    text = path.read_text(encoding="utf-8")
    marked = re.compile(r"data-claim-id|data-evidence|claim.?evidence.?data", re.I)
    kept = [line for line in text.splitlines(keepends=True) if not marked.search(line)]
    assert len(kept) < len(text.splitlines()), path
    path.write_text("".join(kept), encoding="utf-8")


def assert_clean_failure(built: subprocess.CompletedProcess[str], *findings: str) -> None:
    """A build the recipe's check failed: exit 1, the findings and the report's summary line on stdout,
    the one line that says the check failed on stderr, and no stack trace or backtrace anywhere."""
    assert built.returncode == 1, built.stdout + built.stderr
    out, err = ANSI.sub("", built.stdout), ANSI.sub("", built.stderr)
    for finding in findings:
        assert finding in out, out
    assert re.search(r"^\d+ pages?: \d+ passed, [1-9]\d* failed$", out, re.M), out
    failed = [line.strip() for line in err.splitlines() if "static-helper:" in line]
    assert len(failed) == 1 and re.fullmatch(
        r"static-helper: the evidence check of \S+ failed \(exit 1\)", failed[0]
    ), err
    assert not NODE_FRAME.search(out + err) and not RUBY_FRAME.search(out + err), out + err
    assert "Error" not in err and "--trace" not in err, err


@contextlib.contextmanager
def served(folder: Path, prefix: str = SUB) -> Iterator[LoopbackServer]:
    """``folder`` (a built site) served on 127.0.0.1 under ``prefix``, as a host serves a site deployed
    to a sub-path: ``PREFIX + path`` answers the file's bytes (``…/index.html`` also at ``…/``), and
    anything else 404."""
    with LoopbackServer(files=folder) as server:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            relative = path.relative_to(folder).as_posix()
            body = path.read_bytes()
            server.route(prefix + relative, body=body)
            if relative == "index.html" or relative.endswith("/index.html"):
                server.route(prefix + relative.removesuffix("index.html"), body=body)
        yield server


def fetch(url: str) -> tuple[int, bytes]:
    """``GET url`` over the loopback: the status and the body (a 404 is an answer, not an error)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:  # noqa: S310 (a loopback http:// URL)
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


STYLESHEET_LINK = re.compile(r"""<link\s+rel=["']?stylesheet["']?\s+href=["']?([^"'\s>]+)""")


def stylesheet_href(page: str) -> str:
    """The href of the page's one stylesheet link, as the generator wrote it."""
    hrefs = STYLESHEET_LINK.findall(page)
    assert len(hrefs) == 1, page
    return str(hrefs[0])


def require_tool(path: Path | str, why: str) -> None:
    """Skip with ``why`` when the generator's binary is missing (``.ci/run`` installs them)."""
    if shutil.which(os.fspath(path)) is None:
        pytest.skip(why)
