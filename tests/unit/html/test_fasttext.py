"""The fast reader of a claim's visible text (``fasttext``) gives what the reference reading gives, or None."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._html import fasttext as _fasttext
from claim_evidence._html.fasttext import ACCEPTED, BREAKS, HIDING, content_text
from claim_evidence._html.locate import locate
from claim_evidence._html.text import BLOCKS, HIDDEN, _content_text, visible_text

from .test_regex_portability import _possessive_groups

ROOT = Path(__file__).resolve().parents[3]
SHARED_HTML5LIB = ROOT.parent / "shared" / "corpora" / "html5lib-tests" / "tree-construction"


def _reference(text: str, start: int = 0, end: int | None = None) -> str:
    return _content_text(text, "div", start, len(text) if end is None else end)


def _agrees(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether the fast reader answered (it must then answer as the reference); False when it gave up."""
    end = len(text) if end is None else end
    fast = content_text(text, start, end)
    if fast is not None:
        assert fast == _reference(text, start, end), (text[start:end][:300], fast)
    return fast is not None


def test_fasttext_elements_mean_what_the_collector_makes_of_them() -> None:
    # The reader's own sets must say what text.BLOCKS and text.HIDDEN say of the elements it accepts.
    assert ACCEPTED & BLOCKS == BREAKS
    assert ACCEPTED & HIDDEN == HIDING


def test_fasttext_patterns_repeat_no_group_possessively() -> None:
    patterns = {name: value for name, value in vars(_fasttext).items() if isinstance(value, re.Pattern)}
    assert patterns
    assert {name: found for name, pattern in patterns.items() if (found := _possessive_groups(pattern))} == {}


@pytest.mark.parametrize(
    "content",
    [
        'R<b>&amp;</b>D <a href="#">link</a><code>x</code>',
        "&am<b></b>p;",
        "&am<!-- x -->p;",
        "&am<script>x</script>p;",
        "x&#x30<i>42</i>;",
        "one<br>two<br/>three",
        '漢<script>var x = "</p>";</script><ruby>字<rp>(</rp><rt>じ<br>x</rt><rp>)</rp></ruby>だ',
        "<ruby>a<rt>b</rt></ruby>c<!---->d",
        '<p data-claim-id="a"><em>Bash</em> と子プロセスを隔離。</p>\n',
        "a<script>s<!--<script>x</script>y-->z</script>b",
        "<b/>x</b>",
    ],
)
def test_fasttext_answers_strict_shapes_as_the_reference(content: str) -> None:
    assert _agrees(content)


@pytest.mark.parametrize(
    "content",
    [
        "a<b>c",  # left open
        "a</b>c",  # closes what it did not open
        "<b><i>x</b></i>",  # misnested: the adoption agency
        "<a href=x><a href=y>z</a></a>",
        "<B>x</B>",
        "x < y",
        "<div>x</div>",
        "<p><p>x</p></p>",
        "<b><p>x</p></b>",
        "<rt>x</rt>",
        "<ruby><b><rt>x</rt></b></ruby>",
        "a<!-- x -- y -->b",
        "a<!--->b",
        "a<script>never ended",
        "a<script><!--<script>x</script>",
        "<template>x</template>",
        "<style>x</style>",
        '<span title="a>b">x</span>',
        "<!DOCTYPE html>x",
        "<br></br>",
    ],
)
def test_fasttext_leaves_other_shapes_to_the_reference(content: str) -> None:
    assert content_text(content, 0, len(content)) is None


def test_fasttext_reads_only_between_start_and_end() -> None:
    # The tag after the content is not the content's: both readers stop at its end.
    text = '<p data-claim-id="a">x <b>y</b><</p>'
    start, end = text.index(">") + 1, text.index("</p>")
    assert content_text(text, start, end) is None
    text = '<p data-claim-id="a">x <b>y</b> &amp</p>;'
    start, end = text.index(">") + 1, text.index("</p>")
    assert _agrees(text, start, end)


