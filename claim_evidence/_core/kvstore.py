"""The caches' entries: keys to bytes in one SQLite file (the standard library's ``sqlite3``).

A file per entry cost about a millisecond to create on the disks measured here (a new file, a
rename, often a new folder): on a cold run over a 1,000-page site, the two caches' 2,000 files took
longer than checking the pages. One SQLite file in WAL mode takes an entry in a few hundredths of
a millisecond, lets the worker processes and concurrent runs write side by side (each write waits
for the lock up to ``BUSY_MS``), and gives pruning one statement.

It is a cache: writes are not synced (``synchronous=OFF``: a crash may lose the latest entries, a
miss), and any SQLite error is a miss or a skipped write, never a failed run. Writes, and the reads'
marks of use, are kept in the process and written together, one transaction per :data:`BATCH` entries
(:meth:`KeyValueStore.flush`): a transaction per entry cost 15 µs an entry on an idle machine here and
0.1 to 0.25 ms under load, against 4 µs batched, on a rebuild that writes one per page and marks one or
two read. The process's own reads see what it has not written yet; other processes see it once
written: by :meth:`~KeyValueStore.close`, :meth:`~KeyValueStore.prune`, :meth:`~KeyValueStore.keys`, a
pickling (a worker's copy), or when the process ends (:func:`_write_kept`: a worker process of a pool too,
before the pool's shutdown returns). A file that is not a database (or a damaged one) is deleted and
made anew. Each process opens its own connection (a
store is pickled without it), since a connection must not cross a fork; and before a process forks it
writes what it kept and closes its connections (:func:`_before_fork`): SQLite's locks are the process's.

The file is not trusted: CI restores cache folders from places others may write (a pull request's
cache), and a forged entry could make a failing page pass or put markup into a page. A store given a
``secret`` (:func:`cache_secret`, which never lives in a cache folder) seals each entry with an
HMAC-SHA256 over its key and bytes; an entry whose seal does not verify is a miss, like a missing one.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import os
import secrets
import stat
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

try:
    import sqlite3
except ImportError:  # pragma: no cover - a Python built without it: no caching, same results
    sqlite3 = None  # type: ignore[assignment]

BUSY_MS = 10_000
# Kept entries are written once this many wait, or this many bytes of values (a record entry holds ten
# rendered blocks, some 10 KB): a few hundred entries a transaction take most of its cost off each.
BATCH = 256
BATCH_BYTES = 4 << 20
KEY_ENV = "CLAIM_EVIDENCE_CACHE_KEY"
KEY_FILE_NAME = "cache.key"
_MAC_BYTES = 32
_SCHEMA = "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB NOT NULL, used REAL NOT NULL)"


class KeyValueStore:
    """Entries in the SQLite file at ``path`` (created, with its folder, on the first write). A folder
    this creates gets a ``.gitignore`` of ``*`` (as pytest's cache does), so a run at a repository
    root leaves nothing to commit by mistake."""

    def __init__(self, path: Path, secret: bytes | None = None) -> None:
        self.path = Path(path)
        self.secret = secret
        self._db: Any = None
        self._pid: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        # (the secret travels to the worker processes: an ephemeral one must be the same in all of them;
        # what this process kept is written first, so that the copy reads it)
        self.flush()
        return {"path": self.path, "secret": self.secret, "_db": None, "_pid": None}

    def get(self, key: str) -> bytes | None:
        """The entry's bytes (and it is marked used now, for :meth:`prune`), or None; with a secret,
        None too for an entry whose seal does not verify (forged, or sealed under another secret)."""
        kept = _kept(self.path)
        if kept is not None and key in kept.values:
            stored, _ = kept.values[key]
            kept.values[key] = (stored, time.time())  # (marked used, as a written entry is)
            return self._unsealed(key, stored)
        db = self._connection(create=False)
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            self._reset_if_damaged()
            return None
        if row is None:
            return None
        value = self._unsealed(key, bytes(row[0]))
        if value is not None:
            kept = _keeping(self)
            now = time.time()
            kept.used[key] = (now, now)
            self._full(kept)
        return value

    def touch(self, key: str, within: float = 0.0) -> None:
        """Mark the entry under ``key`` used now, as :meth:`get` does, without reading it (nothing happens for a
        key with no entry): an entry a run still needs but does not read is kept by its :meth:`prune`.

        ``within``: leave a mark made less than that many seconds ago as it is. SQLite's UPDATE writes the
        whole row again, and a record entry's is some 17 KB: marking 900 of them cost a warm run over a
        1,000-page site 20 to 40 ms (6 %), where a prune that spares a week's entries needs a mark a day."""
        kept = _kept(self.path)
        now = time.time()
        if kept is not None and key in kept.values:
            stored, _ = kept.values[key]
            kept.values[key] = (stored, now)
            return
        if self._connection(create=False) is None:
            return
        kept = _keeping(self)
        previous = kept.used.get(key)
        older_than = now - within if previous is None else max(previous[1], now - within)
        kept.used[key] = (now, older_than)
        self._full(kept)

    def put(self, key: str, value: bytes) -> None:
        """Keep ``value`` under ``key``, written with the next batch (a place where no database can be
        made keeps nothing: it is no cache)."""
        if self._connection(create=True) is None:
            return
        kept = _keeping(self)
        stored = _seal(self.secret, key, value) + value if self.secret is not None else value
        previous = kept.values.get(key)
        kept.size += len(stored) - (len(previous[0]) if previous else 0)
        kept.values[key] = (stored, time.time())
        kept.used.pop(key, None)
        self._full(kept)

    def flush(self) -> None:
        """Write what this process kept for the file (by any store of it), in one transaction; on an
        SQLite error it is dropped: misses later, never a failed run."""
        kept = _kept(self.path)
        _KEPT.pop(self.path, None)
        if kept is None or not (kept.values or kept.used):
            return
        values = [(key, stored, used) for key, (stored, used) in kept.values.items()]
        used = [(at, key, older_than) for key, (at, older_than) in kept.used.items()]
        db = self._connection(create=bool(values))
        if db is None:
            return
        try:
            db.execute("BEGIN IMMEDIATE")  # (the write lock at once: no deadlock upgrading a read lock)
            try:
                db.executemany("INSERT OR REPLACE INTO entries (key, value, used) VALUES (?, ?, ?)", values)
                db.executemany("UPDATE entries SET used = ? WHERE key = ? AND used < ?", used)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error:
            self._reset_if_damaged()

    def prune(self, before: float) -> int:
        """Remove the entries neither written nor read since ``before`` (a timestamp); how many went."""
        self.flush()  # (the marks of use this process kept count)
        db = self._connection(create=False)
        if db is None:
            return 0
        try:
            return int(db.execute("DELETE FROM entries WHERE used < ?", (before,)).rowcount)
        except sqlite3.Error:
            return 0

    def close(self) -> None:
        self.flush()
        self._disconnect()

    def _disconnect(self) -> None:
        """Close this process's connection to the file (the next use opens one again)."""
        if self._db is not None and self._pid == os.getpid():
            self._db.close()
        self._db = None
        _OPEN.discard(self)

    def keys(self) -> list[str]:
        """Every key, sorted (for tests and tools)."""
        self.flush()
        db = self._connection(create=False)
        if db is None:
            return []
        try:
            return [row[0] for row in db.execute("SELECT key FROM entries ORDER BY key")]
        except sqlite3.Error:
            return []

    def _unsealed(self, key: str, stored: bytes) -> bytes | None:
        if self.secret is None:
            return stored
        if len(stored) < _MAC_BYTES or not hmac.compare_digest(
            stored[:_MAC_BYTES], _seal(self.secret, key, stored[_MAC_BYTES:])
        ):
            return None
        return stored[_MAC_BYTES:]

    def _full(self, kept: _Kept) -> None:
        if len(kept.values) + len(kept.used) >= BATCH or kept.size >= BATCH_BYTES:
            self.flush()

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
            _OPEN.add(self)
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


class _Kept:
    """What a process kept for one file and has not written yet: entries (as stored: sealed, and when
    written or last read) and marks of use of written entries; the store that writes them at exit."""

    __slots__ = ("pid", "size", "store", "used", "values")

    def __init__(self, store: KeyValueStore) -> None:
        self.pid = os.getpid()
        self.store = store
        self.values: dict[str, tuple[bytes, float]] = {}
        # Marks of use: (when, only over a mark older than this: :meth:`KeyValueStore.touch`'s ``within``).
        self.used: dict[str, tuple[float, float]] = {}
        self.size = 0


# Per file, what this process kept. A file's stores share it, so that a store reads what another kept (a
# run's record cache and the one its prune makes); a forked worker inherits its parent's, which is the
# parent's to write (:func:`_kept` tells them apart by process).
_KEPT: dict[Path, _Kept] = {}
_HOOKED: list[int] = []


def _kept(path: Path) -> _Kept | None:
    kept = _KEPT.get(path)
    if kept is not None and kept.pid != os.getpid():
        del _KEPT[path]
        return None
    return kept


def _keeping(store: KeyValueStore) -> _Kept:
    """The file's kept entries, made on the first (and the process's exit hooked once)."""
    kept = _kept(store.path)
    if kept is None:
        kept = _KEPT[store.path] = _Kept(store)
        _hook_exit()
    return kept


def _hook_exit() -> None:
    pid = os.getpid()
    if _HOOKED == [pid]:
        return
    _HOOKED[:] = [pid]
    atexit.register(_write_kept)
    # A pool's worker process ends with os._exit, after multiprocessing's own exit function has run its
    # finalizers (not atexit's): a worker writes what it kept there, before its parent's pool has joined it.
    # (Looked up, not imported: a process that has not imported multiprocessing is no worker of a pool.)
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:
        mp_util.Finalize(None, _write_kept, exitpriority=100)


def _write_kept() -> None:
    """Write what this process kept for every file (when it ends, or before it forks); a second call finds
    nothing left."""
    for path in list(_KEPT):
        kept = _kept(path)
        if kept is not None:
            kept.store.flush()


# The stores of this process with a connection open, closed before it forks (:func:`_before_fork`).
_OPEN: weakref.WeakSet[KeyValueStore] = weakref.WeakSet()


def _before_fork() -> None:
    """Before this process forks (a pool's workers with the fork start method): write what it kept, so that
    its children read it, and close its connections. SQLite's locks are held per process, and a child
    inherits its parent's open connections with the process-wide lock state SQLite keeps for their files:
    a child's own connection to a file its parent held open may then write without the locks it believes
    it holds, and its writes can be lost (a test that forked a --jobs 2 run while it held the cache file
    open, with connections of its own, lost every mark of use the workers wrote, and the run's prune
    emptied the cache). This closes the connections of this module's stores; the parent opens one again
    when it next needs it."""
    _write_kept()
    for store in list(_OPEN):
        store._disconnect()


if hasattr(os, "register_at_fork"):  # (POSIX)
    os.register_at_fork(before=_before_fork)


def _seal(secret: bytes, key: str, value: bytes) -> bytes:
    """The entry's MAC: over its key too, so that a genuine entry copied under another key does not verify."""
    mac = hmac.new(secret, b"claim-evidence cache entry\0", hashlib.sha256)
    mac.update(key.encode("utf-8", "surrogatepass") + b"\0")
    mac.update(value)
    return mac.digest()


_EPHEMERAL: list[bytes] = []


def cache_secret(cache_folder: Path) -> bytes:
    """The secret that seals cache entries, from a place an attacker who writes cache folders cannot:

    1. ``$CLAIM_EVIDENCE_CACHE_KEY`` (for CI: a repository secret, so that entries survive between runs
       on fresh runners; give it only to workflows that run trusted code);
    2. else ``$XDG_CONFIG_HOME/claim-evidence/cache.key`` (else ``~/.config/...``): 32 random bytes,
       created mode 0600 on first use, used only when it is a regular file of this user that nobody else
       may write and that is not inside ``cache_folder``;
    3. else a random secret for this process alone: the cache then helps within a run, never across runs
       (safe, not useful; on a fresh CI runner without the variable this is the case after step 2 too,
       since the key file is new).
    """
    given = os.environ.get(KEY_ENV, "")
    if given:
        return hashlib.sha256(b"claim-evidence cache key\0" + given.encode("utf-8", "surrogatepass")).digest()
    found = _key_file(cache_folder)
    if found is not None:
        return found
    if not _EPHEMERAL:
        _EPHEMERAL.append(secrets.token_bytes(32))
    return _EPHEMERAL[0]


def key_file_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "")
    home = Path(base) if os.path.isabs(base) else Path.home() / ".config"
    return home / "claim-evidence" / KEY_FILE_NAME


def _key_file(cache_folder: Path) -> bytes | None:
    """The key file's secret (made on first use), or None when it cannot be trusted or made."""
    try:
        path = key_file_path()
        real, folder = os.path.realpath(path), os.path.realpath(cache_folder)
        if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
            return None  # a key inside the cache folder would travel with what it guards
        if not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".cache.key.")  # (mkstemp makes it 0600)
            try:
                os.write(fd, secrets.token_bytes(32))
                os.fsync(fd)
                os.close(fd)
                try:
                    os.link(temp, path)  # only if none exists: a concurrent run's key wins, whole
                except FileExistsError:
                    pass
            finally:
                os.unlink(temp)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            info = os.fstat(fd)
            data = os.read(fd, 4096)
        finally:
            os.close(fd)
    except (OSError, RuntimeError):  # (RuntimeError: no home folder to be found)
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o022 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        return None
    if len(data) < 32:
        return None
    return hashlib.sha256(b"claim-evidence cache key file\0" + data).digest()


IGNORE_NOTE = b"# Created by static-helper: its caches of passing pages and checked records.\n*\n"


def _folder(folder: Path) -> None:
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_bytes(IGNORE_NOTE)
