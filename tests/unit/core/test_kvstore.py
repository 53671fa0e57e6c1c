"""The caches' SQLite store (``claim_evidence/_core/kvstore.py``): entries, pruning, damage, processes."""

from __future__ import annotations

import multiprocessing
import pickle
import time
from pathlib import Path

import pytest

from claim_evidence._core.kvstore import IGNORE_NOTE, KeyValueStore


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
