"""Which tags push and pop only what they open: the one model of neutral markup the fast readers share.

The fast path (:mod:`.fastpath`) proves where a claim element or a slot ends by showing that its content
is *neutral*: in the reference tree builder, every start tag in it ends nothing and every end tag closes
the element on top, so the builder leaves the stack as it found it and the element's own end tag closes
it. A *simple island* (an icon, a formula, a select: :func:`island_end`) leaves both parsers as it found
them. The visible-text reader (:mod:`.fasttext`) accepts the same phrasing elements, and the head reader
(:mod:`.relocate`) reads a page's body up to its evidence by these rules and a few of its own (only the
reference builds there: no lexbor tree must match). The rules are conservative (``<li><div>`` is neutral
in the standard and refused here); ``tests/unit/html/test_fastpath.py`` and
``tests/unit/html/test_relocate.py`` compare every reading that relies on them with the reference.
"""

from __future__ import annotations

import re

from .elements import HEADINGS
from .fastscan import _ATTRS, _WS, CONTAINERS, INLINE
from .tokenizer import START_TAG

__all__ = [
    "BLOCKS_OK",
    "LEAVES",
    "LISTS",
    "PHRASING",
    "RUBY_TEXT",
    "STRICT_TOKEN",
    "VOIDS",
    "island_end",
    "opens",
    "stop",
]

# A tag of the strict shape of :mod:`.fastscan` (lowercase names, no '<' or '>' in attribute values: the
# reference tokenizer reads it as this pattern does), its end name in group 1 and its start name in group 2;
# a comment that ends at its first "-->" for every reader (no "--" in it, not "<!-->" nor "<!--->"); or any
# other '<' (which the readers give up on).
STRICT_TOKEN = re.compile(
    rf"</([a-z][a-z0-9]*+){_WS}*+>|<([a-z][a-z0-9]*+){_ATTRS}|<!--(?!-?>)(?>(?:[^-]++|-(?!-))*)-->|<"
)

VOIDS = frozenset({"br", "img", "wbr"})
PHRASING = INLINE | {"a", "ruby"}
RUBY_TEXT = frozenset({"rt", "rp"})  # (in a ruby whose rt/rp are closed: their start then ends nothing)
LEAVES = frozenset({"p", "pre", "summary"}) | HEADINGS
LISTS = frozenset({"ul", "ol"})
BLOCKS_OK = CONTAINERS | {""}  # "": the element whose content is read (a container, or the body)


def opens(name: str, stack: list[str]) -> bool:
    """Whether a start tag of ``name`` (no void element's) pushes an element and ends nothing, over
    ``stack`` (the open elements from the one whose content is read, ``""`` for a container or the body,
    ``"span"`` for phrasing only): no ``<p>`` can then be open in button scope, no heading on top, no
    ``<li>`` open in list item scope, no ``<a>`` open or listed."""
    top = stack[-1]
    if name in PHRASING:
        return name != "a" or "a" not in stack
    if name in LEAVES or name in LISTS or name in CONTAINERS:
        # (a leaf's start closes a p in button scope, a heading a heading on top: neither is open)
        return top in BLOCKS_OK or (top == "li" and name in LEAVES)
    if name == "li":
        return top in LISTS  # (its search for an open li stops at the list)
    if name in RUBY_TEXT:
        return top == "ruby"
    # (in body, a script's start tag ends nothing; its content is raw text, its end tag pops it)
    return name == "script"


def stop(names: tuple[str, ...], block: bool) -> int:
    """-1 when content with these tags (``"/x"`` an end tag) is neutral in a container (``block``) or in
    phrasing, else the index of the first tag that is not (``len(names)``: some element left open)."""
    stack = [""] if block else ["span"]
    for at, name in enumerate(names):
        if name[0] == "/":
            if len(stack) == 1 or stack[-1] != name[1:]:
                return at
            stack.pop()
            continue
        if name in VOIDS:
            continue
        if not opens(name, stack):
            return at
        stack.append(name)
    return -1 if len(stack) == 1 else len(names)


