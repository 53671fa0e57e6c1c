"""A page whose text is unchanged up to the end of its last evidence element locates as it did before.

A site generator rewrites every page on every build, mostly after the evidence: a build stamp in a
comment, a footer's date, an analytics snippet. :func:`prefix` says where a located page's markup ends
and digests its text up to there; :func:`holds` says whether a later text must locate, for the reference
locator (:func:`.locate.locate`), to exactly the same :class:`.locate.Located` (the page cache answers
such a page with its last result: ``_check.prefix.page_prefix`` says why the findings follow).

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
:func:`.tokenizer.raw_close`) over the whole text, and compared by its *parts*: its ``<html>``, ``<head>``,
``<body>`` and end tags as written (a ``<meta>``, ``<base>``, ``<link>``, ``<title>``, ``<style>`` or
``<script>`` is none: they change nothing a reader reads, see :func:`_head_token`, but for the links,
compared apart), a comment only when it holds a keyword, text only as "more than white space" between
two tags. Two heads with the same parts end at a line start, with the tokenizer in the
data state and the builder given the same tags in the same order: the same text after them gives it the
same calls, every element there moved by the heads' difference in length and lines. Where in the head a
link or an ``<a>`` lies is not kept: a finding placed there or naming a line is not answered
(``_check.prefix.moved_findings``). ``tests/unit/html/test_relocate.py`` compares it with the reference on
head edits of many kinds.

A page changed in its body before the evidence. A generator's build also adds an item to every page's
navigation, or an element after ``<body>``. After its ``<body>`` tag a head reads on, as its *body part*,
the lines up to the one that holds the first evidence keyword, as long as they hold only tags that push
and pop just what they open (containers, lists, paragraphs, headings, phrasing, rules, a theme's inputs, labels,
buttons and forms; icons, formulas and selects as simple islands; inline scripts; comments), and compares
that part by the elements it leaves open, not by its tags: the
reference builder ends it in the same state whatever was opened and closed in it (:func:`_body_part` says
why), and the tokenizer at a line start in the data state. A page with a body part and a ``<frameset>``
in its middle has no head (the frameset-ok flag is what a body's text decides).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable
from typing import NamedTuple

from .elements import HEADINGS, VOID
from .fastscan import CONTAINERS
from .locate import Element, Located, _keyword_starts, might_have_markup, parse_attributes
from .neutral import LEAVES, LISTS, PHRASING, STRICT_TOKEN, VOIDS, island_end, opens
from .tokenizer import END_TAG, START_TAG, comment_end, lower, raw_close

__all__ = [
    "Cut",
    "Head",
    "cut",
    "digest",
    "head",
    "head_against",
    "holds",
    "middle_holds",
    "moved_head",
    "prefix",
    "rest_adds_nothing",
    "starts_with",
    "with_middle",
]

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
    line breaks), the digest of the ``parts`` of its tokens before its body part (:func:`_head`); and its
    text from there to the end of its last evidence element (the cut of :func:`prefix`): ``middle``
    characters, ``middle_size`` bytes and their SHA-256. Its *body part*, the last ``body`` characters of
    it (``body_size`` bytes, their SHA-256 ``body_digest``: 0, 0 and "" when it has none), is read after
    the ``<body>`` tag, and compared by the elements it leaves open (``skeleton``: their start tags as
    written, JSON, or its digest when that is long: :func:`_skeleton`). ``links`` is
    the digest of its ``<link>`` tags' attributes (decoded, as the locator reads them), which its parts
    leave out: a head whose links differ (an asset's new hash, a link more) is compared by what the page
    check decides of them (:func:`moved_head`'s ``links_ok``)."""

    end: int
    size: int
    lines: int
    parts: str
    middle: int
    middle_size: int
    middle_digest: str
    body: int = 0
    body_size: int = 0
    body_digest: str = ""
    skeleton: str = ""
    links: str = ""


