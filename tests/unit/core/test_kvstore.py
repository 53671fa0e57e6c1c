"""The caches' SQLite store (``claim_evidence/_core/kvstore.py``): entries, pruning, damage, processes."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from claim_evidence._core.kvstore import BATCH, IGNORE_NOTE, KeyValueStore


def test_kvstore_put_get_keys_and_a_new_folder_ignores_itself(tmp_path: Path) -> None:
    store = KeyValueStore(tmp_path / "cache" / "x.sqlite3")
    assert (
        store.get("a") is None and store.keys() == [] and not (tmp_path / "cache").exists()
    )  # reading creates nothing
    store.put("b", b"\x00two")
    store.put("a", b"one")
    store.put("a", b"one again")
    assert (store.get("a"), store.get("b"), store.keys()) == (b"one again", b"\x00two", ["a", "b"])
    assert (tmp_path / "cache" / ".gitignore").read_bytes() == IGNORE_NOTE


def test_kvstore_prune_keeps_what_was_written_or_read_since(tmp_path: Path) -> None:
    store = KeyValueStore(tmp_path / "x.sqlite3")
    store.put("old", b"1")
    store.put("read", b"2")
    time.sleep(0.05)
    since = time.time()
    store.put("new", b"3")
    assert store.get("read") == b"2"  # a read marks it used
    assert store.prune(since) == 1
    assert store.keys() == ["new", "read"]


def test_kvstore_touch_keeps_an_entry_through_prune_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    first = KeyValueStore(path)
    first.put("kept", b"1")
    first.put("gone", b"2")
    first.close()
    store = KeyValueStore(path)
    store.put("early", b"3")  # (kept in the process, not written yet, put before ``since``)
    time.sleep(0.05)
    since = time.time()
    store.touch("kept")
    store.touch("missing")  # (no entry: none is made)
    store.touch("early")  # (still written, and marked used now)
    assert store.prune(since) == 1
    assert store.keys() == ["early", "kept"]
    assert (store.get("kept"), store.get("early")) == (b"1", b"3")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_kvstore_a_fork_inherits_no_open_connection_and_reads_what_the_parent_kept(tmp_path: Path) -> None:
    """Before the process forks, what it kept is written and its connections are closed: a child (a pool's
    worker) reads the parent's entries with a connection of its own, and its writes are not lost to the
    locks SQLite holds per process (it lost a run's marks of use when a parent held the file open)."""
    path = tmp_path / "x.sqlite3"
    store = KeyValueStore(path)
    store.put("written", b"1")
    store.flush()
    assert store.get("written") == b"1"  # (the parent's connection is open)
    store.put("kept", b"2")  # (kept in the process, not written yet)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own store of the file, as a worker has
        try:
            child = KeyValueStore(path)
            seen = (child.get("kept"), child.get("written"), store._db is None)
            child.put("child", b"3")
            child.close()
            os.write(write, repr(seen).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        seen = pipe.read()
    os.waitpid(pid, 0)
    assert seen == repr((b"2", b"1", True))
    assert store._db is None  # (closed before the fork; opened again when next needed)
    assert _rows(path) == ["child", "kept", "written"]
    assert store.get("child") == b"3"


def test_kvstore_touch_within_leaves_a_recent_mark_unwritten(tmp_path: Path) -> None:
    """``touch(key, within=s)`` marks an entry only when its mark is older than ``s`` seconds (an UPDATE
    writes the whole row again: a record entry's 17 KB on every run); a read's mark, or a touch without
    ``within``, of the same key in the same batch still writes."""
    import sqlite3
    from contextlib import closing

    path = tmp_path / "x.sqlite3"
    first = KeyValueStore(path)
    for key in ("recent", "old", "read"):
        first.put(key, b"1")
    first.close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE entries SET used = ? WHERE key = 'recent'", (time.time() - 3600,))
        db.execute("UPDATE entries SET used = ? WHERE key IN ('old', 'read')", (time.time() - 3 * 86400,))
    store = KeyValueStore(path)
    since = time.time()
    for key in ("recent", "old", "read"):
        store.touch(key, within=86400)
    assert store.get("read") == b"1"
    store.close()
    with closing(sqlite3.connect(path)) as db:
        used = dict(db.execute("SELECT key, used FROM entries").fetchall())
    assert used["recent"] < since - 3000 and used["old"] >= since and used["read"] >= since


def test_kvstore_touch_creates_no_file(tmp_path: Path) -> None:
    store = KeyValueStore(tmp_path / "cache" / "x.sqlite3")
    store.touch("a")
    store.close()
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("damage", [b"", b"not a database", b"SQLite format 3\x00" + b"\xff" * 300])
def test_kvstore_a_damaged_file_is_made_anew(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "x.sqlite3"
    first = KeyValueStore(path)
    first.put("a", b"1")
    first.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(damage)
    store = KeyValueStore(path)
    assert store.get("a") is None  # a miss, never an error
    store.put("b", b"2")
    assert (store.get("b"), store.keys()) == (b"2", ["b"])


def test_kvstore_an_unwritable_place_is_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would go", encoding="utf-8")
    store = KeyValueStore(blocker / "x.sqlite3")
    store.put("a", b"1")  # no error
    assert (store.get("a"), store.keys(), store.prune(time.time())) == (None, [], 0)


def test_kvstore_pickles_without_its_connection(tmp_path: Path) -> None:
    store = KeyValueStore(tmp_path / "x.sqlite3")
    store.put("a", b"1")
    copy = pickle.loads(pickle.dumps(store))
    assert copy.get("a") == b"1"


def _write_many(path: str, prefix: str) -> None:
    store = KeyValueStore(Path(path))
    for n in range(200):
        store.put(f"{prefix}{n:03d}", prefix.encode() * 100)


def test_kvstore_processes_write_side_by_side(tmp_path: Path) -> None:
    """Worker processes (forked after the parent used the store) and concurrent runs share one file."""
    path = tmp_path / "x.sqlite3"
    parent = KeyValueStore(path)
    parent.put("parent", b"p")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_many, args=(str(path), prefix)) for prefix in ("a", "b", "c")]
    for worker in workers:
        worker.start()
    _write_many(str(path), "d")
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    keys = parent.keys()
    assert len(keys) == 801 and parent.get("c199") == b"c" * 100


def _rows(path: Path) -> list[str]:
    """The keys written to the file, read with a connection of its own (not through a store)."""
    db = sqlite3.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT key FROM entries ORDER BY key")]
    finally:
        db.close()


def test_kvstore_writes_are_kept_then_written_together(tmp_path: Path) -> None:
    """A write waits in the process (the file holds the schema only) until a batch fills or the store is
    closed; meanwhile every store of the same file in this process reads it."""
    path = tmp_path / "x.sqlite3"
    store = KeyValueStore(path)
    store.put("a", b"1")
    assert _rows(path) == [] and KeyValueStore(path).get("a") == b"1"
    for n in range(BATCH - 1):
        store.put(f"n{n:03d}", b"x")
    assert len(_rows(path)) == BATCH  # the batch was full: written at once, without a close
    store.put("b", b"2")
    assert "b" not in _rows(path)
    store.close()
    assert "b" in _rows(path)


def test_kvstore_a_kept_entry_is_sealed_as_a_written_one(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    KeyValueStore(path, b"a" * 32).put("k", b"value")
    assert KeyValueStore(path, b"a" * 32).get("k") == b"value"
    assert KeyValueStore(path, b"b" * 32).get("k") is None  # another secret: a miss, kept or written
    KeyValueStore(path).close()
    assert KeyValueStore(path, b"b" * 32).get("k") is None and KeyValueStore(path, b"a" * 32).get("k") == b"value"


def test_kvstore_a_read_kept_by_one_store_counts_for_another_stores_prune(tmp_path: Path) -> None:
    """static-helper reads records through the run's store and prunes through another one of the file."""
    path = tmp_path / "x.sqlite3"
    first = KeyValueStore(path)
    first.put("old", b"1")
    first.put("read", b"2")
    first.close()
    time.sleep(0.05)
    since = time.time()
    assert first.get("read") == b"2"  # the mark of use is kept, not written
    assert KeyValueStore(path).prune(since) == 1
    assert _rows(path) == ["read"]


def _put_in_worker(path: str, key: str) -> str:
    KeyValueStore(Path(path)).put(key, key.encode())  # never closed: the worker's exit writes it
    return key


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_kvstore_a_pool_worker_writes_what_it_kept_before_the_pool_is_shut_down(tmp_path: Path, method: str) -> None:
    path = tmp_path / "x.sqlite3"
    KeyValueStore(path).close()  # (the file exists: a worker that finds none makes it too, but not the point)
    keys = [f"k{n}" for n in range(20)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(method)) as pool:
        assert list(pool.map(_put_in_worker, [str(path)] * len(keys), keys)) == keys
    assert _rows(path) == sorted(keys)


def test_kvstore_a_process_that_ends_without_closing_writes_what_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    code = "import sys, pathlib; from claim_evidence._core.kvstore import KeyValueStore as S; S(pathlib.Path(sys.argv[1])).put('k', b'v')"
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, timeout=60)
    assert _rows(path) == ["k"]
