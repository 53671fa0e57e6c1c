"""Which tags push and pop only what they open: the one model of neutral markup the fast readers share.

The fast path (:mod:`.fastpath`) proves where a claim element or a slot ends by showing that its content
is *neutral*: in the reference tree builder, every start tag in it ends nothing and every end tag closes
the element on top, so the builder leaves the stack as it found it and the element's own end tag closes
it. The visible-text reader (:mod:`.fasttext`) accepts the same phrasing elements, and the head reader
(:mod:`.relocate`) reads a page's body up to its evidence by the same rules: content between two of its
line breaks that is neutral leaves the builder where it was, whatever it is. The rules are conservative
(``<li><div>`` is neutral in the standard and refused here); ``tests/unit/html/test_fastpath.py`` and
``tests/unit/html/test_relocate.py`` compare every reading that relies on them with the reference.
"""

from __future__ import annotations

import re

from .elements import HEADINGS
from .fastscan import _ATTRS, _WS, CONTAINERS, INLINE

__all__ = ["BLOCKS_OK", "LEAVES", "LISTS", "PHRASING", "RUBY_TEXT", "STRICT_TOKEN", "VOIDS", "opens", "stop"]

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
