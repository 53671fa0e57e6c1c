"""``[reviews]`` in claim-evidence.toml: what it accepts, and each refusal's exact words (SH002, SH003)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from claim_evidence import InputError
from claim_evidence._site.config import load_config


def _config(tmp_path: Path, table: str) -> Path:
    path = tmp_path / "claim-evidence.toml"
    path.write_text("[reviews]\n" + table, encoding="utf-8")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_config(path)
    return str(caught.value)


def test_reviews_config_read(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "allowed").write_bytes(b"a ssh-ed25519 AAAA\n")
    table = 'allowed_signers = "keys/allowed"\nshow_signer = true\n[reviews.require_signature]\nreporting = "error"\nvendor_claim = true\n'
    reviews = load_config(_config(tmp_path, table)).options.policy.reviews
    assert reviews is not None
    assert reviews.allowed_signers == str((tmp_path / "keys" / "allowed").resolve())
    assert reviews.shown == "keys/allowed"
    assert reviews.digest == hashlib.sha256(b"a ssh-ed25519 AAAA\n").hexdigest()
    assert reviews.show_signer
    assert [reviews.unsigned_severity(b) for b in ("reporting", "vendor_claim", "editorial", None)] == [
        "error",
        "warning",
        "note",
        "note",
    ]


def test_reviews_config_refusals(tmp_path: Path) -> None:
    path = _config(tmp_path, 'allowed_signers = "missing"\n')
    assert _refusal(path) == (
        f"{path}: SH003 reviews.allowed_signers: cannot read missing (No such file or directory): create it with one "
        'line per reviewer, e.g. 編集部 namespaces="claim-evidence" ssh-ed25519 AAAA… (git\'s allowed_signers format)'
    )
    path = _config(tmp_path, 'require_signature = "yes"\n')
    assert _refusal(path) == (
        f'{path}: SH003 reviews.require_signature must be false, true (a warning), "error", or a table per basis '
        "(found 'yes')"
    )
    path = _config(tmp_path, "[reviews.require_signature]\nreportng = true\n")
    assert (
        _refusal(path) == f"{path}: SH002 unknown key reviews.require_signature.'reportng' (did you mean 'reporting'?)"
    )
    path = _config(tmp_path, "show_signers = true\n")
    assert _refusal(path) == f"{path}: SH002 unknown key reviews.'show_signers' (did you mean 'show_signer'?)"
    path = _config(tmp_path, "show_signer = 1\n")
    assert _refusal(path) == f"{path}: SH003 reviews.show_signer must be true or false (found 1)"
