"""The seal store: each reviewed claim payload, kept by its fingerprint, for where git has none.

``review diff`` shows what changed since a review, so it needs the version that was reviewed; the
fingerprint is a one-way digest. A committed file's git history holds that version
(:func:`.sealdiff.sealed_payload`); a file never committed, or committed only after later edits,
has none. So ``review record`` also keeps the payload it sealed (:func:`.fingerprint.claim_payload`:
the covered fields and every cited source record), keyed by its fingerprint.

The store is content-addressed and so needs no secret: an entry is read only when its bytes hash
to the key it is read under (the fingerprint recomputed from them), so a forged or damaged entry
is a miss, never a wrong diff. It lives in one SQLite file (:mod:`._kvstore`, in the site's cache
folder: the command line chooses it), and losing it loses only the explanation, never a finding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._record.fingerprint import canonical, claim_payload, digest

FILE_NAME = "seals.sqlite3"


class SealStore:
    """Sealed claim payloads in the SQLite file at ``path`` (created, with its folder, on the first write)."""

    def __init__(self, path: Path) -> None:
        from .._core.kvstore import KeyValueStore  # (sqlite3 only for the commands that use it)

        self.path = Path(path)
        self.store = KeyValueStore(self.path)

    def put(self, claim: dict[str, Any], sources: Any) -> str:
        """Keep the payload ``claim`` (with its bundle's ``sources``) is sealed over; its fingerprint."""
        payload = claim_payload(claim, sources)
        fingerprint = digest(payload)
        self.store.put(fingerprint, canonical(payload))
        self.store.close()
        return fingerprint

    def get(self, fingerprint: str) -> dict[str, Any] | None:
        """The payload that hashes to ``fingerprint``; None when none is kept or the entry does not
        hash to it (forged or damaged: read as missing)."""
        raw = self.store.get(fingerprint)
        self.store.close()
        if raw is None:
            return None
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None
        if not isinstance(payload, dict) or digest(payload) != fingerprint:
            return None
        return payload


__all__ = ["FILE_NAME", "SealStore"]
