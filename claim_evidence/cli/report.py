"""``claim-evidence report``: the whole site's evidence on one page (a thin click layer over :mod:`._sitereport`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from .._commands.report import REPORT_FORMATS, SiteReport, collect_site, render_csv, render_html, render_json
from .._core.atomic import atomic_write_bytes
from .options import SITE_CONFIG


@click.command("report")
@SITE_CONFIG
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date review ages are counted to; default: SOURCE_DATE_EPOCH (its UTC date), else the clock.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    required=True,
    help="html: one self-contained page; json: fixed keys; csv: one row per claim.",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, allow_dash=True, path_type=str),
    metavar="FILE",
    help="Where to write the report; - writes it to stdout (and the HTML's links lead from the working folder).",
)
def report(config_path: Path | None, today: str | None, fmt: str, out: str) -> int:
    """Write the state of the whole site: every claim of the registered pages (and of the [news]
    correction registry) with its status, basis, method, review age and freshness, whether its
    record is invalid (a record error only) and the page's findings about it (a stale slot, a
    missing stylesheet: page_findings), the signer of its review (signer), a summary (with the
    reviews left unsigned), the most-cited sources and the pages with findings.

    Not a gate: exit 0 once written, 2 on a config or usage error, and on a
    config that registers neither pages nor [news] (SH006, as prepublish). The
    same inputs and --today give the same bytes; the report names its build
    date and where it came from. Links in the HTML lead from FILE's folder to
    the pages. With --out -, the report goes to stdout and the line saying what
    was written to stderr.
    """
    from .._commands.prepublish import require_targets
    from .._site.config import find_config, load_config

    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    config = load_config(path)
    require_targets(config)
    found = collect_site(config, today)
    to_stdout = out == STDOUT
    data = _render(found, fmt, Path.cwd() if to_stdout else Path(out).resolve().parent, config.root)
    if to_stdout:
        click.echo(data, nl=False)
    else:
        atomic_write_bytes(out, data)
    click.echo(
        f"{'<stdout>' if to_stdout else out}: written ({len(found.rows)} claims on {len(found.pages)} pages)",
        err=to_stdout,
    )
    return 0


# The --out value that means "write the report to stdout", as for other tools' output options.
STDOUT = "-"


def _render(found: SiteReport, fmt: str, folder: Path, root: Path) -> bytes:
    if fmt == "json":
        return render_json(found)
    if fmt == "csv":
        return render_csv(found)
    return render_html(found, _site_href(root, folder))


def _site_href(root: Path, folder: Path) -> str:
    """The relative URL from the report's folder to the site root: "" or ending in "/"."""
    try:
        relative = Path(os.path.relpath(root.resolve(), folder)).as_posix()
    except ValueError:  # another drive: no relative path
        return root.resolve().as_uri() + "/"
    return "" if relative == "." else relative + "/"
