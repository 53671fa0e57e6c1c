"""One page's failure is that page's: a bug met while checking one file is reported on that file,
every other file is still checked and reported, and the run exits 2 at the end."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint
from claim_evidence._check import documents as _documents
from claim_evidence._check.page import check_text
from claim_evidence._site import runner as _runner
from claim_evidence.cli import main as claim_evidence_main

from ...conftest import ROOT, cli_in_process, example_page_without_markers

SITE = ROOT / "examples" / "site"
INJECTED = "internal error: RuntimeError: injected for broken.html (set CLAIM_EVIDENCE_DEBUG=1 for details)"


def _site(tmp_path: Path, copies: int) -> Path:
    """The example's about page ``copies`` times (it passes) plus ``broken.html`` (the same page)."""
    site = tmp_path / "site"
    site.mkdir()
    about = example_page_without_markers("about.html")
    for n in range(copies):
        (site / f"page-{n:03d}.html").write_bytes(about)
    (site / "broken.html").write_bytes(about)
    shutil.copytree(SITE / "assets", site / "assets")
    return site


@pytest.fixture
def broken_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page check raises a bug for broken.html only (workers forked from this process inherit it)."""

    def check(text: str, name: str | None = None, options: Any = None, records: Any = None) -> Any:
        if name is not None and name.endswith("broken.html"):
            raise RuntimeError("injected for broken.html")
        return check_text(text, name, options, records=records)

    monkeypatch.setattr(_runner, "check_text", check)
    monkeypatch.delenv("CLAIM_EVIDENCE_DEBUG", raising=False)


def _run_helper(site: Path, jobs: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code, out, err = cli_in_process("static-helper", [str(site), "--no-cache", "--jobs", str(jobs)], capsys)
    # about.html records snapshots; this copy has no snapshot folder, which each page notes (CE520)
    return code, [line for line in out.splitlines() if not line.endswith("(note)")], err


def test_runner_bug_on_one_page_is_that_page_s_result_jobs_1(
    tmp_path: Path, broken_check: None, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _site(tmp_path, 3)
    code, lines, err = _run_helper(site, 1, capsys)
    assert (code, err) == (2, "")
    assert lines == [
        f"{site / 'broken.html'}: CE999 {INJECTED}",
        *[f"PASS {site / f'page-{n:03d}.html'}: 2 claims bound" for n in range(3)],
        "4 pages: 3 passed, 1 failed",
    ]


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="the injected bug reaches workers only when they are forked"
)
def test_runner_bug_on_one_page_is_that_page_s_result_jobs_2(
    tmp_path: Path, broken_check: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """With worker processes (enough pages to start a pool): the pool survives, every page is reported."""
    copies = _runner.MIN_PARALLEL + 6
    site = _site(tmp_path, copies)
    code, lines, err = _run_helper(site, 2, capsys)
    assert (code, err) == (2, "")
    assert lines[0] == f"{site / 'broken.html'}: CE999 {INJECTED}"
    assert lines[1:-1] == [f"PASS {site / f'page-{n:03d}.html'}: 2 claims bound" for n in range(copies)]
    assert lines[-1] == f"{copies + 1} pages: {copies} passed, 1 failed"


def test_runner_debug_shows_the_traceback_and_still_goes_on(
    tmp_path: Path, broken_check: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAIM_EVIDENCE_DEBUG", "1")
    site = _site(tmp_path, 1)
    code, lines, _ = _run_helper(site, 1, capsys)
    assert code == 2
    assert lines[0] == f"{site / 'broken.html'}: CE999 internal error: RuntimeError: injected for broken.html"
    assert lines[1].strip() == "Traceback (most recent call last):"
    assert lines[-2:] == [f"PASS {site / 'page-000.html'}: 2 claims bound", "2 pages: 1 passed, 1 failed"]


def test_runner_prepublish_names_the_failing_target(
    tmp_path: Path, broken_check: None, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _site(tmp_path, 2)
    (site / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    code = claim_evidence_main(
        ["prepublish", "--config", str(site / "claim-evidence.toml"), "--jobs", "1", "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 2
    assert [(Path(f["path"]).name, f["status"]) for f in report["files"]] == [
        ("broken.html", "error"),
        ("page-000.html", "pass"),
        ("page-001.html", "pass"),
    ]
    assert report["files"][0]["diagnostics"][0]["message"] == INJECTED


def test_runner_validate_reports_a_bug_on_its_file_and_checks_the_rest(
    tmp_path: Path, bundle: dict, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    bundle["claims"][0]["source_refs"][0]["quote"] = {"exact": "達成率は72.6%"}  # a record without warnings
    bundle["claims"][0]["verification"]["fingerprint"] = claim_fingerprint(bundle["claims"][0], bundle["sources"])
    for name in ("a.json", "broken.json", "c.json"):
        path = tmp_path / name
        path.write_text(json.dumps(bundle), encoding="utf-8")
        files.append(str(path))
    real = _documents.BundleDocument.diagnostics

    def diagnostics(self: _documents.BundleDocument, *args: Any) -> Any:
        if self.path.endswith("broken.json"):
            raise KeyError("injected")
        return real(self, *args)

    monkeypatch.setattr(_documents.BundleDocument, "diagnostics", diagnostics)
    monkeypatch.delenv("CLAIM_EVIDENCE_DEBUG", raising=False)
    code = claim_evidence_main(["validate", *files])
    out = capsys.readouterr().out.splitlines()
    assert code == 2
    assert out == [
        f"PASS {files[0]}",
        f"{files[1]}: CE999 internal error: KeyError: 'injected' (set CLAIM_EVIDENCE_DEBUG=1 for details)",
        f"PASS {files[2]}",
        "3 files: 2 passed, 1 failed",
    ]


# --- finding a site's pages ---------------------------------------------------------------------


def test_runner_realpaths_resolve_as_realpath_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RealPaths resolves each folder once and each file that is a link whole: the same answers as
    os.path.realpath for links to files and folders, dangling links, relative paths and missing files."""
    site = tmp_path / "site"
    (site / "pages").mkdir(parents=True)
    (site / "pages" / "a.html").write_text("a", encoding="utf-8")
    (site / "alias.html").symlink_to(site / "pages" / "a.html")
    (site / "mirror").symlink_to(site / "pages", target_is_directory=True)
    (site / "dangling.html").symlink_to(site / "gone.html")
    (site / "chain.html").symlink_to("alias.html")
    (site / "pages" / "deep").mkdir()
    (site / "down").symlink_to(site / "pages" / "deep", target_is_directory=True)
    monkeypatch.chdir(site)
    real = _runner.RealPaths()
    asked = [
        site / "pages" / "a.html",
        site / "alias.html",
        site / "mirror" / "a.html",
        site / "dangling.html",
        site / "chain.html",
        site / "missing.html",
        Path("pages/a.html"),
        Path("mirror/a.html"),
        Path("mirror/../alias.html"),
        Path("down/../a.html"),  # (pages/a.html: the link first, then "..")
        site / "down" / ".." / "a.html",
    ]
    for path in asked * 2:  # (the second time from the folders it keeps)
        assert real(path) == os.path.realpath(path), path


def test_runner_a_link_to_a_registered_page_is_not_a_second_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "pages").mkdir(parents=True)
    (site / "pages" / "a.html").write_text("<p>a</p>", encoding="utf-8")
    (site / "pages" / "b.html").write_text("<p>b</p>", encoding="utf-8")
    (site / "alias.html").symlink_to(site / "pages" / "a.html")
    (site / "claim-evidence.toml").write_text('pages = ["pages/*.html"]\n', encoding="utf-8")
    (tmp_path / "here").symlink_to(site, target_is_directory=True)
    monkeypatch.chdir(tmp_path / "here")  # (shown relative to the working folder, a link to the site)
    from claim_evidence._site.config import load_config

    tasks = _runner.tasks_for_config(load_config(site / "claim-evidence.toml"), False)
    assert [(t.display, t.registered) for t in tasks] == [("pages/a.html", True), ("pages/b.html", True)]
