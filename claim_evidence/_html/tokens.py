"""An HTML tokenizer and a small tree builder that know where everything is.

Only the parts of the HTML standard that decide *where an element ends* are
modelled: comments and bogus comments, CDATA in foreign content, raw text and
RCDATA elements (with script's escaped states), attribute quoting, void
elements, ``<template>``, SVG/MathML self-closing (``<annotation-xml>`` holds
HTML only with ``encoding="text/html"``), and the implicit end tags of the tree
builder (``<p>``, ``<li>``, ``<dd>``/``<dt>``, table cells and rows, ruby,
options; a table part outside any table is no element). Misnested formatting
elements are approximated (the element ends at its end tag, unless eight or
more blocks are nested in it: then the standard keeps a copy of it open).
Every position is an index into the original text, so spans are exact whatever
the line endings, BOM, case or quoting. The builder keeps an index of its stack
of open elements (:func:`index_keys`), so a tag costs the same however deep the
page nests: hostile pages are read in linear time.

Two more parts of the standard are modelled because they decide whether the
evidence markup survives, not where it ends:

- the list of active formatting elements, for ``<a>`` only (and its markers):
  an ``<a>`` closed without its ``</a>`` stays on that list and the browser
  re-opens it around later content (``TreeBuilder.open_link``);
- the frameset-ok flag: a ``<frameset>`` start tag that the standard accepts
  drops the whole body (``TreeBuilder.frameset``). It is decided when such a tag
  is met, by replaying the text before it (:func:`frameset_accepted`), so pages
  without one pay nothing.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterator

_WS = "\t\n\f\r "
# Possessive quantifiers only on one character class; a repeated group is an atomic group around a
# greedy repeat. CPython before 3.11.5 (gh-106052) mis-matches a possessive repeat of a group that can
# backtrack inside: on Debian 12's 3.11.2 this pattern's possessive form did not match "<h>".
_ATTRS = rf"""(?>(?:[{_WS}/]*+(?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+(?>(?:[{_WS}]*+=[{_WS}]*+(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>)))?))*)"""
START_TAG = re.compile(rf"<([A-Za-z][^{_WS}/>]*+)({_ATTRS})[{_WS}/]*+>")
END_TAG = re.compile(rf"</([A-Za-z][^{_WS}/>]*+){_ATTRS}[{_WS}/]*+>")
ATTR = re.compile(
    rf"""[{_WS}/]*+((?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+)(?>(?:[{_WS}]*+=[{_WS}]*+("[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>|$)))?)"""
)
_SCRIPT_STATES = re.compile(rf"<!--|-->|<(/?)script(?=[{_WS}/>])", re.IGNORECASE)
_RAW_END: dict[str, re.Pattern[str]] = {}

VOID = frozenset(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr".split()
)
RAWTEXT = frozenset("script style xmp iframe noembed noframes".split())
RCDATA = frozenset("textarea title".split())
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
CLOSES_P = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form "
    "header hgroup hr main menu nav ol p pre listing search section summary table ul li dd dt plaintext xmp "
    "h1 h2 h3 h4 h5 h6".split()
)
SPECIAL = frozenset(
    "address applet area article aside base basefont bgsound blockquote body br button caption center col "
    "colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 "
    "h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav "
    "noembed noframes noscript object ol p param plaintext pre script search section select source style "
    "summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp "
    "svg:foreignobject svg:desc svg:title math:mi math:mo math:mn math:ms math:mtext math:annotation-xml".split()
)
IMPLIED_END = frozenset("dd dt li optgroup option p rb rp rt rtc".split())
FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
_INTEGRATION = frozenset(
    "svg:foreignobject svg:desc svg:title math:mi math:mo math:mn math:ms math:mtext math:annotation-xml".split()
)
_MATH_TEXT = frozenset("math:mi math:mo math:mn math:ms math:mtext".split())  # mglyph/malignmark stay MathML there
SCOPE = frozenset("applet caption html table td th marquee object template".split()) | _INTEGRATION
TABLE_SCOPE = frozenset("html table template".split())
_BUTTON_SCOPE = SCOPE | {"button"}
_LIST_SCOPE = SCOPE | {"ol", "ul"}
# End tags that close only when an element of that name is in scope (else ignored).
_SCOPED_END: dict[str, frozenset[str]] = {
    name: SCOPE
    for name in (
        "address article aside blockquote button center details dialog dir div dl fieldset figcaption figure "
        "footer header hgroup listing main menu nav ol pre search section summary ul form dd dt applet marquee "
        "object select"
    ).split()
}
_SCOPED_END.update({"p": _BUTTON_SCOPE, "li": _LIST_SCOPE})
_SCOPED_END.update({name: TABLE_SCOPE for name in "table tbody tfoot thead tr td th caption colgroup".split()})
_TABLE_CLOSES: dict[str, frozenset[str]] = {
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"td", "th", "tr"}),
    "tbody": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "thead": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "tfoot": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "caption": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup"}),
    "colgroup": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup"}),
}
_BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing "
    "menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var".split()
)
_IGNORED_END = frozenset({"body", "html", "br", "head"})
_TABLE_PARTS = frozenset("caption table tbody tfoot thead tr td th".split())
_CLOSES_SELECT = frozenset({"select", "input", "textarea"}) | _TABLE_PARTS
# The list of active formatting elements gets a marker when one of these is pushed, and is cleared back to
# the last marker when a cell, caption or template is closed, or an applet, marquee or object by its own end
# tag (else its marker stays); only <a> entries are kept between markers (the block's links meet them).
MARKERS = frozenset("applet caption marquee object td th template".split())
_OWN_END_CLEARS = frozenset({"applet", "marquee", "object"})
_TRACKED = MARKERS | {"a", "math:annotation-xml"}
# The adoption agency runs its outer loop at most eight times: an element with eight or more special
# elements open inside it is not closed by its end tag, a copy of it stays open after the eighth.
_ADOPTION_LIMIT = 8
# Start tags after which the frameset-ok flag is "not ok" (input: unless type=hidden).
_FRAMESET_NOT_OK = frozenset(
    "applet area br button dd dt embed hr iframe image img keygen li listing marquee object pre select table "
    "textarea wbr xmp".split()
)
# Start tags a parser puts in the head while the body has not started (a <frameset> there is always taken).
_HEAD_ONLY = frozenset("base basefont bgsound link meta noframes noscript script style template title".split())
# The stack of open elements is indexed so that every question the builder asks of it ("is an X in scope",
# "the nearest special element", "the lowest cell above the table") is answered from the tops of a few
# lists instead of a walk down the stack: a walk per tag made nested pages quadratic (25,000 nested <div>
# took 9 s). Each open element at stack position p >= 1 is listed under its name and under every class it
# belongs to ("#scope" …; no tag name starts with "#"); position 0, the context, is never listed (no
# search ever looked at it).
_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("#scope", SCOPE),
    ("#table", TABLE_SCOPE),
    ("#button", _BUTTON_SCOPE),
    ("#list", _LIST_SCOPE),
    ("#special", SPECIAL),
    ("#listop", SPECIAL - {"address", "div", "p"}),  # where the search for an open li, dd or dt stops
    ("#heading", HEADINGS),
)
_BOUNDARY_KEYS: dict[frozenset[str], str] = {
    SCOPE: "#scope",
    TABLE_SCOPE: "#table",
    _BUTTON_SCOPE: "#button",
    _LIST_SCOPE: "#list",
}
_SCOPED_END_KEY: dict[str, str] = {name: _BOUNDARY_KEYS[boundary] for name, boundary in _SCOPED_END.items()}
_KEYS: dict[str, tuple[str, ...]] = {}
_KEYS_MAX = 4096


