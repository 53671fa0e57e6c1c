"""The evidence block: a view model built in Python, laid out by jinja2 templates.

Rendering never trusts an invalid record: a claim that a validation error concerns
(:func:`claim_errors` decides which) shows as unverified, without review date or
method, and with a warning; the other claims of the bundle render as usual.
Templates may be replaced by a site (``template_dir``); line breaks and the
indentation after them are removed from template source, so templates can be
written readably while the output stays one line per block.

What a block says is decided here; how jinja2 lays it out (the environments, the escaping, the
``isolate`` filter) is :mod:`.templating`'s, imported on the first render (:func:`_templating`): the
page check imports this module for :func:`claim_errors` and the render entry points, and a run whose
every block comes from the record cache never loads jinja2 or markupsafe.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from types import ModuleType
from typing import Any

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, InputError
from .._core.jsonpos import parse_path
from .._core.memo import Memo, content_key
from .._core.urls import safe_http_url
from .._record.freshness import Freshness, Marker, marker_key, review_marker
from .._record.signature import signature_of
from .._record.validation import iter_diagnostics
from .._record.vocabulary import LABELS, TEXT, is_valid_id, str_or_none
from .markers import MARKER_SYMBOLS, marker_text, policy_tag

TEMPLATE = "evidence.html.j2"
MALFORMED_TEMPLATE = "malformed.html.j2"


@cache
def _templating() -> ModuleType:
    """:mod:`.templating` (jinja2, markupsafe), imported by the first render, never by a check whose blocks
    all come from the record cache. Cached, so a view pays a call (60 ns), not an import statement
    (2 µs, a relative one), for each claim it builds."""
    from . import templating

    return templating


def render_evidence(
    bundle: Any,
    claim_ids: Iterable[str] | None = None,
    subject: Mapping[str, Any] | None = None,
    *,
    lang: str = "ja",
    template_dir: str | os.PathLike[str] | None = None,
    search_ignore: bool = False,
    freshness: Freshness | None = None,
    show_signer: bool = False,
) -> str:
    """HTML for the claims of ``bundle`` (all, or those in ``claim_ids``), joined by newlines.

    ``None``/``{}`` (legacy items) render as ``""``. ``search_ignore`` marks each block for site
    search to skip (``data-pagefind-ignore``, ``data-search-exclude``): the blocks repeat the same
    labels on every page and would otherwise dominate a page's index entry. ``freshness`` with
    ``markers`` on and a resolved build date adds each review's freshness marker to its block's
    first line; otherwise blocks are exactly as without it. ``show_signer`` (``[reviews] show_signer``)
    names the signer of a signed review after its method (rendering never verifies it: the site
    check does, and fails the page on a signature it does not accept).
    """
    if bundle is None or (isinstance(bundle, dict) and not bundle):
        return ""
    if lang not in LABELS:
        raise ValueError(f"unknown lang {lang!r}; expected one of {', '.join(sorted(LABELS))}")
    jinja = _templating()
    folder = None if template_dir is None else os.fspath(template_dir)
    if not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        return jinja._render(jinja.template(folder, MALFORMED_TEMPLATE), t=_phrases(lang))
    wanted = None if claim_ids is None else set(claim_ids)
    # A site's own templates may change on disk while a process runs; only the packaged ones are cached.
    key = (
        _memo_key(bundle, subject, lang, search_ignore, (marker_key(freshness, bundle), show_signer))
        if template_dir is None
        else None
    )
    cached = _MEMO.get(key) if key is not None else None
    if cached is None:
        errors = [d for d in iter_diagnostics(bundle, subject) if d.is_error]
        cached = _Rendered(frozenset(claim_errors(bundle, errors)))
        if key is not None:
            _MEMO.put(key, cached)
    sources: dict[str, dict[str, Any]] | None = None
    shown: dict[str, _Shown] = {}
    template = jinja.template(folder, TEMPLATE)
    blocks = []
    for index, claim in enumerate(bundle["claims"]):
        if isinstance(claim, dict) and (wanted is None or _wanted(claim.get("id"), wanted)):
            block = cached.blocks.get(index) if key is not None else None
            if block is None:
                sources = _source_map(bundle.get("sources")) if sources is None else sources
                view = _claim_view(
                    claim,
                    sources,
                    index in cached.invalid,
                    lang,
                    freshness=freshness,
                    show_signer=show_signer,
                    shown=shown,
                )
                with site_template(folder, TEMPLATE):
                    block = jinja._render(template, c=view, t=_phrases(lang), search_ignore=search_ignore)
                if key is not None:
                    cached.blocks[index] = block
            blocks.append(block)
    html_text = "\n".join(blocks)
    # A lone surrogate (CE007, so every claim is invalid) would make the page unwritable as UTF-8.
    return _SURROGATE.sub("\ufffd", html_text) if cached.invalid else html_text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _wanted(cid: Any, wanted: set[Any]) -> bool:
    return not isinstance(cid, (dict, list)) and cid in wanted  # an object or array id is wanted by no one


def render_blocks(
    bundle: dict[str, Any],
    *,
    invalid: AbstractSet[int],
    lang: str = "ja",
    search_ignore: bool = False,
    freshness: Freshness | None = None,
    template_dir: str | None = None,
    show_signer: bool = False,
) -> dict[str, str]:
    """Every claim id's block with the packaged templates, as ``render_evidence(bundle, [id])`` gives it
    (claims sharing an id joined by newlines), for a caller that has validated ``bundle`` already and
    passes the outcome as ``invalid``, the indexes of the claims :func:`claim_errors` found errors for:
    the page check, which must not validate twice. ``template_dir``: the site's templates, as for
    :func:`render_evidence`."""
    jinja = _templating()
    template = jinja.template(template_dir, TEMPLATE)
    sources = _source_map(bundle.get("sources"))
    shown: dict[str, _Shown] = {}
    phrases = _phrases(lang)
    found: dict[str, list[str]] = {}
    with site_template(template_dir, TEMPLATE):
        for index, claim in enumerate(bundle["claims"]):
            if isinstance(claim, dict) and isinstance(claim.get("id"), str):
                view = _claim_view(
                    claim, sources, index in invalid, lang, freshness=freshness, show_signer=show_signer, shown=shown
                )
                found.setdefault(claim["id"], []).append(
                    jinja._render(template, c=view, t=phrases, search_ignore=search_ignore)
                )
    return {cid: "\n".join(blocks) for cid, blocks in found.items()}


# Findings after which validation stopped (:func:`.._record.validation.iter_diagnostics`): the rest of
# the bundle was never checked, so no claim of it is known to be valid.
_HALTING = frozenset({"CE005", "CE007", "CE008"})


def claim_errors(bundle: Any, errors: Iterable[Diagnostic]) -> dict[int, list[Diagnostic]]:
    """The claims (indexes in ``bundle["claims"]``) that the validation ``errors`` make unverified, each
    with the errors that concern it, in ``errors``' order; a claim no error concerns is not a key.

    One invalid record says nothing about its neighbours, so an error shows as unverified only the
    claims whose block it could make wrong: an error at ``$.claims[i]…`` is claim *i*'s, and that of
    every claim sharing its id (a page binds its slot by id); an error at ``$.sources[j]…`` is that of
    the claims citing that source's id. An error nothing narrower holds — the bundle itself, its lists,
    a source whose id is not the one id of one source (invalid, missing or a duplicate: which claims
    cite it cannot be told), a finding after which validation stopped — concerns every claim. Both
    :func:`render_evidence` and the page check decide with this, so a page and the library agree."""
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    if not isinstance(claims, list):
        return {}
    found: dict[int, list[Diagnostic]] = {}
    for d in errors:
        for index in _concerned(bundle, claims, d):
            found.setdefault(index, []).append(d)
    return {index: found[index] for index in sorted(found)}


def _concerned(bundle: dict[str, Any], claims: list[Any], d: Diagnostic) -> list[int]:
    everyone = list(range(len(claims)))
    parts = parse_path(d.path)
    if d.code in _HALTING or len(parts) < 2 or not isinstance(parts[1], int):
        return everyone
    if parts[0] == "claims":
        return _sharing_id(claims, [parts[1]]) if parts[1] < len(claims) else everyone
    sources = bundle.get("sources")
    if parts[0] != "sources" or not isinstance(sources, list) or parts[1] >= len(sources):
        return everyone
    source = sources[parts[1]]
    sid = source.get("id") if isinstance(source, dict) else None
    ids = [s.get("id") for s in sources if isinstance(s, dict)]
    if not isinstance(sid, str) or not is_valid_id(sid) or ids.count(sid) != 1 or parts[2:3] == ["id"]:
        return everyone
    citing = [i for i, claim in enumerate(claims) if isinstance(claim, dict) and _cites(claim, sid)]
    return _sharing_id(claims, citing)


def _cites(claim: dict[str, Any], sid: str) -> bool:
    refs = claim.get("source_refs")
    return any(isinstance(r, dict) and r.get("source_id") == sid for r in (refs if isinstance(refs, list) else []))


def _sharing_id(claims: list[Any], indexes: list[int]) -> list[int]:
    """``indexes`` and every claim sharing the id of one of them: the blocks a page shows for one id."""
    ids = {_id_of(claims[i]) for i in indexes} - {None}
    return sorted({*indexes, *(i for i, claim in enumerate(claims) if _id_of(claim) in ids)})


def _id_of(claim: Any) -> str | None:
    cid = claim.get("id") if isinstance(claim, dict) else None
    return cid if isinstance(cid, str) else None


@contextlib.contextmanager
def site_template(template_dir: str | None, name: str) -> Iterator[None]:
    """A site's own template that fails while rendering (an undefined name, a filter that raises) is
    the site's to fix, not an internal error: :class:`InputError` (SH003, exit 2) naming the file."""
    try:
        yield
    except Exception as exc:
        if template_dir is None or not os.path.isfile(os.path.join(template_dir, name)):
            raise
        message = (
            f"template {name} failed while rendering: {type(exc).__name__}: {exc}; fix the template (template_dir)"
        )
        raise InputError(Diagnostic("SH003", message, file=os.path.join(template_dir, name))) from None


