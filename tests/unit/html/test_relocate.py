"""A location's prefix holds only for a later text that the reference locates exactly as it did.

Differential: for pages of every kind the tests know (the html5lib tree-construction corpus before, inside
and after a claim/slot/bundle trio, the pages under tests/data, examples and the shared corpora, the
benchmarks' pages) the reference location's prefix is taken (:func:`relocate.prefix`), the text after its
last element is replaced by another rest (the corpus inputs themselves, what builds write there, and each
construct :func:`relocate.holds` must refuse), and wherever ``holds`` accepts the new text, the reference's
location of it must equal the old one (every element, span, attribute and its order, the links, the
frameset, the slots inside links).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._html import relocate
from claim_evidence._html.locate import Element, Located, _keyword_starts, _locate
from claim_evidence._html.tokenizer import START_TAG, lower, scan
from claim_evidence._html.treebuilder import Handler, TreeBuilder

from ...acceptance.test_static_corpus import BLOCK, CORPUS, pages, read_inputs
from .test_static_fastscan import _pages

ROOT = Path(__file__).resolve().parents[3]

# What builds write after the evidence, and what may follow it in any page.
BUILD_RESTS = (
    "",
    "</footer><!-- build 2 --></body></html>",
    '<footer><p>© 2026 <a href="/about">About</a> &copy; &amp;</p></footer>\n</body>\n</html>\n',
    '<script src="/assets/app.4f3a9c.js" defer></script><script>window.dataLayer=[];</script></body></html>',
    "<nav><ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li></ul></nav>",
    "<!-- unclosed comment",
    "<plaintext>everything after is text <p>",
    "</a></b></p></div></body></html><p>after html",
    "<table><tr><td>x</td></tr></table><a href=x><div>y</div></a>",
    "<template><p>inert</p></template><select><option>a</option></select>",
    '<svg viewBox="0 0 1 1"><foreignObject><div>x</div></foreignObject></svg>',
    "<math><annotation-xml encoding='text/html'><div>x</div></annotation-xml></math>",
    "<script>var a = '<p>';</script><style>p{}</style><textarea></div></textarea>",
)
# Each of these adds an element, or drops the body, for the reference: holds must refuse them all.
REFUSED_RESTS = (
    '<link rel="stylesheet" href="/assets/claim-evidence.css">',
    "<LINK REL=stylesheet HREF=/x.css>",
    '<p data-claim-id="C-9">x</p>',
    '<div data-evidence-for="C-1"></div>',
    "<div DATA-EVIDENCE-SUMMARY></div>",
    '<script type="application/json" id="claim-evidence-data">{}</script>',
    '<script type="application/json" id="claim&#45;evidence-data">{}</script>',
    '<script type="application/json" id="claim-evidence&#x2d;data">{}</script>',
    "<frameset><frame></frameset>",
    "<FRAMESET>",
)


def _shape(located: Located) -> tuple[object, ...]:
    """Everything a location holds, attributes in their order and elements in each list."""
    lists = (located.claims, located.slots, located.summaries, located.scripts, located.links)
    elements = tuple(
        tuple(
            (e.name, tuple(e.attrs.items()), e.start, e.open_end, e.close_start, e.end, e.self_closing) for e in found
        )
        for found in lists
    )
    linked = tuple((slot.start, link) for slot, link in located.linked)
    return elements, located.hidden, located.frameset, linked


class Tally:
    def __init__(self) -> None:
        self.kept = self.unkept = self.answered = self.refused = 0


def _compare(text: str, rests: list[str], tally: Tally) -> None:
    """Take ``text``'s reference location's prefix; every rest it holds for must locate as ``text`` did."""
    located = _locate(text, fast=False)
    kept = relocate.prefix(located)
    if kept is None:
        tally.unkept += 1
        return
    tally.kept += 1
    end = kept[0]
    # (The same text holds for itself when its rest adds nothing: a build that changed nothing.)
    for rest in (text[end:], *rests):
        new = text[:end] + rest
        # (The bytes test the runner makes first agrees with the text's, and holds then needs no digest.)
        assert relocate.starts_with(new.encode("utf-8", "surrogatepass"), kept)
        assert relocate.holds(new, kept) == relocate.holds(new, kept, same_start=True)
        if not relocate.holds(new, kept):
            tally.refused += 1
            continue
        tally.answered += 1
        assert _shape(_locate(new, fast=False)) == _shape(located), (text[:300], rest[:300])


def _corpus() -> list[str]:
    inputs = read_inputs(CORPUS)
    assert inputs, f"the vendored html5lib tree-construction corpus is missing under {CORPUS}"
    return [data for _, data in inputs]


def test_reuse_matches_reference_on_the_html5lib_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus()
    rng = random.Random(32)
    tally = Tally()
    for index, data in enumerate(corpus):
        for placement in ("before", "between-body-slot", "between-slot-bundle", "after"):
            text = pages(data, BLOCK)[placement]
            rests = rng.sample(corpus, 2)
            if index % 8 == 0:
                rests += [*BUILD_RESTS, *REFUSED_RESTS]
            _compare(text, rests, tally)
    with capsys.disabled():
        print(
            f"\nrelocate, html5lib corpus: {tally.kept} prefixes ({tally.unkept} locations without), "
            f"{tally.answered} rests held, {tally.refused} refused"
        )
    # Most intact pages have a prefix and most rests hold: the rule is not one that accepts nothing.
    assert tally.kept > 3 * len(corpus) and tally.answered > 3 * len(corpus)


def test_reuse_matches_reference_on_known_pages() -> None:
    corpus = _corpus()
    rng = random.Random(7)
    tally = Tally()
    for path in _pages():
        text = path.read_text(encoding="utf-8", errors="replace")
        _compare(text, [*BUILD_RESTS, *REFUSED_RESTS, *rng.sample(corpus, 20)], tally)
    assert tally.kept > 0 and tally.answered > 0


def _module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_{name}", ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rebuilt_benchmark_page_is_answered() -> None:
    # What the benchmark's rebuild does to a page (a build stamp after the footer) holds, on every shape
    # of the varied site and on the classic site's pages: the rebuild's figure rests on it.
    varied, bench = _module("varied"), _module("bench")
    texts = [varied.page(index, 10, 7, True)[0] for index in range(2 * len(varied.SHAPES))]
    texts += [bench._page(index, 10, 7, True, 1)[0] for index in range(4)]
    for text in texts:
        located = _locate(text, fast=False)
        kept = relocate.prefix(located)
        assert kept is not None
        rebuilt = bench._BUILD.sub(b"</footer><!-- build 2 -->", text.encode(), count=1).decode()
        assert rebuilt != text and relocate.holds(rebuilt, kept)
        assert _shape(_locate(rebuilt, fast=False)) == _shape(located)
        # The benchmark's other rebuilds, in <head> and after <body>: answered by the head (the second by
        # its body part, which the new element leaves as it was).
        head, body = (
            bench._STAMPS[where][0].sub(bench._STAMPS[where][1].format(2).encode(), text.encode(), count=1).decode()
            for where in ("head", "body")
        )
        kept_head = relocate.head(text, kept.end)
        assert kept_head is not None and kept_head.body > 0 and head != text != body
        for new in (head, body):
            moved = relocate.moved_head(new.encode(), new, kept_head)
            assert not relocate.holds(new, kept) and moved is not None
            assert _relative(_locate(new, fast=False), moved.end) == _relative(located, kept_head.end)
            both = bench._BUILD.sub(b"</footer><!-- build 3 -->", new.encode(), count=1).decode()  # (and the footer)
            assert relocate.moved_head(both.encode(), both, kept_head) == moved
        # The head's stamp leaves the body part's bytes as they were: they are compared, not read.
        assert relocate.moved_head(head.encode(), head, kept_head).body_digest == kept_head.body_digest  # type: ignore[union-attr]
        # The fourth, a new asset hash in a <link>: answered by the head where the page check accepts its
        # links (the site's stylesheet is not the evidence's: the page links that one still); the fifth, a
        # stamp before the first claim, by neither (every page checked).
        link, middle = (
            bench._STAMPS[where][0].sub(bench._STAMPS[where][1].format(2).encode(), text.encode(), count=1).decode()
            for where in ("link", "middle")
        )
        assert link != text != middle and not relocate.holds(link, kept) and not relocate.holds(middle, kept)
        assert relocate.moved_head(link.encode(), link, kept_head) is None
        moved = relocate.moved_head(link.encode(), link, kept_head, lambda links: True)
        assert moved is not None and moved.links != kept_head.links
        assert _relative(_locate(link, fast=False), moved.end) == _relative(located, kept_head.end)
        assert relocate.moved_head(middle.encode(), middle, kept_head, lambda links: True) is None


@pytest.mark.parametrize("rest", REFUSED_RESTS)
def test_a_rest_that_adds_an_element_is_refused(rest: str) -> None:
    # (After the trio's claim sentence the standard ignores a <frameset>; after a bare slot it takes it.)
    text = '<div data-evidence-for="C-1"></div>' if "frameset" in rest.lower() else pages("", BLOCK)["before"]
    located = _locate(text, fast=False)
    kept = relocate.prefix(located)
    assert kept is not None
    new = text + rest
    assert not relocate.holds(new, kept)
    # ...and refusing is needed: the reference finds another location there.
    assert _shape(_locate(new, fast=False)) != _shape(located)


def test_a_change_before_the_last_element_is_refused() -> None:
    text = pages("<p>intro</p>", BLOCK)["before"]
    kept = relocate.prefix(_locate(text, fast=False))
    assert kept is not None and relocate.holds(text + "<!-- b -->", kept)
    for at in (0, text.index("intro"), kept[0] - 1):
        changed = text[:at] + ("X" if text[at] != "X" else "Y") + text[at + 1 :]
        assert not relocate.holds(changed, kept) and not relocate.starts_with(changed.encode(), kept)
    assert relocate.starts_with(text.encode(), kept) and not relocate.starts_with(text.encode()[: kept.size - 1], kept)
    assert not relocate.holds(text[: kept[0] - 1], kept)  # shorter than the kept prefix
    assert not relocate.holds(text, kept._replace(end=0))
    assert not relocate.holds(text, kept._replace(end=len(text) + 1))


def test_an_implied_end_has_no_prefix() -> None:
    # The last element ends where the next tag implies it (or at the end of the text): that tag lies
    # after the cut, so the text up to there does not decide it.
    for text in (
        '<ul><li data-claim-id="C-1">x<li>y</ul>',
        '<p data-claim-id="C-1">x',
        '<p data-claim-id="C-1">x<div>y</div>',
    ):
        located = _locate(text, fast=False)
        assert located.has_markup and relocate.prefix(located) is None
    text = '<ul><li data-claim-id="C-1">x</li><li>y</ul>'
    assert relocate.prefix(_locate(text, fast=False)) is not None
    assert relocate.prefix(_locate("<p>no markup</p>", fast=False)) is None


def test_digest_is_the_sha256_of_the_prefix() -> None:
    asked = [("abc", 2), ("abd", 2), ("xbc", 2), ("xbc", 3), ("xbc", 3), ("日本語\ud800", 4), ("abc", 2)]
    for text, end in asked:
        expected = hashlib.sha256(text[:end].encode("utf-8", "surrogatepass")).hexdigest()
        assert relocate.digest(text, end) == expected


# --- a page changed only in its head ---------------------------------------------------------------

# Pieces of text written anywhere in a head (:func:`head_edits`), on purpose beside every construct the
# head reader must read as the reference tokenizer does: comment and raw-text ends, tags split by a quote,
# text that is white space only when decoded (the frameset test asks), CRs, keywords, the tags a head may
# not hold. (What builds change there, a stamp, a meta's value, a line more, head_edits writes first.)
HEAD_FRAGMENTS = (
    "<!-- build 3 -->",
    "<!---->",
    "<!-->",
    "<!--->",
    "<!-- a -- b -->",
    "<!-- x --!>",
    "<!-- open",
    "-->",
    "<!",
    "<!x>",
    "<?php ?>",
    "</>",
    "</ x>",
    "</",
    "<",
    ">",
    "<3",
    "-",
    "!",
    "'",
    '"',
    "=",
    " ",
    "\n",
    "\n\n",
    "\t",
    "\f",
    "\r",
    "\r\n",
    "\0",
    "x",
    "&#32;",
    "&#x20;",
    "&nbsp;",
    "&amp",
    "&#45;",
    "text",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "</head>",
    "<head>",
    "<body>",
    "</body>",
    "<html lang=en>",
    "<meta name=a content=b>",
    '<meta content="2026-12-03">',
    "<link rel=stylesheet href=/x.css>",
    '<link rel="stylesheet" href="/assets/claim-evidence.css?v=3">',
    "<link rel=icon href=/favicon.3.ico />",
    "<LINK REL=STYLESHEET HREF=/assets/claim-evidence.css>",
    '<link href="/assets/claim-evidence.css" rel="preload stylesheet" href="/x.css">',
    "<link rel=stylesheet href=&#47;assets/claim-evidence.css>",
    '<script src="/assets/app.3.js"></script>',
    '<script src="/a.js" id="claim&#45;evidence-data"></script>',
    "<title>t</title>",
    "<title>",
    "</title>",
    "<style>p{}</style>",
    "<style>",
    "</style >",
    "<script>x</script>",
    "<script>",
    "</script>",
    "<script><!--<script>",
    "<textarea>",
    "<xmp>",
    "<plaintext>",
    "<noscript>",
    "<iframe>",
    "<svg>",
    "<math>",
    "<select>",
    "<template>",
    "</template>",
    "<frameset>",
    "<a href=x>",
    "</a>",
    "<table>",
    "<td>",
    "<input type=hidden>",
    "<input>",
    "<img>",
    "data-claim-id",
    "<!-- data-claim-id -->",
    '<p data-claim-id="C-1">',
    "claim-evidence-data",
    '<script id="claim&#45;evidence-data">',
)
# And what builds change in a body before its evidence (a navigation item more, a new element), with what
# the body part of a head must not take as neutral: elements left open or closed by another's end tag,
# end tags of nothing, what implies ends (a block in a paragraph, a heading in a heading, a link in a
# link), tables, forms and selects, foreign content, self-closing tags, scripts that hold markup.
BODY_FRAGMENTS = (
    '<li><a href="/articles/new.html">New</a></li>',
    "<li>x</li>",
    "<p>new <b>item</b></p>",
    '<p class="build-8">build</p>',
    "<div><p>x</p></div>",
    "<span>x</span>",
    "<h2>x</h2>",
    "<ul><li>x</li></ul>",
    "<ol><li><p>x</p></li></ol>",
    "<em>x</em>",
    "<a href=x>y</a>",
    "<a href=x><b>y</b></a>",
    "<p>x",
    "<b>x",
    "<a>x",
    "<a href=x>\n",
    "<div>\n",
    "</div>\n",
    "<p><div>x</div></p>",
    "<h1><h2>x</h2></h1>",
    "<a><a>x</a></a>",
    "<b><p>x</p></b>",
    "<b><i>x</b></i>",
    "<li><div>x</div></li>",
    "<ruby>x<rt>y</rt></ruby>",
    "<rt>y</rt>",
    "<script>if (a<b) x()</script>",
    '<script>document.write("<p>")</script>',
    "<script>x</script >",
    "<br>",
    "<br/>",
    "<img src=x>",
    "<div/>",
    "<span/>",
    "<pre>\nx</pre>",
    "<details><summary>x</summary>y</details>",
    "<nav><ul><li><a href=/a>A</a></li></ul></nav>",
    "<table><tr><td>x</td></tr></table>",
    "<select><option>x</option></select>",
    "<form><p>x</p></form>",
    "<button>x</button>",
    "<svg><path/></svg>",
    "<template><p>x</p></template>",
    "<textarea><p></textarea>",
    "<!-- c -->",
    "<!DOCTYPE html>",
    "<?x?>",
    "</b>",
    "</span>",
    "</li>",
    "</p>",
    "</ul>",
    "</body>",
    "<body>",
    "<html lang=fr>",
    "<main>",
    "</main>",
    "<article>\n",
    "<P>X</P>",
    "<DIV>\n</DIV>",
    "<p>&amp; &#60;b&#62;</p>",
    "<frameset>",
    "<link rel=stylesheet href=/y.css>",
    # A theme's header: icons, toggles, labels, buttons, a search form, a language select.
    '<input type="checkbox" id="__drawer">',
    '<label for="__drawer">Menu</label>',
    '<label for="__drawer"><svg viewBox="0 0 24 24"><path d="M3 6h18"/></svg></label>',
    '<a href="/" class="logo"><svg viewBox="0 0 24 24"><g><path d="M0 0"/><circle r="1"/></g></svg></a>',
    "<svg><title>t</title><use href=#i /></svg>",
    "<svg><path/>",
    "<svg><foreignObject><p>x</p></foreignObject></svg>",
    "<svg><p>x</p></svg>",
    "<svg/>",
    "<SVG><path/></SVG>",
    "<math><mi>x</mi><mo>=</mo><mn>1</mn></math>",
    "<select><option>ja</option><option>en</option></select>",
    "<select><option>ja</select>",
    "<button>x</button>",
    "<button><button>x</button></button>",
    "<button><svg><path/></svg></button>",
    "<form><input name=q><button>Search</button></form>",
    '<form class="search"><div><input name=q><label>Q</label></div></form>',
    "<form><form></form></form>",
    "<p><form></form></p>",
    '<a href="/"><div class="brand">B</div></a>',
    "<p><a href=x><div>y</div></a></p>",
    "<h1><a href=x><div>y</div></a></h1>",
    "<a href=x><div><p>y</p></div></a>",
    "<a href=x><ul><li>y</li></ul></a>",
    "<a href=x><div>",
    "<li><ul><li>x</li></ul></li>",
    '<li><nav class="toc"><ul><li>x</li></ul></nav></li>',
    "<b><div>x</div></b>",
    "<b><div>x</b></div>",
    "<span><h2>x</h2></span>",
    "<h2><div><h3>x</h3></div></h2>",
    "<p><b><div>x</div></b></p>",
    "<button><div>x</div></button>",
    "<label><p>x</p></label>",
    "<ul><div>x</div></ul>",
    "<ul><p>x</p><li>y</li></ul>",
    "<h1><h2>x</h2>",
    "<p><div>x</div>",
    "<button><button>x</button>",
    "<form><form></form>",
    "<hr>",
    "<p>x<hr>",
    "<HR>",
    "<label>",
    "</label>",
    "<input>",
)
_VALUE = re.compile(r"""(content=)("[^"]*"|'[^']*'|[^\s>]*)""")


