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
tag and state phrases are this module's own (:data:`WORDS`); the page markers' will read the same.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._core.urls import safe_http_url
from .._record.freshness import Freshness, Marker, at_build, review_marker, reviews_after_build
from .._record.policy import DEFAULT_POLICY, Policy
from .._record.validation import iter_diagnostics
from .._record.vocabulary import LOCALES, str_or_none
from .evidence import MARKER_SYMBOLS, _cited, _source_map, claim_errors

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
FORMATS = ("markdown", "html", "json")

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
        "permanent": "[常設]",
        "period": "[{n}日]",
        "review_by": "[期限 {due}]",
        "expired": "⚠ 古い: 再確認が必要（期限 {due}）",
        "untitled": "（題名なし）",
        "no_source": "出典未登録",
        "default_label": "この主張",
        "uses": "、",
        "supports_open": "（",
        "supports_close": "）",
        "sources": "、",
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
        "permanent": "[permanent]",
        "period": "[{n} days]",
        "review_by": "[review by {due}]",
        "expired": "⚠ outdated: needs re-checking (due {due})",
        "untitled": "(untitled)",
        "no_source": "no source recorded",
        "default_label": "This claim",
        "uses": "; ",
        "supports_open": " (",
        "supports_close": ")",
        "sources": "; ",
    },
}


@dataclass(frozen=True)
class Use:
    """One claim relying on a source: its label and what its refs to that source say they support."""

    claim_id: str
    label: str
    supports: tuple[str, ...] = ()


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
                use = _use(claim, mine, lang)
                if use not in entry["uses"]:
                    entry["uses"].append(use)
    lines = [
        CitedLine(e["kind"], min(e["sources"], key=_source_key), _latest(e["markers"]), tuple(e["uses"]))
        for e in merged.values()
    ]
    lines.sort(key=lambda line: (KINDS.index(line.kind), _source_key(line.source)))
    unreviewed.sort(key=lambda u: (u.use.label, u.use.claim_id))
    return CitedSources(lang, freshness.today, freshness.source or "", tuple(lines), tuple(dict.fromkeys(unreviewed)))


def format_cited_sources(
    records: Iterable[Any],
    used_for: Iterable[str] | None = None,
    *,
    today: str | None = None,
    lang: str = "ja",
    max_age_days: Mapping[str, int | None] | None = None,
) -> str:
    """The Cited Sources block in Markdown for the claims of ``records`` (bundles as dicts, for example
    the parsed ``claim-evidence-data`` of pages) that the text relied on: ``used_for`` names their
    claim ids (None: every claim of ``records``).

    ``today`` is the build date (YYYY-MM-DD) reviews are aged to; None: ``SOURCE_DATE_EPOCH``, else
    the clock. ``max_age_days`` is the site's ``[freshness] max_age_days`` (None: the defaults, see
    SCHEMA.md "Review age"). Each record is validated (the default policy): a claim whose record is
    wrong is listed as not reviewed. Raises :class:`~claim_evidence.InputError` (CE600) for an
    invalid ``today``. Ends with a newline; the same records and ``today`` give the same text.
    """
    policy = Freshness() if max_age_days is None else Freshness(max_age_days=tuple(max_age_days.items()))
    dated = at_build(policy, today)
    return render_markdown(cited_sources(records, used_for, freshness=dated, lang=lang))


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


def _use(claim: Mapping[str, Any], refs: list[dict[str, Any]], lang: str) -> Use:
    supports = tuple(dict.fromkeys(s for r in refs if (s := _one_line(r.get("supports")))))
    label = _one_line(claim.get("label")) or _one_line(claim.get("id")) or WORDS[lang]["default_label"]
    return Use(str_or_none(claim.get("id")) or "", label, supports)


_URGENCY = {"fresh": 0, "due soon": 1, "expired": 2}


def _latest(markers: list[Marker]) -> Marker:
    """The latest review; of two on the same day, the less fresh (as the page summary decides)."""
    return max(markers, key=lambda m: (m.checked_at, _URGENCY[m.state], m.due or "", m.period_days or 0))


