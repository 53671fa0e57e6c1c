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

A page changed only in its head. A generator also rewrites what comes before the evidence: a build stamp
in a comment in ``<head>``, a ``<meta>`` date, indentation. :func:`head` reads a page's head: its lines
from the start up to the first that holds what a head may not: a start tag other than ``<html>``,
``<head>``, ``<meta>``, ``<link>``, ``<base>``, ``<title>``, ``<style>``, ``<script>`` (the last three read
to their end tags, as the reference reads their raw text) and ``<body>``; an evidence keyword in a tag;
a CR. (A bundle script whose id is spelled with a character reference may be in it: where in the head it
went is not kept, and every finding placed in it is placed in the head.)
:func:`moved_head` says whether a later text is that page with its head changed only in what decides
nothing, then the same text up to the cut, then a rest that adds nothing (as for :func:`holds`).

Why that is exact: the reference tokenizer hands its tree builder nothing for a comment, nor for text
(:func:`.tokenizer.scan` gives text to the handler, which the locator ignores); the builder reads the
text only to decide whether a ``<frameset>`` is taken (:func:`.frameset.frameset_accepted`), and then
only whether a chunk of it is more than white space; a ``<meta>``'s attribute values decide nothing it
reports. The head is read by the tokenizer's own rules (its tag patterns, :func:`.tokenizer.comment_end`,
:func:`.tokenizer.raw_close`) over the whole text, and compared by its *parts*: every tag as written, a
``<meta>`` by its attribute names, a comment only when it holds a keyword, text only as "more than white
space" between two tags. Two heads with the same parts end at a line start, with the tokenizer in the
data state and the builder given the same tags in the same order: the same text after them gives it the
same calls, every element there moved by the heads' difference in length and lines. Where in the head a
link or an ``<a>`` lies is not kept: a finding placed there or naming a line is not answered
(``_check.page.moved_findings``). ``tests/unit/html/test_relocate.py`` compares it with the reference on
head edits of many kinds.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable
from typing import NamedTuple

from .elements import VOID
from .locate import Located, _keyword_starts, might_have_markup
from .tokenizer import END_TAG, START_TAG, comment_end, iter_attributes, lower, raw_close

__all__ = ["Cut", "Head", "cut", "digest", "head", "holds", "moved_head", "prefix", "rest_adds_nothing", "starts_with"]

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


class Head(NamedTuple):
    """A page's head as :func:`moved_head` compares it: ``end`` characters (``size`` bytes in UTF-8, ``lines``
    line breaks) and the digest of its ``parts`` (:func:`_head`); and its text from there to the end of
    its last evidence element (the cut of :func:`prefix`): ``middle`` characters, ``middle_size`` bytes
    and their SHA-256."""

    end: int
    size: int
    lines: int
    parts: str
    middle: int
    middle_size: int
    middle_digest: str


# The start tags a head may hold: a document's head and the <body> after it. The first other start tag
# ends it (reading on would cost a Python step per tag of the page's navigation on every rebuild). Title,
# style and script are read to their end tags, as the reference reads their raw text and RCDATA.
_HEAD_TAGS = frozenset("html head meta link base title style script body".split())
_RAW = frozenset(("title", "style", "script"))
_TEXT = re.compile(r"[^<\r]*+")  # (no CR: the head's line breaks are counted as LF's)


def head(text: str, cut: int) -> Head | None:
    """``text``'s head (see the module's docstring), for a location whose last element ends at ``cut``
    (:func:`prefix`); None when the head ends after it, or the first line already holds more."""
    end, parts, lines = _head(text, cut)
    if end == 0:
        return None
    middle = text[end:cut].encode("utf-8", "surrogatepass")
    size = len(text[:end].encode("utf-8", "surrogatepass"))
    return Head(end, size, lines, parts, cut - end, len(middle), hashlib.sha256(middle).hexdigest())


def moved_head(data: bytes, text: str, kept: Head) -> Head | None:
    """The head of ``text`` (``data`` decoded: UTF-8 without a byte-order mark) when it is the page that
    ``kept`` came from with only its head changed in what decides nothing (comments, white space, meta
    values) and its rest in what adds nothing (:func:`rest_adds_nothing`): its head the same tags, then
    the same bytes up to the end of the last evidence element (``end + middle``). Else None."""
    end, parts, lines = _head(text, len(text))
    if end == 0 or parts != kept.parts:
        return None
    at = len(text[:end].encode("utf-8", "surrogatepass"))
    stop = at + kept.middle_size
    if stop > len(data) or hashlib.sha256(memoryview(data)[at:stop]).hexdigest() != kept.middle_digest:
        return None
    if not rest_adds_nothing(text, end + kept.middle):
        return None
    return Head(end, at, lines, parts, kept.middle, kept.middle_size, kept.middle_digest)


