"""``claim-evidence cite``: the Cited Sources block of a site's records (or some of its pages and claims).

The records are read as ``claim-evidence report`` reads them (every registered page through the
page check, in the registry's sorted order); the block itself is :mod:`.._render.cited`'s. The
build date is resolved once, as report resolves it (``--today``, else ``SOURCE_DATE_EPOCH``, else
the clock); only the JSON form states it, so that the Markdown and HTML of an unchanged site stay the
same bytes until a review changes state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._check.page import check_text
from .._core.diagnostics import Diagnostic, InputError
from .._core.textio import read_text
from .._record.freshness import Freshness, build_date
from .._render.cited import CitedSources, cited_sources
from .._site.config import Config, registered_pages, site_path


@dataclass(frozen=True)
class SiteRecord:
    page: str  # the page's path under the site root
    bundle: Any  # its record (None: the page holds none)

    def claim_ids(self) -> list[str]:
        claims = self.bundle.get("claims") if isinstance(self.bundle, dict) else None
        return [c["id"] for c in claims or [] if isinstance(c, dict) and isinstance(c.get("id"), str)]


def site_records(config: Config) -> list[SiteRecord]:
    """The record of every registered page, in the registry's order. A page the page check cannot
    read is an :class:`InputError` (exit 2): a block silently missing its claims would mislead."""
    found = []
    for path in registered_pages(config):
        name = site_path(config.root, path) or path.as_posix()
        page = check_text(read_text(path), str(path), config.options)
        if page.has_markup and not isinstance(page.bundle, dict):
            errors = [d for d in page.diagnostics if d.is_error]
            why = next((d for d in errors if d.code.startswith("CE")), errors[0] if errors else None)  # the record's
            raise InputError(why or Diagnostic("CE999", "no readable record", subject="page", file=str(path)))
        found.append(SiteRecord(name, page.bundle))
    return found


def page_name(config: Config, given: str, cwd: Path) -> str:
    """A ``--page`` as the registry names pages: a path under the site root, given as such or as a
    file path (relative to ``cwd``)."""
    return site_path(config.root, (cwd / given).resolve()) or given


def collect_cited(
    config: Config,
    records: Sequence[SiteRecord],
    claims: Iterable[str] | None,
    today: str | None,
    lang: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> CitedSources:
    """The block for ``records``' claims (``claims``: only those ids), aged by the site's ``[freshness]``
    policy (without one, the default periods: a Cited Sources line always says how fresh it is)."""
    day, source = build_date(today, environ)
    freshness = replace(config.options.freshness or Freshness(), today=day, source=source)
    return cited_sources(
        (r.bundle for r in records),
        None if claims is None else list(claims),
        freshness=freshness,
        lang=lang or config.options.lang,
        policy=config.options.policy,
    )
