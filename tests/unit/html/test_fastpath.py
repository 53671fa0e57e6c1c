"""The fast path (``_fastpath``) answers exactly what the reference answers, or not at all.

Differential: wherever :func:`fast_locate` returns a location it must equal the reference tokenizer's
(``_locate(text, fast=False)``: every element, span and attribute), and :func:`check_fast` (and
:func:`check_text`, which takes the fast path when it can) must return the page the reference
location gives (every diagnostic with its position, every stale slot). Inputs: every HTML page the tests know, the
html5lib tree-construction corpus placed around claim/slot/bundle markup, pages of the benchmark, and
random and mutated pages. Pages the fast path leaves to the reference are counted and printed.
"""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("selectolax")

from claim_evidence._check.page import Page, PageOptions, check_fast, check_located, check_text  # noqa: E402
from claim_evidence._html import fastpath as _fastpath  # noqa: E402
from claim_evidence._html.locate import Located, _locate  # noqa: E402

from ...acceptance.test_static_corpus import BLOCK, CORPUS, pages, read_inputs  # noqa: E402
from .test_static_fastscan import WRAPS, _pages  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OPTIONS = (PageOptions(), PageOptions(stylesheet=None, lang="en", search_ignore=True))


def _shape(located: Located) -> tuple[object, ...]:
    elements = [*located.claims, *located.slots, *located.summaries, *located.scripts, *located.links]
    spans = [(e.name, e.attrs, e.start, e.open_end, e.close_start, e.end, e.self_closing) for e in elements]
    counts = len(located.claims), len(located.slots), len(located.summaries), len(located.scripts), len(located.links)
    linked = [(slot.start, link) for slot, link in located.linked]
    return tuple(spans), counts, located.hidden, located.frameset, linked


def _page_shape(page: Page) -> tuple[object, ...]:
    found = [(d.code, d.message, d.path, d.severity, d.subject, d.line, d.column) for d in page.diagnostics]
    return tuple(found), tuple((slot.start, content) for slot, content in page.rendered), page.lang