# The start tags a head may hold before its body part: a document's head and the <body> after it. Title,
# style and script are read to their end tags, as the reference reads their raw text and RCDATA.
_HEAD_TAGS = frozenset("html head meta link base title style script body".split())
_RAW = frozenset(("title", "style", "script"))
_VOID_HEAD = frozenset(("meta", "base", "link"))
_TEXT = re.compile(r"[^<\r]*+")  # (no CR: the head's line breaks are counted as LF's)
# What a body part holds besides the fast readers' neutral markup (:mod:`.neutral`): what a theme's header
# and navigation are written with. An <input> ends nothing and is void, an <hr> too where no <p> is open (it
# ends one); a <label> is phrasing; a <button> ends only a button open in scope (none may be); an icon, a
# formula or a select is a simple island (:func:`.neutral.island_end`), which leaves the builder as it
# found it.
_BODY_VOIDS = VOIDS | {"input", "hr"}
_ISLAND_ROOTS = frozenset({"svg", "math", "select"})
_READ_WHOLE = _ISLAND_ROOTS | {"script"}  # (read by _body_token: raw text, islands)
# A <frameset> the reference would weigh (its frameset-ok flag depends on the body before it): a head with
# a body part is kept only for a page whose middle has none (the rest is tested for one anyway).
_FRAMESET = re.compile(r"(?i)frameset")


class _Read(NamedTuple):
    """What :func:`_head` read: where the head ends (after a line break; 0: no head), the digest of the
    parts of its tokens before its body part, its line breaks, where its body part starts (``end`` when
    it has none), the digest of what that part leaves open ("" when none), where the first evidence
    keyword after the ``<body>`` tag starts (read up to that tag only: the body part ends before it), and
    the head's ``<link>`` tags before its body part (as :class:`.locate.Element`'s) and their attributes' digest."""

    end: int
    parts: str
    lines: int
    body: int
    skeleton: str
    keyword: int = 0
    elements: tuple[Element, ...] = ()
    links: str = ""


def head(text: str, cut: int) -> Head | None:
    """``text``'s head (see the module's docstring), for a location whose last element ends at ``cut``
    (:func:`prefix`); None when the head ends after it, or the first line already holds more."""
    read = _head(text, cut)
    end = read.end
    if end == 0:
        return None
    middle = text[end:cut].encode("utf-8", "surrogatepass")
    if read.body < end and _mentions_frameset(text, end, cut, middle):
        return None
    size = len(text[:end].encode("utf-8", "surrogatepass"))
    body = text[read.body : end].encode("utf-8", "surrogatepass")
    return Head(
        end,
        size,
        read.lines,
        read.parts,
        cut - end,
        len(middle),
        hashlib.sha256(middle).hexdigest(),
        end - read.body,
        len(body),
        hashlib.sha256(body).hexdigest() if body else "",
        read.skeleton,
        read.links,
    )


def _mentions_frameset(text: str, start: int, stop: int, encoded: bytes) -> bool:
    """Whether ``text[start:stop]`` (``encoded``: those characters in UTF-8) holds "frameset" in any case,
    as ``_FRAMESET`` finds it: in the bytes lowered (ASCII only; every byte of a character beyond it is
    above 127, so no other character turns into a letter), which takes some 55 µs on a page's 45 KB of
    Japanese where the pattern, stepping through each character, takes 400; the pattern itself only where
    an ``ſ`` is, which it takes for an ``s``."""
    if text.find("\u017f", start, stop) >= 0:
        return _FRAMESET.search(text, start, stop) is not None
    return b"frameset" in encoded.lower()


