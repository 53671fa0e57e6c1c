"""Writes that lose nothing: ``--write`` killed at random points, failing disks, owners, concurrent runs.

Symlinks, modes and read-only pages are in ``test_static_cli.py``; the atomic
writer's own failure injection is in ``test_atomic.py``. Here the whole command
is exercised: a subprocess killed with SIGKILL, the CLI in-process with a
monkeypatched ``os`` call, and two subprocesses racing over one site.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._core.atomic import TEMP_PREFIX
from claim_evidence._site import runner as _runner
from static_helper import render_static_page
from static_helper.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "static"
PAGES = 240
KILLS = 24
SEED = 20260905
BOM = b"\xef\xbb\xbf"


def _variant(index: int) -> bytes:
    """Stale page ``index``: the golden pages, with a per-page comment, some with a BOM or CRLF."""
    source = DATA / ("basic_before.html" if index % 2 else "tricky_before.html")
    text = source.read_text(encoding="utf-8") + f"<!-- page {index} -->\n"
    if index % 5 == 0:
        text = text.replace("\n", "\r\n")
    return (BOM if index % 7 == 0 else b"") + text.encode("utf-8")


def _rendered(old: bytes) -> bytes:
    bom = old.startswith(BOM)
    text = old[3:].decode("utf-8") if bom else old.decode("utf-8")
    new, errors = render_static_page(text)
    assert errors == [] and new != text
    return (BOM if bom else b"") + new.encode("utf-8")


def _make_site(root: Path, count: int) -> dict[Path, tuple[bytes, bytes]]:
    """``{page: (old bytes, new bytes)}``, spread over a few folders, every page written stale."""
    pages = {}
    for index in range(count):
        folder = root / f"section{index % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        old = _variant(index)
        pages[folder / f"page{index:03}.html"] = (old, _rendered(old))
    _reset(pages)
    return pages


def _reset(pages: dict[Path, tuple[bytes, bytes]]) -> None:
    for path, (old, _) in pages.items():
        path.write_bytes(old)


def _temps(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob(f"{TEMP_PREFIX}*") if p.is_file())


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "static_helper", *args]


def _age(paths: list[Path], seconds: float) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


# --- SIGKILL at random points ---------------------------------------------------------------


def test_kill_write_leaves_every_page_old_or_new(tmp_path: Path) -> None:
    site = tmp_path / "site"
    pages = _make_site(site, PAGES)
    rng = random.Random(SEED)
    # One uninterrupted run measures how long a full --write takes here, so that the kills land
    # all along it (start-up, reading, writing); the outcome is checked like every other.
    started = time.monotonic()
    done = subprocess.run(_command(str(site), "--write", "--no-cache", "--jobs", "1"), capture_output=True, text=True)
    full = time.monotonic() - started
    assert done.returncode == 0, done.stderr  # every page clean once rewritten
    assert all(path.read_bytes() == new for path, (_, new) in pages.items())
    outcomes = []
    leftovers: list[Path] = []
    for iteration in range(KILLS):
        _reset(pages)
        jobs = "2" if iteration % 3 == 2 else "1"  # the pool's workers die with their process group
        proc = subprocess.Popen(
            _command(str(site), "--write", "--no-cache", "--jobs", jobs),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.0, full))
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it finished first: a valid outcome too
        proc.wait()
        states = {path: path.read_bytes() for path in pages}
        broken = [path for path, data in states.items() if data not in pages[path]]
        assert broken == [], f"iteration {iteration}: pages neither old nor new: {broken[:3]}"
        rewritten = sum(states[path] == new for path, (_, new) in pages.items())
        leftovers = _temps(site)
        outcomes.append((rewritten, len(leftovers)))
        _age(leftovers, 3600)  # from a killed run, long ago: the next run may clean them
    assert len(outcomes) == KILLS
    print(f"kill test: {KILLS} kills, (pages rewritten, temp files left) per kill: {outcomes}")
    # Leftovers are never taken for pages, and the next --write cleans them and finishes the job.
    check = subprocess.run(_command(str(site), "--no-cache", "--jobs", "1"), capture_output=True, text=True)
    assert check.stdout.splitlines()[-1].startswith(f"{PAGES} pages: ")
    assert TEMP_PREFIX not in check.stdout
    assert main([str(site), "--write", "--no-cache", "--jobs", "1"]) == 0
    assert _temps(site) == []
    assert all(path.read_bytes() == new for path, (_, new) in pages.items())
    assert main([str(site), "--write", "--no-cache", "--jobs", "1"]) == 0


# --- leftover temp files --------------------------------------------------------------------


def test_kill_leftover_temp_files_cleaned_only_when_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deep").mkdir()
    shutil.copy(DATA / "basic_after.html", tmp_path / "deep" / "basic.html")
    old = [tmp_path / f"{TEMP_PREFIX}abc123_x.tmp", tmp_path / "deep" / f"{TEMP_PREFIX}zz9_0000.tmp"]
    young = tmp_path / f"{TEMP_PREFIX}live0001.tmp"  # a concurrent run's, just created
    lookalikes = [
        tmp_path / f"{TEMP_PREFIX}abc.html",
        tmp_path / "claim-evidence-tmp-abc.tmp",
        tmp_path / f"{TEMP_PREFIX}a-b.tmp",
    ]
    for path in [*old, young, *lookalikes]:
        path.write_bytes(b"<p>partial")
    _age([*old, *lookalikes], 3600)
    assert main([".", "--no-cache"]) == 0  # a check never deletes anything
    assert all(path.exists() for path in [*old, young, *lookalikes])
    assert main([".", "--write", "--no-cache"]) == 0
    assert [path.exists() for path in old] == [False, False]
    assert young.exists() and all(path.exists() for path in lookalikes)
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "1 page: 1 passed, 0 failed"  # temp files are never pages
    assert TEMP_PREFIX not in out


def test_kill_leftover_temp_beside_a_named_page_is_cleaned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA / "basic_before.html", tmp_path / "basic.html")
    leftover = tmp_path / f"{TEMP_PREFIX}k1ll3d__.tmp"
    leftover.write_bytes(b"half a page")
    _age([leftover], 3600)
    assert main(["basic.html", "--write", "--no-cache"]) == 0
    assert not leftover.exists()
    assert (tmp_path / "basic.html").read_bytes() == (DATA / "basic_after.html").read_bytes()


def test_kill_remove_stale_temp_keeps_young_files_and_symlinks(tmp_path: Path) -> None:
    temp = tmp_path / f"{TEMP_PREFIX}abcdefgh.tmp"
    temp.write_bytes(b"x")
    now = temp.stat().st_mtime
    assert _runner.remove_stale_temp(temp, now + _runner.STALE_TEMP_SECONDS - 1) is False
    assert temp.exists()
    link = tmp_path / f"{TEMP_PREFIX}link0000.tmp"
    link.symlink_to(temp)
    assert _runner.remove_stale_temp(link, now + 3600) is False
    assert link.is_symlink()
    assert _runner.remove_stale_temp(temp, now + _runner.STALE_TEMP_SECONDS) is True
    assert not temp.exists()
    assert _runner.remove_stale_temp(tmp_path / "page.html", now + 3600) is False


# --- failure injection through the CLI ---------------------------------------------------------


@pytest.fixture
def stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "basic.html"
    shutil.copy(DATA / "basic_before.html", page)
    return page


def _fail(*_: Any, **__: Any) -> None:
    raise OSError(errno.EIO, "Input/output error")


def _assert_write_failed(page: Path, capsys: Any, reason: str) -> None:
    out = capsys.readouterr().out
    assert f"CE010 cannot write file: {reason}; the original is unchanged" in out
    assert out.splitlines()[-1] == "1 page: 0 passed, 1 failed"
    assert page.read_bytes() == (DATA / "basic_before.html").read_bytes()
    assert sorted(p.name for p in page.parent.iterdir()) == ["basic.html"]


def test_kill_replace_failing_keeps_original_and_exits_2(
    stale: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(os, "replace", _fail)
    assert main(["basic.html", "--write", "--no-cache"]) == 2
    _assert_write_failed(stale, capsys, "Input/output error")


def test_kill_fsync_failing_keeps_original_and_exits_2(
    stale: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(os, "fsync", _fail)
    assert main(["basic.html", "--write", "--no-cache"]) == 2
    _assert_write_failed(stale, capsys, "Input/output error")


class _FullDisk:
    """A temp file whose data never fits: the first write raises ENOSPC."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *_: object) -> None:
        os.close(self.fd)

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_kill_disk_full_keeps_original_and_exits_2(stale: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(os, "fdopen", lambda fd, *_a, **_k: _FullDisk(fd))
    assert main(["basic.html", "--write", "--no-cache"]) == 2
    _assert_write_failed(stale, capsys, "No space left on device")


def test_kill_failed_page_does_not_stop_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        shutil.copy(DATA / "basic_before.html", tmp_path / f"{name}.html")
    real_replace = os.replace

    def replace(src: str, dst: str, **kwargs: Any) -> None:  # (the writer renames within a folder descriptor)
        if os.path.basename(dst) == "a.html":
            _fail()
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    assert main([".", "--write", "--no-cache"]) == 2
    assert (tmp_path / "a.html").read_bytes() == (DATA / "basic_before.html").read_bytes()
    assert (tmp_path / "b.html").read_bytes() == (DATA / "basic_after.html").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html", "b.html"]
    out = capsys.readouterr().out
    assert "PASS b.html: 2 claims bound, 2 evidence slots re-rendered" in out


# --- owner --------------------------------------------------------------------------------------


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another owner"
)
def test_kill_write_keeps_owner(stale: Path) -> None:
    os.chown(stale, 4321, 4322)
    stale.chmod(0o664)
    assert main(["basic.html", "--write", "--no-cache"]) == 0
    info = stale.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (4321, 4322, 0o664)
    assert stale.read_bytes() == (DATA / "basic_after.html").read_bytes()


