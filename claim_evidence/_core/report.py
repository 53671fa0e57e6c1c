"""Collect, then report: results per file, rendered by a reporter chosen by name."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from .diagnostics import Diagnostic, format_location
from .errors import ClaimEvidenceError, EditRefused, EvidenceValidationError, InputError, MalformedInput
from .hints import terminal_safe


@dataclass
class FileResult:
    """What one checked file (a bundle, an article, a page) came to."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    status: str = ""  # "pass", "fail", "unregistered", "unreadable", "error" (a bug); derived when empty
    detail: str = ""
    rewritten: int = 0  # evidence slots this run re-rendered in the file (static-helper --write)
    # A page with evidence markup: "" when the fast path located it, else why it was left to the reference
    # tokenizer (``static-helper --stats`` counts them); None for anything else (no markup, unreadable).
    fallback: str | None = None
    # What the page cache keeps to answer the page's next text (a page check's ``_check.page.Prefix``), or None.
    prefix: Any = field(default=None, compare=False, repr=False)
    # The record cache's key for the page's bundle (``_check.facts.record_key``), or None: a page the page
    # cache answers without checking it keeps that entry in use (its next check, after a change no page
    # entry answers, finds its records validated and rendered).
    record: str | None = field(default=None, compare=False, repr=False)
    # A page --write rewrote: (the bytes it wrote, what a check of them reports), for the page cache; else None.
    written: Any = field(default=None, compare=False, repr=False)

    def failed(self, strict: bool = False) -> bool:
        return any(d.fails(strict) for d in self.diagnostics)

    def outcome(self, strict: bool = False) -> str:
        if self.status:
            return self.status
        return "fail" if self.failed(strict) else "pass"


def input_error_result(path: str, error: InputError) -> FileResult:
    """A file that could not be checked: ``unreadable`` (exit 2), or, when it was read but holds
    malformed content (:class:`MalformedInput`), an ordinary failure (exit 1)."""
    status = "" if isinstance(error, MalformedInput) else "unreadable"
    return FileResult(path, [error.diagnostic], status=status)


def exit_code(results: Sequence[FileResult], strict: bool = False) -> int:
    """The one exit-code policy of every checking command: 2 when any file was unreadable or met an
    internal error (the others are still reported), 1 on any finding, else 0."""
    return Tally.of(results, strict).exit_code()


class Tally:
    """The outcomes of the results reported so far, counted: all that the summary line and the exit
    code need, so that a report streamed result by result (:func:`report_lines`) holds no result."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.outcomes: Counter[str] = Counter()
        self.rewritten = 0  # files with evidence slots re-rendered

    @classmethod
    def of(cls, results: Iterable[FileResult], strict: bool = False) -> Tally:
        tally = cls(strict)
        for result in results:
            tally.add(result)
        return tally

    def add(self, result: FileResult) -> None:
        self.outcomes[result.outcome(self.strict)] += 1
        if result.rewritten:
            self.rewritten += 1

    def exit_code(self) -> int:
        """:func:`exit_code` of the results counted."""
        if self.outcomes["unreadable"] or self.outcomes["error"]:
            return 2
        return 1 if any(n for outcome, n in self.outcomes.items() if outcome != "pass") else 0

    def summary(self, noun: str) -> str:
        """The summary line: ``3 pages: 2 passed, 1 failed``."""
        total = sum(self.outcomes.values())
        passed, unregistered = self.outcomes["pass"], self.outcomes["unregistered"]
        text = f"{total} {noun}{'' if total == 1 else 's'}: {passed} passed, {total - passed - unregistered} failed"
        if unregistered:
            text += f", {unregistered} unregistered"
        return text


Reporter = Callable[[Sequence[FileResult], bool, str], str]


def _summary(results: Sequence[FileResult], strict: bool, noun: str) -> str:
    return Tally.of(results, strict).summary(noun)


# Warnings a site's pages may hold by the thousand (numbers without a quoted passage: one per claim):
# the text report gives one line per file for them unless every warning is asked for.
SUMMARIZED = frozenset({"CE905"})
_SUMMARY_IDS = 5


def summarized(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` with two or more warnings of a code in :data:`SUMMARIZED` replaced by one summary
    warning of that code, at the first one's place, naming how many claims and the first few of them.
    One such warning stays as it is; errors (``require_quotes`` makes CE905 one) are never summarized."""
    groups: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.code in SUMMARIZED and not d.is_error:
            groups.setdefault(d.code, []).append(d)
    groups = {code: found for code, found in groups.items() if len(found) > 1}
    if not groups:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        found = groups.get(d.code)
        if found is None or d.is_error:
            out.append(d)
        elif d is found[0]:
            out.append(_summary_of(found))
    return out