# What a simple island may hold: SVG elements that neither break out of foreign content (as <b>, <p> or
# <font color> do) nor are HTML integration points, and whose content is parsed as elements, not text.
_ISLAND = frozenset("svg g path circle ellipse line polyline polygon rect use symbol defs".split())
_TEXT_ONLY = frozenset({"title", "desc"})  # integration points: text only, no tag, in an island
# A formula: MathML layout elements (no semantics/annotation-xml, no mglyph/malignmark), its token
# elements (text integration points) with text only.
_MATH_ISLAND = frozenset(
    "math mrow mfrac msqrt mroot msup msub msubsup munder mover munderover mtable mtr mtd mstyle mpadded "
    "mphantom menclose mspace".split()
)
_MATH_TEXT_ONLY = frozenset("mi mo mn ms mtext".split())
# A select: options (text only) in it or in an optgroup directly in it, every end tag written.
_SELECT_ISLAND = frozenset({"optgroup"})  # (a select in a select ends it)
_SELECT_TEXT_ONLY = frozenset({"option"})
_ISLANDS = {
    "svg": (_ISLAND, _TEXT_ONLY),
    "math": (_MATH_ISLAND, _MATH_TEXT_ONLY),
    "select": (_SELECT_ISLAND, _SELECT_TEXT_ONLY),
}
_STRICT_TAG = re.compile(rf"</([a-z][a-z0-9]*+){_WS}*+>|<([a-z][a-z0-9]*+){_ATTRS}|<")


def island_end(text: str, start: int) -> int | None:
    """Where the simple island that starts at ``start`` ends (after its ``</svg>``, ``</math>`` or
    ``</select>``), or None.

    A simple island (an icon, a formula, a select) is an ``<svg>`` written in the strict tag shape, holding
    only SVG shape elements (``path``, ``g``, ``use`` …) and ``title``/``desc`` with text only, balanced up to
    its ``</svg>``; or a ``<math>`` of MathML layout elements, its token elements (``mi``, ``mo`` …) with
    text only; or a ``<select>`` whose options (text only, each with its end tag) sit in it or in an
    ``<optgroup>`` directly in it. No tag in it breaks out of foreign content or opens HTML content, so
    the reference builder (and lexbor, :mod:`.fastpath`) pushes what it opens, pops it at its end tags and
    leaves the HTML around it as it found it."""
    stack: list[str] = []
    text_only = False  # in a title or desc (mi, mo …; option): only its own end tag may follow
    holds: frozenset[str] = frozenset()
    only: frozenset[str] = frozenset()
    root = ""
    for tag in _STRICT_TAG.finditer(text, start):
        end_name, start_name = tag.group(1), tag.group(2)
        if end_name is not None:
            if not stack or stack[-1] != end_name:
                return None
            stack.pop()
            text_only = False
            if not stack:
                return tag.end()
            continue
        if start_name is None or text_only:
            return None  # a '<' of no strict tag (a comment, CDATA), or a tag in text-only content
        if not stack:
            if start_name not in _ISLANDS:
                return None
            holds, only = _ISLANDS[start_name]
            root = start_name
        elif start_name not in holds and start_name not in only:
            return None  # an element the island may not hold
        if root == "select":
            if tag.group(0).endswith("/>") or (start_name == "optgroup" and stack != ["select"]):
                return None  # (HTML: the flag is ignored; an optgroup in an optgroup ends it)
        elif tag.group(0).endswith("/>") and _self_closing(text, tag.start(), tag.end()):
            if not stack:
                return tag.end()  # <svg …/>: foreign content acknowledges the self-closing flag
            continue
        stack.append(start_name)
        text_only = start_name in only
    return None


def _self_closing(text: str, start: int, end: int) -> bool:
    """Whether the strict start tag ``text[start:end]``, written ``…/>``, has the self-closing flag: its
    ``/`` is not the last character of an unquoted value (read by the reference tokenizer's pattern)."""
    reference = START_TAG.match(text, start)
    return reference is not None and reference.end() == end and reference.end(2) < end - 1