def _head(text: str, stop: int) -> tuple[int, str, int]:
    """``(end, parts, lines)``: where the head ends when no token of it ends after ``stop`` (after the last
    line break in text between its tokens; 0 when a CR comes before), the SHA-256 of the parts of its
    tokens that can matter, and its line breaks.

    Text is read by no builder but the frameset test's (:func:`.frameset.frameset_accepted`), which asks
    only whether a chunk of it, decoded, is more than white space: such a chunk counts as the part
    ``"T"``, once between two tags."""
    parts: list[str] = []
    pos = end = kept = 0
    texted = kept_texted = False  # a chunk of text that is more than white space since the last tag
    size = len(text)
    keywords = _keyword_starts(text)  # (one search, read as the tokens go: not one per token)
    ahead = next(keywords, size)

    def marked(start: int, stop: int) -> bool:
        """Whether an evidence keyword starts in ``text[start:stop]`` (asked in the text's order; a keyword
        never spans two tokens: none holds a "<" or a ">")."""
        nonlocal ahead
        found = False
        while ahead < stop:
            found = found or ahead >= start
            ahead = next(keywords, size)
        return found

    while pos < stop:
        run = _TEXT.match(text, pos, stop).end()  # type: ignore[union-attr]  # (matches the empty string)
        newline = text.rfind("\n", pos, run)
        if newline >= 0:
            end, kept = newline + 1, len(parts)
            kept_texted = texted or not _blank(text[pos:end])
        if run > pos and not texted:
            texted = not _blank(text[pos:run])
        pos = run
        if pos >= stop or text[pos] != "<":
            break
        token = _head_token(text, pos, size, marked)
        if token is None or token[0] > stop:
            break
        after, part = token
        if part == "":
            texted = True
        elif part is not None:
            if texted:
                parts.append("T")
                texted = False
            parts.append(part)
        pos = after
    if text.find("\r", 0, end) >= 0:
        end = kept = 0  # (a CR in a tag or a comment: the reference counts it as a line break, here LF's are)
        kept_texted = False
    kept_parts = parts[:kept] + (["T"] if kept_texted else [])
    digest = hashlib.sha256(json.dumps(kept_parts).encode()).hexdigest()
    return end, digest, text.count("\n", 0, end)


def _blank(chunk: str) -> bool:
    """Whether text is white space for the frameset test (decoded, NULs dropped)."""
    if "&" in chunk:
        chunk = html.unescape(chunk)
    return not chunk.strip("\t\n\f\r \0")


def _head_token(text: str, lt: int, size: int, marked: Callable[[int, int], bool]) -> tuple[int, str | None] | None:
    """``(end, part)`` of the token at ``text[lt] == "<"``, read as the reference tokenizer reads it
    (:func:`.tokenizer._markup`): ``part`` is what of it can matter (None for a comment without an evidence
    keyword, ``""`` for a ``<`` read as text); None for what the head may not hold: a start tag with an evidence
    keyword, one not in ``_HEAD_TAGS``, a token that runs to the end of the text."""
    after = text[lt + 1 : lt + 2]
    if after.isascii() and after.isalpha():
        tag = START_TAG.match(text, lt, size)
        if tag is None or marked(lt, tag.end()):
            return None
        name = lower(tag.group(1))
        if name not in _HEAD_TAGS:
            return None
        end = tag.end()
        if name in _RAW:
            close = raw_close(text, end, size, name)
            closing = None if close is None else END_TAG.match(text, close, size)
            if closing is None:
                return None
            end = closing.end()
        elif name == "meta":
            return end, "<meta " + " ".join(attribute for attribute, _ in iter_attributes(tag.group(2)))
        return end, text[lt:end]
    if after == "!" and text.startswith("<!--", lt):
        closed = comment_end(text, lt, size)
        if closed is None:
            return None
        return closed, text[lt:closed] if marked(lt, closed) else None
    if after == "/":
        tag = END_TAG.match(text, lt, size)
        if tag is not None:
            return tag.end(), tag.group(0)
        if not (text[lt + 2 : lt + 3].isascii() and text[lt + 2 : lt + 3].isalpha()) and text[lt + 2 : lt + 3]:
            gt = text.find(">", lt + 2, size)  # "</>" or a bogus comment: read to its ">"
            return None if gt < 0 else (gt + 1, text[lt : gt + 1])
        return None
    if after in ("!", "?"):
        gt = text.find(">", lt + 1, size)  # a doctype or a bogus comment: read to its ">"
        return None if gt < 0 else (gt + 1, text[lt : gt + 1])
    return lt + 1, ""  # "<" read as text
