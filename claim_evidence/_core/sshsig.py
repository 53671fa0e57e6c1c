"""SSH signatures as git makes them: ``ssh-keygen -Y sign`` / ``-Y check-novalidate`` / ``-Y verify``.

No cryptography here: each operation is ``ssh-keygen`` (present wherever git signs with SSH) run as a
subprocess, the message on its stdin, nothing written to disk. Each outcome is a value: what a caller
reports, in its own words, never an exception from deep inside. Verification needs neither the network
nor a private key, and is dated by the caller (``-Overify-time``), never by the clock.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

NAMESPACE = "claim-evidence"
SSH_KEYGEN = "ssh-keygen"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"

# good: the signature verifies for that signer; bad: it does not verify over these bytes (values changed,
# or another namespace); unknown: valid, but allowed_signers does not allow the key for the signer in the
# namespace; expired: allowed, but not on the day given; missing: no ssh-keygen to ask.
Outcome = Literal["good", "bad", "unknown", "expired", "missing"]
_EXPIRED = re.compile(r":(\d+): key (?:has expired|is not yet valid)")
_NAMESPACE = re.compile(r"namespace does not match")
_OTHER_NAMESPACE = re.compile(r":(\d+): key is not permitted for use in signature namespace")


@dataclass(frozen=True)
class Verdict:
    """What ``ssh-keygen`` says of one signature: the outcome, and the allowed_signers line it concerns
    (1-based, when it names one) or, for ``bad``, whether the namespace is what differs."""

    outcome: Outcome
    line: int | None = None
    other_namespace: bool = False


class SigningError(Exception):
    """``ssh-keygen -Y sign`` could not sign (no ssh-keygen, no such key, a passphrase refused): its words."""


def ssh_keygen() -> str | None:
    """The ``ssh-keygen`` to run (``CLAIM_EVIDENCE_SSH_KEYGEN`` overrides the one on PATH), None without one."""
    return shutil.which(os.environ.get("CLAIM_EVIDENCE_SSH_KEYGEN", SSH_KEYGEN))


def _run(args: list[str], message: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, input=message, capture_output=True, check=False)


def sign(message: bytes, key: str) -> str:
    """The armored SSHSIG of ``message`` in the ``claim-evidence`` namespace, by the key file ``key``
    (a private key, or a public one whose private half an ssh-agent holds, as git allows)."""
    program = ssh_keygen()
    if program is None:
        raise SigningError(f"{SSH_KEYGEN} not found on PATH (it comes with OpenSSH, as git's SSH signing needs)")
    done = _run([program, "-Y", "sign", "-f", key, "-n", NAMESPACE], message)
    armored = done.stdout.decode("ascii", "replace").strip()
    if done.returncode != 0 or not armored.startswith(BEGIN):
        said = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if "Signing data" not in line]
        raise SigningError("; ".join(said) or f"{SSH_KEYGEN} -Y sign exited {done.returncode}")
    return armored + "\n"


def verify(message: bytes, armored: str, signer: str, allowed_signers: str, day: str | None) -> Verdict:
    """Whether ``armored`` signs ``message`` in the ``claim-evidence`` namespace by a key that
    ``allowed_signers`` (git's format) allows for ``signer`` on ``day`` (``YYYY-MM-DD``; None: any day)."""
    program = ssh_keygen()
    if program is None:
        return Verdict("missing")
    with _signature_file(armored) as sig:
        checked = _run([program, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", sig], message)
        if checked.returncode != 0:
            return Verdict("bad", other_namespace=bool(_NAMESPACE.search(checked.stderr.decode("utf-8", "replace"))))
        args = [program, "-Y", "verify", "-f", allowed_signers, "-I", signer, "-n", NAMESPACE, "-s", sig]
        if day is not None:
            args.append("-Overify-time=" + day.replace("-", ""))
        done = _run(args, message)
    if done.returncode == 0:
        return Verdict("good")
    said = done.stderr.decode("utf-8", "replace")
    expired = _EXPIRED.search(said)
    if expired:
        return Verdict("expired", int(expired.group(1)))
    other = _OTHER_NAMESPACE.search(said)
    return Verdict("unknown", int(other.group(1)) if other else None)


@contextmanager
def _signature_file(armored: str) -> Iterator[str]:
    """The armored signature in a private temporary file: ``-Y verify`` reads the message from stdin and
    the signature only from a file."""
    handle, path = tempfile.mkstemp(prefix="claim-evidence-", suffix=".sig")
    try:
        with os.fdopen(handle, "w", encoding="ascii", errors="replace") as out:
            out.write(armored if armored.endswith("\n") else armored + "\n")
        yield path
    finally:
        os.unlink(path)


def public_key(key: str) -> str | None:
    """The public key (``TYPE BASE64``) of the key file ``key``: ``KEY.pub`` beside it, the file itself
    when it is a public key, else ``ssh-keygen -y`` (which may ask for its passphrase); None when unknown."""
    for candidate in (key + ".pub", key):
        try:
            with open(candidate, encoding="utf-8") as handle:
                words = handle.read().split()
        except (OSError, UnicodeDecodeError):
            continue
        if len(words) >= 2 and words[0].startswith(("ssh-", "ecdsa-", "sk-")):
            return f"{words[0]} {words[1]}"
    program = ssh_keygen()
    if program is None:
        return None
    done = subprocess.run([program, "-y", "-f", key], capture_output=True, check=False)
    words = done.stdout.decode("ascii", "replace").split()
    return f"{words[0]} {words[1]}" if done.returncode == 0 and len(words) >= 2 else None