def head_edits(head: str, rng: random.Random, count: int) -> list[str]:
    """Other heads for a page whose head is ``head`` (it ends a line): what builds change, then random
    pieces of HEAD_FRAGMENTS written at random places (inside tags and comments too) and random cuts."""
    edits = []
    if "</head>" in head:
        edits.append(head.replace("</head>", "<!-- build 7 --></head>", 1))
        edits.append(head.replace("</head>", "<!-- build 7 -->\n</head>", 1))
    edits.append(head[:-1] + "<!-- build 7 -->\n")
    edits.append(head[:-1] + "\n\n")
    edits.append(re.sub(r"<!--[^-]*-->", "", head, count=1))
    edits.append(re.sub(r"<!--([^-]*)-->", r"<!--\1 x-->", head, count=1))
    edits.append(_VALUE.sub(r'\1"2026-12-03T10:00"', head, count=1))
    edits.append(head.replace("\n", "\n  ", 1))
    edits.append(head.replace("\n", "", 1))
    # An asset's new hash in every link's and script's URL, in the query or the file name; a stylesheet
    # link to another file, one fewer, one more.
    edits.append(re.sub(r'((?:href|src)="[^"?]*)', r"\1?v=7", head))
    edits.append(re.sub(r'((?:href|src)="[^"?]*)\.(css|js|ico)"', r'\1.6f8fc17f.\2"', head))
    edits.append(re.sub(r'(<link [^>]*href=")[^"]*"', r'\1/assets/other.css"', head, count=1))
    edits.append(re.sub(r"<link [^>]*>", "", head, count=1))
    edits.append(head.replace("<link ", '<link rel="icon" href="/favicon.7.ico">\n  <link ', 1))
    # A new site name in the title, a build's number in an inline script or a style.
    edits.append(head.replace("</title>", " &mdash; build 7</title>", 1))
    edits.append(re.sub(r"(<script[^>]*>)", r"\1var built = 7;", head, count=1))
    edits.append(head.replace("</style>", "/* build 7 */</style>", 1))
    if "</li>" in head:  # (a navigation item more, and one fewer)
        edits.append(head.replace("</li>", '</li><li><a href="/articles/new.html">New</a></li>', 1))
        edits.append(re.sub(r"<li>(?:(?!</li>).)*</li>", "", head, count=1))
    lines = [at + 1 for at, char in enumerate(head) if char == "\n"][:-1]
    for _ in range(count):
        at = rng.randrange(len(head))
        chance = rng.random()
        if chance < 0.5:
            piece = "".join(rng.choice(HEAD_FRAGMENTS) for _ in range(rng.choice((1, 1, 2))))
            edits.append(head[:at] + piece + head[at:])
        elif chance < 0.8:  # (in the body part, most often at a line's start, as a generator writes)
            at = rng.choice(lines) if lines and rng.random() < 0.6 else at
            piece = "".join(rng.choice(BODY_FRAGMENTS) for _ in range(rng.choice((1, 1, 2))))
            edits.append(head[:at] + piece + ("\n" if rng.random() < 0.5 else "") + head[at:])
        else:
            edits.append(head[:at] + head[min(at + rng.randint(1, 12), len(head) - 1) :])
    return [edit for edit in edits if edit != head and edit.endswith("\n")]


