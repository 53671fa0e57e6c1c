"""Checking the tables of ``claim-evidence.toml``: one wording for a config finding, a table that is
not one, and an unknown key.

The site's settings (:mod:`claim_evidence._site.config`) and the ``[chat]`` table
(:mod:`claim_evidence._answer.config`) are read from the same file, and a typo must be refused
in the same words wherever it is: SH003 when a table is something else, SH002 naming the unknown
key, the close one when there is one, else every key the table knows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .diagnostics import Diagnostic, InputError
from .hints import closest


def config_error(
    code: str, message: str, name: str | None, line: int | None = None, column: int | None = None
) -> InputError:
    """A finding about the config file ``name`` (its subject is ``config``)."""
    return InputError(Diagnostic(code, message, subject="config", file=name, line=line, column=column))


def table(data: Any, key: str, known: tuple[str, ...], name: str | None) -> dict[str, Any]:
    """``data`` as the table ``[key]`` of the file: SH003 when it is not a table, SH002 for a key it does
    not know."""
    if not isinstance(data, dict):
        raise config_error("SH003", f"{key} must be a table: [{key}]", name)
    check_keys(data, known, name, f"{key}.")
    return data


def check_keys(data: Mapping[str, Any], known: tuple[str, ...], name: str | None, table: str = "") -> None:
    """SH002 for the first key of ``data`` not in ``known``; ``table`` is the table's dotted prefix
    (``"chat."``; ``""`` for the top level)."""
    for key in data:
        if key not in known:
            close = closest(key, known)
            hint = f" (did you mean {close!r}?)" if close else f" (known keys: {', '.join(known)})"
            raise config_error("SH002", f"unknown key {table}{key!r}{hint}", name)