def render_unbound(
    bundle: dict[str, Any],
    claim_id: str,
    *,
    lang: str = "ja",
    search_ignore: bool = False,
    template_dir: str | None = None,
) -> str:
    """The safe block for a claim whose page and record disagree (SH110, SH120): 未確認, no review date or
    method, and a warning saying why — what ``--write`` puts in its slot instead of leaving it empty or
    showing a status the page no longer earns. The other claims of the page render as usual."""
    jinja = _templating()
    template = jinja.template(template_dir, TEMPLATE)
    sources = _source_map(bundle.get("sources"))
    shown: dict[str, _Shown] = {}
    with site_template(template_dir, TEMPLATE):
        blocks = [
            jinja._render(
                template,
                c=_claim_view(claim, sources, True, lang, "mismatch_warning", shown=shown),
                t=_phrases(lang),
                search_ignore=search_ignore,
            )
            for claim in bundle["claims"]
            if isinstance(claim, dict) and claim.get("id") == claim_id
        ]
    return "\n".join(blocks)


class _Rendered:
    """What rendering one distinct bundle has produced so far: its invalid claims (indexes) and each
    claim's block."""

    __slots__ = ("invalid", "blocks")

    def __init__(self, invalid: frozenset[int]) -> None:
        self.invalid = invalid
        self.blocks: dict[int, str] = {}


