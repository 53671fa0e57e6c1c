"""Files the tools create are readable by a web server running as another user: ``0666`` less the umask.

An existing file keeps its mode. Every writer goes through ``_atomic.atomic_write_bytes``; each is run
here as a user runs it, under umask 022 (the usual one) and 027 (a stricter one), and every file it
created is checked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._core.atomic import atomic_write_bytes

from ..conftest import ROOT, example_site_copy


@pytest.fixture(params=[0o022, 0o027])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _modes(folder: Path, before: set[Path]) -> dict[str, int]:
    return {
        os.fspath(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p not in before
    }


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def test_file_mode_new_file_is_0666_less_the_umask(tmp_path: Path, umask: int) -> None:
    written = atomic_write_bytes(tmp_path / "new.json", b"{}")
    assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask


def test_file_mode_existing_file_keeps_its_mode(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "kept.html"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    atomic_write_bytes(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    os.chmod(target, 0o664)
    atomic_write_bytes(target, b"newer")
    assert stat.S_IMODE(target.stat().st_mode) == 0o664


def _init(run: Any, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<html lang="ja"><body><p>x</p></body></html>\n', encoding="utf-8")
    assert run("init", os.fspath(site))[0] == 0
    return site


def _report(run: Any, tmp_path: Path) -> Path:
    site = example_site_copy(tmp_path / "site")
    out = tmp_path / "out"
    out.mkdir()
    for fmt in ("html", "json", "csv"):
        code, _, err = run(
            "report",
            "--config",
            str(site / "claim-evidence.toml"),
            "--today",
            "2026-12-01",
            "--format",
            fmt,
            "--out",
            str(out / f"report.{fmt}"),
        )
        assert code in (0, 1), err
    return out


def _kb(run: Any, tmp_path: Path) -> Path:
    site = example_site_copy(tmp_path / "site")
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run(
        "kb",
        "build",
        "--config",
        str(site / "claim-evidence.toml"),
        "--today",
        "2026-12-01",
        "--out",
        str(out / "kb.json"),
    )
    assert code == 0, err
    return out


def _snapshot(run: Any, tmp_path: Path) -> Path:
    bundle = {
        "schema_version": "1.0",
        "sources": [
            {"id": "s", "url": "https://example.com/report", "publisher": "P", "title": "T", "source_type": "official"}
        ],
        "claims": [],
    }
    path = tmp_path / "b.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    copy = ROOT / "tests" / "data" / "snapshots" / "page.pdf"
    code, _, err = run(
        "sources",
        "snapshot",
        str(path),
        "--source",
        "s",
        "--file",
        str(copy),
        "--snapshot-dir",
        str(tmp_path / "snaps"),
        "--retrieved-at",
        "2026-10-02",
    )
    assert code in (0, 1), err
    return tmp_path / "snaps"


def _claim_add(run: Any, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run(
        "claim",
        "add",
        str(out / "new.json"),
        "--id",
        "c1",
        "--statement",
        "ミナト量子は30億円を調達した。",
        "--basis",
        "official_spec",
    )
    assert code in (0, 1), err
    assert (out / "new.json").is_file(), err
    return out


def _news(run: Any, tmp_path: Path) -> Path:
    spec = importlib.util.spec_from_file_location("news_pipeline_for_modes", ROOT / "examples" / "news" / "pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "news-out"
    assert module.main([str(out)]) in (0, 1)
    return out


WRITERS: dict[str, Callable[[Any, Path], Path]] = {
    "init": _init,
    "report": _report,
    "kb build": _kb,
    "sources snapshot": _snapshot,
    "claim add (new bundle JSON)": _claim_add,
    "news pipeline": _news,
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_file_mode_every_writer_creates_readable_files(
    writer: str, run: Any, tmp_path: Path, umask: int, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(tmp_path)
    folder = WRITERS[writer](run, tmp_path)
    capsys.readouterr()
    created = _modes(folder, before)
    assert created, f"{writer} created no file under {folder}"
    assert {name: oct(mode) for name, mode in created.items() if mode != 0o666 & ~umask} == {}


def test_file_mode_news_pipeline_writes_every_output(run: Any, tmp_path: Path, umask: int) -> None:
    """The news outputs the issue names are among the files checked above."""
    out = _news(run, tmp_path)
    names = {p.name for p in out.rglob("*") if p.is_file()}
    assert {"homepage.json", "data.json"} <= names
    assert any(n.endswith(".html") for n in names)
    assert any(n.endswith(".txt") for n in names)
