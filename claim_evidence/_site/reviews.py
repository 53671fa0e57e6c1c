"""The ``[reviews]`` table of ``claim-evidence.toml``: the site's ``allowed_signers`` (git's format), where
a review must be signed (``require_signature``), and whether the blocks name the signer (``show_signer``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .._core.tomltable import check_keys, config_error, table
from .._record.freshness import DEFAULT_MAX_AGE_DAYS
from .._record.signature import REQUIRE_SEVERITIES, Reviews

REVIEWS_KEYS = ("allowed_signers", "require_signature", "show_signer")
_REQUIRE_WORDS = 'false, true (a warning), "error", or a table per basis'


def reviews_table(data: Any, root: Path, name: str) -> Reviews:
    """``[reviews]`` read and checked; ``allowed_signers`` is relative to the config's folder and must be a
    readable file (its digest is part of every cache key)."""
    data = table(data, "reviews", REVIEWS_KEYS, name)
    allowed = data.get("allowed_signers")
    path = digest = None
    if allowed is not None:
        if not isinstance(allowed, str) or not allowed.strip():
            message = 'reviews.allowed_signers must be the path of an allowed_signers file, e.g. allowed_signers = ".allowed_signers"'
            raise config_error("SH003", message, name)
        path = root / allowed
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            message = (
                f"reviews.allowed_signers: cannot read {allowed} ({exc.strerror or exc}): create it with one line per "
                f'reviewer, e.g. 編集部 namespaces="claim-evidence" ssh-ed25519 AAAA… (git\'s allowed_signers format)'
            )
            raise config_error("SH003", message, name) from None
    required = data.get("require_signature", False)
    per_basis: dict[str, Any] = {}
    if isinstance(required, dict):
        check_keys(required, tuple(DEFAULT_MAX_AGE_DAYS), name, "reviews.require_signature.")
        per_basis, required = required, False
    for key, value in (("", required), *((f".{basis}", v) for basis, v in per_basis.items())):
        if type(value) is not bool and value != "error":
            message = f"reviews.require_signature{key} must be {_REQUIRE_WORDS} (found {value!r})"
            raise config_error("SH003", message, name)
    show = data.get("show_signer", False)
    if not isinstance(show, bool):
        raise config_error("SH003", f"reviews.show_signer must be true or false (found {show!r})", name)
    return Reviews(
        str(path.resolve()) if path is not None else None,
        allowed or "",
        digest or "",
        tuple((basis, REQUIRE_SEVERITIES[value]) for basis, value in per_basis.items()),
        REQUIRE_SEVERITIES[required],
        show,
    )