# Render a claim's block once per distinct (bundle, subject, lang) in a process; blocks are strings.
_MEMO: Memo[_Rendered] = Memo(256)


def _memo_key(
    bundle: Any, subject: Mapping[str, Any] | None, lang: str, search_ignore: bool, markers: tuple[Any, ...] | None
) -> tuple[Any, ...] | None:
    try:
        bundle_key = content_key(bundle)
        subject_key = "" if subject is None else content_key(subject)
    except ValueError:  # an integer past Python's int-to-str limit (CE008): rendered, not memoized
        return None
    if bundle_key is None or subject_key is None:
        return None
    return bundle_key, subject_key, lang, search_ignore, markers


def _source_map(sources: Any) -> dict[str, dict[str, Any]]:
    return {
        s["id"]: s
        for s in (sources if isinstance(sources, list) else [])
        if isinstance(s, dict) and isinstance(s.get("id"), str)
    }


class _View(dict):  # type: ignore[type-arg]
    """A dict whose keys are also its attributes: ``c.label`` in a template is then a plain attribute
    read, where a dict makes jinja2 try (and fail) ``getattr`` before ``c["label"]`` on every use.
    It stays a dict, so a site's template may use either spelling, or ``c.items()``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.__dict__ = self


@cache
def _phrases(lang: str) -> _View:
    """The fixed phrases, escaped once as ``_escape_like_legacy`` would escape them on every use."""
    escape = _templating()._escape_like_legacy
    return _View({key: escape(value) for key, value in TEXT[lang].items()})


def _text(value: Any) -> str:
    """A field as the existing renderer printed it (``str(value or "")``): nothing for any falsy value
    (``0``, ``false``, ``[]``, ``{}``, ``""``, ``null``), so a migrated record with ``statement: 0``
    renders byte for byte as before. Such a record is invalid all the same (validation names the type)."""
    return str(value or "")


def _condition(value: Any) -> str:
    """A condition as the existing renderer joined it: ``str(value)``, so ``null`` is ``None`` there too."""
    return str(value)


def _signer(claim: Any) -> str | None:
    found = signature_of(claim)
    signer = found.get("signer") if found is not None else None
    return signer if isinstance(signer, str) and signer else None


def _claim_view(
    claim: dict[str, Any],
    sources: dict[str, dict[str, Any]],
    invalid: bool,
    lang: str,
    warning: str = "invalid_warning",
    freshness: Freshness | None = None,
    show_signer: bool = False,
    shown: dict[str, _Shown] | None = None,
) -> dict[str, Any]:
    """The view of one claim's block. ``shown``: the fields of the sources already cited (see
    :func:`_ref_view`), shared by the claims of one bundle; a claim alone starts its own."""
    jinja = _templating()
    shown = {} if shown is None else shown
    labels = LABELS[lang]
    # An invalid bundle never shows a verified status, date or method.
    status = "unverified" if invalid else str_or_none(claim.get("status"))
    verification = None if invalid else claim.get("verification")
    verification = verification if isinstance(verification, dict) else {}
    checked_at = verification.get("checked_at")
    conditions = claim.get("conditions")
    # Joined as the existing renderer joined them: conditions first, so [""] and an uncertainty give no " / ".
    # Each part is its own bidi isolate: one condition's override must not reverse the next.
    # The parts are Markup already: joined as str, without markupsafe's escaping of each (a third of a view).
    limits = " / ".join([jinja.isolate(_condition(c)) for c in conditions]) if isinstance(conditions, list) else ""
    if claim.get("uncertainty"):
        uncertainty = jinja.isolate(_text(claim["uncertainty"]))
        limits = f"{limits} / {uncertainty}" if limits else uncertainty
    cid = claim.get("id")
    return _View(
        {
            "id": _text(cid),
            "anchor": cid if is_valid_id(cid) else None,
            "label": _text(claim.get("label") or TEXT[lang]["default_label"]),
            "basis": labels["basis"].get(_text(claim.get("basis")), TEXT[lang]["basis_missing"]),
            "status": status if status in labels["status"] else "unverified",
            "status_label": labels["status"].get(_text(status), labels["status"]["unverified"]),
            "checked_at": checked_at if is_valid_date(checked_at) else None,
            "method": labels["method"].get(_text(verification.get("method"))),
            "signer": _signer(claim) if show_signer and not invalid else None,
            "invalid": invalid,
            "warning": TEXT[lang][warning] if invalid else "",
            "limits": jinja._markup(limits),
            "statement": _text(claim.get("statement")),
            "evidence_label": _text(claim.get("evidence_label")),
            "refs": [_ref_view(ref, sources, shown) for ref in _cited(claim, sources)],
            "as_of": claim.get("as_of") if is_valid_date(claim.get("as_of")) else None,
            "note": _text(verification.get("note")),
            "marker": None if invalid else marker_view(review_marker(claim, freshness), lang),
        }
    )


def marker_view(marker: Marker | None, lang: str) -> _View | None:
    """A freshness marker for templates: ``state`` (``fresh``, ``due-soon``, ``expired``: a CSS hook),
    ``symbol`` (decoration: templates hide it from screen readers), ``text``, which alone says it
    (:func:`.markers.marker_text`), and its parts ``tag``, ``checked_at`` and ``due`` (None: permanent).
    Nothing in it counts days to the build date, so a block changes only when its review's state does."""
    if marker is None:
        return None
    return _View(
        {
            "state": marker.state.replace(" ", "-"),
            "symbol": MARKER_SYMBOLS[marker.state],
            "text": marker_text(marker, lang),
            "tag": policy_tag(marker, lang),
            "checked_at": marker.checked_at,
            "due": marker.due,
        }
    )


