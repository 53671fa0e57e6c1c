"""A page bound to its evidence record: the checks, and the rendering of its slots."""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
import shlex
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urljoin, urlsplit

from .._core.diagnostics import CLEARED_BY_REVIEW, Diagnostic, InputError, MalformedInput, Severity
from .._core.jsonio import LoadedJSON, dumps_for_script, loads, read_text
from .._core.jsonpos import offset_of
from .._core.memo import Memo
from .._core.splice import Edit, InternalError, newline_style, outside_identical, splice, with_newlines
from .._html.equivalence import equivalent
from .._html.fastpath import fast_locate
from .._html.lang import html_lang, primary_subtag
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, NOT_CONTAINERS, SLOT_ATTR, Element, Located, foreign_markup, locate
from .._html.text import visible_text
from .._html.tokens import START_TAG, VOID, iter_attributes
from .._record.fingerprint import normalized_text
from .._record.freshness import Freshness, marker_key
from .._record.validation import diagnose_loaded, iter_diagnostics
from .._record.vocabulary import LABELS
from .._render.evidence import render_blocks, render_unbound
from .._render.summary import summary_findings
from .._snapshots.check import snapshot_store
from . import recordcache as _recordcache
from .options import DEFAULT_STYLESHEET, STRIPPED, PageOptions, SiteLayout, render_settings  # noqa: F401 - re-exported (the page API)
from .sitechecks import site_diagnostics

STALE = "SH140"
UNBOUND = frozenset({"SH110", "SH120"})  # a claim's page and record disagree: its slot gets the safe block
UNBOUND_STALE = (
    "evidence display must now show the claim as unverified: the page and its record disagree (see SH110/SH120 for it); "
    "--write puts the 未確認 block in this slot, and the check fails until the sentence or the record is fixed"
)
HIDDEN_MARKUP = (
    "evidence markup is written here but is not an element: it lies inside a comment, raw text (<script>, "
    "<textarea>, …), a <template> or <select>, or after <plaintext>; an earlier unclosed tag or comment swallowed it"
)
FRAMESET_MARKUP = (
    "evidence markup is written here but is not an element: the <frameset> at line {line} makes this a frameset "
    "document, and HTML parsers drop the whole body with it, claim, evidence slot and bundle included; remove the "
    "<frameset>"
)
FOREIGN_MARKUP = (
    "evidence markup is written here but is not an element: {what} is inside the <{root}> opened at line {line}, "
    "so HTML parsers read it as {language}, not as HTML; close the <{root}> before it ({hint})"
)
_FOREIGN = {
    "math": ("MathML", 'inside <math>, only <annotation-xml encoding="text/html"> holds HTML'),
    "svg": ("SVG", "inside <svg>, only <foreignObject>, <desc> and <title> hold HTML"),
}
LINKED = "SH116"
LINKED_SLOT = (
    'evidence slot for "{cid}" would be inside a link: the <a> opened at line {line} is still open where the slot '
    "starts (browsers re-open a link closed only implicitly, without its own </a>); close it with </a> before the slot"
)
LINKED_SUMMARY = (
    "the data-evidence-summary slot would be inside a link: the <a> opened at line {line} is still open where the "
    "slot starts; close it with </a> before the slot"
)
REQUIRED = "SH160"
REQUIRED_MARKUP = (
    "this page must carry evidence markup (require in claim-evidence.toml names it) but has none: no claim element, "
    "evidence slot or bundle script; restore it (did the site generator drop it?), or take the page out of require"
)


@dataclass(frozen=True)
class StrippedMarker:
    """What a site generator writes where it dropped raw HTML, and the setting that keeps it."""

    text: str
    generator: str
    fix: str


# Markers of raw HTML a generator left out of a page (evidence markup written in Markdown is raw HTML).
STRIPPED_MARKERS = (
    StrippedMarker(
        "<!-- raw HTML omitted -->",
        "Hugo",
        "set markup.goldmark.renderer.unsafe = true in Hugo's config ([markup.goldmark.renderer] unsafe = true in "
        "hugo.toml), rebuild the site and check again",
    ),
)


