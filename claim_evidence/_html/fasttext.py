"""A claim sentence's visible text in a few C-level steps, when its content leaves the reader no choice.

:func:`.text._content_text`, the reference, feeds the content to the Python tokenizer and tree builder,
tens of microseconds per claim sentence, for every claim of every page checked. What it gives
depends on three things only, since its builder never moves text (no foster parenting, no re-opened
formatting elements in what it tells its handler): where the runs of text are (each run decoded by
``html.unescape`` on its own), which of them lie inside a hidden element (``rt``, ``rp``, ``script``)
and where a block element (``br``, ``p``) opens or closes (a space). :func:`content_text` gives the
same string when the content is in a shape that fixes all three beyond doubt, else None:

- every ``<`` starts a tag in the strict shape of :mod:`.fastscan` (lowercase names, attribute values
  without ``<`` or ``>``: the reference tokenizer ends such a tag at its first ``>`` too), a comment
  that ends at its first ``-->`` for every reader (no ``--`` in it, not ``<!-->`` nor ``<!--->``), or
  an inline ``<script>``, which ends where the reference's own script-data rules
  (:func:`.tokenizer._script_end` and ``END_TAG``, called as the reference calls them) end it;
- the tags are balanced and every end tag closes the element on top: phrasing elements (no ``<a>``
  inside an ``<a>``), ``ruby`` with ``rt``/``rp`` directly in it, the voids ``br``, ``img``, ``wbr``,
  and a ``<p>`` with nothing open around it (a claim element read with its own tags). In a fresh
  builder with a ``div`` context none of these start tags ends anything (none is in ``CLOSES_P`` but
  that ``p``, which finds no ``p`` open; an ``rt`` or ``rp`` finds its ``ruby`` on top, not an
  implicitly ended element), and each end tag finds its element on top of the stack, above every
  special element, so the reference pushes and pops exactly what this reader does.

Runs of text are the pieces between those tokens, so ``&am<b></b>p;`` is decoded as the reference
decodes it, in two runs. What a sequence of tags means (which runs are hidden, where the spaces go)
is worked out once per sequence and remembered: claim sentences repeat a few shapes.

``tests/unit/html/test_fasttext.py`` compares this reader with the reference on the varied benchmark
site's claims, random fragments of these shapes and their mutations, and the html5lib corpus.
"""

from __future__ import annotations

import html
import re

from .._core.normalize import normalized_text
from .fastscan import _ATTRS
from .neutral import PHRASING, RUBY_TEXT, VOIDS
from .tokenizer import END_TAG, _script_end

__all__ = ["ACCEPTED", "BREAKS", "HIDING", "content_text"]

_WS = "[\t\n\f\r ]"
_COMMENT = r"<!--(?!-?>)(?>(?:[^-]++|-(?!-))*)-->"
# A tag in the strict shape (its name, "/name" for an end tag) or a comment that ends at its first "-->"
# for every reader (no name). Content is in the strict shape when split by it leaves no '<' in its runs.
_TOKEN = re.compile(rf"<(/[a-z][a-z0-9]*+(?={_WS}*+>)|[a-z][a-z0-9]*+)(?:{_WS}*+>|{_ATTRS})|{_COMMENT}")
_START = re.compile(rf"<([a-z][a-z0-9]*+){_ATTRS}")
_COMMENTED = re.compile(_COMMENT)
_EMPTY_COMMENT = "<!---->"  # what an inline script element counts as: no text, nothing left open

# The elements this reader accepts, and what the reference's text collector does with them: BREAKS are
# in text.BLOCKS (a space), HIDING in text.HIDDEN, the rest in neither (the tests hold the two together).
BREAKS = frozenset({"br", "p"})
HIDING = RUBY_TEXT | {"script"}
ACCEPTED = PHRASING | RUBY_TEXT | VOIDS | {"p", "script"}

_Reading = tuple[tuple[str, ...], tuple[int, ...]]
_READINGS: dict[tuple[str | None, ...], _Reading | None] = {}
_READINGS_MAX = 4096
_KEYED = 64  # longer sequences of tags are worked out each time (no key of unbounded size is kept)