def _relative(located: Located, end: int) -> tuple[object, ...]:
    """A location as its elements after the head (offsets from the head's end) and in it (by name and
    attributes: where in the head is for error findings to name, never answered; but for the links
    there, which are for the page check to judge, ``links_ok``: :func:`_head_links`): what must stay
    when only the head changed."""

    def at(offset: int | None) -> object:
        return None if offset is None else offset - end if offset >= end else "in the head"

    lists = (located.claims, located.slots, located.summaries, located.scripts, located.links)
    elements = tuple(
        tuple(
            (e.name, tuple(e.attrs.items()), at(e.start), at(e.open_end), at(e.close_start), at(e.end), e.self_closing)
            if e.start >= end
            else (e.name, tuple(e.attrs.items()), at(e.start))
            for e in found
            if e.start >= end or found is not located.links
        )
        for found in lists
    )
    linked = tuple((at(slot.start), at(link)) for slot, link in located.linked)
    return elements, at(located.hidden), at(located.frameset), linked


def _head_links(located: Located, end: int) -> list[tuple[dict[str, str], int]]:
    """The reference's links in a head that ends at ``end``: their attributes and offsets."""
    return [(e.attrs, e.start) for e in located.links if e.start < end]


class HeadTally:
    def __init__(self) -> None:
        self.heads = self.without = self.answered = self.refused = self.links = 0


