"""A page's prefix decides its findings: a later text for which it holds checks exactly as the page did.

Differential, as ``tests/unit/html/test_relocate.py`` is for the location: pages of every kind the tests
know are checked, the text after their last evidence element is replaced by other rests (the html5lib
inputs, what builds write there, the constructs the location must refuse), and wherever
:func:`prefix_holds` (or, for a prefix with a head, :func:`head_moved`) says the new text checks as the old one, its check must give the same findings (code,
message, JSON path, severity, subject, line and column), the same re-rendered slots and the same language.
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from claim_evidence._check.page import Page, PageOptions, check_text
from claim_evidence._check.prefix import Prefix, head_moved, moved_findings, page_prefix, prefix_holds, read_head
from claim_evidence._core.diagnostics import Diagnostic
from claim_evidence._core.jsonio import dumps_for_script

from ...acceptance.test_static_corpus import BLOCK, BUNDLE, CORPUS, LINK, SCRIPT, STATEMENT, pages, read_inputs
from ..html.test_relocate import BUILD_RESTS, REFUSED_RESTS, _module, head_edits
from ..html.test_static_fastscan import _pages

SCRIPT_ONE_LINE = (
    '<script type="application/json" id="claim-evidence-data">'
    + dumps_for_script(BUNDLE).replace("\n", "").replace("  ", "")
    + "</script>"
)
OPTIONS = (PageOptions(), PageOptions(stylesheet=None, lang="en", search_ignore=True))
# Rests that change what the page check reads beyond the location: the language, the newline style.
CHECK_RESTS = ('<html lang="en">', "<HTML LANG=ja-JP>", "\r\n", "\r", "<svg><script id=claim-evidence-data>")


def _shape(page: Page) -> tuple[object, ...]:
    found = [(d.code, d.message, d.path, d.severity, d.subject, d.line, d.column) for d in page.diagnostics]
    rendered = [(slot.start, content) for slot, content in page.rendered]
    return tuple(found), tuple(rendered), page.lang, len(page.claims), page.has_markup


class Tally:
    def __init__(self) -> None:
        self.prefixes = self.none = self.held = self.refused = 0


def _holds(prefix: Prefix, new: str, options: PageOptions, diagnostics: list[Diagnostic]) -> bool:
    """Whether the runner answers ``new`` from ``prefix`` with the findings ``diagnostics`` unmoved: by its
    text up to the end (:func:`prefix_holds`), or a prefix with a head (which has no digest) by its head."""
    if prefix.head is None:
        return prefix_holds(prefix, new, options)
    moved = head_moved(prefix, new.encode("utf-8", "surrogatepass"), new, options)
    return moved is not None and moved_findings(diagnostics, prefix, moved) == diagnostics


def _compare(text: str, rests: list[str], options: PageOptions, tally: Tally) -> None:
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    if prefix is None:
        tally.none += 1
        return
    tally.prefixes += 1
    for rest in (text[prefix.end :], *rests):
        new = text[: prefix.end] + rest
        if not _holds(prefix, new, options, page.diagnostics):
            tally.refused += 1
            continue
        tally.held += 1
        assert _shape(check_text(new, None, options)) == _shape(page), (text[:300], rest[:300])


def test_prefix_decides_findings_on_the_html5lib_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    inputs = [data for _, data in read_inputs(CORPUS)]
    assert inputs, f"the vendored html5lib tree-construction corpus is missing under {CORPUS}"
    rng = random.Random(25)
    tally = Tally()
    for index, data in enumerate(inputs):
        for placement in ("before", "between-slot-bundle") if index % 2 else ("between-body-slot", "after"):
            for content in (BLOCK, "stale") if index % 3 == 0 else (BLOCK,):
                rests = rng.sample(inputs, 2)
                if index % 16 == 0:
                    rests += [*BUILD_RESTS, *REFUSED_RESTS, *CHECK_RESTS]
                _compare(pages(data, content)[placement], rests, OPTIONS[index % 2], tally)
    with capsys.disabled():
        print(
            f"\npage prefix, html5lib corpus: {tally.prefixes} prefixes ({tally.none} pages without), "
            f"{tally.held} rests held, {tally.refused} refused"
        )
    assert tally.prefixes > len(inputs) and tally.held > len(inputs)


def test_prefix_decides_findings_on_known_and_benchmark_pages() -> None:
    rng = random.Random(3)
    inputs = [data for _, data in read_inputs(CORPUS)]
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in _pages()]
    varied, bench = _module("varied"), _module("bench")
    for index in range(2 * len(varied.SHAPES)):
        texts += varied.page(index, 10, 7, True)
    texts += [bench._page(index, 10, 7, True, 1)[1] for index in range(3)]
    tally = Tally()
    for index, text in enumerate(texts):
        rests = [*BUILD_RESTS, *CHECK_RESTS, *rng.sample(inputs, 6)]
        _compare(text, rests, OPTIONS[index % 2], tally)
    assert tally.prefixes > len(texts) // 2 and tally.held > len(texts)


def test_what_a_prefix_does_not_hold_for(tmp_path: Path) -> None:
    text = pages("", BLOCK)["before"]
    options = OPTIONS[0]
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    assert prefix is not None and not page.diagnostics
    assert prefix_holds(prefix, text + "<!-- build 2 -->", options)
    assert not prefix_holds(prefix, text + "<html lang=en>", options)  # the labels' language changes
    assert not prefix_holds(prefix, text.replace("The sky", "The Sky"), options)
    assert not prefix_holds(prefix, text + '<link rel="stylesheet" href="/x.css">', options)
    # A page without a line break before its end: the rest decides its newline style, which the check
    # renders its blocks' line breaks in (binding: with_newlines), so a rest that sets it is refused.
    one_line = f'{LINK}<p data-claim-id="C-1">{STATEMENT}</p><div data-evidence-for="C-1"></div>{SCRIPT_ONE_LINE}'
    page = check_text(one_line, None, options)
    prefix = page_prefix(page)
    assert prefix is not None and page.rendered and "\n" not in one_line
    assert prefix_holds(prefix, one_line + "<!-- b -->", options)
    assert not prefix_holds(prefix, one_line + "\r\n", options)
    assert not prefix_holds(prefix, one_line + "\r", options)
    # A page whose check read beyond its markup (no bundle script: the SVG/MathML search) has none.
    assert page_prefix(check_text(text.replace('id="claim-evidence-data"', 'id="x"'), None, options)) is None


# --- a page changed only in its head ---------------------------------------------------------------


def _moved_shape(page: Page, end: int) -> tuple[object, ...]:
    """:func:`_shape` with the re-rendered slots placed from the head's end."""
    found, rendered, *rest = _shape(page)
    return (found, tuple((start - end, content) for start, content in rendered), *rest)  # type: ignore[union-attr]


