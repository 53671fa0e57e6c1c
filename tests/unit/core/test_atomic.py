from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from claim_evidence import InputError
from claim_evidence._core import atomic
from claim_evidence._core.atomic import TEMP_PREFIX, atomic_write_bytes, deferred_folder_syncs


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
def test_atomic_write_failure_leaves_original_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
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


def test_atomic_write_read_only_mount_says_so_without_chmod_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read-only mount access(W_OK) fails although the mode bits allow writing: no chmod helps."""
    target = tmp_path / "page.html"
    target.write_bytes(b"old")
    real = os.fstatvfs

    class _ReadOnly:
        def __init__(self, found: os.statvfs_result) -> None:
            self.f_flag = found.f_flag | os.ST_RDONLY

    monkeypatch.setattr(os, "fstatvfs", lambda fd: _ReadOnly(real(fd)))
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    with pytest.raises(InputError) as caught:
        atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert caught.value.diagnostic.code == "CE010"
    assert caught.value.diagnostic.message == (
        "the file system is mounted read-only; nothing was written: work on a copy on a writable disk, "
        "or remount it read-write, and run the command again"
    )
    assert target.read_bytes() == b"old"


def test_atomic_write_erofs_on_create_says_mounted_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new file on a read-only mount: creating the temp file fails with EROFS."""
    import errno

    real_open = os.open

    def refuse(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if str(path).startswith(TEMP_PREFIX):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(InputError) as caught:
        atomic_write_bytes(tmp_path / "new.html", b"new")
    monkeypatch.undo()
    message = caught.value.diagnostic.message
    assert message.startswith("cannot write file: the file system is mounted read-only; the original is unchanged")
    assert "chmod" not in message


def _folder_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Every fsync of a folder from now on, by (device, inode); each still reaches the real os.fsync."""
    synced: list[tuple[int, int]] = []
    real = os.fsync

    def spy(fd: int) -> None:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            synced.append((info.st_dev, info.st_ino))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return synced


def _key(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_dev, info.st_ino


def test_atomic_write_fsyncs_folder_after_each_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced = _folder_fsyncs(monkeypatch)
    for name in ("a.html", "b.html"):
        atomic_write_bytes(tmp_path / name, b"x")
    assert synced == [_key(tmp_path)] * 2


def test_deferred_folder_syncs_once_per_folder_at_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    synced = _folder_fsyncs(monkeypatch)
    with deferred_folder_syncs():
        for name in ("a.html", "b.html", "sub/c.html", "d.html"):
            atomic_write_bytes(tmp_path / name, name.encode())
            assert (tmp_path / name).read_bytes() == name.encode()  # replaced at once, durable at the end
        assert synced == []
        with deferred_folder_syncs():  # an inner block is the outer one's
            atomic_write_bytes(tmp_path / "e.html", b"e")
        assert synced == []
    assert sorted(synced) == sorted([_key(tmp_path), _key(tmp_path / "sub")])
    assert atomic._DEFERRED.get() is None
    atomic_write_bytes(tmp_path / "f.html", b"f")  # after the block: after each file again
    assert synced[-1] == _key(tmp_path) and len(synced) == 3


def test_deferred_folder_syncs_flushes_when_block_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced = _folder_fsyncs(monkeypatch)
    with pytest.raises(KeyError), deferred_folder_syncs():
        atomic_write_bytes(tmp_path / "a.html", b"a")
        raise KeyError("boom")
    assert synced == [_key(tmp_path)]


def test_deferred_folder_syncs_holds_few_descriptors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic._FolderSyncs, "LIMIT", 3)
    synced = _folder_fsyncs(monkeypatch)
    folders = [tmp_path / f"d{i}" for i in range(7)]
    open_before = len(os.listdir("/proc/self/fd"))
    with deferred_folder_syncs():
        for folder in folders:
            folder.mkdir()
            atomic_write_bytes(folder / "p.html", b"p")
            assert len(os.listdir("/proc/self/fd")) - open_before <= 3
    assert sorted(synced) == sorted(_key(f) for f in folders)
    assert len(os.listdir("/proc/self/fd")) == open_before