@dataclass
class Page:
    """A located page, its parsed bundle and every finding, in document order.

    ``diagnostics`` holds errors and warnings, staleness (``SH140``) included;
    ``rendered`` maps each stale slot to the content ``--write`` puts there.
    """

    text: str
    name: str | None
    located: Located
    options: PageOptions
    bundle: Any = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rendered: list[tuple[Element, str]] = field(default_factory=list)
    # The record cache entry this check should write: (key, facts), when it computed what was not stored.
    record: tuple[str, _BundleFacts | None, bool] | None = field(default=None, repr=False)  # (…, whether it was stored)
    lang: str = "ja"  # the labels' language: the page's own <html lang>, else the site's (see page_lang)
    record_invalid: bool = False  # the bundle has validation errors: every claim shows as unverified
    unbound: set[str] = field(default_factory=set)  # claim ids whose page and record disagree (SH110, SH120)
    # The run's record cache, handed in by check_text's caller (the runner); None: not cached.
    records: _recordcache.RecordCache | None = field(default=None, repr=False, compare=False)

    @property
    def has_markup(self) -> bool:
        return self.located.has_markup

    @property
    def claims(self) -> list[Element]:
        return self.located.claims

    @property
    def slots(self) -> list[Element]:
        return self.located.slots

    @property
    def bundle_script(self) -> Element | None:
        scripts = self.located.scripts
        return scripts[0] if len(scripts) == 1 else None

    @property
    def errors(self) -> list[Diagnostic]:
        """Every error but staleness."""
        return [d for d in self.diagnostics if d.is_error and d.code != STALE]

    @property
    def blocking(self) -> list[Diagnostic]:
        """Errors that stop ``--write``: all but staleness and a claim's disagreement with its page
        (SH110, SH120), whose slot ``--write`` fills with the safe 未確認 block instead of leaving
        readers an empty one; the run still fails on them."""
        return [d for d in self.errors if d.code not in UNBOUND]

    @property
    def stale(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.code == STALE]

    def rendered_text(self) -> str:
        """The page with every stale slot re-rendered, proven to differ only inside those slots."""
        if not self.rendered:
            return self.text
        edits: list[Edit] = [(slot.open_end, slot.close_start, content) for slot, content in self.rendered]
        new = splice(self.text, edits)
        _prove(self, new, edits)
        return new


def _prove(old: Page, new_text: str, edits: list[Edit]) -> None:
    """Bytes outside the slots unchanged, and the new text checks clean apart from what was already wrong."""
    if not outside_identical(old.text, new_text, edits):
        raise InternalError("internal error: splicing changed text outside the evidence slots; nothing written")
    again = check_text(new_text, old.name, old.options, records=old.records)
    if again.stale or [_key(d) for d in again.errors] != [_key(d) for d in old.errors]:
        raise InternalError("internal error: the re-rendered page does not check clean; nothing written")
    moved = [(s.open_end, s.close_start) for s in (*again.slots, *again.located.summaries)]
    expected = _shifted([(s.open_end, s.close_start) for s in (*old.slots, *old.located.summaries)], edits)
    if moved != expected:
        raise InternalError("internal error: the evidence slots moved after re-rendering; nothing written")


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return d.code, d.path, d.message


def _shifted(spans: list[tuple[int, int]], edits: list[Edit]) -> list[tuple[int, int]]:
    """Where ``spans`` of the old text must be in the new one: edited spans hold their replacement."""
    replaced = {(start, end): len(text) for start, end, text in edits}
    out = []
    for start, end in spans:
        delta = sum(len(r) - (e - s) for s, e, r in edits if e <= start and (s, e) != (start, end))
        length = replaced.get((start, end), end - start)
        out.append((start + delta, start + delta + length))
    return out


# --- reading and checking ---------------------------------------------------------


def load_page(path: str | os.PathLike[str], options: PageOptions | None = None) -> Page:
    """Read (UTF-8, BOM allowed; else :class:`InputError`) and check a page file."""
    name = os.fspath(path)
    return check_text(read_text(name), name, options or PageOptions())


def check_text(
    text: str,
    name: str | None = None,
    options: PageOptions | None = None,
    *,
    records: _recordcache.RecordCache | None = None,
) -> Page:
    """Locate and check a page's text; never raises for page content, only returns findings.
    ``records``: the run's record cache (:mod:`.recordcache`), when the run keeps one.

    The markup is located by the C parser when selectolax is installed and it is sure to find exactly
    what the reference tokenizer finds (:mod:`._fastpath`), else by the reference tokenizer; either
    way the checks below are the same code on the same :class:`Located`."""
    located = fast_locate(text)
    return check_located(text, name, located if located is not None else locate(text), options, records=records)


def check_fast(text: str, name: str | None = None, options: PageOptions | None = None) -> Page | None:
    """:func:`check_text` on the C parser's location alone, or None when it is not sure (the differential
    test and the benchmark compare the two paths with it)."""
    located = fast_locate(text)
    return None if located is None else check_located(text, name, located, options)


def check_located(
    text: str,
    name: str | None,
    located: Located,
    options: PageOptions | None = None,
    *,
    records: _recordcache.RecordCache | None = None,
) -> Page:
    """Check a page whose markup ``located`` holds (from :func:`._locate.locate` or :func:`._fastpath.fast_locate`)."""
    options = options or PageOptions()
    page = Page(text, name, located, options, lang=options.lang, records=records)
    if page.has_markup:
        page.lang = page_lang(text, options.lang)
        found = list(_checks(page))
        found += _parsing(page, {d.code for _, d in found})
        page.diagnostics = [_placed(page, offset, d) for offset, d in sorted(found, key=lambda pair: pair[0])]
        _remember(page)
    elif page.located.hidden is not None:
        page.diagnostics = [_placed(page, page.located.hidden, Diagnostic("SH104", HIDDEN_MARKUP, subject="page"))]
    else:
        page.diagnostics = _without_markup(page)
    return page