def index_keys(name: str) -> tuple[str, ...]:
    """The keys an open element named ``name`` is listed under: its name, its classes, ``#foreign`` (SVG
    and MathML elements) or ``#html``, and ``#colon`` for any name with a colon."""
    keys = _KEYS.get(name)
    if keys is None:
        found = [name, *(key for key, members in _CLASSES if name in members)]
        found.append("#foreign" if name.startswith(("svg:", "math:")) else "#html")
        if ":" in name:
            found.append("#colon")
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        keys = _KEYS[name] = tuple(found)
    return keys


_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower(name: str) -> str:
    """ASCII lowercase, as the HTML tokenizer does (other letters are kept)."""
    return name.translate(_UPPER) if not name.islower() else name


def _raw_end(name: str) -> re.Pattern[str]:
    pattern = _RAW_END.get(name)
    if pattern is None:
        pattern = _RAW_END[name] = re.compile(rf"</{re.escape(name)}(?=[{_WS}/>])", re.IGNORECASE)
    return pattern


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


def frameset_accepted(text: str, at: int) -> bool:
    """Whether the standard takes the ``<frameset>`` start tag at ``text[at]`` (not in a template): yes
    while the body has not started, else only if its frameset-ok flag is still "ok". Replays ``text[:at]``."""
    probe = _FramesetProbe(text)
    builder = _FramesetBuilder(probe)
    probe.builder = builder
    scan(text, builder, 0, at)
    return probe.ok or not probe.body


