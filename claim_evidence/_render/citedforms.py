"""The Cited Sources block's three forms: Markdown, HTML and JSON (see :mod:`.cited` for what it holds).

Markdown is what :func:`format_cited_sources` returns and the chat copies; HTML is what the MkDocs
placeholder becomes; JSON is the chat endpoint's ``cited_sources`` and ``cite --format json``. Record
text is inert in each: Markdown specials escaped, HTML escaped, a link only for a URL that
:func:`~claim_evidence._core.urls.safe_http_url` let through when the block was collected.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._record.freshness import Freshness, Marker, at_build
from .cited import KINDS, NOT_REVIEWED, WORDS, CitedLine, CitedSources, SourceRef, Use, cited_sources
from .markers import MARKER_SYMBOLS, marker_words, policy_tag

FORMATS = ("markdown", "html", "json")


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


def tag(marker: Marker, lang: str) -> str:
    """The policy tag, as the page's marker shows it (:func:`.markers.policy_tag`)."""
    return policy_tag(marker, lang)


def suffix(marker: Marker, lang: str) -> str:
    """The ⚠ suffix of an expired review, as the page's marker shows it ("" otherwise)."""
    return marker_words(marker, lang).state if marker.state == "expired" else ""


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
        + (words["signed"].format(escape(u.signer)) if u.signer else "")
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
    signer = {"signer": use.signer} if use.signer else {}  # only with [reviews] show_signer on
    return {"claim_id": use.claim_id, "label": use.label, "supports": list(use.supports), **signer}


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
