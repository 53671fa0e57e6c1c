"""What a message shows of a value it found, and the close match it suggests.

The values come from files anyone can edit, and messages are printed to terminals and CI logs: a
string is shown as Python's ``repr`` shows it (quoted, with every control, format and separator
character escaped, so an escape sequence or a bidi override cannot act on the terminal), cut to
:data:`SHOWN_CHARACTERS`. A did-you-mean is difflib's closest match, the one rule for every
"did you mean" of the toolkit (config keys, record keys, vocabulary words).
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Collection, Iterable
from typing import Any

from .dates import DATE_RE, is_valid_date

SHOWN_CHARACTERS = 60  # enough for any word of the vocabulary and a sentence's start

_ARTICLE = {"string": "the string", "number": "the number", "boolean": "the boolean"}
# A date typed another way: 2026-2-1, 2026/02/01, 2026年2月1日, 2026-09-03T00:00:00 (after NFKC, so full-width digits too).
_DATE_PARTS = re.compile(r"([0-9]{4})[^0-9]{1,2}([0-9]{1,2})[^0-9]{1,2}([0-9]{1,2})(?:[^0-9].*)?")
_DATE_RUN = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")
# Characters a terminal acts on: C0 and C1 controls (but the line break a message may hold) and the bidi controls.
_TERMINAL_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def closest(word: str, options: Iterable[str]) -> str | None:
    """The option ``word`` was most likely meant to be (difflib's closest match at its default
    cutoff), or None when none is close."""
    close = difflib.get_close_matches(word, list(options), n=1)
    return close[0] if close else None


def json_type(value: Any) -> str:
    """The JSON type of a loaded value: ``string``, ``number``, ``boolean``, ``null``, ``array`` or ``object``."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


def shown(value: Any) -> str:
    """``value`` as a message shows it: a string quoted and escaped (cut with ``…`` when long), a
    number, ``true``/``false``/``null`` as JSON writes them; an array or object only by its kind,
    since its content can be any size."""
    if isinstance(value, str):
        return repr(value if len(value) <= SHOWN_CHARACTERS else value[: SHOWN_CHARACTERS - 1] + "…")
    if isinstance(value, list):
        return "an array" if value else "an empty array"
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    text = json.dumps(value)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"


def found(value: Any, accepted: Collection[str] = ()) -> str:
    """What was found, for ``(found …)``: the value itself when its JSON type is one of ``accepted``
    (or nothing is said about types), else its type too (``the number 3``, ``an array``), so a
    wrong type reads as one."""
    kind = json_type(value)
    if not accepted or kind in accepted or kind in ("null", "array", "object"):
        return shown(value)
    return f"{_ARTICLE[kind]} {shown(value)}"


def date_hint(value: Any) -> str | None:
    """For a value that is not a valid date: the date it looks like (``'2026-02-01'`` for ``2026-2-1``,
    ``20260201``, ``2026/02/01``, ``2026年2月1日``), or ``no such date`` for a well-formed date that
    does not exist (``2026-02-30``); None when it looks like no date."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    text = unicodedata.normalize("NFKC", str(value)).strip()
    if isinstance(value, str) and DATE_RE.fullmatch(value):
        return None if is_valid_date(value) else "no such date"
    match = _DATE_PARTS.fullmatch(text) or _DATE_RUN.fullmatch(text)
    if match is None:
        return None
    year, month, day = match.groups()
    candidate = f"{year}-{int(month):02d}-{int(day):02d}"
    return f"did you mean {candidate!r}?" if is_valid_date(candidate) else None


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on escaped (``\\x1b``, ``\\u202e``); line
    breaks are kept. The text reporter's last guard: messages show values with :func:`shown`, but
    a message built elsewhere may quote a page's text as it is."""
    return _TERMINAL_CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
