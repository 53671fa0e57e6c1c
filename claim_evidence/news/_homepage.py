"""The homepage projection: title, blurb and url per item, plus the bundle and a dated evidence link.

``evidence_url`` points to the DATED detail page of the day (never a "latest"
page whose content changes) and to the anchor of a claim of the bundle. The
pattern is a ``str.format`` template with the fields ``{yyyy}``, ``{mm}``,
``{dd}``, ``{date}`` (``YYYY-MM-DD``) and ``{claim_id}``.

Links are made with the pattern exactly. Checking a link
(``parse_evidence_url``) is exact too, except with the default pattern
(``DEFAULT_EVIDENCE_URL``, passed or left as the default): a site that
configured no pattern may keep its dated detail pages in any folder, so the
default accepts ``auto_daily_report_YYYY_MM_DD.html#evidence-ID`` after any
folder part (see ``_ANY_FOLDER``). Any other pattern must match the whole link.

The article an entry is about is its ``url``. The existing system's homepage
JSON (``news/latest.json``) wrote none: its records keep the article's URL
under ``source.url`` (``"source": {"name": …, "url": …}``), and
:func:`article_url` reads either form, so such records check unchanged.
"""

from __future__ import annotations

import copy
import datetime
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from .._core.dates import is_valid_date
from .._core.diagnostics import PathParts
from .._record.vocabulary import is_valid_id
from ._corrections import EVIDENCE_KEY
from ._dayfile import date_text
from ._pages import has_evidence

DEFAULT_EVIDENCE_URL = "/daily-news/auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}"
_FIELD_RE = {
    "yyyy": r"(?P<yyyy>[0-9]{4})",
    "mm": r"(?P<mm>[0-9]{2})",
    "dd": r"(?P<dd>[0-9]{2})",
    "date": r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})",
    "claim_id": r"(?P<claim_id>[A-Za-z][A-Za-z0-9_-]{0,99})",
}


# What the default accepts before its file name: nothing, a relative folder
# (``presentations/daily_reports/``, ``../daily_reports/``), a site-absolute one
# (``/daily-news/``) or an http(s) origin with a folder. Segments are unreserved
# URL characters or %XX escapes, so no other scheme (``javascript:``, ``data:``),
# no ``//host`` without a scheme, no query string and no user info get through.
_SEGMENT = r"(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+"
_ORIGIN = r"(?i:https?)://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?"
_ANY_FOLDER = rf"(?:(?:{_ORIGIN})?/)?(?:{_SEGMENT}/)*"
_DEFAULT_FILE = DEFAULT_EVIDENCE_URL.rpartition("/")[2]  # auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}


@dataclass(frozen=True)
class EvidenceLink:
    """What a parsed ``evidence_url`` says: the page's date and the claim anchor."""

    date: str
    claim_id: str


@cache
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """The pattern as a regex; raises ValueError unless it is dated and anchored to a claim."""
    parts: list[str] = []
    names: list[str] = []
    for literal, name, spec, conversion in string.Formatter().parse(pattern):
        parts.append(re.escape(literal))
        if name is None:
            continue
        if name not in _FIELD_RE or spec or conversion:
            raise ValueError(
                f"evidence URL pattern: unknown field {{{name}}}; use {', '.join('{' + k + '}' for k in _FIELD_RE)}"
            )
        parts.append(_FIELD_RE[name] if name not in names else f"(?P={name})")
        names.append(name)
    dated = "date" in names or {"yyyy", "mm", "dd"} <= set(names)
    if "claim_id" not in names or not dated:
        raise ValueError("evidence URL pattern needs {claim_id} and a date ({date}, or {yyyy}, {mm} and {dd})")
    return re.compile("".join(parts))


@cache
def _checking_regex(pattern: str) -> re.Pattern[str]:
    """What ``parse_evidence_url`` matches: the default's file name in any folder, else the pattern exactly."""
    if pattern == DEFAULT_EVIDENCE_URL:
        return re.compile(_ANY_FOLDER + _pattern_regex(_DEFAULT_FILE).pattern)
    return _pattern_regex(pattern)


