"""A site's pages checked as both command lines check them: the run, then each finding placed in its source.

``claim-evidence prepublish`` and ``static-helper`` report the same page the same way: the runner's results
(:func:`.runner.run`), each finding on a built page placed in the Markdown or reST file that holds its
markup (``sources`` in ``claim-evidence.toml``, :func:`.sourcemap.place_in_sources`), and each broken seal
(CE403) explained by what changed since the review (:func:`claim_evidence._check.sealdiff.explain`). One
function does it, so that the two reports cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._check.recordcache import RecordCache
from .._core.report import FileResult
from .config import Config
from .runner import ResultCache, Stats, Task, Writer, run


def check_pages(
    tasks: Sequence[Task],
    config: Config | None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cache: ResultCache | None = None,
    stats: Stats | None = None,
    writer: Writer | None = None,
    records: RecordCache | None = None,
) -> list[FileResult]:
    """:func:`.runner.run` over ``tasks`` (its arguments), then :func:`in_sources` for ``config``."""
    return in_sources(run(tasks, jobs, progress, cache, stats, writer, records), config)


def in_sources(
    results: Sequence[FileResult],
    config: Config | None,
    page_text: Callable[[str], str | None] | None = None,
    explain: bool = True,
) -> list[FileResult]:
    """``results`` with each finding placed in its source (where ``config`` names ``sources``) and, with
    ``explain``, each CE403 explained from the page's git history.

    ``page_text`` reads a page by its result's path (default :func:`.sourcemap.read_page`; a page on stdin
    has none). Both steps cost nothing when there is nothing to do: the source map and the git reader are
    imported only then.
    """
    if config is not None and config.sources:  # where each finding is written (the sources are read only for findings)
        from .sourcemap import place_in_sources, read_page

        results = place_in_sources(results, config.root, config.sources, page_text or read_page)
    if explain and any(d.code == "CE403" for r in results for d in r.diagnostics):  # what changed since the review
        from .._check.sealdiff import explain as explain_seals

        results = explain_seals(results)
    return list(results)