def _remember(page: Page) -> None:
    """Store what this check computed of its bundle (findings, and blocks when rendered) in the record cache."""
    records = page.records
    if page.record is None or records is None:
        return
    key, facts, stored = page.record
    if facts is None:
        return
    rendered = facts.blocks is not None and facts.rendered_with == render_settings(page.options)
    if stored and not rendered:
        return  # nothing new to add to the entry
    records.put(key, _recordcache.Stored(facts.findings, facts.blocks if rendered else None))


def _without_markup(page: Page) -> list[Diagnostic]:
    """A page without evidence markup: a failure when ``require`` names it, and a generator's trace of
    raw HTML it dropped (an error on a required page, else a warning: the page may need none)."""
    found = []
    required = page.options.required
    if required:
        found.append(Diagnostic(REQUIRED, REQUIRED_MARKUP, subject="page", file=page.name))
    for marker in STRIPPED_MARKERS:
        at = page.text.find(marker.text)
        if at < 0:
            continue
        count = page.text.count(marker.text)
        times = "once" if count == 1 else f"{count} times"
        message = (
            f"the site generator dropped raw HTML from this page: {marker.text} ({times} here) is what {marker.generator} "
            "writes in place of HTML written in Markdown, so evidence markup written there never reaches the page; "
            + marker.fix
        )
        severity: Severity = "error" if required else "warning"
        found.append(_placed(page, at, Diagnostic(STRIPPED, message, severity=severity, subject="page")))
    return found


_HTML_TAG = re.compile(r"<[hH][tT][mM][lL](?=[\t\n\f\r />])")


def page_lang(text: str, default: str) -> str:
    """The language of a page's evidence labels: the primary subtag of its ``<html lang>`` (``ja-JP`` →
    ``ja``) when labels exist in that language, else ``default`` (the site's ``lang``)."""
    # Cheap test first: without an <html> start tag that carries lang anywhere, the tree builder's
    # scan (which reads the whole page when no <html> carries one) cannot find one.
    if not any(_carries_lang(text, m.start()) for m in _HTML_TAG.finditer(text)):
        return default
    tag = primary_subtag(html_lang(text))
    return tag if tag is not None and tag in LABELS else default


def _carries_lang(text: str, at: int) -> bool:
    match = START_TAG.match(text, at)
    return match is not None and any(name == "lang" for name, _ in iter_attributes(match.group(2)))


def _parsing(page: Page, codes: set[str]) -> list[tuple[int, Diagnostic]]:
    """What the browser's parser does to markup whose spans look right: a ``<frameset>`` it accepts, slots
    it puts inside a link, and (when one is missing) a bundle script or stylesheet link it reads as SVG/MathML."""
    located = page.located
    found: list[tuple[int, Diagnostic]] = []
    if located.frameset is not None:
        first = min(e.start for e in (*located.claims, *located.slots, *located.scripts, *located.summaries))
        message = FRAMESET_MARKUP.format(line=located.position(located.frameset)[0])
        found.append((first, Diagnostic("SH104", message, subject="page")))
    for slot, link in located.linked:
        cid = slot.attrs.get(SLOT_ATTR)
        if cid is None:  # the sources summary's slot
            message = LINKED_SUMMARY.format(line=located.position(link)[0])
            found.append((slot.start, Diagnostic(LINKED, message, subject="page")))
            continue
        message = LINKED_SLOT.format(cid=cid, line=located.position(link)[0])
        found.append((slot.start, Diagnostic(LINKED, message, subject=f"claim {cid}")))
    if not located.scripts or "SH130" in codes:
        for foreign in foreign_markup(page.text):
            if located.scripts if foreign.kind == "script" else "SH130" not in codes:
                continue  # only what explains a missing bundle script or stylesheet link
            what = f"script#{BUNDLE_ID}" if foreign.kind == "script" else "the stylesheet <link>"
            language, hint = _FOREIGN[foreign.root]
            line = located.position(foreign.root_start)[0]
            message = FOREIGN_MARKUP.format(what=what, root=foreign.root, line=line, language=language, hint=hint)
            found.append((foreign.start, Diagnostic("SH104", message, subject="page")))
    return found


Finding = tuple[int, Diagnostic]


def _placed(page: Page, offset: int, d: Diagnostic) -> Diagnostic:
    if d.line is not None:  # already placed (JSON syntax errors know their line and column)
        return dataclasses.replace(d, file=page.name)
    line, column = page.located.position(offset)
    return dataclasses.replace(d, file=page.name, line=line, column=column)