def _compare_heads(text: str, options: PageOptions, rng: random.Random, count: int, tally: Tally) -> None:
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    if prefix is None or prefix.head is None:
        tally.none += 1
        return
    tally.prefixes += 1
    _held_edits(text, page, prefix, options, rng, count, tally)


def _held_edits(
    text: str,
    page: Page,
    prefix: Prefix,
    options: PageOptions,
    rng: random.Random,
    count: int,
    tally: Tally,
) -> None:
    """Every head edit of ``text`` (checked as ``page``, its prefix ``prefix``, with a head) that
    :func:`head_moved` holds for checks as ``page`` did, its findings moved by the head's lines."""
    assert prefix.head is not None
    middle, rest = text[prefix.head.end : prefix.end], text[prefix.end :]
    for index, head in enumerate(head_edits(text[: prefix.head.end], rng, count)):
        new = head + middle + (rest if index % 3 else rng.choice((*BUILD_RESTS, *CHECK_RESTS)))
        moved = head_moved(prefix, new.encode("utf-8", "surrogatepass"), new, options)
        placed = None if moved is None else moved_findings(page.diagnostics, prefix, moved)
        if moved is None or placed is None:
            tally.refused += 1
            continue
        tally.held += 1
        again = check_text(new, None, options)
        found, rendered, *others = _moved_shape(page, prefix.head.end)
        expected = (
            tuple((d.code, d.message, d.path, d.severity, d.subject, d.line, d.column) for d in placed),
            rendered,
            *others,
        )
        assert _moved_shape(again, moved.head.end) == expected, (head, text[:300])  # type: ignore[union-attr]
        # The next build's entry: as a check of the new text makes it, but for the digest, which a
        # prefix with a head does without.
        fresh = page_prefix(again)
        assert fresh is not None and dataclasses.replace(fresh, digest="") == moved


