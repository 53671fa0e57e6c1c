"""Real SSH keys for the signing tests: made by ssh-keygen in the test's folder, with HOME there too, so
that no key of the user running the tests is ever read (``~/.ssh/id_ed25519``, git's signing key)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh_keygen = pytest.mark.skipif(
    SSH_KEYGEN is None, reason="ssh-keygen (OpenSSH) is not installed: signatures cannot be made or verified"
)


class Keys:
    """Keys made on demand in ``folder`` and the site's ``allowed_signers`` lines for them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def make(self, name: str, kind: str = "ed25519") -> Path:
        key = self.folder / name
        bits = ["-b", "2048"] if kind == "rsa" else []
        assert SSH_KEYGEN is not None
        subprocess.run(
            [SSH_KEYGEN, "-q", "-t", kind, *bits, "-N", "", "-C", name, "-f", str(key)], check=True, capture_output=True
        )
        return key

    def public(self, key: Path) -> str:
        kind, blob = key.with_suffix(".pub").read_text(encoding="ascii").split()[:2]
        return f"{kind} {blob}"

    def line(self, principal: str, key: Path, options: str = 'namespaces="claim-evidence"') -> str:
        return f"{principal} {options} {self.public(key)}\n".replace("  ", " ")


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Keys:
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed: signatures cannot be made or verified")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    folder = tmp_path / "keys"
    folder.mkdir()
    return Keys(folder)


def site(folder: Path, allowed: str, reviews: str = "") -> Path:
    """A site folder with ``allowed_signers`` holding ``allowed`` and a config naming it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "allowed_signers").write_text(allowed, encoding="utf-8")
    config = folder / "claim-evidence.toml"
    config.write_text(f'[reviews]\nallowed_signers = "allowed_signers"\n{reviews}', encoding="utf-8")
    return config


def write_json(path: Path, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    return text
