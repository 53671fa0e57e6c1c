"""What one call of static-helper costs (issue 12): whole processes, the median of ``--runs``.

    .venv/bin/python benchmarks/startup.py --runs 21

Other tools (a site generator's build, a hook, an editor) call the helper once
per page or per commit, so its start-up is most of what they pay. In a temp copy
of ``examples/site``, each round times, alternating: the interpreter alone,
``import static_helper``, ``static-helper --version``, a one-page check
(warm cache, and ``--no-cache``) and the same page piped through ``-``; prints
the median, min and max wall seconds and the peak RSS. Standard library only;
not collected by pytest (``testpaths = ["tests"]``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = "about.html"
# The example site shows freshness markers, which change when a review turns due soon or expires: its
# pages are rendered for this build date, and they must check clean whatever the clock says.
EXAMPLE_EPOCH = "1796083200"  # 2026-12-01T00:00:00Z


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a timed child: this one's, with bytecode cached as an installed tool has it.

    A wheel's install compiles its modules and Python caches what it imports; an environment that sets
    ``PYTHONDONTWRITEBYTECODE`` (this machine's does) makes every child compile every module it imports
    again, 0.2 to 0.6 s per process that is no cost of the tool's own. The cache goes to a scratch
    folder (``PYTHONPYCACHEPREFIX``), never into the source tree; each benchmark's first, untimed run
    fills it."""
    env = {**os.environ, **(extra or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "claim-evidence-bench-pycache")
    return env


def _helper() -> list[str]:
    """The console script beside the interpreter (what other tools call), else ``python -m``."""
    script = Path(sys.executable).with_name("static-helper")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "static_helper"]


def _child(argv: Sequence[str], cwd: Path, stdin: Path | None = None) -> tuple[float, int]:
    """``(wall seconds, peak RSS in KiB)`` of one child process; it must exit 0."""
    with open(stdin if stdin else os.devnull, "rb") as feed:
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=feed,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=child_env({"SOURCE_DATE_EPOCH": EXAMPLE_EPOCH}),
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return elapsed, usage.ru_maxrss


def measure(site: Path, runs: int) -> list[tuple[str, list[float], list[int]]]:
    helper = _helper()
    plan: list[tuple[str, list[str], Path | None]] = [
        ("python -c pass (the floor)", [sys.executable, "-c", "pass"], None),
        ("python -c 'import static_helper'", [sys.executable, "-c", "import static_helper"], None),
        ("static-helper --version", [*helper, "--version"], None),
        (f"static-helper {PAGE} (warm cache)", [*helper, PAGE], None),
        (f"static-helper --no-cache {PAGE}", [*helper, "--no-cache", PAGE], None),
        (f"static-helper - < {PAGE}", [*helper, "-"], site / PAGE),
    ]
    _child([*helper, PAGE], site)  # fill the cache (not timed)
    times: dict[str, list[float]] = {name: [] for name, _, _ in plan}
    peaks: dict[str, list[int]] = {name: [] for name, _, _ in plan}
    for _ in range(runs):
        for name, argv, stdin in plan:
            elapsed, rss = _child(argv, site, stdin)
            times[name].append(elapsed)
            peaks[name].append(rss)
    return [(name, times[name], peaks[name]) for name, _, _ in plan]


def table(rows: list[tuple[str, list[float], list[int]]], runs: int) -> str:
    lines = [
        f"median of {runs} runs, whole processes ({sys.executable})",
        "",
        "| command | median s | min s | max s | peak RSS MiB |",
        "|---|---|---|---|---|",
    ]
    for name, times, peaks in rows:
        lines.append(
            f"| {name} | {statistics.median(times):.3f} | {min(times):.3f} | {max(times):.3f} | {max(peaks) / 1024:.0f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="rounds to take the median of (default 21)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="claim-evidence-startup-"))
    try:
        site = scratch / "site"
        shutil.copytree(ROOT / "examples" / "site", site)
        print(table(measure(site, args.runs), args.runs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
