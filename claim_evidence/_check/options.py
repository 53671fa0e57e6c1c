"""The settings a page is checked against, apart from the check: what a site config and the cache need.

Light on purpose: loading a config and looking a page up in the cache import this, not the checker
(the tokenizer, validation, jinja2), so a call answered from the cache starts fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record.freshness import Freshness, marker_key
from .._record.policy import DEFAULT_POLICY, Policy

DEFAULT_STYLESHEET = "/assets/claim-evidence.css"
STRIPPED = "SH161"  # a generator's trace of raw HTML it dropped (see page.STRIPPED_MARKERS)


@dataclass(frozen=True)
class SiteLayout:
    """Where a configured site's files are and how it is served (from ``claim-evidence.toml``).

    Strings and tuples only: page options are part of cache keys (``dataclasses.astuple``, then JSON).
    """

    root: str  # the config's folder, absolute: globs are relative to it
    web_root: str = ""  # the folder served at base_url, relative to root, POSIX ("": root itself)
    base_url: str = "/"  # where web_root is served: "/docs/" or "https://example.com/docs/" (ends in "/")
    require: tuple[str, ...] = ()  # globs of the pages that must carry evidence markup
    exclude: tuple[str, ...] = ()  # globs of files, or folders, that are no pages (templates, partials)


@dataclass(frozen=True)
class PageOptions:
    """Site settings a page is checked against (from ``claim-evidence.toml``), and, set per page by
    the runner, where the page is served and whether it must carry evidence."""

    stylesheet: str | None = DEFAULT_STYLESHEET  # None: the site ships the evidence CSS its own way (no SH130)
    lang: str = "ja"  # the labels' language, unless the page's <html lang> names one the labels exist in
    stylesheet_configured: bool = False  # False: the default href, and SH130 says so
    policy: Policy = DEFAULT_POLICY  # what the site demands beyond the contract (require_quotes)
    snapshots: str | None = None  # the site's snapshot folder: its copies and the quotes in them are checked
    site: SiteLayout | None = None  # None: checked without a config (base_url "/", nothing required or excluded)
    # This page's path under the web root ("guide/install/index.html"); None: unknown. Without a site and a
    # page, a stylesheet href must equal ``stylesheet`` as written; with either, it is resolved (SH130).
    page: str | None = None
    required: bool = False  # ``require`` names this page: a page without evidence markup fails (SH160)
    search_ignore: bool = False  # blocks carry data-pagefind-ignore and data-search-exclude
    # The site's review age policy ([freshness]) with its build date; None: reviews are not aged.
    freshness: Freshness | None = None
    # The site's own templates (template_dir: evidence.html.j2, evidence_summary.html.j2 …), absolute, and a
    # digest of their bytes: a template edit changes every cache key. None: the packaged templates.
    template_dir: str | None = None
    templates_digest: str = ""


def render_settings(options: PageOptions, bundle: Any) -> tuple[Any, ...]:
    """What the blocks of ``bundle`` (the page's records) depend on besides the records and the language:
    the search setting, the marker policy with each claim's marker state (a review entering its due-soon
    window turns its marker 🟡; another build date in the same states renders the same bytes) and the
    site's templates."""
    return (
        options.search_ignore,
        marker_key(options.freshness, bundle),
        options.template_dir,
        options.templates_digest,
        options.policy.show_signer,
    )
