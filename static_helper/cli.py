"""``static-helper [PATHS... | -] [--write [--exit-non-zero-on-write]] [--config FILE] [--format …] [--jobs N]``.

Parse, dispatch, exit code. Other tools call this once per page or per commit,
so loading this module costs next to nothing: click and the toolkit are
imported when a command runs, and ``--version`` is answered without them.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
import time
from pathlib import Path

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import click

    from claim_evidence import FileResult
    from claim_evidence._check.options import PageOptions
    from claim_evidence._core.report import Tally
    from claim_evidence._site.config import Config
    from claim_evidence._site.runner import Stats

    from ._cache import Cache

# Show progress only for runs long enough to wonder whether anything happens.
PROGRESS_MIN_PAGES = 200
# The path that means "one page on stdin", and how findings name that page.
STDIN = "-"
STDIN_NAME = "<stdin>"
PROG = "static-helper"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for the console script and ``python -m static_helper``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # the probe other tools make before anything else: answer it without loading the rest
        sys.stdout.write(f"{PROG}, version {_version()}\n")
        return 0
    from claim_evidence.cli.errors import run  # errors end a run as they end claim-evidence's

    return run(_command(), args, PROG)


def __getattr__(name: str) -> click.Command:
    """``command``, the click command, is built on first use (tests and ``CliRunner`` take it from here)."""
    if name == "command":
        return _command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _command() -> click.Command:
    """The click command, defined on first use: click, and the toolkit names its options show, load only then."""
    import click

    from claim_evidence import REPORT_FORMATS, ClaimEvidenceError
    from claim_evidence._site.config import CACHE_DIR_NAME, CONFIG_NAME
    from claim_evidence.cli.errors import show_error

    @click.command(name=PROG, context_settings={"help_option_names": ["-h", "--help"]})
    @click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
    @click.option(
        "--write",
        is_flag=True,
        help=(
            "Re-render stale evidence slots (in place; with -, on stdout); a claim whose record is invalid shows "
            "未確認 and still fails. A page whose structure is broken is left unchanged (SH150)."
        ),
    )
    @click.option(
        "--exit-non-zero-on-write",
        "exit_on_write",
        is_flag=True,
        help="With --write: exit 1 when a file was changed, even if nothing is left to report (for pre-commit hooks).",
    )
    @click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"Site settings (default: the nearest {CONFIG_NAME}).",
    )
    @click.option(
        "--format",
        "output_format",
        type=click.Choice(REPORT_FORMATS),
        default="text",
        show_default=True,
        help=(
            "text and github are written page by page as the run goes; json and sarif once every page is "
            "checked (each page's part kept as text meanwhile, on disk past a few MB)."
        ),
    )
    @click.option(
        "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: number of cores)."
    )
    @click.option(
        "--no-cache", "no_cache", is_flag=True, help="Check every page and record; neither read nor write the caches."
    )
    @click.option(
        "--cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help=(
            f"Where passing results are cached (default: {CACHE_DIR_NAME}/ beside {CONFIG_NAME}; without a config, "
            "$XDG_CACHE_HOME/claim-evidence/ or ~/.cache/claim-evidence/, one folder per working folder). "
            "Only DIR itself is created: its parent folder must exist (SH010, exit 2)."
        ),
    )
    @click.option(
        "--stats",
        is_flag=True,
        help="Print how many pages were checked and how many came from the cache (by their bytes, by their "
        "text up to the last evidence element, or by their text after a head changed only in comments, "
        "white space, meta values and markup before the evidence that opens and closes its own elements: "
        "see the README's cache section), and why the fast path left pages "
        "to the reference tokenizer, if it did (stderr).",
    )
    @click.option(
        "--all-warnings",
        "all_warnings",
        is_flag=True,
        help="List every CE905 warning (numbers without a quoted passage); by default a page's two or more "
        "are one line in the text report, naming how many claims and the first five.",
    )
    @click.option(
        "--today",
        metavar="YYYY-MM-DD",
        default=None,
        help=f"The build date review ages are counted to ([freshness] in {CONFIG_NAME}); default: SOURCE_DATE_EPOCH "
        "(its UTC date), else the clock.",
    )
    @click.version_option(_version(), "--version", prog_name=PROG)
    @click.pass_context
    def command(
        ctx: click.Context,
        paths: tuple[str, ...],
        write: bool,
        exit_on_write: bool,
        config_path: Path | None,
        output_format: str,
        jobs: int | None,
        no_cache: bool,
        cache_dir: Path | None,
        stats: bool,
        all_warnings: bool,
        today: str | None,
    ) -> None:
        """Check pages against their embedded evidence records; --write re-renders stale evidence slots
        (and the "sources this page relies on" slot, <div data-evidence-summary></div>).

        PATHS are pages or folders of *.html; without PATHS, the pages registered
        in the nearest claim-evidence.toml. A folder without pages is an error.
        "-" reads one page from stdin (named <stdin> in findings); with --write,
        the page goes to stdout (rewritten, or unchanged) and the findings to
        stderr. The check never touches the network. The site's settings
        (stylesheet, lang, require_quotes, [freshness] with its markers,
        [reviews] with its allowed_signers, template_dir, sources) come from that file, also when PATHS are given.
        Passing pages and checked records are cached (see --cache-dir); a run
        over the whole site drops entries it no longer needs.

        \b
        Exit codes: 0 clean (with --write: clean once the stale slots were
          re-rendered),
        1 findings (malformed bundle JSON too); with --exit-non-zero-on-write,
          also when --write changed a file (as formatters do under pre-commit),
        2 usage error, unreadable input, no pages, write failure or internal
          error (every other page is still checked and reported).
        """
        if STDIN in paths and len(paths) > 1:
            raise click.UsageError(f"'{STDIN}' (one page on stdin) cannot be combined with other paths")
        if exit_on_write and not write:
            raise click.UsageError("--exit-non-zero-on-write is about --write; give both")
        try:
            caching = CacheChoice(enabled=not no_cache, folder=cache_dir, report=stats)
            code = execute(
                [Path(p) for p in paths],
                write,
                config_path,
                output_format,
                jobs or os.cpu_count() or 1,
                caching,
                exit_on_write=exit_on_write,
                stdin=paths == (STDIN,),
                today=today,
                all_warnings=all_warnings,
            )
        except ClaimEvidenceError as exc:  # told here, not in main: CliRunner runs the command alone
            code = show_error(exc, PROG)
        ctx.exit(code)

    return command


class CacheChoice:
    """How a run uses the cache (``--no-cache``, ``--cache-dir``, ``--stats``)."""

    def __init__(self, enabled: bool = True, folder: Path | None = None, report: bool = False) -> None:
        self.enabled = enabled
        self.folder = folder
        self.report = report


def execute(
    paths: Sequence[Path],
    write: bool,
    config_path: Path | None,
    output_format: str,
    jobs: int,
    caching: CacheChoice | None = None,
    *,
    exit_on_write: bool = False,
    stdin: bool = False,
    today: str | None = None,
    all_warnings: bool = False,
) -> int:
    """Check (with ``write``: and rewrite) the pages and print the report; the exit code.

    ``exit_on_write``: a changed file alone makes it 1. ``stdin``: ``paths`` is ``[-]``, one page on stdin.
    ``today``: the build date review ages are counted to (``[freshness]``; default ``SOURCE_DATE_EPOCH``, else the clock).
    """
    import click

    from claim_evidence import Diagnostic, InputError
    from claim_evidence._check.options import PageOptions
    from claim_evidence._core.report import STREAMED_FORMATS, write_report
    from claim_evidence._record.freshness import at_build, check_today
    from claim_evidence._site.check import check_pages, in_sources
    from claim_evidence._site.config import at_build_date
    from claim_evidence._site.runner import Stats, display, tasks_for_config, tasks_for_paths

    from ._write import rewrite_file

    caching = caching or CacheChoice(enabled=False)
    check_today(today)
    config = _config(config_path, required=not paths)
    config = at_build_date(config, today) if config is not None else None
    # Without a config, the build date alone (CE406: no review may be dated after it).
    options = config.options if config else PageOptions(freshness=at_build(None, today))
    stats = Stats()

    def echo(err: bool) -> Callable[[str], None]:
        return lambda text: click.echo(text, nl=False, err=err)

    if stdin:
        results, page_out = _check_stdin(options, write, stats)
        # Its findings placed in the sources too; no seal is explained: the page has no git history.
        # With a page on stdout, stdout carries the page alone: the report goes to stderr.
        placed = in_sources(results, config, _no_page, explain=False)
        tally = write_report(placed, output_format, echo(page_out is not None), noun="page", all_warnings=all_warnings)
    else:
        if paths:
            tasks = tasks_for_paths(paths, options, write)
        else:
            assert config is not None
            if not config.pages:
                raise InputError(
                    Diagnostic(
                        "SH006",
                        'registers no pages: list them, e.g. pages = ["**/*.html"]',
                        file=display(config.path or config.root),
                    )
                )
            tasks = tasks_for_config(config, write)
        cache = _cache(caching, config, options)
        records = cache.records() if cache is not None else None
        started = time.time()
        # Findings placed in their sources (the config's sources), broken seals explained, as prepublish does;
        # a text or github report is written page by page. Streamed to a terminal, it is its own progress.
        streamed = output_format in STREAMED_FORMATS and sys.stdout.isatty()
        progress = None if streamed else _progress_bar(len(tasks))
        checked = check_pages(tasks, config, jobs, progress, cache, stats, rewrite_file, records)
        tally = write_report(checked, output_format, echo(False), noun="page", all_warnings=all_warnings)
        if cache is not None:
            if not paths:
                cache.prune(started - 1)  # the whole site was checked: what it did not touch is for pages gone
            cache.close()
            if records is not None:
                records.store.close()
        page_out = None
    code = _exit_code(tally, exit_on_write)
    if tally.rewritten:
        changed = tally.rewritten
        click.echo(
            f"{PROG}: rewrote {changed} page{'' if changed == 1 else 's'} ({_exit_reason(tally, code, exit_on_write)})",
            err=True,
        )
    if (
        options.freshness is not None and options.freshness.aging
    ):  # the date review ages were counted to, and where it came from
        click.echo(f"{PROG}: {options.freshness.describe()}", err=True)
    if caching.report:
        click.echo(f"{PROG} stats: pages={stats.pages} checked={stats.checked} cached={stats.cached}", err=True)
        for line in stats.fallback_lines():
            click.echo(f"{PROG} fallback: {line}", err=True)
    if page_out is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(page_out)
        sys.stdout.buffer.flush()
    return code


def _check_stdin(options: PageOptions, write: bool, stats: Stats) -> tuple[list[FileResult], bytes | None]:
    """``-``: the one page on stdin, checked (and, with --write, rewritten in memory, never on disk);
    ``(results, the bytes for stdout)``, no bytes without --write."""
    from claim_evidence import Diagnostic, InputError
    from claim_evidence._core.report import input_error_result
    from claim_evidence._core.textio import MAX_BYTES
    from claim_evidence._site.runner import Task, check_task, run

    from ._write import MemoryPage

    data = sys.stdin.buffer.read()
    page = MemoryPage(data)
    if len(data) > MAX_BYTES:
        message = f"input is {len(data)} bytes, over the {MAX_BYTES}-byte limit; split it"
        stats.pages += 1
        results = [input_error_result(STDIN_NAME, InputError(Diagnostic("CE004", message, file=STDIN_NAME)))]
    elif write:
        results = list(run([Task(STDIN_NAME, STDIN_NAME, options, True, True)], 1, None, None, stats, page.rewrite))
    else:
        stats.pages += 1
        result = check_task(Task(STDIN_NAME, STDIN_NAME, options, True, False), data)
        stats.count(result)
        results = [result] if result is not None else []
    return results, page.output if write else None


def _no_page(path: str) -> None:
    """The page on stdin is not on disk: its findings about the whole page stay unplaced."""
    return None


def _exit_code(tally: Tally, exit_on_write: bool) -> int:
    """0 clean, 1 findings, 2 unreadable input, write failure or internal error; a page --write fixed is
    clean (ruff's ``--fix``), unless ``exit_on_write`` makes a changed file exit 1 (``--exit-non-zero-on-fix``)."""
    code = tally.exit_code()
    return 1 if exit_on_write and code == 0 and tally.rewritten else code


def _exit_reason(tally: Tally, code: int, exit_on_write: bool) -> str:
    """What the rewrite note says about the exit code: the truth, whichever the mode."""
    if code == 0:
        return "exit 0: nothing left to report"
    if code == 2:
        return "exit 2: a page could not be read, checked or written"
    if tally.exit_code() == 0:
        return "exit 1: files changed"
    return "exit 1: files changed, and findings remain" if exit_on_write else "exit 1: findings remain"


def _cache(caching: CacheChoice, config: Config | None, options: PageOptions) -> Cache | None:
    """The cache at ``--cache-dir``, else :func:`default_folder`."""
    if not caching.enabled:
        return None
    from ._cache import Cache, default_folder, settings_fingerprint

    config_bytes = None
    if config is not None and config.path is not None:
        try:
            config_bytes = config.path.read_bytes()
        except OSError:
            return None  # the config was readable a moment ago; do not guess
    folder = (
        _given_folder(caching.folder)
        if caching.folder is not None
        else default_folder(config.root if config is not None else None, Path.cwd())
    )
    return Cache(folder, settings_fingerprint(options, config_bytes))


def _given_folder(folder: Path) -> Path:
    """``--cache-dir DIR``, refused (SH010) when DIR does not exist and neither does its parent: the cache
    creates DIR on its first write, and a mistyped path must not grow a tree of folders somewhere unseen."""
    from claim_evidence import Diagnostic, InputError

    parent = folder.absolute().parent
    if folder.is_dir() or parent.is_dir():
        return folder
    what = "is not a folder" if parent.exists() else "does not exist"
    message = f"--cache-dir: its parent folder {parent} {what}; create it first, or name a folder inside an existing one (only DIR itself is created)"
    raise InputError(Diagnostic("SH010", message, file=os.fspath(folder)))


def _config(config_path: Path | None, required: bool) -> Config | None:
    import click

    from claim_evidence._site.config import CONFIG_NAME, find_config, load_config
    from claim_evidence._site.runner import display

    path = config_path or find_config(Path.cwd())
    if path is None:
        if required:
            raise click.UsageError(f"give PATHS to check, or run where a {CONFIG_NAME} registers the pages")
        return None
    return load_config(display(path))


def _progress_bar(total: int) -> Callable[[int, int], None] | None:
    if total < PROGRESS_MIN_PAGES or os.environ.get("NO_COLOR") or not sys.stderr.isatty():
        return None

    def show(done: int, of: int) -> None:
        end = "\n" if done == of else ""
        sys.stderr.write(f"\r{done}/{of} pages checked{end}")
        sys.stderr.flush()

    return show


_VERSION = r'^__version__ = "([0-9A-Za-z.+!-]+)"$'  # compiled on first use: --version is the only user


def _version() -> str:
    """``claim_evidence.__version__``, read from the package's source without running it (as
    setuptools' ``attr:`` does): importing the toolkit is most of a short run's cost."""
    spec = importlib.util.find_spec("claim_evidence")
    found = None
    if spec is not None and spec.origin:
        try:
            with open(spec.origin, encoding="utf-8") as handle:
                found = re.search(_VERSION, handle.read(), re.M)
        except (OSError, UnicodeDecodeError):
            pass
    if found:
        return found.group(1)
    import claim_evidence  # a build that ships no plain source (zipped, compiled): ask the package

    return claim_evidence.__version__
