"""Where a finding on a built page is written: the Markdown, reST or template file that holds its markup.

A generator turns sources into the pages the checks read, so a finding names a line of the built page
(``public/posts/a/index.html:40:7``). The editor fixes the source. :func:`source_line` finds the line in a
source known to have built the page (the MkDocs, Sphinx and Pelican plugins know it). :func:`place_findings`
finds the source itself among the files that ``sources`` in ``claim-evidence.toml`` names (the Hugo,
Eleventy and Jekyll recipes, which check the built site from the command line): a claim's finding goes to
the file where its ``data-claim-id="ID"`` is written, any other finding of a page to the file holding that
page's claims. Only one file is ever chosen. When several hold the markup, each is named and none is
chosen, and when none does, nothing is said.

A record's findings (``CE…``) are about the JSON, not the markup: where the page's bundle JSON is found
in a source, verbatim (as the recipes' templates insert ``data/evidence/NAME.json``) or as the same JSON
value, they are placed at the line of their JSON path in that file, and every ``review record`` command a
finding of the page prints names that file instead of the built page, which the next build overwrites.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .._core.diagnostics import Diagnostic, InputError, line_column, line_starts
from .._core.jsonpos import offset_of
from .._core.report import FileResult
from .._core.textio import read_text
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, SLOT_ATTR

__all__ = [
    "SourceFiles",
    "claim_of",
    "place_findings",
    "place_in_sources",
    "placeable",
    "read_page",
    "shown_from",
    "source_line",
]

Place = tuple[str, int]  # (file as shown, 1-based line)
# Results whose findings are about reading or finding the file, not about its markup.
_UNPLACED_STATUS = frozenset({"unreadable", "error", "unregistered"})
_UNPLACED_SUBJECTS = frozenset({"config", "file", "build date"})
# Every evidence attribute with its value, quoted or not, as the index of the sources records it.
_ANY_ATTRIBUTE = re.compile(
    rf"""(?i:({CLAIM_ATTR}|{SLOT_ATTR}))\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`/]+)(?=[\s/>]))"""
)


def claim_of(d: Diagnostic) -> str | None:
    """The id of the claim ``d`` is about (``claim ID``, also inside ``article URL, claim ID``), else None."""
    kind, _, rid = d.subject.rpartition(", ")[2].partition(" ")
    return rid if kind == "claim" and rid else None


def source_line(source: str, d: Diagnostic) -> int | None:
    """The line of ``source`` (the Markdown or reST file a page was built from) where ``d``'s markup is
    written: a record's finding (``CE…`` with a JSON path) at that path's line in the bundle script the
    source holds, as :func:`place_findings` places it in a data file; a claim's ``data-claim-id="ID"``
    (else its slot); for every other finding the bundle script's ``claim-evidence-data`` (else the first
    claim or slot). ``None`` when the source does not hold it (markup that a template or an include put
    there)."""
    if d.code.startswith("CE") and d.path:
        start = _script_json(source)
        if start is not None:
            return _line_at(source, start, d.path)
    rid = claim_of(d)
    patterns = [_attribute(CLAIM_ATTR, rid), _attribute(SLOT_ATTR, rid)] if rid else []
    patterns += [re.compile(re.escape(BUNDLE_ID)), re.compile(f"(?i){CLAIM_ATTR}|{SLOT_ATTR}")]
    for pattern in patterns:
        found = pattern.search(source)
        if found:
            return line_column(line_starts(source), found.start())[0]
    return None


_SCRIPT_OPEN = re.compile(
    rf"""<script\b[^>]*(?<![\w-])id\s*=\s*["']?{re.escape(BUNDLE_ID)}(?![\w-])[^>]*>\s*""", re.IGNORECASE
)


def _script_json(source: str) -> int | None:
    """Where the JSON of the one bundle script written in ``source`` starts; None without exactly one, or
    when what follows its start tag is no JSON object (then the finding goes to the claim's line)."""
    found = list(_SCRIPT_OPEN.finditer(source))
    if len(found) != 1 or not source.startswith("{", found[0].end()):
        return None
    return found[0].end() if _json_end(source, found[0].end()) < len(source) else None


def _attribute(attr: str, value: str) -> re.Pattern[str]:
    v = re.escape(value)
    return re.compile(rf"""(?i:{attr})\s*=\s*(?:"{v}"|'{v}'|{v}(?=[\s/>]))""")


class SourceFiles:
    """The files ``patterns`` (globs relative to ``root``) match, each read once, on first need.

    A file that cannot be read or is not UTF-8 is left out, as if no glob matched it; so is every one of
    ``pages`` (the pages the run checked, which hold their claims' markup too: a built page is no source).
    """

    def __init__(self, root: Path, patterns: Iterable[str], pages: Iterable[str] = ()) -> None:
        self.root = root
        self.patterns = tuple(patterns)
        self._pages = tuple(pages)
        self._texts: dict[str, str] | None = None
        self._index: dict[tuple[str, str], list[str]] = {}
        self._held: dict[str, list[str]] = {}
        self._records: dict[str, list[tuple[str, int]]] = {}
        self._values: dict[str, Any] = {}

    def texts(self) -> dict[str, str]:
        """Real path -> text of every readable source, in path order."""
        if self._texts is None:
            self._texts = {}
            for path in self._paths():
                text = _read(path)
                if text is not None:
                    self._texts[path] = text
            self._index = _index(self._texts)
        return self._texts

    def holding(self, rid: str) -> list[str]:
        """The sources where claim ``rid``'s ``data-claim-id`` is written, else those holding its slot."""
        if rid not in self._held:
            texts = self.texts()
            self._held[rid] = []
            for attr in (CLAIM_ATTR, SLOT_ATTR):
                # the index finds the candidates in one pass; source_line's own pattern has the last word
                pattern = _attribute(attr, rid)
                found = [path for path in self._index.get((attr, rid), []) if pattern.search(texts[path])]
                if found:
                    self._held[rid] = found
                    break
        return self._held[rid]

    def holding_record(self, content: str) -> list[tuple[str, int]]:
        """The sources holding a page's bundle JSON ``content`` (its script's text), each with the offset
        where the JSON starts in it: those holding it verbatim, else the JSON sources whose value is the
        same (a template that re-serialized the file). Empty for a bundle that is not a JSON object."""
        json_text = content.strip(" \t\r\n\f")
        if json_text not in self._records:
            self._records[json_text] = self._record_sources(json_text)
        return self._records[json_text]

    def _record_sources(self, json_text: str) -> list[tuple[str, int]]:
        try:
            value = json.loads(json_text)
        except (ValueError, RecursionError):
            return []
        if not isinstance(value, dict):
            return []  # `{}`-like scraps of JSON are in too many files to say which holds the record
        texts = self.texts()
        verbatim = [(path, text.find(json_text)) for path, text in texts.items() if json_text in text]
        if verbatim:
            return verbatim
        return [(path, offset_of(text, "$")) for path, text in texts.items() if self._value(path) == value]

    def _value(self, path: str) -> Any:
        """A source's JSON value (None for one that is not a JSON file), parsed once."""
        if path not in self._values:
            self._values[path] = None
            if path.lower().endswith(".json"):
                try:
                    self._values[path] = json.loads(self.texts()[path])
                except (ValueError, RecursionError):
                    pass
        return self._values[path]

    def _paths(self) -> list[str]:
        skip = {os.path.realpath(page) for page in self._pages}
        found: set[str] = set()
        for pattern in self.patterns:
            try:
                matches = list(self.root.glob(pattern))
            except (ValueError, NotImplementedError, OSError):  # the config check refuses these first
                continue
            for match in matches:
                real = os.path.realpath(match)
                if real not in skip and os.path.isfile(real):
                    found.add(real)
        return sorted(found)


def _read(path: str) -> str | None:
    """A source's text, whole; None when it cannot be read or is not UTF-8 (it holds no markup we
    could name a line of)."""
    try:
        return read_text(path, None)
    except InputError:
        return None


def _index(texts: dict[str, str]) -> dict[tuple[str, str], list[str]]:
    """``(attribute, value) -> the sources holding it``: one pass over every source, whatever the findings."""
    index: dict[tuple[str, str], list[str]] = {}
    for path, text in texts.items():
        for match in _ANY_ATTRIBUTE.finditer(text):
            value = next(v for v in match.groups()[1:] if v is not None)
            held = index.setdefault((match.group(1).lower(), value), [])
            if not held or held[-1] != path:
                held.append(path)
    return index


def _page_claims(text: str) -> list[str]:
    """The claim ids of a built page (those of its slots when it has no claim element)."""
    from .._html.locate import locate

    located = locate(text)
    for elements, attr in ((located.claims, CLAIM_ATTR), (located.slots, SLOT_ATTR)):
        ids = list(dict.fromkeys(e.attrs[attr] for e in elements if e.attrs.get(attr)))
        if ids:
            return ids
    return []


def read_page(path: str) -> str | None:
    """A checked page as the report names it (relative to the working folder), or None."""
    try:
        return read_text(path, None, errors="replace", keep_bom=True)
    except InputError:
        return None


def placeable(result: FileResult, d: Diagnostic) -> bool:
    """An error or warning about a page's markup (a note says what was not checked: nothing to place)."""
    return (
        d.severity in ("error", "warning")
        and result.status not in _UNPLACED_STATUS
        and d.subject not in _UNPLACED_SUBJECTS
        and (d.file is None or d.file == result.path)
    )


def place_findings(
    results: Sequence[FileResult],
    sources: SourceFiles,
    shown: Callable[[str], str],
    page_text: Callable[[str], str | None] = read_page,
) -> list[FileResult]:
    """``results`` with every error and warning on a page given :attr:`Diagnostic.written`.

    A claim's finding is placed at the line of the one source holding its ``data-claim-id="ID"`` (else
    its slot); any other finding at :func:`source_line` in the one source holding the page's claims.
    Several sources: each is named (with its line), none chosen. A record's finding (``CE…``) is placed
    at its JSON path's line in the source holding the page's bundle JSON, when one does
    (:meth:`SourceFiles.holding_record`), and when exactly one does, a ``review record`` command in any
    finding of the page names it instead of the page. ``shown`` names a source as the report
    shows it; ``page_text`` reads a page by its result's path. Nothing is read, neither the sources
    nor the pages, unless there is a finding to place.
    """
    if not any(placeable(r, d) for r in results for d in r.diagnostics):
        return list(results)
    placed: list[FileResult] = []
    for result in results:
        if not any(placeable(result, d) for d in result.diagnostics):
            placed.append(result)
            continue
        page = _PageSources(result.path, sources, page_text)
        diagnostics = []
        for d in result.diagnostics:
            if not placeable(result, d):
                diagnostics.append(d)
                continue
            records = page.records() if d.code.startswith("CE") or _REVIEW_COMMAND in d.message else []
            if d.code.startswith("CE") and records:
                written = tuple(
                    (shown(path), _line_at(sources.texts()[path], start, d.path)) for path, start in records
                )
            else:
                rid = claim_of(d)
                held = sources.holding(rid) if rid is not None else page.held_by_claims()
                written = _places(sources, held, d, shown)
            if len(records) == 1:
                d = _naming_record(d, result.path, shown(records[0][0]))
            diagnostics.append(dataclasses.replace(d, written=written) if written else d)
        placed.append(dataclasses.replace(result, diagnostics=diagnostics))
    return placed


# The command a finding tells the editor to run on the file holding the record (SH140's hint).
_REVIEW_COMMAND = "claim-evidence review record "
_DIFF_COMMAND = "claim-evidence review diff "  # (the same hint's command that shows what changed)


class _PageSources:
    """What one checked page needs of the sources, each looked up once and only when a finding asks:
    the sources holding its claims, and those holding its bundle JSON."""

    def __init__(self, path: str, sources: SourceFiles, page_text: Callable[[str], str | None]) -> None:
        self.path = path
        self.sources = sources
        self.page_text = page_text
        self._text: str | None = None
        self._read = False
        self._held: list[str] | None = None
        self._records: list[tuple[str, int]] | None = None

    def text(self) -> str | None:
        if not self._read:
            self._text, self._read = self.page_text(self.path), True
        return self._text

    def held_by_claims(self) -> list[str]:
        """The sources holding the page's claims (any finding not about one claim goes there)."""
        if self._held is None:
            text = self.text()
            claims = _page_claims(text) if text is not None else []
            self._held = sorted({path for cid in claims for path in self.sources.holding(cid)})
        return self._held

    def records(self) -> list[tuple[str, int]]:
        """The sources holding the page's bundle JSON, with where it starts in each (see
        :meth:`SourceFiles.holding_record`); empty when the page has no one readable bundle script."""
        if self._records is None:
            self._records = []
            text = self.text()
            if text is not None:
                from .._check.facts import read_page_bundle

                try:
                    self._records = self.sources.holding_record(read_page_bundle(text, self.path).text)
                except InputError:
                    pass
        return self._records


def _line_at(text: str, start: int, path: str) -> int:
    """The line of ``text`` where the JSON value at ``path`` is written, in the JSON starting at ``start``."""
    end = _json_end(text, start)
    return line_column(line_starts(text), start + offset_of(text[start:end], path))[0]


def _json_end(text: str, start: int) -> int:
    """Where the JSON value starting at ``start`` ends (the end of ``text`` when it cannot be read)."""
    try:
        return json.JSONDecoder().raw_decode(text, start)[1]
    except (ValueError, RecursionError):
        return len(text)


def _naming_record(d: Diagnostic, page: str, holder: str) -> Diagnostic:
    """``d`` with the ``review record`` (and ``review diff``) command it prints aimed at ``holder``, the source holding the record,
    instead of the built page (which the next build overwrites)."""
    message = d.message.replace(f"{_REVIEW_COMMAND}{page} ", f"{_REVIEW_COMMAND}{holder} ")
    message = message.replace(f"{_DIFF_COMMAND}{page} ", f"{_DIFF_COMMAND}{holder} ")
    return d if message == d.message else dataclasses.replace(d, message=message)


def _places(sources: SourceFiles, held: list[str], d: Diagnostic, shown: Callable[[str], str]) -> tuple[Place, ...]:
    texts = sources.texts()
    places = []
    for path in held:
        line = source_line(texts[path], d)
        if line is not None:
            places.append((shown(path), line))
    return tuple(places)


def place_in_sources(
    results: Sequence[FileResult],
    root: Path,
    patterns: Sequence[str],
    page_text: Callable[[str], str | None] = read_page,
    sources: SourceFiles | None = None,
) -> list[FileResult]:
    """:func:`place_findings` over the ``sources`` globs of a config (relative to its folder ``root``),
    each source named relative to the working folder, as the pages are (``../about.md`` from ``_site/``).
    ``sources``: those files as a run that places its results one by one made them once (else made
    here, with ``results``' pages left out)."""
    if not patterns:
        return list(results)
    if sources is None:
        sources = SourceFiles(root, patterns, [r.path for r in results])
    return place_findings(results, sources, shown_from(os.path.realpath(os.getcwd())), page_text)


def shown_from(cwd: str) -> Callable[[str], str]:
    """How a source (a real path) is named from the working folder ``cwd``: relative to it, also with
    ``..`` (a hook that checks the output folder names the Markdown beside it); absolute only when no
    relative path leads there (another drive)."""

    def shown(path: str) -> str:
        try:
            return Path(os.path.relpath(path, cwd)).as_posix()
        except ValueError:
            return path

    return shown
