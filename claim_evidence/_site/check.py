"""A site's pages checked as both command lines check them: the run, then each finding placed in its source.

``claim-evidence prepublish`` and ``static-helper`` report the same page the same way: the runner's results
(:func:`.runner.run`), each finding on a built page placed in the Markdown or reST file that holds its
markup (``sources`` in ``claim-evidence.toml``, :func:`.sourcemap.place_in_sources`), and each broken seal
(CE403) explained by what changed since the review (:func:`claim_evidence._check.sealdiff.explain`). One
function does it, so that the two reports cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from .._check.recordcache import RecordCache
from .._core.report import FileResult
from .config import Config
from .runner import ResultCache, Stats, Task, Writer, run

if TYPE_CHECKING:
    from .sourcemap import SourceFiles


def check_pages(
    tasks: Sequence[Task],
    config: Config | None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cache: ResultCache | None = None,
    stats: Stats | None = None,
    writer: Writer | None = None,
    records: RecordCache | None = None,
) -> Iterator[FileResult]:
    """:func:`.runner.run` over ``tasks`` (its arguments), each result then through :func:`in_sources`
    for ``config`` as it comes, so that a report written result by result holds none of them.

    The sources exclude every page of the run (a built page holds its claims' markup too, but is no
    source): all of ``tasks``, known before the first result."""
    sources = None  # the config's sources: made once, on the first finding, and read once
    for result in run(tasks, jobs, progress, cache, stats, writer, records):
        if not result.diagnostics:  # nothing to place or explain
            yield result
            continue
        if sources is None and config is not None and config.sources:
            from .sourcemap import SourceFiles

            sources = SourceFiles(config.root, config.sources, [t.display for t in tasks])
        yield from in_sources([result], config, sources=sources)


def in_sources(
    results: Sequence[FileResult],
    config: Config | None,
    page_text: Callable[[str], str | None] | None = None,
    explain: bool = True,
    sources: SourceFiles | None = None,
) -> list[FileResult]:
    """``results`` with each finding placed in its source (where ``config`` names ``sources``) and, with
    ``explain``, each CE403 explained from the page's git history.

    ``page_text`` reads a page by its result's path (default :func:`.sourcemap.read_page`; a page on stdin
    has none). ``sources``: the config's sources as read for earlier results of the same run (default:
    made here, excluding ``results``' pages). Both steps cost nothing when there is nothing to do: the source map and the git reader are
    imported only then.
    """
    if config is not None and config.sources:  # where each finding is written (the sources are read only for findings)
        from .sourcemap import place_in_sources, read_page

        results = place_in_sources(results, config.root, config.sources, page_text or read_page, sources)
    if explain and any(d.code == "CE403" for r in results for d in r.diagnostics):  # what changed since the review
        from .._check.sealdiff import explain as explain_seals

        results = explain_seals(results)
    return list(results)
