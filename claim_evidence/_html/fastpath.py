"""Locate a page's evidence markup with a C HTML parser, to the character, or say it cannot be sure.

:func:`.locate.locate` runs the reference tokenizer and tree builder in Python over the whole page:
most of a cold page check. :func:`fast_locate` returns the same :class:`Located` (every claim
element, slot, summary slot, bundle script and stylesheet link, with the same spans and attributes,
no hidden markup, no frameset, no slot inside a link) from lexbor (selectolax's C parser of the HTML
standard) plus a few checks of the text in C, or None whenever it cannot be sure the reference would
find exactly that; the caller then runs :func:`.locate.locate`. The page checks run unchanged on
either (:func:`.._check.page.check_located`), so the fast path never decides a finding itself.

How it stays exact:

- **Which tags are elements.** Before lexbor parses the page, an attribute `` \ue001N`` is written
  right after the Nth evidence keyword (``data-claim-id`` …, where a name or value may end there).
  In a start tag it takes the keyword's value; in a comment, raw text, text or an attribute value it
  is more text. Attributes change nothing in tree construction here (pages with SVG or MathML, where
  some do, are left alone), so lexbor builds the page's own tree, and each claim element, slot and
  bundle script in it names the keyword, hence the start tag in the original text, it came from.
  That tag is read with the reference tokenizer's own pattern and must carry exactly lexbor's
  attributes (values decoded alike: a legacy entity or a CR in them gives up). Start tags the
  standard drops but the reference keeps (a nested ``<form>``, a ``<col>`` outside a table) must not
  carry a keyword; ``<link>`` tags must all be lexbor's links. Pages with a ``<frameset>`` tag are left
  to the reference, and so are pages with an ``<svg>``, ``<math>`` or ``<select>`` (any case, anywhere)
  other than a *simple island* (:func:`_islands`), where the reference models the standard only
  approximately.
- **Icons.** Themes (Material for MkDocs, furo) put inline SVG icons on every page. An island is an
  ``<svg>`` written in the strict tag shape, holding only SVG shape elements (``path``, ``g``,
  ``use`` …) and ``title``/``desc`` with text only, balanced up to its ``</svg>``, with no evidence
  keyword in it: no tag in it breaks out of foreign content or opens HTML content, so both parsers
  push what it opens, pop it at its end tags and leave the HTML around it as they found it. The same
  holds for a formula (``<math>`` with MathML layout elements, its token elements ``mi``, ``mo`` …
  holding text only) and a ``<select>`` whose options (text only, each with its end tag) sit in it or
  in an ``<optgroup>`` directly in it: in select both parsers pop what each end tag names.
- **Where each element ends.** An element's content up to the first end tag of its name must be in
  the strict tag shape of :mod:`.fastscan` and neutral (:func:`neutral`): phrasing for a claim
  element like ``<p>``; for a slot or a block claim element (``div``, ``li``, ``td`` …) also
  paragraphs, headings, lists and containers; comments that end at their first ``-->`` for every
  reader (no ``--`` in them) and inline scripts (which end where the reference's script-data rules end
  them, at a strict ``</script>``) anywhere in it. Such content pushes and pops only what it opens, so
  the reference builder closes the element exactly at that end tag. A bundle script ends where the
  reference's script-data rules end it.
- **Links.** A character ``\ue000`` is written right after each slot's start tag: lexbor re-opens any
  formatting element left on its list there (a link closed only implicitly: SH116), so the probe
  must be the slot's first child; and no slot, nor a claim element with a link in it, may sit inside
  an ``<a>``.
- **What lexbor need not read.** A slot's content (the rendered block, two fifths of a page's tags)
  that passes the slot's test before the parse, with no evidence keyword and no script in it, is left
  out of the text lexbor parses (:func:`_elided`): it would leave the parse where it found it. Every
  slot left out must then be one lexbor found, at the same start tag; else the page is read whole.

:func:`attempt` also says why it gave up (``static-helper --stats`` counts the reasons).

``tests/unit/html/test_fastpath.py`` compares :func:`fast_locate` with the reference on every HTML input the
tests know, the html5lib tree-construction corpus and random and mutated pages.

selectolax is an optional dependency: without it :func:`fast_locate` always returns None.
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_left, bisect_right
from typing import Any

from .fastlimits import too_hostile
from .fastscan import _ATTRS, CONTAINERS
from .locate import (
    BUNDLE_ID,
    CLAIM_ATTR,
    SLOT_ATTR,
    SUMMARY_ATTR,
    Element,
    Located,
    hidden_markup,
    keyword_offsets,
    might_have_markup,
    parse_attributes,
)
from .neutral import STRICT_TOKEN, VOIDS, island_end, stop
from .tokenizer import END_TAG, START_TAG, _script_end, lower

__all__ = ["NO_MARKUP", "UNAVAILABLE", "FastLocated", "attempt", "available", "fast_locate", "slot_ends_after"]

try:  # (imported by name: mypy must pass where the optional dependency is not installed)
    _lexbor: Any = importlib.import_module("selectolax.lexbor")
except ImportError:  # pragma: no cover - exercised where selectolax is missing
    _lexbor = None

MARK = "\ue001"  # the attribute name written after the Nth keyword: MARK + str(N)
PROBE = "\ue000"  # the text written after each slot's start tag
_KEYWORD = re.compile(r"(?i)data-claim-id|data-evidence-for|data-evidence-summary|claim-evidence-data")
_KINDS = {"data-claim-id": CLAIM_ATTR, "data-evidence-for": SLOT_ATTR, "data-evidence-summary": SUMMARY_ATTR}
_MARKABLE_AFTER = frozenset("\t\n\f\r />=\"'")
_MARK_NAME = re.compile(f"{MARK}([0-9]+)")
_MARK_IN_VALUE = re.compile(f" {MARK}([0-9]+)")
_ENDINGS = ("data-claim-id", "data-evidence-for", "data-evidence-summary", "claim-evidence-data")

# Start tags the standard drops in some places while the reference keeps them as elements.
_DROPPABLE = frozenset("col frame form noscript caption colgroup tbody td tfoot th thead tr".split())
_DROPPABLE_FIRST = frozenset(c for name in _DROPPABLE for c in (name[0], name[0].upper()))  # (as lower() folds)
# What the page is located by, and the elements whose content the reference models only approximately
# (foreign content, a select's): one traversal of lexbor's tree.
_SELECTOR = f"[{CLAIM_ATTR}],[{SLOT_ATTR}],[{SUMMARY_ATTR}],script,link"
# The start tags a page is routed by, found in one pass: a <frameset> (the standard takes it and drops the
# body; the reference judges whether it does conservatively), an <svg>, <math> or <select> (any case, as
# Unicode folds it: "<\u017fvg" too), where lexbor may open an SVG or MathML element, each of which must
# begin a simple island, and every <link>. The lookahead on the first letter (each name has its own) lets
# most '<' fail at once (a case-insensitive search tries every alternative at every '<').
_ROUTING = re.compile(r"<(?=[fFlLmMsS\u017f])(?:(?i:svg|math|select)|(?ai:frameset|link))(?=[\t\n\f\r />])")
# Elements whose end tag closes them when they are the current node, whose start tag ends nothing their
# content could reopen, and whose content may be blocks (a <p> in button scope is closed by their start tag,
# or out of reach behind a cell) or only phrasing (not: a, whose links the adoption agency re-parents;
# raw text; select, template, table parts other than cells).
BLOCK_OWNERS = CONTAINERS | {"li", "dd", "dt", "td", "th"}
PHRASING_OWNERS = frozenset(
    "p h1 h2 h3 h4 h5 h6 summary label span em strong b i small mark q cite abbr time u s code sub sup dfn kbd "
    "samp var".split()
)
_BACK = 8  # how many earlier '<' may open the tag a keyword is in (a '<' inside its quoted values)


def available() -> bool:
    """Whether the C parser is installed (``pip install selectolax``)."""
    return _lexbor is not None


_WS = "[\t\n\f\r ]"
# The name of the tag in the strict tag shape of fastscan (lowercase names; no '<' or '>' in attribute
# values) that a '<' starts, "/name" for an end tag; "" when it starts none. Such a tag holds no other
# '<', so content is in the strict shape (every '<' in it starts a tag that the reference tokenizer reads
# as this pattern does) exactly when no name found in it is "" (:func:`strict_names`).
_STRICT_NAME = re.compile(rf"<(/[a-z][a-z0-9]*+(?={_WS}*+>)|[a-z][a-z0-9]*+(?={_ATTRS})|)")
_SCRIPT_CLOSE = re.compile(rf"</script{_WS}*+>")
_NEUTRAL: dict[tuple[bool, tuple[str, ...]], bool] = {}
_NEUTRAL_MAX = 4096


def strict_names(text: str, start: int = 0, end: int | None = None) -> tuple[str, ...] | None:
    """The tag names (``"/x"`` an end tag) of ``text[start:end]``, in order, if it is in the strict tag
    shape; else None."""
    names = _STRICT_NAME.findall(text, start, len(text) if end is None else end)
    return None if "" in names else tuple(names)


def neutral(names: tuple[str, ...], block: bool) -> bool:
    """Whether content with these tags (``"/x"`` an end tag), in the strict shape, pushes and pops only
    what it opens in the reference builder, in a current node that is a container slot (``block``; no
    ``<p>`` open in button scope) or a claim element (phrasing only), with no ``<a>`` open or listed:
    every end tag closes the element on top, every start tag ends nothing (see :mod:`.fastscan`)."""
    key = (block, names)
    known = _NEUTRAL.get(key)
    if known is None:
        known = stop(names, block) < 0
        if len(_NEUTRAL) >= _NEUTRAL_MAX:
            _NEUTRAL.clear()
        _NEUTRAL[key] = known
    return known


class FastLocated(Located):
    """A :class:`Located` whose positions are counted on demand instead of indexing every line."""

    def position(self, offset: int) -> tuple[int, int]:
        crlf = self.__dict__.get("_crlf")
        if crlf is None:
            crlf = self.__dict__["_crlf"] = "\r" in self.text
        if self._lines is None and not crlf:
            # Counted on from the offset asked before when this one lies after it: a page's findings are
            # placed in document order, so all of them count the text's line breaks once, not each.
            at, breaks = self.__dict__.get("_counted", (0, 0))
            if offset < at:
                at = breaks = 0
            breaks += self.text.count("\n", at, offset)
            self.__dict__["_counted"] = (offset, breaks)
            line_start = self.text.rfind("\n", 0, offset) + 1
            return breaks + 1, offset - line_start + 1
        return super().position(offset)


def fast_locate(text: str) -> Located | None:
    """What :func:`.locate.locate` finds in ``text``, or None when the fast path cannot be sure (or the
    page has no evidence markup, or selectolax is not installed): then call ``locate``."""
    return attempt(text)[0]


# Why the fast path left a page to the reference (the second item of :func:`attempt`; ``static-helper
# --stats`` counts them). NO_MARKUP is no fallback: the reference's keyword filter answers such pages.
NO_MARKUP = "no evidence markup"
UNAVAILABLE = "selectolax not installed"


def attempt(text: str) -> tuple[Located | None, str]:
    """``(fast_locate(text), "")``, or ``(None, why)`` when the fast path gives up: a short stable phrase
    naming the shape it could not prove (``"claim content: comment"``, ``"svg not a simple island"`` …)."""
    if _lexbor is None:
        return None, UNAVAILABLE
    left_out: dict[int, Element] = {}
    located, why = _attempt(text, left_out)
    if located is None and left_out:
        # (A tag in a comment or an attribute value that spells a slot was left out of what lexbor read,
        # or some other doubt arose after it: the page read whole decides, as before slots were left out.)
        located, why = _attempt(text, None)
    return located, why


def _attempt(text: str, left_out: dict[int, Element] | None) -> tuple[Located | None, str]:
    """:func:`attempt`, lexbor reading the page without the slots' contents it need not read (:func:`_elided`,
    put in ``left_out``), or whole when ``left_out`` is None."""
    keywords = keyword_offsets(text)
    marks = _marks(text, keywords)
    if marks is None:
        return None, NO_MARKUP if not keywords else "keyword spelling, mark or frameset"
    routing = _routing(text)
    if routing is None:
        return None, "keyword spelling, mark or frameset"
    foreign, link_starts = routing
    islands = _islands(text, foreign)
    if islands is None:
        return None, "svg, math or select not a simple island"
    if any(start <= at < end for at, _ in marks for start, end in islands):
        return None, "evidence keyword inside svg"
    tags = _slot_tags(text, marks)
    elided: dict[int, Element] = {}
    if left_out is not None:
        elided = _elided(text, tags, keywords)
        left_out.update(elided)
    marked = _marked(text, marks, tags, elided)
    if too_hostile(marked):
        return None, "too many attributes or too deep"
    parser = _lexbor.LexborHTMLParser(marked)
    nodes = parser.css(_SELECTOR)
    if not nodes:
        return None, NO_MARKUP
    located = FastLocated(text)
    used: set[int] = set()
    pending: list[tuple[str, Element, Any]] = []  # (role, element, node) in tree order
    lexbor_links: list[dict[str, str]] = []
    for node in nodes:
        unmarked = _unmark(node.attributes)
        if unmarked is None:
            return None, "attribute values"
        attrs, indexes = unmarked
        if used.intersection(indexes):
            return None, "cloned formatting element"  # (the adoption agency copies them with their attributes)
        used.update(indexes)
        role = _role(node.tag, attrs)
        if role is None:
            if node.tag == "script" and _bundle_id_dropped(attrs):
                return None, "attribute values"
            continue
        if role == "?":
            return None, "element with two roles"
        if role == "link":
            if indexes:
                return None, "evidence keyword on a link"
            lexbor_links.append(attrs)
            continue
        if not indexes:
            return None, "keyword written with a character reference"
        element = _element(text, node.tag, attrs, [marks[i][0] for i in indexes])
        if element is None:
            return None, "start tag read otherwise"
        pending.append((role, element, node))
    if any(_droppable(text, marks[i]) for i in range(len(marks)) if i not in used):
        return None, "keyword in a start tag the standard may drop"
    links = _links(text, link_starts, lexbor_links)
    if links is None:
        return None, "link elements"
    located.links = links
    pending.sort(key=lambda item: item[1].start)
    # Every slot lexbor read without its content must be one it found: then the text before each such
    # slot, hence where the parse stood at its start tag, was the page's own, and the content, neutral
    # from there, left the parse as it found it (:func:`_elided`). Else the page is read whole.
    found = [e for role, e, _ in pending if role != CLAIM_ATTR and role != "script" and e.open_end in elided]
    if len(found) != len(elided) or any(elided[e.open_end].start != e.start for e in found):
        return None, "content left out of a tag that is no slot"
    ends = _Ends(text)
    for role, element, node in pending:
        done = (
            ends.script(element)
            if role == "script"
            else ends.claim(element, node)
            if role == CLAIM_ATTR
            else ends.slot(element, node, elided.get(element.open_end))
        )
        if done is None:
            kind = {"script": "bundle script", CLAIM_ATTR: "claim", SLOT_ATTR: "slot"}.get(role, "summary slot")
            return None, f"{kind} <{element.name}>: {ends.why}"
        if role == "script":
            located.scripts.append(done)
        elif role == CLAIM_ATTR:
            located.claims.append(done)
        elif role == SLOT_ATTR:
            located.slots.append(done)
        else:
            located.summaries.append(done)
    if not located.has_markup:
        # No evidence element, and every keyword checked above to be where both parsers see none (text,
        # a comment, raw text, an attribute value): what the reference reports then is whether markup
        # is written as a tag where no element comes of it (SH104), by the same search.
        located.hidden = hidden_markup(text)
    return located, ""


def _routing(text: str) -> tuple[list[int], list[int]] | None:
    """Where each ``<svg>``, ``<math>`` or ``<select>`` start tag and each ``<link>`` start tag of
    ``text`` begins (:data:`_ROUTING`), in order; None when it has a ``<frameset>`` tag. The names
    differ in their first letter, so that letter says which of them a match is."""
    foreign: list[int] = []
    links: list[int] = []
    for found in _ROUTING.finditer(text):
        at = found.start()
        first = text[at + 1]
        if first in "lL":
            links.append(at)
        elif first in "fF":
            return None
        else:
            foreign.append(at)
    return foreign, links


def _islands(text: str, starts: list[int]) -> list[tuple[int, int]] | None:
    """The span of every ``<svg>`` element of ``text`` written as a simple island (see the module's
    docstring), in order; None when some ``<svg>``, ``<math>`` or ``<select>`` start tag (any case, at
    ``starts``: :func:`_routing`) begins none.

    An island where no element comes of it (in a comment, raw text or an attribute value) changes
    nothing: lexbor then opens no SVG element there either."""
    islands: list[tuple[int, int]] = []
    for start in starts:
        if islands and start < islands[-1][1]:
            continue  # an <svg> inside the island just read
        end = island_end(text, start)
        if end is None:
            return None
        islands.append((start, end))
    return islands


def slot_ends_after(text: str, slot: Element, content_end: int) -> bool:
    """Whether ``text[slot.open_end:content_end]``, written as the content of ``slot`` (a slot or summary
    slot :func:`fast_locate` located, at its place in ``text``), ends exactly there for the reference
    builder, by the test :func:`fast_locate` ends every slot by: content in the strict tag shape,
    neutral for a container slot, no evidence keyword (no element comes of it), the slot's end tag
    right after it. On a page whose every other character is what :func:`fast_locate` read, the parse
    then reaches the slot's start tag in the state it was in, leaves it in the state it was in, and
    every element outside the slot is where it was (``Page.rendered_text``'s proof)."""
    if slot.name not in BLOCK_OWNERS or content_end < slot.open_end:
        return False
    content = text[slot.open_end : content_end]
    if MARK in content or PROBE in content or might_have_markup(content):
        return False
    done = _Ends(text)._neutral_content(slot, True)
    return done is not None and done.close_start == content_end


def _marks(text: str, offsets: list[int] | None = None) -> list[tuple[int, str]] | None:
    """``(offset, keyword)`` of every keyword occurrence that gets a mark; None to give up. ``offsets``:
    :func:`.locate.keyword_offsets` of ``text``, when the caller has them."""
    offsets = keyword_offsets(text) if offsets is None else offsets
    if not offsets or MARK in text:
        return None
    marks: list[tuple[int, str]] = []
    last_end = -1
    for at in offsets:
        match = _KEYWORD.match(text, at)
        if match is None or not match.group().isascii() or at < last_end:
            return None  # (a non-ASCII letter that case-folds to the keyword's; overlapping keywords)
        last_end = match.end()
        after = text[last_end : last_end + 1]
        if after == "" or after in _MARKABLE_AFTER:
            marks.append((at, match.group().lower()))
    return marks


_SLOT_KEYWORDS = ("data-evidence-for", "data-evidence-summary")
_SCRIPT_TAG = re.compile("(?i)<script")


def _slot_tags(text: str, marks: list[tuple[int, str]]) -> dict[int, re.Match[str]]:
    """The start tag each slot keyword is in, as the reference's pattern reads it from the last ``<``
    before the keyword (none when that tag does not hold it), by where the tag ends."""
    tags: dict[int, re.Match[str]] = {}
    lt, since, tag = -1, 0, None
    for at, keyword in marks:
        if keyword in _SLOT_KEYWORDS:
            # (The last '<' before this keyword is after the one before, or the same: each '<' is looked
            # for once, and its tag read once, however many keywords one attribute value holds.)
            nearer = text.rfind("<", since, at)
            since = at
            if nearer >= 0:
                lt = nearer
                tag = START_TAG.match(text, lt)
            if tag is not None and tag.end() > at:
                tags.setdefault(tag.end(), tag)
    return tags


def _elided(text: str, tags: dict[int, re.Match[str]], keywords: list[int]) -> dict[int, Element]:
    """The slots (by where their start tag ends) whose content lexbor need not read: content the test
    every slot is ended by proves neutral before the parse (:meth:`_Ends.slot`: in the strict tag shape,
    pushing and popping only what it opens, ended by the slot's end tag), with no evidence keyword
    (``keywords``: where every one is) and no script in it, each with the end it proved.

    Such content leaves every parser where it found it at the slot's end tag (the open elements, the
    formatting elements, the insertion mode; a page with a ``<frameset>`` never gets here), so lexbor
    builds the same tree around the slot without it, and the slot's own test reads only the probe
    before the content (:meth:`_Ends.slot`). What lexbor finds in it that would matter is an evidence
    element (a keyword names each, but a bundle script's id may be written with a character reference:
    hence no script) or a ``<link>`` (:func:`_links` compares them with the text's). That holds where the
    tag is a slot lexbor finds, which :func:`attempt` makes sure of after the parse. The rendered blocks
    are some two fifths of a page's tags: lexbor's parse, the hostile-input bound and the selection read
    that much less."""
    ends = _Ends(text)
    found: dict[int, Element] = {}
    tag_ends = sorted(tags)
    for end, tag in tags.items():
        if text.startswith("</", end):
            continue  # (empty, as a page not yet rendered has it: nothing to leave out)
        name = lower(tag.group(1))
        if name not in BLOCK_OWNERS:
            continue
        # The content may hold no keyword, so the test reads no further than the first one after the
        # start tag: the parts read for different slots do not overlap (nested slots cost no more than
        # side by side), and this runs before the hostile-input bound, on all of a page.
        inside = bisect_left(keywords, end)
        limit = keywords[inside] if inside < len(keywords) else len(text)
        done = ends._neutral_content(Element(name, {}, tag.start(), end, end, end), True, limit)
        if done is None or _SCRIPT_TAG.search(text, end, done.close_start) is not None:
            continue
        # (Another slot keyword's tag may end in it, where a quote in this tag's attributes, read from
        # that keyword's '<', pairs otherwise: its probe would be written into what is left out. No mark
        # can be: no keyword is in it.)
        after = bisect_right(tag_ends, end)
        if after == len(tag_ends) or tag_ends[after] > done.close_start:
            found[end] = done
    return found


def _marked(text: str, marks: list[tuple[int, str]], tags: dict[int, re.Match[str]], elided: dict[int, Element]) -> str:
    """``text`` with a mark attribute after each marked keyword, and a probe after each slot keyword's
    start tag (``tags``: :func:`_slot_tags`), without the content of the ``elided`` slots (:func:`_elided`:
    no keyword, hence no mark or probe, is inside one)."""
    inserts = [(at + len(keyword), f" {MARK}{index}") for index, (at, keyword) in enumerate(marks)]
    inserts += [(end, PROBE) for end in tags]
    inserts.sort(key=lambda insert: insert[0])
    pieces = []
    pos = 0
    for at, piece in inserts:
        pieces.append(text[pos:at])
        pieces.append(piece)
        slot = elided.get(at) if piece == PROBE else None
        pos = at if slot is None else slot.close_start
    pieces.append(text[pos:])
    return "".join(pieces)


def _unmark(items: dict[str, str | None]) -> tuple[dict[str, str], list[int]] | None:
    """lexbor's attributes as the original tag has them (first of duplicates), and the marks they held."""
    attrs: dict[str, str] = {}
    indexes: list[int] = []
    previous: tuple[str, str | None] | None = None
    for name, raw in items.items():
        mark = None
        if MARK in name:  # (only a mark's name holds one: no regex for the page's own names)
            mark = _MARK_NAME.fullmatch(name)
            if mark is None:
                return None
        value = raw
        if value is not None and MARK in value:
            indexes += [int(found) for found in _MARK_IN_VALUE.findall(value)]
            value = _MARK_IN_VALUE.sub("", value)
            if MARK in value:
                return None
        if mark is not None:
            if previous is None:
                return None
            before, before_value = previous
            if before in _KINDS.values() and before_value is None:
                attrs[before] = value if value is not None else ""  # the keyword's value, moved by the mark
            elif before_value is None or value is not None or not before_value.lower().endswith(_ENDINGS):
                return None  # (an unquoted value that ends with a keyword is the other place for a mark)
            indexes.append(int(mark.group(1)))
            previous = None
            continue
        attrs[name] = value if value is not None else ""
        previous = (name, raw)
    return attrs, indexes


def _role(tag: str, attrs: dict[str, str]) -> str | None:
    """What the reference records the element as; None when it records nothing, ``"?"`` when the element
    has more than one role (left to the reference)."""
    roles = [r for r in (CLAIM_ATTR, SLOT_ATTR, SUMMARY_ATTR) if r in attrs]
    if tag == "script" and attrs.get("id") == BUNDLE_ID:
        roles.append("script")
    if tag == "link":
        roles.append("link")
    if len(roles) > 1:
        return "?"
    return roles[0] if roles else None


def _bundle_id_dropped(attrs: dict[str, str]) -> bool:
    """Whether the reference might read the ``id`` of a script, not the bundle's for lexbor, as the
    bundle's: ``html.unescape`` drops what some numeric character references stand for (``&#1;``,
    ``&#x7f;``, ``&#xfdd0;`` …) where lexbor keeps it, and every such character is outside printable
    ASCII (other references that decode otherwise decode to no letter of the name, nor to nothing)."""
    value = attrs.get("id")
    return value is not None and value != BUNDLE_ID and _NOT_PRINTABLE_ASCII.sub("", value) == BUNDLE_ID


_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")


def _element(text: str, tag: str, attrs: dict[str, str], offsets: list[int]) -> Element | None:
    """The start tag (in ``text``) that the keywords at ``offsets`` are in, read as the reference reads it;
    None unless it is lexbor's element, ``tag`` with ``attrs``. Its end is filled in later."""
    first = min(offsets)
    lt = text.rfind("<", 0, first)
    match = START_TAG.match(text, lt) if lt >= 0 else None
    if match is None or match.end() <= max(offsets) or lower(match.group(1)) != tag:
        return None
    if parse_attributes(match.group(2)) != attrs:
        return None
    self_closing = match.group(0).endswith("/>") and match.end(2) < match.end() - 1
    return Element(tag, attrs, lt, match.end(), match.end(), match.end(), self_closing)


def _droppable(text: str, mark: tuple[int, str]) -> bool:
    """Whether the keyword at ``mark`` might be in a start tag that lexbor drops but the reference keeps."""
    at, keyword = mark
    lt = at
    for _ in range(_BACK):
        lt = text.rfind("<", 0, lt)
        if lt < 0:
            return False
        if text[lt + 1 : lt + 2] not in _DROPPABLE_FIRST:
            continue  # (START_TAG's name starts right after the '<': no droppable name starts so)
        match = START_TAG.match(text, lt)
        if match is not None and match.end() > at and lower(match.group(1)) in _DROPPABLE:
            return True
    return False


def _links(text: str, starts: list[int], lexbor_links: list[dict[str, str]]) -> list[Element] | None:
    """Every ``<link>`` start tag in the text (at ``starts``: :func:`_routing`), if each is one of
    lexbor's link elements, in order."""
    found = []
    for start in starts:
        match = START_TAG.match(text, start)
        if match is None:
            return None
        attrs = parse_attributes(match.group(2))
        self_closing = match.group(0).endswith("/>") and match.end(2) < match.end() - 1
        found.append(Element("link", attrs, match.start(), match.end(), match.end(), match.end(), self_closing))
    if [e.attrs for e in found] != lexbor_links:
        return None
    return found


def _in_link(node: Any) -> bool:
    """Whether lexbor has ``node`` inside an ``<a>``."""
    up = node.parent
    while up is not None:
        if up.tag == "a":
            return True
        up = up.parent
    return False


class _Ends:
    """Where the reference builder ends each kind of element, when the content allows no doubt; ``why``
    says what it doubted when it gives up."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.why = ""

    def _fail(self, why: str) -> None:
        self.why = why

    def _closed(self, element: Element, content_end: int) -> Element | None:
        end = END_TAG.match(self.text, content_end)
        if end is None or lower(end.group(1)) != element.name:
            self._fail("end tag not of its name")
            return None
        e = element
        return Element(e.name, e.attrs, e.start, e.open_end, content_end, end.end(), e.self_closing)

    def _neutral_content(self, element: Element, block: bool, limit: int | None = None) -> Element | None:
        """The element ended by the end tag of its name that closes it, if what lies before is neutral
        (and that end tag starts before ``limit``: none read past it)."""
        text, start = self.text, element.open_end
        close = text.find(f"</{element.name}", start, len(text) if limit is None else limit)
        strict = strict_names(text, start, close) if close >= 0 else None
        if strict is not None:
            names = strict
            if element.name in names or "script" in names:  # (that end tag was the nested one's, or raw text)
                found = self._walk(element, limit)
                if found is None:
                    return None
                close, names = found
        else:  # (comments and scripts in it, or no strict shape: read tag by tag)
            found = self._walk(element, limit)
            if found is None:
                return None
            close, names = found
        if not neutral(names, block):
            self._fail(f"content not neutral ({_shown(names, block)})")
            return None
        return self._closed(element, close)

    def _walk(self, element: Element, limit: int | None = None) -> tuple[int, tuple[str, ...]] | None:
        """Where the tags after ``element``'s start first close more than they opened, and those tags
        (a comment in the strict shape left out, an inline script as ``script``, ``/script``); no tag
        starting at or after ``limit`` is read."""
        text = self.text
        limit = len(text) if limit is None else limit
        names: list[str] = []
        depth = 0
        pos = element.open_end
        while True:
            lt = text.find("<", pos, limit)
            if lt < 0:
                self._fail("no end tag")
                return None
            tag = STRICT_TOKEN.match(text, lt)
            assert tag is not None  # (the pattern's last branch is "<")
            end, start = tag.group(1), tag.group(2)
            pos = tag.end()
            if end is not None:
                if depth == 0:
                    if end == element.name:
                        return lt, tuple(names)
                    self._fail(f"</{end}> closes what it did not open")
                    return None
                depth -= 1
                names.append("/" + end)
            elif start == "script":
                script = self._script(tag, limit)
                if script is None:
                    return None
                names += ["script", "/script"]
                pos = script
            elif start is not None:
                depth += start not in VOIDS
                names.append(start)
            elif pos - lt == 1:
                self._fail(f"markup not in the strict shape ({text[lt : lt + 12]!r})")
                return None

    def _script(self, tag: re.Match[str], limit: int) -> int | None:
        """Where an inline ``<script>`` started by ``tag`` (strict) ends, after its strict end tag (read
        no further than ``limit``)."""
        if tag.group(0).endswith("/>"):
            self._fail("self-closing <script/>")
            return None
        close = _script_end(self.text, tag.end(), limit)
        end = _SCRIPT_CLOSE.match(self.text, close) if close is not None else None
        if end is None:
            self._fail("inline script not ended in the strict shape")
            return None
        return end.end()

    def claim(self, element: Element, node: Any) -> Element | None:
        if element.name not in BLOCK_OWNERS and element.name not in PHRASING_OWNERS:
            self._fail("element that may not own a claim")
            return None
        done = self._neutral_content(element, element.name in BLOCK_OWNERS)
        if done is not None and self.text.find("<a", done.open_end, done.close_start) >= 0 and _in_link(node):
            self._fail("link inside a link")
            return None  # (a link in it would end that one: the adoption agency)
        return done

    def slot(self, element: Element, node: Any, proved: Element | None = None) -> Element | None:
        """``proved``: the slot as :func:`_elided` ended it before the parse (lexbor read no content; the
        same start tag, as :func:`_attempt` made sure)."""
        if element.name not in BLOCK_OWNERS:
            self._fail("element that may not own a slot")
            return None
        first = node.first_child
        if first is None or not first.is_text_node or not (first.text_content or "").startswith(PROBE):
            self._fail("formatting re-opened or content moved")
            return None  # lexbor re-opened a formatting element here, or put the slot's content elsewhere
        if _in_link(node):
            self._fail("inside a link")
            return None  # (its own links would end that one: the adoption agency)
        if proved is not None:
            e = element
            return Element(e.name, e.attrs, e.start, e.open_end, proved.close_start, proved.end, e.self_closing)
        return self._neutral_content(element, True)

    def script(self, element: Element) -> Element | None:
        close = _script_end(self.text, element.open_end, len(self.text))
        if close is None:
            self._fail("not ended")
            return None
        return self._closed(element, close)


def _shown(names: tuple[str, ...], block: bool) -> str:
    """The first tag of some content that is not neutral, for a reason (``<x>``, ``</x>``, or an element
    left open)."""
    at = stop(names, block)
    return "an element left open" if at >= len(names) else f"<{names[at]}>"
