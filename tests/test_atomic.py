from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from claim_evidence import InputError
from claim_evidence._atomic import TEMP_PREFIX, atomic_write_bytes


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    target.write_bytes(b"old")
    os.chmod(target, 0o604)
    atomic_write_bytes(target, b"new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_atomic_write_through_symlink_keeps_link(tmp_path: Path) -> None:
    real = tmp_path / "real.html"
    real.write_bytes(b"old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    assert atomic_write_bytes(link, b"new") == real
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_atomic_write_read_only_is_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "ro.html"
    target.write_bytes(b"old")
    os.chmod(target, 0o444)
    with pytest.raises(InputError, match="read-only"):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_atomic_write_failure_leaves_original_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    target = tmp_path / "page.html"
    target.write_bytes(b"old")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(InputError) as caught:
        atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert "No space left on device; the original is unchanged" in caught.value.diagnostic.message
    assert target.read_bytes() == b"old"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]
