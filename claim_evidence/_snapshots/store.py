"""Source snapshots stored by the SHA-256 of their bytes, with their extracted text beside them.

A bundle records only a digest; the store turns it into a file. Content
addressing makes a snapshot self-checking (re-hash the bytes, see whether they
are still what the reviewer read) and lets two sources with the same body
share one file. The layout, ``FOLDER/sha256/ab/<62 hex>.bin`` and ``.txt``,
keeps any one folder small.

The ``.txt`` is a convenience copy, not evidence: only the ``.bin`` is bound to
the bundle (by its digest, under the review's fingerprint), and an edit to the
text alone once made a changed quote pass. Checks therefore anchor quotes in
:meth:`SnapshotStore.derived_text`, the text extracted again from the verified
bytes (once per process and snapshot), and report a ``.txt`` that differs.

Every write goes through :func:`atomic_write_bytes`, so a killed run leaves a
stray temp file at worst, never a half body under a digest's name — a name
that would claim bytes the file does not hold.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from .._core.atomic import atomic_write_bytes
from .._core.normalize import lf_newlines

SNAPSHOT_DIR_NAME = "evidence-snapshots"

Check = Literal["ok", "missing", "altered"]

_DIGEST = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20
_DERIVED_KEEP = 64  # snapshots whose derived text a process keeps (a site cites a few sources many times)
_DERIVED: dict[tuple[str, str | None], str] = {}


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
        encoded = lf_newlines(text).encode("utf-8")
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

    def derived_text(self, sha256: str, content_type: str | None) -> str | None:
        """The text of the stored bytes, extracted again as :meth:`put`'s caller did (``extract_text``),
        when the ``.bin`` is there and hashes to ``sha256``; else None. This, not the ``.txt``, is what
        the bundle's digest vouches for. Extraction is memoised per process by digest and type (the
        bytes are content-addressed: the same digest is the same text), since a PDF takes a while."""
        memo = _DERIVED.get((sha256, content_type))
        if memo is not None:
            return memo
        try:
            data = _read(self.bin_path(sha256))
        except ValueError:
            return None
        if data is None or hashlib.sha256(data).hexdigest() != sha256:
            return None
        from .._sources.extract import extract_text  # (the parsers only for sites with snapshots)

        try:
            text = lf_newlines(extract_text(data, content_type).text)
        except Exception:  # noqa: BLE001 - a parser's failure on hostile bytes: no text to check against, never a traceback
            return None
        if len(_DERIVED) >= _DERIVED_KEEP:
            _DERIVED.pop(next(iter(_DERIVED)))
        _DERIVED[(sha256, content_type)] = text
        return text

    def _shard(self, sha256: str) -> Path:
        if not isinstance(sha256, str) or not _DIGEST.fullmatch(sha256):
            raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
        return self.folder / "sha256" / sha256[:2]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
