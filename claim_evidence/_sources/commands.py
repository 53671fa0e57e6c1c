"""The ``sources`` commands: snapshot what a review reads, and re-check every registered source.

The only code of the toolkit that touches the network (through :mod:`._fetch`).
Taking a snapshot changes a source record, so — the fingerprint covering the
cited source records — it undoes the review of every claim citing it: that is
reported, never repaired; only ``review record`` seals. Verifying writes
nothing unless asked to store the new copies, and even then no record changes:
a person decides whether the review still holds.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic
from .._core.report import FileResult
from .._core.urls import safe_http_url
from .._record.authoring import AuthoringError, Change, judged
from .._record.freshness import clock_date
from .._record.vocabulary import FINGERPRINT_RE
from .._snapshots.anchor import anchor
from .._snapshots.store import SnapshotStore
from .addresses import origin
from .extract import extract_text
from .fetch import fetch_all
from .fetchvalues import Fetched, FetchSettings


@dataclass(frozen=True)
class Taken:
    """What happened to one source: a snapshot ``stored`` (maybe with a warning), or ``failed``."""

    source_id: str
    url: str
    outcome: str  # "stored" or "failed"
    detail: str


@dataclass(frozen=True)
class Snapshots:
    """The bundle with its new snapshot records, and a line per source."""

    change: Change
    taken: tuple[Taken, ...]

    @property
    def failed(self) -> bool:
        return any(t.outcome == "failed" for t in self.taken)


def today() -> str:
    """The date of a fetch (UTC), from the same clock reading the review-age policy uses:
    a real fetch is dated by the clock; ``--retrieved-at`` overrides it."""
    return clock_date().isoformat()


def chosen_sources(bundle: Any, ids: Sequence[str]) -> list[tuple[int, dict[str, Any]]]:
    """``(index, source)`` for the ids asked (all sources when none); unknown ids are an error."""
    sources = bundle.get("sources") if isinstance(bundle, dict) else None
    if not isinstance(sources, list):
        raise AuthoringError("the file holds no bundle with a sources list")
    records = [(i, s) for i, s in enumerate(sources) if isinstance(s, dict) and isinstance(s.get("id"), str)]
    if not ids:
        return records
    known = {s["id"]: (i, s) for i, s in records}
    unknown = [sid for sid in ids if sid not in known]
    if unknown:
        raise AuthoringError(f"no source with id {unknown[0]!r} (sources: {', '.join(known) or 'none'})")
    return [known[sid] for sid in dict.fromkeys(ids)]


def snapshot_sources(
    bundle: Any,
    store: SnapshotStore,
    ids: Sequence[str] = (),
    *,
    retrieved_at: str,
    settings: FetchSettings = FetchSettings(),
) -> Snapshots:
    """Fetch each chosen source, store its bytes and text, and record the snapshot on the source."""
    _check_date(retrieved_at)
    chosen = chosen_sources(bundle, ids)
    urls = [s["url"] for _, s in chosen if safe_http_url(s.get("url"))]
    fetched = fetch_all(urls, settings) if urls else {}
    updated = copy.deepcopy(bundle)
    taken = []
    for index, source in chosen:
        url = str(source.get("url"))
        result = fetched.get(url)
        if result is None:
            taken.append(Taken(source["id"], url, "failed", "not a safe http(s) URL: nothing fetched"))
            continue
        if result.outcome != "ok" or result.body is None:
            taken.append(Taken(source["id"], url, "failed", f"{result.outcome}: {result.reason}"))
            continue
        record = {
            "sha256": "",
            "retrieved_at": retrieved_at,
            "content_type": result.content_type or "",
            "final_url": result.final_url or url,
        }
        taken.append(_store(store, updated["sources"][index], record, result.body, result.content_type, url))
    return Snapshots(judged(bundle, updated, set(), []), tuple(taken))


def import_snapshot(
    bundle: Any, store: SnapshotStore, source_id: str, data: bytes, file_name: str, *, retrieved_at: str
) -> Snapshots:
    """A snapshot from a local copy (a PDF received by mail, a page behind a login): same store and
    record, ``final_url`` the source's own URL, and a note saying it was imported."""
    _check_date(retrieved_at)
    ((index, source),) = chosen_sources(bundle, [source_id])
    url = safe_http_url(source.get("url"))
    if not url:
        raise AuthoringError(f"source {source_id!r} has no safe http(s) URL to record the copy under")
    updated = copy.deepcopy(bundle)
    record = {
        "sha256": "",
        "retrieved_at": retrieved_at,
        "content_type": "",
        "final_url": url,
        "note": f"imported from a local copy ({os.path.basename(file_name)}), not fetched",
    }
    taken = _store(store, updated["sources"][index], record, data, None, url)
    return Snapshots(judged(bundle, updated, set(), []), (taken,))


