"""The Cited Sources block: which sources a report or an answer relied on, for what, and how fresh each review is.

A page's summary slot lists the sources of one page for its readers; this block is text that
something written *from* the records (an AI answer, a weekly summary, a Markdown article) appends,
so it says the same things in a form that can be pasted: Markdown (the form
:func:`format_cited_sources` returns), HTML (the MkDocs placeholder) and JSON (the chat endpoint's
``cited_sources`` field, ``claim-evidence cite --format json``).

One line per source per basis kind (five kinds, fixed order: :data:`KINDS`), under the kind's heading:
the marker symbol, the policy tag (``[365日]``, ``[常設]``), the latest review among the claims relying
on it, publisher and title (a link only for :func:`~claim_evidence._core.urls.safe_http_url`), then
`` — `` what it is used for (the claims' labels and their refs' ``supports``) and the ⚠ suffix once
the review has expired. A claim without a valid review (not a reviewed status, no valid
``checked_at``, a record validation finds wrong, a review dated after the build) never lends a
source its freshness: it is listed under its own heading as not reviewed.

The text of a line depends on the review's *state* and dates, never on a count of days, so the
block of an unchanged site changes only when a review enters the due-soon window or expires. The
tag and the ⚠ suffix are the page markers' own words (:mod:`.markers`), so a line and a block cannot drift apart.
This module collects the block (:func:`cited_sources`); :mod:`.citedforms` lays it out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._core.urls import safe_http_url
from .._record.freshness import Freshness, Marker, review_marker, reviews_after_build
from .._record.policy import DEFAULT_POLICY, Policy
from .._record.signature import signature_of
from .._record.validation import iter_diagnostics
from .._record.vocabulary import LOCALES, str_or_none
from .evidence import _cited, _source_map, claim_errors
from .summary import _URGENCY

# Basis kinds, in the order the block lists them. A third-party measurement is a primary source
# of its figures (it is nobody's report of them), so it is listed with the official specifications.
KINDS = ("primary", "reporting", "vendor", "own", "editorial")
KIND_OF_BASIS = {
    "official_spec": "primary",
    "independent_measurement": "primary",
    "reporting": "reporting",
    "vendor_claim": "vendor",
    "operator_measurement": "own",
    "editorial": "editorial",
}
NOT_REVIEWED = "not_reviewed"

WORDS: dict[str, dict[str, str]] = {
    "ja": {
        "title": "📚 依拠した資料",
        "primary": "公式仕様・一次資料",
        "reporting": "報道",
        "vendor": "ベンダーの公称",
        "own": "運営者による実測",
        "editorial": "編集者の見解",
        "not_reviewed": "未照合（照合記録なし・有効な照合なし）",
        "none": "依拠した資料はありません。",
        "untitled": "（題名なし）",
        "no_source": "出典未登録",
        "default_label": "この主張",
        "uses": "、",
        "supports_open": "（",
        "supports_close": "）",
        "sources": "、",
        "signed": "（署名: {}）",
    },
    "en": {
        "title": "📚 Cited Sources",
        "primary": "Official specifications and primary sources",
        "reporting": "Reporting",
        "vendor": "Vendor claims",
        "own": "Own measurements",
        "editorial": "Editorial",
        "not_reviewed": "Not reviewed (no valid review recorded)",
        "none": "No sources were relied on.",
        "untitled": "(untitled)",
        "no_source": "no source recorded",
        "default_label": "This claim",
        "uses": "; ",
        "supports_open": " (",
        "supports_close": ")",
        "sources": "; ",
        "signed": " (signed by {})",
    },
}


@dataclass(frozen=True)
class Use:
    """One claim relying on a source: its label and what its refs to that source say they support."""

    claim_id: str
    label: str
    supports: tuple[str, ...] = ()
    signer: str = ""  # the review's signer, with [reviews] show_signer on ("": not shown)


@dataclass(frozen=True)
class SourceRef:
    publisher: str
    title: str
    url: str  # a safe http(s) URL, or "" (then no link)


@dataclass(frozen=True)
class CitedLine:
    """One source under one basis kind, with the latest review among the claims relying on it there."""

    kind: str
    source: SourceRef
    marker: Marker
    uses: tuple[Use, ...]


@dataclass(frozen=True)
class Unreviewed:
    """A claim relied on without a valid review, with the sources it cites."""

    use: Use
    sources: tuple[SourceRef, ...]


@dataclass(frozen=True)
class CitedSources:
    lang: str
    build_date: str
    build_date_source: str
    lines: tuple[CitedLine, ...]  # grouped by kind in KINDS order, sorted within a kind
    not_reviewed: tuple[Unreviewed, ...] = field(default=())


def cited_sources(
    records: Iterable[Any],
    used_for: Iterable[str] | None = None,
    *,
    freshness: Freshness,
    lang: str = "ja",
    policy: Policy = DEFAULT_POLICY,
    withheld: frozenset[int] = frozenset(),
) -> CitedSources:
    """The block's content for the claims of ``records`` (bundles) whose ids are in ``used_for`` (None: all).

    ``freshness`` must carry a resolved build date (see :func:`.freshness.at_build`); markers are
    always shown here, whatever the site's ``markers`` says, since freshness is what the block is for.
    ``withheld``: indexes of records whose reviews a check outside the record refused (the chat's kb
    judged the page and record to disagree): their claims are listed as not reviewed.
    """
    lang = lang if lang in LOCALES else "ja"
    assert freshness.today is not None
    aging = freshness if freshness.aging else Freshness(today=freshness.today, source=freshness.source)
    aging = replace(aging, markers=True)
    wanted = None if used_for is None else frozenset(used_for)
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    unreviewed: list[Unreviewed] = []
    for number, bundle in enumerate(records):
        if not isinstance(bundle, Mapping):
            continue
        claims = bundle.get("claims")
        claims = claims if isinstance(claims, list) else []
        wrong = set(range(len(claims))) if number in withheld else _invalid_claims(bundle, aging, policy)
        sources = _source_map(bundle.get("sources"))
        for index, claim in enumerate(claims):
            if not isinstance(claim, dict) or (wanted is not None and claim.get("id") not in wanted):
                continue
            refs = _cited(claim, sources)
            marker = None if index in wrong else review_marker(claim, aging)
            if marker is None:
                unreviewed.append(
                    Unreviewed(_use(claim, refs, lang), tuple(_dedup(_source(sources[r["source_id"]]) for r in refs)))
                )
                continue
            kind = KIND_OF_BASIS.get(str_or_none(claim.get("basis")) or "", "editorial")
            for sid in dict.fromkeys(str(r["source_id"]) for r in refs):
                source = _source(sources[sid])
                key = (kind, source.url or f"{source.publisher}\n{source.title}")
                mine = [r for r in refs if r["source_id"] == sid]
                entry = merged.setdefault(key, {"kind": kind, "sources": [], "markers": [], "uses": []})
                entry["sources"].append(source)
                entry["markers"].append(marker)
                use = _use(claim, mine, lang, policy.show_signer)
                if use not in entry["uses"]:
                    entry["uses"].append(use)
    lines = [
        CitedLine(e["kind"], min(e["sources"], key=_source_key), _latest(e["markers"]), tuple(e["uses"]))
        for e in merged.values()
    ]
    lines.sort(key=lambda line: (KINDS.index(line.kind), _source_key(line.source)))
    unreviewed.sort(key=lambda u: (u.use.label, u.use.claim_id))
    return CitedSources(lang, freshness.today, freshness.source or "", tuple(lines), tuple(dict.fromkeys(unreviewed)))


def _invalid_claims(bundle: Mapping[str, Any], freshness: Freshness, policy: Policy) -> set[int]:
    """Indexes of the claims whose record is wrong (validation errors, a review dated after the build)."""
    errors = [d for d in iter_diagnostics(bundle, policy=policy) if d.is_error]
    assert freshness.today is not None
    errors += reviews_after_build(bundle, freshness.today, freshness.source)
    return set(claim_errors(bundle, errors))


def _source(source: Mapping[str, Any]) -> SourceRef:
    return SourceRef(
        _one_line(source.get("publisher")), _one_line(source.get("title")), safe_http_url(source.get("url"))
    )


def _source_key(source: SourceRef) -> tuple[str, str, str]:
    return source.publisher, source.title, source.url


def _dedup(sources: Iterable[SourceRef]) -> list[SourceRef]:
    return list(dict.fromkeys(sources))


def _use(claim: Mapping[str, Any], refs: list[dict[str, Any]], lang: str, show_signer: bool = False) -> Use:
    supports = tuple(dict.fromkeys(s for r in refs if (s := _one_line(r.get("supports")))))
    label = _one_line(claim.get("label")) or _one_line(claim.get("id")) or WORDS[lang]["default_label"]
    signature = signature_of(claim) if show_signer else None
    signer = _one_line(signature.get("signer")) if signature is not None else ""
    return Use(str_or_none(claim.get("id")) or "", label, supports, signer)


def _latest(markers: list[Marker]) -> Marker:
    """The latest review; of two on the same day, the less fresh (as the page summary decides)."""
    return max(markers, key=lambda m: (m.checked_at, _URGENCY[m.state], m.due or "", m.period_days or 0))


_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _one_line(value: Any) -> str:
    """A record's text on one line: a line break in a title must not start a Markdown block."""
    return _SPACE.sub(" ", value).strip() if isinstance(value, str) else ""
