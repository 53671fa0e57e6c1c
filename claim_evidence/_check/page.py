"""A page bound to its evidence record: where "check one page" starts, and the operations on a page.

:func:`check_text` (or :func:`load_page` for a file) locates the page's evidence markup and runs
:func:`check_located`, which collects the findings of each piece, in document order, on one :class:`Page`:

- :mod:`.facts`: what the page says about itself: its language, its bundle script and the records in it,
  and what follows from their JSON text alone (validation findings, rendered blocks), memoized per
  process and kept in the record cache;
- :mod:`.binding`: one body element and one evidence slot per claim, the body's visible text equal to
  the reviewed statement, and each slot showing its claim's block (else stale, SH140);
- :mod:`.markup`: markup whose spans the helper cannot own safely (slot shapes, nesting) or that the
  browser's parser reads otherwise (a ``<frameset>``, a link left open, SVG/MathML);
- :mod:`.stylesheet`: the shared evidence stylesheet link;
- :mod:`.summary`: the sources summary slot.

:meth:`Page.rendered_text` then splices every stale slot and proves that nothing else changed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from .._core.diagnostics import Diagnostic, line_breaks, line_column, line_starts
from .._core.jsonio import dumps_for_script, loads
from .._core.splice import Edit, InternalError, moved_offset, newline_style, outside_identical, splice, with_newlines
from .._core.textio import read_text
from .._html.fastpath import FastLocated, attempt, fast_locate, slot_ends_after
from .._html.locate import SLOT_ATTR, Element, Located, locate
from . import recordcache as _recordcache
from .binding import STALE, UNBOUND, _binding  # noqa: F401 - UNBOUND re-exported (the page API)
from .facts import (  # noqa: F401 - re-exported (the page API)
    PageBundle,
    _bundle,
    _BundleFacts,
    _one_script,
    _remember,
    read_page_bundle,
    the_bundle_script,
)
from .lang import page_lang  # noqa: F401 - re-exported (the page API)
from .markup import HIDDEN_MARKUP, _parsing, _shapes
from .options import DEFAULT_STYLESHEET, STRIPPED, PageOptions, SiteLayout, render_settings  # noqa: F401 - re-exported (the page API)
from .prefix import Prefix, head_moved, moved_findings, page_prefix, prefix_holds  # noqa: F401 - re-exported (the page API)
from .stylesheet import _stylesheet
from .summary import summary_findings
from .unmarked import REQUIRED, REQUIRED_MARKUP, STRIPPED_MARKERS, StrippedMarker, unmarked_findings  # noqa: F401 - re-exported (the page API)

# Errors of a broken page structure, the only ones that leave a page unwritten (``Page.blocking``):
# the bundle script is not exactly one (SH101) or its JSON does not load (CE003, CE005, CE007, CE008:
# no records to render from); a claim's slot is not exactly one (SH111: which one is its is ambiguous);
# a slot is not a container the helper owns alone (SH113-SH115, and SH171/SH172 for the summary slot,
# SH170 for more than one), or sits where the browser's parser breaks it apart (SH116, SH104). Every
# other error keeps the slots and their owners clear, so --write fills them (SCHEMA.md, SH150).
STRUCTURE = frozenset(
    {
        "SH101",
        "CE003",
        "CE005",
        "CE007",
        "CE008",
        "SH104",
        "SH111",
        "SH113",
        "SH114",
        "SH115",
        "SH116",
        "SH170",
        "SH171",
        "SH172",
    }
)


def _has_id(claim: Any) -> bool:
    return isinstance(claim, dict) and isinstance(claim.get("id"), str)


@dataclass
class Page:
    """A located page, its parsed bundle and every finding, in document order.

    ``diagnostics`` holds errors and warnings, staleness (``SH140``) included;
    ``rendered`` maps each stale slot to the content ``--write`` puts there.
    """

    text: str
    name: str | None
    located: Located
    options: PageOptions
    bundle: Any = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rendered: list[tuple[Element, str]] = field(default_factory=list)
    # The record cache entry this check should write: (key, facts), when it computed what was not stored.
    record: tuple[str, _BundleFacts | None, bool] | None = field(default=None, repr=False)  # (…, whether it was stored)
    lang: str = "ja"  # the labels' language: the page's own <html lang>, else the site's (see page_lang)
    # The claims (indexes) that the bundle's validation errors make unverified, with those errors
    # (:func:`.._render.evidence.claim_errors`); the other claims render as usual.
    invalid: dict[int, list[Diagnostic]] = field(default_factory=dict)
    unbound: set[str] = field(default_factory=set)  # claim ids whose page and record disagree (SH110, SH120)
    # The run's record cache, handed in by check_text's caller (the runner); None: not cached.
    records: _recordcache.RecordCache | None = field(default=None, repr=False, compare=False)
    # Why the fast path left the page to the reference tokenizer (:func:`.._html.fastpath.attempt`); "" when
    # it located it, or when the page was located otherwise (``check_located``).
    fallback: str = field(default="", compare=False)
    # The page :meth:`rendered_text` made, as a check of it finds it (what its proof established), once it ran.
    written: Page | None = field(default=None, repr=False, compare=False)

    @property
    def has_markup(self) -> bool:
        return self.located.has_markup

    @property
    def claims(self) -> list[Element]:
        return self.located.claims

    @property
    def slots(self) -> list[Element]:
        return self.located.slots

    @property
    def record_invalid(self) -> bool:
        """Every claim of the bundle shows as unverified: no review of the page's records can be shown."""
        claims = self.bundle.get("claims") if isinstance(self.bundle, dict) else None
        return bool(self.invalid) and isinstance(claims, list) and len(self.invalid) == len(claims)

    @property
    def invalid_ids(self) -> frozenset[str]:
        """The ids of the claims whose record is invalid (their blocks show 未確認 with the warning)."""
        claims = self.bundle["claims"] if self.invalid else []
        return frozenset(claims[i]["id"] for i in self.invalid if _has_id(claims[i]))

    @property
    def orphan_slots(self) -> list[Element]:
        """Evidence slots naming a claim the bundle does not register (SH112): nothing renders into them,
        so whatever they hold stays as it is."""
        claims = self.bundle.get("claims") if isinstance(self.bundle, dict) else None
        ids = {c["id"] for c in claims if _has_id(c)} if isinstance(claims, list) else set()
        return [slot for slot in self.slots if slot.attrs.get(SLOT_ATTR) not in ids]

    @property
    def errors(self) -> list[Diagnostic]:
        """Every error but staleness."""
        return [d for d in self.diagnostics if d.is_error and d.code != STALE]

    @property
    def blocking(self) -> list[Diagnostic]:
        """Errors that stop ``--write``: a broken page structure (:data:`STRUCTURE`), where the helper
        cannot own the slots' spans or tell which slot is whose. Any other error (an invalid record, a
        claim whose page and record disagree, a missing stylesheet) leaves the spans and their owners
        clear: ``--write`` fills those slots with the safe 未確認 block, or the usual one, instead of
        leaving readers an empty or outdated slot, and the run still fails on the error."""
        return [d for d in self.errors if d.code in STRUCTURE]

    @property
    def stale(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.code == STALE]

    def rendered_text(self) -> str:
        """The page with every stale slot re-rendered, proven to differ only inside those slots."""
        if not self.rendered:
            return self.text
        edits = self._edits()
        new = splice(self.text, edits)
        self.written = _prove(self, new, edits)
        return new

    def as_written(self, findings: list[Diagnostic]) -> list[Diagnostic]:
        """``findings`` (of this page, as checked) placed in :meth:`rendered_text`, the page a rewrite writes,
        which is what a run with ``--write`` reports on: a block of another number of lines than the content
        it replaced moves every finding after it, and one of another length the findings after it on its
        last line.

        Exact: :func:`_prove` shows the new text checks as this one did, without its staleness, every
        element moved by the edits; a finding is placed at an element or in the text of one, outside every
        slot's content, so the same edits move it to where a check of the new text places it (and the line
        an SH130 message names, a ``<link>``'s, likewise). Nothing is computed when no edit changes a line
        count and no finding follows one on its last line (the usual rewrite: a one-line block for one)."""
        edits = sorted(self._edits())
        text, position = self.text, self.located.position
        lines = {d.line for d in findings if d.line is not None}
        if not lines or all(
            position(end)[0] not in lines and line_breaks(text, start, end) == line_breaks(content)
            for start, end, content in edits
        ):
            return findings
        old, new = line_starts(text), line_starts(splice(text, edits))

        def moved(line: int, column: int = 1) -> tuple[int, int]:
            return line_column(new, moved_offset((old[line - 2] if line > 1 else 0) + column - 1, edits))

        placed = []
        for d in findings:
            if d.line is not None:
                line, column = moved(d.line, d.column or 1)
                d = dataclasses.replace(d, line=line, column=column if d.column is not None else None)
            if d.code in _NAMES_A_PAGE_LINE:
                message = _PAGE_LINE_IN_MESSAGE.sub(lambda at: str(moved(int(at.group()))[0]), d.message)
                d = dataclasses.replace(d, message=message)
            placed.append(d)
        return placed

    def _edits(self) -> list[Edit]:
        return [(slot.open_end, slot.close_start, content) for slot, content in self.rendered]