def moved_head(
    data: bytes, text: str, kept: Head, links_ok: Callable[[tuple[Element, ...]], bool] | None = None
) -> Head | None:
    """The head of ``text`` (``data`` decoded: UTF-8 without a byte-order mark) when it is the page that
    ``kept`` came from with only its head changed in what decides nothing (comments, white space, meta
    values, script URLs; in its body part, markup that pushes and pops only what it opens) and its rest in
    what adds nothing (:func:`rest_adds_nothing`): its head the same tags before its body part, that part
    the same bytes or leaving the same elements open (:func:`head_against`), then the same bytes up to the
    end of the last evidence element (``end + middle``). Else None.

    Its links may differ from ``kept``'s only where ``links_ok`` accepts the new head's links (the caller's
    test that the stylesheet check decides of them what it did; without one, they may not): the
    reference then locates every element after the head as before, and in the head those links."""
    read = head_against(data, text, kept, links_ok)
    return read if read is not None and middle_holds(data, text, read) else None


def head_against(
    data: bytes, text: str, kept: Head, links_ok: Callable[[tuple[Element, ...]], bool] | None = None
) -> Head | None:
    """The head of ``text`` (``data`` decoded: UTF-8 without a byte-order mark) read against ``kept``: when
    it has ``kept``'s parts before its body part, a body part of the same bytes or leaving the same elements
    open, and links that are ``kept``'s or that ``links_ok`` accepts, that head with ``kept``'s middle, not
    yet compared (:func:`middle_holds` does: :func:`moved_head`); else None.

    Where the middle differs (a build that changed the page between its head and its last evidence
    element, where no entry answers), the head read is still a head of ``text``, read by :func:`_head`'s
    rules: the check of the page then keeps it for its next prefix with its own middle (:func:`with_middle`)
    instead of reading it again. Where the text gained lines right after the body part's bytes, its body
    part ends before the one :func:`head` reads: :func:`with_middle` reads it on."""
    if kept.body:
        found = _moved_body(data, text, kept)
        if found is None:
            return None
        end, at, lines, body, body_size, body_digest, read = found
    else:
        read = _head(text, len(text))
        end = read.end
        if end == 0 or read.body < end or read.parts != kept.parts:
            return None
        at = len(text[:end].encode("utf-8", "surrogatepass"))
        lines, body, body_size, body_digest = read.lines, 0, 0, ""
    if read.links != kept.links and (links_ok is None or not links_ok(read.elements)):
        return None
    return Head(
        end, at, lines, kept.parts, kept.middle, kept.middle_size, kept.middle_digest, body, body_size, body_digest,
        kept.skeleton, read.links,
    )  # fmt: skip


def middle_holds(data: bytes, text: str, read: Head) -> bool:
    """Whether ``text`` (``data`` decoded) has ``read``'s middle after its head (the same bytes, by their
    digest) and after it a rest that adds nothing."""
    stop = read.size + read.middle_size
    if stop > len(data) or hashlib.sha256(memoryview(data)[read.size : stop]).hexdigest() != read.middle_digest:
        return False
    return rest_adds_nothing(text, read.end + read.middle)


def with_middle(read: Head, text: str, cut: int) -> Head | None:
    """The head :func:`head` gives ``text`` for a location whose last element ends at ``cut``, from
    ``read``, a head of ``text`` read against the page's last (:func:`head_against`), without reading it
    again: its body part read on from where ``read``'s ends, where the page may have gained lines (as
    :func:`head` reads it: the same tokens up to there, then the same reading on), and the text from
    there to ``cut`` as its middle. None where :func:`head` gives none (the head ends after ``cut``; a
    body part and a ``frameset`` in the middle; a CR), or the body part cannot be read on (its skeleton
    kept as a digest): then read the head (:func:`head`)."""
    end = read.end
    if read.body:
        if not read.skeleton.startswith("["):
            return None
        # (No keyword starts in the body part, its bytes the page's last: the first after its <body> tag,
        # which ends what head() reads, is the first after it.)
        limit = min(next(_keyword_starts(text, end), len(text)), cut)
        opened = tuple(json.loads(read.skeleton))
        if not all(isinstance(tag, str) and START_TAG.match(tag) for tag in opened):
            return None  # (every one is: each was read as a start tag; an entry is the cache's own, signed)
        grown, skeleton = _body_part(text, end, limit, opened)
        if grown:
            if text.find("\r", end, grown) >= 0:
                return None  # (head() finds no head: a CR in a tag or a comment counts as a line break)
            start = end - read.body
            added, body = text[end:grown], text[start:grown].encode("utf-8", "surrogatepass")
            read = read._replace(
                end=grown,
                size=read.size + len(added.encode("utf-8", "surrogatepass")),
                lines=read.lines + added.count("\n"),
                body=grown - start,
                body_size=len(body),
                body_digest=hashlib.sha256(body).hexdigest(),
                skeleton=_skeleton(skeleton),
            )
            end = grown
    if not 0 < end <= cut:
        return None
    middle = text[end:cut].encode("utf-8", "surrogatepass")
    if read.body and _mentions_frameset(text, end, cut, middle):
        return None
    return read._replace(middle=cut - end, middle_size=len(middle), middle_digest=hashlib.sha256(middle).hexdigest())


