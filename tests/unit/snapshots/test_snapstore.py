"""The content-addressed snapshot store: layout, reuse, tamper detection, hostile digests, SIGKILL mid-write."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from claim_evidence._core.atomic import TEMP_PREFIX
from claim_evidence._snapshots.store import SNAPSHOT_DIR_NAME, SnapshotStore

ROOT = Path(__file__).resolve().parents[3]
HELLO = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"  # sha256(b"hello")


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_snapstore_dir_name() -> None:
    assert SNAPSHOT_DIR_NAME == "evidence-snapshots"


def test_snapstore_layout_and_digest(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / SNAPSHOT_DIR_NAME)
    assert store.put(b"hello", "hello\r\nworld\rend") == HELLO
    folder = tmp_path / "evidence-snapshots"
    assert _files(folder) == [f"sha256/2c/{HELLO[2:]}.bin", f"sha256/2c/{HELLO[2:]}.txt"]
    assert (
        store.bin_path(HELLO)
        == folder / "sha256" / "2c" / "f24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.bin"
    )
    assert (
        store.text_path(HELLO)
        == folder / "sha256" / "2c" / "f24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.txt"
    )
    assert store.bin_path(HELLO).read_bytes() == b"hello"
    assert store.text_path(HELLO).read_bytes() == b"hello\nworld\nend"
    assert store.check(HELLO) == "ok"
    assert store.text(HELLO) == "hello\nworld\nend"


def test_snapstore_text_is_utf8(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put("クモ".encode("cp932"), "クモエンジン 3 の最大入力長は 256,000 トークンです")
    assert store.text_path(digest).read_bytes() == "クモエンジン 3 の最大入力長は 256,000 トークンです".encode()
    assert store.text(digest) == "クモエンジン 3 の最大入力長は 256,000 トークンです"


def test_snapstore_identical_put_reuses_files(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(b"hello", "hello")
    paths = [store.bin_path(digest), store.text_path(digest)]
    for path in paths:
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # long ago: any rewrite would show
    assert store.put(b"hello", "hello") == digest
    assert [path.stat().st_mtime_ns for path in paths] == [1_000_000_000, 1_000_000_000]
    assert _files(tmp_path) == [f"sha256/2c/{HELLO[2:]}.bin", f"sha256/2c/{HELLO[2:]}.txt"]


def test_snapstore_new_text_rewrites_only_the_text(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(b"hello", "old extraction")
    os.utime(store.bin_path(digest), ns=(1_000_000_000, 1_000_000_000))
    store.put(b"hello", "new extraction")
    assert store.bin_path(digest).stat().st_mtime_ns == 1_000_000_000
    assert store.text(digest) == "new extraction"


def test_snapstore_altered_detected_and_repaired_by_put(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(b"hello", "hello")
    store.bin_path(digest).write_bytes(b"hellO")
    assert store.check(digest) == "altered"
    store.bin_path(digest).write_bytes(b"")
    assert store.check(digest) == "altered"
    assert store.put(b"hello", "hello") == digest
    assert store.check(digest) == "ok"
    assert store.bin_path(digest).read_bytes() == b"hello"


def test_snapstore_missing_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "never-created")
    assert store.check(HELLO) == "missing"
    assert store.text(HELLO) is None
    store = SnapshotStore(tmp_path)
    digest = store.put(b"hello", "hello")
    store.bin_path(digest).unlink()
    assert store.check(digest) == "missing"
    assert store.text(digest) == "hello"  # the text alone does not make a snapshot


def test_snapstore_text_missing_or_not_utf8_is_none(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(b"hello", "hello")
    store.text_path(digest).write_bytes(b"\xff\xfe not UTF-8")
    assert store.text(digest) is None
    store.text_path(digest).unlink()
    assert store.text(digest) is None
    assert store.check(digest) == "ok"


def test_snapstore_large_body_is_hashed_in_chunks(tmp_path: Path) -> None:
    body = bytes(range(256)) * (3 * 4096 + 7)  # a little over 3 MiB: several read chunks
    store = SnapshotStore(tmp_path)
    digest = store.put(body, "")
    assert digest == hashlib.sha256(body).hexdigest()
    assert store.check(digest) == "ok"
    with open(store.bin_path(digest), "r+b") as handle:
        handle.seek(len(body) - 1)
        handle.write(b"\x00")  # the last byte of the last chunk
    assert store.check(digest) == "altered"


BAD_DIGESTS = [
    "../" * 10,
    "../" * 21 + "x",  # 64 characters
    HELLO.upper(),
    HELLO[:63],
    HELLO + "0",
    HELLO + "\n",
    "\n" + HELLO[1:],
    "/" + HELLO[1:],
    HELLO[:2] + "/" + HELLO[3:],
    "g" * 64,
    "",
]


@pytest.mark.parametrize("digest", BAD_DIGESTS)
def test_snapstore_bad_digest_never_touches_the_filesystem(tmp_path: Path, digest: str) -> None:
    (tmp_path / "x.bin").write_bytes(b"outside")
    (tmp_path / "x.txt").write_bytes(b"outside")
    store = SnapshotStore(tmp_path / "store" / "a" / "b")
    with pytest.raises(ValueError, match="^not a SHA-256 hex digest: "):
        store.bin_path(digest)
    with pytest.raises(ValueError, match="^not a SHA-256 hex digest: "):
        store.text_path(digest)
    assert store.check(digest) == "missing"
    assert store.text(digest) is None
    assert _files(tmp_path) == ["x.bin", "x.txt"]


def test_snapstore_bad_digest_type_is_missing(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    assert store.check(None) == "missing"  # type: ignore[arg-type]  # a bundle is untrusted JSON
    assert store.text(12) is None  # type: ignore[arg-type]


# --- SIGKILL during a write --------------------------------------------------------------------

# The child slows the atomic writer down (1 MiB chunks, a long sleep after 9 of
# them, announced on stdout), so the kill lands mid-write every time.
_CHILD = r"""
import os, sys, time
from pathlib import Path