def content_text(text: str, start: int, end: int) -> str | None:
    """What ``_content_text(text, "div", start, end)`` gives, or None when the content is not in a shape
    this reader can prove it reads alike."""
    lt = text.find("<", start, end)
    if lt < 0:
        run = text[start:end]
        return normalized_text(html.unescape(run) if "&" in run else run)
    if text.find("<script", lt, end) >= 0:
        rest = _without_scripts(text, lt, end)
        if rest is None:
            return None
        content = text[start:lt] + rest
    else:
        content = text[start:end]
    parts = _TOKEN.split(content)  # [run, tag, run, tag, …, run]
    if "<" in "".join(parts[0::2]):
        return None  # (a '<' that starts no tag or comment of the strict shape)
    names = tuple(parts[1::2])
    reading = _READINGS.get(names) if len(names) <= _KEYED else None
    if reading is None:
        reading = _reading(names)
        if reading is None:
            return None
        if len(names) <= _KEYED:
            if len(_READINGS) >= _READINGS_MAX:
                _READINGS.clear()
            _READINGS[names] = reading
    spaces, hidden = reading
    parts[1::2] = spaces
    for at in hidden:
        parts[at] = ""
    if "&" in content:
        parts[0::2] = [html.unescape(run) if "&" in run else run for run in parts[0::2]]
    return normalized_text("".join(parts))


def _without_scripts(text: str, start: int, end: int) -> str | None:
    """``text[start:end]`` with each inline script element, start tag to end tag, written as an empty
    comment; None when a script is not ended by an end tag in the content, or a ``<!--`` before one
    starts no strict comment. Linear: every search starts where the last one's match ended.

    Each ``<script`` in the strict shape outside a strict comment is taken for a script's start tag
    without reading the tags before it: if it was not one (it was in an attribute value, in another
    tag, in raw text), the content left is not in the strict shape around it or holds an element this
    reader does not accept, and :func:`content_text` gives up (as it does when a ``<script>`` taken
    for a comment's text was not one: it stays, and is not accepted). For the strict tags and
    comments before it end where the reference tokenizer ends them, so in content that passes, the
    reference meets that ``<script`` as a start tag, and its script-data rules, called here as it
    calls them, end it."""
    pieces: list[str] = []
    kept = scan = start
    at = text.find("<script", scan, end)
    while at >= 0:
        comment = text.find("<!--", scan, at)
        if comment >= 0:  # (what may hide this <script: skipped, then the search goes on from its end)
            found = _COMMENTED.match(text, comment, end)
            if found is None:
                return None
            scan = found.end()
            if scan > at:
                at = text.find("<script", scan, end)
            continue
        tag = _START.match(text, at, end)
        if tag is None:
            return None
        scan = tag.end()
        if tag.group(1) == "script":
            close = _script_end(text, scan, end)
            closing = END_TAG.match(text, close, end) if close is not None else None
            if closing is None:
                return None  # (the rest of the content is the script's, or its end tag is cut short)
            pieces += (text[kept:at], _EMPTY_COMMENT)
            kept = scan = closing.end()
        at = text.find("<script", scan, end)  # (after another name too: <scripts>, <script2>)
    pieces.append(text[kept:end])
    return "".join(pieces)


def _reading(names: tuple[str | None, ...]) -> _Reading | None:
    """For a sequence of tags (``"/x"`` an end tag, None a comment): the space (or nothing) each stands
    for, and the indexes in the split content of the runs that lie inside a hidden element; None unless
    the tags are balanced, each end tag closes the element on top and each start tag is one that ends
    nothing where it stands."""
    stack: list[str] = []
    hiding = anchors = 0
    spaces: list[str] = []
    hidden: list[int] = []
    for at, name in enumerate(names):
        if name is None:
            pass
        elif name[0] == "/":
            if not stack or stack[-1] != name[1:]:
                return None
            closed = stack.pop()
            hiding -= closed in HIDING
            anchors -= closed == "a"
        elif name in VOIDS:
            pass
        elif name in PHRASING:
            if name == "a":
                if anchors:
                    return None  # (the adoption agency would end the open one, and what is open in it)
                anchors += 1
            stack.append(name)
        elif name in RUBY_TEXT:
            if not stack or stack[-1] != "ruby":
                return None
            stack.append(name)
            hiding += 1
        elif name == "p" and not stack:
            stack.append(name)
        else:
            return None
        spaces.append(" " if name is not None and name.lstrip("/") in BREAKS else "")
        if hiding:
            hidden.append(2 * at + 2)
    if stack:
        return None
    return tuple(spaces), tuple(hidden)