def _store(
    store: SnapshotStore,
    source: dict[str, Any],
    record: dict[str, Any],
    body: bytes,
    content_type: str | None,
    url: str,
) -> Taken:
    extracted = extract_text(body, content_type)
    record["sha256"] = store.put(body, extracted.text)
    if not record["content_type"]:
        record["content_type"] = _KIND_TYPES[extracted.kind]
    source["snapshot"] = {k: v for k, v in record.items() if v is not None}
    detail = f"stored {record['sha256'][:12]}… ({record['content_type']}, {len(body):,} bytes, {len(extracted.text):,} characters of text)"
    if extracted.warning:
        detail += f"; warning: {extracted.warning}"
    return Taken(source["id"], url, "stored", detail)


_KIND_TYPES = {"html": "text/html", "pdf": "application/pdf", "text": "text/plain", "other": "application/octet-stream"}


def _check_date(value: str) -> None:
    if not is_valid_date(value):
        raise AuthoringError(f"--retrieved-at must be an existing date as YYYY-MM-DD, got {value!r}")


# --- verify: every registered source, again -----------------------------------------------------------------


@dataclass
class Cited:
    """One source URL as the site records it: where, with which snapshot, and the quotes relying on it."""

    url: str
    source_id: str  # the id of its first record: the findings' subject
    places: list[str] = field(default_factory=list)  # "about.html [source about-policy]"
    digests: set[str] = field(default_factory=set)
    final_origins: set[tuple[str, str, int]] = field(
        default_factory=set
    )  # (scheme, host, port) of the recorded final URLs
    quotes: list[tuple[str, str, str | None, str | None]] = field(
        default_factory=list
    )  # (where, exact, prefix, suffix)


def source_ids(documents: Iterable[tuple[str, Any]]) -> list[str]:
    """The ids of the sources of ``documents`` (``(name, bundle)``), sorted, each once: what ``--source`` may name."""
    return sorted({s["id"] for _, bundle in documents for s in _sources_of(bundle) if isinstance(s.get("id"), str)})


def _sources_of(bundle: Any) -> list[dict[str, Any]]:
    sources = bundle.get("sources") if isinstance(bundle, dict) else None
    return [s for s in sources if isinstance(s, dict)] if isinstance(sources, list) else []


def collect_sources(documents: Iterable[tuple[str, Any]], only: Collection[str] = ()) -> dict[str, Cited]:
    """Every source URL of the bundles of ``documents`` (``(name, bundle)``), with what cites it; with
    ``only``, the sources with those ids alone."""
    cited: dict[str, Cited] = {}
    for name, bundle in documents:
        if not isinstance(bundle, dict) or not isinstance(bundle.get("sources"), list):
            continue
        by_id: dict[str, Cited] = {}
        for source in bundle["sources"]:
            url = source.get("url") if isinstance(source, dict) else None
            if not isinstance(url, str) or not safe_http_url(url) or not isinstance(source.get("id"), str):
                continue
            if only and source["id"] not in only:
                continue
            entry = cited.setdefault(url, Cited(url, source["id"]))
            entry.places.append(f"{name} [source {source['id']}]")
            snapshot = source.get("snapshot")
            if (
                isinstance(snapshot, dict)
                and isinstance(snapshot.get("sha256"), str)
                and FINGERPRINT_RE.fullmatch(snapshot["sha256"])
            ):
                entry.digests.add(snapshot["sha256"])
                final = snapshot.get("final_url")
                entry.final_origins.add(origin(final if isinstance(final, str) and safe_http_url(final) else url))
            by_id[source["id"]] = entry
        claims = bundle.get("claims")
        for claim in claims if isinstance(claims, list) else []:
            refs = claim.get("source_refs") if isinstance(claim, dict) else None
            for ref in refs if isinstance(refs, list) else []:
                quote = ref.get("quote") if isinstance(ref, dict) else None
                exact = quote.get("exact") if isinstance(quote, dict) else None
                target = by_id.get(ref.get("source_id")) if isinstance(ref.get("source_id"), str) else None
                if target is not None and isinstance(exact, str) and exact.strip():
                    prefix, suffix = quote.get("prefix"), quote.get("suffix")  # type: ignore[union-attr]
                    target.quotes.append(
                        (
                            f"{name} [{claim.get('id')}]",
                            exact,
                            prefix if isinstance(prefix, str) else None,
                            suffix if isinstance(suffix, str) else None,
                        )
                    )
    return cited