def _compare_heads(text: str, rng: random.Random, count: int, tally: HeadTally) -> None:
    """Take ``text``'s head; every other head that :func:`relocate.moved_head` accepts (alone, and with
    another rest after the last element) must leave the reference's location of the text after it as it
    was, only moved."""
    located = _locate(text, fast=False)
    cut = relocate.prefix(located)
    kept = None if cut is None else relocate.head(text, cut.end)
    if cut is None or kept is None:
        tally.without += 1
        return
    tally.heads += 1
    assert text[kept.end - 1] == "\n" and kept.lines == text.count("\n", 0, kept.end)
    assert kept.end + kept.middle == cut.end and kept.size + kept.middle_size == cut.size
    assert relocate.moved_head(text.encode("utf-8", "surrogatepass"), text, kept) == kept  # (nothing changed)
    middle, rest = text[kept.end : cut.end], text[cut.end :]
    for index, head in enumerate(head_edits(text[: kept.end], rng, count)):
        new = head + middle + (rest if index % 3 else rng.choice((*BUILD_RESTS, *REFUSED_RESTS)))
        data = new.encode("utf-8", "surrogatepass")
        given: list[tuple[Element, ...]] = []
        moved = relocate.moved_head(data, new, kept, lambda links, seen=given: seen.append(links) or True)
        if moved is None:
            tally.refused += 1
            continue
        tally.answered += 1
        assert (moved.end, moved.lines) == (len(head), head.count("\n"))
        again = _locate(new, fast=False)
        assert relocate.head(new, moved.end + moved.middle) == moved
        assert _relative(again, moved.end) == _relative(located, kept.end), (text[: kept.end], head, new[-300:])
        # The links the page check is asked about are the reference's in the head; and it is asked exactly
        # when they differ (without links_ok, such a head is refused).
        in_head = _head_links(again, moved.end)
        if given:
            tally.links += 1
            assert [(e.attrs, e.start) for e in given[0]] == in_head, head
            assert [a for a, _ in in_head] != [a for a, _ in _head_links(located, kept.end)], head
            assert moved.links != kept.links and relocate.moved_head(data, new, kept) is None
        else:
            assert [a for a, _ in in_head] == [a for a, _ in _head_links(located, kept.end)], head
            assert moved.links == kept.links and relocate.moved_head(data, new, kept) == moved


