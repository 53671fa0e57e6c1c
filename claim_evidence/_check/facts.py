"""What a page says about itself: the language of its labels, and its bundle script's records.

A page needs exactly one bundle script, of type application/json, holding JSON without a raw ``<``
(SH101-SH103, and the JSON's syntax errors); the records' own findings (validation, the site's policy
and extra checks) come with positions in the page. The bundle's findings, each claim's rendered block
and where each claim starts in the JSON follow from the script's text alone (:class:`_BundleFacts`):
many pages embed the same records, so they are computed once per text and process (:data:`_FACTS`)
and, when a run turns the record cache on, kept across runs (:mod:`.recordcache`).
:func:`read_page_bundle` reads the records the same way for the commands that need only them
(``validate``, ``review record``).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from .._core.diagnostics import Diagnostic, InputError, MalformedInput
from .._core.jsonio import LoadedJSON, loads
from .._core.jsonpos import offsets_of
from .._core.memo import Memo
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, Element, Located, locate
from .._record.validation import diagnose_loaded, iter_diagnostics
from .._render.evidence import claim_errors
from .._snapshots.check import snapshot_store
from . import recordcache as _recordcache
from .options import render_settings
from .sitechecks import site_diagnostics

if TYPE_CHECKING:
    from .page import Finding, Page


def _bundle(page: Page, script: Element) -> Iterator[Finding]:
    kind = script.attrs.get("type", "")
    if kind.strip().lower() != "application/json":
        message = f'script#{BUNDLE_ID} must have type="application/json" (found "{kind}")'
        yield script.start, Diagnostic("SH102", message, subject="page")
    content = page.text[script.open_end : script.close_start]
    stored, loaded = _from_records(content, page)
    try:
        if stored is None or loaded is None:
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
    errors = [d for _, d in facts.findings if d.is_error]
    if errors:
        page.invalid = claim_errors(page.bundle, errors)
    for offset, d in facts.findings:
        yield script.open_end + offset, site.applied(d)
    store = snapshot_store(page.options.snapshots)
    found = list(site_diagnostics(page.bundle, store, page.options.freshness, site, page.name))
    offsets = offsets_of(content, [d.path for d in found]) if found else {}
    for d in found:
        yield script.open_end + offsets[d.path], d


def _stored_json(content: str) -> LoadedJSON | None:
    """The bundle text as the C decoder reads it, for the record cache: its key names each claim's marker
    state, and an entry's text loaded cleanly when the entry was written, so this is the page's bundle on a
    hit, as :func:`_load` reads text it has seen (None, should it not load: then _load, with positions)."""
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


def _from_records(content: str, page: Page) -> tuple[_BundleFacts | None, LoadedJSON | None]:
    """The bundle text's facts from the record cache, when the page is checked with one, this process has not
    seen the text yet and an entry holds it, with the text as loaded; the entry's key is kept on ``page``
    either way, so the check stores what it computes (or the blocks an entry still lacks). The key names
    each claim's marker state, so the text is loaded first (the C decoder; the check loads it again, with
    positions, only when no entry holds it)."""
    records = page.records
    if records is None or _FACTS.get((content, page.lang)) is not None:
        return None, None
    loaded = _stored_json(content)
    settings = render_settings(page.options, None if loaded is None else loaded.value)
    key = records.key(content, page.lang, settings)
    stored = records.get(key)
    if stored is None:
        page.record = key, None, False  # the facts come when computed (_facts); none if the JSON does not load
        return None, None
    facts = _FACTS.put((content, page.lang), _BundleFacts(stored.findings))
    if stored.blocks is not None:
        facts.blocks, facts.rendered_with = dict(stored.blocks), settings
    else:
        page.record = key, facts, True  # its blocks, once rendered, complete the entry
    return facts, loaded


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
        found = list(diagnose_loaded(value, None, loaded.duplicate_keys))
    else:
        found = list(iter_diagnostics(value, None, duplicate_keys=loaded.duplicate_keys))
    offsets = offsets_of(content, [d.path for d in found]) if found else {}
    return _FACTS.put((content, lang), _BundleFacts(tuple((offsets[d.path], d) for d in found)))


def record_key(page: Page) -> str | None:
    """The record cache's key for the page's bundle (:func:`_from_records`'s), or None when the page was
    checked without a record cache or its bundle did not load. The page cache keeps it beside the page's
    result, so that a page it answers keeps its record entry in use (``_site.runner``)."""
    records = page.records
    if records is None or page.bundle is None or len(page.located.scripts) != 1:
        return None
    if page.record is not None:
        return page.record[0]
    script = page.located.scripts[0]  # (a bundle this process had seen: the memo answered, no key was made)
    content = page.text[script.open_end : script.close_start]
    return records.key(content, page.lang, render_settings(page.options, page.bundle))


def _remember(page: Page) -> None:
    """Store what this check computed of its bundle (findings, and blocks when rendered) in the record cache."""
    records = page.records
    if page.record is None or records is None:
        return
    key, facts, stored = page.record
    if facts is None:
        return
    rendered = facts.blocks is not None and facts.rendered_with == render_settings(page.options, page.bundle)
    if stored and not rendered:
        return  # nothing new to add to the entry
    records.put(key, _recordcache.Stored(facts.findings, facts.blocks if rendered else None))
