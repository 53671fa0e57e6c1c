"""The locator's scan, with the stretches that cannot matter to it skipped in bulk by one regex.

:func:`scan` in ``tokenizer`` feeds every token to the tree builder, in Python:
about 1,300 tags on a 50 KB page. Most of them are *neutral*: plain text, void
tags such as ``<br>``, and small balanced fragments such as ``<b>…</b>``,
``<p>…</p>``, ``<li><a href=…>…</a></li>`` or a table row, whose start tags end
nothing (checked once against the builder's stack of open elements) and whose
end tags close exactly what the fragment opened. Feeding such a fragment to the
builder pushes and pops the same elements and leaves the stack as it was (and
its list of active ``<a>``: an ``<a>…</a>`` is skipped only while no ``<a>`` is
listed, a cell's marker goes as it came), and the locator records nothing
inside it (no evidence attribute, no script, no link). So a compiled pattern
consumes runs of them in C, and every other token (comments, raw text,
templates, any tag that is not in the plain standard shape, any tag near an
evidence keyword, every structural tag) goes through the reference tokenizer
(``tokenizer._markup``) and the reference builder, unchanged.

Two things keep the skipping exact:

- Only tags in a strict standard shape are skipped (ASCII names, attribute
  values without ``<``, ``>`` or stray quotes). Such a tag ends at its first
  ``>``, where the reference tokenizer ends it too, and a pattern cut short at a
  keyword can never match a different tag.
- A run never reaches past the next evidence keyword (``endpos``), so every tag
  that might carry evidence markup is seen by the reference code.

``tests/unit/html/test_static_fastscan.py`` compares this scan with the reference on every
HTML input the tests know, the html5lib tree-construction corpus and random pages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .elements import HEADINGS
from .tokenizer import _markup
from .treebuilder import TreeBuilder

_WS = "[\t\n\f\r ]"
_ATTRS = rf"""(?>(?:{_WS}++[^\t\n\f\r "'<>/=]++(?>(?:{_WS}*+={_WS}*+(?:"[^"<>]*+"|'[^'<>]*+'|[^\t\n\f\r "'<>=`]++))?))*){_WS}*+/?>"""
_END = rf"{_WS}*+>"
# A repeated group is an atomic group around a greedy repeat, never a possessive repeat: CPython before
# 3.11.5 mis-matches those (gh-106052) and mis-tracks group spans in them. Possessive quantifiers only
# on one character class (``tests/unit/html/test_regex_portability.py`` holds every pattern to this).
# Start tags that end nothing and push nothing that stays (void), whatever is open.
_VOID = rf"<(?ai:br|img|wbr|embed|source|track|area|param|col)(?=[\t\n\f\r />]){_ATTRS}"
# Phrasing elements: their start tags end nothing (``a`` only when no ``a`` is open in scope).
INLINE = frozenset(
    "abbr b bdi bdo cite code data del dfn em i ins kbd mark q s samp small span strong sub sup time u var".split()
)
CELLS = frozenset({"td", "th"})
# Blocks that hold blocks: their start tags only end an open p, their end tags are found on top.
CONTAINERS = frozenset(
    "address article aside blockquote details div figcaption figure footer header main nav section".split()
)

_INLINE_DEPTH = 2
_CONTAINER_DEPTH = 3
_PATTERNS: dict[tuple[bool, bool, bool, bool, bool, bool], re.Pattern[str]] = {}
# The pattern for a stack no deeper than this is remembered by the whole stack (cheaper to look up than
# to work out again); a deeper one is worked out from the builder's index, in constant time (a key made
# of the whole stack, or a walk down it, made a page of nested elements quadratic).
_KEYED_DEPTH = 48
_FLAGS: dict[tuple[str, ...], re.Pattern[str] | None] = {}
_FLAGS_MAX = 4096


class _Groups:
    """Fresh group names, so fragments can require their own end tag by back-reference."""

    def __init__(self) -> None:
        self.count = 0

    def new(self) -> str:
        self.count += 1
        return f"g{self.count}"


def _alternation(names: frozenset[str]) -> str:
    return "|".join(sorted(names, key=lambda n: (-len(n), n)))


def _fragment(groups: _Groups, names: frozenset[str], content: str) -> str:
    """``<name …>content</name>`` for any of ``names``; the end tag must spell the start tag's name."""
    g = groups.new()
    return rf"<(?P<{g}>(?ai:{_alternation(names)}))(?=[\t\n\f\r />]){_ATTRS}{content}</(?P={g}){_END}"


def _inline(groups: _Groups, anchors: bool) -> str:
    """Text, void tags and phrasing fragments nested three deep (``a`` never inside ``a``)."""

    def level(depth: int, anchors: bool) -> str:
        if depth == 0:
            return rf"(?>(?:[^<]++|{_VOID})*)"
        items = [_fragment(groups, INLINE, level(depth - 1, anchors))]
        if anchors:
            items.append(_fragment(groups, frozenset({"a"}), level(depth - 1, False)))
        return rf"(?>(?:[^<]++|{_VOID}|{'|'.join(items)})*)"

    return level(_INLINE_DEPTH, anchors)


def _pattern(anchors: bool, p_ok: bool, li_ok: bool, h_ok: bool, td_ok: bool, tr_ok: bool) -> re.Pattern[str]:
    key = (anchors, p_ok, li_ok, h_ok, td_ok, tr_ok)
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = _PATTERNS[key] = re.compile(_Builder(anchors, li_ok).top(p_ok, h_ok, td_ok, tr_ok))
    return pattern


class _Builder:
    """Pattern text for the fragments that are neutral on a stack with the given properties."""

    def __init__(self, anchors: bool, li_ok: bool) -> None:
        self.groups = _Groups()
        self.anchors = anchors
        self.li_ok = li_ok

    def phrasing(self) -> list[str]:
        items = [_fragment(self.groups, INLINE, _inline(self.groups, self.anchors))]
        if self.anchors:
            items.append(_fragment(self.groups, frozenset({"a"}), _inline(self.groups, False)))
        return items

    def leaves(self, headings: bool) -> list[str]:
        # A leaf block's start tag closes an open p (none is in button scope when these are used),
        # li looks for an open li, h1-h6 end a heading on top of the stack.
        names = {"p", "pre", "summary"} | ({"li"} if self.li_ok else set()) | (HEADINGS if headings else set())
        lists = _fragment(self.groups, frozenset({"ul", "ol"}), rf"(?>(?:[^<]++|{self.item()})*)")
        return [_fragment(self.groups, frozenset(names), _inline(self.groups, self.anchors)), lists]

    def item(self) -> str:
        # li inside ul/ol: its search for an open li stops at the list (special, not address/div/p).
        return _fragment(self.groups, frozenset({"li"}), _inline(self.groups, self.anchors))

    def cells(self) -> str:
        # Inside a cell, searches stop at the cell (a scope boundary), so any phrasing is neutral.
        return _fragment(self.groups, CELLS, _inline(self.groups, self.anchors))

    def row(self) -> str:
        return rf"<(?ai:tr)(?=[\t\n\f\r />]){_ATTRS}(?>(?:[^<]++|{self.cells()})*)</(?ai:tr){_END}"

    def table(self) -> str:
        section = _fragment(self.groups, frozenset({"thead", "tbody", "tfoot"}), rf"(?>(?:[^<]++|{self.row()})*)")
        return rf"<(?ai:table)(?=[\t\n\f\r />]){_ATTRS}(?>(?:[^<]++|{section}|{self.row()})*)</(?ai:table){_END}"

    def container(self, depth: int) -> str:
        items = [rf"[^<]++|{_VOID}", *self.phrasing(), *self.leaves(True), self.table()]
        if depth > 1:
            items.append(self.container(depth - 1))
        return _fragment(self.groups, CONTAINERS, rf"(?>(?:{'|'.join(items)})*)")

    def top(self, p_ok: bool, h_ok: bool, td_ok: bool, tr_ok: bool) -> str:
        items = [rf"[^<]++|{_VOID}", *self.phrasing()]
        if p_ok:  # every block start tag below ends an open p
            items += [*self.leaves(h_ok), self.table(), self.container(_CONTAINER_DEPTH)]
        if td_ok:
            items.append(self.cells())
            if tr_ok:
                items.append(self.row())
        return rf"(?>(?:{'|'.join(items)})*)"


def _run_pattern(builder: TreeBuilder) -> re.Pattern[str] | None:
    """The pattern of what is neutral on top of the builder's current stack (None: skip nothing)."""
    names = builder.names
    if len(names) > _KEYED_DEPTH:
        return _flags(builder)
    active = builder.active
    # An <a> on the builder's list changes what is neutral: such stacks get their own key ("" is no tag name).
    key = tuple(names) if not active or active[-1] is None else (*names, "")
    if key in _FLAGS:
        return _FLAGS[key]
    if len(_FLAGS) >= _FLAGS_MAX:
        _FLAGS.clear()
    _FLAGS[key] = pattern = _flags(builder)
    return pattern


def _flags(builder: TreeBuilder) -> re.Pattern[str] | None:
    """Work out the pattern from the builder's index of open elements (see ``elements.index_keys``)."""
    names = builder.names
    if (
        builder.foreign
        or builder.templates
        or builder.top("select")
        or builder.top("#colon")
        or (names[0] == "select" or ":" in names[0])
    ):
        return None
    # An <a> start tag is neutral only if no <a> is in scope nor listed as active (open or to be re-opened).
    anchors = builder.in_scope("a", "#scope") < 0 and builder.listed_link() is None
    p_ok = builder.in_scope("p", "#button") < 0
    li = builder.top("li")  # (li_ok: no li open above the nearest special element other than address, div, p)
    li_ok = li == 0 or li < builder.top("#listop")
    h_ok = names[-1] not in HEADINGS
    table = builder.top("#table")  # (td_ok, tr_ok: no cell, or no cell nor row, above the nearest table scope)
    td_ok = max(builder.top("td"), builder.top("th")) <= table
    tr_ok = td_ok and builder.top("tr") <= table
    return _pattern(anchors, p_ok, li_ok, h_ok, td_ok, tr_ok)


def fast_scan(text: str, builder: TreeBuilder, keywords: Sequence[int]) -> None:
    """Like ``tokenizer.scan(text, builder)`` for a handler that ignores text and every start tag
    without an evidence keyword other than script and link; ``keywords`` are the sorted offsets
    of the evidence keywords in ``text``."""
    end = len(text)
    pos = 0
    k = 0
    count = len(keywords)
    find = text.find
    while pos < end:
        while k < count and keywords[k] < pos:
            k += 1
        pattern = _run_pattern(builder)
        if pattern is not None:
            run = pattern.match(text, pos, keywords[k] if k < count else end)
            pos = run.end() if run is not None else pos  # (the pattern matches the empty string too)
            if pos >= end:
                break
        if text[pos] != "<":
            lt = find("<", pos)
            if lt < 0:
                break
            pos = lt
            continue
        pos = _markup(text, pos, end, builder)
    builder.finish(end)
