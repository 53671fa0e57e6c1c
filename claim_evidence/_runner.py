"""Run the page check over files, folders or a registered site, in parallel.

Both command lines use it: ``claim-evidence prepublish`` to check, ``static-helper``
to check and (through the ``writer`` it passes in) to re-render stale slots. One
page's failure, even a bug, is that page's result: the run goes on.
"""
from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ._atomic import TEMP_PREFIX
from ._diagnostics import Diagnostic, InputError, internal_error
from ._jsonio import MAX_BYTES, decode_utf8, read_text
from ._page import Page, PageOptions, check_text
from ._report import FileResult, input_error_result
from ._report import exit_code as report_exit_code
from ._site import CACHE_DIR_NAME, Config, registered_pages
from ._splice import InternalError

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv", CACHE_DIR_NAME})
# Below this many pages, starting worker processes costs more than it saves.
MIN_PARALLEL = 64
# Chunks per worker: few enough to keep the pickling overhead low, enough to balance the load.
CHUNKS_PER_WORKER = 4
# What atomic_write_bytes names its temp files (tempfile.mkstemp's random part between).
TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"[A-Za-z0-9_]+\.tmp")
# A temp file lives from mkstemp to os.replace: one page's write and fsync, well under a
# second. One this old is the leftover of a killed run; a younger one may belong to a
# --write running right now, and deleting it would make that run's replace fail.
STALE_TEMP_SECONDS = 60.0


@dataclass(frozen=True)
class Task:
    """One page to check: where it is, how to show it, whether it is registered, whether to write."""

    path: str
    display: str
    options: PageOptions
    registered: bool = True
    write: bool = False


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
        if not stat.S_ISREG(info.st_mode) or (now if now is not None else time.time()) - info.st_mtime < STALE_TEMP_SECONDS:
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


def display(path: Path, cwd: str | None = None) -> str:
    """``path`` relative to the working folder (``cwd``: its real path, when the caller has it), as is if outside."""
    here = cwd if cwd is not None else os.path.realpath(os.getcwd())
    real = os.path.realpath(path)
    if real == here:
        return "."
    prefix = here if here.endswith(os.sep) else here + os.sep
    return real[len(prefix) :] if real.startswith(prefix) else os.fspath(path)


def tasks_for_paths(paths: Sequence[Path], options: PageOptions, write: bool) -> list[Task]:
    """Tasks for files and folders; a --write run first cleans stale temp files where it looks.

    A folder without a page is an :class:`InputError` (SH006): a mistyped path must not pass a CI run.
    """
    tasks: list[Task] = []
    for path in paths:
        if path.is_dir():
            found = [Task(os.fspath(p), os.fspath(p), options, True, write) for p in html_files(path, write)]
            if not found:
                message = "no pages found under this folder (looked for *.html; hidden folders are skipped)"
                raise InputError(Diagnostic("SH006", message, file=os.fspath(path)))
            tasks.extend(found)
        else:
            if write:
                _clean_folder(Path(os.path.realpath(path)).parent)
            tasks.append(Task(os.fspath(path), os.fspath(path), options, True, write))
    return tasks


def tasks_for_config(config: Config, write: bool) -> list[Task]:
    """Registered pages, then every other ``*.html`` under the site root (reported only if it has markup)."""
    registered = registered_pages(config)
    cwd = os.path.realpath(os.getcwd())
    listed = set(registered)
    known = {os.path.realpath(p) for p in registered}
    tasks = [Task(os.fspath(p), display(p, cwd), config.options, True, write) for p in registered]
    for path in html_files(config.root, write):
        # The walk and the globs spell a registered page the same way; only other paths need resolving.
        if path not in listed and os.path.realpath(path) not in known:
            tasks.append(Task(os.fspath(path), display(path, cwd), config.options, False, False))
    return tasks


@dataclass
class PageResult(FileResult):
    """A page's result, and how many of its evidence slots this run wrote to disk."""

    rewritten: int = 0


@dataclass
class Stats:
    """How a run went: pages seen, pages actually read and checked, pages answered from the cache."""

    pages: int = 0
    checked: int = 0
    cached: int = 0


class ResultCache(Protocol):
    """What the runner needs of a cache of passing results (static-helper's ``Cache``)."""

    def key(self, display: str, registered: bool, data: bytes) -> str: ...

    def get(self, key: str, display: str) -> tuple[bool, FileResult | None]: ...

    def put(self, key: str, result: FileResult | None) -> None: ...


# Re-renders a page's stale slots in place: ``(page as checked, slots rewritten)``.
Writer = Callable[[str, PageOptions, str], tuple[Page, int]]


