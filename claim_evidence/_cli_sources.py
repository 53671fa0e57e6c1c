"""``claim-evidence sources snapshot / verify``: the only commands that use the network (a thin
click layer over :mod:`._sources`)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ._cli_edit import editable_document, run_edit, store_change
from ._cli_options import FORMAT
from ._diagnostics import ClaimEvidenceError
from ._documents import ARTICLE_KEY
from ._report import exit_code, report


@click.group()
def sources() -> None:
    """Snapshot what a review reads, and re-check every source (the only commands that use the network)."""


SNAPSHOT_DIR = click.option(
    "--snapshot-dir", type=click.Path(file_okay=False, path_type=str), metavar="DIR",
    help="Where snapshots are stored (default: snapshots in the nearest claim-evidence.toml, evidence-snapshots/ beside it).",
)
MAX_FETCH = click.option("--max-bytes", "max_fetch", type=click.IntRange(min=1), default=20_000_000, show_default=True, help="Largest body fetched.")
TIMEOUT = click.option("--timeout", type=click.FloatRange(min=0.1), default=20.0, show_default=True, help="Seconds to wait for a response.")


@sources.command("snapshot")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--source", "source_ids", multiple=True, metavar="ID", help="Only these sources (repeatable); default all.")
@SNAPSHOT_DIR
@click.option("--file", "local", type=click.Path(dir_okay=False, exists=True, path_type=str), metavar="PATH",
              help="Record a local copy (a PDF received by mail, a page behind a login) instead of fetching; needs one --source.")
@click.option("--retrieved-at", metavar="YYYY-MM-DD", help="The date to record (default: today — a fetch is the one place the clock is read).")
@MAX_FETCH
@TIMEOUT
def sources_snapshot(
    file: str, source_ids: Sequence[str], snapshot_dir: str | None, local: str | None, retrieved_at: str | None, max_fetch: int, timeout: float
) -> int:
    """Fetch each source of FILE, store its bytes and text, and record a snapshot on the source.

    The body is stored content-addressed (DIR/sha256/ab/cdef….bin, with the
    extracted text beside it as .txt) and the source gets a `snapshot`
    (sha256, retrieved_at, content_type, final_url). The claim fingerprint
    covers the source record, so this undoes the review of every claim citing
    a source whose snapshot changed: the command says which; it never records
    a review. Redirects are followed, at most 2 requests per host run at once.
    Exit 1 when a source could not be fetched (its record is left as it was).
    """
    from ._fetch import FetchSettings
    from ._snapstore import SnapshotStore
    from ._sources import import_snapshot, snapshot_sources, today

    folder = _snapshot_folder(file, snapshot_dir)
    document = editable_document(file)
    bundle = document.bundle if document else None
    store = SnapshotStore(Path(folder))
    date = retrieved_at or today()
    if local is not None:
        if len(source_ids) != 1:
            raise click.UsageError("--file records one copy: give exactly one --source ID")
        with open(local, "rb") as handle:
            data = handle.read()
        result = run_edit(file, lambda: import_snapshot(bundle, store, source_ids[0], data, local, retrieved_at=date))
    else:
        settings = FetchSettings(read_timeout=timeout, connect_timeout=min(timeout, 10.0), max_bytes=max_fetch)
        result = run_edit(file, lambda: snapshot_sources(bundle, store, source_ids, retrieved_at=date, settings=settings))
    for taken in result.taken:
        click.echo(f"{'SNAPSHOT' if taken.outcome == 'stored' else 'FAILED'} source {taken.source_id} ({taken.url}): {taken.detail}")
    assert document is not None
    store_change(file, document, result.change)
    return 1 if result.failed else 0


@sources.command("verify")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), help="Site settings (default: the nearest claim-evidence.toml).")
@FORMAT
@click.option("--update-snapshots", is_flag=True, help="Store the new copies of drifted sources in the snapshot folder (no record changes).")
@MAX_FETCH
@TIMEOUT
def sources_verify(config_path: Path | None, fmt: str, update_snapshots: bool, max_fetch: int, timeout: float) -> int:
    """Fetch every registered source again and say what became of it (for a scheduled job).

    unchanged (same digest) passes; drifted with every quote still present is a
    warning; drifted with a quote gone is an error naming the claims whose
    review no longer holds; dead (404, 410, DNS or TLS failure) is an error;
    moved to another host is a warning; unreachable (timeouts, 5xx, 429 after
    retries) is a warning, "not judged" — never an error on a flaky day.
    Writes nothing unless --update-snapshots; never changes a record.
    """
    from ._fetch import FetchSettings
    from ._prepublish import find_site_config
    from ._snapcheck import snapshot_store
    from ._sources import collect_sources, verify_sources

    path = config_path or find_site_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    documents = _registered_bundles(path)
    cited = collect_sources(documents)
    store = snapshot_store(_config_snapshots(path))
    if update_snapshots and store is None:
        raise click.UsageError("--update-snapshots needs the snapshot folder; create it with claim-evidence sources snapshot first")
    settings = FetchSettings(read_timeout=timeout, connect_timeout=min(timeout, 10.0), max_bytes=max_fetch)
    results = verify_sources(cited, store, update=update_snapshots, settings=settings)
    click.echo(report(results, fmt, noun="source"), nl=False)
    return exit_code(results)


def _snapshot_folder(file: str, given: str | None) -> str:
    if given is not None:
        return given
    from ._site import find_config

    found = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    if found is None:
        raise click.UsageError("no snapshot folder: give --snapshot-dir DIR, or run claim-evidence init so that claim-evidence.toml names one")
    folder = _config_snapshots(found)
    assert folder is not None
    return folder


def _config_snapshots(path: Path) -> str | None:
    from ._site import load_config

    return load_config(path).options.snapshots


def _registered_bundles(path: Path) -> list[tuple[str, Any]]:
    """(name, bundle) of every registered page and every bundle of the news registry."""
    from ._documents import load_document as load
    from ._runner import display
    from ._site import load_config, registered_pages

    config = load_config(path)
    found: list[tuple[str, Any]] = []
    for page in registered_pages(config):
        try:
            document = load(page)
        except ClaimEvidenceError:
            continue  # an unreadable or malformed page is the page check's finding
        found.append((display(page), document.bundle))
    if config.news is not None:
        registry = config.root / config.news.corrections
        try:
            value = load(registry).value
        except ClaimEvidenceError:
            value = None
        for url, entry in (value.items() if isinstance(value, dict) else []):
            if isinstance(entry, dict):
                found.append((f"{display(registry)} [{url}]", entry.get(ARTICLE_KEY)))
    return found