# Findings whose message names a line of the page (where a stylesheet <link> is: SH130's; :meth:`Page.as_written`
# moves it). The others that do (SH104, SH116) are errors of a broken structure, which leave a page unwritten.
_PAGE_LINE_IN_MESSAGE = re.compile(r"(?<= at line )[0-9]+")
_NAMES_A_PAGE_LINE = frozenset({"SH130"})


def _prove(old: Page, new_text: str, edits: list[Edit]) -> Page:
    """The page ``new_text`` (``old.text`` with ``edits`` spliced in) is, as its check finds it (:func:`_written`,
    or the check itself); :class:`InternalError` unless it differs from the old page only inside the stale
    slots, holds there exactly the content the check asked for, and checks as the old page did, without
    its staleness and with no new error.

    Why this is enough without checking the new page again: every finding of a page is a function of
    its text outside the slots (the bundle script, the claim elements' text, the links, ``<html lang>``,
    the newline style) and of where its markup is (:class:`Located`), plus each slot's content, which
    only decides whether that slot is stale (one exception: a page missing its bundle script or
    stylesheet link, which is checked again in full). So the proof establishes, cheapest first: (1) every byte
    outside the edited spans is unchanged and each edit puts exactly the content the check rendered
    for that slot (a slot showing exactly its block is not stale); (2) the page's language and newline
    style, which decide that block, are unchanged; (3) the new text locates to the same elements,
    moved by the edits, each edited slot holding exactly its new content. (3) is shown by the fast
    path's own argument when the old page was located by it (:func:`.._html.fastpath.slot_ends_after`),
    else by locating the new text; only when the elements differ is the new page checked in full, and it
    must then check as the old page did (the proof before issue 25, which cost a second page check)."""
    if not outside_identical(old.text, new_text, edits):
        raise InternalError("internal error: splicing changed text outside the evidence slots; nothing written")
    wanted = sorted((slot.open_end, slot.close_start, content) for slot, content in old.rendered)
    if (
        sorted(edits) != wanted
        or newline_style(new_text) != newline_style(old.text)
        or page_lang(new_text, old.options.lang) != old.lang
    ):
        raise InternalError("internal error: the re-rendered page does not check clean; nothing written")
    # (Without a bundle script or stylesheet link, _parsing reads the whole text for SVG/MathML that
    # swallowed one: slot content included, so such a page is checked again in full.)
    reads_all = not old.located.scripts or any(d.code == "SH130" for d in old.diagnostics)
    moved = None if reads_all else _moved(old.located, edits, new_text)
    if moved is not None and _fast_proof(old.located, new_text, edits):
        return _written(old, moved)
    located = fast_locate(new_text) or locate(new_text)
    if moved is not None and _shape(located) == _shape(moved):
        return _written(old, located)
    again = check_located(new_text, old.name, located, old.options, records=old.records)
    # (An error naming a line of the page names it in the new text: SH130's stylesheet link, after a block of
    # another number of lines.)
    if again.stale or [_key(d) for d in again.errors] != [_key(d) for d in old.as_written(old.errors)]:
        raise InternalError("internal error: the re-rendered page does not check clean; nothing written")
    spans = [(s.open_end, s.close_start) for s in (*again.slots, *again.located.summaries)]
    expected_spans = _shifted([(s.open_end, s.close_start) for s in (*old.slots, *old.located.summaries)], edits)
    if spans != expected_spans:
        raise InternalError("internal error: the evidence slots moved after re-rendering; nothing written")
    return again