def _head_pages() -> list[str]:
    """Pages whose head is more than a line: every corpus input is written in one, and after it."""
    inputs = _corpus()
    texts = []
    for index, data in enumerate(inputs):
        head = (
            "<!DOCTYPE html>\n<html lang=en>\n<head>\n  <meta charset=utf-8>\n  <title>T</title>\n"
            f"  {LINK_TAG}\n  <!-- build 1 -->\n"
        )
        body = '\n<p data-claim-id="C-1">The sky is blue.</p>\n<div data-evidence-for="C-1"></div>\n'
        if index % 2:
            texts.append(f"{head}  {data}\n</head>\n<body>{body}{SCRIPT_TAG}\n")
        else:
            texts.append(f"{head}</head>\n<body>\n{data}\n{body}{SCRIPT_TAG}\n")
    return texts


LINK_TAG = '<link rel="stylesheet" href="/assets/claim-evidence.css">'
SCRIPT_TAG = '<script type="application/json" id="claim-evidence-data">{}</script>'


def test_a_changed_head_matches_the_reference_on_the_html5lib_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(41)
    tally = HeadTally()
    for text in _head_pages():
        _compare_heads(text, rng, 6, tally)
    with capsys.disabled():
        print(
            f"\nrelocate, changed heads on the html5lib corpus: {tally.heads} heads ({tally.without} pages "
            f"without), {tally.answered} edits answered, {tally.refused} refused"
        )
    assert tally.heads > len(_corpus()) // 2 and tally.answered > 2 * tally.heads


