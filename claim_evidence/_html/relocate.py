"""A page whose text is unchanged up to the end of its last evidence element locates as it did before.

A site generator rewrites every page on every build, mostly after the evidence: a build stamp in a
comment, a footer's date, an analytics snippet. Locating such a page again (the fast path's parse and its
proof, or the reference tokenizer) is most of a rebuild's page check. This module keeps what a located
page leaves behind (:func:`remember`: the elements, and a digest of the text up to ``end``) and answers a
later text from it (:func:`reuse`) when the reference locator (:func:`.locate.locate`) must find exactly
the same :class:`.locate.Located` there.

Why that is exact. The reference reads a page from left to right, and everything it reports about an
element is decided by the tokens up to the element's end: the start tag that opens it (its name and
attributes, whether it is a claim, a slot, a summary slot, the bundle script or a link, whether it lies
in inert ``<template>`` or ``<select>`` content, whether a link is open around a slot), and the token
that closes it. ``end`` is where the last located element ends, and it is kept only when that element
ends with a token of its own that ends there (its end tag; the start tag of a void element such as
``<link>``): the reference's tokenizer is then in the data state at ``end``, every located element is
closed, and every token before ``end`` ends at or before it. Any text whose first ``end`` characters are
the same therefore gives the reference the same elements up to ``end``. The text after ``end`` could
still add an element, or drop the body: it adds one only with an evidence keyword in it (a claim's or a
slot's attribute name, the bundle script's id), a ``<link`` start tag (every link is located), or a
script whose id spells the bundle's with a character reference (the one place where a keyword is
decoded before it is compared); it drops the body only with a ``<frameset>`` start tag. :func:`reuse`
answers only a text whose rest holds none of these, searched for conservatively (in any case, anywhere:
in comments and raw text too). ``tests/unit/html/test_relocate.py`` compares :func:`reuse` with the
reference on the tests' pages with many kinds of rest.

What the page check makes of the elements is computed on the new text as always (it reads the text
outside them: the bundle, the claims' sentences, the language): only the locating is skipped.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from .elements import VOID
from .fastpath import FastLocated
from .locate import Element, Located, might_have_markup
from .tokenizer import START_TAG

__all__ = ["Relocated", "holds", "prefix", "remember", "reuse"]

FORMAT = 1
# In the rest of a page: a <link> start (every link is located), a <frameset> (the body dropped), and a
# <script> start, whose id might spell the bundle script's with a character reference. In any case (as
# Unicode folds it, which finds more than the tokenizer's ASCII lowercasing: more pages refused, none
# wrongly answered), in comments and raw text too.
_REST = re.compile(r"(?i)<link|frameset|<script")
_LISTS = ("claims", "slots", "summaries", "scripts", "links")


class Relocated(FastLocated):
    """A location answered by :func:`reuse`: the same elements, positions counted on demand, but not read
    by the fast path from this text (``_check.page``'s proof of a rewrite locates the new text again)."""


def cut(located: Located) -> int | None:
    """Where ``located``'s last element ends, if the text up to there decides every element (see the
    module's docstring); None for a page without evidence markup, or whose last element ends without a
    token of its own (an end tag the next tag implied, or the end of the text)."""
    if not located.has_markup or located.hidden is not None:
        return None
    elements = (*located.claims, *located.slots, *located.summaries, *located.scripts, *located.links)
    end = max(e.end for e in elements)
    for e in elements:
        if e.end == end and not (e.has_end_tag or (e.name in VOID and e.end == e.open_end > e.start)):
            return None
    return end


def digest(text: str, end: int) -> str:
    """SHA-256 of ``text[:end]`` (UTF-8; a lone surrogate as itself). The last one is kept: a page check
    asks it of the same text up to three times (the page cache's prefix entry, the record cache's
    location, the location kept for the next build), some 80 µs each for a 50 KB page."""
    global _LAST
    last = _LAST  # (one tuple, swapped whole: a reader in another thread sees one digest's or the other's)
    if last is not None and last[1] == end and last[0] == text:
        return last[2]
    value = hashlib.sha256(text[:end].encode("utf-8", "surrogatepass")).hexdigest()
    _LAST = (text, end, value)
    return value


_LAST: tuple[str, int, str] | None = None  # (text, end, digest) of the last digest this process computed


def rest_adds_nothing(text: str, end: int) -> bool:
    """Whether ``text[end:]`` can add no element to what the reference located before ``end``, nor drop
    the body: no evidence keyword, no ``<link``, no ``frameset``, and no ``<script`` start tag with a
    character reference in it."""
    if might_have_markup(text[end:]):
        return False
    for found in _REST.finditer(text, end):
        if found.group()[:2] not in ("<s", "<S"):
            return False  # a link or a frameset (or a script spelled with a letter that folds to "s")
        tag = START_TAG.match(text, found.start())
        if tag is not None and "&" in tag.group(0):
            return False
    return True


def prefix(located: Located) -> tuple[int, str] | None:
    """``(end, digest)``: where ``located``'s last element ends (:func:`cut`) and the digest of its text up
    to there; None when no later text can be answered from it. Computed once per location."""
    if located._prefix is None:
        end = cut(located)
        if end is None:
            return None
        located._prefix = end, digest(located.text, end)
    return located._prefix


def holds(text: str, kept: tuple[int, str]) -> bool:
    """Whether ``text`` locates as the text that ``kept`` (its :func:`prefix`) came from: the same
    characters up to ``end``, and a rest that adds nothing."""
    end, known = kept
    return 0 < end <= len(text) and rest_adds_nothing(text, end) and digest(text, end) == known


def remember(located: Located, why: str) -> dict[str, Any] | None:
    """What :func:`reuse` needs to answer a later text from ``located`` (found in its text; ``why`` the
    fast path's reason for leaving it to the reference, "" when it did not), as a JSON value; None when
    no later text can be answered from it (:func:`cut`)."""
    kept = prefix(located)
    if kept is None:
        return None
    end, known = kept
    table: list[Element] = []
    index: dict[int, int] = {}

    def number(element: Element) -> int:
        at = index.get(id(element))
        if at is None:
            at = index[id(element)] = len(table)
            table.append(element)
        return at

    lists = {name: [number(e) for e in getattr(located, name)] for name in _LISTS}
    linked = [[number(slot), link] for slot, link in located.linked]
    return {
        "format": FORMAT,
        "end": end,
        "digest": known,
        "why": why,
        "elements": [
            [e.name, [[k, v] for k, v in e.attrs.items()], e.start, e.open_end, e.close_start, e.end, e.self_closing]
            for e in table
        ],
        **lists,
        "linked": linked,
        "frameset": located.frameset,
    }


def reuse(text: str, kept: Any) -> tuple[Located, str] | None:
    """``(what locate(text) returns, the fast path's reason kept with it)`` from ``kept``
    (:func:`remember`'s value for an earlier text), when ``text`` starts with the same characters up to
    that text's last element and its rest adds nothing; else None (also for a value of any other shape)."""
    try:
        end, known = kept["end"], kept["digest"]
        if kept["format"] != FORMAT or type(end) is not int or not isinstance(known, str):
            return None
        if not isinstance(kept["why"], str) or not holds(text, (end, known)):
            return None
        located = _decode(text, kept, end)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    located._prefix = end, known
    return located, kept["why"]


def _decode(text: str, kept: dict[str, Any], end: int) -> Relocated:
    elements = []
    for name, attrs, start, open_end, close_start, stop, self_closing in kept["elements"]:
        spans = (start, open_end, close_start, stop)
        if not isinstance(name, str) or type(self_closing) is not bool or any(type(n) is not int for n in spans):
            raise TypeError("element")
        if not 0 <= start < open_end <= close_start <= stop <= end:
            raise ValueError("element spans")
        if not all(type(k) is str and type(v) is str for k, v in attrs):
            raise TypeError("attribute")
        elements.append(Element(name, dict(attrs), start, open_end, close_start, stop, self_closing))
    located = Relocated(text)
    for name in _LISTS:
        getattr(located, name).extend(elements[i] for i in _indexes(kept[name]))
    for slot, link in kept["linked"]:
        if type(link) is not int or type(slot) is not int or slot < 0:
            raise TypeError("linked")
        located.linked.append((elements[slot], link))
    frameset = kept["frameset"]
    if frameset is not None and type(frameset) is not int:
        raise TypeError("frameset")
    located.frameset = frameset
    if not located.has_markup:
        raise ValueError("no markup")
    return located


def _indexes(values: Any) -> list[int]:
    if not isinstance(values, list) or not all(type(i) is int and i >= 0 for i in values):
        raise TypeError("indexes")
    return values