def _summary_of(found: list[Diagnostic]) -> Diagnostic:
    from dataclasses import replace

    ids = [record_tag(d)[1:-2] for d in found]
    named = ", ".join(i for i in ids[:_SUMMARY_IDS] if i) + (", …" if len(ids) > _SUMMARY_IDS else "")
    message = (
        f"{len(found)} claims' statements have numbers but no quoted passage to check them against ({named}): "
        "add quote.exact to a source_ref of each (--all-warnings lists each claim)"
    )
    return replace(found[0], message=message, subject="claims", written=())


def text_report(
    results: Sequence[FileResult], strict: bool, noun: str, *, headers: bool = False, all_warnings: bool = True
) -> str:
    """One line per finding, in position order (:func:`in_position_order`), with characters a
    terminal would act on escaped; ``headers`` adds an ``ERROR target`` line before a
    failing target's findings (targets such as article URLs are not files). Without ``all_warnings``,
    a file's many warnings of a :data:`SUMMARIZED` code are one line (:func:`summarized`)."""
    lines = [line for r in results for line in _text_lines(r, strict, headers, all_warnings)]
    lines.append(_summary(results, strict, noun))
    return "\n".join(lines) + "\n"


def _text_lines(result: FileResult, strict: bool, headers: bool, all_warnings: bool) -> list[str]:
    lines = []
    outcome = result.outcome(strict)
    if outcome == "pass":
        lines.append(f"PASS {result.path}" + (f": {result.detail}" if result.detail else ""))
    elif outcome == "unregistered":
        lines.append(f"UNREGISTERED {result.path}: {result.detail}")
    elif headers:
        lines.append(f"ERROR {result.path}" + (" (unreadable)" if outcome == "unreadable" else ""))
    shown = result.diagnostics if all_warnings else summarized(result.diagnostics)
    for d in in_position_order(shown, result.path):
        lines.append(finding_line(d, format_location(d if d.file else _with_file(d, result.path)), safe=True))
        if d.written:
            lines.append(f"    {written_text(d.written)}")
    return lines


def finding_line(d: Diagnostic, where: str | None = None, *, safe: bool = False) -> str:
    """``WHERE: CODE [ID] message``, the one form of a finding on a line, wherever one is printed: the
    text report, the command lines' refusals and errors, the generator plugins' logs (without ``where``
    when the generator places it itself). A message's further lines are indented under it, so that they
    stay visibly attached; a warning or note says so at the end. ``safe`` escapes every character of the
    message a terminal would act on (the text report's last guard: a message may quote a page's text)."""
    message = (terminal_safe(d.message) if safe else d.message).replace("\n", "\n    ")
    severity = "" if d.is_error else f" ({d.severity})"
    return f"{where + ': ' if where else ''}{d.code} {record_tag(d)}{message}{severity}"


