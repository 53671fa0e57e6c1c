"""Every registered article across every derived output: one result per article URL.

This is what ``claim-evidence prepublish`` calls for the news path. It reads
files and never writes. A registered article is a *target*: it passes only if
it was found in at least one output and every copy matches the registry.
Items that carry evidence but are not registered are listed as unregistered,
never counted as passing; a malformed metadata line fails its item either way.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.diagnostics import Diagnostic, InputError, json_path
from .._core.jsonio import load_file
from .._core.report import FileResult, input_error_result
from .._core.textio import read_text
from .._record.freshness import Freshness
from .._render.evidence import render_evidence
from ._corrections import CorrectionRegistry
from ._dayfile import parse_dayfile
from ._homepage import DEFAULT_EVIDENCE_URL, article_url
from ._pages import has_evidence
from ._preflight import at_file, iter_article_diagnostics, iter_homepage_diagnostics

# One result per target, the shape the core reporters (text/json/github) print:
# ``path`` is the article URL (or an output file for file-level problems),
# ``status`` is "" (derived: pass/fail), "unregistered" or "unreadable".
TargetResult = FileResult
PathLike = str | os.PathLike[str]


@dataclass
class _Collector:
    registry: CorrectionRegistry
    found: dict[str, list[str]] = field(default_factory=dict)  # registered url -> where seen
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    unregistered: dict[str, list[str]] = field(default_factory=dict)
    unregistered_diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    files: list[FileResult] = field(default_factory=list)

    def target(self, item: Any) -> str | None:
        return self.target_url(item.get("url") if isinstance(item, dict) else None)

    def target_url(self, url: Any) -> str | None:
        """``url`` when the registry has a bundle for it."""
        correction = self.registry.get(url)
        return url if correction is not None and correction.bundle is not None else None

    def registered(self, url: str, where: str, found: list[Diagnostic]) -> None:
        self.found.setdefault(url, []).append(where)
        self.diagnostics.setdefault(url, []).extend(found)

    def stray(self, name: str, where: str, found: list[Diagnostic]) -> None:
        self.unregistered.setdefault(name, []).append(where)
        self.unregistered_diagnostics.setdefault(name, []).extend(found)

    def article(
        self,
        item: Any,
        where: str,
        file: PathLike,
        prefix: tuple[str | int, ...],
        line: int | None,
        extra: list[Diagnostic],
    ) -> None:
        url = self.target(item)
        if url is not None:
            correction = self.registry.corrections[url]
            found = iter_article_diagnostics(item, correction.bundle, expected_fields=correction.fields)
            self.registered(url, where, extra + at_file(found, file, prefix, line))
        elif (isinstance(item, dict) and has_evidence(item)) or any(d.is_error for d in extra):
            self.stray(_name(item, where), where, extra)

    def unreadable(self, error: InputError) -> None:
        self.files.append(input_error_result(error.diagnostic.file or "<input>", error))

    def results(self) -> list[TargetResult]:
        out: list[TargetResult] = []
        for url in self.registry.evidence_urls():
            # The registry's own warnings (numbers not in a quote, …) belong to the article they are about.
            own = json_path((url,))
            found = [d for d in self.registry.diagnostics if d.path.startswith(own)] + self.diagnostics.get(url, [])
            seen = self.found.get(url, [])
            if not seen:
                found.append(
                    Diagnostic(
                        "NW409",
                        "registered article not found in any derived output",
                        subject=f"article {url}",
                        file=self.registry.path,
                    )
                )
            detail = f"{len(seen)} derived cop{'y' if len(seen) == 1 else 'ies'} match the registry"
            out.append(FileResult(url, found, detail=detail))
        for name in sorted(self.unregistered):
            found = self.unregistered_diagnostics[name]
            places = ", ".join(dict.fromkeys(self.unregistered[name]))
            status = "fail" if any(d.is_error for d in found) else "unregistered"
            out.append(
                FileResult(
                    name,
                    found,
                    status=status,
                    detail=f"carries claim_evidence in {places} but is not in the correction registry",
                )
            )
        return out + self.files


def _name(item: Any, where: str) -> str:
    """An item's URL, or where it was found when it has none."""
    url = item.get("url") if isinstance(item, dict) else None
    return url if isinstance(url, str) else where


