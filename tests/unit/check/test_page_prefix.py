"""A page's prefix decides its findings: a later text for which it holds checks exactly as the page did.

Differential, as ``tests/unit/html/test_relocate.py`` is for the location: pages of every kind the tests
know are checked, the text after their last evidence element is replaced by other rests (the html5lib
inputs, what builds write there, the constructs the location must refuse), and wherever
:func:`prefix_holds` says the new text checks as the old one, its check must give the same findings (code,
message, JSON path, severity, subject, line and column), the same re-rendered slots and the same language.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from claim_evidence._check.page import Page, PageOptions, check_text, page_prefix, prefix_holds
from claim_evidence._core.jsonio import dumps_for_script

from ...acceptance.test_static_corpus import BLOCK, BUNDLE, CORPUS, LINK, STATEMENT, pages, read_inputs
from ..html.test_relocate import BUILD_RESTS, REFUSED_RESTS, _module
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


def _compare(text: str, rests: list[str], options: PageOptions, tally: Tally) -> None:
    page = check_text(text, None, options)
    prefix = page_prefix(page)
    if prefix is None:
        tally.none += 1
        return
    tally.prefixes += 1
    for rest in (text[prefix.end :], *rests):
        new = text[: prefix.end] + rest
        if not prefix_holds(prefix, new, options):
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
