"""The visible text of a claim element, as a reader sees it and as the statement was reviewed."""

from __future__ import annotations

import html
import re

from .._core.normalize import normalized_text
from .elements import RAWTEXT, RCDATA
from .fasttext import content_text
from .locate import Element
from .tokenizer import scan
from .treebuilder import Handler, TreeBuilder

# Not part of the statement: code and styling, inert templates, ruby readings.
HIDDEN = frozenset({"script", "style", "template", "rt", "rp", "svg:script", "svg:style"})
# Boundaries of these count as whitespace (a reader sees a line or cell break).
BLOCKS = frozenset(
    "address article aside blockquote br caption center dd details dialog dir div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li listing main menu nav ol option p pre "
    "search section summary table tbody td tfoot th thead tr ul".split()
)


class _TextCollector(Handler):
    def __init__(self, text: str) -> None:
        self.source = text
        self.parts: list[str] = []
        self.hidden = 0

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        if name in BLOCKS:
            self.parts.append(" ")
        if name in HIDDEN:
            self.hidden += 1
            return True
        return None

    def closed(self, name: str, token: object, content_end: int, end: int) -> None:
        if token is True:
            self.hidden -= 1
        if name in BLOCKS:
            self.parts.append(" ")

    def text(self, start: int, end: int, raw: bool) -> None:
        if self.hidden:
            return
        chunk = self.source[start:end]
        self.parts.append(chunk if raw or "&" not in chunk else html.unescape(chunk))


def visible_text(html_text: str, element: Element | None = None) -> str:
    """The visible text of an HTML fragment as the page check reads a claim element: the very string it
    compares with the claim's normalized ``statement`` (SH120 when they differ), so a test or a build
    step can ask what a sentence will be checked as, without a second reader that might disagree.

    ``html_text`` is read as the content of a ``<div>``: a claim element with its tags
    (``<p data-claim-id="x"><b>Bash</b> と子プロセスを隔離。</p>`` gives ``Bash と子プロセスを隔離。``)
    or just its content. ``script``, ``style``, ``template``, ``rt`` and ``rp`` are left out, the
    boundaries of block elements (``p``, ``div``, ``li``, ``br``, cells, headings, …) count as spaces,
    character references are decoded and whitespace is normalized as for fingerprints. A whole page
    reads as everything in it, its ``<title>`` included.

    ``element`` (what the page check itself passes) reads that element's content within the page
    ``html_text`` instead.
    """
    if element is None:
        return _div_text(html_text, 0, len(html_text))
    if element.name in RAWTEXT or element.name in HIDDEN:
        return ""
    if element.name in RCDATA:
        return normalized_text(html.unescape(html_text[element.open_end : element.close_start]))
    if ":" in element.name:
        return _content_text(html_text, element.name, element.open_end, element.close_start)
    return _div_text(html_text, element.open_end, element.close_start)


def _div_text(text: str, start: int, end: int) -> str:
    """Content read as a ``<div>``'s: by :mod:`.fasttext` when its shape allows, else by the reference."""
    fast = content_text(text, start, end)
    return fast if fast is not None else _content_text(text, "div", start, end)


def _content_text(text: str, context: str, start: int, end: int) -> str:
    """The reference reading: the tokenizer and tree builder tell the collector every run, push and pop."""
    collector = _TextCollector(text)
    scan(text, TreeBuilder(collector, context), start, end)
    return normalized_text("".join(collector.parts))
