"""What ``--site DIR`` serves: the files a web server would publish from the site, and nothing else.

A site folder holds more than its pages: ``claim-evidence.toml``, the snapshot folder (other
people's documents, kept to check quotes against), local copies of sources imported as
snapshots (``examples/site/source-copies/``), static-helper's cache, a ``.git`` or ``.env``,
Markdown notes. The rule, checked on every request (a file refused is a 404, as if absent):

1. no part of the path may start with ``.`` (dot-files and dot-folders: ``.git``, ``.env``,
   ``.claim-evidence-cache``);
2. the name must end in a web suffix (:data:`PUBLISHED_SUFFIXES`: pages, styles, scripts,
   images, fonts, feeds, PDFs) — so never ``.toml``, ``.md``, ``.py``, ``.bin``;
3. nothing inside the site's snapshot folder (``snapshots`` of the nearest ``claim-evidence.toml``,
   else ``evidence-snapshots/``);
4. no file whose bytes are a stored snapshot (its SHA-256 names a ``.bin`` in that folder): a
   source copy imported with ``sources snapshot --file`` is such a file, wherever it lies.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from starlette.staticfiles import StaticFiles

from .._core.diagnostics import ClaimEvidenceError
from .._snapshots.store import SNAPSHOT_DIR_NAME, SnapshotStore

PUBLISHED_SUFFIXES = frozenset(
    ".html .htm .xhtml .css .js .mjs .map .json .xml .rss .atom .txt .webmanifest .pdf "
    ".png .jpg .jpeg .gif .webp .avif .svg .ico .bmp "
    ".woff .woff2 .ttf .otf .mp3 .mp4 .webm .ogg .wav .vtt".split()
)


def snapshot_folder(site: Path) -> Path:
    """The site's snapshot folder: the nearest config's ``snapshots``, else ``evidence-snapshots/`` in the site."""
    from .._site.config import find_config, load_config

    config = find_config(site.resolve())
    if config is not None:
        try:
            folder = load_config(config).options.snapshots
        except ClaimEvidenceError:
            folder = None  # a config the checks refuse: its folder is not known, the default still is not served
        if folder:
            return Path(folder)
    return site / SNAPSHOT_DIR_NAME


class PublishedFiles(StaticFiles):
    """Starlette's static files (its path checks: no ``..``, no symlink out of the folder), with the
    publishing rule above applied to every file it would serve (an ``index.html`` and ``404.html`` too)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=str(directory), html=True)
        self._root = os.path.realpath(directory)
        folder = snapshot_folder(directory)
        self._snapshots = os.path.realpath(folder)
        self._store = SnapshotStore(folder)

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        full_path, found = super().lookup_path(path)
        if found is None or not os.path.isfile(full_path):
            return full_path, found  # a folder: only its index.html may be served, and is checked in turn
        if not self.published(full_path, found):
            return "", None
        return full_path, found

    def published(self, full_path: str, found: os.stat_result) -> bool:
        relative = os.path.relpath(full_path, self._root)
        parts = Path(relative).parts
        if relative.startswith("..") or any(part.startswith(".") for part in parts):
            return False
        if Path(full_path).suffix.lower() not in PUBLISHED_SUFFIXES:
            return False
        if os.path.commonpath([full_path, self._snapshots]) == self._snapshots:
            return False
        digest = _sha256(full_path, found.st_size, found.st_mtime_ns)
        return digest is not None and not self._store.bin_path(digest).is_file()


@functools.lru_cache(maxsize=1024)
def _sha256(path: str, size: int, mtime_ns: int) -> str | None:
    """The digest of a file, remembered while its size and time stay the same; None when unreadable."""
    hasher = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                hasher.update(chunk)
    except OSError:
        return None
    return hasher.hexdigest()
