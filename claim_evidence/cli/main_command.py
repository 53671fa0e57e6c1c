"""The ``claim-evidence`` command: a thin click layer over the library.

Here: the click group and the commands that check, print and gate (``validate``, ``render``,
``schema``, ``assets``, ``prepublish``, ``init``); the other commands live in the sibling modules
(``review``, ``edit``, ``edit_records``, ``sources``, ``report``, ``answer``) and are registered on the group below.

Commands return exit codes; errors are mapped to codes in one place (:func:`.errors.run`, which
``static-helper`` uses too): 0 clean, 1 findings, 2 usage error or unreadable input. No traceback
reaches a user.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path

import click

from .. import __version__
from .._check.documents import check_file, is_page, load_document
from .._commands.generators import CHOICES as GENERATOR_CHOICES
from .._core.atomic import atomic_write_bytes
from .._core.report import FileResult, exit_code, report
from .._core.textio import MAX_BYTES
from .._record.freshness import Freshness, at_build, check_today
from .._record.policy import Policy
from .._record.schema import schema_text
from .._record.vocabulary import LOCALES
from .._render.evidence import render_evidence
from .._site.config import at_build_date, load_config
from .answer import answer, kb
from .cite import cite
from .edit import claim, ref, source
from .edit_records import SUBCOMMANDS
from .errors import run
from .extract import extract
from .options import FORMAT, REQUIRE_QUOTES, SITE_CONFIG, refuse_unknown
from .report import report as site_report
from .review import fingerprint, review
from .sources import sources

TODAY = click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date review ages are counted to ([freshness] in claim-evidence.toml); default: "
    "SOURCE_DATE_EPOCH (its UTC date), else the clock.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="claim-evidence")
def cli() -> None:
    """Check, fingerprint and review claim-evidence bundles.

    Validation proves that each recorded review still covers the current
    wording, conditions and sources. It does not judge truth, fetch sources,
    or authenticate who reviewed: it is not a signature.

    A review can also be signed with an SSH key (review record --sign,
    review sign); a site's [reviews] allowed_signers then verifies who
    approved it and that its status, date and method are those signed.
    """


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@FORMAT
@click.option(
    "--strict", is_flag=True, help="Treat warnings (unknown keys, duplicate keys, uncited sources) as failures."
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=MAX_BYTES,
    show_default=True,
    help="Refuse larger files (CE004, exit 2). static-helper, prepublish and the other commands read up to the default.",
)
@REQUIRE_QUOTES
@click.option(
    "--snapshot-dir",
    type=click.Path(file_okay=False, path_type=str),
    metavar="DIR",
    help="The site's snapshot folder: check that each recorded snapshot is there unaltered and that every quote is in it "
    "(without it, bundles with snapshots get a note that these checks were skipped).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE",
    help="A claim-evidence.toml whose [freshness] table ages the reviews and whose [reviews] table verifies "
    "the review signatures (only those tables are read; without --config, reviews are not aged and "
    "signatures not verified).",
)
@TODAY
def validate(
    files: Sequence[str],
    fmt: str,
    strict: bool,
    max_bytes: int,
    require_quotes: bool,
    snapshot_dir: str | None,
    config_path: str | None,
    today: str | None,
) -> int:
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
    check_today(today)
    # Every validation learns the build date (a review dated after it is CE406); ages only under [freshness].
    site = load_config(config_path).options if config_path is not None else None
    freshness = at_build(site.freshness if site is not None else None, today)
    policy = Policy(require_quotes=require_quotes, reviews=site.policy.reviews if site is not None else None)
    results = [
        _advise_max_bytes(check_file(f, max_bytes, policy=policy, snapshots=snapshot_dir, freshness=freshness))
        for f in files
    ]
    if any(d.code == "CE403" for r in results for d in r.diagnostics):  # what changed since the review (git history)
        from .._check.sealdiff import explain

        results = explain(results)
    click.echo(report(results, fmt, strict=strict, noun="file"), nl=False)
    _say_build_date(freshness)
    return exit_code(results, strict)


def _advise_max_bytes(result: FileResult) -> FileResult:
    """CE004 names the way out that ``validate`` has and the other commands do not: ``--max-bytes``."""
    result.diagnostics = [
        replace(d, message=f"{d.message} or raise --max-bytes") if d.code == "CE004" else d for d in result.diagnostics
    ]
    return result


def _say_build_date(freshness: Freshness | None) -> None:
    """Name the date reviews were aged to, and where it came from (stderr: stdout may be JSON)."""
    if freshness is not None and freshness.aging:
        click.echo(f"claim-evidence: {freshness.describe()}", err=True)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--claim",
    "claim_ids",
    multiple=True,
    metavar="ID",
    help="Only these claims (repeatable); default all. An id the file does not have is an error (exit 2).",
)
@click.option(
    "--lang",
    type=click.Choice(LOCALES),
    default=None,
    help="Label language (default: a page's own <html lang> when labels exist in it, else ja).",
)
@click.option(
    "--template-dir",
    type=click.Path(file_okay=False, exists=True, path_type=str),
    help="Site templates that override the built-in ones.",
)
def render(file: str, claim_ids: Sequence[str], lang: str | None, template_dir: str | None) -> int:
    """Print the evidence HTML for a bundle or article file, or a page's bundle.

    An invalid bundle still renders, but each claim an error concerns shows as
    unverified with a warning (an error of the bundle as a whole: every claim);
    the exit code is then 1 so scripts notice. A --claim the file
    does not have prints nothing and exits 2, naming the ids it has.
    """
    document = load_document(file)
    claims = document.bundle.get("claims") if isinstance(document.bundle, dict) else None
    known = (
        [c["id"] for c in claims if isinstance(c, dict) and isinstance(c.get("id"), str)]
        if isinstance(claims, list)
        else []
    )
    refuse_unknown(
        "'--claim'", f"{file} has no claim with id", [c for c in claim_ids if c not in known], known, "its claims"
    )
    if lang is None:
        lang = _page_lang(file)
    html = render_evidence(document.bundle, claim_ids or None, document.subject, lang=lang, template_dir=template_dir)
    click.echo(html)
    return 1 if any(d.is_error for d in document.diagnostics()) else 0


def _page_lang(file: str) -> str:
    """The labels' language of a page as the page check picks it (its <html lang>), else ja."""
    from .._check.lang import page_lang
    from .._core.textio import read_text

    return page_lang(read_text(file), "ja") if is_page(file) else "ja"


