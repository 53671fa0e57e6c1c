"""The record cache: what a bundle's JSON text alone decides, kept across runs.

A site generator rewrites every page on every build (a date in the footer, a
new asset hash), so the page cache (``static_helper._cache``), keyed by the
page's bytes, misses on every page of every build. The records inside rarely
change. This cache keeps, per bundle text, its validation findings and every
claim's rendered block, so a rebuilt page whose records did not change pays
only for locating its markup and comparing its slots.

An entry is keyed by SHA-256 over the run's ``salt`` (the toolkit's version and
the bytes of its code, templates and schema), the label language, the render
settings (search setting, the freshness policy with each claim's marker state:
not the build date, so a rebuild on another day with every review in the same
state hits) and the exact JSON text. What else a page's findings depend on (the site's policy, snapshot
checks, review age, the page's binding) is computed afresh on every page. An
entry that does not parse, has another format or names another key is a miss,
and so is one whose seal does not verify: its blocks are written into pages and
its findings decide whether a page passes, so an entry is trusted only when
sealed with a secret that does not live in the cache folder (``secret``: see
:func:`._kvstore.cache_secret`).
Entries live in one SQLite file (:mod:`._kvstore`), shared by the worker
processes and concurrent runs. The page check uses one only when its caller hands it one
(``check_text(..., records=cache)``, kept on the :class:`Page`): the runner does, for the run's every page
check and rewrite, when ``static-helper`` opened one (unless ``--no-cache``). No module global holds it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .._core.diagnostics import Diagnostic

FORMAT = 1
KEEP_MARK_SECONDS = 86400.0  # (:meth:`RecordCache.keep`: the prune spares a week's entries)
_FIELDS = ("code", "message", "path", "severity", "subject", "file", "line", "column", "hint")
_SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Stored:
    """A bundle text's findings (each with its offset in the text) and, once rendered, every claim's block."""

    findings: tuple[tuple[int, Diagnostic], ...]
    blocks: Mapping[str, str] | None = None


class RecordCache:
    """Entries in the SQLite file at ``path`` (see :mod:`._kvstore`); ``salt`` names the toolkit that wrote them;
    ``secret`` seals them (default: :func:`._kvstore.cache_secret` for the file's folder)."""

    def __init__(self, path: Path, salt: str, secret: bytes | None = None) -> None:
        from .._core.kvstore import (  # (sqlite3 only for runs that cache: the page check imports this module)
            KeyValueStore,
            cache_secret,
        )

        self.path = Path(path)
        self.salt = salt
        self.store = KeyValueStore(self.path, secret if secret is not None else cache_secret(self.path.parent))

    def key(self, content: str, lang: str, settings: tuple[Any, ...]) -> str:
        digest = hashlib.sha256(f"{FORMAT}\0{self.salt}\0{lang}\0{json.dumps(settings)}\0".encode())
        digest.update(content.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def get(self, key: str) -> Stored | None:
        raw = self.store.get(key)
        if raw is None:
            return None
        try:
            return _decode(json.loads(raw), key)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    def keep(self, key: str) -> None:
        """Mark the entry under ``key`` used without reading it (:meth:`.._core.kvstore.KeyValueStore.touch`):
        a page the page cache answers reads no records, yet its next check needs them, so its entry keeps
        them through the prune of entries unused for days (``static_helper._cache.RECORDS_KEEP_DAYS``): a mark
        a day old is left as it is (a row not written again on every run)."""
        self.store.touch(key, within=KEEP_MARK_SECONDS)

    def put(self, key: str, stored: Stored) -> None:
        entry = {
            "format": FORMAT,
            "key": key,
            "findings": [[offset, asdict(d)] for offset, d in stored.findings],
            "blocks": None if stored.blocks is None else dict(stored.blocks),
        }
        self.store.put(key, json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass"))


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