def _checks(page: Page) -> Iterator[Finding]:
    located = page.located
    scripts = located.scripts
    first = min(e.start for e in (*located.claims, *located.slots, *scripts, *located.summaries))
    if len(scripts) != 1:
        at = scripts[1].start if scripts else first
        yield at, Diagnostic("SH101", _one_script(located, page.name), subject="page")
    else:
        yield from _bundle(page, scripts[0])
    yield from _stylesheet(page, scripts[0].start if scripts else first)
    yield from _shapes(page)
    if isinstance(page.bundle, dict) and isinstance(page.bundle.get("claims"), list):
        yield from _binding(page)
        yield from summary_findings(
            page.located,
            page.text,
            page.bundle,
            page.options,
            page.lang,
            page.record_invalid,
            frozenset(page.unbound),
            page.rendered,
        )


def _bundle(page: Page, script: Element) -> Iterator[Finding]:
    kind = script.attrs.get("type", "")
    if kind.strip().lower() != "application/json":
        message = f'script#{BUNDLE_ID} must have type="application/json" (found "{kind}")'
        yield script.start, Diagnostic("SH102", message, subject="page")
    content = page.text[script.open_end : script.close_start]
    stored = _from_records(content, page)
    try:
        loaded = _stored_json(content) if stored is not None else None
        if loaded is None:
            stored = None
            loaded = _load(content, page.name, lambda: page.located.position(script.open_end))
    except InputError as exc:
        d = exc.diagnostic
        yield script.open_end, dataclasses.replace(d, subject="page")
        return
    page.bundle = loaded.value
    raw_lt = content.find("<")
    if raw_lt >= 0:
        message = "raw < inside the embedded JSON; the contract escapes it as \\u003c"
        yield script.open_end + raw_lt, Diagnostic("SH103", message, severity="warning", subject="page")
    site = page.options.policy
    facts = stored or _facts(content, page.lang, loaded, page)
    page.record_invalid = any(d.is_error for _, d in facts.findings)
    for offset, d in facts.findings:
        yield script.open_end + offset, site.applied(d)
    for d in site_diagnostics(page.bundle, snapshot_store(page.options.snapshots), page.options.freshness):
        yield script.open_end + offset_of(content, d.path), d


def _stored_json(content: str) -> LoadedJSON | None:
    """The bundle text of a record cache entry: it loaded cleanly when the entry was written, so the C
    decoder alone reads it, as :func:`_load` reads text it has seen (None, should it not: then _load)."""
    try:
        return LoadedJSON(json.loads(content), [])
    except (ValueError, RecursionError):
        return None


def _one_script(located: Located, name: str | None) -> str:
    """SH101's message. A page that marks claims and has no bundle script is one whose records were never
    added: it names the command that adds them (and the script), unless the script is written where it
    is no element (SH104 says where: adding a second one would not help)."""
    found = len(located.scripts)
    message = f"exactly one script#{BUNDLE_ID} is required (found {found})"
    if found or not located.claims or BUNDLE_ID in located.text:
        return message
    ids = list(dict.fromkeys(str(c.attrs.get(CLAIM_ATTR, "")) for c in located.claims))
    command = f"claim-evidence claim add {shlex.quote(name or 'PAGE')} --id {shlex.quote(ids[0])}"
    more = f" (--all adds all {len(ids)} marked claims)" if len(ids) > 1 else ""
    return f"{message}: the page marks claims with data-claim-id but has no evidence bundle yet; add their records with {command}{more}"


def the_bundle_script(located: Located, name: str | None) -> Element:
    """The page's one bundle script; :class:`InputError` (SH101) when there is none or more than one."""
    if len(located.scripts) != 1:
        raise MalformedInput(Diagnostic("SH101", _one_script(located, name), file=name))
    return located.scripts[0]


class PageBundle(NamedTuple):
    """A page's bundle: the parsed JSON, its text, and the line and column where that text starts."""

    loaded: LoadedJSON
    text: str
    line: int
    column: int


def read_page_bundle(text: str, name: str | None = None) -> PageBundle:
    """The bundle script of a page, for readers that need only the records (``validate``,
    ``review record``); positions in its errors are the page's. :class:`InputError` when it cannot
    be read. The page check reads it the same way (:func:`_bundle`)."""
    located = locate(text)
    script = the_bundle_script(located, name)
    line, column = located.position(script.open_end)
    content = text[script.open_end : script.close_start]
    return PageBundle(_load(content, name, lambda: (line, column)), content, line, column)