_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _one_line(value: Any) -> str:
    """A record's text on one line: a line break in a title must not start a Markdown block."""
    return _SPACE.sub(" ", value).strip() if isinstance(value, str) else ""


# --- the three forms -------------------------------------------------------------------------


def tag(marker: Marker, lang: str) -> str:
    """The policy tag: ``[常設]`` without a due date, ``[N日]`` for a basis's period, else the review_by date."""
    words = WORDS[lang]
    if marker.due is None:
        return words["permanent"]
    if marker.period_days is not None:
        return words["period"].format(n=marker.period_days)
    return words["review_by"].format(due=marker.due)


def suffix(marker: Marker, lang: str) -> str:
    """The ⚠ suffix of an expired review ("" otherwise)."""
    return WORDS[lang]["expired"].format(due=marker.due) if marker.state == "expired" else ""


_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]()!#<>&|~]")
# Entities where a backslash is not an escape in every Markdown (Python-Markdown keeps ``\<`` as it is).
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "|": "&#124;", "~": "&#126;"}


def markdown_text(text: str) -> str:
    """Record text as inert Markdown in CommonMark and Python-Markdown alike: what opens links,
    images, code and emphasis is backslash-escaped, what opens raw HTML, entities, tables and
    strikethrough becomes an entity, so a title cannot inject a link or a tag."""
    return _MARKDOWN_SPECIAL.sub(lambda m: _ENTITIES.get(m[0], "\\" + m[0]), text)


def _markdown_source(source: SourceRef, lang: str) -> str:
    title = markdown_text(source.title or WORDS[lang]["untitled"])
    url = source.url.replace("<", "%3C").replace(">", "%3E")  # the one thing that could close <…>
    linked = f"[{title}](<{url}>)" if source.url else title
    return f"{markdown_text(source.publisher)}: {linked}" if source.publisher else linked


def _uses(uses: Iterable[Use], lang: str, escape: Any) -> str:
    words = WORDS[lang]
    return words["uses"].join(
        escape(u.label)
        + (
            words["supports_open"] + escape(words["sources"].join(u.supports)) + words["supports_close"]
            if u.supports
            else ""
        )
        for u in uses
    )


def render_markdown(block: CitedSources) -> str:
    words = WORDS[block.lang]
    out = [f"## {words['title']}", ""]
    if not block.lines and not block.not_reviewed:
        out += [words["none"], ""]
    for kind in KINDS:
        lines = [line for line in block.lines if line.kind == kind]
        if not lines:
            continue
        out += [f"### {words[kind]}", ""]
        for line in lines:
            m = line.marker
            text = (
                f"- {MARKER_SYMBOLS[m.state]} {tag(m, block.lang)} {m.checked_at} "
                f"{_markdown_source(line.source, block.lang)} — {_uses(line.uses, block.lang, markdown_text)}"
            )
            out.append(text + (f" {suffix(m, block.lang)}" if m.state == "expired" else ""))
        out.append("")
    if block.not_reviewed:
        out += [f"### {words['not_reviewed']}", ""]
        for u in block.not_reviewed:
            cited = words["sources"].join(_markdown_source(s, block.lang) for s in u.sources) or words["no_source"]
            out.append(f"- {_uses([u.use], block.lang, markdown_text)} — {cited}")
        out.append("")
    return "\n".join(out[:-1]) + "\n"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _html_source(source: SourceRef, lang: str) -> str:
    title = _esc(source.title or WORDS[lang]["untitled"])
    linked = f'<a href="{_esc(source.url)}" rel="noopener noreferrer">{title}</a>' if source.url else title
    return f"{_esc(source.publisher)}: {linked}" if source.publisher else linked


