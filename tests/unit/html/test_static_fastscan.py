"""The fast scan (``_fastscan``) locates exactly what the reference tokenizer locates."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from claim_evidence._html import fastscan as _fastscan
from claim_evidence._html.elements import (
    _SCOPED_END,
    _TABLE_CLOSES,
    CLOSES_P,
    HEADINGS,
    IMPLIED_END,
    RAWTEXT,
    RCDATA,
    SCOPE,
    SPECIAL,
    VOID,
)
from claim_evidence._html.locate import _INTERESTING, Located, _locate, keyword_offsets, might_have_markup

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "corpora"
HTML5LIB = Path(__file__).resolve().parents[2] / "data" / "html5lib-tests"
WRAPS = (
    "{}",
    '<p data-claim-id="a">{}</p><div data-evidence-for="a"></div>',
    '<div data-evidence-for="a">{}</div><script type="application/json" id="claim-evidence-data">{{}}</script>',
    '<ul><li>x<b>y</b></li></ul>{}<span data-claim-id="b">z</span>',
    '<div><a href="/x">{}</div><p>t <a href="/y">y</a></p><div data-evidence-for="c"><a href="/z">z</a></div>',
)


def _shape(located: Located) -> tuple[object, ...]:
    elements = [*located.claims, *located.slots, *located.scripts, *located.links]
    spans = [(e.name, e.attrs, e.start, e.open_end, e.close_start, e.end, e.self_closing) for e in elements]
    linked = [(slot.start, link) for slot, link in located.linked]
    counts = len(located.claims), len(located.slots), len(located.scripts)
    return tuple(spans), counts, located.hidden, located.frameset, linked


def _same(text: str) -> None:
    assert _shape(_locate(text, fast=True)) == _shape(_locate(text, fast=False)), text[:300]


def _pages() -> list[Path]:
    found = sorted((ROOT / "tests" / "data").rglob("*.html")) + sorted((ROOT / "examples").rglob("*.html"))
    return found + (sorted((SHARED / "ai-news-site").rglob("*.html")) if SHARED.is_dir() else [])


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_fastscan_pages_match_reference(path: Path) -> None:
    _same(path.read_text(encoding="utf-8", errors="replace"))


def _html5lib_inputs() -> list[str]:
    folder = HTML5LIB / "tree-construction"
    inputs = []
    for dat in sorted(folder.glob("*.dat")) if folder.is_dir() else []:
        lines = dat.read_text(encoding="utf-8", errors="replace").split("\n")
        for i, line in enumerate(lines):
            if line == "#data":
                end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("#"))
                inputs.append("\n".join(lines[i + 1 : end]))
    return inputs


def test_fastscan_html5lib_corpus_matches_reference() -> None:
    inputs = _html5lib_inputs()
    assert inputs, f"the vendored html5lib tree-construction corpus is missing under {HTML5LIB}"
    for data in inputs:
        for wrap in WRAPS:
            _same(wrap.format(data))
            _same(data + wrap.format(data))


_PIECES = st.sampled_from(
    [
        "text ",
        "日本語",
        "&amp;",
        "<",
        ">",
        "<p>",
        "</p>",
        "<b>",
        "</b>",
        "<B>",
        "</i>",
        "<i>",
        "<a href='x'>",
        "</a>",
        "<a href=x/y>",
        "<div>",
        "</div>",
        '<span class="c">',
        "</span>",
        "<li>",
        "</li>",
        "<ul>",
        "</ul>",
        "<br>",
        "<br/>",
        '<img src="a.png" alt=">">',
        "<table>",
        "<tr>",
        "<td>",
        "</td>",
        "</tr>",
        "</table>",
        "<tbody>",
        "<h2>",
        "</h2>",
        "<h3>",
        "</h3>",
        "<pre>",
        "</pre>",
        "<summary>",
        "<details>",
        "</details>",
        "<section>",
        "</section>",
        "<!-- c -->",
        "<!--",
        "-->",
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
        "<input>",
        "<svg>",
        "</svg>",
        "<math>",
        "<button>",
        "</button>",
        "<nobr>",
        "<ruby>",
        "<rt>",
        "<dd>",
        "<dt>",
        '<table data-claim-id="t">',
        '<p data-claim-id="a">',
        '<div data-evidence-for="a">',
        '<span data-claim-id="c">',
        '<b title="data-claim-id">',
        '<script type="application/json" id="claim-evidence-data">{}</script>',
        '<link rel="stylesheet" href="/x.css">',
        '<p title = "a>b">',
        "<p title='x\" y'>",
        "<code>",
        "</code>",
        "<em>",
        "</em>",
        "<time>",
        "</time>",
        "\n",
        "<plaintext>",
        "<!DOCTYPE html>",
        "<html>",
        "<body>",
        "</body>",
        "<P DATA-CLAIM-ID=u>",
        "<xmp>",
        "</xmp>",
        "<frameset>",
        "<object>",
        "</object>",
        "<caption>",
        "<math><annotation-xml>",
        '<div data-evidence-for="d">',
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=60))
def test_fastscan_random_pages_match_reference(pieces: list[str]) -> None:
    _same('<p data-claim-id="k">' + "".join(pieces))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="<>/=\"' abdpiltrspancmIDCLAIMdata-claimevfor\n", max_size=200))
def test_fastscan_random_text_matches_reference(text: str) -> None:
    _same('<div data-evidence-for="z">' + text)


# (İ, ı, ſ and the Kelvin sign K are the non-ASCII letters a case-insensitive pattern matches to ASCII ones.)
@given(st.text(alphabet="daDAtTcClLiImMeEvVnNfFoOrRsSuUyY-İıſ\u212axy <", max_size=60))
@example("data-claim-id")
@example("x DATA-Evidence-For=")
@example("data-evidence-ſummary data-evidence-summar")
@example("<claim-evidence-data-claim-id>")
@example("data-claım-ıd İd claim-evidence-dat")
@example("-claim-id -evidence-data data-claim-evidence-data")
def test_fastscan_keyword_offsets_match_the_pattern(text: str) -> None:
    # (every start, overlapping ones too: finditer skips the data-claim-id in claim-evidence-data-claim-id)
    assert keyword_offsets(text) == [at for at in range(len(text)) if _INTERESTING.match(text, at)]
    assert might_have_markup(text) is (_INTERESTING.search(text) is not None)


def test_fastscan_skipped_names_have_no_tree_builder_side_effects() -> None:
    # A phrasing start tag must end nothing and its end tag must only pop itself: none of the
    # builder's special cases may apply to these names (a is handled by the anchors flag).
    special = CLOSES_P | SCOPE | SPECIAL | IMPLIED_END | RAWTEXT | RCDATA | VOID | HEADINGS | set(_SCOPED_END)
    special |= set(_TABLE_CLOSES) | {"option", "optgroup", "rb", "rtc", "rp", "rt", "nobr", "button", "a", "select"}
    special |= {"input", "textarea", "template", "html", "head", "body", "svg", "math"}
    assert not (_fastscan.INLINE & special)
    assert _fastscan.CONTAINERS <= CLOSES_P and _fastscan.CONTAINERS <= set(_SCOPED_END)
    assert not (_fastscan.CONTAINERS & SCOPE)


def test_fastscan_does_not_skip_the_link_that_takes_a_re_opened_one_off_the_list() -> None:
    # </div> leaves the first <a> on the list of active formatting elements; the <a> in the next paragraph
    # takes it off (the adoption agency), so the slot is not inside a link. A fast scan that skipped that
    # paragraph as a neutral fragment would still see the first <a> listed at the slot.
    text = '<div><a href="/x">x</div><p>see <a href="/y">y</a></p><div data-evidence-for="a"><a href="/z">z</a></div>'
    assert _shape(_locate(text, fast=True)) == _shape(_locate(text, fast=False))
    assert _locate(text, fast=True).linked == []