@cli.command()
def schema() -> int:
    """Print the JSON Schema (draft 2020-12) of bundle v1."""
    click.echo(schema_text(), nl=False)
    return 0


@cli.command()
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to copy into (created if missing).",
)
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
@SITE_CONFIG
@FORMAT
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for static pages (default: number of cores).",
)
@TODAY
def prepublish(config_path: Path | None, fmt: str, jobs: int | None, today: str | None) -> int:
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
    from .._commands.prepublish import check_site
    from .._core.report import write_report
    from .._site.config import find_config

    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    config = at_build_date(load_config(path), today)
    results = check_site(config, jobs or os.cpu_count() or 1)
    # (a text or github report is written target by target as the run goes: see write_report)
    tally = write_report(results, fmt, lambda text: click.echo(text, nl=False), noun="target", headers=True)
    _say_build_date(config.options.freshness)
    return tally.exit_code()


@cli.command()
@click.argument("folder", metavar="[DIR]", required=False, default=".", type=click.Path(path_type=str))
@click.option(
    "--generator",
    type=click.Choice(GENERATOR_CHOICES),
    default=None,
    help="Set up DIR as this generator's project (default: recognized by its files); none: a plain folder of HTML pages.",
)
def init(folder: str, generator: str | None) -> int:
    """Write a starter claim-evidence.toml for the site in DIR (default: here).

    In a site generator's project, recognized by its files (mkdocs.yml or
    mkdocs.yaml; Sphinx's conf.py, docs/conf.py or source/conf.py;
    pelicanconf.py; hugo.toml, hugo.yaml, hugo.json, or a config.toml with
    Hugo's keys; .eleventy.js or eleventy.config.js/.mjs/.cjs; Jekyll's
    _config.yml or _config.yaml; astro.config.mjs/.js/.ts/.mts), it writes the config that
    generator's guide in docs/generators/ gives, where that guide puts it
    (Hugo: static/claim-evidence.toml), copies the stylesheet where the guide
    does (Hugo: static/assets/, MkDocs: docs/assets/, Sphinx: _static/ beside
    conf.py), and prints the guide's next steps: what to add to the
    generator's files, the build command and the check command. A project with
    the files of two generators is refused (exit 2): choose one with
    --generator.

    In a plain folder (or with --generator none) it lists the HTML pages found
    as `pages` globs (hidden folders, node_modules, venv and the cache
    skipped; `**/*.html` past 8 folders), guesses `lang` from the pages' <html
    lang> (ja or en; otherwise ja), sets `stylesheet` to
    /assets/claim-evidence.css and copies that stylesheet to DIR/assets/.

    Every config written shows `require` as a comment, with an example. It
    never overwrites: an existing claim-evidence.toml is refused (exit 2; edit
    it instead), and a stylesheet already there that differs is left alone and
    reported.

    Next (a plain folder): mark a sentence with data-claim-id, add the claim
    (claim add: it links the stylesheet in <head> too), its source and the
    reference (source add, ref add), read the source and record the review
    (review record), then run static-helper --write and claim-evidence prepublish;
    the exact commands are printed after a run.
    """
    from .._commands.init import init_site

    for line in init_site(folder, generator).lines():
        click.echo(line)
    return 0


for _group in (fingerprint, review, claim, source, ref, sources, site_report, cite, kb, answer, extract):
    cli.add_command(_group)
for _parent, _command in SUBCOMMANDS:
    _parent.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; exceptions become exit codes in :func:`.errors.run`, as ``static-helper``'s do."""
    return run(cli, argv, "claim-evidence")


if __name__ == "__main__":
    sys.exit(main())
