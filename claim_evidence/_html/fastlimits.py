"""Which pages the fast path leaves to the reference reader because lexbor would take too long on them.

lexbor (the C parser behind :mod:`.fastpath`) is quadratic where the reference reader is linear, so a
hostile page could cost more on the fast path than on the slow one. :func:`too_hostile` is the cheap
test made before lexbor parses a page; it only routes pages, it never decides what a page holds.
"""

from __future__ import annotations

import re
from itertools import accumulate
from operator import sub

# lexbor is quadratic in the attributes of one tag (100,000 took 13 s) and in the depth of the tree
# (20,000 nested <div> took 4 s); the reference reader is linear in both, so such pages go to it. Both
# tests are cheap estimates made in C; exactness never depends on them, only lexbor's time does. The
# attribute count is an over-estimate; the depth one is not: end tags that close nothing (``</span>``
# between nested ``<div>``) lower it while lexbor's tree stays as deep, and such a page still costs lexbor
# quadratic time (a count per tag name would take a Python loop per tag, half a lexbor parse).
ATTRIBUTE_LIMIT = 1000
DEPTH_LIMIT = 1024
_WS_CLASS = "\t\n\f\r "
# ATTRIBUTE_LIMIT attributes after a tag name, as the standard's tokenizer splits them (a name may start
# with "=" and follow a quoted value directly; an unterminated quote is read as more attributes).
_MANY_ATTRIBUTES = re.compile(
    rf"""<[A-Za-z][^{_WS_CLASS}/>]*+(?>(?:[{_WS_CLASS}/]*+[^{_WS_CLASS}/>][^{_WS_CLASS}/>=]*+"""
    rf"""(?>(?:[{_WS_CLASS}]*+=[{_WS_CLASS}]*+(?:"[^"]*+"|'[^']*+'|[^{_WS_CLASS}>]*+))?)){{{ATTRIBUTE_LIMIT}}})"""
)
# Start and end tags that may deepen the tree: not void elements, nor those whose start tag mostly closes
# the previous one (p, li, cells, rows, options …), which would count a long flat list as deep.
_SHALLOW = (
    "area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|keygen|basefont|bgsound|frame"
    "|p|li|dt|dd|td|th|tr|tbody|thead|tfoot|caption|colgroup|option|optgroup|rb|rt|rp|rtc|html|head|body"
)
_DEEPENING = re.compile(rf"<(/?)(?!(?ai:{_SHALLOW})[{_WS_CLASS}/>])[A-Za-z]")
_STEP = {"": 1, "/": -1}


def too_hostile(text: str) -> bool:
    """Whether lexbor might take long on ``text``: a tag with ATTRIBUTE_LIMIT attributes or more, or
    more than DEPTH_LIMIT elements open at once (see :func:`_deep`)."""
    return _MANY_ATTRIBUTES.search(text) is not None or (_maybe_deep(text) and _deep(text))


_BLOCK = 8192


def _maybe_deep(text: str) -> bool:
    """A first bound in a few ``str.count`` calls: every ``<`` not before ``/`` counts as a start tag,
    and within each block of text the lowest and highest levels are bounded by its end and start tags
    (almost every page is cleared here; the finer :func:`_deep` costs about half a lexbor parse).

    It is no bound for :func:`_deep`: it counts every end tag as a close, so end tags that :func:`_deep`
    leaves out (``</p>``, ``</li>`` …, which close nothing there) lower its level while that of
    :func:`_deep` stays. A block of ``<div>`` x520, then blocks of ``<div></p>`` x400 each (the level
    here stays at 520, every block's highest at 920) reach 20,520 for :func:`_deep` in 51 blocks (418 KB)
    and are cleared here; lexbor builds that depth (a ``</p>`` with no ``<p>`` open inserts an empty
    one). A sound bound needs a lower bound on the deepening end tags of each block, which ``str.count``
    cannot give without a count per shallow name (or first letter: nearly every letter), and then every
    page goes on to :func:`_deep`; the gap costs lexbor's time on such a page, never exactness."""
    level = lowest = 0
    count = text.count
    for at in range(0, len(text), _BLOCK):
        ends = count("</", at, at + _BLOCK)  # (a "</" across the block's end counts as a start: higher)
        starts = count("<", at, at + _BLOCK) - ends
        lowest = min(lowest, level - ends)
        if level + starts - lowest > DEPTH_LIMIT:
            return True
        level += starts - ends
    return False


def _deep(text: str) -> bool:
    """Whether more than DEPTH_LIMIT elements may be open at once: start tags count up and end tags down,
    from the lowest point before (end tags before a deep stretch cannot hide it)."""
    steps = _DEEPENING.findall(text)
    if len(steps) <= DEPTH_LIMIT:
        return False
    levels = list(accumulate(map(_STEP.__getitem__, steps), initial=0))
    return max(map(sub, levels, accumulate(levels, min))) > DEPTH_LIMIT
