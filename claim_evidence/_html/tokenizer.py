"""The HTML tokenizer: where a tag, a comment, CDATA or raw text starts and ends, as offsets.

Only the parts of the HTML standard that decide *where an element ends* are
modelled here: comments and bogus comments, CDATA in foreign content, raw text and
RCDATA elements (with script's escaped states) and attribute quoting. Every
position is an index into the original text, so spans are exact whatever the line
endings, BOM, case or quoting. :func:`scan` feeds the tokens to a
:class:`~claim_evidence._html.treebuilder.TreeBuilder`, whose state steers the
tokenizer: CDATA only in foreign content, raw text only after an HTML start tag.

The patterns are the hot path of every page read: ``tests/unit/html/test_regex_portability.py``
holds them to the shapes that match the same on every Python the package accepts.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .elements import RAWTEXT, RCDATA

if TYPE_CHECKING:
    from .treebuilder import TreeBuilder

_WS = "\t\n\f\r "
# Possessive quantifiers only on one character class; a repeated group is an atomic group around a
# greedy repeat. CPython before 3.11.5 (gh-106052) mis-matches a possessive repeat of a group that can
# backtrack inside: on Debian 12's 3.11.2 this pattern's possessive form did not match "<h>".
_ATTRS = rf"""(?>(?:[{_WS}/]*+(?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+(?>(?:[{_WS}]*+=[{_WS}]*+(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>)))?))*)"""
START_TAG = re.compile(rf"<([A-Za-z][^{_WS}/>]*+)({_ATTRS})[{_WS}/]*+>")
END_TAG = re.compile(rf"</([A-Za-z][^{_WS}/>]*+){_ATTRS}[{_WS}/]*+>")
ATTR = re.compile(
    rf"""[{_WS}/]*+((?:[^{_WS}/>=]|(?<=[{_WS}/"'])=)[^{_WS}/>=]*+)(?>(?:[{_WS}]*+=[{_WS}]*+("[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>|$)))?)"""
)
_SCRIPT_STATES = re.compile(rf"<!--|-->|<(/?)script(?=[{_WS}/>])", re.IGNORECASE)
_RAW_END: dict[str, re.Pattern[str]] = {}


_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower(name: str) -> str:
    """ASCII lowercase, as the HTML tokenizer does (other letters are kept)."""
    return name.translate(_UPPER) if not name.islower() else name


def _raw_end(name: str) -> re.Pattern[str]:
    pattern = _RAW_END.get(name)
    if pattern is None:
        pattern = _RAW_END[name] = re.compile(rf"</{re.escape(name)}(?=[{_WS}/>])", re.IGNORECASE)
    return pattern


def scan(text: str, builder: TreeBuilder, pos: int = 0, stop: int | None = None) -> None:
    """Tokenize ``text[pos:stop]`` into ``builder``; the builder's state steers raw text and CDATA."""
    end_of_text = len(text) if stop is None else stop
    handler_text = builder.handler.text
    find = text.find
    while pos < end_of_text:
        lt = find("<", pos, end_of_text)
        if lt < 0:
            handler_text(pos, end_of_text, False)
            break
        if lt > pos:
            handler_text(pos, lt, False)
        pos = _markup(text, lt, end_of_text, builder)
    builder.finish(end_of_text)


def _markup(text: str, lt: int, stop: int, builder: TreeBuilder) -> int:
    """Consume the markup starting at ``text[lt] == '<'``; return the next position."""
    nxt = text[lt + 1 : lt + 2]
    if nxt.isascii() and nxt.isalpha():
        match = START_TAG.match(text, lt, stop)
        if match is None:
            return stop  # EOF inside a tag: the tag is dropped
        end = match.end()
        name = lower(match.group(1))
        self_closing = text[end - 2] == "/" and (match.end(2) < end - 1)
        if builder.start(name, lt, end, match, self_closing):
            if name in RAWTEXT or name in RCDATA or name == "plaintext":
                return _raw_text(text, end, stop, name, builder)
        return end
    if nxt == "/":
        after = text[lt + 2 : lt + 3]
        if after.isascii() and after.isalpha():
            match = END_TAG.match(text, lt, stop)
            if match is None:
                return stop
            builder.end(lower(match.group(1)), lt, match.end())
            return match.end()
        if after == ">":
            return lt + 3
        if after == "":
            builder.handler.text(lt, stop, False)
            return stop
        return _to_gt(text, lt + 2, stop)
    if nxt == "!":
        if text.startswith("<!--", lt):
            closed = comment_end(text, lt, stop)
            return stop if closed is None else closed
        if builder.foreign and text.startswith("<![CDATA[", lt):
            close = text.find("]]>", lt + 9, stop)
            if close < 0:
                builder.handler.text(lt + 9, stop, True)
                return stop
            builder.handler.text(lt + 9, close, True)
            return close + 3
        return _to_gt(text, lt + 2, stop)
    if nxt == "?":
        return _to_gt(text, lt + 1, stop)
    handler_text = builder.handler.text
    handler_text(lt, lt + 1, False)
    return lt + 1


def _to_gt(text: str, pos: int, stop: int) -> int:
    gt = text.find(">", pos, stop)
    return stop if gt < 0 else gt + 1


def _raw_text(text: str, pos: int, stop: int, name: str, builder: TreeBuilder) -> int:
    """Skip the raw text of ``name`` (its content is text, never markup) and consume its end tag."""
    if name == "plaintext":
        builder.handler.text(pos, stop, True)
        return stop
    at = raw_close(text, pos, stop, name)
    if at is None:
        builder.handler.text(pos, stop, name not in RCDATA)
        return stop
    builder.handler.text(pos, at, name not in RCDATA)
    match = END_TAG.match(text, at, stop)
    if match is None:
        return stop
    builder.end(name, at, match.end())
    return match.end()


def comment_end(text: str, lt: int, stop: int) -> int | None:
    """Where the comment whose ``<!--`` is at ``lt`` ends (after its ``-->`` or ``--!>``; ``<!-->`` and
    ``<!--->`` are whole comments), or None when it runs to ``stop``."""
    if text.startswith("<!-->", lt):
        return lt + 5
    if text.startswith("<!--->", lt):
        return lt + 6
    close = text.find("-->", lt + 4, stop)
    # (A "--!>" that comes first starts before the "-->": searched for only up to there, not to the end
    # of the text, once per comment.)
    bang = text.find("--!>", lt + 4, stop if close < 0 else close + 3)
    if close < 0 and bang < 0:
        return None
    if bang >= 0 and (close < 0 or bang < close):
        return bang + 4
    return close + 3


def raw_close(text: str, pos: int, stop: int, name: str) -> int | None:
    """Where the raw text or RCDATA of a ``name`` element whose content starts at ``pos`` ends: the start of
    the end tag that closes it, or None when it runs to ``stop``."""
    if name == "script":
        return _script_end(text, pos, stop)
    close = _raw_end(name).search(text, pos, stop)
    return None if close is None else close.start()


def _script_end(text: str, pos: int, stop: int) -> int | None:
    """Where ``</script`` really ends a script, honouring the ``<!--<script>`` escaped states."""
    escaped = double = False
    for match in _SCRIPT_STATES.finditer(text, pos, stop):
        token = match.group(0)
        if token == "<!--":
            # "<!-->" and "<!--->" open and close at once.
            if not escaped and not text.startswith((">", "->"), match.end()):
                escaped = True
        elif token == "-->":
            if escaped:
                escaped = double = False
        elif match.group(1):  # </script
            if not double:
                return match.start()
            double = False
        elif escaped:  # <script inside an escaped section
            double = True
    return None


def iter_attributes(source: str) -> Iterator[tuple[str, str | None]]:
    """``(lowercased name, raw value or None)`` for an attribute string, duplicates included."""
    for match in ATTR.finditer(source):
        yield lower(match.group(1)), match.group(2)


def attribute_value(raw: str | None) -> str:
    """An attribute's value as written by :func:`iter_attributes` (quoted or not, or absent), decoded."""
    if raw is None:
        return ""
    if raw[:1] in ("'", '"'):
        raw = raw[1:-1]
    return html.unescape(raw) if "&" in raw else raw


def attribute(attributes: str, wanted: str) -> str:
    """The decoded value of the first attribute named ``wanted`` (lowercase) in a tag's attribute text."""
    for name, raw in iter_attributes(attributes):
        if name == wanted:
            return attribute_value(raw)
    return ""
