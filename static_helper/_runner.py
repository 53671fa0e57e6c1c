"""Run the page check over files, folders or a registered site, in parallel, and write safely."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from claim_evidence import Diagnostic, InputError
from claim_evidence._atomic import atomic_write_bytes
from claim_evidence._jsonio import read_text
from claim_evidence._report import FileResult

from ._config import Config, registered_pages
from ._page import Page, PageOptions, check_text
from ._splice import InternalError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

_BOM = b"\xef\xbb\xbf"
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv"})
# Below this many pages, starting worker processes costs more than it saves.
MIN_PARALLEL = 8
WRITE_ATTEMPTS = 5


@dataclass(frozen=True)
class Task:
    """One page to check: where it is, how to show it, whether it is registered, whether to write."""

    path: str
    display: str
    options: PageOptions
    registered: bool = True
    write: bool = False


def html_files(folder: Path) -> Iterator[Path]:
    """``*.html`` under ``folder``, sorted; hidden folders/files (temp files too) and tool folders skipped."""
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".html") and not name.startswith("."):
                yield Path(here) / name


def display(path: Path) -> str:
    try:
        return os.fspath(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return os.fspath(path)


def tasks_for_paths(paths: Sequence[Path], options: PageOptions, write: bool) -> list[Task]:
    tasks = []
    for path in paths:
        if path.is_dir():
            tasks.extend(Task(os.fspath(p), os.fspath(p), options, True, write) for p in html_files(path))
        else:
            tasks.append(Task(os.fspath(path), os.fspath(path), options, True, write))
    return tasks


def tasks_for_config(config: Config, write: bool) -> list[Task]:
    """Registered pages, then every other ``*.html`` under the site root (reported only if it has markup)."""
    registered = registered_pages(config)
    known = {p.resolve() for p in registered}
    tasks = [Task(os.fspath(p), display(p), config.options, True, write) for p in registered]
    for path in html_files(config.root):
        if path.resolve() not in known:
            tasks.append(Task(os.fspath(path), display(path), config.options, False, False))
    return tasks


def run(tasks: Sequence[Task], jobs: int = 1, progress: Callable[[int, int], None] | None = None) -> list[FileResult]:
    """Check every task, in parallel when it pays; results in task order (unmarked unregistered pages dropped)."""
    results: list[FileResult] = []
    if jobs > 1 and len(tasks) >= MIN_PARALLEL:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            chunk = max(1, len(tasks) // (jobs * 8))
            outcomes = pool.map(check_task, tasks, chunksize=chunk)
            results = _collect(outcomes, len(tasks), progress)
    else:
        results = _collect(map(check_task, tasks), len(tasks), progress)
    return results


def _collect(outcomes: Iterator[FileResult | None], total: int, progress: Callable[[int, int], None] | None) -> list[FileResult]:
    results = []
    for done, outcome in enumerate(outcomes, 1):
        if outcome is not None:
            results.append(outcome)
        if progress is not None:
            progress(done, total)
    return results


def exit_code(results: Sequence[FileResult]) -> int:
    outcomes = {r.outcome() for r in results}
    if outcomes & {"unreadable", "error"}:
        return 2
    return 1 if outcomes - {"pass"} else 0


def check_task(task: Task) -> FileResult | None:
    """One page's result; never raises for a page's content or a file problem."""
    try:
        if not task.registered:
            page = check_text(read_text(task.path), task.display, task.options)
            if not page.has_markup:
                return None
            detail = "carries evidence markup but is not registered in claim-evidence.toml"
            return FileResult(task.display, status="unregistered", detail=detail)
        if task.write:
            page, rewritten = write_page(task.path, task.options, task.display)
        else:
            page, rewritten = check_text(read_text(task.path), task.display, task.options), 0
    except InternalError as exc:
        return FileResult(task.display, [Diagnostic("SH009", str(exc), file=task.display)], status="error")
    except InputError as exc:
        if not task.registered:
            return None  # a stray unreadable file that is not a page of the site
        return FileResult(task.display, [exc.diagnostic], status="unreadable")
    return _result(task, page, rewritten)


def _result(task: Task, page: Page, rewritten: int) -> FileResult:
    diagnostics = [d for d in page.diagnostics if not (rewritten and d.code == "SH140")]
    if not page.has_markup:
        return FileResult(task.display, diagnostics, detail="no evidence markup")
    claims = len(page.claims)
    detail = f"{claims} claim{'' if claims == 1 else 's'} bound"
    if rewritten:
        detail += f", {rewritten} evidence slot{'' if rewritten == 1 else 's'} re-rendered"
    return FileResult(task.display, diagnostics, detail=detail)


# --- writing ----------------------------------------------------------------------------


def write_page(path: str, options: PageOptions, name: str | None = None) -> tuple[Page, int]:
    """Re-render the stale slots of ``path`` in place; ``(page as checked, slots rewritten)``.

    Writes only when nothing but staleness is wrong, and only when the file is
    still what was read (checked under a lock on the file, just before the
    atomic replace); a page edited meanwhile is read and checked again.
    """
    shown = name or path
    for _ in range(WRITE_ATTEMPTS):
        text, bom = read_text(path), _has_bom(path)
        page = check_text(text, shown, options)
        if page.errors or not page.stale:
            return page, 0
        new_text = page.rendered_text()
        with _locked(path):
            if read_text(path) != text or _has_bom(path) != bom:
                continue
            atomic_write_bytes(path, (_BOM if bom else b"") + new_text.encode("utf-8"))
        return page, len(page.stale)
    message = f"page changed {WRITE_ATTEMPTS} times while --write ran; nothing written, run it again"
    raise InputError(Diagnostic("SH005", message, file=shown))


def _has_bom(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(3) == _BOM
    except OSError:
        return False  # read_text reports the problem


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """Hold an exclusive lock on the page file itself (no lock files are left in the site)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(os.path.realpath(path), os.O_RDONLY)
    except OSError as exc:
        raise InputError(Diagnostic("CE001", f"cannot read file: {exc.strerror or exc}", file=path)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

