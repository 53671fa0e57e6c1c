"""The page's headings (``h1``–``h6``) with their spans, in document order.

``claim add --label-from heading`` labels a claim with the heading a reader sees above it; the headings are
found by the same tokenizer and tree builder as the claim elements, so a heading inside a comment, raw text
or ``<template>`` content (which no reader sees) is never taken, and an end tag the parser implies still
closes its heading where the browser closes it.
"""

from __future__ import annotations

import re

from .locate import Element, parse_attributes
from .tokenizer import scan
from .treebuilder import Handler, TreeBuilder

HEADINGS = frozenset(f"h{level}" for level in range(1, 7))


class _Pending:
    __slots__ = ("name", "attrs", "start", "open_end")

    def __init__(self, name: str, attrs: dict[str, str], start: int, open_end: int) -> None:
        self.name = name
        self.attrs = attrs
        self.start = start
        self.open_end = open_end


class _HeadingFinder(Handler):
    def __init__(self) -> None:
        self.builder: TreeBuilder | None = None
        self.order: list[_Pending] = []
        self.done: dict[int, Element] = {}

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        assert self.builder is not None
        if name not in HEADINGS or self.builder.templates:  # (SVG and MathML names carry a prefix: never here)
            return None
        pending = _Pending(name, parse_attributes(match.group(2) or ""), start, end)
        self.order.append(pending)
        return pending

    def closed(self, name: str, token: object, content_end: int, end: int) -> None:
        if isinstance(token, _Pending):
            self.done[id(token)] = Element(token.name, token.attrs, token.start, token.open_end, content_end, end)


def headings(text: str) -> list[Element]:
    """Every ``h1``–``h6`` element of ``text`` outside inert ``<template>`` content, in start-tag order."""
    finder = _HeadingFinder()
    builder = TreeBuilder(finder)
    finder.builder = builder
    scan(text, builder)  # (it finishes the builder: every open heading is closed at the end)
    return [finder.done[id(p)] for p in finder.order if id(p) in finder.done]
