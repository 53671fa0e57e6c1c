"""Signing a review: ``review record --sign`` and ``review sign`` (the only code that writes a signature).

The key is the one git signs with (``user.signingkey`` under ``gpg.format ssh``), else
``~/.ssh/id_ed25519``; the signer is the principal the site's ``allowed_signers`` lists for that key
(or the one given). Once signed, the signature is verified as every check will verify it, so that a
key the site does not trust is refused here, with the file unchanged, rather than at the next build.
"""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path
from typing import Any

from .._core.diagnostics import Diagnostic, json_path
from .._core.errors import EvidenceValidationError, ReviewError
from .._core.sshsig import NAMESPACE, SigningError, public_key, sign
from .._record.signature import SIGNATURE_KEY, Reviews, claim_message
from .signing import signing_diagnostics

DEFAULT_KEY = "~/.ssh/id_ed25519"


def default_key(cwd: str | None = None) -> str:
    """The key git signs commits with, when git signs with SSH (``gpg.format ssh``, ``user.signingkey``:
    a key file), else ``~/.ssh/id_ed25519``."""

    def git_config(name: str) -> str:
        try:
            done = subprocess.run(["git", "config", "--get", name], capture_output=True, cwd=cwd, check=False)
        except OSError:
            return ""
        return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else ""

    if git_config("gpg.format") == "ssh":
        key = git_config("user.signingkey")
        if key.startswith("key::"):
            raise ReviewError(
                "git's user.signingkey is a literal key (key::…), not a key file: give the key file with --key PATH"
            )
        if key:
            return os.path.expanduser(key)
    return os.path.expanduser(DEFAULT_KEY)


def principal_for(key: str, reviews: Reviews | None) -> str:
    """The principal the site's allowed_signers lists for ``key`` in the claim-evidence namespace."""
    if reviews is None or reviews.allowed_signers is None:
        raise ReviewError(
            'no [reviews] allowed_signers in claim-evidence.toml to name the signer: give --signer PRINCIPAL, or set allowed_signers = "PATH" under [reviews]'
        )
    public = public_key(key)
    if public is None:
        raise ReviewError(f"cannot read the public key of {key}: give the key file with --key PATH (KEY.pub beside it)")
    try:
        lines = Path(reviews.allowed_signers).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"cannot read {reviews.shown}: {exc}") from None
    kind, blob = public.split()
    for line in lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        for i in range(1, len(words) - 1):
            if words[i] == kind and words[i + 1] == blob and _allows_namespace(words[1:i]):
                return words[0].split(",")[0]
    raise ReviewError(
        f"{reviews.shown} does not list the key {key} for the {NAMESPACE} namespace: add the line "
        f'PRINCIPAL namespaces="{NAMESPACE}" {kind} {blob} to it, or give --signer PRINCIPAL'
    )


def _allows_namespace(options: list[str]) -> bool:
    for option in ",".join(options).split(","):
        name, _, value = option.partition("=")
        if name.lower() == "namespaces":
            return NAMESPACE in value.strip('"').split(",")
    return True


def sign_claim(
    bundle: dict[str, Any], index: int, key: str, signer: str, reviews: Reviews | None, file: str | None
) -> dict[str, Any]:
    """A copy of ``bundle`` whose claim ``index`` carries the signature of its review by ``key`` as
    ``signer``; refused (EvidenceValidationError) when the site's allowed_signers would not accept it."""
    signed = copy.deepcopy(bundle)
    claim = signed["claims"][index]
    verification = claim["verification"]
    verification.pop(SIGNATURE_KEY, None)
    try:
        armored = sign(claim_message(claim, signer), key)
    except SigningError as exc:
        raise ReviewError(f"cannot sign with {key}: {exc}") from None
    verification[SIGNATURE_KEY] = {"signer": signer, "sig": armored}
    if reviews is not None and reviews.allowed_signers is not None:
        refused = [d for d in signing_diagnostics({"claims": [claim]}, reviews, file) if d.is_error]
        if refused:
            at = json_path(("claims", index))
            raise EvidenceValidationError([_at(d, at) for d in refused])
    return signed


def _at(d: Diagnostic, claim_path: str) -> Diagnostic:
    from dataclasses import replace

    return replace(d, path=claim_path + d.path.removeprefix("$.claims[0]"))