def _written(old: Page, located: Located) -> Page:
    """The page :func:`_prove` proved ``located.text`` is: located so, it checks as ``old`` did without its
    staleness, every finding moved by the edits (:meth:`Page.as_written`)."""
    diagnostics = old.as_written([d for d in old.diagnostics if d.code != STALE])
    return Page(
        located.text, old.name, located, old.options, old.bundle, diagnostics, lang=old.lang, invalid=old.invalid,
        unbound=old.unbound, records=old.records, fallback=old.fallback,
    )  # fmt: skip


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return d.code, d.path, d.message


Shape = tuple[tuple[tuple[Any, ...], ...], Any, Any, tuple[tuple[int, int], ...]]


def _shape(located: Located) -> Shape:
    """What a page's check reads of its location: every element (name, attributes, spans), and the offsets."""
    lists = (located.claims, located.slots, located.summaries, located.scripts, located.links)
    elements = tuple(
        tuple((e.name, e.attrs, e.start, e.open_end, e.close_start, e.end, e.self_closing) for e in found)
        for found in lists
    )
    linked = tuple((slot.start, link) for slot, link in located.linked)
    return elements, located.hidden, located.frameset, linked


def _moved(located: Located, edits: list[Edit], new_text: str) -> Located | None:
    """``located`` as it must be in ``new_text``, ``located.text`` with ``edits`` (each one an edited slot's
    content) spliced in: each edited slot holds its replacement, everything else moves by the edits before
    it; None when an element other than the edited slots overlaps an edited span (its text changed: it must
    be checked again)."""
    ordered = sorted(edits)
    spans = {(start, end): len(text) for start, end, text in ordered}
    starts = [start for start, _, _ in ordered]
    ends = [end for _, end, _ in ordered]
    if any(end > start for end, start in zip(ends, starts[1:], strict=False)):
        return None  # (edits that overlap: no slots of a page written; checked again in full)
    # (Edits never overlap, so sorted by start they are sorted by end: each question below is a bisection
    # instead of a pass over every edit, for each offset of each element: a page's slots are its edits.)
    shifts = list(accumulate((len(text) - (end - start) for start, end, text in ordered), initial=0))
    empty = {start for start, end, _ in ordered if start == end}

    def at(offset: int) -> int:
        return offset + shifts[bisect_right(ends, offset)]  # (the edits ending at or before it)

    def moved(e: Element) -> Element | None:
        length = spans.get((e.open_end, e.close_start))
        if length is not None:
            start = at(e.start)
            open_end = start + e.open_end - e.start
            close_start = open_end + length
            return Element(
                e.name, e.attrs, start, open_end, close_start, close_start + e.end - e.close_start, e.self_closing
            )
        after = bisect_right(ends, e.start)  # the first edit ending after the element starts
        if (after < len(starts) and starts[after] < e.end) or e.start in empty:
            return None
        return Element(e.name, e.attrs, at(e.start), at(e.open_end), at(e.close_start), at(e.end), e.self_closing)

    lists: list[list[Element]] = []
    for found in (located.claims, located.slots, located.summaries, located.scripts, located.links):
        row = []
        for e in found:
            done = moved(e)
            if done is None:
                return None
            row.append(done)
        lists.append(row)
    linked = []
    for slot, link in located.linked:
        done = moved(slot)
        if done is None:
            return None
        linked.append((done, at(link)))
    claims, slots, summaries, scripts, links = lists
    hidden = None if located.hidden is None else at(located.hidden)
    frameset = None if located.frameset is None else at(located.frameset)
    kind = FastLocated if isinstance(located, FastLocated) else Located
    return kind(new_text, claims, slots, summaries, scripts, links, hidden, frameset, linked)


