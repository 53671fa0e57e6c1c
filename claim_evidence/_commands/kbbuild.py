"""``kb build``: the knowledge base an AI answer may draw on, one chunk per claim of the site with its evidence state.

It reads what ``report`` reads — every registered page and every item of the ``[news]``
correction registry — with the same checks, and writes one chunk per claim (its statement,
conditions, time point, uncertainty, basis and sources with their quotes) plus the ``[chat]
extra`` files split by heading. A chunk's *state* is what its record supports, by the mapping
in :mod:`._chatconfig`: a claim whose record has any error shows as 未確認 on the page, and is
UNVERIFIED here for the same reason. The output is deterministic: chunks in site order, sorted
keys, and ``built_at`` from ``--today``, ``SOURCE_DATE_EPOCH`` or the clock
(:func:`._freshness.build_date`), named with its source.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._answer.config import ChatConfig, site_prompt
from .._answer.kb import KB_FORMAT, KB_VERSION, Chunk
from .._answer.mdchunks import pieces, sections
from .._check.documents import ARTICLE_KEY, BundleDocument, load_document
from .._check.page import STALE, UNBOUND, check_text
from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, InputError, MalformedInput
from .._core.textio import read_text
from .._core.urls import safe_http_url
from .._record.freshness import EXPIRED, Freshness, build_date, build_date_only
from .._record.vocabulary import LABELS, STATUSES, is_valid_id, str_or_none
from .._render.evidence import claim_errors
from .._site.config import Config, expand, registered_pages, site_path

_TITLE_CHARS = 80
_WORDS = {
    "ja": {
        "statement": "主張",
        "conditions": "条件",
        "as_of": "時点",
        "uncertainty": "不確実性",
        "basis": "根拠の種類",
        "source": "出典",
        "section": "該当箇所",
        "supports": "裏付ける内容",
        "quote": "引用",
    },
    "en": {
        "statement": "Claim",
        "conditions": "Conditions",
        "as_of": "As of",
        "uncertainty": "Uncertainty",
        "basis": "Basis",
        "source": "Source",
        "section": "Section",
        "supports": "Supports",
        "quote": "Quote",
    },
}


def build_kb(
    config: Config, today: str | None = None, environ: Mapping[str, str] | None = None, skipped: list[str] | None = None
) -> dict[str, Any]:
    """kb.json's content for the site ``config`` describes (see the module docstring). A page that
    carries evidence markup but whose records cannot be read gives no chunk: it is named in
    ``skipped`` (``"PAGE: CODE message"``), so that a caller can say so instead of building quietly
    without it."""
    day, source = build_date(today, environ)
    chat = config.chat or ChatConfig()
    freshness = (
        replace(config.options.freshness, today=day, source=source)
        if config.options.freshness
        else build_date_only(day, source)
    )
    options = replace(config.options, freshness=freshness)
    lang = config.options.lang if config.options.lang in _WORDS else "ja"
    chunks: list[Chunk] = []
    for path in registered_pages(config):
        name = site_path(config.root, path) or path.as_posix()
        page = check_text(read_text(path), str(path), options)
        if page.has_markup and not (isinstance(page.bundle, dict) and isinstance(page.bundle.get("claims"), list)):
            why = next((f"{d.code} {d.message}" for d in page.diagnostics if d.is_error), "no readable bundle")
            if skipped is not None:
                skipped.append(f"{name}: {why}")
            continue
        chunks += _claim_chunks(name, _page_url(config, name), page.bundle, page.diagnostics, chat, lang)
    if config.news is not None:
        registry = config.root / config.news.corrections
        try:
            value = load_document(registry).value
        except (
            MalformedInput
        ) as exc:  # a registry that cannot be parsed cannot be built from: exit 2, like an unreadable one
            raise InputError(exc.diagnostic) from None
        for url, entry in value.items() if isinstance(value, dict) else ():
            if isinstance(entry, dict) and ARTICLE_KEY in entry:
                found = BundleDocument(str(registry), entry, []).diagnostics(
                    config.options.policy, config.options.snapshots, freshness
                )
                chunks += _claim_chunks(url, safe_http_url(url), entry[ARTICLE_KEY], found, chat, lang)
    for path in expand(config, chat.extra, "chat.extra") if chat.extra else ():
        chunks += _text_chunks(site_path(config.root, path) or path.as_posix(), read_text(path), chat)
    return {
        "format": KB_FORMAT,
        "version": KB_VERSION,
        "built_at": day,
        "built_at_source": source,
        "lang": lang,
        "states": chat.state_map(),
        "fact_labels": list(chat.fact_labels),
        "guard": {
            "banned": list(chat.banned),
            "copy_prefix": chat.copy_prefix,
            "advice": list(chat.advice),
            "prediction": list(chat.prediction),
            **_system_prompt(config, chat),
        },
        "freshness": {"max_age_days": dict((config.options.freshness or Freshness()).max_age_days)},
        "chunks": [c.as_dict() for c in _unique(chunks)],
    }


def _system_prompt(config: Config, chat: ChatConfig) -> dict[str, str]:
    """``{"system_prompt": text}`` of the site's own prompt file (relative to the config), or nothing."""
    path = chat.prompt_path(config.path.parent if config.path is not None else config.root)
    if path is None:
        return {}
    return {"system_prompt": site_prompt(read_text(path), str(path))}