def test_a_changed_head_checks_as_the_page_did(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(5)
    varied, bench = _module("varied"), _module("bench")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in _pages()]
    for index in range(2 * len(varied.SHAPES)):
        texts += varied.page(index, 10, 7, True)
    texts += [bench._page(index, 10, 7, True, 1)[1] for index in range(3)]
    texts += [text.replace("<head>", "<head>\r\n") for text in texts[:4]]  # (a CR in the head: refused)
    tally = Tally()
    for index, text in enumerate(texts):
        _compare_heads(text, OPTIONS[index % 2], rng, 30, tally)
    with capsys.disabled():
        print(
            f"\nchanged heads: {tally.prefixes} pages with a head ({tally.none} without), {tally.held} held, {tally.refused} refused"
        )
    assert tally.prefixes > len(texts) // 3 and tally.held > 5 * tally.prefixes


# A build that changed a page between its head and its evidence: a stamp before its first claim, a
# line more, a paragraph more or a table where its head's body part ended (which a head read against the
# last reads on from there), a frameset, a claim's words.
def _middle_edits(text: str, head_end: int) -> list[str]:
    first = re.compile(r"<[a-zA-Z]+[^<>]*data-claim-id").search(text, head_end)
    if first is None:  # (the tests' odd pages: a claim element written otherwise)
        return []
    tag = first.start()
    return [
        text[:tag] + "<!-- evidence build 7 -->" + text[tag:],
        text[:head_end] + "<!-- evidence build 7 -->\n" + text[head_end:],
        text[:head_end] + "<p>A paragraph more.</p>\n\n<p>And one\nmore.</p>\n" + text[head_end:],
        text[:head_end] + "<div>\n<p>an element left open</p>\n" + text[head_end:],
        text[:head_end] + "<table><tr><td>a table</td></tr></table>\n" + text[head_end:],
        text[:tag] + "<frameset>" + text[tag:],
        text[: tag + 40] + "x" + text[tag + 40 :],
    ]


def test_a_head_read_against_the_last_prefix_makes_the_next(capsys: pytest.CaptureFixture[str]) -> None:
    """The runner reads a changed page's head against its last prefix (:func:`read_head`); where only the
    middle differs, the page is checked and its next prefix is made from that head (``page_prefix(page,
    read)``: its body part read on, its own middle) instead of reading the head again. It is the prefix a
    check makes (``page_prefix(page)``), to the last field."""
    varied, bench = _module("varied"), _module("bench")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in _pages()]
    for index in range(2 * len(varied.SHAPES)):
        texts += varied.page(index, 10, 7, True)
    texts += [bench._page(index, 10, 7, True, 1)[1] for index in range(3)]
    read_on = same = 0
    for index, text in enumerate(texts):
        options = OPTIONS[index % 2]
        prefix = page_prefix(check_text(text, None, options))
        if prefix is None or prefix.head is None or "data-claim-id" not in text[prefix.head.end :]:
            continue
        for new in _middle_edits(text, prefix.head.end):
            read = read_head(prefix, new.encode("utf-8", "surrogatepass"), new, options)
            if read is None:
                continue
            again = check_text(new, None, options)
            kept = page_prefix(again, read)
            assert kept == page_prefix(again), new[:300]
            same += 1
            read_on += kept is not None and kept.head is not None and kept.head.end > read.end
    with capsys.disabled():
        print(
            f"\nheads read against the last: {same} prefixes as a check makes them, {read_on} with the body part read on"
        )
    assert same > 2 * len(texts) and read_on > 10


def test_a_head_whose_body_part_cannot_be_read_on_is_read_again() -> None:
    """:func:`relocate.with_middle` gives a page's own head back unchanged (its body part read on ends where
    it did), and none for a head whose skeleton it cannot read on from (kept as a digest, or not start tags):
    ``page_prefix`` then reads the head afresh, to the same prefix."""
    from claim_evidence._html import relocate

    text = _module("varied").page(1, 10, 7, True)[0]
    page = check_text(text, None, OPTIONS[0])
    prefix = page_prefix(page)
    assert prefix is not None and prefix.head is not None and prefix.head.body > 0
    assert prefix.head.skeleton.startswith("[")
    assert relocate.with_middle(prefix.head, text, prefix.end) == prefix.head
    for skeleton in ("0" * 64, '["not a tag"]', "[1]"):
        unread = prefix.head._replace(skeleton=skeleton)
        assert relocate.with_middle(unread, text, prefix.end) is None
        assert page_prefix(page, unread) == prefix


