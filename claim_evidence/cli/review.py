"""The ``claim-evidence`` commands that read a record's seal or write one: ``fingerprint`` (print a
fingerprint as it would be recorded now) and the ``review`` group: ``record`` and ``subject``, the
only commands that store fingerprints, ``diff`` (what changed since a seal) and ``queue`` (the claims
whose review needs redoing), which only read. Apart from ``main_command`` so that each module of the CLI
stays short; registered on the same group there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from .._check.bundlefile import rewrite, write_bundle_file
from .._check.documents import BundleDocument, is_page, is_registry, load_document
from .._check.review import ReviewError, ReviewRequest, record_subject, seal_review
from .._check.sealstore import SealStore
from .._core.diagnostics import Diagnostic, EvidenceValidationError, MalformedInput, PathParts, json_path
from .._core.hints import found
from .._core.jsonpos import placed
from .._core.report import finding_line
from .._record.fingerprint import ARTICLE_FIELDS, article_fingerprint, claim_fingerprint
from .._record.policy import Policy
from .._record.signature import Reviews, signature_of
from .._record.vocabulary import METHODS, STATUSES
from .._site.config import load_config
from .options import REQUIRE_QUOTES, refuse_unknown

# A value `fingerprint` reads has the wrong JSON type (SCHEMA.md, "Input errors").
FINGERPRINT_INPUT = "CE006"
KEY = click.option(
    "--key",
    metavar="PATH",
    default=None,
    help="The SSH key to sign with (default: git's user.signingkey when gpg.format is ssh, else ~/.ssh/id_ed25519).",
)
SIGNER = click.option(
    "--signer",
    metavar="PRINCIPAL",
    default=None,
    help="The principal to sign as (default: the one the site's allowed_signers lists for the key).",
)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", metavar="ID", help="The claim whose review fingerprint to print.")
@click.option(
    "--subject",
    is_flag=True,
    help="Print a news item's subject fingerprint instead (its title/tldr/summary): FILE must be an "
    "article JSON with claim_evidence. A static page or a bundle has no subject.",
)
def fingerprint(file: str, claim_id: str | None, subject: bool) -> int:
    """Print a fingerprint as it would be recorded now (stores nothing).

    For reviewers comparing against a stored value; use `review record` to store one.
    A value it reads that has the wrong JSON type (claims that is not an array,
    a statement that is a number) is refused (CE006, exit 1): read another way,
    it would hash to the fingerprint of another record.
    """
    document = load_document(file)
    if subject:
        if not document.is_article:
            kind = "a static page" if is_page(file) else "a bundle, not an article"
            raise click.UsageError(
                f"--subject prints the subject fingerprint of a news item: an article JSON whose claim_evidence bundle "
                f"seals its title, tldr and summary. {file} is {kind}, which has no subject: give --claim ID"
            )
        for key in ARTICLE_FIELDS:
            if document.value.get(key) is not None:
                _read_as(document, (key,), document.value[key], str)
        click.echo(article_fingerprint(document.value))
        return 0
    if claim_id is None:
        raise click.UsageError("give --claim ID (or --subject)")
    claim, sources = _fingerprinted(document, file, claim_id)
    click.echo(claim_fingerprint(claim, sources))
    return 0


_KINDS: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}


def _read_as(document: BundleDocument, parts: PathParts, value: Any, expected: type, name: str = "{path}") -> None:
    """Refuse (CE006, exit 1 like malformed JSON) a value ``fingerprint`` reads that is not of the JSON type
    it reads it as: 5 would be read as "5", a sources object as no sources, and the fingerprint would
    be that of another record."""
    if isinstance(value, expected):
        return
    path = json_path(parts)
    message = (
        f"{name.format(path=path)} must be {_KINDS[expected]} (found {found(value, ('string',))}): no fingerprint "
        f"printed; fix it first (claim-evidence validate {document.path} lists every problem)"
    )
    problem = Diagnostic(FINGERPRINT_INPUT, message, path, file=document.path)
    raise MalformedInput(placed([problem], document.text, document.origin)[0] if document.text else problem)


def _fingerprinted(document: BundleDocument, file: str, claim_id: str) -> tuple[dict[str, Any], Any]:
    """The claim ``--claim`` names and the bundle's sources, each value the fingerprint reads checked for its type."""
    at = document.prefix
    bundle = document.bundle
    _read_as(document, at, bundle, dict, "the bundle ({path})")
    for key in ("claims", "sources"):
        if key in bundle:
            _read_as(document, (*at, key), bundle[key], list)
    claims = bundle.get("claims") or []
    matches = [i for i, c in enumerate(claims) if isinstance(c, dict) and c.get("id") == claim_id]
    if not matches:
        refuse_unknown("'--claim'", f"{file} has no claim with id", [claim_id], document.claim_ids(), "its claims")
    if len(matches) > 1:
        raise ReviewError(f"{file}: {len(matches)} claims have the id {claim_id!r}; give each its own id")
    index = matches[0]
    claim = claims[index]
    if "statement" in claim:
        _read_as(document, (*at, "claims", index, "statement"), claim["statement"], str)
    refs = claim.get("source_refs", [])
    _read_as(document, (*at, "claims", index, "source_refs"), refs, list)
    for number, source_ref in enumerate(refs):
        _read_as(document, (*at, "claims", index, "source_refs", number), source_ref, dict)
        if "source_id" in source_ref:
            _read_as(document, (*at, "claims", index, "source_refs", number, "source_id"), source_ref["source_id"], str)
    return claim, bundle.get("sources")


