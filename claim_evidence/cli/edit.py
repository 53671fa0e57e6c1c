"""``claim-evidence claim / source / ref``: editing a record without hand-writing JSON (a thin click
layer over :mod:`._authoring` and :mod:`._scaffold`; every write goes through :mod:`._bundlefile`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from .._check.bundlefile import Rewrite, read_source, rewrite
from .._check.documents import ARTICLE_KEY, SOURCE_SUFFIXES, BundleDocument, holds_script, is_page, load_document
from .._check.labels import LABEL_FROM
from .._check.options import PageOptions
from .._core.diagnostics import ClaimEvidenceError, MalformedInput
from .._record.authoring import EditRefused
from .._record.vocabulary import BASES, EVIDENCE_LABELS, STATUSES
from .options import T


@click.group()
def claim() -> None:
    """Add, change and remove claim records. Never touches a review seal.

    FILE is a static page (.html), a bundle JSON, an article JSON, or a
    Markdown or reST source holding one bundle script (the record of an MkDocs,
    Sphinx, Pelican or Astro page), as for `review record`: in a source only
    the JSON inside the script changes, its indentation kept (a reST `.. raw::
    html` directive's on every line). Each command prints the diff of its edit, writes it
    atomically (key order, indentation, line endings and BOM kept) and says
    which reviews the edit undid. Run `review record` after reading the sources.
    """


@claim.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--id", "claim_id", metavar="ID", help="The claim id: on a page, the data-claim-id of the marked element."
)
@click.option(
    "--all", "add_all", is_flag=True, help="On a page: every element with data-claim-id that has no record yet."
)
@click.option(
    "--statement",
    metavar="TEXT",
    help="The exact sentence, for a bundle or article JSON, or for a Markdown/reST source whose marked element "
    "is written elsewhere (a page's, and by default a source's, is read from its element).",
)
@click.option(
    "--label",
    metavar="TEXT",
    help="Short display label of the one claim --id adds (default: the element's data-claim-label, else この主張 / "
    "This claim).",
)
@click.option(
    "--label-from",
    type=click.Choice(LABEL_FROM),
    help="Where a claim whose element has no data-claim-label gets its label: attribute (default: none, so the "
    "default label, named in a note) or heading (the nearest h1-h6 above the element, on a page).",
)
@click.option(
    "--basis",
    type=click.Choice(BASES),
    help="What the claim rests on; without it the record is incomplete (CE303) until `claim set --basis`.",
)
@click.option(
    "--evidence-label",
    type=click.Choice([e for e in EVIDENCE_LABELS if e]),
    help="Information kind (not a review status).",
)
def claim_add(
    file: str,
    claim_id: str | None,
    add_all: bool,
    statement: str | None,
    label: str | None,
    label_from: str | None,
    basis: str | None,
    evidence_label: str | None,
) -> int:
    """Add an unverified claim with no sources and no review.

    On a page, mark the sentence first (<p data-claim-id="ID">…</p>): the
    statement is the element's visible text exactly as the page check reads it,
    so it cannot differ from the page. When the page has none, an empty evidence
    slot is added right after the element and the bundle script before </body>;
    when the page links no evidence stylesheet (as the page check decides), a
    <link rel="stylesheet"> goes just before </head>, with the href of the
    `stylesheet` setting (the claim-evidence.toml `review record` would find;
    relative to the page when the page's other <link> hrefs are all relative;
    none with stylesheet = false; a page without </head> is refused with the
    line to write). Nothing else on the page changes. Then: `source add`,
    `ref add`, read the source, `review record`, `static-helper --write`.

    A label is the element's data-claim-label="…" when it has one, else
    --label (one claim) or, with --label-from heading, the visible text of the
    nearest heading above the element; a note names the claims left with the
    default label and any label two claims share.

    In a Markdown or reST source (MkDocs, Sphinx, Pelican), the claim is added
    to the JSON of its bundle script only, the statement read from the element
    with that data-claim-id in the file's raw HTML (else give --statement).
    A .md or .rst file without the script gets one at its end (raw HTML, or a
    `.. raw:: html` directive); the element and its slot are yours to write.
    There labels come from data-claim-label only: the heading is written in
    the generator's syntax, which is not rendered here.
    """
    from .._check.scaffold import add_page_claims
    from .._check.sourcefile import add_source_claims, has_bundle_script, with_bundle_script
    from .._record.authoring import add_claim

    if (claim_id is None) == (not add_all):
        raise click.UsageError("give --id ID, or --all for every marked element without a record")
    if add_all and label is not None:
        raise click.UsageError(
            "--label gives one claim its label: with --all every claim would share it (the sources summary would "
            'repeat it); write data-claim-label="…" on each element, or use --label-from heading'
        )
    if label is not None and label_from is not None:
        raise click.UsageError("give --label TEXT or --label-from, not both")
    if label_from == "heading" and not is_page(file):
        raise click.UsageError(
            "--label-from heading reads the headings of a page; in a Markdown or reST source or a JSON file, write "
            'data-claim-label="…" on the element, or give --id ID --label TEXT'
        )
    if is_page(file):
        if statement is not None:
            raise click.UsageError(
                "--statement is for bundle and article JSON files; a page's statement is read from its element"
            )
        text, bom = read_source(file)
        options = _served_page(file)
        page = run_edit(
            file,
            lambda: add_page_claims(
                text,
                file,
                None if add_all else [claim_id or ""],
                label=label,
                label_from=label_from or "attribute",
                basis=basis,
                evidence_label=evidence_label,
                options=options,
            ),
        )
        return _apply(Rewrite(file, text, page.text, bom), page.change.notes)
    fields = {"label": label, "basis": basis, "evidence_label": evidence_label}
    ids = None if add_all else [claim_id or ""]
    exists = os.path.isfile(file)
    text, bom = read_source(file) if exists else ("", b"")
    source_suffix = file.lower().endswith(SOURCE_SUFFIXES)
    if source_suffix and not exists:
        raise click.UsageError(
            f"{file}: no such file; claim add edits an existing Markdown or reST source (a new bundle starts as a .json file)"
        )
    if (text or source_suffix) and holds_script(file, text):  # a Markdown or reST source (an empty one too)
        if add_all and statement is not None:
            raise click.UsageError("--statement adds one claim: give --id ID with it, not --all")
        lang = _served_page(file).lang  # the built pages' default label, for the note on shared labels
        if not has_bundle_script(text):
            change = run_edit(file, lambda: add_source_claims(text, file, None, ids, statement, lang, **fields))
            added = with_bundle_script(text, file, change.bundle)
            return _apply(
                Rewrite(file, text, added, bom), (*change.notes, "the bundle script was added at the end of FILE")
            )
        source = editable_document(file)
        assert source is not None
        return store_change(
            file,
            source,
            run_edit(file, lambda: add_source_claims(text, file, source.bundle, ids, statement, lang, **fields)),
        )
    if add_all or statement is None:
        raise click.UsageError(
            "for a bundle or article JSON give --id ID and --statement TEXT (--all reads marked elements of a page)"
        )
    document = editable_document(file, allow_new=True)
    bundle = None if document is None else document.bundle
    change = run_edit(
        file,
        lambda: add_claim(bundle, claim_id or "", statement, label=label, basis=basis, evidence_label=evidence_label),
    )
    return store_change(file, document, change)


def _served_page(file: str) -> PageOptions:
    """The site's settings for the page ``file`` as ``static-helper`` checks it (where it is served, its
    stylesheet href), from the claim-evidence.toml ``review record`` would find; none: the defaults."""
    from .._site.config import find_config, load_config, site_path
    from .._site.runner import page_options

    found = find_config(Path(file).resolve().parent) or find_config(Path.cwd())
    if found is None:
        return PageOptions()
    config = load_config(found)
    return page_options(config.options, site_path(config.root, Path(file)), False)


@claim.command("set")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--claim", "--id", "claim_id", required=True, metavar="ID", help="The claim to change (--id as for claim add)."
)
@click.option(
    "--status",
    type=click.Choice(STATUSES),
    help="Status against the sources (matched, partial and conflict need a review record).",
)
@click.option(
    "--condition", "conditions", multiple=True, metavar="TEXT", help="Replace the conditions with these (repeatable)."
)
@click.option("--no-conditions", is_flag=True, help="Remove every condition.")
@click.option("--as-of", metavar="YYYY-MM-DD", help="The time point the statement is about ('' removes it).")
@click.option("--uncertainty", metavar="TEXT", help="What the sources do not establish ('' removes it).")
@click.option("--label", metavar="TEXT", help="Display label ('' removes it).")
@click.option("--basis", type=click.Choice(BASES), help="What the claim rests on.")
@click.option("--evidence-label", type=click.Choice(EVIDENCE_LABELS), help="Information kind ('' for none).")
@click.option(
    "--statement",
    metavar="TEXT",
    help="The new statement, for a bundle or article JSON or a Markdown/reST source (a page's is read from its "
    "element: --from-page).",
)
@click.option(
    "--from-page",
    is_flag=True,
    help="Read the statement again from the element with data-claim-id=ID, as the page check reads it: FILE's own "
    "(a page, or a Markdown/reST source's raw HTML), or --page's for a JSON file.",
)
@click.option(
    "--page",
    metavar="PAGE",
    type=click.Path(dir_okay=False, path_type=str),
    help="With --from-page on a bundle or article JSON: the page (or source) whose element holds the sentence.",
)
def claim_set(
    file: str,
    claim_id: str,
    status: str | None,
    conditions: Sequence[str],
    no_conditions: bool,
    as_of: str | None,
    uncertainty: str | None,
    label: str | None,
    basis: str | None,
    evidence_label: str | None,
    statement: str | None,
    from_page: bool,
    page: str | None,
) -> int:
    """Change a claim's fields; say which review this undoes.

    The statement, basis, evidence label, conditions, time point, uncertainty
    and sources are covered by the review's fingerprint: changing one undoes
    the review until `review record` is run again. Status and label are not
    covered. On a page, only the bundle script changes.

    After editing a claimed sentence, --from-page records it again exactly as
    the page check reads the element (so SH120 cannot follow): on a page its
    own element, in a Markdown/reST source the element in its raw HTML, for a
    bundle or article JSON the element of --page PAGE. A statement that already
    reads so is left as it is ("no change").
    """
    from .._record.authoring import UNSET, set_claim

    if conditions and no_conditions:
        raise click.UsageError("give --condition TEXT (repeatable) or --no-conditions, not both")
    changes = {"status": status, "basis": basis, "evidence_label": evidence_label, "statement": statement}
    if not (
        conditions
        or no_conditions
        or from_page
        or page is not None
        or any(v is not None for v in (*changes.values(), as_of, uncertainty, label))
    ):
        raise click.UsageError(
            "nothing to change: give at least one of --statement, --from-page, --status, --condition, --no-conditions, "
            "--as-of, --uncertainty, --label, --basis, --evidence-label"
        )
    if from_page or statement is not None or page is not None:
        statement = _statement(file, claim_id, statement, from_page, page)
    document = editable_document(file)
    change = run_edit(
        file,
        lambda: set_claim(
            document.bundle if document else None,
            claim_id,
            statement=statement,
            status=status,
            basis=basis,
            evidence_label=evidence_label,
            conditions=[] if no_conditions else (list(conditions) or None),
            as_of=UNSET if as_of is None else (as_of or None),
            uncertainty=UNSET if uncertainty is None else (uncertainty or None),
            label=UNSET if label is None else (label or None),
        ),
    )
    return store_change(file, document, change)


def _statement(file: str, claim_id: str, statement: str | None, from_page: bool, page: str | None) -> str | None:
    """The statement ``claim set`` records: ``--statement``'s, or the bound element's (``--from-page``)."""
    from .._check.claimmarkup import marked_statement

    if statement is not None and from_page:
        raise click.UsageError("give --statement TEXT or --from-page, not both")
    if page is not None and not from_page:
        raise click.UsageError("--page PAGE names where --from-page reads the statement: give --from-page with it")
    text, _ = read_source(file)
    if is_page(file) or holds_script(file, text):
        if page is not None:
            raise click.UsageError(
                f"--page is for a bundle or article JSON; {file} holds its bundle script, and --from-page reads its own element"
            )
        if statement is not None and is_page(file):
            raise click.UsageError(
                "--statement is for bundle and article JSON files and Markdown/reST sources; a page's statement is "
                f"read from its element: edit the sentence, then claim set {file} --claim {claim_id} --from-page"
            )
    elif from_page and page is None:
        raise click.UsageError(
            f'{file} is a JSON file: give --page PAGE.html, the page whose element with data-claim-id="{claim_id}" '
            "holds the sentence, with --from-page (or give --statement TEXT)"
        )
    if not from_page:
        return statement
    if page is None:
        return marked_statement(text, file, claim_id)
    return marked_statement(read_source(page)[0], page, claim_id)


@click.group()
def source() -> None:
    """Add, change and remove source records (what a claim can cite)."""


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
    from .._record.authoring import add_source

    document = editable_document(file)
    bundle = document.bundle if document else None
    return store_change(
        file, document, run_edit(file, lambda: add_source(bundle, source_id, url, publisher, title, published_at))
    )


@click.group()
def ref() -> None:
    """Add, change and remove references: which section of which source supports a claim."""


@ref.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim.")
@click.option(
    "--source", "source_id", required=True, metavar="ID", help="The source it cites (added with `source add`)."
)
@click.option("--section", required=True, metavar="TEXT", help="The section of the source that was read.")
@click.option("--supports", required=True, metavar="TEXT", help="What that section supports.")
@click.option(
    "--quote",
    metavar="TEXT",
    help="The passage relied on, copied from the source (stored as quote.exact); every figure of a matched or partial statement must be in a quote.",
)
def ref_add(file: str, claim_id: str, source_id: str, section: str, supports: str, quote: str | None) -> int:
    """Cite a source for a claim, with the passage relied on.

    A reference is covered by the claim's review fingerprint: adding one to a
    reviewed claim undoes that review (the command says so) until `review
    record` is run again after reading the source.
    """
    from .._record.authoring import add_ref

    document = editable_document(file)
    bundle = document.bundle if document else None
    return store_change(
        file, document, run_edit(file, lambda: add_ref(bundle, claim_id, source_id, section, supports, quote))
    )


def editable_document(file: str, allow_new: bool = False) -> BundleDocument | None:
    """The file to edit; ``None`` for a bundle JSON that does not exist yet (``claim add`` creates it)."""
    from .._record.authoring import AuthoringError

    if allow_new and not is_page(file) and not os.path.lexists(file):
        return None
    try:
        document = load_document(file)
    except MalformedInput as exc:
        if exc.diagnostic.code == "SH101" and "(found 0)" in exc.diagnostic.message:
            raise AuthoringError(
                f"{file} has no evidence bundle yet: add a claim first (claim-evidence claim add {file} --id ID)"
            ) from None
        raise
    value = document.value
    if (
        isinstance(value, dict)
        and not ({ARTICLE_KEY, "version", "sources", "claims"} & value.keys())
        and ({"title", "tldr", "summary"} & value.keys())
    ):
        # An article item without evidence yet: its bundle goes under claim_evidence.
        return BundleDocument(document.path, {**value, ARTICLE_KEY: None}, document.duplicate_keys, document.text)
    return document


def run_edit(file: str, edit: Callable[[], T]) -> T:
    """Run an edit; its refusal names the file, at the JSON path of the bundle inside it."""
    from .._record.authoring import AuthoringError

    try:
        return edit()
    except AuthoringError as exc:  # a refusal names the command to type next: on this file
        raise AuthoringError(str(exc).replace("FILE", file)) from None
    except EditRefused as exc:
        prefix = "$.claim_evidence" if not is_page(file) and _is_article(file) else "$"
        raise EditRefused([replace(d, file=file, path=prefix + d.path[1:]) for d in exc.diagnostics]) from None


def _is_article(file: str) -> bool:
    try:
        document = editable_document(file, allow_new=True)
    except ClaimEvidenceError:
        return False
    return document is not None and document.is_article


def store_change(file: str, document: BundleDocument | None, change: Any) -> int:
    """Write ``change.bundle`` back into ``file`` the way ``review record`` does, with its diff."""
    if document is None:
        return _apply(Rewrite(file, "", json.dumps(change.bundle, ensure_ascii=False, indent=2) + "\n"), change.notes)
    notes = tuple(change.notes)
    if document.is_article and not change.bundle.get("subject_fingerprint"):
        notes += (
            f"the article's title, tldr and summary are not sealed yet (CE105): claim-evidence review subject {file}",
        )
    return _apply(rewrite(file, change.bundle, article=document.is_article), notes)


def _apply(edit: Rewrite, notes: Sequence[str]) -> int:
    click.echo(edit.diff(), nl=False)
    click.echo(f"{edit.path}: {'written' if edit.write() else 'no change'}")
    for note in notes:
        click.echo(f"note: {note.replace('FILE', edit.path)}")
    return 0
