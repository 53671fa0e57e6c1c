"""The record cache: what a bundle's JSON text alone decides, kept across runs.

A site generator rewrites every page on every build (a date in the footer, a
new asset hash), so the page cache (``static_helper._cache``), keyed by the
page's bytes, misses on every page of every build. The records inside rarely
change. This cache keeps, per bundle text, its validation findings and every
claim's rendered block, so a rebuilt page whose records did not change pays
only for locating its markup and comparing its slots.

An entry is keyed by SHA-256 over the run's ``salt`` (the toolkit's version and
the bytes of its code, templates and schema), the label language, the render
settings (search setting, freshness markers with the build date) and the exact
JSON text. What else a page's findings depend on (the site's policy, snapshot
checks, review age, the page's binding) is computed afresh on every page. An
entry that does not parse, has another format or names another key is a miss;
entries are written with a temp file and a rename, so concurrent runs at worst
write the same entry twice. The page check uses one only when a run turned it on
(:func:`use`): ``static-helper`` does, unless ``--no-cache``.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ._atomic import replace_quickly
from ._diagnostics import Diagnostic

FORMAT = 1
_FIELDS = ("code", "message", "path", "severity", "subject", "file", "line", "column", "hint")
_SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Stored:
    """A bundle text's findings (each with its offset in the text) and, once rendered, every claim's block."""

    findings: tuple[tuple[int, Diagnostic], ...]
    blocks: Mapping[str, str] | None = None


@dataclass(frozen=True)
class RecordCache:
    """Entries under ``folder``; ``salt`` names the toolkit that wrote them."""

    folder: Path
    salt: str

    def key(self, content: str, lang: str, settings: tuple[Any, ...]) -> str:
        digest = hashlib.sha256(f"{FORMAT}\0{self.salt}\0{lang}\0{json.dumps(settings)}\0".encode())
        digest.update(content.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Stored | None:
        path = self._path(key)
        try:
            found = _decode(json.loads(path.read_bytes()), key)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        if found is not None:
            touch(path)
        return found

    def put(self, key: str, stored: Stored) -> None:
        entry = {
            "format": FORMAT,
            "key": key,
            "findings": [[offset, asdict(d)] for offset, d in stored.findings],
            "blocks": None if stored.blocks is None else dict(stored.blocks),
        }
        try:
            path = self._path(key)
            if not path.parent.is_dir():
                self._create(path.parent)
            replace_quickly(path, json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        except OSError:
            pass  # an unwritable cache only costs time


    def _create(self, subfolder: Path) -> None:
        """Make the folder; a new one ignores itself in git, so a run at a repository root leaves nothing to commit."""
        if not self.folder.is_dir():
            self.folder.mkdir(parents=True, exist_ok=True)
            replace_quickly(self.folder / ".gitignore", b"# Created by static-helper: its cache of checked records.\n*\n")
        subfolder.mkdir(parents=True, exist_ok=True)


def _decode(raw: Any, key: str) -> Stored | None:
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("key") != key:
        return None
    findings = []
    if not isinstance(raw["findings"], list):
        return None
    for offset, fields in raw["findings"]:
        values = {name: fields[name] for name in _FIELDS}
        if type(offset) is not int or values["severity"] not in _SEVERITIES:
            return None
        if not all(isinstance(values[n], str) for n in _FIELDS[:5]) or not all(
            values[n] is None or isinstance(values[n], str if n in ("file", "hint") else int) for n in _FIELDS[5:]
        ):
            return None
        findings.append((offset, Diagnostic(**values)))
    blocks = raw["blocks"]
    if blocks is not None and not (isinstance(blocks, dict) and all(isinstance(v, str) for v in blocks.values())):
        return None
    return Stored(tuple(findings), blocks)


def touch(path: Path) -> None:
    """Mark an entry as used by this run (its mtime), so :func:`prune` keeps it."""
    try:
        os.utime(path)
    except OSError:
        pass


def prune(folder: Path, before: float) -> int:
    """Remove the entries (``xx/KEY.json``) under ``folder`` that no run has written or used since
    ``before`` (a timestamp): after a run over a whole site, those are for page bytes and records
    that exist no more. A generator rebuilds every page on every build, so without this a cache would
    grow by a site's worth of entries per build. Returns how many were removed; never raises."""
    removed = 0
    try:
        subfolders = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False) and len(e.name) == 2]
    except OSError:
        return 0
    for subfolder in subfolders:
        try:
            entries = list(os.scandir(subfolder.path))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < before:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    return removed


_ACTIVE: list[RecordCache | None] = [None]


def use(cache: RecordCache | None) -> None:
    """Turn the record cache on (or off, with None) for the page checks of this process."""
    _ACTIVE[0] = cache


def active() -> RecordCache | None:
    return _ACTIVE[0]
