"""The "sources this page relies on" block: a page's second kind of slot, ``<div data-evidence-summary></div>``.

It lists every source the page's claims cite, in the order of first use on the page (claim elements
in document order, each claim's ``source_refs`` in order; claims of the record that the page does not
bind come last): publisher, title (linked when its URL is safe), publication date, the claims that
rely on it (linked to their evidence blocks), the most recent review among those claims and, when the
site shows markers, that review's freshness marker. The helper owns the inside of the slot as it owns
an evidence slot's: located, compared, spliced and proven the same way (:mod:`claim_evidence._check.page`);
what a page's slot gets wrong is the page check's (:mod:`claim_evidence._check.summary`), this module
only renders.

A review is shown only where the block of its claim shows it: never for an invalid record, and never
for a claim whose page and record disagree (SH110/SH120).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._core.dates import is_valid_date
from .._core.urls import safe_http_url
from .._record.freshness import Freshness, review_marker
from .._record.vocabulary import TEXT, VERIFIED_STATUSES, is_valid_id
from .evidence import _cited, _phrases, _source_map, _templating, _text, _View, marker_view, site_template

TEMPLATE = "evidence_summary.html.j2"


def render_summary(
    bundle: Mapping[str, Any],
    order: Iterable[str],
    *,
    invalid: bool,
    unbound: frozenset[str] = frozenset(),
    lang: str = "ja",
    search_ignore: bool = False,
    freshness: Freshness | None = None,
    template_dir: str | None = None,
) -> str:
    """The block for ``bundle``'s claims, the claims bound on the page first in ``order`` (their ids in
    document order). ``invalid`` (every claim shows as unverified: the warning, and no review) and
    ``unbound`` (the ids of claims whose block shows no review: their page and record disagree, or
    their own record is invalid) withhold reviews exactly as the evidence blocks do."""
    view = summary_view(bundle, order, invalid=invalid, unbound=unbound, lang=lang, freshness=freshness)
    jinja = _templating()
    template = jinja.template(template_dir, TEMPLATE)
    with site_template(template_dir, TEMPLATE):
        return jinja._render(template, s=view, t=_phrases(lang), search_ignore=search_ignore)


def summary_view(
    bundle: Mapping[str, Any],
    order: Iterable[str],
    *,
    invalid: bool,
    unbound: frozenset[str] = frozenset(),
    lang: str = "ja",
    freshness: Freshness | None = None,
) -> _View:
    sources = _source_map(bundle.get("sources"))
    entries: dict[str, dict[str, Any]] = {}
    for claim in _claims_in_order(bundle.get("claims"), order):
        shows_review = not invalid and claim.get("id") not in unbound
        for ref in _cited(claim, sources):
            sid = str(ref["source_id"])
            entry = entries.get(sid)
            if entry is None:
                entry = entries[sid] = {"source": sources[sid], "claims": [], "latest": None}
            if claim not in entry["claims"]:
                entry["claims"].append(claim)
            if (
                shows_review
                and _reviewed(claim)
                and (entry["latest"] is None or _later(claim, entry["latest"], freshness))
            ):
                entry["latest"] = claim
    return _View(
        {
            "sources": [_source_view(entry, lang, freshness) for entry in entries.values()],
            "warning": TEXT[lang]["invalid_warning"] if invalid else "",
        }
    )


def _claims_in_order(claims: Any, order: Iterable[str]) -> list[dict[str, Any]]:
    """Claims in the order the page binds them, each once; the record's others after, in record order."""
    listed = [c for c in (claims if isinstance(claims, list) else []) if isinstance(c, dict)]
    by_id: dict[str, dict[str, Any]] = {}
    for claim in listed:
        if isinstance(claim.get("id"), str):
            by_id.setdefault(claim["id"], claim)
    ordered: list[dict[str, Any]] = []
    seen: set[int] = set()
    for cid in order:
        bound = by_id.get(cid)
        if bound is not None and id(bound) not in seen:
            seen.add(id(bound))
            ordered.append(bound)
    ordered += [c for c in listed if id(c) not in seen]
    return ordered


def _reviewed(claim: Mapping[str, Any]) -> bool:
    verification = claim.get("verification")
    return (
        claim.get("status") in VERIFIED_STATUSES
        and isinstance(verification, dict)
        and is_valid_date(verification.get("checked_at"))
    )


_URGENCY = {"fresh": 0, "due soon": 1, "expired": 2}


def _later(claim: Mapping[str, Any], than: Mapping[str, Any], freshness: Freshness | None) -> bool:
    """The more recent review; of two on the same day, the one whose marker is less fresh (a source
    relied on by a claim due for review must not show 🟢 because another claim was checked that day)."""
    if _checked(claim) != _checked(than):
        return _checked(claim) > _checked(than)
    return _urgency(claim, freshness) > _urgency(than, freshness)


def _urgency(claim: Mapping[str, Any], freshness: Freshness | None) -> int:
    marker = review_marker(claim, freshness)
    return -1 if marker is None else _URGENCY[marker.state]


def _checked(claim: Mapping[str, Any]) -> str:
    return str(claim["verification"]["checked_at"])  # a valid YYYY-MM-DD (see _reviewed): sorts as text


def _source_view(entry: dict[str, Any], lang: str, freshness: Freshness | None) -> _View:
    source, latest = entry["source"], entry["latest"]
    published = source.get("published_at")
    return _View(
        {
            "publisher": _text(source.get("publisher")),
            "title": _text(source.get("title")),
            "url": safe_http_url(source.get("url")) or None,
            "published_at": published if is_valid_date(published) else None,
            "claims": [
                _View(
                    {
                        "label": _text(claim.get("label") or TEXT[lang]["default_label"]),
                        "anchor": claim.get("id") if is_valid_id(claim.get("id")) else None,
                    }
                )
                for claim in entry["claims"]
            ],
            "reviewed": None if latest is None else _checked(latest),
            "marker": None if latest is None else marker_view(review_marker(latest, freshness), lang),
        }
    )