@click.group()
def review() -> None:
    """Record a review (record, subject: the only commands that store fingerprints), see what changed since
    one (diff), list the claims waiting for one (queue)."""


@review.command("record")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="Claim you reviewed.")
@click.option("--method", required=True, type=click.Choice(METHODS), help="How you reviewed it.")
@click.option(
    "--checked-at", required=True, metavar="YYYY-MM-DD", help="Date you read the sources (never taken from the clock)."
)
@click.option(
    "--note", default=None, help="Scope of the review (照合範囲). Omit to keep the existing note; '' removes it."
)
@click.option(
    "--status", type=click.Choice(STATUSES), default=None, help="Also set the claim's status (otherwise kept)."
)
@click.option(
    "--review-by",
    metavar="YYYY-MM-DD",
    default=None,
    help="Re-review by this date, after --checked-at (overrides the [freshness] policy). Omit to keep one still ahead of --checked-at; '' removes it.",
)
@REQUIRE_QUOTES
@click.option(
    "--strict",
    is_flag=True,
    help="Refuse (exit 1, FILE unchanged) while a warning is pending on the claim (CE904/CE905, a snapshot "
    "warning): fix it or quote the passage first. Notes never refuse.",
)
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date --checked-at may not be later than (CE406); default: SOURCE_DATE_EPOCH (its UTC date), else "
    "the clock's UTC date, each with a day's grace for time zones ahead of UTC.",
)
@click.option(
    "--sign/--no-sign",
    "do_sign",
    default=None,
    help="Also sign the review with your SSH key (ssh-keygen -Y sign, namespace claim-evidence): the claim id, "
    "fingerprint, status, checked_at, method, review_by and signer. Default: sign when the review it replaces "
    "was signed (--no-sign records it unsigned).",
)
@KEY
@SIGNER
def review_record(
    file: str,
    claim_id: str,
    method: str,
    checked_at: str,
    note: str | None,
    status: str | None,
    review_by: str | None,
    require_quotes: bool,
    strict: bool,
    today: str | None,
    do_sign: bool | None,
    key: str | None,
    signer: str | None,
) -> int:
    """Seal a claim after reading its sources: store date, method and fingerprint.

    FILE is a bundle JSON, an article JSON, a static page (.html), or the
    Markdown or reST source a finding names (MkDocs, Sphinx, Pelican): in a
    page or a source only the JSON inside script#claim-evidence-data changes,
    its indentation kept; run `static-helper --write` (or build) next to
    re-render the evidence slot. The file is
    rewritten atomically, keeping key order, indentation and line endings.
    Refuses unknown claims, invalid dates, a --checked-at after the build date
    (CE406), a --review-by not after --checked-at (CE407), and a bundle with
    other errors (validate's, in this claim, a source or the top level), such
    as a figure of the statement that no quote has (CE317), or (with the
    snapshot folder claim-evidence.toml names) a snapshot missing or altered
    or a quote not in it (CE521-CE525): fix the statement or paste the
    passage into quote.exact, then record again.

    Prints the diff of what it wrote, then each warning or note still
    pending on the claim (numbers without a quoted passage, CE904/CE905; a
    snapshot warning or note on a source it cites), as FILE:PATH: CODE lines;
    --strict refuses while a warning is pending. Keeps the sealed version in
    the seal store (seals.sqlite3 in the site's cache folder) for `review
    diff`, where git history has none.

    With --sign, the review is also signed (verification.signature): by
    --key, else the key git signs with (user.signingkey under gpg.format
    ssh), else ~/.ssh/id_ed25519, as the principal the site's
    allowed_signers ([reviews]) lists for that key (or --signer); a key
    that file does not allow is refused, FILE unchanged. A signed review
    is signed again when recorded again, unless --no-sign.

    FILE may also be the news correction registry: the article whose
    claim_evidence has the claim --claim names is reviewed (an id two
    articles have is refused), the rest of the file kept as it was.
    """
    from .._record.freshness import build_date
    from .._site.config import find_config
    from .._snapshots.check import snapshot_store

    request = ReviewRequest(claim_id, method, checked_at, note, status, review_by)
    day = build_date(today)  # the date a review cannot be later than: the build date review ages count to
    document = _article_of(file, claim_id)
    config = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    site = load_config(config).options if config is not None else None
    store = snapshot_store(site.snapshots) if site is not None else None
    reviews = site.policy.reviews if site is not None else None
    try:
        sealed = seal_review(
            document.bundle, request, policy=Policy(require_quotes=require_quotes), build_date=day, snapshots=store
        )
        if do_sign is None:  # a signed review is signed again when it is recorded again
            do_sign = any(signature_of(c) is not None for c in _claims_with_id(document.bundle, claim_id))
        if do_sign:
            bundle = _signed(sealed.bundle, sealed.index, file, key, signer, reviews)
            sealed = replace(sealed, bundle=bundle)
    except EvidenceValidationError as exc:
        return _not_recorded(file, document, claim_id, exc.diagnostics, "fix the errors above first")
    pending = [(d, f"{file}:{document.prefixed(d.path)}") for d in sealed.pending]
    if strict and any(d.fails(strict=True) for d, _ in pending):
        warned = [d for d in sealed.pending if d.fails(strict=True)]
        return _not_recorded(file, document, claim_id, warned, "--strict refuses while a warning is pending on it")
    edit = rewrite(file, sealed.bundle, at=document.at)
    click.echo(edit.diff(), nl=False)
    changed = edit.write()
    seal_store(config).put(sealed.bundle["claims"][sealed.index], sealed.bundle.get("sources"))
    by = _signer_of(sealed.bundle["claims"][sealed.index])
    click.echo(
        f"{file}: review of {claim_id} recorded"
        + (f", signed by {by}" if by else "")
        + ("" if changed else " (no change)")
    )
    for d, where in pending:
        click.echo(finding_line(d, where))
    return 0


