"""The ``claim-evidence`` command: a thin click layer over the library.

Commands return exit codes; errors are mapped to codes in one place (:func:`main`):
0 clean, 1 findings, 2 usage error or unreadable input. No traceback reaches a user.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import click

from . import __version__
from ._atomic import atomic_write_bytes
from ._authoring import EditRefused
from ._diagnostics import ClaimEvidenceError, EvidenceValidationError, MalformedInput
from ._documents import ARTICLE_KEY, BundleDocument, check_file, is_page, load_document
from ._fingerprint import article_fingerprint, claim_fingerprint
from ._jsonio import MAX_BYTES
from ._policy import Policy
from ._report import REPORT_FORMATS, exit_code, record_tag, report
from ._bundlefile import Rewrite, read_source, rewrite, write_bundle_file
from ._review import ReviewError, ReviewRequest, record_review, record_subject
from ._schema import schema_text
from ._render import render_evidence
from ._vocabulary import BASES, EVIDENCE_LABELS, LOCALES, METHODS, STATUSES

T = TypeVar("T")

FORMAT = click.option(
    "--format", "fmt", type=click.Choice(REPORT_FORMATS), default="text", show_default=True,
    help="text: FILE:LINE:COL: CODE [CLAIM-ID] message; json: fixed keys; github: workflow annotations; sarif: SARIF 2.1.0.",
)


REQUIRE_QUOTES = click.option(
    "--require-quotes", is_flag=True,
    help="A matched or partial claim whose statement has numbers must quote the passage they come from (CE905 "
    "becomes an error). static-helper and prepublish take this from require_quotes in claim-evidence.toml.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="claim-evidence")
def cli() -> None:
    """Check, fingerprint and review claim-evidence bundles.

    Validation proves that each recorded review still covers the current
    wording, conditions and sources. It does not judge truth, fetch sources,
    or authenticate who reviewed: it is not a signature.
    """


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@FORMAT
@click.option("--strict", is_flag=True, help="Treat warnings (unknown keys, duplicate keys, uncited sources) as failures.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=MAX_BYTES, show_default=True, help="Refuse larger files.")
@REQUIRE_QUOTES
@click.option(
    "--snapshot-dir", type=click.Path(file_okay=False, path_type=str), metavar="DIR",
    help="The site's snapshot folder: check that each recorded snapshot is there unaltered and that every quote is in it "
    "(without it, bundles with snapshots get a note that these checks were skipped).",
)
def validate(files: Sequence[str], fmt: str, strict: bool, max_bytes: int, require_quotes: bool, snapshot_dir: str | None) -> int:
    """Validate bundle files, or article JSON files carrying `claim_evidence`.

    Besides the structure and the review seals, each figure of a matched or
    partial statement must be found, by value, in the passages its references
    quote (`quote.exact`): 300億 where the quote says 30億 is an error (CE317).

    An article (an object with a `claim_evidence` key) is checked against its
    own title/tldr/summary as the reviewed subject. Exit 0 when every file is
    valid, 1 when any has findings (malformed JSON too), 2 when any cannot be
    read. A folder is not taken: name the files (e.g. `site/*.html`), or check a
    whole site with `static-helper DIR` or `claim-evidence prepublish`.
    """
    folders = [f for f in files if os.path.isdir(f)]
    if folders:
        raise click.UsageError(
            f"{folders[0]} is a folder; validate takes files: bundle JSON, article JSON (with claim_evidence) or "
            "static pages (.html), e.g. `claim-evidence validate site/*.html`. For a whole site use "
            "`static-helper DIR` or `claim-evidence prepublish`"
        )
    policy = Policy(require_quotes=require_quotes)
    results = [check_file(f, max_bytes, policy=policy, snapshots=snapshot_dir) for f in files]
    click.echo(report(results, fmt, strict=strict, noun="file"), nl=False)
    return exit_code(results, strict)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", metavar="ID", help="The claim whose review fingerprint to print.")
@click.option("--subject", is_flag=True, help="Print the article's subject fingerprint instead (title/tldr/summary).")
def fingerprint(file: str, claim_id: str | None, subject: bool) -> int:
    """Print a fingerprint as it would be recorded now (stores nothing).

    For reviewers comparing against a stored value; use `review record` to store one.
    """
    document = load_document(file)
    if subject:
        if not isinstance(document.value, dict):
            raise ReviewError("--subject needs an article JSON object")
        click.echo(article_fingerprint(document.value))
        return 0
    if claim_id is None:
        raise click.UsageError("give --claim ID (or --subject)")
    bundle = document.bundle
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    matches = [c for c in claims or [] if isinstance(c, dict) and c.get("id") == claim_id]
    if len(matches) != 1:
        raise ReviewError(f"{file}: no single claim with id {claim_id!r}")
    click.echo(claim_fingerprint(matches[0], bundle.get("sources")))
    return 0


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_ids", multiple=True, metavar="ID", help="Only these claims (repeatable); default all.")
@click.option("--lang", type=click.Choice(LOCALES), default="ja", show_default=True, help="Label language.")
@click.option("--template-dir", type=click.Path(file_okay=False, exists=True, path_type=str), help="Site templates that override the built-in ones.")
def render(file: str, claim_ids: Sequence[str], lang: str, template_dir: str | None) -> int:
    """Print the evidence HTML for a bundle or article file.

    An invalid bundle still renders, but every claim shows as unverified with
    a warning; the exit code is then 1 so scripts notice.
    """
    document = load_document(file)
    html = render_evidence(document.bundle, claim_ids or None, document.subject, lang=lang, template_dir=template_dir)
    click.echo(html)
    return 1 if any(d.is_error for d in document.diagnostics()) else 0


@cli.command()
def schema() -> int:
    """Print the JSON Schema (draft 2020-12) of bundle v1."""
    click.echo(schema_text(), nl=False)
    return 0


@cli.command()
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to copy into (created if missing).")
def assets(out_dir: Path) -> int:
    """Copy the shared stylesheet claim-evidence.css into a site folder."""
    data = resources.files("claim_evidence").joinpath("assets/claim-evidence.css").read_bytes()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "claim-evidence.css"
    if target.exists() and target.read_bytes() == data:
        click.echo(f"{target}: up to date")
        return 0
    atomic_write_bytes(target, data)
    click.echo(f"{target}: written")
    return 0


@cli.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), help="Site settings (default: the nearest claim-evidence.toml).")
@FORMAT
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes for static pages (default: number of cores).")
def prepublish(config_path: Path | None, fmt: str, jobs: int | None) -> int:
    """Gate a publish: check every registered target; never writes.

    Reads claim-evidence.toml at the site root: `pages` (static pages, checked
    like static-helper does) and the `[news]` table (the correction registry and
    the derived outputs: day-files, list pages, data.json, homepage JSON). Every
    derived copy of a registered article must equal its canonical record.
    Pages and items carrying evidence that are not registered are listed as
    unregistered and never count as passing.

    Exit 0 when every target passes, 1 on any finding, 2 on a config or usage
    error or unreadable input.
    """
    from ._prepublish import find_site_config, run_prepublish

    path = config_path or find_site_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    results = run_prepublish(path, jobs or os.cpu_count() or 1)
    click.echo(report(results, fmt, noun="target", headers=True), nl=False)
    return exit_code(results)


@cli.group()
def claim() -> None:
    """Add claim records and change their fields. Never touches a review seal.

    FILE is a static page (.html), a bundle JSON or an article JSON, as for
    `review record`. Each command prints the diff of its edit, writes it
    atomically (key order, indentation, line endings and BOM kept) and says
    which reviews the edit undid. Run `review record` after reading the sources.
    """


@claim.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--id", "claim_id", metavar="ID", help="The claim id: on a page, the data-claim-id of the marked element.")
@click.option("--all", "add_all", is_flag=True, help="On a page: every element with data-claim-id that has no record yet.")
@click.option("--statement", metavar="TEXT", help="For a bundle or article JSON only: the exact sentence (a page's is read from the element).")
@click.option("--label", metavar="TEXT", help="Short display label (default この主張).")
@click.option("--basis", type=click.Choice(BASES), help="What the claim rests on; without it the record is incomplete (CE303) until `claim set --basis`.")
@click.option("--evidence-label", type=click.Choice([e for e in EVIDENCE_LABELS if e]), help="Information kind (not a review status).")
def claim_add(
    file: str, claim_id: str | None, add_all: bool, statement: str | None, label: str | None, basis: str | None, evidence_label: str | None
) -> int:
    """Add an unverified claim with no sources and no review.

    On a page, mark the sentence first (<p data-claim-id="ID">…</p>): the
    statement is the element's visible text exactly as the page check reads it,
    so it cannot differ from the page. When the page has none, an empty evidence
    slot is added right after the element and the bundle script before </body>;
    nothing else on the page changes. Then: `source add`, `ref add`, read the
    source, `review record`, `static-helper --write`.
    """
    from ._authoring import add_claim
    from ._scaffold import add_page_claims

    if (claim_id is None) == (not add_all):
        raise click.UsageError("give --id ID, or --all for every marked element without a record")
    if is_page(file):
        if statement is not None:
            raise click.UsageError("--statement is for bundle and article JSON files; a page's statement is read from its element")
        text, bom = read_source(file)
        page = _judged(file, lambda: add_page_claims(text, file, None if add_all else [claim_id or ""], label=label, basis=basis, evidence_label=evidence_label))
        return _apply(Rewrite(file, text, page.text, bom), page.change.notes)
    if add_all or statement is None:
        raise click.UsageError("for a bundle or article JSON give --id ID and --statement TEXT (--all reads marked elements of a page)")
    document = _authoring_document(file, allow_new=True)
    bundle = None if document is None else document.bundle
    change = _judged(file, lambda: add_claim(bundle, claim_id or "", statement, label=label, basis=basis, evidence_label=evidence_label))
    return _store(file, document, change)


@claim.command("set")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim to change.")
@click.option("--status", type=click.Choice(STATUSES), help="Status against the sources (matched, partial and conflict need a review record).")
@click.option("--condition", "conditions", multiple=True, metavar="TEXT", help="Replace the conditions with these (repeatable).")
@click.option("--no-conditions", is_flag=True, help="Remove every condition.")
@click.option("--as-of", metavar="YYYY-MM-DD", help="The time point the statement is about ('' removes it).")
@click.option("--uncertainty", metavar="TEXT", help="What the sources do not establish ('' removes it).")
@click.option("--label", metavar="TEXT", help="Display label ('' removes it).")
@click.option("--basis", type=click.Choice(BASES), help="What the claim rests on.")
@click.option("--evidence-label", type=click.Choice(EVIDENCE_LABELS), help="Information kind ('' for none).")
def claim_set(
    file: str, claim_id: str, status: str | None, conditions: Sequence[str], no_conditions: bool, as_of: str | None,
    uncertainty: str | None, label: str | None, basis: str | None, evidence_label: str | None,
) -> int:
    """Change a claim's fields; say which review this undoes.

    The statement, basis, evidence label, conditions, time point, uncertainty
    and sources are covered by the review's fingerprint: changing one undoes
    the review until `review record` is run again. Status and label are not
    covered. On a page, only the bundle script changes.
    """
    from ._authoring import _UNSET, set_claim

    if conditions and no_conditions:
        raise click.UsageError("give --condition TEXT (repeatable) or --no-conditions, not both")
    changes = {"status": status, "basis": basis, "evidence_label": evidence_label}
    if not (conditions or no_conditions or any(v is not None for v in (*changes.values(), as_of, uncertainty, label))):
        raise click.UsageError("nothing to change: give at least one of --status, --condition, --no-conditions, --as-of, --uncertainty, --label, --basis, --evidence-label")
    document = _authoring_document(file)
    change = _judged(file, lambda: set_claim(
        document.bundle if document else None, claim_id, status=status, basis=basis, evidence_label=evidence_label,
        conditions=[] if no_conditions else (list(conditions) or None),
        as_of=_UNSET if as_of is None else (as_of or None),
        uncertainty=_UNSET if uncertainty is None else (uncertainty or None),
        label=_UNSET if label is None else (label or None),
    ))
    return _store(file, document, change)


@cli.group()
def source() -> None:
    """Add source records (what a claim can cite)."""


@source.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--id", "source_id", required=True, metavar="ID", help="Unique id, cited by `ref add --source ID`.")
@click.option("--url", required=True, metavar="URL", help="Direct http(s) URL of the source (nothing is fetched).")
@click.option("--publisher", required=True, metavar="TEXT", help="Who published it.")
@click.option("--title", required=True, metavar="TEXT", help="Its title.")
@click.option("--published-at", metavar="YYYY-MM-DD", help="Its publication date.")
def source_add(file: str, source_id: str, url: str, publisher: str, title: str, published_at: str | None) -> int:
    """Add a source to FILE's bundle (a page needs a claim first: `claim add`).

    Refuses a duplicate or invalid id, an unsafe URL (not http/https, with
    credentials, …) and a date that does not exist, with validate's messages.
    """
    from ._authoring import add_source

    document = _authoring_document(file)
    bundle = document.bundle if document else None
    return _store(file, document, _judged(file, lambda: add_source(bundle, source_id, url, publisher, title, published_at)))


@cli.group()
def ref() -> None:
    """Add references: which section of which source supports a claim."""


@ref.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim.")
@click.option("--source", "source_id", required=True, metavar="ID", help="The source it cites (added with `source add`).")
@click.option("--section", required=True, metavar="TEXT", help="The section of the source that was read.")
@click.option("--supports", required=True, metavar="TEXT", help="What that section supports.")
@click.option("--quote", metavar="TEXT", help='The passage relied on, copied from the source (stored as quote.exact); every figure of a matched or partial statement must be in a quote.')
def ref_add(file: str, claim_id: str, source_id: str, section: str, supports: str, quote: str | None) -> int:
    """Cite a source for a claim, with the passage relied on.

    A reference is covered by the claim's review fingerprint: adding one to a
    reviewed claim undoes that review (the command says so) until `review
    record` is run again after reading the source.
    """
    from ._authoring import add_ref

    document = _authoring_document(file)
    bundle = document.bundle if document else None
    return _store(file, document, _judged(file, lambda: add_ref(bundle, claim_id, source_id, section, supports, quote)))


def _authoring_document(file: str, allow_new: bool = False) -> BundleDocument | None:
    """The file to edit; ``None`` for a bundle JSON that does not exist yet (``claim add`` creates it)."""
    from ._authoring import AuthoringError

    if allow_new and not is_page(file) and not os.path.lexists(file):
        return None
    try:
        document = load_document(file)
    except MalformedInput as exc:
        if exc.diagnostic.code == "SH101" and "(found 0)" in exc.diagnostic.message:
            raise AuthoringError(f"{file} has no evidence bundle yet: add a claim first (claim-evidence claim add {file} --id ID)") from None
        raise
    value = document.value
    if isinstance(value, dict) and not ({ARTICLE_KEY, "version", "sources", "claims"} & value.keys()) and ({"title", "tldr", "summary"} & value.keys()):
        # An article item without evidence yet: its bundle goes under claim_evidence.
        return BundleDocument(document.path, {**value, ARTICLE_KEY: None}, document.duplicate_keys, document.text)
    return document


def _judged(file: str, edit: Callable[[], T]) -> T:
    """Run an edit; its refusal names the file, at the JSON path of the bundle inside it."""
    try:
        return edit()
    except EditRefused as exc:
        prefix = "$.claim_evidence" if not is_page(file) and _is_article(file) else "$"
        raise EditRefused([replace(d, file=file, path=prefix + d.path[1:]) for d in exc.diagnostics]) from None


def _is_article(file: str) -> bool:
    try:
        document = _authoring_document(file, allow_new=True)
    except ClaimEvidenceError:
        return False
    return document is not None and document.is_article


def _store(file: str, document: BundleDocument | None, change: Any) -> int:
    """Write ``change.bundle`` back into ``file`` the way ``review record`` does, with its diff."""
    if document is None:
        return _apply(Rewrite(file, "", json.dumps(change.bundle, ensure_ascii=False, indent=2) + "\n"), change.notes)
    notes = tuple(change.notes)
    if document.is_article and not change.bundle.get("subject_fingerprint"):
        notes += (f"the article's title, tldr and summary are not sealed yet (CE105): claim-evidence review subject {file}",)
    return _apply(rewrite(file, change.bundle, article=document.is_article), notes)


def _apply(edit: Rewrite, notes: Sequence[str]) -> int:
    click.echo(edit.diff(), nl=False)
    click.echo(f"{edit.path}: {'written' if edit.write() else 'no change'}")
    for note in notes:
        click.echo(f"note: {note.replace('FILE', edit.path)}")
    return 0


@cli.group()
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
    document = _authoring_document(file)
    bundle = document.bundle if document else None
    store = SnapshotStore(Path(folder))
    date = retrieved_at or today()
    if local is not None:
        if len(source_ids) != 1:
            raise click.UsageError("--file records one copy: give exactly one --source ID")
        with open(local, "rb") as handle:
            data = handle.read()
        result = _judged(file, lambda: import_snapshot(bundle, store, source_ids[0], data, local, retrieved_at=date))
    else:
        settings = FetchSettings(read_timeout=timeout, connect_timeout=min(timeout, 10.0), max_bytes=max_fetch)
        result = _judged(file, lambda: snapshot_sources(bundle, store, source_ids, retrieved_at=date, settings=settings))
    for taken in result.taken:
        click.echo(f"{'SNAPSHOT' if taken.outcome == 'stored' else 'FAILED'} source {taken.source_id} ({taken.url}): {taken.detail}")
    assert document is not None
    _store(file, document, result.change)
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


@cli.group()
def review() -> None:
    """Record a review: the only commands that store fingerprints."""


@review.command("record")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="Claim you reviewed.")
@click.option("--method", required=True, type=click.Choice(METHODS), help="How you reviewed it.")
@click.option("--checked-at", required=True, metavar="YYYY-MM-DD", help="Date you read the sources (never taken from the clock).")
@click.option("--note", default=None, help="Scope of the review (照合範囲). Omit to keep the existing note; '' removes it.")
@click.option("--status", type=click.Choice(STATUSES), default=None, help="Also set the claim's status (otherwise kept).")
@REQUIRE_QUOTES
def review_record(
    file: str, claim_id: str, method: str, checked_at: str, note: str | None, status: str | None, require_quotes: bool
) -> int:
    """Seal a claim after reading its sources: store date, method and fingerprint.

    FILE is a bundle JSON, an article JSON, or a static page (.html): there
    only the JSON inside script#claim-evidence-data changes; run
    `static-helper --write` next to re-render the evidence slot. The file is
    rewritten atomically, keeping key order, indentation and line endings.
    Refuses unknown claims, invalid dates and claims whose record has other
    errors, such as a figure of the statement that no quote has (CE317): fix
    the statement or paste the passage into quote.exact, then record again.
    """
    request = ReviewRequest(claim_id, method, checked_at, note, status)
    document = load_document(file)
    try:
        updated = record_review(document.bundle, request, policy=Policy(require_quotes=require_quotes))
    except EvidenceValidationError as exc:
        for d in exc.diagnostics:
            click.echo(f"claim-evidence: {file}:{document.prefixed(d.path)}: {d.code} {record_tag(d)}{d.message}", err=True)
        click.echo(f"claim-evidence: review of {claim_id} not recorded: fix the record first; {file} is unchanged", err=True)
        return 1
    changed = write_bundle_file(file, updated)
    click.echo(f"{file}: review of {claim_id} recorded" + ("" if changed else " (no change)"))
    return 0


@review.command("subject")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
def review_subject(file: str) -> int:
    """Seal an article's bundle to its current title, tldr and summary."""
    document = load_document(file)
    if not document.is_article:
        raise ReviewError(f"{file}: not an article (no claim_evidence key)")
    changed = write_bundle_file(file, record_subject(document.bundle, document.value))
    click.echo(f"{file}: subject fingerprint recorded" + ("" if changed else " (no change)"))
    return 0