def _moved_body(data: bytes, text: str, kept: Head) -> tuple[int, int, int, int, int, str, _Read] | None:
    """``(end, size, lines, body, body_size, body_digest, proper)`` of the head of ``text`` when it has
    ``kept``'s parts before its body part, and a body part of the same bytes (the head proper, ``proper``,
    is all that is read: a stamp in ``<head>``) or, read, leaving the same elements open (a new
    navigation item)."""
    proper = _head(text, len(text), to_body=True)
    if proper.body <= 0 or proper.parts != kept.parts:
        return None
    start = len(text[: proper.body].encode("utf-8", "surrogatepass"))
    stop = start + kept.body_size
    if stop <= len(data) and hashlib.sha256(memoryview(data)[start:stop]).hexdigest() == kept.body_digest:
        end = proper.body + kept.body  # (the same bytes from a character's start: the same characters)
        return end, stop, text.count("\n", 0, end), kept.body, kept.body_size, kept.body_digest, proper
    read = _with_body(text, proper.body, min(proper.keyword, len(text)), proper.parts)
    if read is None or read.end == 0 or read.skeleton != kept.skeleton:
        return None
    end = read.end
    body = text[read.body : end].encode("utf-8", "surrogatepass")
    digested = hashlib.sha256(body).hexdigest()
    return end, start + len(body), read.lines, end - read.body, len(body), digested, proper


def _head(text: str, stop: int, *, to_body: bool = False) -> _Read:
    """What the head of ``text`` is (:class:`_Read`) when no token of it ends after ``stop``; with
    ``to_body``, only up to its ``<body>`` tag (``body``: where that tag ends, -1 when the head ends before).

    Up to the ``<body>`` tag the head ends after the last line break in text between its tokens (0 when
    a CR comes before) ahead of the first token it may not hold, and its parts are those of its tokens
    up to there that can matter. Text is read by no builder but the frameset test's
    (:func:`.frameset.frameset_accepted`), which asks only whether a chunk of it, decoded, is more than
    white space: such a chunk counts as the part ``"T"``, once between two tags. After the ``<body>``
    tag it reads its body part (:func:`_body_part`); without one it ends as if the page had none."""
    parts: list[str] = []
    links: list[Element] = []  # (its <link> tags: kept_links of them are in the head)
    pos = end = kept = kept_links = 0
    texted = kept_texted = False  # a chunk of text that is more than white space since the last tag
    body = -1  # where the <body> tag ends, once read
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
            end, kept, kept_links = newline + 1, len(parts), len(links)
            kept_texted = texted or not _blank(text[pos:end])
        if run > pos and not texted:
            texted = not _blank(text[pos:run])
        pos = run
        if pos >= stop or text[pos] != "<":
            break
        token = _head_token(text, pos, size, marked, links)
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
            if _is_body(part):
                body = after
                break
        pos = after
    if body >= 0:
        marked(body, body)  # (the first keyword after the <body> tag: the body part ends before its line)
        found = tuple(links)
        if to_body:
            start = body if text.find("\r", 0, body) < 0 else -1
            return _Read(0, _digest_parts(parts), 0, start, "", ahead, found, _links(found))
        read = _with_body(text, body, min(ahead, stop), _digest_parts(parts))
        if read is not None:
            return read._replace(elements=found, links=_links(found))
    elif to_body:
        return _Read(0, "", 0, -1, "")
    kept_parts = parts[:kept] + (["T"] if kept_texted else [])
    if text.find("\r", 0, end) >= 0:
        return _NO_HEAD  # (a CR in a tag or a comment: the reference counts it as a line break)
    found = tuple(links[:kept_links])
    return _Read(end, _digest_parts(kept_parts), text.count("\n", 0, end), end, "", 0, found, _links(found))


