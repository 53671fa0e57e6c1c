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

The file is not trusted: CI restores cache folders from places others may write (a pull request's
cache), and a forged entry could make a failing page pass or put markup into a page. A store given a
``secret`` (:func:`cache_secret`, which never lives in a cache folder) seals each entry with an
HMAC-SHA256 over its key and bytes; an entry whose seal does not verify is a miss, like a missing one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    import sqlite3
except ImportError:  # pragma: no cover - a Python built without it: no caching, same results
    sqlite3 = None  # type: ignore[assignment]

BUSY_MS = 10_000
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
        # (the secret travels to the worker processes: an ephemeral one must be the same in all of them)
        return {"path": self.path, "secret": self.secret, "_db": None, "_pid": None}

    def get(self, key: str) -> bytes | None:
        """The entry's bytes (and it is marked used now, for :meth:`prune`), or None; with a secret,
        None too for an entry whose seal does not verify (forged, or sealed under another secret)."""
        db = self._connection(create=False)
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            value = bytes(row[0])
            if self.secret is not None:
                if len(value) < _MAC_BYTES or not hmac.compare_digest(
                    value[:_MAC_BYTES], _seal(self.secret, key, value[_MAC_BYTES:])
                ):
                    return None
                value = value[_MAC_BYTES:]
            db.execute("UPDATE entries SET used = ? WHERE key = ?", (time.time(), key))
            return value
        except sqlite3.Error:
            self._reset_if_damaged()
            return None

    def put(self, key: str, value: bytes) -> None:
        db = self._connection(create=True)
        if db is None:
            return
        if self.secret is not None:
            value = _seal(self.secret, key, value) + value
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