def error_report(exc: Exception, prog: str) -> tuple[list[str], int] | None:
    """What a command line prints on stderr for the error that ended its command, and its exit code:
    one mapping, so that ``claim-evidence`` and ``static-helper`` word and count each error alike
    (``PROG: error: x.toml: SH001 config file not found``, exit 2). ``None`` for an internal error
    under ``CLAIM_EVIDENCE_DEBUG``: the caller raises it again, traceback and all.

    Findings a command refused on (:class:`EvidenceValidationError`, a refused edit among them) are
    one line each, in :func:`finding_line`'s form; every other toolkit error is one ``error:`` line
    and exits by its class's ``exit_code``; a closed pipe (``| head``) is no error; anything else is
    a bug, named without a traceback (exit 2). Click's own errors are the click side's:
    :mod:`claim_evidence.cli.errors`.
    """
    if isinstance(exc, EvidenceValidationError):
        lines = [f"{prog}: {finding_line(d, f'{d.file}:{d.path}' if d.file else d.path)}" for d in exc.diagnostics]
        if isinstance(exc, EditRefused):  # an authoring edit that would leave errors: a wrong request
            lines.append(f"{prog}: the edit was refused; nothing was written")
        return lines, exc.exit_code
    if isinstance(exc, InputError):
        d = exc.diagnostic
        return [f"{prog}: error: {finding_line(d, format_location(d) if d.file else None)}"], exc.exit_code
    if isinstance(exc, ClaimEvidenceError):
        return [f"{prog}: error: {exc}"], exc.exit_code
    if isinstance(exc, BrokenPipeError):
        return [], 0
    if os.environ.get("CLAIM_EVIDENCE_DEBUG"):
        return None
    return [f"{prog}: internal error: {type(exc).__name__}: {exc} (set CLAIM_EVIDENCE_DEBUG=1 for details)"], 2


def in_position_order(diagnostics: Sequence[Diagnostic], path: str) -> list[Diagnostic]:
    """A file's findings as an editor reads the file: those with a position by line and column (a
    finding in another file, such as the registry an article's record lives in, grouped by file in
    the order the files first come; ties keep the checks' order). A finding without a position stays
    where its check put it: one about the whole page comes first, a closing one (SH150, "not
    rewritten") last."""
    files: dict[str, int] = {}
    for d in diagnostics:
        files.setdefault(d.file or path, len(files))
    placed = iter(
        sorted(
            (d for d in diagnostics if d.line is not None),
            key=lambda d: (files[d.file or path], d.line or 0, d.column or 0),
        )
    )
    return [next(placed) if d.line is not None else d for d in diagnostics]


# An ambiguous place names this many sources in a line of text, then counts the rest.
PLACES_SHOWN = 3


def written_text(places: Sequence[tuple[str, int]]) -> str:
    """``written at FILE:LINE``, or, when several sources hold the markup (none is chosen),
    ``written in N sources: FILE:LINE, FILE:LINE``."""
    if len(places) == 1:
        return f"written at {places[0][0]}:{places[0][1]}"
    shown = ", ".join(f"{file}:{line}" for file, line in places[:PLACES_SHOWN])
    more = f" and {len(places) - PLACES_SHOWN} more" if len(places) > PLACES_SHOWN else ""
    return f"written in {len(places)} sources: {shown}{more}"


def record_tag(d: Diagnostic) -> str:
    """``[ID] `` for a finding about a claim, ``[source ID] `` for a source: which record to open."""
    # A record inside an article names the article first: "article URL, claim ID".
    kind, _, rid = d.subject.rpartition(", ")[2].partition(" ")
    if kind == "claim" and rid:
        return f"[{rid}] "
    if kind == "source" and rid:
        return f"[source {rid}] "
    return ""


def json_report(results: Sequence[FileResult], strict: bool, noun: str) -> str:
    """Fixed keys per file; ``rewritten`` (how many evidence slots ``--write`` re-rendered) is
    added only to a file that was rewritten, and ``written_at`` (where a finding's markup is written
    in the site's sources) only to a finding that has it, so everything else reads as it always did.
    The text is :func:`_json_parts` joined: ``json.dumps(…, indent=2)`` of the whole document."""
    return "".join(_json_parts(results, strict, noun, Tally(strict)))


