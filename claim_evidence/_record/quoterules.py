"""The rule over a statement's figures: each must be in a quoted passage, by value (CE317,
CE904, CE905).

A rule of :mod:`.validation` (registered in its ``RULES``), like :mod:`.recordrules`; the numbers
are read by :mod:`.numerals`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .numerals import Number, find_numbers
from .recordrules import refs
from .vocabulary import SUPPORTING_STATUSES, str_or_none

if TYPE_CHECKING:
    from .validation import Context, Finding


def numbers_quoted(ctx: Context) -> Iterator[Finding]:
    """Every figure of a supported statement must be in a quoted passage, by value.

    This is the check a seal cannot make: a record can be reviewed, sealed and
    still say 300億 where its source said 30億. Quantities (amounts, percentages,
    multiples, anything with 万/億/兆) missing from the quotes are errors (CE317);
    other numbers (dates, counts, versions) are warnings (CE904); a statement
    with numbers and no quote at all cannot be checked (CE905, an error only
    under :class:`Policy` ``require_quotes``, applied by the caller).
    """
    for i, claim in ctx.claim_dicts():
        statement = claim.get("statement")
        if str_or_none(claim.get("status")) not in SUPPORTING_STATUSES or not isinstance(statement, str):
            continue
        numbers = _distinct(find_numbers(statement))
        if not numbers:
            continue
        passages, malformed = _quoted_passages(claim)
        if not passages:
            if not malformed:  # a malformed quote is CE316 already
                yield (
                    "CE905",
                    ("claims", i, "source_refs"),
                    _UNQUOTED + ", ".join(_shown(n) for n in numbers),
                    "warning",
                )
            continue
        quoted = _distinct([n for passage in passages for n in find_numbers(passage)])
        found = {n.value for n in quoted}
        missing = [n for n in numbers if n.value not in found]
        amounts = [n for n in missing if n.quantity]
        others = [n for n in missing if not n.quantity]
        if amounts:
            yield (
                "CE317",
                ("claims", i, "statement"),
                _not_quoted(amounts, [n for n in quoted if n.quantity] or quoted),
                "error",
            )
        if others:
            yield "CE904", ("claims", i, "statement"), _not_quoted(others, quoted), "warning"


_UNQUOTED = "statement has numbers but no quoted passage to check them against (add quote.exact to a source_ref): "


_LISTED = 6  # quoted numbers named in a message; a long passage would bury the point


def _quoted_passages(claim: dict[str, Any]) -> tuple[list[str], bool]:
    """The ``exact`` passages of the claim's quotes, and whether any quote is malformed."""
    passages: list[str] = []
    malformed = False
    for _, ref in refs(claim):
        quote = ref.get("quote") if isinstance(ref, dict) else None
        if quote is None:
            continue
        exact = quote.get("exact") if isinstance(quote, dict) else None
        if isinstance(exact, str) and exact.strip():
            passages.append(exact)
        else:
            malformed = True
    return passages, malformed


def _distinct(numbers: Iterable[Number]) -> list[Number]:
    seen: set[str] = set()
    kept = []
    for number in numbers:
        if number.value not in seen:
            seen.add(number.value)
            kept.append(number)
    return kept


def _shown(number: Number) -> str:
    """``300億 (30000000000)``: as written, and the value compared when it reads differently."""
    return number.text if number.text == number.value else f"{number.text} ({number.value})"


def _not_quoted(missing: list[Number], quoted: list[Number]) -> str:
    which = "that value" if len(missing) == 1 else "those values"
    has = ", ".join(_shown(n) for n in missing)
    listed = ", ".join(_shown(n) for n in quoted[:_LISTED]) + (", …" if len(quoted) > _LISTED else "")
    return f"statement has {has} but no quoted passage has {which}; " + (
        f"quotes have {listed}" if quoted else "the quotes have no numbers"
    )
