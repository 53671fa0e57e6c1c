"""The "sources this page relies on" block: a page's second kind of slot, ``<div data-evidence-summary></div>``.

It lists every source the page's claims cite, in the order of first use on the page (claim elements
in document order, each claim's ``source_refs`` in order; claims of the record that the page does not
bind come last): publisher, title (linked when its URL is safe), publication date, the claims that
rely on it (linked to their evidence blocks), the most recent review among those claims and, when the
site shows markers, that review's freshness marker. The helper owns the inside of the slot as it owns
an evidence slot's: located, compared, spliced and proven the same way (:mod:`._page`).

A review is shown only where the block of its claim shows it: never for an invalid record, and never
for a claim whose page and record disagree (SH110/SH120).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._check.options import PageOptions
from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic
from .._core.splice import newline_style, with_newlines
from .._core.urls import safe_http_url
from .._html.equivalence import equivalent
from .._html.locate import CLAIM_ATTR, NOT_CONTAINERS, SLOT_ATTR, SUMMARY_ATTR, Element, Located
from .._record.freshness import Freshness, review_marker
from .._record.vocabulary import TEXT, VERIFIED_STATUSES, is_valid_id
from .evidence import _cited, _phrases, _source_map, _text, _View, marker_view, site_template, template_environment

TEMPLATE = "evidence_summary.html.j2"
DUPLICATE = "SH170"
SHAPE = "SH171"
NESTED = "SH172"
STALE = "SH140"
STALE_SUMMARY = (
    "sources summary is stale: it no longer lists what the claims on this page cite, or their latest reviews "
    "(run --write)"
)


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
    document order). ``invalid`` (any validation error) and ``unbound`` (claim ids whose page and record
    disagree) withhold reviews exactly as the evidence blocks do."""
    view = summary_view(bundle, order, invalid=invalid, unbound=unbound, lang=lang, freshness=freshness)
    template = template_environment(template_dir).get_template(TEMPLATE)
    with site_template(template_dir, TEMPLATE):
        return template.render(s=view, t=_phrases(lang), search_ignore=search_ignore)


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


# --- the slot on a page ---------------------------------------------------------------


def summary_findings(
    located: Located,
    text: str,
    bundle: Mapping[str, Any],
    options: PageOptions,
    lang: str,
    invalid: bool,
    unbound: frozenset[str],
    rendered: list[tuple[Element, str]],
) -> Iterator[tuple[int, Diagnostic]]:
    """A page's summary slot findings (offset in ``text``, diagnostic), and its content when stale
    (appended to ``rendered``, the page's stale slots). ``invalid`` and ``unbound`` are what the page
    check found of the record and the binding.

    At most one slot per page (SH170 at the second); it must be a container with an end tag that
    holds no claim element or evidence slot and sits in none (SH171, SH172); then it must show
    :func:`render_summary`'s block, up to what minifiers change (SH140).
    """
    found = located.summaries
    for extra in found[1:]:
        message = f"at most one {SUMMARY_ATTR} slot per page (found {len(found)}); keep one and remove the others"
        yield extra.start, Diagnostic(DUPLICATE, message, subject="page")
    if len(found) != 1:
        return
    slot = found[0]
    problem = _shape_problem(slot)
    if problem is not None:
        message = f"the {SUMMARY_ATTR} slot must be a container element with an explicit end tag, e.g. <div {SUMMARY_ATTR}></div> (it {problem})"
        yield slot.start, Diagnostic(SHAPE, message, subject="page")
        return
    nested = _nesting(slot, [*located.claims, *located.slots])
    if nested is not None:
        yield slot.start, Diagnostic(NESTED, nested, subject="page")
        return
    order = [e.attrs[CLAIM_ATTR] for e in located.claims]
    block = render_summary(
        bundle,
        order,
        invalid=invalid,
        unbound=unbound,
        lang=lang,
        search_ignore=options.search_ignore,
        freshness=options.freshness,
        template_dir=options.template_dir,
    )
    wanted = with_newlines(block, newline_style(text))
    shown = text[slot.open_end : slot.close_start]
    if shown != wanted and not equivalent(shown, wanted, slot.name):
        rendered.append((slot, wanted))
        yield slot.start, Diagnostic(STALE, STALE_SUMMARY, subject="page")


def _shape_problem(slot: Element) -> str | None:
    if CLAIM_ATTR in slot.attrs or SLOT_ATTR in slot.attrs:
        return f"also carries {CLAIM_ATTR if CLAIM_ATTR in slot.attrs else SLOT_ATTR}; give the summary an element of its own"
    if slot.self_closing and slot.name not in NOT_CONTAINERS:
        return f"is written <{slot.name} …/>, which HTML does not close"
    if slot.name in NOT_CONTAINERS or ":" in slot.name:
        return f"is a <{slot.name}>"
    if not slot.has_end_tag:
        return "has no end tag"
    return None


def _nesting(slot: Element, elements: list[Element]) -> str | None:
    for element in elements:
        kind, cid = (
            ("claim element", element.attrs[CLAIM_ATTR])
            if CLAIM_ATTR in element.attrs
            else ("evidence slot", element.attrs[SLOT_ATTR])
        )
        if element.contains(slot):
            return f'the {SUMMARY_ATTR} slot must not be inside the {kind} of "{cid}": move it out'
        if slot.contains(element):
            return f'the {SUMMARY_ATTR} slot holds the {kind} of "{cid}", which --write would replace: move it out of the slot'
    return None
