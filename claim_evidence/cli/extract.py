"""``claim-evidence extract check|run|score``: a thin click layer over :mod:`claim_evidence._commands.extract`."""

from __future__ import annotations

import sys

import click

from .options import FORMAT


@click.group("extract")
def extract() -> None:
    """Structured extraction from Japanese requests: hold a model's output to the
    contract (check), run an extractor over a case set (run), score the outputs (score).
    The contract and the codes CE800-CE813: SCHEMA.md "Extraction contract"."""


@extract.command("check")
@click.argument("output", metavar="OUTPUT.json|-", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@FORMAT
def check(output: str, fmt: str) -> int:
    """Check extraction outputs against the contract: one output (a JSON object), or JSON
    Lines of outputs or of `extract run` records; `-` reads standard input.

    Each violation is a finding with its code, line:column, the JSON path and what to
    write instead. Exit 0 when every output keeps the contract, 1 on any finding, 2 when
    the file cannot be read.
    """
    from .._commands.extract import check_file, check_text
    from .._core.errors import InputError
    from .._core.report import exit_code, input_error_result, report
    from .._core.textio import decode_utf8

    if output == "-":
        try:
            result = check_text(decode_utf8(sys.stdin.buffer.read(), "<stdin>"), "<stdin>")
        except InputError as exc:
            result = input_error_result("<stdin>", exc)
    else:
        result = check_file(output)
    click.echo(report([result], fmt, noun="file"), nl=False)
    return exit_code([result])


@extract.command("run")
@click.option("--cases", "cases", required=True, type=click.Path(dir_okay=False, path_type=str), metavar="CASES.jsonl")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=str), metavar="OUT.jsonl")
@click.option(
    "--model",
    default="baseline",
    show_default=True,
    metavar="M",
    help="baseline: the rule extractor, offline; any other name is a model asked through the Anthropic Messages "
    "API (the chat extra; ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL if set).",
)
def run(cases: str, out: str, model: str) -> int:
    """Extract every case of CASES.jsonl and write one record per case to OUT.jsonl:
    {"id", "output"}, or {"id", "output": null, "error", "raw"} for a reply that is no JSON.

    The model sees the contract as its instructions and the request as escaped data.
    Exit 0 when every output keeps the contract, 1 when any is malformed or breaks it
    (see extract check OUT.jsonl), 2 when the set cannot be read or the model cannot be asked.
    """
    from .._commands.extract import run_cases

    result = run_cases(cases, out, model)
    click.echo(
        f"{out}: {len(result.records)} outputs from {model} ({result.malformed} malformed, "
        f"{result.violating} breaking the contract)"
    )
    return 1 if result.malformed or result.violating else 0


@extract.command("score")
@click.option("--cases", "cases", required=True, type=click.Path(dir_okay=False, path_type=str), metavar="CASES.jsonl")
@click.option(
    "--outputs", "outputs", required=True, type=click.Path(dir_okay=False, path_type=str), metavar="OUT.jsonl"
)
@click.option(
    "--baseline",
    "baseline",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="OLD.jsonl",
    help="Earlier outputs for the same set: list the cases that got worse, and exit 1 on any.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "markdown", "html")),
    default="text",
    show_default=True,
    help="The report: text, json (fixed keys), markdown or html (a whole page, escaped).",
)
def score(cases: str, outputs: str, baseline: str | None, fmt: str) -> int:
    """Score OUT.jsonl against the expected outputs of CASES.jsonl: exact match per case,
    accuracy per field (items in order, field by field), precision and recall of issues as
    sets, status accuracy, a table per category, contract violations counted apart, and
    the set's limits.

    Exit 0 once scored (with --baseline: 1 when any case got worse), 2 when a file cannot
    be read or names a case the set does not have.
    """
    from .._commands.extract import score_files
    from .._extract.score import render

    result = score_files(cases, outputs, baseline)
    click.echo(render(result, fmt), nl=False)
    return 1 if result.regressed else 0