@cli.command()
@click.argument("folder", metavar="[DIR]", required=False, default=".", type=click.Path(path_type=str))
def init(folder: str) -> int:
    """Write a starter claim-evidence.toml for the site in DIR (default: here).

    It lists the HTML pages found as `pages` globs (hidden folders,
    node_modules, venv and the cache skipped; `**/*.html` past 8 folders),
    guesses `lang` from the pages' <html lang> (ja or en; otherwise ja), sets
    `stylesheet` to /assets/claim-evidence.css and copies that stylesheet to
    DIR/assets/. It never overwrites: an existing claim-evidence.toml is
    refused (exit 2; edit it instead), and a stylesheet already there that
    differs is left alone and reported.

    Next: link the stylesheet from every page with evidence, mark a sentence
    with data-claim-id, add the claim, its source and the reference (claim add,
    source add, ref add), read the source and record the review (review
    record), then run static-helper --write and claim-evidence prepublish; the
    exact commands are printed after a run.
    """
    from ._init import init_site

    for line in init_site(folder).lines():
        click.echo(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; the one place that turns exceptions into exit codes."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="claim-evidence", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return 2
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 2
    except EditRefused as exc:  # an authoring edit that would leave errors: a wrong request, exit 2
        for d in exc.diagnostics:
            click.echo(f"claim-evidence: {d.file + ':' if d.file else ''}{d.path}: {d.code} {record_tag(d)}{d.message}", err=True)
        click.echo("claim-evidence: the edit was refused; nothing was written", err=True)
        return 2
    except EvidenceValidationError as exc:
        for d in exc.diagnostics:
            click.echo(f"claim-evidence: {d.path}: {d.code} {d.message}", err=True)
        return 1
    except ClaimEvidenceError as exc:
        click.echo(f"claim-evidence: error: {exc}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for a user; keep it for developers
        if os.environ.get("CLAIM_EVIDENCE_DEBUG"):
            raise
        click.echo(f"claim-evidence: internal error: {type(exc).__name__}: {exc} (set CLAIM_EVIDENCE_DEBUG=1 for details)", err=True)
        return 2
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