def _links(links: tuple[Element, ...]) -> str:
    """The digest of a head's links' attributes, decoded (what of a link the stylesheet check reads)."""
    return _sha256(json.dumps([list(link.attrs.items()) for link in links])) if links else ""


_NO_HEAD = _Read(0, "", 0, -1, "")


def _with_body(text: str, body: int, limit: int, parts: str) -> _Read | None:
    """The head whose parts before its body part have the digest ``parts`` and whose ``<body>`` tag ends at
    ``body``, with the body part read up to ``limit`` (:func:`_body_part`); None when that part ends
    nowhere (the head then ends before it)."""
    end, skeleton = _body_part(text, body, limit)
    if not end:
        return None
    if text.find("\r", 0, end) >= 0:
        return _NO_HEAD  # (a CR in a tag or a comment: the reference counts it as a line break)
    return _Read(end, parts, text.count("\n", 0, end), body, _skeleton(skeleton))


# A skeleton is kept as written up to this length (a head's body part read on from it: :func:`with_middle`),
# else as its digest: the tags of a theme's wrappers are some hundred characters, and an entry stays small.
_SKELETON_KEPT = 2048


def _skeleton(written: str) -> str:
    """What a head keeps of its body part's skeleton (JSON, :func:`_body_part`): itself, or its digest when
    longer than ``_SKELETON_KEPT`` (a digest is never JSON: it holds no ``[``)."""
    return written if len(written) <= _SKELETON_KEPT else _sha256(written)