def check_derived_outputs(
    registry: CorrectionRegistry,
    *,
    dayfiles: Iterable[PathLike] = (),
    data_json: Iterable[PathLike] = (),
    homepage_json: PathLike | Sequence[PathLike] | None = None,
    pages: Iterable[PathLike] = (),
    pattern: str = DEFAULT_EVIDENCE_URL,
    lang: str = "ja",
    template_dir: PathLike | None = None,
    show_signer: bool = False,
    freshness: Freshness | None = None,
) -> list[TargetResult]:
    """Compare every derived copy of every registered article with the registry.

    ``pages`` are rendered list pages (HTML): where a registered article is
    linked, the page must hold its evidence block exactly as ``render_evidence``
    makes it from the registry (``lang``/``template_dir``/``show_signer``/``freshness`` as the
    pages were rendered: ``freshness``, the site's dated policy, when its list pages show the
    review markers). Results: registered URLs (sorted), then unregistered items
    carrying evidence (sorted), then files that could not be read or have
    file-level errors.
    """
    collector = _Collector(registry)
    for path in pages:
        _check_page(collector, path, lang, template_dir, show_signer, freshness)
    for path in dayfiles:
        _check_dayfile(collector, path)
    for path in data_json:
        _check_items_file(collector, path, homepage=False, pattern=pattern)
    homepages = [homepage_json] if isinstance(homepage_json, (str, os.PathLike)) else list(homepage_json or ())
    for path in homepages:
        _check_items_file(collector, path, homepage=True, pattern=pattern)
    return collector.results()


def _check_dayfile(collector: _Collector, path: PathLike) -> None:
    name = os.fspath(path)
    try:
        parsed = parse_dayfile(name)
    except InputError as exc:
        collector.unreadable(exc)
        return
    bounds = [*parsed["lines"], 1 << 62]
    file_level = [d for d in parsed["diagnostics"] if (d.line or 0) < bounds[0]]
    if file_level:
        collector.files.append(FileResult(name, file_level))
    for index, item in enumerate(parsed["headlines"]):
        start, end = bounds[index], bounds[index + 1]
        extra = [d for d in parsed["diagnostics"] if start <= (d.line or 0) < end]
        collector.article(item, f"{name}:{start}", name, (), start, extra)


_ASIDE = '<aside class="claim-evidence"'


def _check_page(
    collector: _Collector,
    path: PathLike,
    lang: str,
    template_dir: PathLike | None,
    show_signer: bool,
    freshness: Freshness | None,
) -> None:
    name = os.fspath(path)
    try:
        page = read_text(name)
    except InputError as exc:
        collector.unreadable(exc)
        return
    accounted = 0
    for url in collector.registry.evidence_urls():
        if f'href="{html.escape(url, quote=True)}"' not in page:
            continue
        correction = collector.registry.corrections[url]
        block = render_evidence(
            correction.bundle,
            subject=correction.subject,
            lang=lang,
            template_dir=template_dir,
            show_signer=show_signer,
            freshness=freshness,
        )
        found: list[Diagnostic] = []
        if block in page:
            accounted += block.count(_ASIDE) * page.count(block)
        else:
            accounted += block.count(_ASIDE)  # a stale block is this article's failure, not an unregistered one
            message = "list page links the article but does not show its evidence block as rendered from the registry"
            found.append(Diagnostic("NW421", message, subject=f"article {url}", file=name))
        collector.registered(url, name, found)
    if page.count(_ASIDE) > accounted:
        collector.stray(name, name, [])


def _load_items(collector: _Collector, name: str) -> tuple[list[Any], Any] | None:
    try:
        value = load_file(name).value
    except InputError as exc:
        collector.unreadable(exc)
        return None
    items = value.get("items") if isinstance(value, dict) else None
    if not isinstance(items, list):
        collector.files.append(
            FileResult(
                name,
                [Diagnostic("NW501", 'expected an object with an "items" list', subject="derived output", file=name)],
            )
        )
        return None
    return items, value


def _check_items_file(collector: _Collector, path: PathLike, *, homepage: bool, pattern: str) -> None:
    name = os.fspath(path)
    loaded = _load_items(collector, name)
    if loaded is None:
        return
    items, value = loaded
    date = value.get("date") if isinstance(value.get("date"), str) else None
    for index, entry in enumerate(items):
        where = f"{name}:$.items[{index}]"
        if not isinstance(entry, dict):
            bad = Diagnostic(
                "NW502", "item must be an object", f"$.items[{index}]", subject="derived output", file=name
            )
            collector.files.append(FileResult(name, [bad]))
        elif homepage:
            _check_homepage_entry(collector, entry, name, index, where, pattern, date)
        else:
            collector.article(entry, where, name, ("items", index), None, [])


def _check_homepage_entry(
    collector: _Collector, entry: dict[str, Any], name: str, index: int, where: str, pattern: str, date: str | None
) -> None:
    named, _ = article_url(entry)  # ``source.url`` in the existing system's records
    url = collector.target_url(named)
    if url is None:
        if has_evidence(entry) or "evidence_url" in entry:
            collector.stray(named if isinstance(named, str) else where, where, [])
        return
    correction = collector.registry.corrections[url]
    reviewed = {**correction.subject, "url": url}
    found = iter_homepage_diagnostics(entry, correction.bundle, reviewed, pattern=pattern, date=date)
    collector.registered(url, where, at_file(found, name, ("items", index)))