def _page_url(config: Config, name: str) -> str:
    """Where a registered page is served: base_url + its path under web_root ("" outside web_root)."""
    site = config.options.site
    base, web_root = (site.base_url, site.web_root) if site else ("/", "")
    if web_root:
        if not name.startswith(web_root + "/"):
            return ""
        name = name[len(web_root) + 1 :]
    return base + quote(name, safe="/")


def _claim_chunks(
    page: str, url: str, bundle: Any, diagnostics: list[Diagnostic], chat: ChatConfig, lang: str
) -> Iterator[Chunk]:
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    sources = bundle.get("sources") if isinstance(bundle, dict) else None
    by_id = (
        {s["id"]: s for s in sources if isinstance(s, dict) and isinstance(s.get("id"), str)}
        if isinstance(sources, list)
        else {}
    )
    errors = [d for d in diagnostics if d.is_error and d.code not in (EXPIRED, STALE)]
    # A record's error makes unverified the claims it concerns, exactly as the page's blocks show them
    # (one broken claim says nothing of its neighbours; a broken source, of the claims citing it).
    invalid = claim_errors(bundle, [d for d in errors if d.code.startswith("CE")])
    unbound = {d.subject for d in errors if d.code in UNBOUND}
    expired = {d.subject for d in diagnostics if d.code == EXPIRED}
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        if not isinstance(claim, dict):
            continue
        cid = claim.get("id") if is_valid_id(claim.get("id")) else None
        subject = f"claim {cid}"
        rule = _rule(claim, i in invalid or subject in unbound, subject in expired, chat)
        label = str_or_none(claim.get("label")) or ""
        statement = str_or_none(claim.get("statement")) or ""
        yield Chunk(
            f"{page}#{cid}" if cid else f"{page}#claims-{i}",
            "claim",
            chat.state_for(rule),
            rule,
            _title(label or statement),
            claim_text(claim, by_id, lang),
            f"{url}#evidence-{cid}" if url and cid else url,
            page,
            tuple(_cited(claim, by_id)),
            _record(claim, by_id),
        )


def _record(claim: dict[str, Any], sources: Mapping[str, Any]) -> dict[str, Any]:
    """The claim as recorded and the sources it cites (once each, in reference order): enough to
    validate it again and age its review when an answer cites it (:mod:`claim_evidence.chat._cited`)."""
    refs = claim.get("source_refs")
    ids = (
        [r["source_id"] for r in refs if isinstance(r, dict) and isinstance(r.get("source_id"), str)]
        if isinstance(refs, list)
        else []
    )
    return {"claim": claim, "sources": [sources[i] for i in dict.fromkeys(ids) if i in sources]}