def accepted_form(pattern: str) -> str:
    """The links ``parse_evidence_url`` accepts, in words, for messages."""
    if pattern == DEFAULT_EVIDENCE_URL:
        return f"{_DEFAULT_FILE} in any folder"
    return f"the pattern {pattern}"


def evidence_url(date: str | datetime.date, claim_id: str, pattern: str = DEFAULT_EVIDENCE_URL) -> str:
    """The dated detail-page link for ``claim_id``."""
    _pattern_regex(pattern)
    day = date_text(date)
    yyyy, mm, dd = day.split("-")
    return pattern.format(yyyy=yyyy, mm=mm, dd=dd, date=day, claim_id=claim_id)


def parse_evidence_url(url: object, pattern: str = DEFAULT_EVIDENCE_URL) -> EvidenceLink | None:
    """The date and claim id of a link made by ``pattern``; None when it is not one (e.g. undated).

    A pattern given by the caller must match the whole link. The default
    (``DEFAULT_EVIDENCE_URL``) accepts its file name
    ``auto_daily_report_{yyyy}_{mm}_{dd}.html#evidence-{claim_id}`` after any
    folder part: none, relative, ``/``-absolute or ``http(s)://host/…``.
    """
    if not isinstance(url, str):
        return None
    match = _checking_regex(pattern).fullmatch(url)
    if match is None:
        return None
    found = match.groupdict()
    day = found.get("date") or f"{found['yyyy']}-{found['mm']}-{found['dd']}"
    if found.get("date") and "yyyy" in found and day != f"{found['yyyy']}-{found['mm']}-{found['dd']}":
        return None
    return EvidenceLink(day, found["claim_id"]) if is_valid_date(day) else None


def article_url(entry: Mapping[str, Any]) -> tuple[Any, PathParts]:
    """The article URL a homepage entry names, and where: its ``url`` (``("url",)``), else, in the
    existing system's records, which have no top-level ``url``, ``source.url`` (``("source", "url")``).
    ``(None, ("url",))`` when it has neither."""
    if "url" in entry:
        return entry["url"], ("url",)
    source = entry.get("source")
    if isinstance(source, dict) and "url" in source:
        return source["url"], ("source", "url")
    return None, ("url",)


def source_url_conflict(entry: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """``(url, source.url)`` when an entry carries both and they differ: it names two articles."""
    source = entry.get("source")
    if "url" in entry and isinstance(source, dict) and "url" in source and source["url"] != entry["url"]:
        return entry["url"], source["url"]
    return None


def target_claim_id(bundle: Any) -> str | None:
    """The claim a homepage link points to: the first claim with a valid id."""
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    for claim in claims if isinstance(claims, list) else []:
        if isinstance(claim, dict) and is_valid_id(claim.get("id")):
            return str(claim["id"])
    return None


def project_item(
    item: Mapping[str, Any], *, date: str | datetime.date, pattern: str = DEFAULT_EVIDENCE_URL, blurb_key: str = "tldr"
) -> dict[str, Any]:
    """One homepage entry. Legacy items get no ``claim_evidence`` key at all."""
    entry: dict[str, Any] = {
        "title": item.get("title"),
        "blurb": item.get(blurb_key),
        "url": item.get("url"),
    }
    if has_evidence(item):
        bundle = copy.deepcopy(item[EVIDENCE_KEY])
        entry[EVIDENCE_KEY] = bundle
        claim_id = target_claim_id(bundle)
        entry["evidence_url"] = evidence_url(date, claim_id, pattern) if claim_id else None
    return entry


def homepage_projection(
    items: Iterable[Mapping[str, Any]],
    *,
    date: str | datetime.date,
    pattern: str = DEFAULT_EVIDENCE_URL,
    blurb_key: str = "tldr",
    limit: int | None = None,
) -> dict[str, Any]:
    """``{"date", "items": [...]}`` for the homepage, in the order given (e.g. the Top page's)."""
    chosen = list(items)
    if limit is not None:
        chosen = chosen[:limit]
    entries = [project_item(item, date=date, pattern=pattern, blurb_key=blurb_key) for item in chosen]
    return {"date": date_text(date), "items": entries}
