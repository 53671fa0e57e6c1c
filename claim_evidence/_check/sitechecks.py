"""The checks a site adds to a record's own validation: its snapshots, its review-age policy and
the review signatures it trusts.

They depend on the site (a folder, a policy, a build date), not on the record
alone, so they run after validation and never change how a block renders.
Every reader that knows the site — a bundle file, a page, the news registry —
asks here, so the three apply them alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._core.diagnostics import Diagnostic
from .._record.freshness import Freshness, freshness_diagnostics
from .._record.policy import DEFAULT_POLICY, Policy
from .._snapshots.check import snapshot_diagnostics
from .signing import signing_diagnostics

if TYPE_CHECKING:
    from .._snapshots.store import SnapshotStore


def site_diagnostics(
    bundle: Any,
    store: SnapshotStore | None,
    freshness: Freshness | None,
    policy: Policy = DEFAULT_POLICY,
    file: str | None = None,
) -> list[Diagnostic]:
    """Snapshot findings (with ``store``, the site's snapshot folder, or a note that they were
    skipped), then review-age findings under ``freshness``, then the review signatures verified
    against the site's ``[reviews]`` (``policy.reviews``; ``file`` holds the records, for the commands
    the findings name)."""
    return [
        *snapshot_diagnostics(bundle, store),
        *freshness_diagnostics(bundle, freshness),
        *signing_diagnostics(bundle, policy.reviews, file),
    ]
