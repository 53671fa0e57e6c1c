"""Find claim elements, evidence slots, the bundle script and stylesheet links, to the character.

Besides the elements, :class:`Located` keeps what the browser's parser would do to them that their spans
do not show: a ``<frameset>`` it accepts (the whole body is dropped) and slots that would sit inside an
``<a>`` left open or re-opened there (the block's own links tear the slot apart). :func:`foreign_markup`
finds a bundle script or stylesheet link that SVG or MathML content turned into a foreign element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._core.diagnostics import line_column, line_starts
from .elements import MARKERS, RAWTEXT, RCDATA, VOID
from .fastscan import fast_scan
from .tokenizer import attribute_value, iter_attributes, scan
from .treebuilder import Handler, TreeBuilder

if TYPE_CHECKING:
    from .relocate import Cut

CLAIM_ATTR = "data-claim-id"
SLOT_ATTR = "data-evidence-for"
SUMMARY_ATTR = "data-evidence-summary"  # the slot of the "sources this page relies on" block
BUNDLE_ID = "claim-evidence-data"

_INTERESTING = re.compile(r"(?i)data-claim-id|data-evidence-for|data-evidence-summary|claim-evidence-data")
_SUFFIX = re.compile(r"-(?i:claim-id|evidence-for|evidence-summary|evidence-data)")
# Elements that cannot hold an <aside> block: HTML would move it out, or never parse it as markup.
NOT_CONTAINERS = VOID | RAWTEXT | RCDATA | {"p", "template", "plaintext"}
# Evidence markup written as a tag, wherever it is (comments and raw text included).
_TAG_SHAPED = re.compile(
    r"""(?i)<[a-z][^<>]*?[\s"'/](?:data-claim-id|data-evidence-for)\s*=|<[a-z][^<>]*?[\s"'/]data-evidence-summary(?=[\s/>=])"""
    r"""|<script\b[^<>]*?[\s"'/]id\s*=\s*["']?claim-evidence-data\b"""
)


@dataclass(frozen=True)
class Element:
    """One located element. ``text[start:open_end]`` is its start tag, ``text[open_end:close_start]``
    its content and ``text[close_start:end]`` its end tag (empty when the end was implied)."""

    name: str
    attrs: dict[str, str] = field(compare=False)
    start: int
    open_end: int
    close_start: int
    end: int
    self_closing: bool = False

    @property
    def has_end_tag(self) -> bool:
        return self.end > self.close_start

    def contains(self, other: Element) -> bool:
        return self.open_end <= other.start and other.end <= self.close_start


