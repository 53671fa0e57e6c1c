"""The one date shape of the records: ``YYYY-MM-DD`` in ASCII digits, a day that exists.

Every date a bundle, a day file, a review request or a command line holds is read by this rule
(SCHEMA.md), and a message's did-you-mean (:func:`.hints.date_hint`) must know it too: so it lives on
the ground floor, where the record layer and the hints can both import it. Standard library only.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from typing import Final

DATE_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def is_valid_date(value: object) -> bool:
    """Strict calendar date: ``YYYY-MM-DD`` in ASCII digits that exists."""
    return isinstance(value, str) and _is_valid_date_text(value)


# A bundle names the same few dates over and over (every claim's checked_at, every source's
# published_at): the answer for a string is remembered, per process.
@lru_cache(maxsize=4096)
def _is_valid_date_text(value: str) -> bool:
    if DATE_RE.fullmatch(value) is None:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True
