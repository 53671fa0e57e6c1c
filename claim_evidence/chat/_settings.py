"""The endpoint's settings: one frozen value, read from the environment once at start-up.

The API key is not a setting: the app reads ``ANTHROPIC_API_KEY`` from the server's environment
when it is created and keeps it inside the SDK client, so it is never in a repr, a log or a page.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._core.errors import ChatConfigError
from .._core.urls import safe_http_url

DEFAULT_MODEL = "claude-haiku-4-5"
MODEL_ENV = "CLAIM_EVIDENCE_CHAT_MODEL"
KEY_ENV = "ANTHROPIC_API_KEY"
# The longest request the chat spec allows must fit: 8 exchanges of two 700-character messages and a
# 500-character question, every character written the longest way JSON allows (a \\uXXXX pair for one
# outside the BMP, 12 bytes) — 16 × 700 × 12 + 500 × 12 = 140,400 bytes, plus the keys. 256 KiB holds it
# with room to spare; a longer history within it is trimmed (trim_history), not refused.
MAX_BODY_BYTES = 256 * 1024


@dataclass(frozen=True)
class ChatSettings:
    """What ``create_app`` needs. Every limit is bounded; the defaults suit one small site.

    ``rate_burst`` requests at once per client IP, refilled at ``rate_per_minute``; at most
    ``rate_clients`` addresses are remembered (the least recently seen is forgotten first).
    ``base_url`` (else ``ANTHROPIC_BASE_URL``, else the SDK's default) is where the model is asked.
    ``site_url`` (the site's public address) turns a source given as a site path into a full URL
    in the text a reader copies; without it the path is copied as it is.
    """

    kb_path: Path
    site_dir: Path | None = None
    site_url: str | None = None
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    timeout: float = 30.0
    max_retries: int = 0
    max_tokens: int = 1024
    max_body_bytes: int = MAX_BODY_BYTES
    max_concurrent: int = 4
    rate_burst: int = 5
    rate_per_minute: float = 10.0
    rate_clients: int = 10_000
    clock: Callable[[], float] = field(default=time.monotonic, repr=False, compare=False)

    def __post_init__(self) -> None:
        positive = {
            "timeout": self.timeout,
            "max_tokens": self.max_tokens,
            "max_body_bytes": self.max_body_bytes,
            "max_concurrent": self.max_concurrent,
            "rate_burst": self.rate_burst,
            "rate_per_minute": self.rate_per_minute,
            "rate_clients": self.rate_clients,
        }
        for name, value in positive.items():
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ChatConfigError(f"chat setting {name} must be a positive number (found {value!r})")
        if not (isinstance(self.max_retries, int) and 0 <= self.max_retries <= 3):
            raise ChatConfigError(f"chat setting max_retries must be 0 to 3 (found {self.max_retries!r})")
        if not isinstance(self.model, str) or not self.model.strip():
            raise ChatConfigError("chat setting model must be a model name")
        if self.site_url is not None and not safe_http_url(self.site_url):
            raise ChatConfigError(f"chat setting site_url must be an http(s) URL (found {self.site_url!r})")

    @classmethod
    def from_env(
        cls,
        kb_path: str | Path,
        *,
        site_dir: str | Path | None = None,
        site_url: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ChatSettings:
        """Settings from ``CLAIM_EVIDENCE_CHAT_*`` variables (see docs/chat.md), defaults elsewhere."""
        env = os.environ if environ is None else environ
        numbers: dict[str, float] = {}
        for name, key, kind in (
            ("timeout", "CLAIM_EVIDENCE_CHAT_TIMEOUT", float),
            ("rate_per_minute", "CLAIM_EVIDENCE_CHAT_RATE_PER_MINUTE", float),
            ("rate_burst", "CLAIM_EVIDENCE_CHAT_RATE_BURST", int),
            ("max_tokens", "CLAIM_EVIDENCE_CHAT_MAX_TOKENS", int),
        ):
            raw = env.get(key)
            if raw is None or raw == "":
                continue
            try:
                numbers[name] = kind(raw)
            except ValueError:
                raise ChatConfigError(f"{key} must be a number (found {raw!r})") from None
        return cls(
            kb_path=Path(kb_path),
            site_dir=Path(site_dir) if site_dir is not None else None,
            site_url=site_url or env.get("CLAIM_EVIDENCE_CHAT_SITE_URL") or None,
            model=env.get(MODEL_ENV) or DEFAULT_MODEL,
            **numbers,  # type: ignore[arg-type]
        )
