"""``claim remove``, ``ref set`` / ``ref remove`` and ``source set`` / ``source remove``: the edits after
the first review, so that no record needs hand-written JSON (a thin click layer over
:mod:`.._record.authoring`, :mod:`.._record.removal` and, for a page's markup, :mod:`.._check.claimmarkup`).

Each is registered on its group (:data:`SUBCOMMANDS`, by :mod:`.main_command`) and writes through the
same path as :mod:`.edit`: the diff printed, the file written atomically, the reviews undone named.
"""

from __future__ import annotations

from typing import Any

import click

from .._check.bundlefile import Rewrite, read_source
from .._check.documents import holds_script, is_page
from .._check.page import replace_bundle
from .._html.locate import CLAIM_ATTR, SLOT_ATTR, locate
from .edit import _apply, claim, editable_document, ref, run_edit, source, store_change

_FILE = click.argument("file", type=click.Path(dir_okay=False, path_type=str))


@click.command("remove")
@_FILE
@click.option("--id", "--claim", "claim_id", required=True, metavar="ID", help="The claim to remove (or --claim ID).")
@click.option(
    "--markup",
    is_flag=True,
    help="On a page (.html): also remove the element's data-claim-id (the element and its text stay) and its "
    "evidence slot; with the record already gone, only those.",
)
def claim_remove(file: str, claim_id: str, markup: bool) -> int:
    """Remove a claim's record (its review goes with it).

    On a page the element and its evidence slot stay unless --markup: the page
    check then reports them as SH112 (body/slot references unregistered claim)
    until `claim remove PAGE --id ID --markup` takes them out. With --markup
    only the data-claim-id attribute, the slot (and the slot's own line) and
    the bundle script change, and the page is checked again before anything is
    written. In a Markdown or reST source the element and its slot are yours
    to remove, where the sentence is. The last claim of a bundle is refused
    (CE103): a bundle holds at least one.
    """
    from .._record.removal import remove_claim

    if markup and not is_page(file):
        raise click.UsageError(
            f"--markup removes a page's markup, and {file} is no page (.html): in a Markdown or reST source remove "
            "the data-claim-id attribute and the evidence slot by hand; a JSON file has none"
        )
    document = editable_document(file)
    bundle: Any = document.bundle if document else None
    if not is_page(file):
        change = run_edit(file, lambda: remove_claim(bundle, claim_id))
        text, _ = read_source(file)
        notes = _markup_left(text, file, claim_id, "by hand") if holds_script(file, text) else ()
        return store_change(file, document, _with_notes(change, notes))
    text, bom = read_source(file)
    known = isinstance(bundle, dict) and any(
        isinstance(c, dict) and c.get("id") == claim_id for c in bundle.get("claims") or []
    )
    if not markup:
        change = run_edit(file, lambda: remove_claim(bundle, claim_id))
        command = f"claim-evidence claim remove {file} --id {claim_id} --markup"
        notes = (*change.notes, *_markup_left(text, file, claim_id, command))
        return _apply(Rewrite(file, text, replace_bundle(text, change.bundle), bom), notes)
    return _unmark(file, text, bom, bundle, claim_id, known)


def _unmark(file: str, text: str, bom: bytes, bundle: Any, claim_id: str, known: bool) -> int:
    from .._check.claimmarkup import refuse_new_findings, remove_markup
    from .._check.page import PageOptions, check_text
    from .._record.removal import remove_claim

    unmarked = remove_markup(text, file, claim_id)
    if known:
        change = run_edit(file, lambda: remove_claim(bundle, claim_id))
        new, notes = replace_bundle(unmarked.text, change.bundle), list(change.notes)
    elif unmarked.elements or unmarked.slots:
        new, notes = unmarked.text, [f"claim {claim_id} has no record in {file} (any more): only its markup is removed"]
    else:  # neither a record nor markup: the refusal lists the claims there are
        return store_change(file, None, run_edit(file, lambda: remove_claim(bundle, claim_id)))
    refuse_new_findings(text, new, file)
    removed = [
        *(["its element's data-claim-id (the element and its text stay)"] if unmarked.elements else []),
        *(["its evidence slot"] if unmarked.slots else []),
    ]
    notes.append(
        f"removed {' and '.join(removed)}"
        if removed
        else f"{file} marks claim {claim_id} nowhere (no data-claim-id or evidence slot): only its record is removed"
    )
    before = {d.subject for d in check_text(text, file, PageOptions()).diagnostics if d.code == "SH140"}
    if any(d.code == "SH140" and d.subject not in before for d in check_text(new, file, PageOptions()).diagnostics):
        notes.append(f"the sources summary still lists claim {claim_id} until you run: static-helper --write {file}")
    return _apply(Rewrite(file, text, new, bom), notes)


def _markup_left(text: str, file: str, claim_id: str, how: str) -> tuple[str, ...]:
    """What a removed record leaves behind in the file's markup, and how it goes."""
    located = locate(text)
    left = [
        *(["element"] if any(e.attrs[CLAIM_ATTR] == claim_id for e in located.claims) else []),
        *(["evidence slot"] if any(e.attrs[SLOT_ATTR] == claim_id for e in located.slots) else []),
    ]
    if not left:
        return ()
    verb = "stay" if len(left) > 1 else "stays"
    return (
        f"claim {claim_id}'s {' and '.join(left)} {verb} in {file}; the page check reports "
        f'{"them" if len(left) > 1 else "it"} as SH112 (references unregistered claim "{claim_id}") until removed: {how}',
    )


