"""The values a fetch is asked with and answers with: :class:`FetchSettings` (the limits of one
run) and :class:`Fetched` (what happened to one URL, one of the five :data:`Outcome` values).

They live apart from the fetching (:mod:`.fetch`) so that the commands, the CLI and the tests
name them without the fetcher's machinery; like it, this module loads no httpx.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["ok", "dead", "unreachable", "too_large", "refused"]


def _default_user_agent() -> str:
    # Looked up when a FetchSettings is made, not when this module is imported: the
    # package __init__ defines __version__ after its own imports.
    try:
        from .. import __version__ as version
    except ImportError:  # a FetchSettings() made while the package __init__ is still running
        from importlib.metadata import version as installed

        version = installed("claim-evidence")
    return f"claim-evidence/{version} (source snapshots)"


@dataclass(frozen=True)
class Fetched:
    """What happened to one URL.

    ``final_url`` is the last URL the fetch reached (the URL itself when there
    was no redirect); it is ``None`` only when the very first request got no
    answer. ``status`` and ``content_type`` belong to the last answer received,
    ``body`` is set for ``ok`` alone, and ``redirects`` lists the URLs that
    answered with a redirect, in order, before ``final_url``.
    """

    url: str
    outcome: Outcome
    final_url: str | None
    status: int | None
    content_type: str | None
    body: bytes | None
    reason: str
    redirects: tuple[str, ...] = ()


@dataclass(frozen=True)
class FetchSettings:
    """Limits for one run; the defaults suit a nightly job over public pages.

    ``deadline`` bounds the whole fetch of one source, from its first request:
    every redirect hop, every attempt (connecting, the headers, the whole
    body) and the waits between retries. ``connect_timeout`` and
    ``read_timeout`` bound each single wait for the network within it.
    ``max_bytes`` caps the *decoded* body, on every layer of its content
    codings, since the decoded bytes are what gets stored. ``backoff`` is the
    first retry's delay and doubles for each further retry; a ``Retry-After``
    in seconds replaces it (the HTTP-date form is ignored); both stop at 30 s,
    a wait that would pass the deadline is not made, and the ``Retry-After``
    waits of a whole run add up to ``retry_after_budget`` at most.
    ``allow_private`` lets redirects reach loopback, link-local and private
    addresses of other origins (an intranet; the tests, whose servers are all
    on 127.0.0.1). ``per_host`` applies to the lowercased ``host:port``, so
    two names for one machine count as two hosts.
    """

    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    deadline: float = 60.0
    max_bytes: int = 20_000_000
    per_host: int = 2
    workers: int = 8
    retries: int = 2
    backoff: float = 1.0
    retry_after_budget: float = 60.0
    max_redirects: int = 10
    allow_private: bool = False
    user_agent: str = field(default_factory=_default_user_agent)

    def __post_init__(self) -> None:
        if min(self.per_host, self.workers) < 1 or min(self.retries, self.max_redirects, self.max_bytes) < 0:
            raise ValueError("per_host and workers must be at least 1; retries, max_redirects and max_bytes at least 0")
        if (
            min(self.connect_timeout, self.read_timeout, self.deadline) <= 0
            or min(self.backoff, self.retry_after_budget) < 0
        ):
            raise ValueError("timeouts and the deadline must be positive; backoff and retry_after_budget not negative")
