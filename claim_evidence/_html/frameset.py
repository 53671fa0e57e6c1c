"""The frameset-ok flag of the HTML standard, decided by replaying the text before a ``<frameset>``.

A ``<frameset>`` start tag that the standard accepts drops the whole body, and with it every claim and
slot. Whether it is accepted depends on everything before it (has the body started, has any content said
"not ok"), so the tree builder asks here only when it meets one: pages without one pay nothing.
"""

from __future__ import annotations

import html
import re

from .elements import RCDATA
from .tokenizer import _WS, attribute, lower, scan
from .treebuilder import Handler, TreeBuilder

# Start tags after which the frameset-ok flag is "not ok" (input: unless type=hidden).
_FRAMESET_NOT_OK = frozenset(
    "applet area br button dd dt embed hr iframe image img keygen li listing marquee object pre select table "
    "textarea wbr xmp".split()
)
# Start tags a parser puts in the head while the body has not started (a <frameset> there is always taken).
_HEAD_ONLY = frozenset("base basefont bgsound link meta noframes noscript script style template title".split())


def frameset_accepted(text: str, at: int) -> bool:
    """Whether the standard takes the ``<frameset>`` start tag at ``text[at]`` (not in a template): yes
    while the body has not started, else only if its frameset-ok flag is still "ok". Replays ``text[:at]``."""
    probe = _FramesetProbe(text)
    builder = _FramesetBuilder(probe)
    probe.builder = builder
    scan(text, builder, 0, at)
    return probe.ok or not probe.body


class _FramesetProbe(Handler):
    """Follows the frameset-ok flag and whether the body has started. Where the model is unsure it leaves
    the flag "ok" and the body unstarted: a frameset taken by mistake is reported, never passed silently."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.builder: TreeBuilder | None = None
        self.ok = True
        self.body = False

    def opened(self, name: str, index: int, start: int, end: int, match: re.Match[str]) -> object:
        assert self.builder is not None
        if name in _FRAMESET_NOT_OK or (name == "input" and not _hidden_input(match.group(2))):
            self.ok = False
        if name not in _HEAD_ONLY and not self.builder.templates:
            self.body = True
        return None

    def text(self, start: int, end: int, raw: bool) -> None:
        builder = self.builder
        assert builder is not None
        if raw and not builder.foreign:
            return  # script, style and other raw text: never characters of the body (CDATA in SVG is)
        if not raw and builder.names[-1] in RCDATA:
            return  # a <title>'s text (a <textarea> already said "not ok")
        chunk = self.source[start:end]
        if not raw and "&" in chunk:
            chunk = html.unescape(chunk)
        if chunk.strip(_WS + "\0"):  # a NULL is dropped, whitespace is kept: neither changes the flag
            self.ok = False
            if not builder.templates:
                self.body = True


def _hidden_input(attributes: str) -> bool:
    return lower(attribute(attributes, "type")) == "hidden"


class _FramesetBuilder(TreeBuilder):
    """The tree builder of :func:`frameset_accepted`: it also sees the tags the plain builder skips."""

    __slots__ = ("probe",)

    def __init__(self, probe: _FramesetProbe) -> None:
        super().__init__(probe)
        self.probe = probe

    def _frameset(self, at: int, match: re.Match[str]) -> None:
        pass  # one before the frameset being decided was ignored

    def start(self, name: str, start: int, end: int, match: re.Match[str], self_closing: bool) -> bool:
        if name == "body" and not self.templates:
            self.probe.ok = False
            self.probe.body = True
        return super().start(name, start, end, match, self_closing)

    def end(self, name: str, start: int, end: int) -> None:
        if not self.templates and name in ("br", "body", "html"):
            self.probe.body = True
            if name == "br":
                self.probe.ok = False  # </br> is a <br>
        super().end(name, start, end)
