"""Options shared by the ``claim-evidence`` commands (one definition, one help text)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import click

from .._core.hints import closest, terminal_safe
from .._core.report import REPORT_FORMATS

T = TypeVar("T")

SITE_CONFIG = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Site settings (default: the nearest claim-evidence.toml).",
)

FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default="text",
    show_default=True,
    help="text: FILE:LINE:COL: CODE [CLAIM-ID] message; json: fixed keys; github: workflow annotations; sarif: SARIF 2.1.0.",
)


REQUIRE_QUOTES = click.option(
    "--require-quotes",
    is_flag=True,
    help="A matched or partial claim whose statement has numbers must quote the passage they come from (CE905 "
    "becomes an error). static-helper and prepublish take this from require_quotes in claim-evidence.toml.",
)


# An unknown id names at most this many known ones (a page may hold hundreds of claims).
KNOWN_SHOWN = 20


def unknown_message(lead: str, unknown: Sequence[str], known: Sequence[str], listing: str) -> str:
    """What a command says of ids (claims, sources, pages) that name nothing there: each one, with the
    closest known one when there is a close one, then the known ones, so that a typo is one look away.

    ``unknown_message("page.html has no claim with id", ["c-1"], ["c1", "c2"], "its claims")`` is
    ``page.html has no claim with id 'c-1' (did you mean 'c1'?); its claims: c1, c2``.
    """
    names = []
    for name in dict.fromkeys(unknown):
        close = closest(name, known)
        names.append(f"{name!r}" + (f" (did you mean {close!r}?)" if close else ""))
    listed = ", ".join(known[:KNOWN_SHOWN]) + (
        f" and {len(known) - KNOWN_SHOWN} more" if len(known) > KNOWN_SHOWN else ""
    )
    return terminal_safe(
        f"{lead} {' or '.join(names)}; {listing}: {listed or 'none'}"
    )  # (ids come from files anyone edits)


def refuse_unknown(option: str, lead: str, unknown: Sequence[str], known: Sequence[str], listing: str) -> None:
    """Stop with :func:`unknown_message` as a usage error of ``option`` (exit 2) when ``unknown`` is not empty."""
    if unknown:
        raise click.BadParameter(unknown_message(lead, unknown, known, listing), param_hint=option)
