"""A checked page's *prefix*: what lets the page cache answer its next text with its last result.

A generator rewrites every page on every build, mostly where nothing the check reads changes: after
the evidence, in the head, in the navigation before it (:mod:`.._html.relocate` says when the reference
locates such a text as before). :func:`page_prefix` keeps what a passing page's findings follow from;
:func:`prefix_holds` and :func:`head_moved` say whether a new text checks as that page did, and
:func:`moved_findings` places its findings in the new text. Apart from the checker (:mod:`.page`): a
run whose pages are all answered so never loads it (the tokenizer's tree builder, validation, jinja2).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core.diagnostics import Diagnostic
from .._core.splice import newline_style
from .._html import relocate
from .lang import page_lang
from .options import PageOptions
from .stylesheet import links_stylesheet

if TYPE_CHECKING:
    from .page import Page


@dataclass(frozen=True)
class Prefix:
    """What decides a checked page's findings besides the run's settings and the page's name: its text up
    to the end of its last evidence element (``end`` characters, their SHA-256 ``digest``: ``""`` in a
    prefix with a head, which its head tests instead), its newline and its labels' language
    (:func:`page_prefix`)."""

    end: int
    size: int  # the UTF-8 bytes of those characters
    digest: str
    newline: str
    lang: str
    # The page's head and the digest of its text from there to ``end`` (:func:`.._html.relocate.head`): a
    # text that differs only in the head and the rest is answered by :func:`head_moved`. None when the
    # page's first line holds more than a head may (or a line ends with a CR).
    head: relocate.Head | None = None

    @property
    def cut(self) -> relocate.Cut:
        return relocate.Cut(self.end, self.size, self.digest)


def page_prefix(page: Page, read: relocate.Head | None = None) -> Prefix | None:
    """The :class:`Prefix` of a checked page, when every later text that :func:`prefix_holds` for checks
    exactly as it did (under the same settings and name); else None. ``read``: the page's head as the
    page cache read it against the page's last prefix (:func:`read_head`: a build that changed the page
    after its head), which is not read again; its middle is the page's own (:func:`.._html.relocate.with_middle`).

    Why that is exact: every finding of a page is a function of where its markup is (:class:`.._html.locate.Located`),
    of its text inside that markup (the bundle script, the claim elements' text, the links, the slots'
    content), of its ``<html lang>`` and its newline style (the argument :func:`.page._prove` rests on), each
    finding placed at an offset inside that markup. The one reading of the text beyond it is the search
    for SVG or MathML that swallowed a bundle script or a stylesheet link (:func:`.markup._parsing`),
    made only for a page without exactly one bundle script or with SH130: such a page has no prefix. A
    text that :func:`prefix_holds` for locates as this one did (:func:`.._html.relocate.holds`), so its
    markup, and the text inside it, all before ``end``, are this page's, and so are its language and
    newline: it has this page's findings, at the same lines and columns."""
    if len(page.located.scripts) != 1 or any(d.code == "SH130" for d in page.diagnostics):
        return None
    end = relocate.cut(page.located)
    if end is None:
        return None
    newline = newline_style(page.text)
    head = relocate.with_middle(read, page.text, end) if read is not None else None
    if head is None:
        head = relocate.head(page.text, end)
    if head is not None:  # (no digest: a prefix with a head is tested by its head, as in head_moved)
        return Prefix(end, head.size + head.middle_size, "", newline, page.lang, head)
    kept = relocate.prefix(page.located)
    assert kept is not None  # (its cut is end's)
    return Prefix(kept.end, kept.size, kept.digest, newline, page.lang)


def prefix_holds(prefix: Prefix, text: str, options: PageOptions, *, same_start: bool = False) -> bool:
    """Whether ``text``, checked with ``options``, checks as the page ``prefix`` came from (see
    :func:`page_prefix`; the caller keys the prefix by the settings and the page's name). ``same_start``:
    the caller found the page's bytes to start with the prefix's (:func:`.._html.relocate.starts_with`)."""
    return (
        relocate.holds(text, prefix.cut, same_start=same_start)
        and newline_style(text) == prefix.newline
        and page_lang(text, options.lang) == prefix.lang
    )


