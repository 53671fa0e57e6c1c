"""The pre-publish gate: every registered static page and every registered
article across every derived output, checked against the canonical records.

It reads and never writes. Pages or items that carry evidence but are not
registered are listed as unregistered and never counted as passing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .._core.diagnostics import Diagnostic, InputError
from .._core.report import FileResult, input_error_result
from .._site.check import check_pages
from .._site.config import Config, expand
from .._site.runner import Task, display, tasks_for_config


def check_site(config: Config, jobs: int = 1) -> Iterator[FileResult]:
    """Results for every target a loaded config names, its review ages (``[freshness]``) counted to the date
    ``at_build_date`` gave it: the pages' as each is checked, then the news outputs'. Raises
    :class:`InputError` for a config that cannot be used (exit code 2) before the first result, so that a
    streamed report never stops half-way: the news outputs' globs are expanded first (SH004)."""
    require_targets(config)
    # (require without pages still runs: tasks_for_config says which required page is not registered)
    tasks = tasks_for_config(config, write=False) if config.pages or config.require else []
    return _site_results(config, tasks, jobs, _news_check(config))


def _site_results(
    config: Config, tasks: list[Task], jobs: int, news: Callable[[], list[FileResult]]
) -> Iterator[FileResult]:
    yield from check_pages(tasks, config, jobs)  # findings placed in their sources, broken seals explained
    yield from news()


def _news_check(config: Config) -> Callable[[], list[FileResult]]:
    """The news outputs' check, to run once the pages are checked: the registry is loaded and the
    outputs' globs expanded now (a glob that matches nothing raises SH004 here)."""
    if config.news is None:
        return list
    from .._core.errors import CorrectionRegistryError
    from ..news import DEFAULT_EVIDENCE_URL, check_derived_outputs, load_corrections

    news = config.news
    registry_path = config.root / news.corrections
    try:  # opened by its display name, so its findings name the file as the header does
        options = config.options
        registry = load_corrections(
            display(registry_path), policy=options.policy, snapshots=options.snapshots, freshness=options.freshness
        )
    except CorrectionRegistryError as exc:  # nothing downstream runs on a bad registry
        found = [FileResult(display(registry_path), list(exc.diagnostics))]
        return lambda: found
    except InputError as exc:
        unreadable = [input_error_result(display(registry_path), exc)]
        return lambda: unreadable

    def files(patterns: tuple[str, ...], key: str) -> list[str]:
        return [display(p) for p in expand(config, patterns, f"news.{key}")]

    dayfiles, data_json = files(news.dayfiles, "dayfiles"), files(news.data_json, "data_json")
    homepage_json, pages = files(news.homepage_json, "homepage_json"), files(news.pages, "pages")
    return lambda: check_derived_outputs(
        registry,
        dayfiles=dayfiles,
        data_json=data_json,
        homepage_json=homepage_json,
        pages=pages,
        pattern=news.evidence_url or DEFAULT_EVIDENCE_URL,
        lang=config.options.lang,
        show_signer=config.options.policy.show_signer,  # [reviews] show_signer: the pages name the signer
        freshness=config.options.freshness,  # [freshness] markers: the pages show each review's marker
    )


def require_targets(config: Config) -> None:
    """SH006 for a config that registers neither pages nor ``[news]``: a run over it would pass (or
    report) an empty site, and a mistyped config must not pass a CI run. ``prepublish`` and ``report``."""
    if not config.pages and config.news is None:
        message = 'registers nothing to check: list static pages (pages = ["**/*.html"]) or add a [news] table'
        raise InputError(Diagnostic("SH006", message, subject="config", file=display(config.path or config.root)))
