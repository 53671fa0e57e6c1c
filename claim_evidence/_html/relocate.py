"""A page whose text is unchanged up to the end of its last evidence element locates as it did before.

A site generator rewrites every page on every build, mostly after the evidence: a build stamp in a
comment, a footer's date, an analytics snippet. :func:`prefix` says where a located page's markup ends
and digests its text up to there; :func:`holds` says whether a later text must locate, for the reference
locator (:func:`.locate.locate`), to exactly the same :class:`.locate.Located` (the page cache answers
such a page with its last result: ``_check.page.page_prefix`` says why the findings follow).

Why that is exact. The reference reads a page from left to right, and everything it reports about an
element is decided by the tokens up to the element's end: the start tag that opens it (its name and
attributes, whether it is a claim, a slot, a summary slot, the bundle script or a link, whether it lies
in inert ``<template>`` or ``<select>`` content, whether a link is open around a slot), and the token
that closes it. ``end`` is where the last located element ends, and a location has a prefix only when
that element ends with a token of its own that ends there (its end tag; the start tag of a void element
such as ``<link>``): the reference's tokenizer is then in the data state at ``end``, every located
element is closed, and every token before ``end`` ends at or before it. Any text whose first ``end``
characters are the same therefore gives the reference the same elements up to ``end``. The text after
``end`` could still add an element, or drop the body: it adds one only with an evidence keyword in it
(a claim's or a slot's attribute name, the bundle script's id), a ``<link`` start tag (every link is
located), or a script whose id spells the bundle's with a character reference (the one place where a
keyword is decoded before it is compared); it drops the body only with a ``<frameset>`` start tag.
:func:`holds` accepts only a rest that holds none of these, searched for conservatively (in any case,
anywhere: in comments and raw text too). ``tests/unit/html/test_relocate.py`` compares it with the
reference on the tests' pages with many kinds of rest.
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

from .elements import VOID
from .locate import Located, might_have_markup
from .tokenizer import START_TAG

__all__ = ["Cut", "cut", "digest", "holds", "prefix", "rest_adds_nothing", "starts_with"]

# In the rest of a page: a <link> start (every link is located), a <frameset> (the body dropped), and a
# <script> start, whose id might spell the bundle script's with a character reference. In any case (as
# Unicode folds it, which finds more than the tokenizer's ASCII lowercasing: more pages refused, none
# wrongly answered), in comments and raw text too.
_REST = re.compile(r"(?i)<link|frameset|<script")


class Cut(NamedTuple):
    """A location's prefix: its text up to ``end`` characters, ``size`` bytes in UTF-8, and their SHA-256."""

    end: int
    size: int
    digest: str


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
    """SHA-256 of ``text[:end]`` (UTF-8; a lone surrogate as itself)."""
    return _digested(text, end)[1]


def _digested(text: str, end: int) -> tuple[int, str]:
    """``(size, digest)`` of ``text[:end]`` in UTF-8."""
    data = text[:end].encode("utf-8", "surrogatepass")
    return len(data), hashlib.sha256(data).hexdigest()


def rest_adds_nothing(text: str, end: int) -> bool:
    """Whether ``text[end:]`` can add no element to what the reference located before ``end``, nor drop
    the body: no evidence keyword, no ``<link``, no ``frameset``, and every ``<script`` a start tag (as the
    reference tokenizer's pattern reads one) without a character reference in it."""
    if might_have_markup(text[end:]):
        return False
    for found in _REST.finditer(text, end):
        if found.group()[:2] not in ("<s", "<S"):
            return False  # a link or a frameset (or a script spelled with a letter that folds to "s")
        tag = START_TAG.match(text, found.start())
        if tag is None or "&" in tag.group(0):
            return False  # (a script tag the reference's pattern does not read whole: not worth judging)
    return True


def prefix(located: Located) -> Cut | None:
    """Where ``located``'s last element ends (:func:`cut`) and the digest of its text up to there; None when
    no later text can be answered from it. Computed once per location."""
    if located._prefix is None:
        end = cut(located)
        if end is None:
            return None
        located._prefix = Cut(end, *_digested(located.text, end))
    return located._prefix


def holds(text: str, kept: Cut, *, same_start: bool = False) -> bool:
    """Whether ``text`` locates as the text that ``kept`` (its :func:`prefix`) came from: the same
    characters up to ``end`` (``same_start``: the caller found them by :func:`starts_with`), and a rest
    that adds nothing."""
    end = kept.end
    return 0 < end <= len(text) and rest_adds_nothing(text, end) and (same_start or digest(text, end) == kept.digest)


def starts_with(data: bytes, kept: Cut) -> bool:
    """Whether UTF-8 ``data`` (no byte-order mark) starts with the bytes of ``kept``'s text: then it decodes
    to a text whose first ``end`` characters are those (the bytes end where a character does), without
    decoding or encoding anything; some 35 µs for 50 KB against 110 to decode and digest the text."""
    return len(data) >= kept.size and hashlib.sha256(data[: kept.size]).hexdigest() == kept.digest
