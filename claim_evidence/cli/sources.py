"""``claim-evidence sources snapshot / verify``: the only commands that use the network (a thin
click layer over :mod:`._sources`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._check.documents import ARTICLE_KEY
from .._core.diagnostics import ClaimEvidenceError
from .._core.hints import terminal_safe
from .._core.report import exit_code, report
from .edit import editable_document, run_edit, store_change
from .options import FORMAT, SITE_CONFIG, refuse_unknown

if TYPE_CHECKING:
    from .._sources.fetchvalues import FetchSettings


@click.group()
def sources() -> None:
    """Snapshot what a review reads, and re-check every source (the only commands that use the network)."""


SNAPSHOT_DIR = click.option(
    "--snapshot-dir",
    type=click.Path(file_okay=False, path_type=str),
    metavar="DIR",
    help="Where snapshots are stored (default: snapshots in the nearest claim-evidence.toml, evidence-snapshots/ beside it).",
)
MAX_FETCH = click.option(
    "--max-bytes",
    "max_fetch",
    type=click.IntRange(min=1),
    default=20_000_000,
    show_default=True,
    help="Largest body fetched, counted after decompression.",
)
TIMEOUT = click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds one source may take in all: connecting, the headers and the whole body, across its redirects and retries "
    "(a single wait for data is at most 20 s of it).",
)
ALLOW_PRIVATE = click.option(
    "--allow-private",
    is_flag=True,
    help="Also follow redirects to other servers on loopback, link-local and private addresses (an intranet). "
    "Without it only the source's own server may be on such an address.",
)


def fetch_settings(max_fetch: int, timeout: float, allow_private: bool) -> FetchSettings:
    """The fetch limits the options ask for: ``--timeout`` is the deadline of a whole source, and bounds
    each wait for the network within it too."""
    from .._sources.fetchvalues import FetchSettings

    return FetchSettings(
        deadline=timeout,
        read_timeout=min(timeout, 20.0),
        connect_timeout=min(timeout, 10.0),
        max_bytes=max_fetch,
        allow_private=allow_private,
    )


@sources.command("snapshot")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--source", "source_ids", multiple=True, metavar="ID", help="Only these sources (repeatable); default all."
)
@SNAPSHOT_DIR
@click.option(
    "--file",
    "local",
    type=click.Path(dir_okay=False, exists=True, path_type=str),
    metavar="PATH",
    help="Record a local copy (a PDF received by mail, a page behind a login) instead of fetching; needs one --source.",
)
@click.option(
    "--retrieved-at",
    metavar="YYYY-MM-DD",
    help="The date to record (default: today — a fetch is the one place the clock is read).",
)
@MAX_FETCH
@TIMEOUT
@ALLOW_PRIVATE
def sources_snapshot(
    file: str,
    source_ids: Sequence[str],
    snapshot_dir: str | None,
    local: str | None,
    retrieved_at: str | None,
    max_fetch: int,
    timeout: float,
    allow_private: bool,
) -> int:
    """Fetch each source of FILE, store its bytes and text, and record a snapshot on the source.

    The body is stored content-addressed (DIR/sha256/ab/cdef….bin, with the
    extracted text beside it as .txt) and the source gets a `snapshot`
    (sha256, retrieved_at, content_type, final_url). The claim fingerprint
    covers the source record, so this undoes the review of every claim citing
    a source whose snapshot changed: the command says which; it never records
    a review. Redirects are followed (not into private address space, unless
    --allow-private), at most 2 requests per host run at once. Exit 1 when a
    source could not be fetched (its record is left as it was).
    """
    from .._snapshots.store import SnapshotStore
    from .._sources.commands import import_snapshot, snapshot_sources, today
    from .._sources.commands import source_ids as known_ids

    folder = _snapshot_folder(file, snapshot_dir)
    document = editable_document(file)
    bundle = document.bundle if document else None
    known = known_ids([(file, bundle)])
    refuse_unknown(
        "'--source'", f"{file} has no source with id", [s for s in source_ids if s not in known], known, "its sources"
    )
    store = SnapshotStore(Path(folder))
    date = retrieved_at or today()
    if local is not None:
        if len(source_ids) != 1:
            raise click.UsageError("--file records one copy: give exactly one --source ID")
        with open(local, "rb") as handle:
            data = handle.read()
        result = run_edit(file, lambda: import_snapshot(bundle, store, source_ids[0], data, local, retrieved_at=date))
    else:
        settings = fetch_settings(max_fetch, timeout, allow_private)
        result = run_edit(
            file, lambda: snapshot_sources(bundle, store, source_ids, retrieved_at=date, settings=settings)
        )
    for taken in result.taken:
        # The detail quotes the network (a Content-Type, a reason): escaped again here, the last guard before a terminal.
        click.echo(
            terminal_safe(
                f"{'SNAPSHOT' if taken.outcome == 'stored' else 'FAILED'} source {taken.source_id} ({taken.url}): {taken.detail}"
            )
        )
    assert document is not None
    store_change(file, document, result.change)
    return 1 if result.failed else 0


@sources.command("verify")
@SITE_CONFIG
@click.option(
    "--source",
    "source_ids",
    multiple=True,
    metavar="ID",
    help="Only the sources with this id (repeatable); default all. An id that none of the checked pages (or the registry) has is an error (exit 2).",
)
@click.option(
    "--page",
    "pages",
    multiple=True,
    metavar="PAGE",
    help="Only the sources of this registered page (repeatable; a path from here or from the config's folder); "
    "default every registered page and the [news] registry, which --page leaves out. A page the config does not "
    "register is an error (exit 2).",
)
@FORMAT
@click.option(
    "--update-snapshots",
    is_flag=True,
    help="Store the new copies of drifted sources in the snapshot folder (no record changes).",
)
@MAX_FETCH
@TIMEOUT
@ALLOW_PRIVATE
def sources_verify(
    config_path: Path | None,
    source_ids: Sequence[str],
    pages: Sequence[str],
    fmt: str,
    update_snapshots: bool,
    max_fetch: int,
    timeout: float,
    allow_private: bool,
) -> int:
    """Fetch every registered source again and say what became of it (for a scheduled job).

    unchanged (same digest) passes; drifted with every quote still present is a
    warning; drifted with a quote gone is an error naming the claims whose
    review no longer holds; dead (404, 410 and other 4xx but 429, a TLS
    failure: a server answered) is an error; refused (a redirect into private
    address space, a content coding not decoded, a partial answer) is an
    error; moved to another scheme, host or port is a warning; unreachable
    (timeouts, the deadline, 5xx, 429 after retries, a name that does not
    resolve, a refused connection: no server answered) is a warning, "not
    judged" — never an error on a flaky day. --source and --page check fewer.
    Writes nothing unless --update-snapshots; never changes a record.
    """
    from .._site.config import find_config
    from .._snapshots.check import snapshot_store
    from .._sources.commands import collect_sources, verify_sources
    from .._sources.commands import source_ids as known_ids

    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    documents = _registered_bundles(path, pages)
    known = known_ids(documents)
    lead, listing = (
        ("the pages given have no source with id", "their sources")
        if pages
        else ("the site has no source with id", "its sources")
    )
    refuse_unknown("'--source'", lead, [s for s in source_ids if s not in known], known, listing)
    cited = collect_sources(documents, set(source_ids))
    store = snapshot_store(_config_snapshots(path))
    if update_snapshots and store is None:
        raise click.UsageError(
            "--update-snapshots needs the snapshot folder; create it with claim-evidence sources snapshot first"
        )
    results = verify_sources(
        cited, store, update=update_snapshots, settings=fetch_settings(max_fetch, timeout, allow_private)
    )
    click.echo(report(results, fmt, noun="source"), nl=False)
    return exit_code(results)


def _snapshot_folder(file: str, given: str | None) -> str:
    if given is not None:
        return given
    from .._site.config import find_config

    found = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    if found is None:
        raise click.UsageError(
            "no snapshot folder: give --snapshot-dir DIR, or run claim-evidence init so that claim-evidence.toml names one"
        )
    folder = _config_snapshots(found)
    assert folder is not None
    return folder


def _config_snapshots(path: Path) -> str | None:
    from .._site.config import load_config

    return load_config(path).options.snapshots


def _registered_bundles(path: Path, pages: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """(name, bundle) of every registered page and every bundle of the news registry; with ``pages``, of
    those registered pages alone."""
    from .._check.documents import load_document as load
    from .._site.config import load_config, registered_pages
    from .._site.runner import display

    config = load_config(path)
    found: list[tuple[str, Any]] = []
    registered = registered_pages(config)
    for page in _chosen_pages(config.root, registered, pages, display(path)) if pages else registered:
        try:
            document = load(page)
        except ClaimEvidenceError:
            continue  # an unreadable or malformed page is the page check's finding
        found.append((display(page), document.bundle))
    if config.news is not None and not pages:
        registry = config.root / config.news.corrections
        try:
            value = load(registry).value
        except ClaimEvidenceError:
            value = None
        for url, entry in value.items() if isinstance(value, dict) else []:
            if isinstance(entry, dict):
                found.append((f"{display(registry)} [{url}]", entry.get(ARTICLE_KEY)))
    return found


def _chosen_pages(root: Path, registered: Sequence[Path], wanted: Sequence[str], config: str) -> list[Path]:
    """The registered pages ``--page`` names (a path from the working folder, or from the config's),
    in the order given; a page the config does not register stops the run, naming those it does."""
    from .._site.runner import display

    by_path = {os.path.realpath(p): p for p in registered}
    chosen: dict[Path, None] = {}
    unknown = []
    for given in wanted:
        match = next(
            (by_path[p] for p in (os.path.realpath(given), os.path.realpath(root / given)) if p in by_path), None
        )
        if match is None:
            unknown.append(given)
        else:
            chosen[match] = None
    refuse_unknown("'--page'", f"{config} registers no page", unknown, [display(p) for p in registered], "its pages")
    return list(chosen)
