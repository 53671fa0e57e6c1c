"""List pages: a ranked Top-N page and a daily timeline, plus their ``data.json`` mirrors.

Layout lives in jinja2 templates a site can override (``template_dir``); the
view model is built here. An item with a bundle gets the shared evidence block
right after its summary (the text the claims are about) and the page links the
shared stylesheet; a page of legacy items only is the same page as before the
evidence feature existed: no badge, no stylesheet link.
"""

from __future__ import annotations

import copy
import datetime
import html
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jinja2
import markupsafe

from .._check.options import DEFAULT_STYLESHEET  # the href a page check expects (SH130)
from .._core.urls import safe_http_url
from .._record.freshness import Freshness
from .._render.evidence import render_evidence
from .._render.templating import template_environment
from ._corrections import EVIDENCE_KEY
from ._dayfile import date_text

TOP_TEMPLATE = "news_top.html.j2"
DAILY_TEMPLATE = "news_daily.html.j2"
TITLES = {
    "ja": {"top": "AIニュース Top{n}（{date}）", "daily": "AIニュース デイリー（{date}）"},
    "en": {"top": "AI News Top {n} ({date})", "daily": "AI News daily ({date})"},
}


def _environment(template_dir: str | None) -> jinja2.Environment:
    return template_environment(template_dir, compact=False)


def has_evidence(item: Mapping[str, Any]) -> bool:
    bundle = item.get(EVIDENCE_KEY)
    return bundle is not None and bundle != {}


def rank_items(items: Iterable[Mapping[str, Any]], limit: int | None = 15) -> list[Mapping[str, Any]]:
    """Highest ``score`` first; ties and unscored items keep their input order (stable)."""

    def key(entry: tuple[int, Mapping[str, Any]]) -> tuple[int, float, int]:
        index, item = entry
        score = item.get("score")
        numeric = isinstance(score, (int, float)) and not isinstance(score, bool)
        return (0 if numeric else 1, -float(score) if numeric else 0.0, index)  # type: ignore[arg-type]

    ranked = [item for _, item in sorted(enumerate(items), key=key)]
    return ranked if limit is None else ranked[:limit]


def _item_view(
    item: Mapping[str, Any], lang: str, template_dir: str | None, freshness: Freshness | None, show_signer: bool
) -> dict[str, Any]:
    summary_lines = str(item.get("summary") or "").split("\n")
    evidence = render_evidence(
        item.get(EVIDENCE_KEY),
        subject=item,
        lang=lang,
        template_dir=template_dir,
        freshness=freshness,
        show_signer=show_signer,
    )
    return {
        "title": str(item.get("title") or ""),
        "url": safe_http_url(item.get("url")) or None,
        "tldr": str(item.get("tldr") or ""),
        "summary": _lines_html(summary_lines) if any(summary_lines) else "",
        "points": [str(p) for p in item.get("points") or ()],
        "meta": [str(item[k]) for k in ("category", "source", "evidence_label") if item.get(k)],
        "evidence": markupsafe.Markup(evidence) if evidence else "",
    }


def _lines_html(lines: list[str]) -> markupsafe.Markup:
    return markupsafe.Markup("<br>\n").join(markupsafe.Markup(html.escape(line, quote=True)) for line in lines)


def _render(
    template: str,
    items: Sequence[Mapping[str, Any]],
    title: str,
    stylesheet: str | None,
    lang: str,
    template_dir: str | os.PathLike[str] | None,
    extra: Mapping[str, Any],
    freshness: Freshness | None,
    show_signer: bool,
) -> str:
    folder = None if template_dir is None else os.fspath(template_dir)
    views = [_item_view(item, lang, folder, freshness, show_signer) for item in items]
    link = stylesheet if stylesheet and any(has_evidence(i) for i in items) else None
    page = _environment(folder).get_template(template)
    return page.render(items=views, title=title, stylesheet=link, lang=lang, **extra)


def render_top_page(
    items: Iterable[Mapping[str, Any]],
    *,
    date: str | datetime.date,
    limit: int | None = 15,
    title: str | None = None,
    stylesheet: str | None = DEFAULT_STYLESHEET,
    lang: str = "ja",
    template_dir: str | os.PathLike[str] | None = None,
    freshness: Freshness | None = None,
    show_signer: bool = False,
) -> str:
    """The ranked Top-N page (see :func:`rank_items`) as HTML text. ``freshness`` (the site's policy,
    dated, with ``markers`` on) adds each review's freshness marker, as on a site's pages: its text
    changes only when a review turns due soon or expires, so a list page rebuilt on another day with the
    same states has the same bytes. ``show_signer`` (the site's ``[reviews] show_signer``) names the
    signer of each signed review in its block, as on a site's pages."""
    day = date_text(date)
    ranked = rank_items(items, limit)
    heading = title or TITLES[lang]["top"].format(n=limit if limit is not None else len(ranked), date=day)
    return _render(TOP_TEMPLATE, ranked, heading, stylesheet, lang, template_dir, {"date": day}, freshness, show_signer)


def render_daily_page(
    items: Iterable[Mapping[str, Any]],
    *,
    date: str | datetime.date,
    title: str | None = None,
    stylesheet: str | None = DEFAULT_STYLESHEET,
    lang: str = "ja",
    template_dir: str | os.PathLike[str] | None = None,
    freshness: Freshness | None = None,
    show_signer: bool = False,
) -> str:
    """The daily timeline page (items in the order given, e.g. the day-file's) as HTML text; ``freshness``
    and ``show_signer`` as for :func:`render_top_page`."""
    day = date_text(date)
    heading = title or TITLES[lang]["daily"].format(date=day)
    return _render(
        DAILY_TEMPLATE, list(items), heading, stylesheet, lang, template_dir, {"date": day}, freshness, show_signer
    )


def top_page_data(
    items: Iterable[Mapping[str, Any]], *, date: str | datetime.date, limit: int | None = 15
) -> dict[str, Any]:
    """The Top page's ``data.json``: the same ranked items, ``claim_evidence`` verbatim."""
    return _page_data("top", rank_items(items, limit), date)


def daily_page_data(items: Iterable[Mapping[str, Any]], *, date: str | datetime.date) -> dict[str, Any]:
    """The daily page's ``data.json``: the same items in the same order, ``claim_evidence`` verbatim."""
    return _page_data("daily", list(items), date)


def _page_data(page: str, items: Sequence[Mapping[str, Any]], date: str | datetime.date) -> dict[str, Any]:
    return {"date": date_text(date), "page": page, "items": [copy.deepcopy(dict(item)) for item in items]}