def _rule(claim: dict[str, Any], invalid: bool, expired: bool, chat: ChatConfig) -> str:
    """Which mapping rule a claim falls under (SCHEMA.md "Knowledge base"), most cautious first."""
    status = str_or_none(claim.get("status"))
    if invalid or status not in STATUSES:
        return "invalid"
    if status == "unverified":
        return "unverified"
    if expired:
        return "expired"
    if status == "matched":
        return "fact" if str_or_none(claim.get("evidence_label")) in chat.fact_labels else "matched"
    assert status is not None
    return status


def claim_text(claim: Mapping[str, Any], sources: Mapping[str, Any], lang: str) -> str:
    """What a claim chunk says, one fact per line, in the site's language (SCHEMA.md "Knowledge base")."""
    w = _WORDS[lang]
    lines = [label] if (label := str_or_none(claim.get("label"))) else []
    lines.append(f"{w['statement']}: {str_or_none(claim.get('statement')) or ''}")
    conditions = (
        [c for c in claim.get("conditions") or [] if isinstance(c, str)]
        if isinstance(claim.get("conditions"), list)
        else []
    )
    if conditions:
        lines.append(f"{w['conditions']}: " + "; ".join(conditions))
    if is_valid_date(claim.get("as_of")):
        lines.append(f"{w['as_of']}: {claim['as_of']}")
    if uncertainty := str_or_none(claim.get("uncertainty")):
        lines.append(f"{w['uncertainty']}: {uncertainty}")
    if basis := LABELS[lang]["basis"].get(str_or_none(claim.get("basis")) or ""):
        lines.append(f"{w['basis']}: {basis}")
    refs = claim.get("source_refs")
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict):
            continue
        source = sources.get(str_or_none(ref.get("source_id")) or "")
        source = source if isinstance(source, dict) else {}
        publisher, title = str_or_none(source.get("publisher")) or "", str_or_none(source.get("title")) or ""
        parts = [f"{w['source']}: " + (f"{publisher}「{title}」" if lang == "ja" else f'{publisher}, "{title}"')]
        if url := safe_http_url(source.get("url")):
            parts.append(url)
        for key in ("section", "supports"):
            if value := str_or_none(ref.get(key)):
                parts.append(f"{w[key]}: {value}")
        quote_ = ref.get("quote")
        if isinstance(quote_, dict) and (exact := str_or_none(quote_.get("exact"))):
            parts.append(f"{w['quote']}: " + (f"「{exact}」" if lang == "ja" else f'"{exact}"'))
        lines.append(" ".join(parts))
    return "\n".join(lines)


def _cited(claim: Mapping[str, Any], sources: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    seen: set[str] = set()
    refs = claim.get("source_refs")
    for ref in refs if isinstance(refs, list) else []:
        sid = str_or_none(ref.get("source_id")) if isinstance(ref, dict) else None
        source = sources.get(sid or "")
        url = safe_http_url(source.get("url")) if isinstance(source, dict) else ""
        if url and url not in seen:
            seen.add(url)
            assert isinstance(source, dict)
            yield str_or_none(source.get("publisher")) or "", str_or_none(source.get("title")) or "", url


def _text_chunks(name: str, text: str, chat: ChatConfig) -> Iterator[Chunk]:
    number = 0
    for title, body in sections(text, Path(name).name):
        for piece in pieces(body, chat.max_chunk_chars):
            number += 1
            yield Chunk(f"{name}#{number}", "text", chat.extra_state, "extra", _title(title), piece, "", name)


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _TITLE_CHARS else flat[: _TITLE_CHARS - 1] + "…"


def _unique(chunks: list[Chunk]) -> list[Chunk]:
    """Ids made unique in order (a repeated claim id is an invalid record, yet its chunk must stay addressable)."""
    seen: dict[str, int] = {}
    out = []
    for chunk in chunks:
        count = seen[chunk.id] = seen.get(chunk.id, 0) + 1
        out.append(chunk if count == 1 else replace(chunk, id=f"{chunk.id}~{count}"))
    return out