def _article_of(file: str, claim_id: str) -> BundleDocument:
    """FILE's document; in a correction registry, the one of the article with the claim (an id none of
    its articles has: a usage error offering the registry's claim ids)."""
    document = load_document(file).with_article_of(claim_id)
    if not document.at and is_registry(document.value):
        refuse_unknown("'--claim'", f"{file} has no claim with id", [claim_id], document.claim_ids(), "its claims")
    return document


def _signed(
    bundle: dict[str, Any], index: int, file: str, key: str | None, signer: str | None, reviews: Reviews | None
) -> dict[str, Any]:
    from .._check.reviewsign import default_key, principal_for, sign_claim

    key = os.path.expanduser(key) if key else default_key(str(Path(file).resolve().parent))
    return sign_claim(bundle, index, key, signer or principal_for(key, reviews), reviews, file)


def _claims_with_id(bundle: Any, claim_id: str) -> list[Any]:
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    return [c for c in claims if isinstance(c, dict) and c.get("id") == claim_id] if isinstance(claims, list) else []


def _signer_of(claim: dict[str, Any]) -> str | None:
    found = signature_of(claim)
    return found.get("signer") if found is not None else None


def _not_recorded(file: str, document: BundleDocument, claim_id: str, found: Sequence[Diagnostic], why: str) -> int:
    for d in found:
        click.echo(f"claim-evidence: {finding_line(d, f'{file}:{document.prefixed(d.path)}')}", err=True)
    click.echo(f"claim-evidence: review of {claim_id} not recorded: {why}; {file} is unchanged", err=True)
    return 1


