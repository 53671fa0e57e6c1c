"""``static-helper [PATHS...] [--write] [--config FILE] [--format …] [--jobs N]``: parse, dispatch, exit code."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import click

import claim_evidence
from claim_evidence import REPORT_FORMATS, ClaimEvidenceError, Diagnostic, InputError, report
from claim_evidence._diagnostics import format_location

from claim_evidence._page import PageOptions
from claim_evidence._runner import Stats, display, exit_code, rewritten_pages, run, tasks_for_config, tasks_for_paths
from claim_evidence._site import CACHE_DIR_NAME, CONFIG_NAME, Config, find_config, load_config

from ._cache import Cache, default_folder, settings_fingerprint
from ._write import write_page

# Show progress only for runs long enough to wonder whether anything happens.
PROGRESS_MIN_PAGES = 200


@click.command(name="static-helper", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--write", is_flag=True, help="Re-render stale evidence slots in place (only when nothing else is wrong); exit 1 if a file changed.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), help=f"Site settings (default: the nearest {CONFIG_NAME}).")
@click.option("--format", "output_format", type=click.Choice(REPORT_FORMATS), default="text", show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: number of cores).")
@click.option("--no-cache", "no_cache", is_flag=True, help="Check every page; neither read nor write the cache.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=(
        f"Where passing results are cached (default: {CACHE_DIR_NAME}/ beside {CONFIG_NAME}; without a config, "
        "$XDG_CACHE_HOME/claim-evidence/ or ~/.cache/claim-evidence/, one folder per working folder)."
    ),
)
@click.option("--stats", is_flag=True, help="Print how many pages were checked and how many came from the cache (stderr).")
@click.version_option(claim_evidence.__version__, "--version", prog_name="static-helper")
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    write: bool,
    config_path: Path | None,
    output_format: str,
    jobs: int | None,
    no_cache: bool,
    cache_dir: Path | None,
    stats: bool,
) -> None:
    """Check pages against their embedded evidence records; --write re-renders stale evidence slots.

    PATHS are pages or folders of *.html; without PATHS, the pages registered
    in the nearest claim-evidence.toml. A folder without pages is an error.
    The check never touches the network. The site's settings (stylesheet,
    lang, require_quotes) come from that file, also when PATHS are given.

    \b
    Exit codes: 0 clean (with --write: nothing needed changing),
    1 findings (malformed bundle JSON too), or --write changed a file
      (as formatters do under pre-commit),
    2 usage error, unreadable input, no pages, write failure or internal
      error (every other page is still checked and reported).
    """
    try:
        caching = CacheChoice(enabled=not no_cache, folder=cache_dir, report=stats)
        code = execute(paths, write, config_path, output_format, jobs or os.cpu_count() or 1, caching)
    except ClaimEvidenceError as exc:
        click.echo(f"static-helper: {_describe(exc)}", err=True)
        code = exc.exit_code
    ctx.exit(code)


@dataclass(frozen=True)
class CacheChoice:
    enabled: bool = True
    folder: Path | None = None
    report: bool = False


def execute(
    paths: Sequence[Path],
    write: bool,
    config_path: Path | None,
    output_format: str,
    jobs: int,
    caching: CacheChoice = CacheChoice(enabled=False),
) -> int:
    config = _config(config_path, required=not paths)
    options = config.options if config else PageOptions()
    if paths:
        tasks = tasks_for_paths(paths, options, write)
    else:
        assert config is not None
        if not config.pages:
            raise InputError(Diagnostic("SH006", 'registers no pages: list them, e.g. pages = ["**/*.html"]', file=display(config.path or config.root)))
        tasks = tasks_for_config(config, write)
    stats = Stats()
    results = run(tasks, jobs, _progress_bar(len(tasks)), _cache(caching, config, options), stats, write_page)
    click.echo(report(results, output_format, noun="page"), nl=False)
    changed = rewritten_pages(results)
    if changed:
        click.echo(f"static-helper: rewrote {changed} page{'' if changed == 1 else 's'} (exit 1: files changed)", err=True)
    if caching.report:
        click.echo(f"static-helper stats: pages={stats.pages} checked={stats.checked} cached={stats.cached}", err=True)
    return exit_code(results)


def _cache(caching: CacheChoice, config: Config | None, options: PageOptions) -> Cache | None:
    """The cache at ``--cache-dir``, else :func:`default_folder`."""
    if not caching.enabled:
        return None
    config_bytes = None
    if config is not None and config.path is not None:
        try:
            config_bytes = config.path.read_bytes()
        except OSError:
            return None  # the config was readable a moment ago; do not guess
    folder = caching.folder or default_folder(config.root if config is not None else None, Path.cwd())
    return Cache(folder, settings_fingerprint(options, config_bytes))


def _config(config_path: Path | None, required: bool) -> Config | None:
    path = config_path or find_config(Path.cwd())
    if path is None:
        if required:
            raise click.UsageError(f"give PATHS to check, or run where a {CONFIG_NAME} registers the pages")
        return None
    return load_config(display(path))


def _describe(exc: ClaimEvidenceError) -> str:
    if isinstance(exc, InputError):
        d = exc.diagnostic
        return f"{format_location(d) if d.file else 'error'}: {d.code} {d.message}"
    return str(exc)


def _progress_bar(total: int) -> Callable[[int, int], None] | None:
    if total < PROGRESS_MIN_PAGES or os.environ.get("NO_COLOR") or not sys.stderr.isatty():
        return None

    def show(done: int, of: int) -> None:
        end = "\n" if done == of else ""
        sys.stderr.write(f"\r{done}/{of} pages checked{end}")
        sys.stderr.flush()

    return show


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for the console script and ``python -m static_helper``; returns the exit code."""
    try:
        result = command.main(args=list(argv) if argv is not None else None, prog_name="static-helper", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("static-helper: aborted", err=True)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so plainly, no traceback unless asked for
        if os.environ.get("CLAIM_EVIDENCE_DEBUG"):
            raise
        click.echo(f"static-helper: internal error: {type(exc).__name__}: {exc} (set CLAIM_EVIDENCE_DEBUG=1 for details)", err=True)
        return 2
    return result if isinstance(result, int) else 0
