"""The language a page declares: the ``lang`` of its ``<html>`` element, read as a parser reads it.

The evidence labels of a page follow it (``ja``/``en``), and ``init`` guesses a site's
default from it; a regex would also take an ``<html>`` inside a comment or a script.
"""

from __future__ import annotations

from re import Match

from .tokenizer import attribute_value, iter_attributes, scan
from .treebuilder import Handler, TreeBuilder


def primary_subtag(lang: str | None) -> str | None:
    """``ja-JP`` → ``ja``, ``en_US`` → ``en`` (a common misspelling, same intent); None unless it is
    1–8 ASCII letters, so nothing odd reaches a comment or the output."""
    if lang is None:
        return None
    tag = lang.strip(" \t\n\f\r").replace("_", "-").partition("-")[0].lower()
    return tag if 0 < len(tag) <= 8 and tag.isascii() and tag.isalpha() else None


class _LangFound(Exception):
    def __init__(self, value: str) -> None:
        super().__init__(value)
        self.value = value


class _HtmlLang(TreeBuilder):
    """Sees the start tags as the tree builder does: a ``<html>`` in a comment, raw text, a
    template or SVG/MathML content does not set the document's language."""

    def __init__(self) -> None:
        super().__init__(Handler())

    def start(self, name: str, start: int, end: int, match: Match[str], self_closing: bool) -> bool:
        if name == "html" and not self.foreign and not self.templates:
            for attr, raw in iter_attributes(match.group(2)):
                if attr == "lang":
                    raise _LangFound(attribute_value(raw))
        return super().start(name, start, end, match, self_closing)


def html_lang(text: str) -> str | None:
    """The ``lang`` of the page's ``<html>`` element, or None.

    Every ``<html>`` start tag adds the attributes the element does not have yet, so the first one
    that carries ``lang`` decides, and the scan can stop there.
    """
    try:
        scan(text, _HtmlLang())
    except _LangFound as found:
        return found.value
    return None