def _varied() -> Any:
    spec = importlib.util.spec_from_file_location("_varied", ROOT / "benchmarks" / "varied.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fasttext_reads_every_claim_of_the_varied_site() -> None:
    # Every shape of the varied benchmark site, in ja and en, as the page check reads it (the claim
    # elements the reference locator finds), with CRLF line ends too: every claim sentence there is in
    # a shape the fast reader answers, as the reference does.
    varied = _varied()
    claims = 0
    for index in range(2 * len(varied.SHAPES)):
        fresh, stale = varied.page(index, 10, 7, True)
        for text in (fresh, stale, fresh.replace("\n", "\r\n")):
            for element in locate(text).claims:
                assert ":" not in element.name
                assert _agrees(text, element.open_end, element.close_start), (varied.shape_of(index), element)
                assert visible_text(text, element) == _reference(text, element.open_end, element.close_start)
                claims += 1
    assert claims >= 2 * len(varied.SHAPES) * 3 * 10


# --- random fragments of the accepted shapes, and mutations of them ---------------------------------

_TEXT = st.sampled_from(
    [
        "text ",
        "日本語",
        " ",
        "\n",
        "\r\n",
        "\t",
        "\u3000",
        "\xa0",
        ">",
        "=",
        '"',
        "'",
        "-",
        "--",
        "/",
        "&amp;",
        "&amp",
        "&am",
        "p;",
        "&",
        "&&",
        "&#",
        "&#x",
        "&#x3042;",
        "&#12354",
        "&#0;",
        "&#x110000;",
        "&nbsp;",
        "&nbsp",
        "&notit;",
        "&notin;",
        "&lt;b&gt;",
        ";",
        "x",
        "AMP;",
    ]
)
_ATTRS = st.sampled_from(
    ["", ' class="c"', " href='/x?a=1&amp;b=2'", " id=x", " title=\"a 'b'\"", " hidden", " x = y "]
)
_INLINE = sorted(_fasttext.PHRASING - {"a", "ruby"})
_SCRIPT_BODY = st.lists(
    st.sampled_from(["x", "</p>", "</div>", "a<b", "<b>", '"</scrip"', "-->", "<!-", "&amp;", "\n", "</scripts>"]),
    max_size=4,
).map("".join)
_COMMENT_BODY = st.lists(st.sampled_from([" note ", "<b>", "</p>", "-", "<script>", "&amp;", "日本"]), max_size=4).map(
    lambda pieces: "".join(pieces).replace("--", "- ")
)


def _content(depth: int, anchors: bool, ruby: bool = False) -> st.SearchStrategy[str]:
    """A sequence of runs of text and elements in the shapes the fast reader accepts."""
    leaves: list[st.SearchStrategy[str]] = [
        _TEXT,
        st.sampled_from(["<br>", "<br/>", '<img src="a.png" alt="">', "<wbr>"]),
        _COMMENT_BODY.map(lambda body: f"<!-- {body} -->"),
        st.builds(lambda attrs, body: f"<script{attrs}>{body}</script>", _ATTRS, _SCRIPT_BODY),
    ]
    if depth > 0:
        inner = _content(depth - 1, anchors)
        leaves.append(st.builds(lambda n, a, c: f"<{n}{a}>{c}</{n}>", st.sampled_from(_INLINE), _ATTRS, inner))
        if anchors:
            plain = _content(depth - 1, False)
            leaves.append(st.builds(lambda a, c: f"<a{a}>{c}</a>", _ATTRS, plain))
        rt = st.builds(lambda n, c: f"<{n}>{c}</{n}>", st.sampled_from(["rt", "rp"]), _content(depth - 1, anchors))
        leaves.append(st.builds(lambda c, r: f"<ruby>{c}{r}</ruby>", inner, st.lists(rt, max_size=3).map("".join)))
    return st.lists(st.one_of(leaves), max_size=4).map("".join)


_FRAGMENTS = st.one_of(
    _content(3, True),
    st.builds(lambda a, c, tail: f"<p{a}>{c}</p>{tail}", _ATTRS, _content(3, True), st.sampled_from(["", "\n", " x"])),
)
_WRAPS = [("", ""), ('<p data-claim-id="a">', "</p>"), ("<li data-claim-id='b'>", "<</li>"), ("<td>", "-->x</td>")]


@settings(max_examples=400, deadline=None)
@given(_FRAGMENTS, st.sampled_from(_WRAPS))
def test_fasttext_answers_fragments_of_its_shapes(fragment: str, wrap: tuple[str, str]) -> None:
    # (a fragment of the grammar must be answered: the test fails if the fast reader gives up on them)
    text = wrap[0] + fragment + wrap[1]
    assert _agrees(text, len(wrap[0]), len(wrap[0]) + len(fragment)), fragment


_MUTATIONS = [
    "<",
    "</",
    "&",
    "&am",
    "--",
    "-->",
    "<!--",
    "<!-->",
    "<!",
    "<?x>",
    "<B>",
    "</B>",
    "<b>",
    "</b>",
    "</i>",
    "<a href=x>",
    "</a>",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<li>",
    "<td>",
    "<table>",
    "<rt>",
    "</rt>",
    "<rp>",
    "<ruby>",
    "</ruby>",
    "<rb>",
    "<script>",
    "</script>",
    "<script/>",
    "<!--<script>",
    "<SCRIPT>",
    "<style>",
    "<template>",
    "<svg>",
    "<br>",
    "</br>",
    '<span title="a>b">',
    "<span title='<'>",
    "<x-y>",
    "<b\n>",
    "</b x>",
    "<b/",
]


@settings(max_examples=600, deadline=None)
@given(_FRAGMENTS, st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_MUTATIONS)), min_size=1, max_size=3))
def test_fasttext_mutated_fragments_answered_alike_or_left(fragment: str, edits: list[tuple[int, str]]) -> None:
    for at, piece in edits:
        at %= len(fragment) + 1
        fragment = fragment[:at] + piece + fragment[at:]
    _agrees(fragment)
    upper = fragment.upper()  # (uppercase tags, and references the decoder reads otherwise)
    _agrees(upper)
    for wrap in _WRAPS:
        text = wrap[0] + fragment + wrap[1]
        _agrees(text, len(wrap[0]), len(wrap[0]) + len(fragment))


