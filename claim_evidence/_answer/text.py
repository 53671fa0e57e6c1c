"""The text rules of the answer guard: cleaning, cutting, state tags, banned phrases and links.

Kept apart from the guard's flow so each rule reads on its own and can be tested with exact
strings; the guard (``guard``) decides what happens when one of them fails.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from typing import Any

from .._core.normalize import folded_phrase
from .._core.urls import safe_http_url
from .config import STATE_RANK, UNVERIFIED
from .mdchunks import URL, safe_cut

ELLIPSIS = "…"
_TAG = re.compile(r"[\[［]([^\]］\s]{1,20})[\]］]\s*")
# C0/C1 controls left after whitespace is folded, and the bidirectional overrides that can make
# shown text read differently from what was checked.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
URL_END = ".,;:!?'\""


def clean(text: str) -> str:
    """Whitespace runs (line breaks, tabs) folded to one space, other controls and bidirectional
    overrides removed, ends stripped: an answer is one paragraph of plain text."""
    return " ".join(_HIDDEN.sub("", " ".join(text.split())).split())


def cut_text(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, ending in … when cut — never inside a number or a URL."""
    if len(text) <= limit:
        return text
    cut = safe_cut(text, limit - 1)
    return text[:cut].rstrip() + ELLIPSIS


def split_tag(item: str) -> tuple[str, str, str | None]:
    """``(state, body, problem)``: the item's leading ``[STATE]`` (any case, full-width brackets too);
    a missing or unknown tag gives UNVERIFIED and says so."""
    match = _TAG.match(item)
    if match is None:
        return UNVERIFIED, item, "no [STATE] tag: [UNVERIFIED] added"
    word = unicodedata.normalize("NFKC", match.group(1)).upper()
    if word not in STATE_RANK:
        return (
            UNVERIFIED,
            item[match.end() :].strip(),
            f"unknown tag {show(match.group().strip())}: replaced by [UNVERIFIED]",
        )
    return word, item[match.end() :].strip(), None


@lru_cache(maxsize=32)
def banned_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for every phrase; a phrase starting with a Latin letter or digit must start a word
    (``definitely`` must not strike ``indefinitely``)."""
    parts = []
    for phrase in sorted({folded_phrase(p) for p in phrases if folded_phrase(p)}, key=lambda p: (-len(p), p)):
        edge = "(?<![0-9a-z])" if phrase[0].isascii() and phrase[0].isalnum() else ""
        parts.append(edge + re.escape(phrase))
    return re.compile("|".join(parts)) if parts else None


def without_urls(text: str) -> str:
    """``text`` with every URL blanked out: the digits of a path are no figure of the answer."""
    return URL.sub(lambda m: " " * len(m.group()), text)


def site_link(value: Any) -> str:
    """A chunk's own URL: a safe http(s) URL, or a path on the site that shows the answer (``/a.html#evidence-x``)."""
    if safe_http_url(value):
        return str(value)
    if (
        isinstance(value, str)
        and value.startswith("/")
        and not value.startswith("//")
        and safe_http_url("https://site.invalid" + value)
    ):
        return value
    return ""


def show(value: Any) -> str:
    """A value for a message: JSON, cut to 60 characters."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = type(value).__name__
    return shown if len(shown) <= 60 else shown[:59] + ELLIPSIS