def run(
    tasks: Sequence[Task],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cache: ResultCache | None = None,
    stats: Stats | None = None,
    writer: Writer | None = None,
) -> list[FileResult]:
    """Check every task, in parallel when it pays; results in task order (unmarked unregistered pages dropped).

    Workers get the pages in chunks, are set up once, and send back only results;
    results stream in task order, so memory does not grow with page texts.
    ``writer`` (a module-level function, so workers can receive it) handles tasks
    marked ``write``; without one such a task fails as an internal error.
    """
    stats = stats if stats is not None else Stats()
    stats.pages += len(tasks)
    worker = _Worker(cache, writer)
    if jobs > 1 and len(tasks) >= MIN_PARALLEL:
        workers = min(jobs, len(tasks))
        chunk = max(1, -(-len(tasks) // (workers * CHUNKS_PER_WORKER)))
        with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(worker,)) as pool:
            return _collect(pool.map(_check, tasks, chunksize=chunk), len(tasks), progress, stats)
    previous = _WORKER[0]
    _start_worker(worker)
    try:
        return _collect(map(_check, tasks), len(tasks), progress, stats)
    finally:
        _start_worker(previous)


@dataclass(frozen=True)
class _Worker:
    """What each worker process is set up with once."""

    cache: ResultCache | None = None
    writer: Writer | None = None


_WORKER: list[_Worker] = [_Worker()]


def _start_worker(worker: _Worker) -> None:
    _WORKER[0] = worker


def _collect(
    outcomes: Iterator[tuple[FileResult | None, bool]],
    total: int,
    progress: Callable[[int, int], None] | None,
    stats: Stats,
) -> list[FileResult]:
    results = []
    for done, (outcome, checked) in enumerate(outcomes, 1):
        if checked:
            stats.checked += 1
        else:
            stats.cached += 1
        if outcome is not None:
            results.append(outcome)
        if progress is not None:
            progress(done, total)
    return results


def _check(task: Task) -> tuple[FileResult | None, bool]:
    """``(result, whether the page was checked)``: from the cache when the same page passed before."""
    cache = _WORKER[0].cache
    if cache is None:
        return check_task(task), True
    try:
        with open(task.path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return check_task(task), True  # check_task reports the problem
    if len(data) > MAX_BYTES:
        return check_task(task), True
    key = cache.key(task.display, task.registered, data)
    hit, found = cache.get(key, task.display)
    if hit:
        return found, False
    result = check_task(task, data)
    # A page --write just rewrote passes as its new bytes, not as ``data``: never cache that.
    if (result is None or result.outcome() == "pass") and not _rewrote(result):
        cache.put(key, result)
    return result, True


def _rewrote(result: FileResult | None) -> bool:
    return isinstance(result, PageResult) and result.rewritten > 0


def rewritten_pages(results: Sequence[FileResult]) -> int:
    return sum(1 for r in results if _rewrote(r))


def exit_code(results: Sequence[FileResult]) -> int:
    """2: unreadable input, write failure or internal error; 1: findings, or a page that
    --write changed (as formatters do, so pre-commit shows the change); else 0."""
    code = report_exit_code(results)
    return 1 if code == 0 and any(_rewrote(r) for r in results) else code


def check_task(task: Task, data: bytes | None = None) -> FileResult | None:
    """One page's result; never raises, not even for a bug: that becomes this page's ``error`` result.

    ``data``: the page's bytes when the caller has read them already.
    """
    try:
        return _check_page(task, data)
    except Exception as exc:  # a bug must cost this page, not the run (nor a worker pool)
        return FileResult(task.display, [internal_error(exc, task.display)], status="error")


def _check_page(task: Task, data: bytes | None) -> FileResult | None:
    try:
        if not task.registered:
            page = check_text(_text(task, data), task.display, task.options)
            if not page.has_markup:
                return None
            detail = "carries evidence markup but is not registered in claim-evidence.toml"
            return FileResult(task.display, status="unregistered", detail=detail)
        if task.write:
            writer = _WORKER[0].writer
            if writer is None:
                raise InternalError("a --write task reached a run without a writer")
            page, rewritten = writer(task.path, task.options, task.display)
        else:
            page, rewritten = check_text(_text(task, data), task.display, task.options), 0
    except InternalError as exc:
        return FileResult(task.display, [Diagnostic("SH009", str(exc), file=task.display)], status="error")
    except InputError as exc:
        if not task.registered:
            return None  # a stray unreadable file that is not a page of the site
        return input_error_result(task.display, exc)
    return _result(task, page, rewritten)


def _text(task: Task, data: bytes | None) -> str:
    return read_text(task.path) if data is None else decode_utf8(data, task.path)


def _result(task: Task, page: Page, rewritten: int) -> FileResult:
    diagnostics = [d for d in page.diagnostics if not (rewritten and d.code == "SH140")]
    if task.write and page.errors and page.stale:
        diagnostics.append(not_rewritten(page, task.display))
    if not page.has_markup:
        return FileResult(task.display, diagnostics, detail="no evidence markup")
    claims = len(page.claims)
    detail = f"{claims} claim{'' if claims == 1 else 's'} bound"
    if rewritten:
        detail += f", {rewritten} evidence slot{'' if rewritten == 1 else 's'} re-rendered"
    return PageResult(task.display, diagnostics, detail=detail, rewritten=rewritten)


def not_rewritten(page: Page, display: str) -> Diagnostic:
    """Why ``--write`` left a page with stale slots alone: the findings it must not paper over."""
    first = page.errors[0]
    gist = first.message.split(":")[0].split(" (")[0].split(". ")[0]
    others = sorted({d.code for d in page.errors} - {first.code})
    also = f" (and {', '.join(others)})" if others else ""
    message = f"not rewritten: fix {first.code} ({gist}){also} first; the page was left unchanged"
    return Diagnostic("SH150", message, file=display, subject="page")
