"""Extra text for the knowledge base: a Markdown or plain-text file split into chunks of bounded length.

Sections follow the ATX headings (``#`` … ``######``, never inside a fenced code block), so a
chunk stays about one topic; a section longer than the limit is split at blank lines, then at
line ends, and only a single over-long line is cut inside — never through a number or a URL,
because a chunk that ends in ``30`` where the file says ``300億`` would ground a figure the file
never states.
"""

from __future__ import annotations

import re

from .._record.numerals import find_numbers

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FRONT_MATTER = re.compile(r"---\n.*?\n---\n", re.DOTALL)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>\"'`「」『』（）()\[\]{}、。，]+")


def sections(text: str, fallback_title: str) -> list[tuple[str, str]]:
    """``(title, text)`` per heading section, in file order, the text opening with the heading's words;
    text before the first heading takes ``fallback_title``; a section with nothing under its
    heading is left out (a title alone answers no question)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    front = _FRONT_MATTER.match(text)
    if front:
        text = text[front.end() :]
    found: list[tuple[str, str, list[str]]] = [(fallback_title, "", [])]  # (title, heading words, lines under it)
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
        elif opened:
            fence = opened.group(1)
        elif heading := _HEADING.fullmatch(line):
            words = (heading.group(2) or "").strip()
            found.append((words or fallback_title, words, []))
            continue
        found[-1][2].append(line)
    out = []
    for title, words, lines in found:
        body = "\n".join(lines).strip()
        if body:
            out.append((title, f"{words}\n\n{body}" if words else body))
    return out


def pieces(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters: whole paragraphs where they fit."""
    out: list[str] = []
    current = ""
    for paragraph in (p.strip() for p in _PARAGRAPH_BREAK.split(text)):
        if not paragraph:
            continue
        if current and len(current) + 2 + len(paragraph) <= limit:
            current += "\n\n" + paragraph
            continue
        if current:
            out.append(current)
        if len(paragraph) <= limit:
            current = paragraph
        else:
            current = ""
            out.extend(_lines(paragraph, limit))
    if current:
        out.append(current)
    return out


def _lines(paragraph: str, limit: int) -> list[str]:
    out: list[str] = []
    current = ""
    for line in paragraph.split("\n"):
        if current and len(current) + 1 + len(line) <= limit:
            current += "\n" + line
            continue
        if current:
            out.append(current)
        current = line
        while len(current) > limit:
            cut = safe_cut(current, limit)
            out.append(current[:cut].rstrip())
            current = current[cut:].lstrip()
    if current:
        out.append(current)
    return [piece for piece in out if piece]


def safe_cut(text: str, limit: int) -> int:
    """A cut position at most ``limit`` that does not fall inside a number or a URL of ``text``
    (``limit`` itself when such a span starts at 0 and cannot be kept whole)."""
    cut = limit
    spans = [(n.start, n.end) for n in find_numbers(text)] + [(m.start(), m.end()) for m in URL.finditer(text)]
    for start, end in sorted(spans, reverse=True):
        if start < cut < end:
            cut = start
    return cut if cut > 0 else limit