def _fast_proof(located: Located, new_text: str, edits: list[Edit]) -> bool:
    """Whether the fast path's argument shows that ``new_text`` locates as ``located`` moved by ``edits``:
    the old page was located by it (every slot's old content proven to end where it ends, the rest of the
    page read by lexbor as by the reference), and each new content ends its slot by the same test."""
    if not isinstance(located, FastLocated):
        return False
    by_span = {(e.open_end, e.close_start): e for e in (*located.slots, *located.summaries)}
    shift = 0
    for start, end, text in sorted(edits):
        slot = by_span.get((start, end))
        if slot is None:
            return False
        moved = Element(slot.name, slot.attrs, slot.start + shift, start + shift, start + shift, start + shift)
        if not slot_ends_after(new_text, moved, start + shift + len(text)):
            return False
        shift += len(text) - (end - start)
    return True


def _shifted(spans: list[tuple[int, int]], edits: list[Edit]) -> list[tuple[int, int]]:
    """Where ``spans`` of the old text must be in the new one: edited spans hold their replacement."""
    replaced = {(start, end): len(text) for start, end, text in edits}
    out = []
    for start, end in spans:
        delta = sum(len(r) - (e - s) for s, e, r in edits if e <= start and (s, e) != (start, end))
        length = replaced.get((start, end), end - start)
        out.append((start + delta, start + delta + length))
    return out