def _load(content: str, name: str | None, start: Callable[[], tuple[int, int]]) -> LoadedJSON:
    """``loads`` of the bundle text; text that loaded cleanly before is parsed again by the C decoder
    alone (same values: last key wins, no NaN can be in it) and its duplicate keys are remembered.
    ``start`` gives the page's line and column where the text starts, asked only for an error's
    position: a page's line index costs a quarter of a millisecond, for nothing on a valid bundle."""
    duplicates = _LOADED.get(content)
    if duplicates is not None:
        return LoadedJSON(json.loads(content), list(duplicates))
    try:
        loaded = loads(content, name, empty="empty bundle script")
    except InputError:
        line, column = start()
        loaded = loads(content, name, line_offset=line - 1, column_offset=column - 1, empty="empty bundle script")
    _LOADED.put(content, tuple(loaded.duplicate_keys))
    return loaded


_LOADED: Memo[tuple[tuple[str | int, ...], ...]] = Memo(256)


class _BundleFacts:
    """What follows from a bundle's JSON text alone: its findings (with offsets in the text),
    each claim's rendered block and where each claim starts in the text."""

    __slots__ = ("findings", "blocks", "rendered_with", "offsets")

    def __init__(self, findings: tuple[tuple[int, Diagnostic], ...]) -> None:
        self.findings = findings
        self.blocks: dict[str, str] | None = None  # every claim's block, rendered at the first slot
        self.rendered_with: tuple[Any, ...] = ()  # the settings the blocks were rendered with (render_settings)
        self.offsets: dict[str, int] = {}


# Keyed by the exact JSON text (and lang): many pages embed the same records.
_FACTS: Memo[_BundleFacts] = Memo(256)


def _from_records(content: str, page: Page) -> _BundleFacts | None:
    """The bundle text's facts from the record cache, when the page is checked with one, this process has not
    seen the text yet and an entry holds it; the entry's key is kept on ``page`` either way, so the
    check stores what it computes (or the blocks an entry still lacks)."""
    records = page.records
    if records is None or _FACTS.get((content, page.lang)) is not None:
        return None
    key = records.key(content, page.lang, render_settings(page.options))
    stored = records.get(key)
    if stored is None:
        page.record = key, None, False  # the facts come when computed (_facts); none if the JSON does not load
        return None
    facts = _FACTS.put((content, page.lang), _BundleFacts(stored.findings))
    if stored.blocks is not None:
        facts.blocks, facts.rendered_with = dict(stored.blocks), render_settings(page.options)
    else:
        page.record = key, facts, True  # its blocks, once rendered, complete the entry
    return facts


def _facts(content: str, lang: str, loaded: LoadedJSON, page: Page | None = None) -> _BundleFacts:
    """The bundle text's findings (and blocks, once rendered): from this process's memo, else computed
    (and, when :func:`_from_records` found no entry for ``page``, marked to be stored)."""
    facts = _FACTS.get((content, lang))
    if facts is None:
        facts = _compute_facts(content, lang, loaded)
        if page is not None and page.record is not None and not page.record[2]:
            page.record = page.record[0], facts, False
    return facts


def _compute_facts(content: str, lang: str, loaded: LoadedJSON) -> _BundleFacts:
    value = loaded.value
    if isinstance(value, dict) and value:  # loads kept the depth limit; this memo is keyed by the text
        found: Iterable[Diagnostic] = diagnose_loaded(value, None, loaded.duplicate_keys)
    else:
        found = iter_diagnostics(value, None, duplicate_keys=loaded.duplicate_keys)
    return _FACTS.put((content, lang), _BundleFacts(tuple((offset_of(content, d.path), d) for d in found)))


def _stylesheet(page: Page, at: int) -> Iterator[Finding]:
    options = page.options
    wanted = options.stylesheet
    if wanted is None:
        return
    target = _stylesheet_target(options)
    near: tuple[Element, str, str] | None = None  # a link to a file of that name, elsewhere
    for link in page.located.links:
        if "stylesheet" not in link.attrs.get("rel", "").lower().split():
            continue
        href = link.attrs.get("href", "").strip()
        bare = href.split("#")[0].split("?")[0]
        if target is None:
            if bare == wanted:
                return
            continue
        served = _served_at(bare, options)
        if served is not None and served[1] == target[1] and (not served[0] or not target[0] or served[0] == target[0]):
            return
        if near is None and served is not None and posixpath.basename(served[1]) == posixpath.basename(target[1]):
            near = (link, href, served[1])
    href = wanted if target is None else target[1]
    message = f'shared evidence stylesheet is missing: add <link rel="stylesheet" href="{href}">'
    if target is not None and options.page is not None:
        here = posixpath.dirname(_base_path(options) + options.page)
        message += f' (or, relative to this page, href="{posixpath.relpath(target[1], here)}")'
    if near is not None:
        link, written, served_path = near
        line = page.located.position(link.start)[0]
        message += f'; the stylesheet <link> at line {line} (href="{written}") points to {served_path}'
    if not options.stylesheet_configured:
        message += (
            ' (the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path, or '
            "stylesheet = false when the site ships the evidence CSS in its own stylesheet)"
        )
    yield at, Diagnostic("SH130", message, subject="page")


