"""The language a page's evidence labels are written in: its ``<html lang>``, else the site's.

Apart from the checker (:mod:`.page`) because the page cache asks it too (:mod:`.prefix`), of a page it
may answer without checking.
"""

from __future__ import annotations

import re

from .._html.lang import html_lang, primary_subtag
from .._html.tokenizer import START_TAG, iter_attributes
from .._record.vocabulary import LABELS

_HTML_TAG = re.compile(r"<[hH][tT][mM][lL](?=[\t\n\f\r />])")


def page_lang(text: str, default: str) -> str:
    """The language of a page's evidence labels: the primary subtag of its ``<html lang>`` (``ja-JP`` →
    ``ja``) when labels exist in that language, else ``default`` (the site's ``lang``)."""
    # Cheap test first: without an <html> start tag that carries lang anywhere, the tree builder's
    # scan (which reads the whole page when no <html> carries one) cannot find one.
    if not any(_carries_lang(text, m.start()) for m in _HTML_TAG.finditer(text)):
        return default
    tag = primary_subtag(html_lang(text))
    return tag if tag is not None and tag in LABELS else default


def _carries_lang(text: str, at: int) -> bool:
    match = START_TAG.match(text, at)
    return match is not None and any(name == "lang" for name, _ in iter_attributes(match.group(2)))