# Balanced, but not where a reading may hold them.
_BALANCED = [f"<{name}>y</{name}>" for name in "p div li td table h1 button ruby rt rb template b".split()]
_BALANCED.append("<a href=z>y</a>")
_OUTERS = [("", ""), ("<p>", "</p>"), ("<a href=x>", "</a>"), ("<b>", "</b>"), ("<p><em>", "</em></p>")]


def _in_reading(outer: tuple[str, str], inside: str, after: str, hider: str) -> str:
    return f"{outer[0]}x<ruby>r<{hider}>{inside}</{hider}></ruby>{after}{outer[1]}"


def test_fasttext_each_mutation_inside_a_ruby_reading_answered_alike_or_left() -> None:
    # Where the readers could part: a tag inside a hidden reading that the builder would let end it
    # early (a <p> closing the paragraph around, an <a> in an <a>, an end tag of something open outside).
    for outer in _OUTERS:
        for piece in _MUTATIONS + _BALANCED:
            for hider in ("rt", "rp"):
                for inside in (piece, f"c{piece}&amp;", f"{piece}<b>c</b>", f"<em>{piece}</em>"):
                    _agrees(_in_reading(outer, inside, "d&amp", hider))
    structural = ["</b>", "</i>", "</em>", "</rt>", "</rp>", "</ruby>", "<rt>", "<rp>", "<ruby>", "<p>", "</p>"]
    for outer in _OUTERS:
        for first in [*structural, "<a href=z>", "</a>"]:
            for second in structural:
                _agrees(_in_reading(outer, f"{first}y{second}z", "d", "rt"))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(_OUTERS),
    _content(1, False),
    st.lists(st.sampled_from(_MUTATIONS + _BALANCED), min_size=1, max_size=3),
    _content(1, False),
    st.sampled_from(["rt", "rp"]),
)
def test_fasttext_mutations_inside_a_ruby_reading_answered_alike_or_left(
    outer: tuple[str, str], content: str, pieces: list[str], after: str, hider: str
) -> None:
    _agrees(_in_reading(outer, "".join(f"{piece}{content}" for piece in pieces), after, hider))


def test_fasttext_answers_most_random_sentences() -> None:
    # Claim-like sentences built at random from the accepted shapes, no hypothesis shrinking: all answered.
    rng = random.Random(32)
    words = ["The", "model", "日本語", "&amp;", "&#x3042;", "&nbsp;", "42%", "は", "を"]
    tags = ["b", "em", "strong", "code", "i", "sup", "span", "small", "mark", "abbr", "q", "cite", "kbd"]
    for _ in range(500):
        pieces = []
        for _ in range(rng.randint(1, 8)):
            pick = rng.randrange(6)
            word = rng.choice(words)
            if pick == 0:
                tag = rng.choice(tags)
                pieces.append(f"<{tag}>{word}</{tag}>")
            elif pick == 1:
                pieces.append(f'<a href="/r/{rng.randrange(99)}"><em>{word}</em></a>')
            elif pick == 2:
                pieces.append(f"<ruby>{word}<rp>(</rp><rt>{word}</rt><rp>)</rp></ruby>")
            elif pick == 3:
                pieces.append(rng.choice(["<br>", "<!-- memo -->", '<script>t("x");</script>']))
            else:
                pieces.append(f"{word} ")
        assert _agrees("".join(pieces))


# --- the html5lib tree-construction corpus ------------------------------------------------------------


def _html5lib_inputs() -> list[str]:
    if not SHARED_HTML5LIB.is_dir():
        pytest.skip(
            f"optional: the html5lib tree-construction corpus is not at {SHARED_HTML5LIB} (../shared beside the project)"
        )
    inputs = []
    for dat in sorted(SHARED_HTML5LIB.glob("*.dat")):
        lines = dat.read_text(encoding="utf-8", errors="replace").split("\n")
        for i, line in enumerate(lines):
            if line == "#data":
                end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("#"))
                inputs.append("\n".join(lines[i + 1 : end]))
    return inputs


def test_fasttext_html5lib_corpus_answered_alike_or_left() -> None:
    inputs = _html5lib_inputs()
    assert inputs
    answered = 0
    for data in inputs:
        answered += _agrees(data)
        for before, after in _WRAPS:
            answered += _agrees(before + data + after, len(before), len(before) + len(data))
    assert answered > 100  # (the corpus has plain-text and simple inline inputs: some must be answered)