class _FramesetProbe(Handler):
    """Follows the frameset-ok flag and whether the body has started. Where the model is unsure it leaves
    the flag "ok" and the body unstarted: a frameset taken by mistake is reported, never passed silently."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.builder: TreeBuilder | None = None
        self.ok = True
        self.body = False

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        assert self.builder is not None
        if name in _FRAMESET_NOT_OK or (name == "input" and not _hidden_input(match.group(2))):
            self.ok = False
        if name not in _HEAD_ONLY and not self.builder.templates:
            self.body = True
        return None

    def text(self, start: int, end: int, raw: bool) -> None:
        builder = self.builder
        assert builder is not None
        if raw and not builder.foreign:
            return  # script, style and other raw text: never characters of the body (CDATA in SVG is)
        if not raw and builder.names[-1] in RCDATA:
            return  # a <title>'s text (a <textarea> already said "not ok")
        chunk = self.source[start:end]
        if not raw and "&" in chunk:
            chunk = html.unescape(chunk)
        if chunk.strip(_WS + "\0"):  # a NULL is dropped, whitespace is kept: neither changes the flag
            self.ok = False
            if not builder.templates:
                self.body = True


def _hidden_input(attributes: str) -> bool:
    return lower(attribute(attributes, "type")) == "hidden"


class _FramesetBuilder(TreeBuilder):
    """The tree builder of :func:`frameset_accepted`: it also sees the tags the plain builder skips."""

    __slots__ = ("probe",)

    def __init__(self, probe: _FramesetProbe) -> None:
        super().__init__(probe)
        self.probe = probe

    def _frameset(self, at: int, match: re.Match[str]) -> None:
        pass  # one before the frameset being decided was ignored

    def start(self, name: str, start: int, end: int, match: re.Match[str], self_closing: bool) -> bool:
        if name == "body" and not self.templates:
            self.probe.ok = False
            self.probe.body = True
        return super().start(name, start, end, match, self_closing)

    def end(self, name: str, start: int, end: int) -> None:
        if not self.templates and name in ("br", "body", "html"):
            self.probe.body = True
            if name == "br":
                self.probe.ok = False  # </br> is a <br>
        super().end(name, start, end)


def scan(text: str, builder: TreeBuilder, pos: int = 0, stop: int | None = None) -> None:
    """Tokenize ``text[pos:stop]`` into ``builder``; the builder's state steers raw text and CDATA."""
    end_of_text = len(text) if stop is None else stop
    handler_text = builder.handler.text
    find = text.find
    while pos < end_of_text:
        lt = find("<", pos, end_of_text)
        if lt < 0:
            handler_text(pos, end_of_text, False)
            break
        if lt > pos:
            handler_text(pos, lt, False)
        pos = _markup(text, lt, end_of_text, builder)
    builder.finish(end_of_text)