# The site's own origin while hrefs are resolved: a name that can never be a real host (RFC 2606).
_OWN_HOST = "site.invalid"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _base_url(options: PageOptions) -> str:
    return options.site.base_url if options.site else "/"


def _base_path(options: PageOptions) -> str:
    return urlsplit(_base_url(options)).path


def _stylesheet_target(options: PageOptions) -> tuple[str, str] | None:
    """``(host, path)`` where the configured stylesheet is served (host ``""``: any, or the site's own);
    None when hrefs must equal ``stylesheet`` as written: a page checked without a config or a known
    place (``static-helper PATHS`` without one), or a stylesheet given as a full URL (a CDN)."""
    wanted = options.stylesheet
    if (
        (options.site is None and options.page is None)
        or wanted is None
        or _SCHEME.match(wanted)
        or wanted.startswith("//")
    ):
        return None
    base = urlsplit(_base_url(options))
    # stylesheet names the file by its path from the web root ("/assets/x.css"; "assets/x.css" means the same).
    path = posixpath.normpath(base.path + unquote(wanted.split("#")[0].split("?")[0]).lstrip("/"))
    return base.netloc, path


def _served_at(href: str, options: PageOptions) -> tuple[str, str] | None:
    """``(host, path)`` an href (query and fragment removed) points to when the page is served: host ``""``
    for the site's own; None for another scheme, or a relative href on a page whose place is unknown."""
    relative = not (_SCHEME.match(href) or href.startswith("/"))
    if relative and options.page is None:
        return None
    here = f"https://{_OWN_HOST}{quote(_base_path(options) + (options.page or ''))}"
    try:
        parts = urlsplit(urljoin(here, href))
    except ValueError:  # an href urllib cannot read (an unclosed IPv6 bracket): points nowhere we know
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host = "" if parts.netloc == _OWN_HOST else parts.netloc.lower()
    path = posixpath.normpath(unquote(parts.path) or "/")
    return host, "/" + path.lstrip("/")


def _shapes(page: Page) -> Iterator[Finding]:
    """Slots the helper cannot own safely, and slots or claims nested where --write would destroy text."""
    claims, slots = page.located.claims, page.located.slots
    in_markup = _Containment((*claims, *slots))
    in_slot = _Containment(slots)
    for slot in slots:
        cid = slot.attrs[SLOT_ATTR]
        if slot.name in NOT_CONTAINERS or ":" in slot.name or not slot.has_end_tag:
            why = (
                "has no end tag" if slot.name not in NOT_CONTAINERS and not slot.has_end_tag else f"is a <{slot.name}>"
            )
            if slot.self_closing and slot.name not in VOID:
                why = f"is written <{slot.name} …/>, which HTML does not close"
            message = (
                f'evidence slot for "{cid}" must be a container element with an explicit end tag, '
                f'e.g. <div {SLOT_ATTR}="{cid}"></div> (it {why})'
            )
            yield slot.start, Diagnostic("SH114", message, subject=f"claim {cid}")
        for outer in in_markup.candidates(slot):
            if outer is not slot and outer.contains(slot):
                kind = "claim element" if CLAIM_ATTR in outer.attrs and outer in claims else "evidence slot"
                owner = outer.attrs.get(CLAIM_ATTR) if kind == "claim element" else outer.attrs.get(SLOT_ATTR)
                message = f'evidence slot must not be nested in claim text (the slot for "{cid}" is inside the {kind} of "{owner}")'
                yield slot.start, Diagnostic("SH113", message, subject=f"claim {cid}")
                break
    for claim in claims:
        for slot in in_slot.candidates(claim):
            if slot is not claim and slot.contains(claim):
                cid, owner = claim.attrs[CLAIM_ATTR], slot.attrs[SLOT_ATTR]
                message = f'claim element "{cid}" is inside the evidence slot for "{owner}", which --write replaces'
                yield claim.start, Diagnostic("SH115", message, subject=f"claim {cid}")
                break


class _Containment:
    """Which of ``elements`` might contain a given element, without comparing every pair: pages
    with hundreds of claims would pay n² for a check that finds nothing on almost every page."""

    def __init__(self, elements: tuple[Element, ...] | list[Element]) -> None:
        self.elements = elements
        ordered = sorted(elements, key=lambda e: e.open_end)
        self.open_ends = [e.open_end for e in ordered]
        self.widest: list[int] = []  # the furthest close_start among the first i+1 by open_end
        for e in ordered:
            self.widest.append(max(e.close_start, self.widest[-1]) if self.widest else e.close_start)

    def candidates(self, inner: Element) -> tuple[Element, ...] | list[Element]:
        """All elements, in their order, when one of them contains ``inner``; else none."""
        k = bisect_right(self.open_ends, inner.start)
        return self.elements if k and self.widest[k - 1] >= inner.end else ()


