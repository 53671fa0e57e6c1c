"""The click side of the command lines' one error mapping, for ``claim-evidence`` and ``static-helper`` alike.

What each toolkit error prints and exits with is :func:`claim_evidence._core.report.error_report`
(no click there); here are only click's own ends of a run: its usage errors (shown as click shows
them, exit by their ``exit_code``), ``--help``/``--version`` and an abort. Imports click and the
reporting core only, so that ``static-helper`` does not load the ``claim-evidence`` commands.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from .._core.report import error_report


def run(command: click.Command, args: Sequence[str] | None, prog: str) -> int:
    """Run ``command`` as ``prog`` and return its exit code: the one place an exception becomes one.
    No traceback reaches a user (unless CLAIM_EVIDENCE_DEBUG is set)."""
    try:
        result = command.main(args=list(args) if args is not None else None, prog_name=prog, standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo(f"{prog}: aborted", err=True)
        return 2
    except Exception as exc:
        return show_error(exc, prog)
    return result if isinstance(result, int) else 0


def show_error(exc: Exception, prog: str) -> int:
    """Print what ``exc`` says on stderr and return its exit code (:func:`error_report`); an internal
    error under CLAIM_EVIDENCE_DEBUG is raised again instead."""
    told = error_report(exc, prog)
    if told is None:
        raise exc
    lines, code = told
    for line in lines:
        click.echo(line, err=True)
    return code