def test_what_a_head_does_not_hold_for() -> None:
    options = OPTIONS[0]
    head = '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta name="built" content="1">\n  <!-- build 1 -->\n'
    head += f"  {LINK}\n</head>\n<body>\n"
    text = head + f'<p data-claim-id="C-1">{STATEMENT} 42</p>\n<div data-evidence-for="C-1"></div>\n{SCRIPT}\n'
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    assert prefix is not None and prefix.head is not None and page.diagnostics

    def held(new: str) -> bool:
        moved = head_moved(prefix, new.encode(), new, options)
        return moved is not None and moved_findings(page.diagnostics, prefix, moved) is not None

    stamped = text.replace("build 1", "build 2")
    assert held(stamped) and held(text.replace('content="1"', 'content="2026-12-03"'))
    moved = head_moved(prefix, stamped.encode(), stamped, options)
    assert moved is not None and moved.end == prefix.end and moved.digest == ""
    grown = text.replace("</head>", "<!-- a line after the link -->\n</head>")
    moved = head_moved(prefix, grown.encode(), grown, options)
    assert moved is not None and moved.head is not None and moved.head.lines == prefix.head.lines + 1
    placed = moved_findings(page.diagnostics, prefix, moved)
    assert placed is not None and [d.line for d in placed] == [d.line + 1 for d in page.diagnostics]  # type: ignore[operator]
    assert held(text.replace("  <!-- build 1 -->\n", "  <!-- build 1 -->\n\n"))  # (the link a line lower)
    # A finding placed in the head, or whose message names a line (which may be in the head), is not moved.
    for found in (
        dataclasses.replace(page.diagnostics[0], line=prefix.head.lines),
        Diagnostic("SH1", "the <a> at line 3"),
    ):
        assert moved_findings([*page.diagnostics, found], prefix, moved) is None
    # What the head decides: the labels' language, the links as SH130 reads them, the tags a head may not
    # hold, a CR. A meta, a script, a title more decide nothing.
    assert not held(text.replace('lang="en"', 'lang="ja"'))
    assert held(text.replace("<!-- build 1 -->", "<!-- build 1 --><script>x</script><title>t</title>"))
    assert held(text.replace("<!-- build 1 -->", '<!-- build 1 --><meta name="generator" content="g 2">'))
    assert not held(text.replace("<!-- build 1 -->", "<!-- build 1 --><p>x</p>"))
    # A link more, fewer, or pointing elsewhere: held while one is still the evidence stylesheet's (a new
    # asset hash in its query), refused when none is (the check would report SH130).
    assert held(text.replace("/assets/claim-evidence.css", "/assets/claim-evidence.css?v=2"))
    assert held(text.replace("/assets/claim-evidence.css", "/assets/claim-evidence.css#x"))
    assert not held(text.replace("/assets/claim-evidence.css", "/assets/claim-evidence.6f8fc17f.css"))
    assert not held(text.replace('rel="stylesheet"', 'rel="preload"'))
    assert not held(text.replace(LINK, '<link rel="icon" href="/favicon.2.ico">'))
    assert held(text.replace(LINK, f'<link rel="icon" href="/favicon.2.ico">\n  {LINK}'))  # (a link more)
    assert not held(text.replace("<!-- build 1 -->", "<!-- build 1 -->\r"))
    assert not held(text.replace("<!-- build 1 -->", '<!-- <p data-claim-id="C-2"> -->'))
    # ...and what follows it: the same bytes up to the last evidence element, then a rest that adds nothing.
    assert not held(stamped.replace(STATEMENT, STATEMENT.upper()))
    assert held(stamped + "<footer>built 2</footer>\n")
    assert not held(stamped + '<link rel="stylesheet" href="/x.css">\n')


def test_a_head_holds_for_no_other_language() -> None:
    # A page whose <html> has no lang takes it from a later <html lang>, in the rest too: refused.
    options = OPTIONS[0]
    text = f'<!DOCTYPE html>\n<html>\n<head>\n<!-- build 1 -->\n{LINK}\n</head>\n<body>\n<p data-claim-id="C-1">{STATEMENT}</p>\n'
    text += f'<div data-evidence-for="C-1"></div>\n{SCRIPT}\n'
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    assert prefix is not None and prefix.head is not None
    stamped = text.replace("build 1", "build 2")
    assert head_moved(prefix, stamped.encode(), stamped, options) is not None
    relabelled = stamped + '<html lang="en">\n'
    assert check_text(relabelled, None, options).lang != page.lang
    assert head_moved(prefix, relabelled.encode(), relabelled, options) is None
