"""``claim-evidence kb`` and ``claim-evidence answer``: a thin click layer over the knowledge base and the guard's regression set."""

from __future__ import annotations

from pathlib import Path

import click

from .._core.atomic import atomic_write_bytes
from .options import SITE_CONFIG


@click.group("kb")
def kb() -> None:
    """The knowledge base an AI answer may draw on (see `answer`)."""


@kb.command("build")
@SITE_CONFIG
@click.option(
    "--today",
    metavar="YYYY-MM-DD",
    default=None,
    help="The build date (built_at, and review ages under [freshness]); default: SOURCE_DATE_EPOCH (its UTC date), else the clock.",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Where to write kb.json.",
)
def kb_build(config_path: Path | None, today: str | None, out: Path) -> int:
    """Write kb.json: one chunk per claim of the registered pages and of the [news]
    correction registry, with its evidence state (FACT, CONFIRMED, ESTIMATE, HYPOTHESIS or
    UNVERIFIED, by the [chat] mapping), plus the [chat] extra files split by heading.

    A claim whose record has any error, or was never reviewed, is UNVERIFIED. The same
    inputs and build date give the same bytes; the file names its build date and where it
    came from. Exit 0 once written, 2 on a config error or unreadable input.
    """
    from .._answer.kb import dumps_kb
    from .._commands.kbbuild import build_kb
    from .._site.config import find_config, load_config

    path = config_path or find_config(Path.cwd())
    if path is None:
        raise click.UsageError("no claim-evidence.toml here or in a parent folder; give --config FILE")
    skipped: list[str] = []
    built = build_kb(load_config(path), today, skipped=skipped)
    atomic_write_bytes(out, dumps_kb(built))
    for line in skipped:
        click.echo(
            f"claim-evidence: kb build: no chunks from {line} (its records cannot be read; fix the page)", err=True
        )
    states = ", ".join(f"{state} {n}" for state, n in _count(built["chunks"]).items())
    click.echo(
        f"{out}: written ({len(built['chunks'])} chunks: {states}; built_at {built['built_at']} from {built['built_at_source']})"
    )
    return 0


@click.group("answer")
def answer() -> None:
    """The answer guard's regression set."""


@answer.command("eval")
@click.argument("cases", metavar="SET.jsonl", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--kb",
    "kb_path",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="KB",
    help="The kb.json whose chunk ids the cases name (needed unless every case carries its chunks).",
)
def answer_eval(cases: str, kb_path: str | None) -> int:
    """Run the guard over every case of SET.jsonl and compare what it makes of each model
    output with what the case expects (finding codes, answer, items, state, sources).

    Prints the pass count per category and each failure with its line. Exit 0 when every
    case passes, 1 when any fails, 2 when the set or the kb cannot be read (a malformed
    case names its line).
    """
    from .._answer.kb import load_kb
    from .._commands.answereval import render_eval, run_eval

    result = run_eval(cases, load_kb(kb_path) if kb_path else None)
    click.echo(render_eval(result), nl=False)
    return 1 if result.failed else 0


def _count(chunks: list[dict[str, object]]) -> dict[str, int]:
    from .._answer.config import STATES

    return {state: n for state in STATES if (n := sum(c["state"] == state for c in chunks))}