def _body_part(text: str, start: int, limit: int, open_tags: tuple[str, ...] = ()) -> tuple[int, str]:
    """``(end, skeleton)`` of the body part of a head whose ``<body>`` tag ends at ``start``, ahead of the
    first evidence keyword after it (at ``limit``, or the page's cut): where it ends (0: nowhere) and the
    start tags, as written, of the elements open there (JSON). ``open_tags``: the part is read on from
    ``start``, a line start where it held those elements open (their start tags as written), as it was
    read up to there: every token before ``start`` ends before it, so the reading goes on from there as
    it would have, and ends where it would have or, with 0, where it stood.

    It holds start and end tags that push and pop only what they open (:func:`_opens`: a body's navigation,
    headings, paragraphs, a theme's header), simple islands (:func:`.neutral.island_end`: icons), inline
    scripts read to their end, comments; it ends after the last line break in text between them ahead of
    ``limit`` or of anything else (a table, an iframe, SVG that is no simple island, a CR in text).

    Why that is exact: each such tag, read by the reference tokenizer, leaves the reference builder as a
    push or a pop of one element (an island as it found it), so two body parts after the same ``<body>`` tag that leave the same
    elements open leave the builder in the same state but for where the elements left open start (an
    ``<a>``'s start is kept on its list of active formatting elements: a finding placed in the head, or
    naming a line, is not answered, ``_check.prefix.moved_findings``), and the tokenizer in the data state at
    a line start. Their text decides nothing, since the page has no ``<frameset>`` after them
    (:func:`head`, :func:`holds`: the frameset-ok flag is what the text before one decides); a script in
    them is never the bundle script (its tag holds no keyword, nor a character reference).

    Tokens in the strict shape (:data:`.neutral.STRICT_TOKEN`), which the reference tokenizer reads as
    that pattern does, are taken from one search each; any other (a script, an upper-case tag, a ``<``
    in text) is read as the reference tokenizer reads it (:func:`_body_token`)."""
    tags = list(open_tags)  # the start tags as written of the elements opened
    stack = ["", *(lower(START_TAG.match(tag).group(1)) for tag in tags)]  # type: ignore[union-attr]  # (by name; "": the body)
    end = 0
    left_open: tuple[str, ...] = ()
    size = len(text)
    carriage = text.find("\r", start, limit) >= 0
    rfind = text.rfind
    pos = start
    tokens = STRICT_TOKEN.finditer(text, pos, limit)
    while True:
        token = next(tokens, None)
        lt = token.start() if token is not None else limit
        if lt > pos:  # (text between two tokens: where the part may end)
            # (Text stops at a CR, which the reference counts as a line break: this part's are LF's.)
            cr = text.find("\r", pos, lt) if carriage else -1
            newline = rfind("\n", pos, lt if cr < 0 else cr)
            if newline >= 0:
                end, left_open = newline + 1, tuple(tags)
            if cr >= 0:
                break
        if token is None:
            break
        kind = token.lastindex  # (1: an end tag, 2: a start tag, None: a comment or another '<')
        if kind == 1:
            if stack[-1] != token.group(1) or len(stack) == 1:
                break
            stack.pop()
            tags.pop()
            pos = token.end()
        elif kind == 2 and (name := token.group(2)) not in _READ_WHOLE:
            if name == "hr" and "p" in stack:
                break  # (a rule's start ends a p in button scope)
            if name not in _BODY_VOIDS:
                if not (name in PHRASING and name != "a") and not _opens(name, stack):
                    break
                stack.append(name)
                tags.append(token.group())
            pos = token.end()
        elif kind is None and token.end() - lt > 1:
            pos = token.end()  # (a comment)
        else:
            after = _body_token(text, lt, size, stack, tags)
            if after is None or after > limit:
                break
            pos = after
            tokens = STRICT_TOKEN.finditer(text, pos, limit)
    return end, json.dumps(list(left_open)) if end else ""


def _digest_parts(parts: list[str]) -> str:
    return _sha256(json.dumps(parts))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_body(part: str) -> bool:
    """Whether a head's part is a ``<body>`` start tag (as written: any case, then white space, ``/`` or ``>``)."""
    return part[:5].lower() == "<body" and part[5:6] in _AFTER_NAME


_AFTER_NAME = frozenset("\t\n\f\r />")


def _body_token(text: str, lt: int, size: int, stack: list[str], tags: list[str]) -> int | None:
    """Where the token at ``text[lt] == "<"`` of a head's body part ends, read as the reference tokenizer
    reads it, with its start or end tag pushed onto or popped off ``stack`` (its start tags as written in
    ``tags``); None for what the body part may not hold: a tag that does not push or pop only what it opens
    (:func:`.neutral.opens`; the reference reads ``<div/>`` as ``<div>``, as the standard does), a script
    tag with a character reference, a doctype or a bogus comment, a token that runs to the end of the
    text. (It holds no evidence keyword: it ends before the first.)"""
    after = text[lt + 1 : lt + 2]
    if after.isascii() and after.isalpha():
        tag = START_TAG.match(text, lt, size)
        if tag is None:
            return None
        name, written = lower(tag.group(1)), tag.group(0)
        if name in _BODY_VOIDS:
            return None if name == "hr" and "p" in stack else tag.end()
        if name in _ISLAND_ROOTS:
            return island_end(text, lt)
        if name == "script":
            if "&" in written:
                return None  # (an id the reference decodes might spell the bundle script's)
            close = raw_close(text, tag.end(), size, name)
            closing = None if close is None else END_TAG.match(text, close, size)
            return None if closing is None else closing.end()
        if not _opens(name, stack):
            return None
        stack.append(name)
        tags.append(written)
        return tag.end()
    if after == "/":
        tag = END_TAG.match(text, lt, size)
        if tag is None:
            return None
        if len(stack) == 1 or stack[-1] != lower(tag.group(1)):
            return None
        stack.pop()
        tags.pop()
        return tag.end()
    if after == "!" and text.startswith("<!--", lt):
        return comment_end(text, lt, size)
    if after in ("!", "?"):
        return None  # (a doctype or a bogus comment in the body: rare, not worth reading)
    return lt + 1  # "<" read as text


