"""``claim-evidence review queue``: every claim of a site that needs a review, oldest review first.

A reviewer's day starts from a list, not from a failed build. A claim needs a review when its
record changed since the last one (CE403), when that review expired or is due soon (CE601, CE602,
counted to the build date), when a stored snapshot of a source it cites no longer backs it (the
snapshot checks, CE521–CE527: no network; ``sources verify`` re-reads the live sources). A claim
never reviewed is not listed: it shows as 未確認 by design (``report`` counts those). The findings are the page check's own (:func:`._page.check_text` with the
site's options, as ``report`` and ``prepublish`` check a page), so the queue and the gate cannot
disagree. Reads only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._check.facts import read_page_bundle
from .._check.page import check_text
from .._core.dates import is_valid_date
from .._core.diagnostics import ClaimEvidenceError, Diagnostic
from .._core.hints import terminal_safe
from .._core.textio import read_text
from .._record.freshness import DUE_SOON, EXPIRED
from .._site.config import Config, registered_pages
from .._site.runner import display
from .._site.sourcemap import SourceFiles, shown_from

SEAL_BROKEN = "CE403"
# The snapshot checks' findings that say a stored copy no longer backs a review (CE520, "skipped", does not).
DRIFT = ("CE521", "CE522", "CE523", "CE524", "CE525", "CE526", "CE527")
_ADVICE = ": read the sources again and record the review"  # (CE601's advice: the queue gives the command)


@dataclass(frozen=True)
class Due:
    """One claim that needs a review: the file holding its record, its id, the date of its last review
    (None: no valid date, or no fingerprint) and why, each reason ending with its code."""

    file: str
    claim_id: str
    checked_at: str | None
    reasons: tuple[str, ...]
    changed: bool  # CE403: ``review diff`` has something to show


def review_queue(config: Config) -> list[Due]:
    """The claims of ``config``'s registered pages that need a review, those without a review date first,
    then by the date of the last review, then by file and id. ``config`` has its build date resolved
    (:func:`._site.config.at_build_date`): review ages count to it."""
    cwd = os.path.realpath(os.getcwd())
    pages = registered_pages(config)
    sources = SourceFiles(config.root, config.sources, [os.fspath(p) for p in pages]) if config.sources else None
    found: dict[tuple[str, str], Due] = {}
    for path in pages:
        try:
            text = read_text(path)
            page = check_text(text, os.fspath(path), config.options)
        except ClaimEvidenceError:
            continue  # an unreadable page is prepublish's to report: it has no claims to list
        if not isinstance(page.bundle, dict):
            continue
        holder = _holder(sources, text, os.fspath(path), cwd) or display(path, cwd)
        for due in _claims(holder, page.bundle, page.diagnostics):
            found.setdefault((due.file, due.claim_id), due)
    return sorted(found.values(), key=lambda d: (d.checked_at is not None, d.checked_at or "", d.file, d.claim_id))


def _holder(sources: SourceFiles | None, text: str, path: str, cwd: str) -> str | None:
    """The one source (``sources`` in claim-evidence.toml) holding the page's record, as the page check's
    hint names it; None without sources, or when none or several hold it."""
    if sources is None:
        return None
    try:
        held = sources.holding_record(read_page_bundle(text, path).text)
    except ClaimEvidenceError:
        return None
    return shown_from(cwd)(held[0][0]) if len(held) == 1 else None


def _claims(file: str, bundle: dict[str, Any], diagnostics: Iterable[Diagnostic]) -> list[Due]:
    claims = bundle.get("claims")
    listed = bundle.get("sources")
    sources = listed if isinstance(listed, list) else []
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    out = []
    for index, claim in enumerate(claims if isinstance(claims, list) else []):
        if not isinstance(claim, dict) or not isinstance(claim.get("id"), str):
            continue  # validation reports it; there is no id to review
        own = [d for path, ds in by_path.items() if _within(path, f"$.claims[{index}]") for d in ds]
        cited = _cited(claim, sources)
        drift = [
            d
            for path, ds in by_path.items()
            if any(_within(path, f"$.sources[{i}]") for i in cited)
            for d in ds
            if d.code in DRIFT
        ]
        verification = claim.get("verification")
        checked = verification.get("checked_at") if isinstance(verification, dict) else None
        reviewed = isinstance(verification, dict) and isinstance(verification.get("fingerprint"), str)
        reasons = [_reason(d) for d in [*own, *drift] if d.code in (SEAL_BROKEN, EXPIRED, DUE_SOON, *DRIFT)]
        if reasons:
            changed = any(d.code == SEAL_BROKEN for d in own)
            date = checked if isinstance(checked, str) and is_valid_date(checked) and reviewed else None
            out.append(Due(file, claim["id"], date, tuple(dict.fromkeys(reasons)), changed))
    return out


def _within(path: str, at: str) -> bool:
    return path == at or path.startswith((at + ".", at + "["))


def _cited(claim: dict[str, Any], sources: list[Any]) -> list[int]:
    refs = claim.get("source_refs")
    ids = {r.get("source_id") for r in (refs if isinstance(refs, list) else []) if isinstance(r, dict)}
    return [i for i, s in enumerate(sources) if isinstance(s, dict) and s.get("id") in ids]


def _reason(d: Diagnostic) -> str:
    """A finding as one short clause: its message's first part (the rest says what to type, which the
    queue's line gives), then its code."""
    if d.code == SEAL_BROKEN:
        return f"the record changed since the review ({d.code})"
    if d.code == EXPIRED:
        return f"expired: {d.message.removesuffix(_ADVICE)} ({d.code})"
    first = d.message.split("; ")[0].split("\n")[0]
    subject = f"{d.subject}: " if d.code in DRIFT and d.subject.startswith("source ") else ""
    return f"{subject}{first} ({d.code})"


def queue_lines(queue: list[Due]) -> list[str]:
    """The queue as ``review queue`` prints it: a line per claim, then the count."""
    lines = []
    for due in queue:
        record = f"claim-evidence review record {due.file} --claim {due.claim_id} --method … --checked-at …"
        then = (
            f"see what changed: claim-evidence review diff {due.file} --claim {due.claim_id}; then: {record}"
            if due.changed
            else f"after reading the sources: {record}"
        )
        when = f"reviewed {due.checked_at}" if due.checked_at else "no review date"
        lines.append(terminal_safe(f"{due.file}: {due.claim_id} ({when}): {'; '.join(due.reasons)}; {then}"))
    count = len(queue)
    lines.append(
        "review queue: no claim needs a review"
        if not count
        else f"review queue: {count} claim{'s' if count != 1 else ''} need{'s' if count == 1 else ''} a review"
    )
    return lines


__all__ = ["DRIFT", "Due", "queue_lines", "review_queue"]
