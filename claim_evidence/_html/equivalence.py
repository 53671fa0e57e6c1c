"""When a slot's content is the rendered block as an HTML minifier leaves it.

Minifiers rewrite markup without changing the document a browser builds from
it, and a block they touched is not stale. Two fragments are **equivalent**
when the HTML tree builder sees the same sequence of

- elements opened (name, and the set of attributes with their decoded values —
  so quoting, attribute order and entity spelling do not matter, and an
  attribute written without a value equals one written ``=""``),
- elements closed (an end tag the minifier left out, ``</p>`` or ``</li>``,
  closes its element where the parser closes it), and
- text, with character references decoded and each run of ASCII whitespace
  written as one space, text that is only whitespace left out.

Everything else differs: a changed word, attribute, element or order. Folding
whitespace is what minifiers do to all text; for a quote shown with
``white-space: pre-line`` it joins lines, the one visible change this allows.
``--write`` still writes the exact rendering wherever a slot differs.
"""

from __future__ import annotations

import html
import re

from .tokenizer import attribute_value, iter_attributes, scan
from .treebuilder import Handler, TreeBuilder

_WHITESPACE = re.compile(r"[ \t\n\f\r]+")
Event = tuple[str, str, tuple[tuple[str, str], ...]]


class _Events(Handler):
    def __init__(self, source: str) -> None:
        self.source = source
        self.events: list[Event] = []

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        attrs = {key: attribute_value(raw) for key, raw in reversed(list(iter_attributes(match.group(2) or "")))}
        self.events.append(("open", name, tuple(sorted(attrs.items()))))
        return None

    def closed(self, name: str, token: object, content_end: int, end: int) -> None:
        self.events.append(("close", name, ()))

    def text(self, start: int, end: int, raw: bool) -> None:
        chunk = self.source[start:end]
        folded = _WHITESPACE.sub(" ", chunk if raw or "&" not in chunk else html.unescape(chunk))
        if not folded.strip():
            return
        if self.events and self.events[-1][0] == "text":  # one text run, however the tokenizer split it
            folded = self.events.pop()[1] + folded
        self.events.append(("text", folded, ()))


def events(fragment: str, context: str = "div") -> list[Event]:
    """What the tree builder sees in ``fragment`` parsed as the content of a ``context`` element."""
    found = _Events(fragment)
    scan(fragment, TreeBuilder(found, context))
    return found.events


# Slot elements in which a start tag of one of _OPENERS, first in the content, opens an element: they parse
# their content "in body" (or "in cell", which hands these tags to it), where each of these is inserted.
_FLOW_CONTEXTS = frozenset(
    {"div", "section", "article", "aside", "main", "nav", "header", "footer", "li", "dd", "dt", "td", "th"}
    | {"blockquote", "figure", "figcaption", "details", "span", "p"}
)
_OPENS = re.compile(r"[ \t\n\f\r]*<(?:aside|div|section|details|p|span)[ \t\n\f\r/>]", re.IGNORECASE)
_BLANK = " \t\n\f\r"


def equivalent(a: str, b: str, context: str = "div") -> bool:
    """True when ``a`` and ``b`` build the same content (see the module's definition).

    An empty slot (what a generator leaves for every claim) against a rendered block is answered without
    tokenizing the block: blank content has no events, and a block opening with one of those elements in
    a flow container has at least one (the check asks this once per slot of every page it builds)."""
    if a == b:
        return True
    if context in _FLOW_CONTEXTS:
        for blank, other in ((a, b), (b, a)):
            if not blank.strip(_BLANK) and _OPENS.match(other):
                return False
    return events(a, context) == events(b, context)
