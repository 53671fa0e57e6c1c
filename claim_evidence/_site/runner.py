"""Run the page check over files, folders or a registered site, in parallel.

Both command lines use it: ``claim-evidence prepublish`` to check, ``static-helper``
to check and (through the ``writer`` it passes in) to re-render stale slots. One
page's failure, even a bug, is that page's result: the run goes on.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .._check.options import STRIPPED, PageOptions
from .._check.recordcache import RecordCache
from .._check.rewrite import write_findings
from .._core.atomic import TEMP_PREFIX, deferred_folder_syncs
from .._core.diagnostics import Diagnostic, InputError, internal_error
from .._core.report import FileResult, input_error_result
from .._core.splice import InternalError
from .._core.textio import MAX_BYTES, bom_of, decode_utf8, read_text
from .config import CACHE_DIR_NAME, CONFIG_NAME, Config, GlobMatch, site_pages, site_path

if TYPE_CHECKING:
    from .._check.page import Page
    from .._check.prefix import Prefix
    from .._html.relocate import Head


def check_text(text: str, name: str | None, options: PageOptions, records: RecordCache | None = None) -> Page:
    """The page check (:func:`.._check.page.check_text`), imported on first use: a run answered from the
    cache never loads the checker (the tokenizer, validation, jinja2)."""
    from .._check.page import check_text as check

    return check(text, name, options, records=records)


SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", CACHE_DIR_NAME})
# Below this many pages, starting worker processes costs more than it saves.
MIN_PARALLEL = 64
# Chunks per worker: few enough to keep the pickling overhead low, enough to balance the load (with 4,
# a worker sat idle at the end of a 1,000-page run while the other finished a 125-page chunk: alternating
# whole-process pairs, --jobs 2 over --jobs 1, median of 8: 0.586 with 4, 0.557 with 16).
CHUNKS_PER_WORKER = 16
# What atomic_write_bytes names its temp files (tempfile.mkstemp's random part between).
TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"[A-Za-z0-9_]+\.tmp")
# A temp file lives from mkstemp to os.replace: one page's write and fsync, well under a
# second. One this old is the leftover of a killed run; a younger one may belong to a
# --write running right now, and deleting it would make that run's replace fail.
STALE_TEMP_SECONDS = 60.0
# A registered page's result detail when it has no claim element, slot or bundle (SH007 counts them).
NO_MARKUP = "no evidence markup"


@dataclass(frozen=True, slots=True)
class Task:
    """One page to check: where it is, how to show it, whether it is registered, whether to write,
    and (a run over a config's pages) the config as shown, which SH007 names. A run holds one per page
    while it lasts: slots keep it at a fifth of an instance with a ``__dict__`` (70 bytes against 350)."""

    path: str
    display: str
    options: PageOptions
    registered: bool = True
    write: bool = False
    config: str | None = None
    # The folder a --write may not leave (CE011): the config's folder, else the folder given, else the
    # named file's own folder. None: unchecked (a page that is not a file).
    root: str | None = None


def html_files(folder: Path, clean_temps: bool = False) -> Iterator[Path]:
    """``*.html`` under ``folder``, sorted; hidden folders/files (temp files too) and tool folders skipped.

    ``clean_temps``: also delete the temp files a killed ``--write`` left in the folders walked.
    """
    for here, files in walk_site(folder):
        for name in files:
            if name.endswith(".html") and not name.startswith("."):
                yield here / name
            elif clean_temps and TEMP_NAME.fullmatch(name):
                remove_stale_temp(here / name)


def walk_site(folder: Path) -> Iterator[tuple[Path, list[str]]]:
    """Each folder a site walk looks in, with its file names, sorted: hidden folders and
    :data:`SKIPPED_DIRS` are not entered (``init`` registers exactly what the gate walks)."""
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        yield Path(here), sorted(files)


def remove_stale_temp(path: Path, now: float | None = None) -> bool:
    """Delete ``path`` if it is a regular file named like our temp files and older than
    :data:`STALE_TEMP_SECONDS`; True when it was deleted. Never raises."""
    if not TEMP_NAME.fullmatch(path.name):
        return False
    try:
        info = path.lstat()
        if (
            not stat.S_ISREG(info.st_mode)
            or (now if now is not None else time.time()) - info.st_mtime < STALE_TEMP_SECONDS
        ):
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _clean_folder(folder: Path) -> None:
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if TEMP_NAME.fullmatch(name):
            remove_stale_temp(folder / name)


class RealPaths:
    """``os.path.realpath`` of the many files of one site, resolving each folder once: a realpath makes a
    system call per component of the path (some 15–30 µs a page; a site's pages share a few dozen
    folders). A file that is itself a link is resolved whole; each path is resolved once (a page is
    asked for twice: to tell it from a link's target, and to show it)."""

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}
        self.paths: dict[str, str] = {}

    def __call__(self, path: str | os.PathLike[str]) -> str:
        given = os.fspath(path)
        known = self.paths.get(given)
        if known is None:
            known = self.paths[given] = self._resolve(given)
        return known

    def _resolve(self, path: str) -> str:
        if ".." in path:
            return os.path.realpath(path)  # (abspath would drop "x/.." before x's link is followed)
        folder, name = os.path.split(os.path.abspath(path))
        real = self.folders.get(folder)
        if real is None:
            real = self.folders[folder] = os.path.realpath(folder)
        full = os.path.join(real, name)
        return os.path.realpath(full) if not name or os.path.islink(full) else full


def display(path: Path, cwd: str | None = None, realpath: Callable[[Path], str] = os.path.realpath) -> str:
    """``path`` relative to the working folder (``cwd``: its real path, when the caller has it), as is if
    outside; ``realpath``: how to resolve it (:class:`RealPaths` for a site's many pages)."""
    here = cwd if cwd is not None else os.path.realpath(os.getcwd())
    real = realpath(path)
    if real == here:
        return "."
    prefix = here if here.endswith(os.sep) else here + os.sep
    return real[len(prefix) :] if real.startswith(prefix) else os.fspath(path)


def tasks_for_paths(paths: Sequence[Path], options: PageOptions, write: bool) -> list[Task]:
    """Tasks for files and folders; a --write run first cleans stale temp files where it looks.

    With a config (``options.site``), files that ``exclude`` leaves out are skipped, named ones too
    (a pre-commit hook names every changed ``*.html``, templates included), and each page learns
    where it is served and whether ``require`` names it.
    A folder without a page is an :class:`InputError` (SH006): a mistyped path must not pass a CI run.
    """
    site = _Site(options) if options.site is not None else None
    tasks: list[Task] = []
    for path in paths:
        if path.is_dir():
            found, left_out = [], 0
            root = os.fspath(site.root) if site else os.path.realpath(path)
            for page in html_files(path, write):
                if site is not None and site.excluded(page):
                    left_out += 1
                    continue
                found.append(
                    Task(
                        os.fspath(page),
                        os.fspath(page),
                        site.options_for(page) if site else options,
                        True,
                        write,
                        root=root,
                    )
                )
            if not found:
                message = "no pages found under this folder (looked for *.html; hidden folders are skipped)"
                if left_out:
                    message += f"; exclude in claim-evidence.toml leaves out the {left_out} found"
                raise InputError(Diagnostic("SH006", message, file=os.fspath(path)))
            tasks.extend(found)
        else:
            if site is not None and site.excluded(path):
                continue
            if write:
                _clean_folder(Path(os.path.realpath(path)).parent)
            root = os.fspath(site.root) if site else os.path.realpath(os.path.dirname(os.path.abspath(path)))
            tasks.append(
                Task(
                    os.fspath(path),
                    os.fspath(path),
                    site.options_for(path) if site else options,
                    True,
                    write,
                    root=root,
                )
            )
    return tasks


class _Site:
    """A config's site seen from pages named on the command line: what ``exclude`` leaves out, what
    ``require`` names, and where each page is served."""

    def __init__(self, options: PageOptions) -> None:
        assert options.site is not None
        self.base = options
        self.root = Path(options.site.root)
        self.left_out = GlobMatch(self.root, options.site.exclude, "exclude")
        self.require = GlobMatch(self.root, options.site.require, "require")

    def excluded(self, path: Path) -> bool:
        return bool(self.left_out) and site_path(self.root, path) in self.left_out

    def options_for(self, path: Path) -> PageOptions:
        relative = site_path(self.root, path)
        return page_options(self.base, relative, relative in self.require.files)


def page_options(options: PageOptions, relative: str | None, required: bool) -> PageOptions:
    """The site's options for one page: where it is served (its path under the web root, from its path
    under the site root ``relative``) and whether it must carry evidence."""
    web_root = options.site.web_root if options.site else ""
    page = (
        relative
        if not web_root or relative is None
        else (relative[len(web_root) + 1 :] if relative.startswith(web_root + "/") else None)
    )
    if page == options.page and required == options.required:
        return options
    return dataclasses.replace(options, page=page, required=required)


def tasks_for_config(config: Config, write: bool) -> list[Task]:
    """Registered pages, then every other ``*.html`` under the site root (reported only if it has
    markup) that ``exclude`` does not leave out."""
    pages = site_pages(config)
    registered = pages.registered
    cwd = os.path.realpath(os.getcwd())
    shown = display(config.path or config.root, cwd)
    listed = set(registered)
    real = RealPaths()
    known = {real(p) for p in registered}
    tasks = []
    for p in registered:
        options = page_options(config.options, site_path(config.root, p), p in pages.required)
        tasks.append(Task(os.fspath(p), display(p, cwd, real), options, True, write, shown, os.fspath(config.root)))
    if write:
        # A registered page may sit where the walk below does not go (a hidden folder, one of
        # SKIPPED_DIRS): its folder is where a killed --write left the temp file.
        for folder in sorted({Path(os.path.realpath(p)).parent for p in registered}):
            _clean_folder(folder)
    for path in html_files(config.root, write):
        # The walk and the globs spell a registered page the same way; only other paths need resolving.
        if path in listed or (pages.excluded and site_path(config.root, path) in pages.excluded):
            continue
        if real(path) not in known:
            tasks.append(Task(os.fspath(path), display(path, cwd, real), config.options, False, False, shown))
    return tasks


@dataclass
class Stats:
    """How a run went: pages seen, pages actually read and checked, pages answered from the cache; of the
    checked pages with evidence markup, how many the fast path located and why it left the others to the
    reference tokenizer (:func:`.._html.fastpath.attempt`'s reasons, counted)."""

    pages: int = 0
    checked: int = 0
    cached: int = 0
    fast: int = 0
    fallbacks: Counter[str] = field(default_factory=Counter)

    def count(self, checked: FileResult | None) -> None:
        """Count a page that was read and checked (not answered from the cache)."""
        self.checked += 1
        if checked is not None and checked.fallback is not None:
            if checked.fallback:
                self.fallbacks[checked.fallback] += 1
            else:
                self.fast += 1

    def fallback_lines(self) -> list[str]:
        """The fast path's share and each reason's count (most frequent first), when any page fell back."""
        left = sum(self.fallbacks.values())
        if not left:
            return []
        total = left + self.fast
        lines = [
            f"{left} of {total} pages with evidence markup left to the reference tokenizer ({100 * left / total:.1f}%)"
        ]
        ranked = sorted(self.fallbacks.items(), key=lambda item: (-item[1], item[0]))
        return lines + [f"{count} {why}" for why, count in ranked]


class ResultCache(Protocol):
    """What the runner needs of a cache of passing results (static-helper's ``Cache``)."""

    def key(self, display: str, registered: bool, data: bytes) -> str: ...

    def get(self, key: str, display: str) -> tuple[bool, FileResult | None]: ...

    def put(self, key: str, result: FileResult | None) -> None: ...

    def prefix_key(self, display: str, registered: bool) -> str: ...

    def get_prefix(self, key: str, display: str) -> tuple[Prefix, FileResult] | None: ...

    def put_prefix(self, key: str, result: FileResult) -> None: ...

    def keep_prefix(self, key: str) -> None: ...


# Re-renders a page's stale slots in place, never outside the root, checking it with the run's record cache:
# ``(path, options, display, root, records) -> (page as checked, slots rewritten, the bytes it wrote or None)``.
Writer = Callable[[str, PageOptions, str, "str | None", "RecordCache | None"], "tuple[Page, int, bytes | None]"]


def run(
    tasks: Sequence[Task],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cache: ResultCache | None = None,
    stats: Stats | None = None,
    writer: Writer | None = None,
    records: RecordCache | None = None,
) -> Iterator[FileResult]:
    """Check every task, in parallel when it pays; results in task order (unmarked unregistered pages
    dropped) as each is ready, then the site's own finding (:func:`site_findings`).

    Workers get the pages in chunks, are set up once, and send back only results;
    results stream in task order and are handed on one by one, so memory grows neither with page texts
    nor with results: a caller that reports each and lets it go (``static-helper``'s text report) holds
    none. ``writer`` (a module-level function, so workers can receive it) handles tasks
    marked ``write``; without one such a task fails as an internal error. ``records`` turns the
    record cache on for the page checks (see :mod:`claim_evidence._check.recordcache`). The three
    travel together as the run's :class:`RunState`, passed to every check, never through a module
    global of the process that runs the checks. ``stats`` is complete once the iterator is exhausted.
    """
    stats = stats if stats is not None else Stats()
    stats.pages += len(tasks)
    state = RunState(cache, writer, records)
    vanished = Vanished(tasks)
    if jobs > 1 and len(tasks) >= MIN_PARALLEL:
        workers = min(jobs, len(tasks))
        chunk = max(1, -(-len(tasks) // (workers * CHUNKS_PER_WORKER)))
        # Imported only when a pool is made: concurrent.futures.process and multiprocessing cost a serial run
        # (--jobs 1, one page, a run answered from the cache) some 10 ms of start-up for nothing.
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(state,)) as pool:
            outcomes = pool.map(_check_in_worker, tasks, chunksize=chunk)
            yield from vanished.seeing(_collect(outcomes, len(tasks), progress, stats))
    else:
        # A serial --write fsyncs each folder once, when the run ends, not after each page it rewrote
        # (one fsync of two per page: 2.4 ms each on the benchmark's disk, where a page's parse costs 0.6 ms).
        with deferred_folder_syncs():
            yield from vanished.seeing(_collect((_check(state, task) for task in tasks), len(tasks), progress, stats))
    yield from vanished.findings()


def site_findings(tasks: Sequence[Task], results: Sequence[FileResult]) -> list[FileResult]:
    """SH007, on the config: a run over a config's pages in which every registered page was read and
    none carries evidence markup (:class:`Vanished`, over the results at once)."""
    vanished = Vanished(tasks)
    for _ in vanished.seeing(iter(results)):
        pass
    return vanished.findings()


class Vanished:
    """Whether a site's evidence vanished (SH007), told from its results one by one, keeping counts only.

    Every page passes on its own, so only the site as a whole can tell that its evidence is gone (a
    generator that dropped it all, globs naming the wrong files): a run over a config's pages in which
    every registered page was read and none carries evidence markup.
    """

    def __init__(self, tasks: Sequence[Task]) -> None:
        self.configs = {t.display: t.config for t in tasks if t.registered and t.config is not None}
        self.found = 0  # results of registered pages
        self.marked = False  # one of them carries evidence markup (or could not be read)
        self.stripped = 0  # of them, with a generator's trace of dropped raw HTML

    def seeing(self, results: Iterator[FileResult]) -> Iterator[FileResult]:
        """``results``, each counted as it passes."""
        configs = self.configs
        for result in results:
            if result.path in configs:
                self.found += 1
                if result.detail != NO_MARKUP:
                    self.marked = True
                elif any(d.code == STRIPPED for d in result.diagnostics):
                    self.stripped += 1
            yield result

    def findings(self) -> list[FileResult]:
        """SH007 on the config, once every result was seen, when the evidence vanished."""
        if not self.configs or self.found != len(self.configs) or self.marked:
            return []
        shown = next(iter(self.configs.values()))
        assert shown is not None
        return [FileResult(shown, [no_evidence(shown, self.found, self.stripped)])]


def no_evidence(config: str, checked: int, stripped: int) -> Diagnostic:
    """SH007 on ``config`` (as shown): ``checked`` registered pages, none with evidence markup, ``stripped``
    of them with a generator's trace of dropped raw HTML. The generator plugins, which see the pages one by
    one as the build writes them, say it in the same words."""
    count = f"{checked} page{'' if checked == 1 else 's'} checked"
    message = (
        f"the registered pages carry no evidence markup at all ({count}; not one has a claim element, evidence slot "
        "or bundle script), so nothing was checked, and a gate must not pass a site whose evidence vanished in the "
        "build. "
        + (
            f"The site generator dropped raw HTML from {stripped} of them (SH161): fix the build first. "
            if stripped
            else ""
        )
        + "Check that pages names the built pages that carry evidence (a new site: mark a claim first, with "
        "claim-evidence claim add), and list in require the pages that must carry it, so that each fails on its own "
        "when it loses it (SH160)"
    )
    return Diagnostic("SH007", message, subject="config", file=config)


@dataclass(frozen=True)
class RunState:
    """What every page check of one run shares: made once per run by :func:`run` and handed to each
    check, and (a parallel run) to each worker process once, when the pool starts it."""

    cache: ResultCache | None = None
    writer: Writer | None = None
    records: RecordCache | None = None


# The one per-process slot: a worker process's RunState, set once by the pool's initializer. ``pool.map``
# sends a worker only the function and its chunk of tasks; handing the state over with every chunk instead
# would pickle the caches (their SQLite stores) again and again, and open them again in the worker. The
# parent process never sets it (a serial run hands its state to each check), so no run sees another's.
_IN_WORKER: list[RunState] = []


def _start_worker(state: RunState) -> None:
    _IN_WORKER[:] = [state]


def _check_in_worker(task: Task) -> tuple[FileResult | None, bool]:
    return _check(_IN_WORKER[0], task)


def _collect(
    outcomes: Iterator[tuple[FileResult | None, bool]],
    total: int,
    progress: Callable[[int, int], None] | None,
    stats: Stats,
) -> Iterator[FileResult]:
    for done, (outcome, checked) in enumerate(outcomes, 1):
        if checked:
            stats.count(outcome)
        else:
            stats.cached += 1
        if progress is not None:
            progress(done, total)
        if outcome is not None:
            yield outcome


def _check(state: RunState, task: Task) -> tuple[FileResult | None, bool]:
    """``(result, whether the page was checked)``: from the cache when the same page passed before."""
    cache = state.cache
    if cache is None:
        return check_task(task, None, state), True
    try:
        with open(task.path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return check_task(task, None, state), True  # check_task reports the problem
    if len(data) > MAX_BYTES:
        return check_task(task, None, state), True
    identity = _identity(task)
    key = cache.key(identity, task.registered, data)
    hit, found = cache.get(key, task.display)
    prefix_key = cache.prefix_key(identity, task.registered)
    if hit:
        # (Its prefix entry is still the page's: a run over the whole site prunes what it neither wrote nor
        # read, and the next build, a new stamp after the evidence, is answered by it.)
        cache.keep_prefix(prefix_key)
        _keep_record(state.records, found)
        return found, False
    answered, read = _from_prefix(cache, prefix_key, task, data)
    if answered is not None:
        _keep_record(state.records, answered)
        cache.put(key, answered)  # (the same bytes next time: answered by their own entry, without decoding)
        return answered, False
    result = check_task(task, data, state, read)
    if result is not None and result.rewritten:
        # A page --write just rewrote: its result is not that of ``data`` but of the bytes it wrote, kept as
        # their check's (``put`` keeps a passing one only).
        if result.written is not None:
            written, checked = result.written
            result.written = None  # (not sent back from a worker with the result: a page's bytes)
            cache.put(cache.key(identity, task.registered, written), checked)
            if checked.prefix is not None and checked.outcome() == "pass":
                cache.put_prefix(prefix_key, checked)
        return result, True
    if result is None or result.outcome() == "pass":
        cache.put(key, result)
        if result is not None and result.prefix is not None:
            cache.put_prefix(prefix_key, result)
    return result, True


def _keep_record(records: RecordCache | None, result: FileResult | None) -> None:
    """Keep the record entry of a page answered without a check (``result.record``) in use: its records are
    not read, and a record entry unused for days goes in a run's prune; the page's next check (a build that
    changed it where no entry answers) would then validate and render its records again."""
    if records is not None and result is not None and result.record is not None:
        records.keep(result.record)


class Read(NamedTuple):
    """What answering a page from its prefix entry read of it, which the page's check then does not read
    again: its text (decoded) and its head as read against the entry's (:func:`.._check.prefix.read_head`),
    None where not read. A build that changed every page between its head and its evidence (a stamp before
    the first claim) reads each head once, not once to test the entry and again for the next one."""

    text: str | None = None
    head: Head | None = None


_NOT_READ = Read()


def _from_prefix(cache: ResultCache, prefix_key: str, task: Task, data: bytes) -> tuple[FileResult | None, Read]:
    """The page's last passing result, when its new bytes check as the page it came from did: the text
    up to the last evidence element unchanged, nothing after it that could add markup, the same language
    and newline (:func:`.._check.prefix.prefix_holds` says why that is exact). A generator's rebuild that
    only changed what follows the evidence (a build stamp, a footer) is answered so. With it, what was
    read of the page (:class:`Read`)."""
    kept = cache.get_prefix(prefix_key, task.display)
    if kept is None:
        return None, _NOT_READ
    prefix, result = kept
    from .._html.relocate import starts_with  # (only runs that kept a prefix: the cached ones load no checker)

    body = data[len(bom_of(data)) :]  # (the text is that of the bytes after a byte-order mark)
    # A page with a head is answered by it whether its head or its rest changed (the same head and text
    # up to the end of the evidence is the prefix's case); one without is tested for the prefix undecoded.
    if prefix.head is None and not starts_with(body, prefix.cut):
        return None, _NOT_READ
    try:
        text = decode_utf8(data, task.path)
    except InputError:
        return None, _NOT_READ
    if prefix.head is None:
        from .._check.prefix import prefix_holds

        return (result if prefix_holds(prefix, text, task.options, same_start=True) else None), Read(text)
    return _from_head(cache, prefix_key, task, prefix, result, body, text)


def _from_head(
    cache: ResultCache, prefix_key: str, task: Task, prefix: Prefix, result: FileResult, data: bytes, text: str
) -> tuple[FileResult | None, Read]:
    """The page's last passing result with every finding moved by the lines its head gained, when its new
    text is that page with only its head changed in what decides nothing (a build stamp in a comment, a
    ``<meta>`` date, indentation) and its rest in what adds nothing (:func:`.._check.prefix.head_moved` says
    why that is exact); with a head of another length, it becomes the page's prefix entry. With it, what
    was read of the page."""
    from .._check.prefix import head_moved, moved_findings, read_head

    head = read_head(prefix, data, text, task.options)
    read = Read(text, head)
    moved = None if head is None else head_moved(prefix, data, text, task.options, read=head)
    diagnostics = None if moved is None else moved_findings(result.diagnostics, prefix, moved)
    if moved is None or diagnostics is None:
        return None, read
    answered = FileResult(result.path, diagnostics, detail=result.detail)
    answered.prefix, answered.record = moved, result.record
    if moved.head != prefix.head:  # (the same head, middle and rest test: the kept entry answers the next build too)
        cache.put_prefix(prefix_key, answered)
    return answered, read


def _identity(task: Task) -> str:
    """The page as the cache knows it beyond its bytes and the run's settings: its path as shown and, in a
    configured site, where it is served and whether ``require`` names it (the same bytes may link the
    stylesheet correctly in one folder and not in another; the same path as shown may be another file
    when the run starts in another folder)."""
    options = task.options
    if options.page is None and not options.required:
        return task.display
    return f"{task.display}\0{options.page}\0{int(options.required)}"


def check_task(
    task: Task, data: bytes | None = None, state: RunState = RunState(), read: Read = _NOT_READ
) -> FileResult | None:
    """One page's result; never raises, not even for a bug: that becomes this page's ``error`` result.

    ``data``: the page's bytes when the caller has read them already. ``state``: the run's (its writer,
    for a ``write`` task, and its record cache); by default none. ``read``: what the page cache read of
    ``data`` (:class:`Read`), not read again.
    """
    try:
        return _check_page(task, data, state, read)
    except Exception as exc:  # a bug must cost this page, not the run (nor a worker pool)
        return FileResult(task.display, [internal_error(exc, task.display)], status="error")


def _check_page(task: Task, data: bytes | None, state: RunState, read: Read) -> FileResult | None:
    try:
        if task.write and task.registered:
            writer = state.writer
            if writer is None:
                raise InternalError("a --write task reached a run without a writer")
            page, rewritten, written = writer(task.path, task.options, task.display, task.root, state.records)
        else:
            text = read.text if read.text is not None else _text(task, data)
            from .._html.locate import might_have_markup

            if not might_have_markup(text):
                return _unmarked(task, text)
            page, rewritten, written = check_text(text, task.display, task.options, state.records), 0, None
            if not task.registered:
                if not page.has_markup:
                    return None
                return FileResult(
                    task.display, status="unregistered", detail=unregistered_detail(task), fallback=page.fallback
                )
    except InternalError as exc:
        return FileResult(task.display, [Diagnostic("SH009", str(exc), file=task.display)], status="error")
    except InputError as exc:
        if not task.registered:
            return None  # a stray unreadable file that is not a page of the site
        return input_error_result(task.display, exc)
    result = _result(task, page, rewritten)
    if state.cache is not None:
        from .._check.facts import record_key
        from .._check.prefix import page_prefix

        if not rewritten:
            head = read.head if page.text is read.text else None  # (a --write task's writer reads the file again)
            result.prefix, result.record = page_prefix(page, head), record_key(page)
        elif written is not None and page.written is not None:
            # The page as written, as its rewrite's proof established it (what a check of it finds): the
            # next run, reading the written bytes, is answered by its entries, a later build by its prefix.
            checked = _result(task, page.written, 0)
            checked.prefix, checked.record = page_prefix(page.written), record_key(page.written)
            result.written = written, checked
    return result


def unregistered_detail(task: Task) -> str:
    """UNREGISTERED's detail: the glob that would register the page (its folder's ``*.html``) and the file
    to put it in, so the fix is one copy away. A file outside ``web_root`` is no page the site serves (a
    generator's include or layout): ``exclude`` is what it needs, not ``pages``."""
    site = task.options.site
    config = task.config or CONFIG_NAME
    relative = site_path(Path(site.root), Path(task.path)) if site is not None else None
    if site is None or relative is None:
        return f"carries evidence markup but is not registered in {config}"
    folder = relative.rpartition("/")[0]
    glob = f"{folder}/*.html" if folder else "*.html"
    if site.web_root and not relative.startswith(site.web_root + "/"):
        return (
            f"carries evidence markup but is not registered in {config}, and lies outside web_root "
            f'({site.web_root}), so the site does not serve it: if it is a template, add "{glob}" to exclude there'
        )
    return f'carries evidence markup but is not registered in {config}: add "{glob}" to pages there (or, if it is a template, to exclude)'


def _unmarked(task: Task, text: str) -> FileResult | None:
    """The result of a page whose text holds no evidence keyword, so no evidence markup: what its check
    gives (:func:`.._check.unmarked.unmarked_findings`; None for a page the site does not register),
    found without the checker, which a run whose other pages the cache answers then never loads (most
    of a site's pages are such pages)."""
    if not task.registered:
        return None
    from .._check.unmarked import unmarked_findings
    from .._html.locate import Located

    return FileResult(task.display, unmarked_findings(Located(text), task.display, task.options), detail=NO_MARKUP)


def _text(task: Task, data: bytes | None) -> str:
    return read_text(task.path) if data is None else decode_utf8(data, task.path)


def _result(task: Task, page: Page, rewritten: int) -> FileResult:
    diagnostics = write_findings(page, task.display, rewritten, task.write)
    if not page.has_markup:
        return FileResult(task.display, diagnostics, detail=NO_MARKUP)
    claims = len(page.claims)
    detail = f"{claims} claim{'' if claims == 1 else 's'} bound"
    if rewritten:
        detail += f", {rewritten} evidence slot{'' if rewritten == 1 else 's'} re-rendered"
    return FileResult(task.display, diagnostics, detail=detail, rewritten=rewritten, fallback=page.fallback)