def verify_sources(
    cited: dict[str, Cited],
    store: SnapshotStore | None,
    *,
    update: bool = False,
    settings: FetchSettings = FetchSettings(),
) -> list[FileResult]:
    """Fetch every source again and classify it: unchanged, drifted, dead, refused, moved or unreachable."""
    fetched = fetch_all(list(cited), settings)
    return [_classify(entry, fetched[url], store, update) for url, entry in cited.items()]


def _classify(entry: Cited, got: Fetched, store: SnapshotStore | None, update: bool) -> FileResult:
    where = "; ".join(entry.places)
    subject = f"source {entry.source_id}"

    def finding(code: str, message: str, severity: str = "error") -> Diagnostic:
        return Diagnostic(code, message, "$", severity, subject)  # type: ignore[arg-type]

    if got.outcome == "dead":
        return FileResult(entry.url, [finding("CE530", f"dead: {got.reason}; cited in {where}")])
    if got.outcome == "refused":
        # Our choice, not the server's state: a redirect into private address space or to an unsafe URL, a
        # content coding not decoded, a partial answer. Nothing was read, so nothing can be said to hold.
        return FileResult(entry.url, [finding("CE535", f"refused, not read: {got.reason}; cited in {where}")])
    if got.outcome != "ok" or got.body is None:
        message = f"unreachable, not judged: {got.reason}; cited in {where}"
        return FileResult(entry.url, [finding("CE531", message, "warning")], detail="not judged")
    found: list[Diagnostic] = []
    final = origin(got.final_url or entry.url)
    recorded = entry.final_origins or {origin(entry.url)}
    if final not in recorded:
        found.append(
            finding(
                "CE532",
                f"moved: now served from {got.final_url} ({_what_moved(final, recorded)}); cited in {where}",
                "warning",
            )
        )
    if not entry.digests:
        return FileResult(entry.url, found, detail="reachable; no snapshot recorded, so nothing to compare")
    digest = _sha256(got.body)
    if digest in entry.digests:
        return FileResult(entry.url, found, detail="unchanged")
    text = extract_text(got.body, got.content_type).text
    if update and store is not None:
        store.put(got.body, text)
    gone = [
        place for place, exact, prefix, suffix in entry.quotes if anchor(text, exact, prefix, suffix).outcome != "found"
    ]
    stored = f" (new copy stored: {digest[:12]}…)" if update and store is not None else ""
    if gone:
        message = (
            f"drifted: the source changed and no longer has the quote of {', '.join(gone)}; the review of those claims "
            f"no longer holds — read the source again{stored}"
        )
        found.append(finding("CE534", message))
    else:
        kept = (
            f"the {len(entry.quotes)} quote{'s' if len(entry.quotes) != 1 else ''} still present"
            if entry.quotes
            else "no quote to check"
        )
        found.append(finding("CE533", f"drifted: changed since the snapshot, {kept}{stored}", "warning"))
    return FileResult(entry.url, found, detail="drifted")


def _what_moved(final: tuple[str, str, int], recorded: set[tuple[str, str, int]]) -> str:
    """What differs from the recorded origins: another port of the same host is another service, and
    http for https another transport, so each counts as moved, not only another host name."""
    scheme, host, _ = final
    if all(host != r[1] for r in recorded):
        return "another host"
    if all(scheme != r[0] for r in recorded if r[1] == host):
        return "another scheme"
    return "another port"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
