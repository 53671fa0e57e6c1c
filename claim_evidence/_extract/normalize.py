"""Quantities and prices as the contract writes them: exact decimal strings, read by the one number
reader (:func:`claim_evidence._record.numerals.read_amount`) that the quote check and the answer guard
use, so ``１，２００``, ``1,200`` and ``千二百`` are one value everywhere in the toolkit."""

from __future__ import annotations

import re

from .._record.numerals import AmbiguousNumber, read_amount

__all__ = ["AmbiguousNumber", "is_decimal_string", "normalize_decimal", "split_quantity"]

# The one written form of a value: no sign, no leading zeros, no trailing fractional zeros, no exponent.
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?")


def is_decimal_string(value: object) -> bool:
    """True for a string in the contract's decimal form (``"12"``, ``"2.5"``), nothing else."""
    return isinstance(value, str) and _DECIMAL.fullmatch(value) is not None


def normalize_decimal(text: str) -> str:
    """``"１，２００"`` → ``"1200"``, ``"三百億"`` → ``"30000000000"``, ``"1.2万"`` → ``"12000"``,
    ``"2.50"`` → ``"2.5"``, ``"¥3,000"`` → ``"3000"``.

    A counter after the number is not allowed here (a price or a quantity field holds the number
    alone; :func:`split_quantity` takes ``"二箱"``). Raises :class:`AmbiguousNumber` for anything that
    is not one amount, and for ``12,5``-style text that reads two ways.
    """
    amount = read_amount(text)
    if amount.unit:
        raise AmbiguousNumber(f"{text!r} carries the unit {amount.unit!r}; write the number alone")
    return amount.value


def split_quantity(text: str) -> tuple[str, str]:
    """``"二箱"`` → ``("2", "箱")``, ``"12本"`` → ``("12", "本")``, ``"５"`` → ``("5", "")``: the quantity
    as a decimal string and the unit as written. Raises :class:`AmbiguousNumber` as :func:`normalize_decimal`."""
    amount = read_amount(text)
    if amount.currency is not None:
        raise AmbiguousNumber(f"{text!r} is a price, not a quantity")
    return amount.value, amount.unit
