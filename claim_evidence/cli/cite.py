"""``claim-evidence cite``: print the Cited Sources block (a thin click layer over :mod:`.._commands.cite`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from .._record.vocabulary import LOCALES
from .._render.citedforms import FORMATS
from .options import SITE_CONFIG, refuse_unknown


@click.command("cite")
@SITE_CONFIG
@click.option(
    "--page",
    "pages",
    multiple=True,
    metavar="PAGE",
    help="Only the records of this registered page (repeatable; its path under the site root, or a file path).",
)
@click.option(
    "--claim",
    "claim_ids",
    multiple=True,
    metavar="ID",
    help="Only these claims (repeatable); default all. An id the pages do not have is an error (exit 2).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="markdown", show_default=True)
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date review ages are counted to; default: SOURCE_DATE_EPOCH (its UTC date), else the clock.",
)
@click.option("--lang", type=click.Choice(LOCALES), default=None, help="Headings and tags (default: the site's lang).")
def cite(
    config_path: Path | None,
    pages: Sequence[str],
    claim_ids: Sequence[str],
    fmt: str,
    today: str | None,
    lang: str | None,
) -> int:
    """Print the Cited Sources block of the site's records: which sources the
    claims rely on, grouped by basis kind, each with its latest review's
    marker, policy tag and date, what it is used for, and the ⚠ suffix once
    expired. Claims without a valid review are listed apart, as not reviewed.

    markdown (the default) and html never state the build date, so they change
    only when a review changes state; json names it. Exit 0 once printed, 2 on
    a config or usage error, an unknown --page or --claim (naming the known
    ones) or a page whose record cannot be read.
    """
    from .._commands.cite import collect_cited, page_name, site_records
    from .._commands.prepublish import require_targets
    from .._render.citedforms import render
    from .._site.config import find_config, load_config

    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    config = load_config(path)
    require_targets(config)
    records = site_records(config)
    known_pages = [r.page for r in records]
    wanted = [page_name(config, p, Path.cwd()) for p in pages]
    refuse_unknown(
        "'--page'", "the site registers no page", [p for p in wanted if p not in known_pages], known_pages, "its pages"
    )
    if wanted:
        records = [r for r in records if r.page in wanted]
    known_claims = list(dict.fromkeys(cid for r in records for cid in r.claim_ids()))
    refuse_unknown(
        "'--claim'",
        "the pages have no claim with id",
        [c for c in claim_ids if c not in known_claims],
        known_claims,
        "their claims",
    )
    block = collect_cited(config, records, claim_ids or None, today, lang)
    click.echo(render(block, fmt), nl=False)
    return 0