def seal_store(config: Path | None) -> SealStore:
    """The seal store of the site ``config`` names (in its cache folder, beside it), else of the user's
    cache folder (``$XDG_CACHE_HOME/claim-evidence``, else ``~/.cache/claim-evidence``): the same folders
    ``static-helper`` caches in, so a deploy of the site never carries it. Content-addressed, so one
    store serves every file."""
    import os

    from .._check.sealstore import FILE_NAME
    from .._site.config import CACHE_DIR_NAME

    if config is not None:
        return SealStore(config.resolve().parent / CACHE_DIR_NAME / FILE_NAME)
    base = os.environ.get("XDG_CACHE_HOME", "")
    home = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return SealStore(home / "claim-evidence" / FILE_NAME)


@review.command("diff")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim whose changes to show.")
def review_diff_command(file: str, claim_id: str) -> int:
    """Show what changed in a claim's covered fields since its review.

    Field by field — statement, evidence_label, basis, conditions, as_of,
    uncertainty, measurement, then each cited reference and source record —
    the reviewed value (-), today's (+) and a character diff (~: [-deleted-]
    {+inserted+}), values as JSON. The reviewed version is the newest of the
    last 30 commits of FILE in git (renames followed) whose claim hashes to
    the recorded fingerprint, else the one `review record` kept in the seal
    store (seals.sqlite3 in the site's cache folder); both are verified by
    that hash. Reads only; never the network.

    Exit 0 when it shows what changed, or says the review still covers the
    record; 1 when the claim has no review or the reviewed version is in
    neither place (it says where it looked); 2 for an unknown claim or an
    unreadable FILE.
    """
    from .._check.reviewdiff import CHANGED, COVERED, diff_lines, review_diff
    from .._site.config import find_config

    document = load_document(file)
    claim, sources = _fingerprinted(document, file, claim_id)
    config = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    store = seal_store(config)
    result = review_diff(file, claim, sources, store, _store_name(store))
    for line in diff_lines(result):
        click.echo(line)
    return 0 if result.outcome in (CHANGED, COVERED) else 1


def _store_name(store: SealStore) -> str:
    from .._site.runner import display

    return display(store.path)


