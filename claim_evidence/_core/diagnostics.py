"""Findings as values, and how a finding names its place.

The error hierarchy is :mod:`.errors`; its root classes are re-exported here, where most modules
have always imported them from."""

from __future__ import annotations

import json
import os
import re
import traceback
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from .errors import ClaimEvidenceError as ClaimEvidenceError
from .errors import EvidenceValidationError as EvidenceValidationError
from .errors import InputError as InputError
from .errors import MalformedInput as MalformedInput

# A note tells what was not checked (e.g. snapshots without their folder): it never fails, not even with --strict.
Severity = Literal["error", "warning", "note"]
PathParts = tuple[str | int, ...]

# Codes that recording a review clears (the seal, its date, the subject): every other error
# of a claim must be fixed first, and `review record` refuses until it is.
CLEARED_BY_REVIEW = frozenset({"CE311", "CE401", "CE403", "CE105", "CE106"})
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A line ends at CRLF, a bare CR or LF, as in HTML and in editors (a CRLF counts once).
_LINE_END = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> list[int]:
    """Offsets where the second and later lines of ``text`` start (for :func:`line_column`)."""
    return [m.end() for m in _LINE_END.finditer(text)]


def line_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """How many lines end in ``text[start:end]`` (as :func:`line_starts` counts them: a CRLF once; counted
    rather than searched, a tenth of the time)."""
    end = len(text) if end is None else end
    lf = text.count("\n", start, end)
    if text.find("\r", start, end) < 0:
        return lf
    return lf + text.count("\r", start, end) - text.count("\r\n", start, end)


def line_column(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of a character offset, given :func:`line_starts` of the text."""
    line = bisect_right(starts, offset)
    return line + 1, offset - (starts[line - 1] if line else 0) + 1


def json_path(parts: Iterable[str | int]) -> str:
    """``("claims", 0, "id")`` -> ``$.claims[0].id``; odd keys are quoted."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _PLAIN_KEY.fullmatch(part):
            out.append(f".{part}")
        else:
            # Readable as JSON, but with every character a terminal could act on (a bidi override in a
            # key) escaped: paths are printed. json.loads reads the escapes back (_jsonpos.parse_path).
            quoted = json.dumps(part, ensure_ascii=False)
            out.append("[" + "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in quoted) + "]")
    return "".join(out)


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable ``code``, where it is, and what to do about it.

    ``path`` is a JSON path into the bundle (``$.claims[0].statement``);
    ``subject`` names the record (``claim fictional-rate``) so the legacy
    message form ``"claim fictional-rate: statement required"`` can be rebuilt.
    ``file``/``line``/``column`` are filled in by callers that know a file; ``written`` by
    those that know the sources a built page came from (see ``_sourcemap``).
    """

    code: str
    message: str
    path: str = "$"
    severity: Severity = "error"
    subject: str = "claim_evidence"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = field(default=None, compare=False)
    # Where the finding's markup is written in the site's sources (``sources`` in claim-evidence.toml):
    # ``(file, line)`` pairs, one when a single source holds it, several when more do (none is chosen).
    written: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    @property
    def text(self) -> str:
        """The legacy string form that existing callers match substrings in."""
        return f"{self.subject}: {self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def fails(self, strict: bool = False) -> bool:
        """An error always fails; a warning only under ``--strict``; a note never."""
        return self.is_error or (strict and self.severity == "warning")


def format_location(d: Diagnostic) -> str:
    """``file:line:col`` when a position is known, else ``file:$.json.path``, else (a finding about
    the whole file) ``file``."""
    where = d.file or "<input>"
    if d.line is not None:
        return f"{where}:{d.line}:{d.column or 1}"
    return where if d.path == "$" else f"{where}:{d.path}"


def internal_error(exc: BaseException, file: str | None) -> Diagnostic:
    """A bug met while checking ``file``, as that file's finding (CE999): ``internal error: Type: message``,
    with the traceback when CLAIM_EVIDENCE_DEBUG is set. One file's bug must not stop the others."""
    message = f"internal error: {type(exc).__name__}: {exc}"
    if os.environ.get("CLAIM_EVIDENCE_DEBUG"):
        message += "\n" + "".join(traceback.format_exception(exc)).rstrip()
    else:
        message += " (set CLAIM_EVIDENCE_DEBUG=1 for details)"
    return Diagnostic("CE999", message, file=file, subject="file")