def _opens(name: str, stack: list[str]) -> bool:
    """Whether a start tag of ``name`` in a body part pushes an element and ends nothing, over ``stack``, for
    the reference builder: a block (a container, a list, a paragraph, a heading, a form) where no ``<p>`` is
    open (its start ends one in button scope), a heading not on a heading (it ends that one); a ``<label>``;
    a ``<button>`` in none (it ends the open one); and what :func:`.neutral.opens` takes (phrasing, a list's
    items, ruby text). The fast path's rules are narrower (a block in a link, in a list item: lexbor's tree
    must match too); here only the reference builds, which keeps a form in a form, as the standard does not
    (``tests/unit/html/test_relocate.py`` holds every body part to the reference's open elements)."""
    if name in _BLOCKS:
        return "p" not in stack and not (name in HEADINGS and stack[-1] in HEADINGS)
    if name == "label":
        return True
    if name == "button":
        return "button" not in stack
    return opens(name, stack)


_BLOCKS = CONTAINERS | LISTS | LEAVES | {"form"}


def _blank(chunk: str) -> bool:
    """Whether text is white space for the frameset test (decoded, NULs dropped)."""
    if "&" in chunk:
        chunk = html.unescape(chunk)
    return not chunk.strip("\t\n\f\r \0")


def _head_token(
    text: str, lt: int, size: int, marked: Callable[[int, int], bool], links: list[Element]
) -> tuple[int, str | None] | None:
    """``(end, part)`` of the token at ``text[lt] == "<"``, read as the reference tokenizer reads it
    (:func:`.tokenizer._markup`): ``part`` is what of it can matter (None for a comment without an evidence
    keyword, ``""`` for a ``<`` read as text); None for what the head may not hold: a start tag with an evidence
    keyword, one not in ``_HEAD_TAGS``, a token that runs to the end of the text. A ``<link>`` is also put
    on ``links``, as the reference locates it.

    What can matter: a ``<meta>``, ``<base>`` or ``<link>`` is a void element and a ``<title>``, ``<style>``
    or ``<script>`` one read to its end tag (:func:`.tokenizer.raw_close`): each leaves the reference
    builder as it found it (no element is open in a head to end, nor does a mode change with them), and
    none is one the frameset test weighs (:data:`.frameset._HEAD_ONLY`), which skips their RCDATA and raw
    text too (a head holds no SVG or MathML, where raw text would be characters). What the locator reports
    of them: a ``<script>`` only when its id is the bundle script's (its tag then holds a keyword, which
    the head may not hold, or a character reference: such a script is kept as written), and every
    ``<link>``, which only the stylesheet check reads (its attributes are compared apart,
    :attr:`Head.links`). So none of these is a part: a build that dates a meta, renames the site in every
    title, adds a preload link or an analytics script, or puts a new hash in a script's or a stylesheet's
    URL changes no part."""
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
            if name != "script" or "&" not in tag.group(0):
                return closing.end(), None
            end = closing.end()
        elif name in _VOID_HEAD:
            if name == "link":
                self_closing = tag.group(0).endswith("/>") and tag.end(2) < end - 1  # (as the locator reads it)
                links.append(Element("link", parse_attributes(tag.group(2)), lt, end, end, end, self_closing))
            return end, None
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