# --- reading and checking ---------------------------------------------------------


def load_page(path: str | os.PathLike[str], options: PageOptions | None = None) -> Page:
    """Read (UTF-8, BOM allowed; else :class:`InputError`) and check a page file."""
    name = os.fspath(path)
    return check_text(read_text(name), name, options or PageOptions())


def check_text(
    text: str,
    name: str | None = None,
    options: PageOptions | None = None,
    *,
    records: _recordcache.RecordCache | None = None,
) -> Page:
    """Locate and check a page's text; never raises for page content, only returns findings.
    ``records``: the run's record cache (:mod:`.recordcache`), when the run keeps one.

    The markup is located by the C parser when selectolax is installed and it is sure to find exactly
    what the reference tokenizer finds (:mod:`.._html.fastpath`), else by the reference tokenizer; either
    way the checks below are the same code on the same :class:`Located`."""
    located, why = attempt(text)
    page = check_located(text, name, located if located is not None else locate(text), options, records=records)
    page.fallback = why if located is None else ""
    return page


def check_fast(text: str, name: str | None = None, options: PageOptions | None = None) -> Page | None:
    """:func:`check_text` on the C parser's location alone, or None when it is not sure (the differential
    test and the benchmark compare the two paths with it)."""
    located = fast_locate(text)
    return None if located is None else check_located(text, name, located, options)


def check_located(
    text: str,
    name: str | None,
    located: Located,
    options: PageOptions | None = None,
    *,
    records: _recordcache.RecordCache | None = None,
) -> Page:
    """Check a page whose markup ``located`` holds (from :func:`.._html.locate.locate` or :func:`.._html.fastpath.fast_locate`)."""
    options = options or PageOptions()
    page = Page(text, name, located, options, lang=options.lang, records=records)
    if page.has_markup:
        page.lang = page_lang(text, options.lang)
        found = list(_checks(page))
        found += _parsing(page, {d.code for _, d in found})
        page.diagnostics = [_placed(page, offset, d) for offset, d in sorted(found, key=lambda pair: pair[0])]
        _remember(page)
    elif page.located.hidden is not None:
        page.diagnostics = [_placed(page, page.located.hidden, Diagnostic("SH104", HIDDEN_MARKUP, subject="page"))]
    else:
        page.diagnostics = unmarked_findings(page.located, page.name, page.options)
    return page


Finding = tuple[int, Diagnostic]


def _placed(page: Page, offset: int, d: Diagnostic) -> Diagnostic:
    if d.line is not None:  # already placed (JSON syntax errors know their line and column)
        return dataclasses.replace(d, file=page.name)
    line, column = page.located.position(offset)
    return dataclasses.replace(d, file=page.name, line=line, column=column)