# --- two runs at once ---------------------------------------------------------------------------


def test_kill_two_concurrent_writes_leave_every_page_valid_and_stable(tmp_path: Path) -> None:
    site = tmp_path / "site"
    pages = _make_site(site, 120)
    procs = [
        subprocess.Popen(
            _command(str(site), "--write", "--exit-non-zero-on-write", "--no-cache", "--jobs", jobs),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for jobs in ("1", "2")
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    codes = sorted(proc.returncode for proc in procs)
    assert codes in ([0, 1], [1, 1]), outputs  # at least one wrote; neither failed
    assert all(out.splitlines()[-1] == "120 pages: 120 passed, 0 failed" for out, _ in outputs)
    assert all(path.read_bytes() == new for path, (_, new) in pages.items())
    assert _temps(site) == []
    assert main([str(site), "--write", "--no-cache", "--jobs", "1"]) == 0  # stable: nothing left to do
    assert all(path.read_bytes() == new for path, (_, new) in pages.items())


def test_kill_leftover_temp_beside_a_registered_page_in_a_hidden_folder_is_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config run writes registered pages the site walk never enters (a hidden folder): the temp file
    a killed run left beside one, an hour old, goes with the next --write; a young one stays."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".drafts").mkdir()
    shutil.copy(DATA / "basic_before.html", tmp_path / ".drafts" / "basic.html")
    (tmp_path / "claim-evidence.toml").write_text(
        'pages = [".drafts/basic.html"]\nstylesheet = false\n', encoding="utf-8"
    )
    leftover = tmp_path / ".drafts" / f"{TEMP_PREFIX}k1ll3d__.tmp"
    young = tmp_path / ".drafts" / f"{TEMP_PREFIX}y0ung___.tmp"
    leftover.write_bytes(b"half a page")
    young.write_bytes(b"a running --write")
    _age([leftover], 3600)
    assert main(["--no-cache"]) == 1  # a check deletes nothing (the page has stale slots)
    assert leftover.exists()
    assert main(["--write", "--no-cache"]) == 0
    assert not leftover.exists() and young.exists()
    assert (tmp_path / ".drafts" / "basic.html").read_bytes() == (DATA / "basic_after.html").read_bytes()


def test_kill_leftover_temp_just_past_the_age_limit_is_cleaned_by_the_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 60 s rule: a temp file older than STALE_TEMP_SECONDS beside a named page goes, one younger stays."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA / "basic_before.html", tmp_path / "basic.html")
    old = tmp_path / f"{TEMP_PREFIX}0ld_____.tmp"
    recent = tmp_path / f"{TEMP_PREFIX}rec3nt__.tmp"
    old.write_bytes(b"x")
    recent.write_bytes(b"x")
    _age([old], _runner.STALE_TEMP_SECONDS + 5)
    _age([recent], _runner.STALE_TEMP_SECONDS - 30)
    assert main(["basic.html", "--write", "--no-cache"]) == 0
    assert (old.exists(), recent.exists()) == (False, True)
