"""Offline checks of what a review read: the stored snapshots, and the quotes anchored in them.

Validation proves a record is unchanged since its review; these checks add that
the copy of each source the review read is still on disk unaltered, and that
every quoted passage is really in it. They read the snapshot folder only —
never the network — and they belong to the site, not to the record: a block
renders the same with or without them, and without the folder they say they
were skipped (a note), never that they passed. Quotes are anchored in the text
extracted again from the verified bytes, never in the ``.txt`` beside them alone
(an edit there is reported: CE527), since the bundle's digest vouches for the
bytes only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.diagnostics import Diagnostic, json_path
from .._record.vocabulary import FINGERPRINT_RE, is_valid_id
from .anchor import anchor

if TYPE_CHECKING:
    from .store import SnapshotStore

SKIPPED = (
    "snapshot checks skipped: no snapshot folder here (snapshots in claim-evidence.toml, or --snapshot-dir), so the "
    "stored copies and the quotes in them were not checked"
)


def snapshot_store(folder: str | os.PathLike[str] | None) -> SnapshotStore | None:
    """The store at ``folder`` when that folder exists; None (checks skipped) otherwise."""
    if folder is None or not os.path.isdir(folder):
        return None
    from .store import SnapshotStore

    return SnapshotStore(Path(folder))


def snapshot_diagnostics(bundle: Any, store: SnapshotStore | None) -> list[Diagnostic]:
    """Findings for the snapshots ``bundle`` records, in JSON-path order; none when it records none."""
    if not isinstance(bundle, dict) or not isinstance(bundle.get("sources"), list):
        return []
    recorded = list(_recorded(bundle["sources"]))
    if not recorded:
        return []
    if store is None:
        return [Diagnostic("CE520", SKIPPED, "$.sources", "note", "claim_evidence")]
    found: list[Diagnostic] = []
    texts: dict[str, tuple[str | None, dict[str, Any]]] = {}
    for index, sid, snapshot in recorded:
        digest = snapshot["sha256"]
        state = store.check(digest)
        where = json_path(("sources", index, "snapshot", "sha256"))
        subject = f"source {sid}"
        if state == "missing":
            message = (
                f"snapshot file missing: {_shown(store, digest)}; restore it from version control, or take a new snapshot "
                f"(claim-evidence sources snapshot FILE --source {sid}) and review again"
            )
            found.append(Diagnostic("CE521", message, where, "error", subject))
        elif state == "altered":
            message = f"snapshot file altered: {_shown(store, digest)} no longer hashes to its recorded sha256; restore it from version control"
            found.append(Diagnostic("CE522", message, where, "error", subject))
        text = None
        if state == "ok":
            text = store.derived_text(digest, _content_type(snapshot))
            if text is not None and store.text(digest) != text:
                message = (
                    f"snapshot text differs from its bytes: {os.fspath(store.text_path(digest))} is not the text of "
                    f"{_shown(store, digest)} (edited, or extracted by another version); quotes were checked against the "
                    "bytes' text; restore the .txt from version control, or take the snapshot again"
                )
                found.append(Diagnostic("CE527", message, where, "warning", subject))
        texts[sid] = (text, snapshot)
    found.extend(_quotes(bundle, texts))
    return found


def _recorded(sources: list[Any]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(index, id, snapshot) of each source whose snapshot names a well-formed digest (CE206 reports the rest)."""
    for index, source in enumerate(sources):
        snapshot = source.get("snapshot") if isinstance(source, dict) else None
        if isinstance(snapshot, dict) and is_valid_id(source.get("id")) and isinstance(snapshot.get("sha256"), str):
            if FINGERPRINT_RE.fullmatch(snapshot["sha256"]):
                yield index, source["id"], snapshot


def _content_type(snapshot: dict[str, Any]) -> str | None:
    kind = snapshot.get("content_type")
    return kind if isinstance(kind, str) else None


def _shown(store: SnapshotStore, digest: str) -> str:
    return os.fspath(store.bin_path(digest))


def _quotes(bundle: dict[str, Any], texts: dict[str, tuple[str | None, dict[str, Any]]]) -> Iterator[Diagnostic]:
    claims = bundle.get("claims")
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        refs = claim.get("source_refs") if isinstance(claim, dict) else None
        for j, ref in enumerate(refs if isinstance(refs, list) else []):
            sid = ref.get("source_id") if isinstance(ref, dict) else None
            quote = ref.get("quote") if isinstance(ref, dict) else None
            exact = quote.get("exact") if isinstance(quote, dict) else None
            if not isinstance(sid, str) or sid not in texts or not isinstance(exact, str) or not exact.strip():
                continue
            text, snapshot = texts[sid]
            if text is None:
                continue  # the snapshot itself is missing or altered: reported on the source
            subject = f"claim {claim['id']}" if is_valid_id(claim.get("id")) else f"claim #{i}"
            where = json_path(("claims", i, "source_refs", j, "quote", "exact"))
            read = f"the snapshot of source {sid} (retrieved {snapshot.get('retrieved_at')})"
            if not text.strip():
                message = f"{read} has no text ({snapshot.get('content_type') or 'unknown type'}): this quote cannot be checked against it"
                yield Diagnostic("CE526", message, where, "warning", subject)
                continue
            prefix, suffix = quote.get("prefix"), quote.get("suffix")  # type: ignore[union-attr]
            found = anchor(
                text, exact, prefix if isinstance(prefix, str) else None, suffix if isinstance(suffix, str) else None
            )
            if found.outcome == "missing":
                hint = f"; the closest passage there: «{found.closest}»" if found.closest else ""
                yield Diagnostic(
                    "CE523", f"quote not found in {read}{hint}", where, "error", subject, hint=found.closest
                )
            elif found.outcome == "context":
                message = (
                    f"quote found in {read} ({found.count}×), but never with the recorded prefix/suffix; "
                    f"there it reads: «{found.closest}»"
                )
                yield Diagnostic("CE524", message, where, "error", subject, hint=found.closest)
            elif found.outcome == "ambiguous":
                message = (
                    f"quote found {found.count} times in {read}: add quote.prefix or quote.suffix (the text just before "
                    "or after it) to say which passage the review relied on"
                )
                yield Diagnostic("CE525", message, where, "error", subject)
