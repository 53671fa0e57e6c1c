"""The seal store: sealed payloads by fingerprint, read only when they hash to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from claim_evidence._check.sealstore import SealStore
from claim_evidence._record.fingerprint import canonical, claim_fingerprint, claim_payload

from ...conftest import SEED_FINGERPRINT


def test_sealstore_gives_back_the_payload_of_a_fingerprint(tmp_path: Path, bundle: dict[str, Any]) -> None:
    store = SealStore(tmp_path / "cache" / "seals.sqlite3")
    claim = bundle["claims"][0]
    assert store.put(claim, bundle["sources"]) == SEED_FINGERPRINT
    assert SealStore(tmp_path / "cache" / "seals.sqlite3").get(SEED_FINGERPRINT) == claim_payload(
        claim, bundle["sources"]
    )
    assert store.get("0" * 64) is None


def test_sealstore_a_forged_entry_is_a_miss(tmp_path: Path, bundle: dict[str, Any]) -> None:
    path = tmp_path / "seals.sqlite3"
    store = SealStore(path)
    store.put(bundle["claims"][0], bundle["sources"])
    forged = claim_payload(bundle["claims"][0], bundle["sources"])
    forged["statement"] = "書き換えられた文。"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET value = ? WHERE key = ?", (canonical(forged), SEED_FINGERPRINT))
    assert store.get(SEED_FINGERPRINT) is None
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET value = ? WHERE key = ?", (b"\xff not json", SEED_FINGERPRINT))
    assert store.get(SEED_FINGERPRINT) is None
    assert claim_fingerprint(bundle["claims"][0], bundle["sources"]) == SEED_FINGERPRINT


def test_sealstore_without_a_file_nothing_is_kept(tmp_path: Path) -> None:
    assert SealStore(tmp_path / "none" / "seals.sqlite3").get(SEED_FINGERPRINT) is None
    assert not (tmp_path / "none").exists()