def _binding(page: Page) -> Iterator[Finding]:
    bundle = page.bundle
    script = page.located.scripts[0]
    content = page.text[script.open_end : script.close_start]
    registered: dict[str, int] = {}
    for index, claim in enumerate(bundle["claims"]):
        if isinstance(claim, dict) and isinstance(claim.get("id"), str):
            registered.setdefault(claim["id"], index)
    bodies = _by_id(page.located.claims, CLAIM_ATTR)
    slots = _by_id(page.located.slots, SLOT_ATTR)
    for element in (*page.located.claims, *page.located.slots):
        for attr in (CLAIM_ATTR, SLOT_ATTR):
            cid = element.attrs.get(attr)
            if cid is not None and cid not in registered:
                message = f'body/slot references unregistered claim "{cid}" ({attr}); the bundle has no such claim'
                yield element.start, Diagnostic("SH112", message, subject=f"claim {cid}")
    newline = newline_style(page.text)
    facts = _FACTS.get((content, page.lang))
    settings = render_settings(page.options)
    if facts is not None and facts.blocks is not None and facts.rendered_with != settings:
        facts.blocks = None  # rendered for a site with other settings (search, markers, build date)
    if facts is None:  # (the memo never drops it within one check; a stand-in would pass an invalid bundle)
        facts = _facts(content, page.lang, _load(content, page.name, lambda: (1, 1)))
    for cid, index in registered.items():
        path = f"$.claims[{index}]"
        subject = f"claim {cid}"
        found_bodies, found_slots = bodies.get(cid, []), slots.get(cid, [])
        if len(found_bodies) != 1 or len(found_slots) != 1:
            offset = facts.offsets.get(path)
            if offset is None:
                offset = facts.offsets[path] = offset_of(content, path)
            where = script.open_end + offset
        unbound = len(found_bodies) != 1  # the page and the record disagree about this claim
        if unbound:
            page.unbound.add(cid)
            at = found_bodies[1].start if found_bodies else where
            message = f'exactly one bound body element required for claim "{cid}" (found {len(found_bodies)})'
            yield at, Diagnostic("SH110", message, path=path, subject=subject)
        else:
            for finding in _body_text(page, found_bodies[0], bundle["claims"][index], path):
                unbound = True
                page.unbound.add(cid)
                yield finding
        if len(found_slots) != 1:
            at = found_slots[1].start if found_slots else where
            message = f'exactly one evidence slot required for claim "{cid}" (found {len(found_slots)})'
            yield at, Diagnostic("SH111", message, path=path, subject=subject)
        elif _ownable(found_slots[0]):
            slot = found_slots[0]
            if facts.blocks is None:
                invalid = any(d.is_error for _, d in facts.findings)
                options = page.options
                facts.blocks = render_blocks(
                    bundle,
                    invalid=invalid,
                    lang=page.lang,
                    search_ignore=options.search_ignore,
                    freshness=options.freshness,
                    template_dir=options.template_dir,
                )
                facts.rendered_with = settings
            if unbound:
                block = render_unbound(
                    bundle,
                    cid,
                    lang=page.lang,
                    search_ignore=page.options.search_ignore,
                    template_dir=page.options.template_dir,
                )
            else:
                block = facts.blocks[cid]
            wanted = with_newlines(block, newline)
            shown = page.text[slot.open_end : slot.close_start]
            if shown != wanted and not equivalent(shown, wanted, slot.name):  # a minifier's rewrite is not stale
                page.rendered.append((slot, wanted))
                message = UNBOUND_STALE if unbound else _stale_message(facts, path, page.name)
                if not unbound and _only_marker_differs(shown, wanted):
                    message = _marker_stale(page.options.freshness)
                yield slot.start, Diagnostic(STALE, message, path=path, subject=subject)


def _marker_stale(freshness: Freshness | None) -> str:
    """A slot that differs from its block only in the freshness marker: the record is as reviewed."""
    if marker_key(freshness) is None:
        return "evidence display is stale: it shows a freshness marker, and this site shows none ([freshness] markers); run --write to remove it"
    assert freshness is not None
    return (
        "evidence display is stale: only its freshness marker differs, which counts the review's age to the build "
        f"date ({freshness.today}); run --write to show the current marker"
    )


# The marker as evidence.html.j2 writes it (with the separator before it), and nothing else.
_MARKER_SPAN = re.compile(
    r' · <span class="claim-evidence-freshness" data-freshness="[a-z-]+"><span aria-hidden="true">[^<]*</span> [^<]*</span>'
)


def _only_marker_differs(shown: str, wanted: str) -> bool:
    """A slot that differs from its block only in the freshness marker (a marker turned, or markers were
    switched on or off): the record is as reviewed, and the message should say so."""
    return _MARKER_SPAN.sub("", shown) == _MARKER_SPAN.sub("", wanted)