def _checks(page: Page) -> Iterator[Finding]:
    located = page.located
    scripts = located.scripts
    first = min(e.start for e in (*located.claims, *located.slots, *scripts, *located.summaries))
    if len(scripts) != 1:
        at = scripts[1].start if scripts else first
        yield at, Diagnostic("SH101", _one_script(located, page.name), subject="page")
    else:
        yield from _bundle(page, scripts[0])
    yield from _stylesheet(page, scripts[0].start if scripts else first)
    yield from _shapes(page)
    if isinstance(page.bundle, dict) and isinstance(page.bundle.get("claims"), list):
        yield from _binding(page)
        yield from summary_findings(
            page.located,
            page.text,
            page.bundle,
            page.options,
            page.lang,
            page.record_invalid,
            frozenset(page.unbound) | page.invalid_ids,  # a review is shown only where its block shows it
            page.rendered,
        )


# --- the public operations ------------------------------------------------------------


def render_static_page(text: str, options: PageOptions | None = None) -> tuple[str, list[str]]:
    """``(text with every stale slot re-rendered, error messages)``; on any error the text comes back unchanged.

    Staleness is not an error here: it is what rendering fixes. Messages are
    ``"claim ID: message"`` like :func:`claim_evidence.validate_bundle`'s; the typed
    diagnostics, with positions, are on :func:`check_text`'s :class:`Page`.
    """
    page = check_text(text, None, options)
    if page.errors:
        return text, [d.text for d in page.errors]
    return page.rendered_text(), []


def check_static_page(path: str | os.PathLike[str], options: PageOptions | None = None) -> list[str]:
    """Error messages for the page file, staleness included; empty when it is clean.

    Raises :class:`InputError` when the file cannot be read or is not UTF-8.
    The typed diagnostics (warnings too) are on :func:`load_page`'s :class:`Page`.
    """
    return [d.text for d in load_page(path, options).diagnostics if d.is_error]


def replace_bundle(text: str, bundle: object) -> str:
    """``text`` with only the JSON inside script#claim-evidence-data replaced by ``bundle``.

    The whitespace around the JSON and every other character stay as they were;
    the JSON uses the page's newline style and keeps its indentation: every line
    after its first starts with the margin the JSON sat at (its closing bracket's;
    a reST ``.. raw:: html`` directive ends at the first line indented less), and
    each level is indented by the step the JSON used (2 when it was one line). The
    same for a page and for a Markdown or reST source holding the script.
    Raises :class:`InputError` (SH101) unless the text has exactly one bundle script.
    """
    located = locate(text)
    script = the_bundle_script(located, None)
    content = text[script.open_end : script.close_start]
    stripped = content.strip(" \t\n\r\f")
    lead = content[: len(content) - len(content.lstrip(" \t\n\r\f"))] if stripped else content
    tail = content[len(lead) + len(stripped) :]
    margin = _margin(text, script.open_end + len(lead), stripped)
    serialized = dumps_for_script(bundle, indent=_step(stripped, margin)).replace("\n", "\n" + margin)
    replacement = lead + with_newlines(serialized, newline_style(text)) + tail
    edit = (script.open_end, script.close_start, replacement)
    new = splice(text, [edit])
    again = locate(new)
    if (
        not outside_identical(text, new, [edit])
        or len(again.scripts) != 1
        or loads(new[again.scripts[0].open_end : again.scripts[0].close_start]).value != json.loads(json.dumps(bundle))
    ):
        raise InternalError("internal error: replacing the bundle would change other text; nothing written")
    return new


def _margin(text: str, start: int, json_text: str) -> str:
    """The whitespace the JSON ``json_text`` (starting at ``start`` in ``text``) is indented by: that of its
    last line (the closing bracket) when it spans lines; else what precedes it on its line when that is
    whitespace only, else (the JSON on the script tag's line) that line's own indentation."""
    if "\n" in json_text:
        last = json_text.rsplit("\n", 1)[1]
        return last[: len(last) - len(last.lstrip(" \t"))]
    before = text[text.rfind("\n", 0, start) + 1 : start].lstrip("\r")
    return before if not before.strip(" \t") else before[: len(before) - len(before.lstrip(" \t"))]


def _step(json_text: str, margin: str) -> str | int:
    """The indentation of one level in ``json_text`` (its second line's, less ``margin``); 2 for JSON
    written on one line or indented some other way."""
    lines = json_text.splitlines()
    if len(lines) < 2 or not lines[1].startswith(margin):
        return 2
    inner = lines[1][len(margin) :]
    step = inner[: len(inner) - len(inner.lstrip(" \t"))]
    return step or 2