def _known_pages() -> list[str]:
    """The tests' pages, a varied page of each shape twice, and four of the classic benchmark's."""
    varied, bench = _module("varied"), _module("bench")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in _pages()]
    texts += [varied.page(index, 10, 7, True)[0] for index in range(2 * len(varied.SHAPES))]
    texts += [bench._page(index, 10, 7, True, 1)[0] for index in range(4)]
    return texts


def test_a_changed_head_matches_the_reference_on_known_and_benchmark_pages() -> None:
    rng = random.Random(42)
    texts = _known_pages()
    tally = HeadTally()
    for text in texts:
        _compare_heads(text, rng, 40, tally)
    assert tally.heads > len(texts) // 2 and tally.answered > 5 * tally.heads and tally.links > tally.heads


@pytest.mark.parametrize("name", ["textarea", "xmp", "iframe", "noembed", "noframes", "title", "style", "script"])
def test_a_head_reads_no_raw_text_as_markup(name: str) -> None:
    # Raw text and RCDATA hold no comment: the reference ends them at their end tag wherever it is. A
    # head reads the ones it may hold to that end tag (their text is compared whole), and ends before the
    # others; an edit that ends one early and opens SVG there must never be answered.
    body = f'\n<body>\n<p data-claim-id="C-1">The sky is blue.</p>\n<div data-evidence-for="C-1"></div>\n{SCRIPT_TAG}\n'
    text = f"<!DOCTYPE html>\n<html lang=en>\n<head>\n<{name}><!-- a --></{name}>\n</head>{body}"
    located = _locate(text, fast=False)
    cut = relocate.prefix(located)
    assert cut is not None
    kept = relocate.head(text, cut.end)
    assert kept is not None
    if name not in ("title", "style", "script"):
        assert kept.end <= text.index(f"<{name}>")
    new = text.replace("<!-- a -->", f"<!-- </{name}><svg> -->")
    assert relocate.moved_head(new.encode(), new, kept) is None
    assert _relative(_locate(new, fast=False), kept.end) != _relative(located, kept.end)


# --- a head's body part -------------------------------------------------------------------------------

_BODY_PAGE = (
    "<!DOCTYPE html>\n<html lang=en>\n<head>\n<title>T</title>\n</head>\n<body>\n"
    '<header><nav><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></nav></header>\n'
    "<main>\n<article>\n<h1>Title</h1>\n{extra}"
    '<p data-claim-id="C-1">The sky is blue.</p>\n<div data-evidence-for="C-1"></div>\n'
    "</article>\n</main>\n" + SCRIPT_TAG + "\n"
)