def _stale_message(facts: _BundleFacts, path: str, name: str | None) -> str:
    """Why the slot differs from its block, and what to do first: ``--write`` only when the record is valid."""
    errors = [d for _, d in facts.findings if d.is_error]
    if not errors:
        return "evidence display is stale (run --write after reviewing source data)"
    own = [d for d in errors if d.path == path or d.path.startswith((path + ".", path + "["))]
    cid = own[0].subject.partition(" ")[2] if own else ""
    if any(d.code == "CE403" for d in own):
        first = [d for d in own if d.code not in CLEARED_BY_REVIEW]  # review record refuses until these are fixed
        fix = f"Fix {_codes(first)} first (review record refuses a record with errors), then read" if first else "Read"
        return (
            "evidence display is stale and would now show the claim as unverified: its review no longer covers "
            f"its record (CE403). {fix} the sources again, then record the review with `claim-evidence review record "
            f"{name or 'PAGE'} --claim {cid} --method … --checked-at …`, then run --write"
        )
    if own:
        return f"evidence display is stale and would now show the claim as unverified: its record has errors ({_codes(own)}); fix them, then run --write"
    others = sorted({d.subject for d in errors})
    return (
        "evidence display is stale and would now show this claim as unverified although its own record is fine: "
        f"the bundle has errors elsewhere ({_codes(errors)} in {', '.join(others)}), and one invalid record shows "
        "every claim of the bundle as unverified; fix those, then run --write"
    )


def _codes(diagnostics: list[Diagnostic]) -> str:
    return ", ".join(sorted({d.code for d in diagnostics}))


def _ownable(slot: Element) -> bool:
    return slot.name not in NOT_CONTAINERS and ":" not in slot.name and slot.has_end_tag


def _by_id(elements: list[Element], attr: str) -> dict[str, list[Element]]:
    out: dict[str, list[Element]] = {}
    for element in elements:
        out.setdefault(element.attrs[attr], []).append(element)
    return out


def _body_text(page: Page, body: Element, claim: dict[str, Any], path: str) -> Iterator[Finding]:
    statement = claim.get("statement")
    if not isinstance(statement, str):
        return  # the core validation reports the missing statement
    expected = normalized_text(statement)
    seen = visible_text(page.text, body)
    if seen != expected:
        at = next(
            (i for i, (a, b) in enumerate(zip(seen, expected, strict=False)) if a != b), min(len(seen), len(expected))
        )
        message = (
            f'body text differs from reviewed statement at character {at + 1}: page "{seen}" / statement "{expected}"'
        )
        yield body.start, Diagnostic("SH120", message, path=f"{path}.statement", subject=f"claim {claim['id']}")


# --- the public operations ------------------------------------------------------------


def render_static_page(text: str, options: PageOptions | None = None) -> tuple[str, list[str]]:
    """``(text with every stale slot re-rendered, error messages)``; on any error the text comes back unchanged.

    Staleness is not an error here: it is what rendering fixes. Messages are
    ``"claim ID: message"`` like :func:`claim_evidence.validate_bundle`'s; the typed
    diagnostics, with positions, are on :func:`check_text`'s :class:`Page`.
    """
    page = check_text(text, None, options)
    if page.errors:
        return text, [d.text for d in page.errors]
    return page.rendered_text(), []


def check_static_page(path: str | os.PathLike[str], options: PageOptions | None = None) -> list[str]:
    """Error messages for the page file, staleness included; empty when it is clean.

    Raises :class:`InputError` when the file cannot be read or is not UTF-8.
    The typed diagnostics (warnings too) are on :func:`load_page`'s :class:`Page`.
    """
    return [d.text for d in load_page(path, options).diagnostics if d.is_error]


def replace_bundle(text: str, bundle: object) -> str:
    """``text`` with only the JSON inside script#claim-evidence-data replaced by ``bundle``.

    The whitespace around the JSON and every other character stay as they were;
    the JSON uses the page's newline style. Raises :class:`InputError` (SH101)
    unless the page has exactly one bundle script.
    """
    located = locate(text)
    script = the_bundle_script(located, None)
    content = text[script.open_end : script.close_start]
    stripped = content.strip(" \t\n\r\f")
    lead = content[: len(content) - len(content.lstrip(" \t\n\r\f"))] if stripped else content
    tail = content[len(lead) + len(stripped) :]
    replacement = lead + with_newlines(dumps_for_script(bundle), newline_style(text)) + tail
    edit = (script.open_end, script.close_start, replacement)
    new = splice(text, [edit])
    again = locate(new)
    if (
        not outside_identical(text, new, [edit])
        or len(again.scripts) != 1
        or loads(new[again.scripts[0].open_end : again.scripts[0].close_start]).value != json.loads(json.dumps(bundle))
    ):
        raise InternalError("internal error: replacing the bundle would change other text; nothing written")
    return new