def _markup(text: str, lt: int, stop: int, builder: TreeBuilder) -> int:
    """Consume the markup starting at ``text[lt] == '<'``; return the next position."""
    nxt = text[lt + 1 : lt + 2]
    if nxt.isascii() and nxt.isalpha():
        match = START_TAG.match(text, lt, stop)
        if match is None:
            return stop  # EOF inside a tag: the tag is dropped
        end = match.end()
        name = lower(match.group(1))
        self_closing = text[end - 2] == "/" and (match.end(2) < end - 1)
        if builder.start(name, lt, end, match, self_closing):
            if name in RAWTEXT or name in RCDATA or name == "plaintext":
                return _raw_text(text, end, stop, name, builder)
        return end
    if nxt == "/":
        after = text[lt + 2 : lt + 3]
        if after.isascii() and after.isalpha():
            match = END_TAG.match(text, lt, stop)
            if match is None:
                return stop
            builder.end(lower(match.group(1)), lt, match.end())
            return match.end()
        if after == ">":
            return lt + 3
        if after == "":
            builder.handler.text(lt, stop, False)
            return stop
        return _to_gt(text, lt + 2, stop)
    if nxt == "!":
        if text.startswith("<!--", lt):
            if text.startswith("<!-->", lt):
                return lt + 5
            if text.startswith("<!--->", lt):
                return lt + 6
            close = text.find("-->", lt + 4, stop)
            bang = text.find("--!>", lt + 4, stop)
            if close < 0 and bang < 0:
                return stop
            if bang >= 0 and (close < 0 or bang < close):
                return bang + 4
            return close + 3
        if builder.foreign and text.startswith("<![CDATA[", lt):
            close = text.find("]]>", lt + 9, stop)
            if close < 0:
                builder.handler.text(lt + 9, stop, True)
                return stop
            builder.handler.text(lt + 9, close, True)
            return close + 3
        return _to_gt(text, lt + 2, stop)
    if nxt == "?":
        return _to_gt(text, lt + 1, stop)
    handler_text = builder.handler.text
    handler_text(lt, lt + 1, False)
    return lt + 1


def _to_gt(text: str, pos: int, stop: int) -> int:
    gt = text.find(">", pos, stop)
    return stop if gt < 0 else gt + 1


def _raw_text(text: str, pos: int, stop: int, name: str, builder: TreeBuilder) -> int:
    """Skip the raw text of ``name`` (its content is text, never markup) and consume its end tag."""
    if name == "plaintext":
        builder.handler.text(pos, stop, True)
        return stop
    close = _script_end(text, pos, stop) if name == "script" else _raw_end(name).search(text, pos, stop)
    if close is None:
        builder.handler.text(pos, stop, name not in RCDATA)
        return stop
    at = close if isinstance(close, int) else close.start()
    builder.handler.text(pos, at, name not in RCDATA)
    match = END_TAG.match(text, at, stop)
    if match is None:
        return stop
    builder.end(name, at, match.end())
    return match.end()


def _script_end(text: str, pos: int, stop: int) -> int | None:
    """Where ``</script`` really ends a script, honouring the ``<!--<script>`` escaped states."""
    escaped = double = False
    for match in _SCRIPT_STATES.finditer(text, pos, stop):
        token = match.group(0)
        if token == "<!--":
            # "<!-->" and "<!--->" open and close at once.
            if not escaped and not text.startswith((">", "->"), match.end()):
                escaped = True
        elif token == "-->":
            if escaped:
                escaped = double = False
        elif match.group(1):  # </script
            if not double:
                return match.start()
            double = False
        elif escaped:  # <script inside an escaped section
            double = True
    return None


def iter_attributes(source: str) -> Iterator[tuple[str, str | None]]:
    """``(lowercased name, raw value or None)`` for an attribute string, duplicates included."""
    for match in ATTR.finditer(source):
        yield lower(match.group(1)), match.group(2)


def attribute_value(raw: str | None) -> str:
    """An attribute's value as written by :func:`iter_attributes` (quoted or not, or absent), decoded."""
    if raw is None:
        return ""
    if raw[:1] in ("'", '"'):
        raw = raw[1:-1]
    return html.unescape(raw) if "&" in raw else raw


def attribute(attributes: str, wanted: str) -> str:
    """The decoded value of the first attribute named ``wanted`` (lowercase) in a tag's attribute text."""
    for name, raw in iter_attributes(attributes):
        if name == wanted:
            return attribute_value(raw)
    return ""