def _cited(claim: dict[str, Any], sources: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    refs = claim.get("source_refs")
    return [
        ref
        for ref in (refs if isinstance(refs, list) else [])
        if isinstance(ref, dict) and str_or_none(ref.get("source_id")) in sources
    ]


# A source as its references show it: publisher, title, url, archive_url, published_at.
_Shown = tuple[str, str, str | None, str | None, str | None]


def _ref_view(ref: dict[str, Any], sources: dict[str, dict[str, Any]], shown: dict[str, _Shown]) -> dict[str, Any]:
    """One reference of a claim: its source's fields, found once per bundle in ``shown`` (a bundle's
    claims cite a few sources over and over), and the reference's own."""
    sid = str(ref.get("source_id"))
    fields = shown.get(sid)
    if fields is None:
        fields = shown[sid] = _shown_source(sources[sid])
    publisher, title, url, archive_url, published_at = fields
    return _View(
        {
            "publisher": publisher,
            "title": title,
            "url": url,
            "archive_url": archive_url,
            "section": _text(ref.get("section")),
            "supports": _text(ref.get("supports")),
            "published_at": published_at,
            "quote": _quote_text(ref.get("quote")),
        }
    )


def _shown_source(source: dict[str, Any]) -> _Shown:
    published = source.get("published_at")
    return (
        _text(source.get("publisher")),
        _text(source.get("title")),
        safe_http_url(source.get("url")) or None,
        safe_http_url(source.get("archive_url")) or None,
        published if is_valid_date(published) else None,
    )


def _quote_text(quote: Any) -> str | None:
    """The passage to show (``exact`` only: prefix and suffix are context for finding it), or None."""
    exact = quote.get("exact") if isinstance(quote, dict) else None
    return exact if isinstance(exact, str) and exact.strip() else None
