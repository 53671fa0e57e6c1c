"""A small tree builder that knows where every element ends, fed by :func:`.tokenizer.scan`.

It models the implicit end tags of the HTML standard (``<p>``, ``<li>``, ``<dd>``/``<dt>``, table cells
and rows, ruby, options; a table part outside any table is no element), void elements, ``<template>``,
SVG/MathML self-closing (``<annotation-xml>`` holds HTML only with ``encoding="text/html"``) and
misnested formatting elements, approximated (the element ends at its end tag, unless eight or more
blocks are nested in it: then the standard keeps a copy of it open). The builder keeps an index of its
stack of open elements (:func:`.elements.index_keys`), so a tag costs the same however deep the page
nests: hostile pages are read in linear time.

Two more parts of the standard are modelled because they decide whether the
evidence markup survives, not where it ends:

- the list of active formatting elements, for ``<a>`` only (and its markers):
  an ``<a>`` closed without its ``</a>`` stays on that list and the browser
  re-opens it around later content (``TreeBuilder.open_link``);
- the frameset-ok flag: a ``<frameset>`` start tag that the standard accepts
  drops the whole body (``TreeBuilder.frameset``). It is decided when such a tag
  is met, by replaying the text before it (:func:`.frameset.frameset_accepted`),
  so pages without one pay nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict

from .elements import (
    _BREAKOUT,
    _CLOSES_SELECT,
    _IGNORED_END,
    _INTEGRATION,
    _MATH_TEXT,
    _OWN_END_CLEARS,
    _SCOPED_END_KEY,
    _TABLE_CLOSES,
    _TABLE_PARTS,
    _TRACKED,
    CLOSES_P,
    FORMATTING,
    HEADINGS,
    IMPLIED_END,
    VOID,
    index_keys,
)
from .tokenizer import attribute, lower

# The adoption agency runs its outer loop at most eight times: an element with eight or more special
# elements open inside it is not closed by its end tag, a copy of it stays open after the eighth.
_ADOPTION_LIMIT = 8


class Handler:
    """What a builder is told. Positions are offsets into the text."""

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:  # pragma: no cover
        """A start tag was pushed (or a void one seen); return a token kept with it."""
        return None

    def closed(self, name: str, token: object, content_end: int, end: int) -> None:  # pragma: no cover
        """The element pushed with ``token`` ends: content up to ``content_end``, markup up to ``end``."""

    def text(self, start: int, end: int, raw: bool) -> None:  # pragma: no cover
        """Character data ``text[start:end]``; ``raw`` when entities are not decoded (script, style)."""


class TreeBuilder:
    """A stack of open elements fed by :func:`scan`; tells a handler about pushes and pops.

    ``active`` is the list of active formatting elements reduced to ``<a>``: ``None`` is a marker, an entry
    is ``(start of the <a> tag, still on the stack)``; there is at most one entry after the last marker.
    ``frameset`` is the offset of a ``<frameset>`` start tag the standard accepts (documents only).
    """

    __slots__ = (
        "names",
        "tokens",
        "open",
        "handler",
        "foreign",
        "templates",
        "active",
        "plain_xml",
        "document",
        "frameset",
        "frameset_seen",
    )

    def __init__(self, handler: Handler, context: str = "html") -> None:
        self.names: list[str] = [context]
        self.tokens: list[object] = [None]
        # For each key of index_keys, the stack positions (>= 1, ascending) of the open elements under it.
        self.open: defaultdict[str, list[int]] = defaultdict(list)  # (read with .get: no empty lists made)
        self.handler = handler
        self.foreign = context.startswith(("svg:", "math:")) and context not in _INTEGRATION
        self.templates = 0
        self.active: list[tuple[int, bool] | None] = []
        # For each math:annotation-xml on the stack: True when it is no HTML integration point.
        self.plain_xml: list[bool] = [False] if context == "math:annotation-xml" else []
        self.document = context == "html"
        self.frameset: int | None = None
        self.frameset_seen = False

    def listed_link(self) -> tuple[int, bool] | None:
        """The ``<a>`` on the list of active formatting elements after its last marker, if any."""
        return self.active[-1] if self.active else None

    def open_link(self) -> int | None:
        """Where the ``<a>`` starts that the browser keeps or re-opens around content inserted now, if any:
        one closed without its ``</a>``, or one still open in scope (one beyond a table is dropped by the
        next ``<a>`` without touching what lies between)."""
        entry = self.listed_link()
        if entry is None or (entry[1] and self.in_scope("a", "#scope") < 0):
            return None
        return entry[0]

    # --- stack primitives -------------------------------------------------------

    def top(self, key: str) -> int:
        """The stack position of the highest open element under ``key`` (see :func:`index_keys`), 0 if none."""
        found = self.open.get(key)
        return found[-1] if found else 0

    def above(self, key: str, depth: int) -> int:
        """The lowest stack position above ``depth`` of an open element under ``key``, 0 if none."""
        found = self.open.get(key)
        if not found or found[-1] <= depth:
            return 0
        return found[bisect_right(found, depth)]

    def in_scope(self, target: str, boundary: str) -> int:
        """The stack position of the highest open element under ``target`` if no element under the key
        ``boundary`` is above it, else -1 (the standard's "has an element in scope", which stops at the
        first boundary element: the target itself may be one)."""
        found = self.open.get(target)
        if not found:
            return -1
        depth = found[-1]
        return -1 if self.top(boundary) > depth else depth

    def _index(self, start: int) -> None:
        """List the open elements from stack position ``start`` up (none of them is listed yet)."""
        open_ = self.open
        names = self.names
        for depth in range(max(start, 1), len(names)):
            for key in index_keys(names[depth]):
                open_[key].append(depth)

    def _unindex(self, start: int) -> None:
        """Take the open elements from stack position ``start`` up off the index (they are its tops)."""
        open_ = self.open
        names = self.names
        for depth in range(len(names) - 1, max(start, 1) - 1, -1):
            for key in index_keys(names[depth]):
                open_[key].pop()

    def _reorder(self, low: int, high: int) -> None:
        """Re-list stack positions ``low`` to ``high`` after the elements there changed places among
        themselves (the same names, so each key keeps as many entries there): the adoption agency's copy
        of a formatting element after the eighth block would otherwise cost a walk up the whole stack."""
        moved: dict[str, list[int]] = {}
        names = self.names
        for depth in range(low, high + 1):
            for key in index_keys(names[depth]):
                found = moved.get(key)
                if found is None:
                    moved[key] = [depth]
                else:
                    found.append(depth)
        open_ = self.open
        for key, positions in moved.items():
            listed = open_[key]
            first = bisect_left(listed, low)
            listed[first : first + len(positions)] = positions

    def _push(self, name: str, token: object, at: int = -1) -> None:
        depth = len(self.names)
        self.names.append(name)
        self.tokens.append(token)
        open_ = self.open
        for key in index_keys(name):
            open_[key].append(depth)
        if name in _TRACKED:
            if name == "a":
                self.active.append((at, True))
            elif name != "math:annotation-xml":
                self.active.append(None)
                if name == "template":
                    self.templates += 1
        self._update_foreign()

    def _popped(self, name: str) -> None:
        """Bookkeeping for a tracked element popped off the stack (not by the adoption agency's removal)."""
        active = self.active
        if name == "a":
            for i in range(len(active) - 1, -1, -1):  # the latest open one (maybe behind a leftover marker)
                entry = active[i]
                if entry is not None and entry[1]:
                    active[i] = (entry[0], False)  # closed without </a>: the browser will re-open it
                    break
        elif name == "math:annotation-xml":
            self.plain_xml.pop()
        elif name not in _OWN_END_CLEARS:
            if name == "template":
                self.templates -= 1
            while active and active.pop() is not None:
                pass  # clear the list up to the last marker (as _clear_to_marker, inlined: every cell passes here)

    def _clear_to_marker(self) -> None:
        active = self.active
        while active and active.pop() is not None:
            pass

    def _pop_to(self, depth: int, content_end: int, end: int) -> None:
        """Pop every element at ``depth`` and above; the one at ``depth`` ends at ``end``."""
        names, tokens, closed, open_ = self.names, self.tokens, self.handler.closed, self.open
        while len(names) > depth:
            name = names.pop()
            token = tokens.pop()
            for key in index_keys(name):
                open_[key].pop()
            if name in _TRACKED:
                self._popped(name)
            if len(names) == depth:
                closed(name, token, content_end, end)
            else:
                closed(name, token, content_end, content_end)
        self._update_foreign()

    def _update_foreign(self) -> None:
        top = self.names[-1]
        self.foreign = (top.startswith("svg:") or top.startswith("math:")) and (
            top not in _INTEGRATION or (top == "math:annotation-xml" and self.plain_xml[-1])
        )

    def _implied(self, at: int, keep: str = "") -> None:
        while self.names[-1] in IMPLIED_END and self.names[-1] != keep:
            self._pop_to(len(self.names) - 1, at, at)

    def _close_p(self, at: int) -> None:
        depth = self.in_scope("p", "#button")
        if depth > 0:
            self._pop_to(depth, at, at)

    # --- tokens ---------------------------------------------------------------------

    def start(self, name: str, start: int, end: int, match: re.Match[str], self_closing: bool) -> bool:
        """Process a start tag; True when the element is an HTML one (raw text rules apply)."""
        if (self.foreign and not (name == "svg" and self.names[-1] == "math:annotation-xml")) or (
            (name == "mglyph" or name == "malignmark") and self.names[-1] in _MATH_TEXT
        ):
            if name in _BREAKOUT or (name == "font" and re.search(r"(?i)\b(?:color|face|size)\b", match.group(2))):
                while self.foreign:
                    self._pop_to(len(self.names) - 1, start, start)
            else:
                namespace = self.names[-1].partition(":")[0]
                qualified = f"{namespace}:{name}"
                token = self.handler.opened(qualified, len(self.names), start, end, match)
                if self_closing:
                    self.handler.closed(qualified, token, end, end)
                else:
                    if qualified == "math:annotation-xml":
                        self.plain_xml.append(not _holds_html(match.group(2)))
                    self._push(qualified, token)
                return False
        if name in ("svg", "math"):
            token = self.handler.opened(f"{name}:{name}", len(self.names), start, end, match)
            if self_closing:
                self.handler.closed(f"{name}:{name}", token, end, end)
            else:
                self._push(f"{name}:{name}", token)
            return False
        if name in ("html", "head", "body"):
            return False
        if name in _CLOSES_SELECT and self._close_select(name, start) and name == "select":
            return False  # <select> inside a select only ends it
        if self._implicit_ends(name, start, match):
            return False
        token = self.handler.opened(name, len(self.names), start, end, match)
        if name in VOID:
            self.handler.closed(name, token, end, end)
        else:
            self._push(name, token, start)
        return True

    def _frameset(self, at: int, match: re.Match[str]) -> None:
        """An HTML ``<frameset>`` is never pushed: the standard ignores it (in a template, or once the
        frameset-ok flag says "not ok", which lasts), or takes it and drops the body."""
        if self.templates or not self.document or self.frameset_seen:
            return
        self.frameset_seen = True
        from .frameset import frameset_accepted  # (here: that module builds on this one)

        if frameset_accepted(match.string, at):
            self.frameset = at

    def _close_select(self, name: str, at: int) -> bool:
        """End an open select that ``name`` cannot go into (table parts only when the select is in a table)."""
        depth = self.in_scope("select", "#scope")
        if depth <= 0 or (name in _TABLE_PARTS and not self._table_below(depth)):
            return False
        self._pop_to(depth, at, at)
        return True

    def _table_below(self, depth: int) -> bool:
        """Whether a ``table`` is on the stack below position ``depth`` (the context included)."""
        tables = self.open.get("table")
        return self.names[0] == "table" or bool(tables and tables[0] < depth)

    def _implicit_ends(self, name: str, at: int, match: re.Match[str]) -> bool:
        """End what the start tag ``name`` ends; True when the standard ignores the tag itself."""
        names = self.names
        if name in CLOSES_P:
            if name == "li" or name == "dd" or name == "dt":
                # The highest open li (dd or dt) unless a special element other than address, div, p is
                # above it (li, dd and dt are special themselves).
                depth = self.top("li") if name == "li" else max(self.top("dd"), self.top("dt"))
                if depth > 0 and depth >= self.top("#listop"):
                    self._implied(at, keep=names[depth])
                    self._pop_to(depth, at, at)
            self._close_p(at)
            if name in HEADINGS and names[-1] in HEADINGS:
                self._pop_to(len(names) - 1, at, at)
            return False
        closes = _TABLE_CLOSES.get(name)
        if closes is not None:
            boundary = self.top("#table")
            if boundary == 0 and self.document:
                return True  # a table part outside any table (or template): no element, no marker
            lowest = min((found for found in (self.above(n, boundary) for n in closes) if found), default=-1)
            if lowest > 0:
                self._pop_to(lowest, at, at)
        elif name == "option" or name == "optgroup":
            if names[-1] == "option":
                self._pop_to(len(names) - 1, at, at)
            if name == "optgroup" and names[-1] == "optgroup":
                self._pop_to(len(names) - 1, at, at)
        elif name in ("rb", "rtc", "rp", "rt"):
            if self.in_scope("ruby", "#scope") > 0:
                self._implied(at, keep="rtc" if name in ("rp", "rt") else "")
        elif name == "a" or name == "nobr" or name == "button":
            depth = self.in_scope(name, "#scope")
            if depth > 0 and name == "button":
                self._pop_to(depth, at, at)
            elif depth > 0:
                self._adopt(depth, at, at)
            if name == "a" and self.listed_link() is not None:
                self.active.pop()  # the adoption agency takes the earlier <a> off the list
        elif name == "frameset":
            self._frameset(at, match)
            return True
        return False

    def end(self, name: str, start: int, end: int) -> None:
        names = self.names
        if self.foreign and (name == "p" or name == "br"):
            # </p> and </br> break out of foreign content, then act as HTML end tags.
            while self.foreign:
                self._pop_to(len(names) - 1, start, start)
        if self.foreign or names[-1].startswith(("svg:", "math:")):
            # The highest SVG or MathML element of that local name, if no HTML element is above it.
            depth = max(self.top("svg:" + name), self.top("math:" + name))
            if depth > self.top("#html"):
                self._pop_to(depth, start, end)
                return
        if name in _IGNORED_END:
            return
        if name == "template":
            depth = self.top("template")
            if depth > 0:
                self._pop_to(depth, start, end)
            return
        if name in HEADINGS:
            depth = self.in_scope("#heading", "#scope")
            if depth > 0:
                self._pop_to(depth, start, end)
            return
        boundary = _SCOPED_END_KEY.get(name)
        if boundary is not None:
            depth = self.in_scope(name, boundary)
            if depth > 0:
                self._pop_to(depth, start, end)
                if name in _OWN_END_CLEARS:
                    self._clear_to_marker()
            return
        if name in FORMATTING:
            # Adoption agency: found in scope even below special elements; the blocks inside stay open
            # and only the formatting element ends here (with eight or more, a copy of it stays open).
            depth = self.in_scope(name, "#scope")
            entry = self.active[-1] if name == "a" and self.active else None
            if entry is not None and not entry[1]:
                self.active.pop()  # an <a> closed before only leaves the list
                return
            if depth <= 0:
                return  # (an open <a> out of scope stays listed: the standard ignores its end tag)
            if not self._adopt(depth, start, end) and entry is not None:
                self.active.pop()
            return
        depth = self.top(name)  # (found unless a special element is above it; it may be special itself)
        if depth > 0 and depth >= self.top("#special"):
            self._pop_to(depth, start, end)

    def _adopt(self, depth: int, content_end: int, end: int) -> bool:
        """The adoption agency, approximated: the formatting element at ``depth`` ends, the blocks opened
        inside it stay open. True when eight or more did: the standard then keeps a copy of it open after
        the eighth."""
        names = self.names
        specials = self.open.get("#special", [])
        first = bisect_right(specials, depth)  # the special elements above depth ("blocks")
        if first == len(specials):
            self._pop_to(depth, content_end, end)
            return False
        if len(specials) - first < _ADOPTION_LIMIT:
            self._unindex(depth)  # (every position above depth moves down one)
            name = names.pop(depth)
            self.handler.closed(name, self.tokens.pop(depth), content_end, end)
            self._index(depth)
            return False
        at = specials[first + _ADOPTION_LIMIT - 1]
        name = names.pop(depth)
        self.handler.closed(name, self.tokens.pop(depth), content_end, end)
        names.insert(at, name)
        self.tokens.insert(at, None)
        self._reorder(depth, at)  # (only depth..at moved: a copy after the eighth block)
        self._update_foreign()
        return True

    def finish(self, at: int) -> None:
        self._pop_to(1, at, at)


def _holds_html(attributes: str) -> bool:
    """Whether a MathML ``<annotation-xml>`` with these attributes is an HTML integration point."""
    return lower(attribute(attributes, "encoding")) in ("text/html", "application/xhtml+xml")
