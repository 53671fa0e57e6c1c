"""The caches' entries: keys to bytes in one SQLite file (the standard library's ``sqlite3``).

A file per entry cost about a millisecond to create on the disks measured here (a new file, a
rename, often a new folder): on a cold run over a 1,000-page site, the two caches' 2,000 files took
longer than checking the pages. One SQLite file in WAL mode takes an entry in a few hundredths of
a millisecond, lets the worker processes and concurrent runs write side by side (each write waits
for the lock up to ``BUSY_MS``), and gives pruning one statement.

It is a cache: writes are not synced (``synchronous=OFF``: a crash may lose the latest entries, a
miss), and any SQLite error is a miss or a skipped write, never a failed run. A file that is not a
database (or a damaged one) is deleted and made anew. Each process opens its own connection (a
store is pickled without it), since a connection must not cross a fork.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

try:
    import sqlite3
except ImportError:  # pragma: no cover - a Python built without it: no caching, same results
    sqlite3 = None  # type: ignore[assignment]

BUSY_MS = 10_000
_SCHEMA = "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB NOT NULL, used REAL NOT NULL)"


class KeyValueStore:
    """Entries in the SQLite file at ``path`` (created, with its folder, on the first write). A folder
    this creates gets a ``.gitignore`` of ``*`` (as pytest's cache does), so a run at a repository
    root leaves nothing to commit by mistake."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db: Any = None
        self._pid: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "_db": None, "_pid": None}

    def get(self, key: str) -> bytes | None:
        """The entry's bytes (and it is marked used now, for :meth:`prune`), or None."""
        db = self._connection(create=False)
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE entries SET used = ? WHERE key = ?", (time.time(), key))
            return bytes(row[0])
        except sqlite3.Error:
            self._reset_if_damaged()
            return None

    def put(self, key: str, value: bytes) -> None:
        db = self._connection(create=True)
        if db is None:
            return
        try:
            db.execute("INSERT OR REPLACE INTO entries (key, value, used) VALUES (?, ?, ?)", (key, value, time.time()))
        except sqlite3.Error:
            self._reset_if_damaged()

    def prune(self, before: float) -> int:
        """Remove the entries neither written nor read since ``before`` (a timestamp); how many went."""
        db = self._connection(create=False)
        if db is None:
            return 0
        try:
            return int(db.execute("DELETE FROM entries WHERE used < ?", (before,)).rowcount)
        except sqlite3.Error:
            return 0

    def close(self) -> None:
        if self._db is not None and self._pid == os.getpid():
            self._db.close()
        self._db = None

    def keys(self) -> list[str]:
        """Every key, sorted (for tests and tools)."""
        db = self._connection(create=False)
        if db is None:
            return []
        try:
            return [row[0] for row in db.execute("SELECT key FROM entries ORDER BY key")]
        except sqlite3.Error:
            return []

    def _connection(self, create: bool) -> Any:
        if sqlite3 is None:
            return None
        if self._db is not None and self._pid == os.getpid():
            return self._db
        if not create and not self.path.is_file():
            return None
        for attempt in range(2):
            try:
                _folder(self.path.parent)
                db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=OFF")
                db.execute(_SCHEMA)
            except sqlite3.DatabaseError:
                if attempt == 0 and self._remove():  # not a database (or damaged): start it anew, once
                    continue
                return None
            except (sqlite3.Error, OSError):
                return None
            self._db, self._pid = db, os.getpid()
            return db
        return None

    def _reset_if_damaged(self) -> None:  # (a method: the connection is this store's)
        """After an error: a damaged file is made anew on the next use; a busy one is left alone."""
        try:
            if self._db is not None:
                self._db.execute("PRAGMA quick_check").fetchone()
            return
        except sqlite3.DatabaseError:
            pass
        except sqlite3.Error:
            return
        self._db = None
        self._remove()

    def _remove(self) -> bool:
        removed = False
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{self.path}{suffix}")
                removed = True
            except FileNotFoundError:
                pass
            except OSError:
                return False
        return removed


IGNORE_NOTE = b"# Created by static-helper: its caches of passing pages and checked records.\n*\n"


def _folder(folder: Path) -> None:
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_bytes(IGNORE_NOTE)