def _json_file(r: FileResult, strict: bool) -> dict[str, Any]:
    return {
        "path": r.path,
        "status": r.outcome(strict),
        **({"rewritten": r.rewritten} if r.rewritten else {}),
        "diagnostics": [
            {
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "path": d.path,
                "subject": d.subject,
                "file": d.file or r.path,
                "line": d.line,
                "column": d.column,
                **({"written_at": [{"file": f, "line": n} for f, n in d.written]} if d.written else {}),
            }
            for d in r.diagnostics
        ],
    }


def _dumped(value: Any, level: int) -> str:
    """``value`` as ``json.dumps(…, indent=2)`` writes it ``level`` containers deep in a document (its
    inner lines indented the more; JSON text holds no raw newline but the layout's)."""
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + "  " * level)


def _json_parts(results: Iterable[FileResult], strict: bool, noun: str, tally: Tally) -> Iterator[str]:
    """The JSON report in pieces, once every result is counted into ``tally`` (the summary comes first).
    Each file is written as it comes into a spool (:class:`_Spool`), so a run over a large site holds
    its report's text, on disk past a few MB, not its results."""
    with _Spool() as spool:
        for result in results:
            tally.add(result)
            spool.add(_dumped(_json_file(result, strict), 2))
        yield '{\n  "summary": ' + json.dumps(tally.summary(noun), ensure_ascii=False) + ',\n  "files": '
        yield from _array(spool, 1, spool.pieces())
        yield "\n}\n"


def _array(spool: _Spool, level: int, items: Iterator[str]) -> Iterator[str]:
    """The spool's items as the JSON array ``level`` containers deep that ``json.dumps(…, indent=2)`` writes."""
    if not spool.count:
        yield "[]"
        return
    inner = "\n" + "  " * (level + 1)
    yield "[" + inner
    for index, item in enumerate(items):
        yield ("," + inner if index else "") + item
    yield "\n" + "  " * level + "]"


class _Spool:
    """Pieces of a report's text, in order: in memory up to :data:`SPOOL_CHARS`, then in a temporary file
    (``tempfile.SpooledTemporaryFile``), read back one by one. Lone surrogates pass through unchanged."""

    def __init__(self) -> None:
        import tempfile

        self.file = tempfile.SpooledTemporaryFile(
            max_size=SPOOL_CHARS, mode="w+", encoding="utf-8", errors="surrogatepass", newline=""
        )
        self.lengths: list[int] = []

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    @property
    def count(self) -> int:
        return len(self.lengths)

    def add(self, piece: str) -> None:
        self.file.write(piece)
        self.lengths.append(len(piece))

    def pieces(self) -> Iterator[str]:
        self.file.seek(0)
        for length in self.lengths:
            yield self.file.read(length)


SPOOL_CHARS = 4 << 20  # (the in-memory part counts characters)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github_report(results: Sequence[FileResult], strict: bool, noun: str) -> str:
    """GitHub workflow commands (``::error file=…,line=…::message``). A finding placed in one
    source file (``written``) annotates that file, and its message names the built page."""
    lines = [line for r in results for line in _github_lines(r, strict)]
    lines.append(_summary(results, strict, noun))
    return "\n".join(lines) + "\n"


def _github_lines(result: FileResult, strict: bool) -> list[str]:
    lines = []
    if result.outcome(strict) == "unregistered":
        lines.append(
            f"::warning file={_escape_property(result.path)}::{_escape_data('unregistered: ' + result.detail)}"
        )
    for d in result.diagnostics:
        level = "error" if d.fails(strict) else "warning" if d.severity == "warning" else "notice"
        message = f"{d.path}: {d.message}"
        if len(d.written) == 1:
            props = [f"file={_escape_property(d.written[0][0])}", f"line={d.written[0][1]}"]
            message += f" (built page {format_location(d if d.file else _with_file(d, result.path))})"
        else:
            props = [f"file={_escape_property(d.file or result.path)}"]
            if d.line is not None:
                props.append(f"line={d.line}")
                if d.column is not None:
                    props.append(f"col={d.column}")
            if d.written:
                message += f" ({written_text(d.written)})"
        props.append(f"title={_escape_property(d.code)}")
        lines.append(f"::{level} {','.join(props)}::{_escape_data(message)}")
    return lines


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _artifact_uri(path: str) -> str:
    """Repository-relative (to the working folder) POSIX URI, percent-encoded."""
    target = Path(path)
    try:
        relative = target.resolve().relative_to(Path.cwd().resolve()) if target.is_absolute() else target
    except ValueError:
        return target.resolve().as_uri()
    return quote(PurePosixPath(*relative.parts).as_posix())