def test_a_head_compares_scripts_and_links_by_what_is_read_of_them() -> None:
    # A build puts a new hash in its assets' URLs: a script's src decides nothing (only a bundle script's
    # id is read, and such a tag holds a keyword or a character reference: kept as written), nor a script,
    # a title, a style or a meta more; a link's attributes only what the stylesheet check says of them,
    # which the caller judges (links_ok).
    head = '<!DOCTYPE html>\n<html lang=en>\n<head>\n  <script src="/app.1.js"></script>\n'
    head += '  <link rel=stylesheet href="/site.1.css">\n</head>\n<body>\n'
    text = (
        head + '<p data-claim-id="C-1">The sky is blue.</p>\n<div data-evidence-for="C-1"></div>\n' + SCRIPT_TAG + "\n"
    )

    def answered(old: str, new: str, links_ok: Any = None) -> bool:
        located = _locate(old, fast=False)
        cut = relocate.prefix(located)
        kept = None if cut is None else relocate.head(old, cut.end)
        assert kept is not None and kept.links
        moved = relocate.moved_head(new.encode(), new, kept, links_ok)
        if moved is not None:
            again = _locate(new, fast=False)
            assert _relative(again, moved.end) == _relative(located, kept.end)
            attrs = [
                [a for a, _ in _head_links(found, end)] for found, end in ((again, moved.end), (located, kept.end))
            ]
            assert links_ok is not None or attrs[0] == attrs[1]  # (where in the head they are is not kept)
        return moved is not None

    assert answered(text, text.replace("app.1", "app.2"))
    assert answered(text, text.replace('"/app.1.js"', "/app.2.js"))  # (unquoted: the same names)
    assert answered(text, text.replace("></script>", " defer></script>"))  # (an attribute more)
    assert answered(text, text.replace("></script>", ">go()</script>"))  # (raw text: nothing built of it)
    assert answered(text, text.replace("<head>\n", '<head>\n  <meta name=generator content="x 2">\n'))  # (a meta more)
    assert answered(text, text.replace("</head>", '<script async src="/a.js"></script><base href="/x/">\n</head>'))
    assert not answered(text, text.replace("</head>", "<!-- data-claim-id -->\n</head>"))  # (a keyword in a comment)
    amp = text.replace("app.1.js", "app.js?a=1&amp;b=1")
    assert not answered(amp, amp.replace("b=1", "b=2"))  # (a character reference: as written)
    assert not answered(amp, amp.replace("></script>", ">go()</script>"))  # (its raw text too)
    titled = text.replace("<head>\n", "<head>\n  <title>A &amp; B</title><style>p{}</style>\n")
    assert answered(titled, titled.replace("A &amp; B", "A &amp; B &mdash; build 2 </p><frameset>"))
    assert answered(titled, titled.replace("p{}", "p{color:red} </style"))
    assert answered(titled, titled.replace("<title>", "<title lang=en>"))  # (a name more)
    assert answered(titled, titled.replace("</style>", "</style><title>2</title>"))  # (a title more)
    assert not answered(titled, titled.replace("</style>", "<!-- </style> -->"))  # (its end read as the tokenizer does)
    assert not answered(text, text.replace("site.1", "site.2"))
    assert not answered(text, text.replace("site.1", "site.2"), lambda links: False)
    seen: list[object] = []
    assert answered(text, text.replace("site.1", "site.2"), lambda links: seen.append(links) or True)
    assert [link.attrs for link in seen[0]] == [{"rel": "stylesheet", "href": "/site.2.css"}]  # type: ignore[attr-defined]
    for changed in (
        text.replace("rel=stylesheet", "rel=preload"),
        text.replace("rel=stylesheet", "rel=stylesheet media=print"),
        text.replace("site.1.css", "site.1.css?v=2"),
        text.replace("</head>", "<link rel=preload href=/f.woff2>\n</head>"),  # (a link more)
        text.replace('  <link rel=stylesheet href="/site.1.css">\n', ""),  # (one fewer)
    ):
        assert not answered(text, changed) and answered(text, changed, lambda links: True)
    # Only the head's links are judged: not one on the line where the head ends, before its end.
    ends = text.replace("</head>\n", '<link rel=icon href="/i.ico"><div>\n</head>\n')
    seen.clear()
    assert answered(ends, ends.replace("site.1", "site.2"), lambda links: seen.append(links) or True)
    assert [link.attrs["href"] for link in seen[0]] == ["/site.2.css"]  # type: ignore[attr-defined]


def _body_page(extra: str = "") -> str:
    """A page whose head has a body part: its header, navigation and headline, then ``extra``."""
    return _BODY_PAGE.replace("{extra}", extra)


def _answered(old: str, new: str) -> bool:
    """Whether ``new`` is answered by ``old``'s head, asserting that the reference then locates it as ``old``
    moved (a refusal is checked only as a refusal)."""
    located = _locate(old, fast=False)
    cut = relocate.prefix(located)
    assert cut is not None
    kept = relocate.head(old, cut.end)
    assert kept is not None and kept.body > 0
    moved = relocate.moved_head(new.encode(), new, kept)
    if moved is not None:
        assert _relative(_locate(new, fast=False), moved.end) == _relative(located, kept.end)
    return moved is not None


def test_a_body_part_answers_what_leaves_its_elements_open_as_they_were() -> None:
    old = _body_page()
    item = '<li><a href="/b">B</a></li>'
    assert _answered(old, old.replace(item, item + '<li><a href="/c">C</a></li>'))  # (a navigation item more)
    assert _answered(old, old.replace(item, ""))  # (one fewer)
    assert _answered(old, old.replace("<body>\n", '<body>\n<p class="build-2">build</p>\n'))
    assert _answered(old, old.replace("<h1>", "<!-- a comment -->\n<h1>"))
    assert _answered(old, old.replace("<h1>Title</h1>", "<h1>Another <em>title</em></h1><div/></div>"))
    assert _answered(old, old.replace("<h1>", "<script>if (a < b) go('</p>')</script>\n<h1>"))
    # A theme's header: icons, a toggle and its label, a button, a language select, read over.
    themed = old.replace(
        "<header>",
        '<input type="checkbox" id="t"><header><a href="/"><svg viewBox="0 0 1 1"><path d="M0 0"/></svg></a>'
        '<label for="t">Menu</label><button>Search</button><select><option>ja</option></select>',
    )
    assert _answered(themed, themed.replace(item, item + '<li><a href="/c">C</a></li>'))
    assert _answered(themed, themed.replace("<path ", "<path class=x "))
    assert not _answered(themed, themed.replace("<button>Search</button>", "<button>Search"))
    # Left open, or closing what it did not open: the elements open at the evidence are others.
    assert not _answered(old, old.replace("<main>", "<div>\n<main>"))
    assert not _answered(old, old.replace("</nav>", ""))
    assert not _answered(old, old.replace("<h1>Title</h1>", "<h1>Title"))


def test_a_body_part_ends_before_what_it_may_not_hold() -> None:
    # A table, an iframe, SVG that is no simple island, a CR in text: the body part ends at the line before;
    # what follows is the middle, compared byte for byte.
    for held, changed in (
        ("<table><tr><td>x</td></tr></table>", "<table><tr><td>y</td></tr></table>"),
        ("<iframe></iframe>", "<iframe>x</iframe>"),
        ("<svg><foreignObject>x</foreignObject></svg>", "<svg><foreignObject>y</foreignObject></svg>"),
        ("x\r", "y\r"),
    ):
        text = _body_page(f"{held}\n")
        kept = relocate.head(text, relocate.prefix(_locate(text, fast=False)).end)  # type: ignore[union-attr]
        assert kept is not None and text[kept.end :].startswith(held), held
        assert not _answered(text, text.replace(held, changed))
        assert _answered(text, text.replace("<h1>", "<h1 class=x>").replace("</h1>", "</h1>\n"))  # (before it)