@dataclass
class Located:
    """Everything on a page the helper cares about, in document order (inert ``<template>`` content excluded)."""

    text: str
    claims: list[Element] = field(default_factory=list)
    slots: list[Element] = field(default_factory=list)
    summaries: list[Element] = field(default_factory=list)  # data-evidence-summary slots (at most one is allowed)
    scripts: list[Element] = field(default_factory=list)
    links: list[Element] = field(default_factory=list)
    # Offset of evidence markup written as a tag that is no element (swallowed by an unclosed comment,
    # raw text, <template>, <select> or <plaintext>), when nothing else was found.
    hidden: int | None = None
    # Offset of a <frameset> start tag the standard accepts: browsers then drop the whole body.
    frameset: int | None = None
    # Slots the browser would put inside a link, each with the offset of that <a> start tag.
    linked: list[tuple[Element, int]] = field(default_factory=list)
    _lines: list[int] | None = field(default=None, repr=False)
    # Where the last element ends and the SHA-256 of the text up to there, once :mod:`.relocate` computed
    # them (:func:`.relocate.prefix`): a later text with that prefix may be answered from this one.
    _prefix: Cut | None = field(default=None, repr=False, compare=False)

    @property
    def has_markup(self) -> bool:
        return bool(self.claims or self.slots or self.scripts or self.summaries)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based ``(line, column)`` of a character offset; lines end at CRLF, CR or LF."""
        if self._lines is None:
            self._lines = line_starts(self.text)
        return line_column(self._lines, offset)


def keyword_offsets(text: str) -> list[int]:
    """Every offset where ``_INTERESTING`` matches, overlapping matches too (:func:`_keyword_starts`)."""
    return list(_keyword_starts(text))


def might_have_markup(text: str) -> bool:
    """A cheap filter: pages without these words cannot carry evidence markup (``_INTERESTING`` searched
    for, as fast as :func:`_keyword_starts` finds it: a third of ``_INTERESTING.search``'s time)."""
    return next(_keyword_starts(text), None) is not None


def _keyword_starts(text: str, start: int = 0) -> Iterator[int]:
    """Where ``_INTERESTING`` matches (from ``start`` on), found fast: a case-insensitive pattern that
    starts with a letter is slow to search, so search for the part after the first ``-`` and check the
    rest (every keyword has one such part, at a fixed offset, and none holds the start of another's)."""
    for match in _SUFFIX.finditer(text, start):
        for at in (match.start() - 4, match.start() - 5):  # data-…, claim-…
            if at >= start and _INTERESTING.match(text, at):
                yield at
                break


def parse_attributes(source: str) -> dict[str, str]:
    """Attribute names lowercased, values unquoted and decoded; the first of duplicates wins."""
    attrs: dict[str, str] = {}
    for name, raw in iter_attributes(source):
        if name not in attrs:
            attrs[name] = attribute_value(raw)
    return attrs


class _Pending:
    __slots__ = ("name", "attrs", "start", "open_end", "self_closing", "kind", "link")

    def __init__(
        self, name: str, attrs: dict[str, str], start: int, open_end: int, self_closing: bool, kind: str
    ) -> None:
        self.name = name
        self.attrs = attrs
        self.start = start
        self.open_end = open_end
        self.self_closing = self_closing
        self.kind = kind
        self.link: int | None = None


class _Locator(Handler):
    def __init__(self, located: Located) -> None:
        self.located = located
        self.builder: TreeBuilder | None = None
        # Kept in start-tag order so document order holds even when ends come later.
        self.order: list[_Pending] = []
        self.done: dict[int, Element] = {}

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        source = match.group(2)
        if name != "script" and name != "link" and not (source and _INTERESTING.search(source)):
            return None
        assert self.builder is not None
        if self.builder.templates or self.builder.top("select") or self.builder.names[0] == "select":
            return None  # template content is inert, select content is not shown: never a claim, a slot or the bundle
        attrs = parse_attributes(source)
        if name == "link":
            kind = "link"
        elif name == "script" and attrs.get("id") == BUNDLE_ID:
            kind = "script"
        elif CLAIM_ATTR in attrs or SLOT_ATTR in attrs or SUMMARY_ATTR in attrs:
            kind = "element"
        else:
            return None
        self_closing = match.group(0).endswith("/>") and match.end(2) < match.end() - 1
        pending = _Pending(name, attrs, start, end, self_closing, kind)
        if (
            SLOT_ATTR in attrs or SUMMARY_ATTR in attrs
        ) and name not in MARKERS:  # (content after a marker is out of reach of a link)
            pending.link = self.builder.open_link()
        self.order.append(pending)
        return pending

    def closed(self, name: str, token: object, content_end: int, end: int) -> None:
        if isinstance(token, _Pending):
            self.done[id(token)] = Element(
                token.name, token.attrs, token.start, token.open_end, content_end, end, token.self_closing
            )

    def text(self, start: int, end: int, raw: bool) -> None:
        pass

    def collect(self) -> None:
        located = self.located
        for pending in self.order:
            element = self.done[id(pending)]
            if pending.kind == "link":
                located.links.append(element)
            elif pending.kind == "script":
                located.scripts.append(element)
            if CLAIM_ATTR in element.attrs:
                located.claims.append(element)
            if SLOT_ATTR in element.attrs:
                located.slots.append(element)
            if SUMMARY_ATTR in element.attrs:
                located.summaries.append(element)
            if pending.link is not None:
                located.linked.append((element, pending.link))


FAST_AFTER_CHARS = 1_000_000
# The characters this process has located so far: read and written only by :func:`locate`. It stays a
# module global on purpose, not run state to pass around: what it amortizes, the bulk patterns that
# ``fastscan`` compiles once and keeps, is per process too (a counter per run or per caller would send
# the next run's first megabyte through the slow scan in a process that already holds them). Every
# caller (the page check, the scaffold, the source map, ``static_helper.locate``) keeps calling
# ``locate(text)``, and the counter never changes what is found (``_locate(text, fast=...)`` is tested
# to agree either way).
_scanned = 0


def locate(text: str) -> Located:
    """Locate claim elements, slots, bundle scripts and ``<link>`` elements in ``text``."""
    global _scanned
    _scanned += len(text)
    # The bulk patterns take ~0.1 s to compile: worth it once a process has scanned a site's worth of
    # text, not for the page or two a run mostly answered from the cache still has to check.
    return _locate(text, fast=_scanned > FAST_AFTER_CHARS)


def _locate(text: str, fast: bool) -> Located:
    """``fast=False`` feeds every token to the builder (the reference the fast scan is tested against)."""
    located = Located(text)
    keywords = keyword_offsets(text)
    if not keywords:  # pages without these words cannot carry evidence markup
        return located
    locator = _Locator(located)
    builder = TreeBuilder(locator)
    locator.builder = builder
    if fast:
        fast_scan(text, builder, keywords)
    else:
        scan(text, builder)
    locator.collect()
    located.frameset = builder.frameset
    if not located.has_markup:
        located.hidden = hidden_markup(text)
    return located


def hidden_markup(text: str) -> int | None:
    """Where evidence markup is written as a tag on a page that has no evidence element (it sits in a
    comment, raw text, a ``<template>`` …: SH104), or None."""
    hidden = _TAG_SHAPED.search(text)
    return hidden.start() if hidden else None


@dataclass(frozen=True)
class Foreign:
    """A bundle script (``kind="script"``) or stylesheet link (``"link"``) that SVG or MathML content
    turned into a foreign element; ``root`` is ``"svg"`` or ``"math"``, opened at ``root_start``."""

    kind: str
    start: int
    root: str
    root_start: int


class _ForeignFinder(Handler):
    def __init__(self) -> None:
        self.builder: TreeBuilder | None = None
        self.found: list[Foreign] = []

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        if name == "svg:svg" or name == "math:math":
            return start
        local = name.partition(":")[2]
        assert self.builder is not None
        if (local != "script" and local != "link") or self.builder.templates:
            return None
        attrs = parse_attributes(match.group(2))
        if (local == "script" and attrs.get("id") == BUNDLE_ID) or (
            local == "link" and "stylesheet" in attrs.get("rel", "").lower().split()
        ):
            names, tokens = self.builder.names, self.builder.tokens
            root = max(self.builder.top("svg:svg"), self.builder.top("math:math"))  # (the innermost around it)
            root_start = tokens[root] if root else None
            if isinstance(root_start, int):
                self.found.append(Foreign(local, start, names[root].partition(":")[0], root_start))
        return None


def foreign_markup(text: str) -> list[Foreign]:
    """Bundle scripts and stylesheet links that HTML parses as SVG or MathML elements, in document order
    (a second scan: for explaining a missing script or link, not for every page)."""
    finder = _ForeignFinder()
    builder = TreeBuilder(finder)
    finder.builder = builder
    scan(text, builder)
    return finder.found
