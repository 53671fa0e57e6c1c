"""``_core.sshsig``: ssh-keygen's verdicts as values, with real ed25519 and rsa keys made for the test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from claim_evidence._core.sshsig import SigningError, Verdict, public_key, sign, verify

from ...signing_support import SSH_KEYGEN, Keys, keys

__all__ = ["keys"]
MESSAGE = "レビューの値".encode()


def _allowed(tmp_path: Path, text: str) -> str:
    path = tmp_path / "allowed_signers"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("kind", ["ed25519", "rsa"])
def test_sshsig_sign_then_verify(keys: Keys, tmp_path: Path, kind: str) -> None:
    key = keys.make("reviewer", kind)
    armored = sign(MESSAGE, str(key))
    assert armored.startswith("-----BEGIN SSH SIGNATURE-----\n")
    assert armored.endswith("-----END SSH SIGNATURE-----\n")
    allowed = _allowed(tmp_path, keys.line("編集部", key))
    assert verify(MESSAGE, armored, "編集部", allowed, "2026-09-05") == Verdict("good")
    assert verify(MESSAGE + b" ", armored, "編集部", allowed, "2026-09-05") == Verdict("bad")


def test_sshsig_unknown_signer_and_other_key(keys: Keys, tmp_path: Path) -> None:
    key, other = keys.make("a"), keys.make("b", "rsa")
    allowed = _allowed(tmp_path, keys.line("編集部", key))
    assert verify(MESSAGE, sign(MESSAGE, str(key)), "someone", allowed, None) == Verdict("unknown")
    assert verify(MESSAGE, sign(MESSAGE, str(other)), "編集部", allowed, None) == Verdict("unknown")


def test_sshsig_key_for_another_namespace_names_its_line(keys: Keys, tmp_path: Path) -> None:
    key = keys.make("a")
    allowed = _allowed(tmp_path, "# team\n" + keys.line("編集部", key, 'namespaces="git"'))
    assert verify(MESSAGE, sign(MESSAGE, str(key)), "編集部", allowed, None) == Verdict("unknown", 2)


def test_sshsig_signed_in_another_namespace_is_bad(keys: Keys, tmp_path: Path) -> None:
    key = keys.make("a")
    assert SSH_KEYGEN is not None
    done = subprocess.run([SSH_KEYGEN, "-Y", "sign", "-f", str(key), "-n", "git"], input=MESSAGE, capture_output=True)
    allowed = _allowed(tmp_path, keys.line("編集部", key))
    assert verify(MESSAGE, done.stdout.decode(), "編集部", allowed, None) == Verdict("bad", other_namespace=True)


def test_sshsig_validity_is_the_day_given_never_the_clock(keys: Keys, tmp_path: Path) -> None:
    key = keys.make("a", "rsa")
    allowed = _allowed(tmp_path, keys.line("編集部", key, 'namespaces="claim-evidence",valid-before="20260901"'))
    armored = sign(MESSAGE, str(key))
    assert verify(MESSAGE, armored, "編集部", allowed, "2026-08-31") == Verdict("good")
    assert verify(MESSAGE, armored, "編集部", allowed, "2026-09-05") == Verdict("expired", 1)
    later = _allowed(tmp_path, keys.line("編集部", key, 'namespaces="claim-evidence",valid-after="20270101"'))
    assert verify(MESSAGE, armored, "編集部", later, "2026-09-05") == Verdict("expired", 1)


def test_sshsig_without_ssh_keygen(keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = keys.make("a")
    armored = sign(MESSAGE, str(key))
    monkeypatch.setenv("CLAIM_EVIDENCE_SSH_KEYGEN", str(tmp_path / "no-such-ssh-keygen"))
    assert verify(MESSAGE, armored, "編集部", _allowed(tmp_path, ""), None) == Verdict("missing")
    with pytest.raises(SigningError, match=r"^ssh-keygen not found on PATH \(it comes with OpenSSH"):
        sign(MESSAGE, str(key))


def test_sshsig_sign_with_no_such_key(keys: Keys, tmp_path: Path) -> None:
    with pytest.raises(SigningError):
        sign(MESSAGE, str(tmp_path / "absent"))


def test_sshsig_public_key_from_the_pub_file(keys: Keys) -> None:
    key = keys.make("a")
    expected = keys.public(key)
    assert public_key(str(key)) == expected
    key.with_suffix(".pub").unlink()
    assert public_key(str(key)) == expected  # from ssh-keygen -y