@review.command("queue")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The site's claim-evidence.toml (default: the nearest one here or above).",
)
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date review ages count to; default: SOURCE_DATE_EPOCH (its UTC date), else the clock's UTC date.",
)
def review_queue_command(config_path: Path | None, today: str | None) -> int:
    """List every claim of the site that needs a review, oldest review first.

    The claims of the pages claim-evidence.toml registers whose record
    changed since the review (CE403), whose review expired or is due soon
    (CE601, CE602, counted to the build date), whose cited source's stored
    snapshot no longer backs a quote (CE521-CE527; no network: `sources
    verify` re-reads the live sources). One line each — FILE: ID (reviewed
    DATE, or no review date): the reasons, then the command to see the diff
    and the one to record the review — oldest review first (one without a
    date before all); FILE is the source holding the record when `sources`
    names one. A claim never reviewed (unverified) is not listed: it shows
    as 未確認 by design. Reads only.

    Exit 0 when no claim needs a review, 1 when the queue lists one, 2 for
    a missing or invalid config or --today.
    """
    from .._commands.queue import queue_lines, review_queue
    from .._record.freshness import check_today
    from .._site.config import at_build_date, find_config

    check_today(today)
    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    queue = review_queue(at_build_date(load_config(path), today))
    for line in queue_lines(queue):
        click.echo(line)
    return 1 if queue else 0


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


@review.command("sign")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim whose recorded review to sign.")
@KEY
@SIGNER
def review_sign(file: str, claim_id: str, key: str | None, signer: str | None) -> int:
    """Sign a claim's recorded review with your SSH key, changing nothing else.

    The signature (verification.signature) covers the claim id, fingerprint,
    status, checked_at, method, review_by and signer (ssh-keygen -Y sign,
    namespace claim-evidence). Refuses (exit 1, FILE unchanged) a claim
    without a review, or one with errors: a review that no longer covers its
    record (CE403) is recorded again with `review record … --sign`. The key
    and the signer are chosen as for `review record --sign`. FILE may be the
    news correction registry, as for `review record`.
    """
    from .._check.signing import SIGNING_CODES
    from .._site.config import find_config

    document = _article_of(file, claim_id)
    _fingerprinted(document, file, claim_id)
    config = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    site = load_config(config).options if config is not None else None
    claims = document.bundle["claims"]
    index = next(i for i, c in enumerate(claims) if isinstance(c, dict) and c.get("id") == claim_id)
    verification = claims[index].get("verification")
    if not isinstance(verification, dict) or "fingerprint" not in verification:
        record = f"claim-evidence review record {file} --claim {claim_id} --method … --checked-at … --sign"
        return _not_signed(file, claim_id, [], f"it has no review to sign; record one with {record}")
    own = json_path(("claims", index))
    errors = [
        d
        for d in document.diagnostics(site.policy if site is not None else Policy())
        if d.is_error
        and d.code not in SIGNING_CODES
        and not _elsewhere(d.path, document.prefixed(own), document.prefixed("$.claims"))
    ]
    if errors:
        return _not_signed(file, claim_id, errors, "fix the errors above first (review record re-records a review)")
    reviews = site.policy.reviews if site is not None else None
    try:
        bundle = _signed(document.bundle, index, file, key, signer, reviews)
    except EvidenceValidationError as exc:
        shown = [replace(d, path=document.prefixed(d.path), file=file) for d in exc.diagnostics]
        return _not_signed(file, claim_id, shown, "this key cannot sign reviews of this site")
    changed = rewrite(file, bundle, at=document.at).write()
    click.echo(
        f"{file}: review of {claim_id} signed by {_signer_of(bundle['claims'][index])}"
        + ("" if changed else " (no change)")
    )
    return 0


def _elsewhere(path: str, own: str, claims: str) -> bool:
    """A finding of another claim (each claim's review is its own): not one of this claim or the bundle's;
    ``claims`` is the path of the bundle's claims in the file."""
    return path.startswith(claims + "[") and not (path == own or path.startswith((own + ".", own + "[")))


def _not_signed(file: str, claim_id: str, found: Sequence[Diagnostic], why: str) -> int:
    for d in found:
        click.echo(f"claim-evidence: {finding_line(d, f'{file}:{d.path}')}", err=True)
    click.echo(f"claim-evidence: review of {claim_id} not signed: {why}; {file} is unchanged", err=True)
    return 1