class Tally:
    """What the fast path did with each page: answered (clean or not), or left it to the reference."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.missed: list[str] = []  # clean pages the fast path left to the reference

    def line(self, name: str) -> str:
        c = self.counts
        return (
            f"{name}: {sum(c.values())} pages; fast path answered {c['fast clean'] + c['fast findings']} "
            f"({c['fast clean']} clean, {c['fast findings']} with findings), left {c['fallback clean']} clean and "
            f"{c['fallback findings']} other pages with evidence markup to the reference ({c['no markup']} without)"
        )


def differential(text: str, tally: Tally | None = None, options: PageOptions | None = None) -> str:
    """Compare the fast path with the reference on ``text``; return what the fast path did."""
    options = options or OPTIONS[0]
    exact = check_located(text, None, _locate(text, fast=False), options)
    exact_clean = not exact.diagnostics and not exact.rendered
    located = _fastpath.fast_locate(text)
    left_out: dict[int, Any] = {}
    if _fastpath._attempt(text, left_out)[0] is not None and left_out:
        marks = _fastpath._marks(text) or []
        marked = _fastpath._marked(text, marks, _fastpath._slot_tags(text, marks), left_out)
        assert marked == _marked_without(text, left_out), text[:400]
    if located is None:
        assert check_fast(text, None, options) is None
        if not exact.has_markup:
            outcome = "no markup"  # (the reference's keyword filter answers those without parsing)
        else:
            outcome = "fallback clean" if exact_clean else "fallback findings"
    else:
        assert _shape(located) == _shape(_locate(text, fast=False)), text[:400]
        fast = check_fast(text, None, options)
        assert fast is not None and _page_shape(fast) == _page_shape(exact), text[:400]
        assert _page_shape(check_text(text, None, options)) == _page_shape(exact), text[:400]
        outcome = "fast clean" if exact_clean else "fast findings"
    if tally is not None:
        tally.counts[outcome] += 1
        if outcome == "fallback clean" and len(tally.missed) < 20:
            tally.missed.append(text[:160].replace("\n", "⏎"))
    return outcome


def _report(capsys: pytest.CaptureFixture[str], tally: Tally, name: str) -> None:
    with capsys.disabled():
        print("\n" + tally.line(name))
        for text in tally.missed[:5]:
            print(f"  left to the reference although clean: {text[:120]}")


# --- the pages the tests know ------------------------------------------------------------


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_fastpath_pages_match_reference(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    for options in OPTIONS:
        differential(text, options=options)


def test_fastpath_known_pages_tally(capsys: pytest.CaptureFixture[str]) -> None:
    tally = Tally()
    for path in _pages():
        differential(path.read_text(encoding="utf-8", errors="replace"), tally)
    _report(capsys, tally, "pages under tests/data, examples and shared corpora")


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("_bench", ROOT / "benchmarks" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fastpath_answers_every_benchmark_page(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    tally = Tally()
    for index in range(12):
        markup = index % bench.PLAIN_EVERY != bench.PLAIN_EVERY - 1
        fresh, stale = bench._page(index, 10, 7, markup, 1)
        for text in (
            fresh,
            stale,
            fresh.replace("\n", "\r\n"),
            fresh.replace("</footer>", "</footer><!-- build 2 -->"),
        ):
            outcome = differential(text, tally)
            if markup:
                assert outcome.startswith("fast"), "a benchmark page with markup was left to the reference"
    _report(capsys, tally, "benchmark pages (fresh, stale, CRLF, rebuilt)")


def _varied() -> Any:
    spec = importlib.util.spec_from_file_location("_varied", ROOT / "benchmarks" / "varied.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fastpath_answers_every_varied_benchmark_page(capsys: pytest.CaptureFixture[str]) -> None:
    # Every shape of the varied site (issue 32), in ja and en: formatted, linked and scripted claim
    # sentences, claims in cells, list items, blockquotes, figcaptions and details, SVG icons, a MathML
    # formula, a select. Each page the fast path answers, as the reference does.
    varied = _varied()
    tally = Tally()
    for index in range(2 * len(varied.SHAPES)):
        fresh, stale = varied.page(index, 10, 7, True)
        for text in (fresh, stale, fresh.replace("\n", "\r\n"), fresh.replace("</footer>", "</footer><!-- b2 -->")):
            outcome = differential(text, tally, OPTIONS[index % 2])
            assert outcome.startswith("fast"), (varied.shape_of(index), _fastpath.attempt(text)[1])
    _report(capsys, tally, "varied benchmark pages (fresh, stale, CRLF, rebuilt)")


# --- the html5lib corpus ----------------------------------------------------------------------

# The shapes the fast path accepts since issue 32, around (or holding) each corpus input: a claim whose
# sentence holds formatting, a comment and an inline script; claims and slots in cells, list items and a
# blockquote; a MathML formula and a select elsewhere on the page.
SHAPE_WRAPS = (
    '<p data-claim-id="a"><em>x</em><!-- c --><code>y</code>{}<script>s("</p>")</script> z</p>'
    '<div data-evidence-for="a"></div>',
    '<table><tr><td data-claim-id="a">x <a href="/y">y</a>{}</td><td data-evidence-for="a"></td></tr></table>',
    '<select><option>x</option><optgroup label="g"><option>y</option></optgroup></select>{}'
    '<ul><li data-claim-id="a">x<br>y</li><li data-evidence-for="a"></li></ul>',
    '<math><mi>x</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac></math><blockquote data-claim-id="a">{}</blockquote>'
    '<div data-evidence-for="a"></div><script type="application/json" id="claim-evidence-data">{{}}</script>',
)


def test_fastpath_html5lib_corpus_matches_reference(capsys: pytest.CaptureFixture[str]) -> None:
    inputs = read_inputs(CORPUS)
    assert inputs, f"the vendored html5lib tree-construction corpus is missing under {CORPUS}"
    trio, wrapped, shaped = Tally(), Tally(), Tally()
    for _, data in inputs:
        for text in pages(data, BLOCK).values():  # a valid claim/slot/bundle trio around the input
            differential(text, trio)
        for text in pages(data, "stale").values():
            differential(text, trio)
        for wrap in WRAPS:
            differential(wrap.format(data), wrapped)
            differential(data + wrap.format(data), wrapped)
        for wrap in SHAPE_WRAPS:
            differential(wrap.format(data), shaped)
    _report(capsys, trio, "html5lib corpus around a valid trio (fresh and stale slot)")
    _report(capsys, wrapped, "html5lib corpus in the fast scan's wrappings")
    _report(capsys, shaped, "html5lib corpus in the shapes of issue 32")
    assert trio.counts["fast clean"] > 1000  # the fast path does answer most intact pages


# --- random and mutated pages ------------------------------------------------------------


CLEAN = pages("", BLOCK)["between-body-slot"]
_PIECES = st.sampled_from(
    [
        "text ",
        "日本語",
        "&amp;",
        "&copy=",
        "&#1;",
        "&#x80;",
        "<",
        ">",
        "\r\n",
        "\r",
        "\x00",
        "<p>",
        "</p>",
        "<b>",
        "</b>",
        "<i>",
        "</i>",
        "<a href='x'>",
        "<a href=x>",
        "</a>",
        "<div>",
        "</div>",
        '<span class="c">',
        "</span>",
        "<li>",
        "</li>",
        "<ul>",
        "</ul>",
        "<br>",
        "</br>",
        "<br/>",
        '<img src="a.png" alt=">">',
        "<table>",
        "<tr>",
        "<td>",
        "</td>",
        "</table>",
        "<h2>",
        "</h2>",
        "<pre>",
        "</pre>",
        "<details>",
        "<summary>",
        "</details>",
        "<section>",
        "</section>",
        "<!-- c -->",
        "<!--",
        "-->",
        '<!-- <div data-evidence-for="C-1"></div> -->',
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<template>",
        "</template>",
        "<textarea>",
        "</textarea>",
        "<select>",
        "</select>",
        "<svg>",
        "</svg>",
        "<math>",
        "<form>",
        "</form>",
        '<col data-claim-id="C-1">',
        "<noscript>",
        "</noscript>",
        "<nobr>",
        "<ruby>",
        "<rt>",
        "<object>",
        "</object>",
        "<caption>",
        "<frameset>",
        "<image>",
        '<p data-claim-id="C-1">',
        '<p data-claim-id="C-2">',
        '<div data-evidence-for="C-1">',
        "<div data-evidence-summary>",
        '<span data-claim-id="C-1">',
        '<b title="data-claim-id">',
        "<p title=data-evidence-for>",
        '<script type="application/json" id="claim-evidence-data">{}</script>',
        '<link rel="stylesheet" href="/x.css">',
        '<link rel="stylesheet" href="/assets/claim-evidence.css">',
        '<p title = "a>b">',
        "<p title='x\" y'>",
        "<plaintext>",
        "<!DOCTYPE html>",
        "<html lang=en>",
        "<body>",
        "</body>",
        "<P DATA-CLAIM-ID=C-1>",
        "<xmp>",
        "</xmp>",
        "\ue000",
        "\ue001",
        "data-claim-id",
        "claim-evidence-data",
        "<data-claim-id>",
        "</data-claim-id>",
        "<a href='/y'>y",
        '<script>var s = "<div data-claim-id=\\"C-1\\">";</script>',
        "&lt;p data-claim-id=x&gt;",
        "<p title=data-claim-id>",
        "<p title=claim-evidence-data data-claim-id=C-1>",
        '<div data-evidence-for="C-1" data-evidence-for="C-2">',
        '<p data-claim-id="C&#45;1">',
        '<p data-claim-id="C-1\r\n">',
        '<table><p data-claim-id="C-1">',
        "<template>",
        '<template><div data-evidence-for="C-1"></div></template>',
        '<li data-claim-id="C-1">',
        '<td data-evidence-for="C-1">',
        "<a href=x><div>",
        "<p><b>",
        '<script id="claim-evidence-data" type="application/json">{}</script>',
        '<script id=claim&#45;evidence-data type=application/json>{"version": 1}</script>',
        "<div data-claim-id=C-1><div>",
        "<!--<script>",
        "</script -->",
        "<li><p>",
        "<section>",
        "<aside>",
        "<dd>",
        "<h2 data-claim-id=C-1>",
        "<ruby>",
        "</ruby>",
        "<rt>",
        "</rt>",
        "<rp>",
        "</rp>",
        "<ruby>空<rt>そら</rt></ruby>",
        "<rb>",
        "<rtc>",
        # Inline SVG icons as themes write them (simple islands), and SVG the fast path must leave alone.
        '<svg viewBox="0 0 24 24"><path d="M3 6h18v2H3z"/></svg>',
        '<a href="/"><svg><g><circle r="1"></circle><use href="#i"/></g></svg></a>',
        '<svg style="display: none;"><symbol id="s"><title>Menu</title><svg><line x1="3"></line></svg></symbol></svg>',
        "<svg>",
        "</svg>",
        "<svg/>",
        "<svg><path d=M1/></svg>",
        "<svg><p>",
        "<svg><title><b>t</b></title></svg>",
        "<svg><foreignObject><div>",
        '<svg><path data-claim-id="C-1"/></svg>',
        "<svg><desc>d</desc><!-- c --></svg>",
        "<SVG></SVG>",
        "<math><mi>x</mi></math>",
        # Since issue 32: formulas, selects, comments and inline scripts (in claims or anywhere).
        "<math><mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow></math>",
        "<math><mi><b>x</b></mi></math>",
        "<math><annotation-xml><div>",
        "<math/>",
        "<mi>",
        "</mi>",
        "<select><option>a</option></select>",
        '<select name="s"><optgroup label="g"><option value="1">1</option></optgroup></select>',
        "<select><option>a</select>",
        "<select><select>",
        "<select/>",
        "<option>",
        "</option>",
        "<optgroup>",
        "<select><input></select>",
        "<!---->",
        "<!--->",
        "<!-- a -- b -->",
        "<!-- a --!>",
        "<!-- </p> -->",
        "<script>s()</script>",
        "<script>s('</p>')</script>",
        "<script><!--<script>",
        "<script/>",
        "</script >",
        "<code>",
        "</code>",
        "<em>",
        "</em>",
        "<sup>1</sup>",
        "<ruby>a<rp>(</rp><rt>b</rt><rp>)</rp></ruby>",
    ]
)


def _cut_points(text: str) -> list[int]:
    return sorted({i for i, ch in enumerate(text) if ch in "<>\"' ="} | {0, len(text)})


@st.composite
def mutated(draw: st.DrawFn, base: str = CLEAN) -> str:
    """A clean page with pieces inserted at tag boundaries, or one of its characters replaced."""
    text = base
    points = _cut_points(text)
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            at = draw(st.sampled_from(points))
            text = text[:at] + draw(_PIECES) + text[at:]
        else:
            at = draw(st.integers(0, len(text) - 1))
            text = (
                text[:at]
                + draw(st.sampled_from(["'", '"', " ", "x", "<", ">", "=", "/", "", "A", "\n"]))
                + text[at + 1 :]
            )
        points = _cut_points(text)
    return text


_TALLIES: dict[str, Tally] = {"random": Tally(), "mutated": Tally()}


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=40), st.sampled_from(list(pages("", BLOCK).values())))
def test_fastpath_random_pages_match_reference(pieces: list[str], trio: str) -> None:
    cut = random.Random(len(pieces)).randrange(len(trio))
    differential(trio[:cut] + "".join(pieces) + trio[cut:], _TALLIES["random"])


@settings(max_examples=600, deadline=None)
@given(mutated())
def test_fastpath_mutated_pages_match_reference(text: str) -> None:
    differential(text, _TALLIES["mutated"])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fastpath_mutated_benchmark_pages_match_reference(data: st.DataObject) -> None:
    bench = _BENCH_PAGES[data.draw(st.integers(0, len(_BENCH_PAGES) - 1))]
    differential(data.draw(mutated(bench)), _TALLIES["mutated"])


_BENCH_BOTH = [_bench()._page(i, 3, 11, True, 1) for i in range(3)] + [
    _varied().page(i, 3, 11, True) for i in range(len(_varied().SHAPES))
]
_BENCH_PAGES = [fresh for fresh, _ in _BENCH_BOTH]
_BENCH_STALE = [stale for _, stale in _BENCH_BOTH]  # (every slot empty)


def test_fastpath_random_tallies(capsys: pytest.CaptureFixture[str]) -> None:
    for name, tally in _TALLIES.items():
        if tally.counts:
            _report(capsys, tally, f"{name} pages")


# --- the pieces ------------------------------------------------------------------------------


def test_fastpath_positions_match_the_line_index() -> None:
    text = "a\nbc\n\nd" * 50
    fast = _fastpath.FastLocated(text)
    for offset in range(len(text) + 1):
        assert fast.position(offset) == Located(text).position(offset)
    crlf = "a\r\nb\rc\n"
    assert [_fastpath.FastLocated(crlf).position(i) for i in range(len(crlf) + 1)] == [
        Located(crlf).position(i) for i in range(len(crlf) + 1)
    ]
    # Asked in any order (counted on from the offset before, or again from the start), the same answers.
    rng = random.Random(5)
    offsets = [rng.randrange(len(text) + 1) for _ in range(300)] + sorted(
        rng.randrange(len(text) + 1) for _ in range(50)
    )
    assert [fast.position(offset) for offset in offsets] == [Located(text).position(offset) for offset in offsets]


def test_fastpath_neutral_content_rules() -> None:
    block = tuple(
        "aside p strong /strong span /span /p details summary /summary ul li span a /a /span /li /ul /details /aside".split()
    )
    assert _fastpath.neutral(block, True)
    assert not _fastpath.neutral(block, False)  # blocks are no phrasing content
    assert _fastpath.neutral(("b", "a", "/a", "/b", "br"), False)
    assert not _fastpath.neutral(("a", "a", "/a", "/a"), False)  # a link in a link ends the first
    assert not _fastpath.neutral(("p", "div", "/div", "/p"), True)  # a div ends the p
    assert not _fastpath.neutral(("li", "/li"), True)  # a bare li may end an li the slot is in
    assert not _fastpath.neutral(("b",), False) and not _fastpath.neutral(("/b",), False)
    assert _fastpath.neutral(("ruby", "rt", "/rt", "rt", "/rt", "/ruby"), False)
    assert not _fastpath.neutral(("ruby", "rt", "rt", "/rt", "/rt", "/ruby"), False)  # an rt ends the open rt


def test_fastpath_rendered_blocks_are_neutral() -> None:
    # The slot span argument holds for what --write puts there: every block the templates render.
    from claim_evidence._render.summary import render_summary

    from ...acceptance.test_static_corpus import BUNDLE

    blocks = [
        BLOCK,
        render_summary(BUNDLE, ["C-1"], invalid=False),
        render_summary(BUNDLE, [], invalid=True, lang="en"),
    ]
    for block in blocks:
        names = _fastpath.strict_names(block)
        assert names is not None and _fastpath.neutral(names, True), block


def test_fastpath_leaves_foreign_content_and_select_to_the_reference() -> None:
    for extra in (
        "<math><mi><b>x</b></mi></math>",  # HTML inside a text integration point
        "<math><semantics><annotation-xml><div>x</div></annotation-xml></semantics></math>",
        "<math><mi>x</math>",  # an end tag that closes more than the current node
        "<select><option>a</select>",  # an end tag left out
        "<select><select></select>",  # a select in a select ends it
        "<select><optgroup><optgroup></optgroup></optgroup></select>",  # so does an optgroup in an optgroup
        "<select/>",  # the flag is ignored: the select stays open
        "<select><option/>a</option></select>",
        "<select><input></select>",
        "<SELECT></SELECT>",
        "<frameset>",
        "<svg><p>x</p></svg>",  # a <p> breaks out of the SVG
        "<svg><title><b>t</b></title></svg>",  # HTML inside an integration point
        "<svg><foreignObject></foreignObject></svg>",
        "<svg><path/>",  # never closed
        "<svg><!-- x --></svg>",
        "<SVG></SVG>",
        '<svg><path data-claim-id="C-1"/></svg>',
    ):
        assert _fastpath.fast_locate(CLEAN.replace("<p data-claim-id", extra + "<p data-claim-id")) is None, extra
    assert _fastpath.fast_locate(CLEAN) is not None


def test_fastpath_answers_claims_holding_comments_scripts_and_formatting() -> None:
    # Issue 32: the shapes of claim sentences on real pages, each located by lexbor as the reference does.
    claim = '<p data-claim-id="C-1">The sky is blue.</p>'
    for content in (
        'The <em>sky</em> is <a href="/b"><code>blue</code></a>.',
        "The sky<!-- checked --> is blue.",
        'The sky is blue.<script>track("</p>")</script>',
        "The <b>sky</b><br>is <i>blue</i><sup>1</sup>.",
    ):
        text = CLEAN.replace(claim, f'<p data-claim-id="C-1">{content}</p>')
        assert text != CLEAN and differential(text).startswith("fast"), (content, _fastpath.attempt(text)[1])
    for content, why in (
        ("The sky<!-- a -- b --> is blue.", "claim <p>: markup not in the strict shape ('<!-- a -- b ')"),
        ("The sky is blue.<script/>", "claim <p>: self-closing <script/>"),
        ("The <div>sky</div> is blue.", "claim <p>: content not neutral (<div>)"),
    ):
        text = CLEAN.replace(claim, f'<p data-claim-id="C-1">{content}</p>')
        assert _fastpath.attempt(text) == (None, why)
        differential(text)


def test_fastpath_answers_pages_with_formulas_and_selects() -> None:
    for extra in (
        "<math></math>",
        "<math><mrow><mi>x</mi><mo>=</mo><msup><mn>2</mn><mn>3</mn></msup></mrow></math>",
        "<select></select>",
        '<select id="l"><option value="ja" selected>日本語</option><optgroup label="x"><option>en</option></optgroup></select>',
    ):
        text = CLEAN.replace("<p data-claim-id", extra + "<p data-claim-id")
        assert differential(text) == "fast clean", extra


def test_fastpath_attempt_names_why_it_gives_up() -> None:
    assert _fastpath.attempt(CLEAN)[1] == ""
    assert _fastpath.attempt("<p>no markup</p>") == (None, _fastpath.NO_MARKUP)
    assert _fastpath.attempt(CLEAN.replace("<p data-claim-id", "<svg><p>x</p></svg><p data-claim-id")) == (
        None,
        "svg, math or select not a simple island",
    )


def test_fastpath_answers_pages_with_simple_svg_islands() -> None:
    # Theme icons (Material for MkDocs, furo): the page is located by lexbor, as the reference locates it.
    for extra in (
        '<svg viewBox="0 0 24 24"><path d="M3 6h18v2H3z"/></svg>',
        '<a href="/"><svg><g><circle r="1"></circle></g></svg></a>',
        '<svg style="display: none;"><symbol id="s"><title>Menu</title><svg><line x1="3"></line></svg></symbol></svg>',
        "<svg/>",
    ):
        text = CLEAN.replace("<p data-claim-id", extra + "<p data-claim-id")
        assert differential(text) == "fast clean", extra


def test_fastpath_reads_a_page_without_its_slots_proven_contents() -> None:
    """lexbor reads a page without the contents of its slots proven neutral before the parse (the rendered
    blocks: two fifths of a page's tags), and the page locates as the reference locates it."""
    for page in _BENCH_PAGES:
        left_out: dict[int, Any] = {}
        located, why = _fastpath._attempt(page, left_out)
        assert located is not None and why == ""
        assert sorted(left_out) == [slot.open_end for slot in located.slots]
        assert [(e.close_start, e.end) for e in left_out.values()] == [(s.close_start, s.end) for s in located.slots]
        marks = _fastpath._marks(page) or []
        marked = _fastpath._marked(page, marks, _fastpath._slot_tags(page, marks), left_out)
        assert all(page[e.open_end : e.close_start] not in marked for e in left_out.values())
        assert differential(page).startswith("fast")
    # The same pages not yet rendered (every slot empty): nothing to leave out, no proof spent on it.
    for stale in _BENCH_STALE:
        left_out = {}
        located, why = _fastpath._attempt(stale, left_out)
        assert located is not None and located.slots and not left_out, why


def test_fastpath_reads_a_page_whole_when_what_it_left_out_is_no_slot() -> None:
    """A tag spelling a slot where no element comes of it (in a comment), its "content" running past the
    comment's end: left out before the parse, found to be no slot after it, the page read whole."""
    page = _BENCH_PAGES[0]
    first = page.index("<p data-claim-id")
    text = page[:first] + '<!-- <div data-evidence-for="P-9"> --> <b>x</b> </div>' + page[first:]
    left_out: dict[int, Any] = {}
    assert _fastpath._attempt(text, left_out) == (None, "content left out of a tag that is no slot")
    assert left_out
    differential(text)
    assert _fastpath.attempt(text) == _fastpath._attempt(text, None)


def _marked_without(text: str, left_out: dict[int, Any]) -> str:
    """The page as lexbor reads it whole, less exactly the contents ``left_out`` (what :func:`._marked`
    must give when it leaves them out)."""
    marks = _fastpath._marks(text) or []
    tags = _fastpath._slot_tags(text, marks)
    whole = _fastpath._marked(text, marks, tags, {})
    inserts = [(at + len(keyword), len(f" {_fastpath.MARK}{i}")) for i, (at, keyword) in enumerate(marks)]
    inserts += [(end, len(_fastpath.PROBE)) for end in tags]
    for end, slot in sorted(left_out.items(), reverse=True):
        start = end + sum(size for at, size in inserts if at <= end)
        whole = whole[:start] + whole[start + slot.close_start - end :]
    return whole


def test_fastpath_leaves_out_no_content_another_slot_tag_ends_in() -> None:
    """A quote in a slot's start tag that pairs otherwise when read from another slot keyword's '<' can end
    that other tag inside this slot's content: its probe would fall in what is left out, so the content is
    read; what lexbor reads is always the page with only the left-out contents missing."""
    page = _BENCH_PAGES[0]
    first = page.index("<p data-claim-id")
    for extra in (
        """<div data-evidence-for="P-9" title='<y data-evidence-for="a'><p>x"></p></div>""",
        """<div data-evidence-for="P-9" title='<y data-evidence-for="a'><div><p>x"></p></div></div>""",
        """<div data-evidence-for="P-9" title='<y data-evidence-for="a'><p>x"</p></div>""",
    ):
        text = page[:first] + extra + page[first:]
        left_out: dict[int, Any] = {}
        located, _ = _fastpath._attempt(text, left_out)
        assert located is not None and first + extra.index("'>") + 2 not in left_out, extra
        assert len(left_out) == len(located.slots) - 1
        marks = _fastpath._marks(text) or []
        marked = _fastpath._marked(text, marks, _fastpath._slot_tags(text, marks), left_out)
        assert marked == _marked_without(text, left_out)
        differential(text)
    for page in _BENCH_PAGES:
        left_out = {}
        _fastpath._attempt(page, left_out)
        marks = _fastpath._marks(page) or []
        assert _fastpath._marked(page, marks, _fastpath._slot_tags(page, marks), left_out) == _marked_without(
            page, left_out
        )


def test_fastpath_leaves_no_keyword_script_or_link_out() -> None:
    """A slot's content holding an evidence keyword or a script is read (a bundle script's id may be written
    with a character reference: no keyword then, and only lexbor finds it); so is one holding a link (no
    neutral content: were it left out, the text's links and lexbor's would differ and the page be read
    whole)."""
    page = _BENCH_PAGES[0]
    slot = page.index('<div data-evidence-for="')
    open_end = page.index(">", slot) + 1
    for extra in (
        '<p data-claim-id="P00000-C01">x</p>',
        "<p>data-evidence-for</p>",
        '<script type="application/json" id="claim-evidence&#45;data">{}</script>',
        '<script>var a = "<div>";</script>',
        '<link rel="stylesheet" href="/assets/claim-evidence.css">',
    ):
        text = page[:open_end] + extra + page[open_end:]
        left_out: dict[int, Any] = {}
        _fastpath._attempt(text, left_out)
        assert open_end not in left_out, extra
        differential(text)