real_fdopen = os.fdopen


class Slow:
    def __init__(self, fd, *args, **kwargs):
        self.handle = real_fdopen(fd, *args, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def write(self, data):
        view = memoryview(data)
        for start in range(0, len(view), 1 << 20):
            self.handle.write(view[start:start + (1 << 20)])
            if start == 8 << 20:
                self.handle.flush()
                print("WRITING", flush=True)
                time.sleep(120)
        return len(view)

    def flush(self):
        self.handle.flush()

    def fileno(self):
        return self.handle.fileno()


os.fdopen = Slow
from claim_evidence._snapshots.store import SnapshotStore

SnapshotStore(Path(sys.argv[1])).put(bytes(range(256)) * (50 << 12), "extracted text")
print("DONE", flush=True)
"""
_TEMP = re.compile(re.escape(TEMP_PREFIX) + r"[a-z0-9_]{8}\.tmp")


def test_snapstore_kill_during_put_leaves_no_file_under_the_final_name(tmp_path: Path) -> None:
    body = bytes(range(256)) * (50 << 12)  # 50 MiB
    digest = hashlib.sha256(body).hexdigest()
    store = SnapshotStore(tmp_path / "store")
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(store.folder)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line == "WRITING\n"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    shard = store.bin_path(digest).parent
    names = sorted(p.name for p in shard.iterdir())
    assert len(names) == 2 and names[1] == f"{digest[2:]}.txt"  # the text is written first, whole
    assert _TEMP.fullmatch(names[0]), names[0]  # the half body only ever under a temp name
    assert (shard / names[0]).stat().st_size == 9 << 20
    assert not store.bin_path(digest).exists()
    assert store.check(digest) == "missing"
    assert store.text(digest) == "extracted text"
    # The next run stores it whole; the killed run's temp file is left for a cleaner.
    assert store.put(body, "extracted text") == digest
    assert store.check(digest) == "ok"
    assert sorted(p.name for p in shard.iterdir()) == [names[0], f"{digest[2:]}.bin", f"{digest[2:]}.txt"]
