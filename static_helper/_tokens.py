"""An HTML tokenizer and a small tree builder that know where everything is.

Only the parts of the HTML standard that decide *where an element ends* are
modelled: comments and bogus comments, CDATA in foreign content, raw text and
RCDATA elements (with script's escaped states), attribute quoting, void
elements, ``<template>``, SVG/MathML self-closing, and the implicit end tags
of the tree builder (``<p>``, ``<li>``, ``<dd>``/``<dt>``, table cells and rows,
ruby, options). Misnested formatting elements are approximated (the element
ends at its end tag). Every position is an index into the original text, so
spans are exact whatever the line endings, BOM, case or quoting.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

_WS = "\t\n\f\r "
_ATTRS = rf"""(?:[{_WS}/]*+(?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+(?:[{_WS}]*+=[{_WS}]*+(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>)))?+)*+"""
START_TAG = re.compile(rf"<([A-Za-z][^{_WS}/>]*+)({_ATTRS})[{_WS}/]*+>")
END_TAG = re.compile(rf"</([A-Za-z][^{_WS}/>]*+){_ATTRS}[{_WS}/]*+>")
ATTR = re.compile(
    rf"""[{_WS}/]*+((?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+)(?:[{_WS}]*+=[{_WS}]*+("[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>|$)))?+"""
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
    """A stack of open elements fed by :func:`scan`; tells a handler about pushes and pops."""

    __slots__ = ("names", "tokens", "handler", "foreign", "templates")

    def __init__(self, handler: Handler, context: str = "html") -> None:
        self.names: list[str] = [context]
        self.tokens: list[object] = [None]
        self.handler = handler
        self.foreign = context.startswith(("svg:", "math:")) and context not in _INTEGRATION
        self.templates = 0

    # --- stack primitives -------------------------------------------------------

    def _push(self, name: str, token: object) -> None:
        self.names.append(name)
        self.tokens.append(token)
        if name == "template":
            self.templates += 1
        self._update_foreign()

    def _pop_to(self, depth: int, content_end: int, end: int) -> None:
        """Pop every element at ``depth`` and above; the one at ``depth`` ends at ``end``."""
        names, tokens, closed = self.names, self.tokens, self.handler.closed
        while len(names) > depth:
            name = names.pop()
            token = tokens.pop()
            if name == "template":
                self.templates -= 1
            if len(names) == depth:
                closed(name, token, content_end, end)
            else:
                closed(name, token, content_end, content_end)
        self._update_foreign()

    def _update_foreign(self) -> None:
        top = self.names[-1]
        self.foreign = (top.startswith("svg:") or top.startswith("math:")) and top not in _INTEGRATION

    def _find_in_scope(self, targets: frozenset[str] | set[str], boundary: frozenset[str]) -> int:
        names = self.names
        for depth in range(len(names) - 1, 0, -1):
            name = names[depth]
            if name in targets:
                return depth
            if name in boundary:
                return -1
        return -1

    def _implied(self, at: int, keep: str = "") -> None:
        while self.names[-1] in IMPLIED_END and self.names[-1] != keep:
            self._pop_to(len(self.names) - 1, at, at)

    def _close_p(self, at: int) -> None:
        depth = self._find_in_scope({"p"}, _BUTTON_SCOPE)
        if depth > 0:
            self._pop_to(depth, at, at)

    # --- tokens ---------------------------------------------------------------------

    def start(self, name: str, start: int, end: int, match: re.Match[str], self_closing: bool) -> bool:
        """Process a start tag; True when the element is an HTML one (raw text rules apply)."""
        if self.foreign or ((name == "mglyph" or name == "malignmark") and self.names[-1] in _MATH_TEXT):
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
        self._implicit_ends(name, start)
        token = self.handler.opened(name, len(self.names), start, end, match)
        if name in VOID:
            self.handler.closed(name, token, end, end)
        else:
            self._push(name, token)
        return True

    def _close_select(self, name: str, at: int) -> bool:
        """End an open select that ``name`` cannot go into (table parts only when the select is in a table)."""
        depth = self._find_in_scope({"select"}, SCOPE)
        if depth <= 0 or (name in _TABLE_PARTS and "table" not in self.names[:depth]):
            return False
        self._pop_to(depth, at, at)
        return True

    def _implicit_ends(self, name: str, at: int) -> None:
        names = self.names
        if name in CLOSES_P:
            if name == "li" or name == "dd" or name == "dt":
                closing = ("li",) if name == "li" else ("dd", "dt")
                for depth in range(len(names) - 1, 0, -1):
                    here = names[depth]
                    if here in closing:
                        self._implied(at, keep=here)
                        self._pop_to(depth, at, at)
                        break
                    if here in SPECIAL and here not in ("address", "div", "p"):
                        break
            self._close_p(at)
            if name in HEADINGS and names[-1] in HEADINGS:
                self._pop_to(len(names) - 1, at, at)
            return
        closes = _TABLE_CLOSES.get(name)
        if closes is not None:
            lowest = -1
            for depth in range(len(names) - 1, 0, -1):
                if names[depth] in TABLE_SCOPE:
                    break
                if names[depth] in closes:
                    lowest = depth
            if lowest > 0:
                self._pop_to(lowest, at, at)
        elif name == "option" or name == "optgroup":
            if names[-1] == "option":
                self._pop_to(len(names) - 1, at, at)
            if name == "optgroup" and names[-1] == "optgroup":
                self._pop_to(len(names) - 1, at, at)
        elif name in ("rb", "rtc", "rp", "rt"):
            if self._find_in_scope({"ruby"}, SCOPE) > 0:
                self._implied(at, keep="rtc" if name in ("rp", "rt") else "")
        elif name == "a" or name == "nobr" or name == "button":
            depth = self._find_in_scope({name}, SCOPE)
            if depth > 0:
                self._pop_to(depth, at, at)

    def end(self, name: str, start: int, end: int) -> None:
        names = self.names
        if self.foreign and (name == "p" or name == "br"):
            # </p> and </br> break out of foreign content, then act as HTML end tags.
            while self.foreign:
                self._pop_to(len(names) - 1, start, start)
        if self.foreign or names[-1].startswith(("svg:", "math:")):
            for depth in range(len(names) - 1, 0, -1):
                here = names[depth]
                if not here.startswith(("svg:", "math:")):
                    break
                if here.partition(":")[2] == name:
                    self._pop_to(depth, start, end)
                    return
        if name in _IGNORED_END:
            return
        if name == "template":
            for depth in range(len(names) - 1, 0, -1):
                if names[depth] == "template":
                    self._pop_to(depth, start, end)
                    return
            return
        if name in HEADINGS:
            depth = self._find_in_scope(HEADINGS, SCOPE)
            if depth > 0:
                self._pop_to(depth, start, end)
            return
        boundary = _SCOPED_END.get(name)
        if boundary is not None:
            depth = self._find_in_scope({name}, boundary)
            if depth > 0:
                self._pop_to(depth, start, end)
            return
        if name in FORMATTING:
            # Adoption agency: found in scope even below special elements; the blocks inside stay open
            # and only the formatting element ends here.
            depth = self._find_in_scope({name}, SCOPE)
            if depth > 0 and any(n in SPECIAL for n in names[depth + 1 :]):
                del names[depth]
                token = self.tokens.pop(depth)
                self.handler.closed(name, token, start, end)
            elif depth > 0:
                self._pop_to(depth, start, end)
            return
        for depth in range(len(names) - 1, 0, -1):
            here = names[depth]
            if here == name:
                self._pop_to(depth, start, end)
                return
            if here in SPECIAL:
                return

    def finish(self, at: int) -> None:
        self._pop_to(1, at, at)


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