def _with_notes(change: Any, notes: tuple[str, ...]) -> Any:
    from .._record.authoring import Change

    return Change(change.bundle, (*change.notes, *notes))


@click.command("set")
@_FILE
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim whose reference changes.")
@click.option("--source", "source_id", required=True, metavar="ID", help="The source that reference cites.")
@click.option("--section", metavar="TEXT", help="The section of the source that was read.")
@click.option("--supports", metavar="TEXT", help="What that section supports.")
@click.option(
    "--quote", metavar="TEXT", help="The passage relied on (quote.exact); '' removes the quote with its context."
)
@click.option("--prefix", metavar="TEXT", help="The text just before the quote (quote.prefix); '' removes it.")
@click.option("--suffix", metavar="TEXT", help="The text just after the quote (quote.suffix); '' removes it.")
def ref_set(
    file: str,
    claim_id: str,
    source_id: str,
    section: str | None,
    supports: str | None,
    quote: str | None,
    prefix: str | None,
    suffix: str | None,
) -> int:
    """Change the claim's one reference to a source: its section, what it
    supports, its quote and the quote's context.

    The prefix and suffix tell a passage found more than once in the source
    apart (CE525); they stand only beside a quote, and a new --quote keeps
    them (give --prefix '' or --suffix '' to drop one). A reference is covered by
    the claim's review: changing one undoes it (the command says so).
    """
    from .._record.authoring import UNSET, set_ref

    if all(v is None for v in (section, supports, quote, prefix, suffix)):
        raise click.UsageError(
            "nothing to change: give at least one of --section, --supports, --quote, --prefix, --suffix"
        )
    document = editable_document(file)
    bundle = document.bundle if document else None
    fields = {
        k: UNSET if v is None else (v or None) for k, v in (("quote", quote), ("prefix", prefix), ("suffix", suffix))
    }
    change = run_edit(
        file,
        lambda: set_ref(bundle, claim_id, source_id, section=section, supports=supports, **fields),
    )
    return store_change(file, document, change)


@click.command("remove")
@_FILE
@click.option("--claim", "claim_id", required=True, metavar="ID", help="The claim.")
@click.option("--source", "source_id", required=True, metavar="ID", help="The source it no longer cites.")
def ref_remove(file: str, claim_id: str, source_id: str) -> int:
    """Remove the claim's references to a source (this undoes its review).

    A claim left citing nothing while its status asserts a review is CE311
    until it cites a source again or `claim set --status unverified` (a note
    says so); a source no claim cites any more is named, for `source remove`.
    """
    from .._record.removal import remove_ref

    document = editable_document(file)
    bundle = document.bundle if document else None
    return store_change(file, document, run_edit(file, lambda: remove_ref(bundle, claim_id, source_id)))


@click.command("set")
@_FILE
@click.option("--id", "source_id", required=True, metavar="ID", help="The source to change.")
@click.option("--url", metavar="URL", help="Direct http(s) URL of the source (nothing is fetched).")
@click.option("--title", metavar="TEXT", help="Its title.")
@click.option("--publisher", metavar="TEXT", help="Who published it.")
@click.option("--published-at", metavar="YYYY-MM-DD", help="Its publication date ('' removes it).")
@click.option("--archive-url", metavar="URL", help="A copy in a web archive, a safe http(s) URL ('' removes it).")
def source_set(
    file: str,
    source_id: str,
    url: str | None,
    title: str | None,
    publisher: str | None,
    published_at: str | None,
    archive_url: str | None,
) -> int:
    """Change a source's fields (a second `source add` is CE201).

    Every claim citing the source is covered by it: a change undoes each of
    their reviews (the command names them). An unsafe URL (CE204, CE207) or a
    date that does not exist (CE205) is refused with validate's messages.
    """
    from .._record.authoring import UNSET, set_source

    if all(v is None for v in (url, title, publisher, published_at, archive_url)):
        raise click.UsageError(
            "nothing to change: give at least one of --url, --title, --publisher, --published-at, --archive-url"
        )
    document = editable_document(file)
    bundle = document.bundle if document else None
    optional = {
        "published_at": UNSET if published_at is None else (published_at or None),
        "archive_url": UNSET if archive_url is None else (archive_url or None),
    }
    change = run_edit(
        file, lambda: set_source(bundle, source_id, url=url, title=title, publisher=publisher, **optional)
    )
    return store_change(file, document, change)


@click.command("remove")
@_FILE
@click.option("--id", "source_id", required=True, metavar="ID", help="The source to remove.")
def source_remove(file: str, source_id: str) -> int:
    """Remove a source no claim cites (while one does, the refusal names it
    and the `ref remove` command that drops its reference)."""
    from .._record.removal import remove_source

    document = editable_document(file)
    bundle = document.bundle if document else None
    return store_change(file, document, run_edit(file, lambda: remove_source(bundle, source_id)))


# (group, command) pairs the command line registers (cli/main_command.py), as it registers the groups.
SUBCOMMANDS: tuple[tuple[click.Group, click.Command], ...] = (
    (claim, claim_remove),
    (ref, ref_set),
    (ref, ref_remove),
    (source, source_set),
    (source, source_remove),
)