def render_html(block: CitedSources) -> str:
    """The block as one ``<section class="claim-evidence-cited">``; every record text is escaped.
    Each line keeps its state in ``data-freshness`` (a CSS hook), the symbol hidden from screen readers."""
    lang, words = block.lang, WORDS[block.lang]
    out = [f'<section class="claim-evidence-cited" lang="{lang}">', f"<h2>{_esc(words['title'])}</h2>"]
    if not block.lines and not block.not_reviewed:
        out.append(f"<p>{_esc(words['none'])}</p>")
    for kind in KINDS:
        lines = [line for line in block.lines if line.kind == kind]
        if not lines:
            continue
        out += [f'<h3 data-kind="{kind}">{_esc(words[kind])}</h3>', "<ul>"]
        for line in lines:
            m = line.marker
            tail = (
                f' <span class="claim-evidence-expired">{_esc(suffix(m, lang))}</span>' if m.state == "expired" else ""
            )
            out.append(
                f'<li data-freshness="{m.state.replace(" ", "-")}"><span aria-hidden="true">{MARKER_SYMBOLS[m.state]}</span> '
                f'{_esc(tag(m, lang))} <time datetime="{m.checked_at}">{m.checked_at}</time> '
                f"{_html_source(line.source, lang)} — {_uses(line.uses, lang, _esc)}{tail}</li>"
            )
        out.append("</ul>")
    if block.not_reviewed:
        out += [f'<h3 data-kind="{NOT_REVIEWED}">{_esc(words["not_reviewed"])}</h3>', "<ul>"]
        for u in block.not_reviewed:
            cited = _esc(words["sources"]).join(_html_source(s, lang) for s in u.sources) or _esc(words["no_source"])
            out.append(f'<li data-freshness="not-reviewed">{_uses([u.use], lang, _esc)} — {cited}</li>')
        out.append("</ul>")
    out.append("</section>")
    return "\n".join(out) + "\n"


def as_json(block: CitedSources) -> dict[str, Any]:
    """Fixed keys (SCHEMA.md "Cited Sources"): what the chat widget and scripts read."""
    words = WORDS[block.lang]
    return {
        "lang": block.lang,
        "build_date": block.build_date,
        "build_date_source": block.build_date_source,
        "title": words["title"],
        "groups": [
            {
                "kind": kind,
                "heading": words[kind],
                "sources": [_line_json(line, block.lang) for line in block.lines if line.kind == kind],
            }
            for kind in KINDS
            if any(line.kind == kind for line in block.lines)
        ],
        "not_reviewed_heading": words["not_reviewed"],
        "not_reviewed": [
            {
                **_use_json(u.use),
                "uses": _uses([u.use], block.lang, str),
                "sources": [_source_json(s) for s in u.sources],
            }
            for u in block.not_reviewed
        ],
    }


def _line_json(line: CitedLine, lang: str) -> dict[str, Any]:
    m = line.marker
    return {
        **_source_json(line.source),
        "state": m.state,
        "symbol": MARKER_SYMBOLS[m.state],
        "tag": tag(m, lang),
        "checked_at": m.checked_at,
        "due": m.due,
        "period_days": m.period_days,
        "suffix": suffix(m, lang),
        "used_for": [_use_json(u) for u in line.uses],
        "uses": _uses(line.uses, lang, str),
    }


def _source_json(source: SourceRef) -> dict[str, Any]:
    return {"publisher": source.publisher, "title": source.title, "url": source.url}


def _use_json(use: Use) -> dict[str, Any]:
    return {"claim_id": use.claim_id, "label": use.label, "supports": list(use.supports)}


def render(block: CitedSources, fmt: str) -> str:
    """The block in one of :data:`FORMATS`."""
    if fmt == "json":
        return json.dumps(as_json(block), ensure_ascii=False, indent=2) + "\n"
    return render_html(block) if fmt == "html" else render_markdown(block)


# What a Markdown page writes where a generator plugin puts the block (Python-Markdown passes an HTML
# comment through as it is; in a code span or block it is escaped, so an example of it stays an example).
PLACEHOLDER = re.compile(r"<!--\s*claim-evidence:\s*cited-sources\s*-->")


def fill_placeholder(text: str, block: CitedSources) -> str:
    """``text`` (a built page) with each :data:`PLACEHOLDER` replaced by the HTML form of ``block``;
    ``text`` itself when it holds none."""
    if PLACEHOLDER.search(text) is None:
        return text
    rendered = render_html(block)
    return PLACEHOLDER.sub(lambda _: rendered.rstrip("\n"), text)
