"""Options shared by the ``claim-evidence`` commands (one definition, one help text)."""
from __future__ import annotations

from typing import TypeVar

import click

from ._report import REPORT_FORMATS

T = TypeVar("T")

FORMAT = click.option(
    "--format", "fmt", type=click.Choice(REPORT_FORMATS), default="text", show_default=True,
    help="text: FILE:LINE:COL: CODE [CLAIM-ID] message; json: fixed keys; github: workflow annotations; sarif: SARIF 2.1.0.",
)


REQUIRE_QUOTES = click.option(
    "--require-quotes", is_flag=True,
    help="A matched or partial claim whose statement has numbers must quote the passage they come from (CE905 "
    "becomes an error). static-helper and prepublish take this from require_quotes in claim-evidence.toml.",
)
