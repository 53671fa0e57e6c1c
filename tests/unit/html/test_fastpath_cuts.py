"""The fast path's shortcuts (``_fastpath``) answer what the formulation they replaced answers.

Each cut of the locate's Python cost keeps a copy of the code it replaced here, as the reference: the
one routing search (``_routing``) against the three searches it replaced (frameset, foreign start tags,
links), ``strict_names`` against the strict-shape fullmatch plus the tag-name findall, ``_unmark`` and
``_droppable`` against their versions without the precheck; on hypothesis text built from the pieces
where they could differ (Unicode case folds of the names, tags cut short, marks in names). The whole
fast path is compared with the reference reader in ``test_fastpath``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("selectolax")

from claim_evidence._html import fastpath as _fastpath  # noqa: E402
from claim_evidence._html.fastscan import _ATTRS  # noqa: E402
from claim_evidence._html.tokenizer import START_TAG, lower  # noqa: E402

from .test_fastpath import CLEAN, differential  # noqa: E402

# The searches _routing replaced.
OLD_FRAMESET = re.compile(r"<[fF][rR][aA][mM][eE][sS][eE][tT](?=[\t\n\f\r />])")
OLD_FOREIGN_START = re.compile(r"(?i)<(?:svg|math|select)(?=[\t\n\f\r />])")
OLD_LINK = re.compile(r"<(?ai:link)(?=[\t\n\f\r />])")
# The strict-shape test strict_names replaced.
_WS = "[\t\n\f\r ]"
OLD_STRICT = re.compile(rf"(?>(?:[^<]++|</[a-z][a-z0-9]*+{_WS}*+>|<[a-z][a-z0-9]*+{_ATTRS})*)")
OLD_TAG_NAMES = re.compile(r"<(/?[a-z][a-z0-9]*)")

_NAMES = st.sampled_from(
    [
        "svg", "SVG", "sVg", "\u017fvg", "\u017fVG", "math", "MATH", "mAth", "select", "SELECT", "\u017felect",
        "frameset", "FRAMESET", "fRaMeSeT", "fram\u0435set", "link", "LINK", "lInK", "l\u0131nk", "l\u0130nk",
        "lin\u212a", "svgx", "mathml", "selected", "links", "s", "m", "f", "l", "x",
    ]
)  # fmt: skip
_AFTER = st.sampled_from(["", " ", "\t", "\n", "\f", "\r", "/", ">", "x", "-", "\u00a0", "<"])


@st.composite
def _routed_text(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(["<", "</", "< ", "x", ""]), _NAMES, _AFTER), max_size=12))
    return "".join(a + b + c for a, b, c in parts)


def _old_routing(text: str) -> tuple[list[int], list[int]] | None:
    if OLD_FRAMESET.search(text):
        return None
    return [m.start() for m in OLD_FOREIGN_START.finditer(text)], [m.start() for m in OLD_LINK.finditer(text)]


@settings(max_examples=600, deadline=None)
@given(_routed_text())
def test_routing_finds_what_the_three_searches_found(text: str) -> None:
    assert _fastpath._routing(text) == _old_routing(text)


def test_routing_keeps_the_unicode_case_folds_of_the_foreign_names() -> None:
    # (?i) folds "\u017f" (long s) to "s" for svg and select, never for the ASCII-only frameset and link.
    assert _fastpath._routing("<\u017fvg><\u017fELECT/><MATH>") == ([0, 5, 14], [])
    assert _fastpath._routing("<lin\u212a><l\u0131nk><LiNk/>") == ([], [12])
    assert _fastpath._routing("<fram\u0435set><FrameSet>") is None
    assert _fastpath._routing("<frame\u017fet>") == ([], [])


@pytest.mark.parametrize(
    ("extra", "outcome"),
    [
        ("<\u017fvg></\u017fvg>", "svg, math or select not a simple island"),  # only a Unicode fold makes it svg
        ("<FrameSet>", "keyword spelling, mark or frameset"),
        ('<LINK rel="stylesheet" href="/x.css">', ""),
        ('<svg><path d="M3"/></svg><link href="/y.css">', ""),
    ],
)
def test_routing_on_a_page(extra: str, outcome: str) -> None:
    text = CLEAN.replace("<p data-claim-id", extra + "<p data-claim-id")
    assert text != CLEAN
    assert _fastpath.attempt(text)[1] == outcome
    differential(text)


_CONTENT = st.sampled_from(
    [
        "<", "</", ">", "/", "/>", " ", "\t", "\n", "=", '"', "'", "`", "p", "b", "a", "em", "h1", "B", "x", "1",
        "-", "<!--", "-->", "é", "<b>", "</b>", "<p ", 'class="c"', "id=x", "<br/>", "</p >", "<a href=/", "\u017f",
    ]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_CONTENT, max_size=16).map("".join), st.integers(0, 3), st.integers(0, 3))
def test_strict_names_is_the_fullmatch_and_the_findall(content: str, before: int, after: int) -> None:
    text = "<" * before + content + "<p>" * after
    start, end = before, before + len(content)
    old = tuple(OLD_TAG_NAMES.findall(text, start, end)) if OLD_STRICT.fullmatch(text, start, end) else None
    assert _fastpath.strict_names(text, start, end) == old


def _old_droppable(text: str, mark: tuple[int, str]) -> bool:
    at, keyword = mark
    lt = at
    for _ in range(_fastpath._BACK):
        lt = text.rfind("<", 0, lt)
        if lt < 0:
            return False
        match = START_TAG.match(text, lt)
        if match is not None and match.end() > at and lower(match.group(1)) in _fastpath._DROPPABLE:
            return True
    return False


_TAG_NAMES = st.sampled_from(
    ["td", "TD", "tD", "col", "Col", "COLGROUP", "form", "Form", "noscript", "NoScript", "tbody", "Thead", "tr",
     "Caption", "frame", "FRAME", "t", "C", "F", "n", "div", "p", "\u017f", "1", ""]
)  # fmt: skip
_ATTRIBUTE = st.sampled_from(["", " data-claim-id", " data-evidence-for=x", ' a="<b data-claim-id>"', " x", "/"])


@st.composite
def _tagged_text(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["<", "</", "x", "<<"]), _TAG_NAMES, _ATTRIBUTE, st.sampled_from([">", "", " >"])
            ),
            max_size=12,
        )
    )
    return "".join("".join(part) for part in parts)


@settings(max_examples=1000, deadline=None)
@given(_tagged_text())
def test_droppable_precheck_answers_as_before(text: str) -> None:
    for mark in _fastpath._marks(text) or []:
        assert _fastpath._droppable(text, mark) == _old_droppable(text, mark)


def _old_unmark(items: dict[str, str | None]) -> tuple[dict[str, str], list[int]] | None:
    MARK, names, in_value = _fastpath.MARK, _fastpath._MARK_NAME, _fastpath._MARK_IN_VALUE
    attrs: dict[str, str] = {}
    indexes: list[int] = []
    previous: tuple[str, str | None] | None = None
    for name, raw in items.items():
        mark = names.fullmatch(name)
        if MARK in name and mark is None:
            return None
        value = raw
        if value is not None and MARK in value:
            indexes += [int(found) for found in in_value.findall(value)]
            value = in_value.sub("", value)
            if MARK in value:
                return None
        if mark is not None:
            if previous is None:
                return None
            before, before_value = previous
            if before in _fastpath._KINDS.values() and before_value is None:
                attrs[before] = value if value is not None else ""
            elif before_value is None or value is not None or not before_value.lower().endswith(_fastpath._ENDINGS):
                return None
            indexes.append(int(mark.group(1)))
            previous = None
            continue
        attrs[name] = value if value is not None else ""
        previous = (name, raw)
    return attrs, indexes


_MARKED = _fastpath.MARK
_ATTR_NAMES = st.sampled_from(
    ["data-claim-id", "data-evidence-for", "id", "class", _MARKED + "0", _MARKED + "12", "x" + _MARKED + "1",
     _MARKED, _MARKED + "1x", "data-" + _MARKED]
)  # fmt: skip
_ATTR_VALUES = st.one_of(
    st.none(), st.sampled_from(["", "C-1", " " + _MARKED + "3", "a data-claim-id", _MARKED, "x " + _MARKED + "0 y"])
)


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(_ATTR_NAMES, _ATTR_VALUES, max_size=5))
def test_unmark_precheck_answers_as_before(items: dict[str, str | None]) -> None:
    assert _fastpath._unmark(items) == _old_unmark(items)


@pytest.mark.parametrize("reference", ["&#1;", "&#x7f;", "&#xb;", "&#xfdd0;", "&#x1fffe;", "&#x81;", "&#x80;", "&#0;"])
def test_bundle_id_with_a_character_reference(reference: str) -> None:
    # html.unescape (the reference) drops what &#1;, &#x7f; … stand for, lexbor keeps it: such a script
    # is the bundle for the reference only (found by test_fastpath_mutated_pages_match_reference).
    text = CLEAN.replace('id="claim-evidence-data"', f'id="claim-evidence-data{reference}"')
    assert text != CLEAN
    differential(text)
    text = CLEAN.replace('id="claim-evidence-data"', f'id="claim-{reference}evidence-data"')
    differential(text)
