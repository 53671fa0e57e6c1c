"""The visible text of a claim element, as a reader sees it and as the statement was reviewed."""
from __future__ import annotations

import html
import re

from ._fingerprint import normalized_text

from ._locate import Element
from ._tokens import RAWTEXT, RCDATA, Handler, TreeBuilder, scan

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


def visible_text(text: str, element: Element) -> str:
    """Normalized visible text of ``element``'s content in ``text``."""
    if element.name in RAWTEXT or element.name in HIDDEN:
        return ""
    content = text[element.open_end : element.close_start]
    if element.name in RCDATA:
        return normalized_text(html.unescape(content))
    collector = _TextCollector(text)
    context = element.name if ":" in element.name else "div"
    scan(text, TreeBuilder(collector, context), element.open_end, element.close_start)
    return normalized_text("".join(collector.parts))