def test_a_script_in_a_body_part_that_may_be_the_bundle_is_not_read_over() -> None:
    # The reference decodes an id before it compares it: this script is the bundle script (a second one).
    old = _body_page("<script>x</script>\n")
    new = old.replace("<script>x", '<script type="application/json" id="claim&#45;evidence-data">{}', 1)
    assert len(_locate(new, fast=False).scripts) == 2 and not _answered(old, new)


def test_a_frameset_after_a_body_part_keeps_no_head() -> None:
    # Whether the standard takes a <frameset> depends on the text and tags before it (its frameset-ok flag),
    # which a body part does not keep: a page with one in its middle has no head with a body part.
    old = _body_page("<frameset></frameset>\n")
    located = _locate(old, fast=False)
    cut = relocate.prefix(located)
    assert cut is not None and relocate.head(old, cut.end) is None
    blank = old.replace("<h1>Title</h1>", "<div></div>")  # (no text before it: the standard takes it)
    assert _relative(_locate(blank, fast=False), 0) != _relative(located, 0)
    # Found in any case the pattern finds it, the long s too (``(?i)`` takes it for an s), among Japanese.
    for spelled in ("FRAMESET", "FrAmEsEt", "frame\u017fet", "FRAME\u017fET"):
        text = _body_page(f"<p>日本語の段落</p>\n<{spelled}></{spelled}>\n")
        end = relocate.prefix(_locate(text, fast=False)).end  # type: ignore[union-attr]
        assert relocate.head(text, end) is None, spelled
    # Not where no spelling of it is: a word near it, or letters that only lower to it in other scripts.
    for near in ("framesed", "frames et", "ｆｒａｍｅｓｅｔ", "frameset"[:-1] + "\u0442"):
        text = _body_page(f"<p>{near}</p>\n")
        kept = relocate.head(text, relocate.prefix(_locate(text, fast=False)).end)  # type: ignore[union-attr]
        assert kept is not None and kept.body > 0, near


def test_a_middle_mentions_frameset_as_the_pattern_finds_it() -> None:
    # The bytes search stands in for the pattern: the same answer on every range of texts that hold it in
    # every spelling, beside characters of every UTF-8 length (and a lone surrogate, as pages decode).
    rng = random.Random(32)
    pieces = [
        "frameset",
        "FRAMESET",
        "fRaMeSeT",
        "frame\u017fet",
        "\u017f",
        "frame",
        "set",
        "日本",
        "é",
        "\U0001f600",
        "\ud800",
        "<",
        "K",
        "\u212a",
        " ",
        "ｆ",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        start = rng.randrange(0, len(text) + 1)
        stop = rng.randrange(start, len(text) + 1)
        encoded = text[start:stop].encode("utf-8", "surrogatepass")
        expected = relocate._FRAMESET.search(text, start, stop) is not None
        assert relocate._mentions_frameset(text, start, stop, encoded) == expected, (text, start, stop)


class _Stacked(TreeBuilder):
    """The reference builder, with its open elements kept where its text ends (before it closes them)."""

    def finish(self, end: int) -> None:
        self.kept = (list(self.names), [entry is None or entry[1] for entry in self.active], self.templates)
        super().finish(end)


def _reference_open(text: str, end: int) -> tuple[object, ...]:
    builder = _Stacked(Handler())
    scan(text, builder, 0, end)
    names, active, templates = builder.kept
    return names[1:], active, templates, builder.foreign


def test_a_body_part_leaves_the_elements_open_that_the_reference_does() -> None:
    # What a head keeps of its body part (the start tags of the elements open where it ends) is what the
    # reference builder has open there, on every page the tests know and on edits of them: so two body
    # parts that keep the same leave it in the same state.
    rng = random.Random(43)
    texts = _known_pages()
    texts += [_body_page(fragment + "\n") for fragment in BODY_FRAGMENTS]
    texts += _head_pages()[1::2]
    parts = 0
    for text in texts:
        first = relocate._head(text, len(text))
        if first.end == 0 or first.body >= first.end:
            continue
        for head in (text[: first.end], *head_edits(text[: first.end], rng, 6)):
            new = head + text[first.end :]
            read = relocate._head(new, len(new))
            if read.end == 0 or read.body >= read.end:
                continue
            parts += 1
            keyword = next((at for at in _keyword_starts(new) if at >= read.body), len(new))
            end, skeleton = relocate._body_part(new, read.body, keyword)
            assert end == read.end
            names = [lower(START_TAG.match(tag).group(1)) for tag in json.loads(skeleton)]  # type: ignore[union-attr]
            assert _reference_open(new, end) == (names, _listed(names), 0, False), new[read.body : end]
    assert parts > len(texts)


def _listed(names: list[str]) -> list[bool]:
    """The reference's list of active formatting elements for these open elements: an open ``<a>``'s entry."""
    return [True for name in names if name == "a"]
