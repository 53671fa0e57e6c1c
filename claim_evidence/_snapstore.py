"""Source snapshots stored by the SHA-256 of their bytes, with their extracted text beside them.

A bundle records only a digest; the store turns it into a file. Content
addressing makes a snapshot self-checking (re-hash the bytes, see whether they
are still what the reviewer read) and lets two sources with the same body
share one file. The layout, ``FOLDER/sha256/ab/<62 hex>.bin`` and ``.txt``,
keeps any one folder small.

Every write goes through :func:`atomic_write_bytes`, so a killed run leaves a
stray temp file at worst, never a half body under a digest's name — a name
that would claim bytes the file does not hold.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from ._atomic import atomic_write_bytes

SNAPSHOT_DIR_NAME = "evidence-snapshots"

Check = Literal["ok", "missing", "altered"]

_DIGEST = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


class SnapshotStore:
    """The snapshots under one folder (usually ``<site>/evidence-snapshots``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def bin_path(self, sha256: str) -> Path:
        """Where the bytes with digest ``sha256`` live.

        Raises ``ValueError`` unless ``sha256`` is 64 lowercase hex digits: the
        digest comes from a bundle, and ``../../x`` must never become a path.
        """
        return self._shard(sha256) / (sha256[2:] + ".bin")

    def text_path(self, sha256: str) -> Path:
        """Where the extracted text of the bytes with digest ``sha256`` lives (same check)."""
        return self._shard(sha256) / (sha256[2:] + ".txt")

    def put(self, data: bytes, text: str) -> str:
        """Store ``data`` and its extracted ``text``; return the digest.

        Files already holding the same content are left alone (mtime
        unchanged), so re-snapshotting an unchanged source writes nothing. The
        text is written first: a ``.bin`` on disk then always has its ``.txt``.
        """
        digest = hashlib.sha256(data).hexdigest()
        binary = self.bin_path(digest)
        binary.parent.mkdir(parents=True, exist_ok=True)
        encoded = text.replace("\r\n", "\n").replace("\r", "\n").encode("utf-8")
        text_file = self.text_path(digest)
        if _read(text_file) != encoded:
            atomic_write_bytes(text_file, encoded)
        if self.check(digest) != "ok":
            atomic_write_bytes(binary, data)
        return digest

    def check(self, sha256: str) -> Check:
        """Whether the bytes for ``sha256`` are still there and still hash to it.

        ``missing`` also covers a malformed digest and a ``.bin`` that cannot be
        read: either way there are no bytes to check quotes against.
        """
        try:
            path = self.bin_path(sha256)
        except ValueError:
            return "missing"
        hasher = hashlib.sha256()
        try:
            with open(path, "rb") as handle:
                while chunk := handle.read(_CHUNK):  # a body may be large: never all in memory
                    hasher.update(chunk)
        except OSError:
            return "missing"
        return "ok" if hasher.hexdigest() == sha256 else "altered"

    def text(self, sha256: str) -> str | None:
        """The extracted text stored for ``sha256``; ``None`` when absent, unreadable or not UTF-8."""
        try:
            data = _read(self.text_path(sha256))
        except ValueError:
            return None
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _shard(self, sha256: str) -> Path:
        if not isinstance(sha256, str) or not _DIGEST.fullmatch(sha256):
            raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
        return self.folder / "sha256" / sha256[:2]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
