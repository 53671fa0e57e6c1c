"""Replace spans of the original text, and prove that nothing else moved."""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InternalError

Edit = tuple[int, int, str]  # (start, end, replacement) in the original text


def newline_style(text: str) -> str:
    """The page's newline: that of its first line break (``\\r\\n``, ``\\n`` or ``\\r``)."""
    lf = text.find("\n")
    cr = text.find("\r")
    if lf < 0:
        return "\r" if cr >= 0 else "\n"
    if cr >= 0 and cr < lf:
        return "\r\n" if cr == lf - 1 else "\r"
    return "\n"


def with_newlines(block: str, newline: str) -> str:
    """``block`` (lines joined by ``\\n``) with the page's newline style."""
    return block if newline == "\n" else block.replace("\n", newline)


def moved_offset(offset: int, edits: Sequence[Edit]) -> int:
    """Where the character at ``offset`` of a text is in what :func:`splice` makes of it with ``edits``:
    moved by every edit that ends at or before it (text inserted at an offset comes before the character
    there); one inside a replaced span goes to where its replacement starts."""
    shift = 0
    for start, end, replacement in sorted(edits):
        if offset < start:
            break
        if offset < end:
            return start + shift
        shift += len(replacement) - (end - start)
    return offset + shift


def splice(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits, all at once against the original offsets."""
    ordered = sorted(edits)
    pieces: list[str] = []
    pos = 0
    for start, end, replacement in ordered:
        if start < pos:
            raise InternalError(f"internal error: overlapping edits at offset {start}; nothing written")
        pieces += (text[pos:start], replacement)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def new_spans(edits: Sequence[Edit]) -> list[tuple[int, int]]:
    """Where each edited span sits in the spliced text, in order."""
    shift = 0
    spans = []
    for start, end, replacement in sorted(edits):
        spans.append((start + shift, start + shift + len(replacement)))
        shift += len(replacement) - (end - start)
    return spans


def outside_identical(old: str, new: str, edits: Sequence[Edit]) -> bool:
    """True when every character of ``old`` outside the edited spans is in ``new`` unchanged."""
    ordered = sorted(edits)
    old_pos = new_pos = 0
    for (start, end, replacement), (new_start, new_end) in zip(ordered, new_spans(ordered), strict=True):
        if old[old_pos:start] != new[new_pos:new_start] or new[new_start:new_end] != replacement:
            return False
        old_pos, new_pos = end, new_end
    return old[old_pos:] == new[new_pos:]