def _artifact_location(path: str) -> dict[str, str]:
    """A URI relative to %SRCROOT%, or (a file outside the working folder) an absolute ``file:`` URI
    without a base: SARIF allows ``uriBaseId`` only beside a relative reference."""
    uri = _artifact_uri(path)
    return {"uri": uri} if uri.startswith("file:") else {"uri": uri, "uriBaseId": "%SRCROOT%"}


def _physical_location(path: str, line: int | None, column: int | None) -> dict[str, Any]:
    region = {"region": {"startLine": line, "startColumn": column or 1}} if line is not None else {}
    return {"artifactLocation": _artifact_location(path), **region}


def sarif_report(results: Sequence[FileResult], strict: bool, noun: str) -> str:
    """SARIF 2.1.0: rule ids are the diagnostic codes; URIs relative to %SRCROOT%.

    A finding placed in one source file (``written``) is located there, with the built page as its
    related location; placed in several, it stays on the built page and each source is related.

    %SRCROOT% (the working folder, normally the repository root) is left for
    the consumer to bind, so the output is the same on every machine. The text is :func:`_sarif_parts`
    joined: ``json.dumps(…, indent=2)`` of the whole log.
    """
    return "".join(_sarif_parts(results, strict, noun, Tally(strict)))


def _sarif_result(d: Diagnostic, result: FileResult, strict: bool) -> dict[str, Any]:
    built = _physical_location(d.file or result.path, d.line, d.column)
    written = [_physical_location(file, line, None) for file, line in d.written]
    primary, related = (
        (written[0], [(built, "built page")]) if len(written) == 1 else (built, [(w, "written here") for w in written])
    )
    location: dict[str, object] = {
        "physicalLocation": primary,
        "logicalLocations": [{"fullyQualifiedName": d.path, "kind": "member"}],
    }
    found: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": _UNKNOWN_RULE,  # known once every rule is: see _sarif_parts
        "level": "error" if d.fails(strict) else d.severity,
        "message": {"text": d.message},
        "locations": [location],
    }
    if related:
        found["relatedLocations"] = [
            {"id": i, "physicalLocation": where, "message": {"text": text}} for i, (where, text) in enumerate(related)
        ]
    return found


_UNKNOWN_RULE = -1
# A result's ruleIndex as spooled: its first occurrence in the result's text is the key's own (ruleId, the
# only key before it, holds a code, never this text).
_UNKNOWN_INDEX_TEXT = f'"ruleIndex": {_UNKNOWN_RULE}'


def _sarif_parts(results: Iterable[FileResult], strict: bool, noun: str, tally: Tally) -> Iterator[str]:
    """The SARIF log in pieces, once every result is counted into ``tally``: each finding is spooled as it
    comes (:class:`_Spool`) with its code; a rule's index (the rules are the codes, sorted, and come before
    the results) is written in as the spool is read back."""
    from .. import __version__

    codes: list[str] = []
    with _Spool() as spool:
        for result in results:
            tally.add(result)
            for d in result.diagnostics:
                codes.append(d.code)
                spool.add(_dumped(_sarif_result(d, result, strict), 4))
        # No helpUri: it must be an absolute URI and the project has none to give (a relative
        # "SCHEMA.md" fails the SARIF schema's "uri" format). No shortDescription either: the
        # codes have no description text to draw on other than the prose tables in SCHEMA.md.
        rules = sorted(set(codes))
        index = {code: i for i, code in enumerate(rules)}
        driver = {"name": "claim-evidence", "version": __version__, "rules": [{"id": code} for code in rules]}
        yield (
            "{\n"
            f'  "$schema": {json.dumps(SARIF_SCHEMA)},\n'
            '  "version": "2.1.0",\n'
            '  "runs": [\n'
            "    {\n"
            f'      "tool": {_dumped({"driver": driver}, 3)},\n'
            '      "results": '
        )
        found = (
            text.replace(_UNKNOWN_INDEX_TEXT, f'"ruleIndex": {index[code]}', 1)
            for text, code in zip(spool.pieces(), codes, strict=True)
        )
        yield from _array(spool, 3, found)
        yield "\n    }\n  ]\n}\n"