def read_head(prefix: Prefix, data: bytes, text: str, options: PageOptions) -> relocate.Head | None:
    """The head of ``text`` (``data`` decoded: UTF-8 without a byte-order mark) read against ``prefix``'s
    (:func:`.._html.relocate.head_against`, its links judged as in :func:`head_moved`), its middle not yet
    compared; None when ``prefix`` has no head or ``text``'s differs in what decides something."""
    kept = prefix.head
    if kept is None:
        return None
    return relocate.head_against(data, text, kept, lambda links: links_stylesheet(links, options))


def head_moved(
    prefix: Prefix, data: bytes, text: str, options: PageOptions, *, read: relocate.Head | None = None
) -> Prefix | None:
    """The :class:`Prefix` of ``text`` (``data`` decoded: UTF-8 without a byte-order mark), checked with
    ``options``, when it checks as the page ``prefix`` came from with every finding after the head moved
    by as many lines as its head gained (``head.lines`` of the two prefixes; the caller keys the prefix
    by the settings and the page's name); else None. A text that is the page's up to its last evidence
    element, only its rest changed (:func:`prefix_holds`), is such a text too. The prefix returned has
    no digest (``""``): a prefix with a head is tested by its head.

    Why that is exact: :func:`.._html.relocate.moved_head` holds when ``text`` is that page with only its
    head changed in what decides nothing (in its body part, the navigation and such before the evidence,
    in markup that leaves the same elements open) and its rest (after the last evidence element) in what
    adds nothing: the reference then locates every element after the head where it was, moved by the
    head's change in length, with the same text inside it. Findings follow from that
    location, that text, the language and the newline (see :func:`page_prefix`), each placed at an offset
    inside the markup; an offset after the head keeps its column (the head ends a line) and moves by
    the head's line breaks. A finding placed in the head is not moved: the caller refuses its result.

    A head whose links differ (an asset's new hash in the URL of every page's stylesheet, a preload link
    more) is such a head when one of its links is the evidence stylesheet's as SH130 asks, as the page's
    was (a page with SH130 has no prefix): the one reading of a page's links in a check is that test, and
    the message of an SH130 no page with a prefix has (:mod:`.stylesheet`).

    ``read``: :func:`read_head` of the same arguments, when the caller has it (not read again)."""
    head = read if read is not None else read_head(prefix, data, text, options)
    if head is None or not relocate.middle_holds(data, text, head):
        return None
    if newline_style(text) != prefix.newline or page_lang(text, options.lang) != prefix.lang:
        return None
    # (No digest: a prefix with a head is tested by its head, which holds wherever the digest would.)
    return Prefix(head.end + head.middle, head.size + head.middle_size, "", prefix.newline, prefix.lang, head)


_NAMES_A_LINE = re.compile(r"\blines? \d")


def moved_findings(diagnostics: list[Diagnostic], old: Prefix, new: Prefix) -> list[Diagnostic] | None:
    """The findings of the page ``old`` came from, placed in the text ``new`` came from (:func:`head_moved`):
    every line after the head moved by the line breaks the head gained; None when a finding is placed in
    the head, or names a line in its message (a link's, a ``<frameset>``'s, an ``<a>``'s: they may be in
    the head, and where in the new head they went is not known here; only errors name one today, and
    errors are never answered)."""
    if old.head is None or new.head is None:
        return None
    lines, shift = old.head.lines, new.head.lines - old.head.lines
    moved = []
    for d in diagnostics:
        if _NAMES_A_LINE.search(d.message):
            return None
        if d.line is not None:
            if d.line <= lines:
                return None
            d = dataclasses.replace(d, line=d.line + shift)
        moved.append(d)
    return moved