REPORTERS: dict[str, Reporter] = {
    "text": text_report,
    "json": json_report,
    "github": github_report,
    "sarif": sarif_report,
}
REPORT_FORMATS = tuple(REPORTERS)


def report(
    results: Sequence[FileResult],
    fmt: str = "text",
    *,
    strict: bool = False,
    noun: str = "file",
    headers: bool = False,
    all_warnings: bool = True,
) -> str:
    """The results as one of :data:`REPORT_FORMATS`, exactly as the command lines print them.

    ``noun`` names what was checked in the summary line (``3 pages: …``); ``strict`` counts warnings
    as failures; ``headers`` (text only) puts an ``ERROR target`` line before a failing target's
    findings, as ``prepublish`` does for targets that are not files; ``all_warnings=False`` (text only)
    gives a file's many CE905 warnings as one line (:func:`summarized`; ``static-helper``'s default).
    Raises ValueError for an unknown format.
    """
    if fmt not in REPORTERS:
        raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(REPORT_FORMATS)}")
    if fmt == "text":
        return text_report(results, strict, noun, headers=headers, all_warnings=all_warnings)
    return REPORTERS[fmt](results, strict, noun)


# The formats a report can be written in result by result, as the results come (a run over a large site
# then holds no result): each file's lines alone, then the summary line (:class:`Tally`).
STREAMED_FORMATS = ("text", "github")
# The others are one JSON document whose summary (or rules) come before the files: spooled, then written.
_DOCUMENTS = {"json": _json_parts, "sarif": _sarif_parts}


def report_lines(
    result: FileResult, fmt: str = "text", *, strict: bool = False, headers: bool = False, all_warnings: bool = True
) -> str:
    """One file's part of a :data:`STREAMED_FORMATS` report, each line ending in a newline: the report
    of many files is their parts in order, then ``Tally.summary`` and a newline, byte for byte what
    :func:`report` gives for all of them (one code path: :func:`report` joins these same lines)."""
    if fmt == "text":
        lines = _text_lines(result, strict, headers, all_warnings)
    elif fmt == "github":
        lines = _github_lines(result, strict)
    else:
        raise ValueError(f"the {fmt} format cannot be streamed; expected one of {', '.join(STREAMED_FORMATS)}")
    return "".join(line + "\n" for line in lines)


def write_report(
    results: Iterable[FileResult],
    fmt: str,
    write: Callable[[str], object],
    *,
    noun: str = "file",
    strict: bool = False,
    headers: bool = False,
    all_warnings: bool = True,
) -> Tally:
    """Write :func:`report` of ``results`` (its other arguments) through ``write``; their :class:`Tally`.

    A :data:`STREAMED_FORMATS` report is written file by file as ``results`` yields them, each let go
    once written, so a caller that passes an iterator over a large site holds no result; any other
    format is written once all are in. The bytes written are :func:`report`'s in either case."""
    tally = Tally(strict)
    if fmt in STREAMED_FORMATS:
        for result in results:
            tally.add(result)
            write(report_lines(result, fmt, strict=strict, headers=headers, all_warnings=all_warnings))
        write(tally.summary(noun) + "\n")
        return tally
    for part in _DOCUMENTS[fmt](results, strict, noun, tally):
        write(part)
    return tally


def _with_file(d: Diagnostic, path: str) -> Diagnostic:
    from dataclasses import replace

    return replace(d, file=path)
