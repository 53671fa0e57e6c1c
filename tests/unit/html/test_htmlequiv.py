"""A block as an HTML minifier leaves it is not stale; any real change still is."""

from __future__ import annotations

import json

import pytest

from claim_evidence import dumps_for_script, render_evidence
from claim_evidence._check.page import PageOptions, check_text
from claim_evidence._html import equivalence
from claim_evidence._html.equivalence import equivalent
from claim_evidence._site.config import at_build_date, load_config

from ...conftest import ROOT

minify_html = pytest.importorskip("minify_html", reason="minify-html not installed (pip install -e '.[test]')")

BLOCK = '<aside class="claim-evidence" id="evidence-a" data-evidence-id="a"><p class="x">A &amp; B</p><ul><li>one</li><li>two</li></ul></aside>'


@pytest.mark.parametrize(
    "variant",
    [
        "<aside class=claim-evidence id=evidence-a data-evidence-id=a><p class=x>A &amp; B</p><ul><li>one</li><li>two</li></ul></aside>",
        '<aside data-evidence-id="a" id="evidence-a" class="claim-evidence"><p class="x">A &amp; B</p><ul><li>one</li><li>two</li></ul></aside>',
        "<aside class='claim-evidence' id='evidence-a' data-evidence-id='a'><p class='x'>A &#38; B</p><ul><li>one</li><li>two</li></ul></aside>",
        '<aside class="claim-evidence" id="evidence-a" data-evidence-id="a"><p class="x">A &amp; B<ul><li>one<li>two</ul></aside>',
        '<aside class="claim-evidence" id="evidence-a" data-evidence-id="a">\n  <p class="x">A  &amp;\nB</p>\n  <ul><li>one</li> <li>two</li></ul>\n</aside>',
    ],
    ids=["unquoted", "attribute-order", "entity-spelling", "omitted-end-tags", "whitespace"],
)
def test_htmlequiv_what_minifiers_change_is_equivalent(variant: str) -> None:
    assert equivalent(BLOCK, variant)


@pytest.mark.parametrize(
    "variant",
    [
        BLOCK.replace("A &amp; B", "A &amp; C"),
        BLOCK.replace('class="x"', 'class="y"'),
        BLOCK.replace('class="x"', 'class="x" hidden'),
        BLOCK.replace("<li>two</li>", ""),
        BLOCK.replace("<li>one</li><li>two</li>", "<li>two</li><li>one</li>"),
        BLOCK.replace("<p ", "<div ").replace("</p>", "</div>"),
        BLOCK.replace("A &amp; B", "AB"),
    ],
    ids=["text", "attribute-value", "attribute-added", "element-dropped", "order", "element-name", "space-dropped"],
)
def test_htmlequiv_any_real_change_differs(variant: str) -> None:
    assert not equivalent(BLOCK, variant)


def test_htmlequiv_a_minified_page_is_not_stale_and_write_leaves_it() -> None:
    """minify-html's own output (unquoted and reordered attributes, omitted </p> and </li>) of the example
    site's pages (freshness markers and the sources summary included, at the example's build date): no
    SH140; an edited block in the minified page still is."""
    options = at_build_date(load_config(ROOT / "examples" / "site" / "claim-evidence.toml"), None).options
    for name in ("about.html", "articles/kumo-engine-3.html", "slides/day-2026-09-04.html"):
        page = (ROOT / "examples" / "site" / name).read_text(encoding="utf-8")
        minified = minify_html.minify(page, minify_js=False, minify_css=False)
        assert minified != page
        found = check_text(minified, name, options)
        assert [d.code for d in found.diagnostics if d.code == "SH140"] == [], name
        assert found.rendered_text() == minified
    bundle = json.loads((ROOT / "examples" / "claim-evidence" / "fixtures.json").read_text(encoding="utf-8"))["bundle"]
    block = render_evidence(bundle)
    page = (
        '<!DOCTYPE html><html lang="ja"><head><link rel="stylesheet" href="/assets/claim-evidence.css"></head><body>'
        f'<p data-claim-id="fictional-rate">{bundle["claims"][0]["statement"]}</p>'
        f'<div data-evidence-for="fictional-rate">{block.replace("照合済み", "照合ずみ")}</div>'
        f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script></body></html>'
    )
    minified = minify_html.minify(page, minify_js=False, minify_css=False)
    found = check_text(minified, "p.html", PageOptions())
    assert "SH140" in [d.code for d in found.diagnostics]
    assert block in found.rendered_text()  # --write writes the exact rendering


@pytest.mark.parametrize("context", sorted(equivalence._FLOW_CONTEXTS))
def test_htmlequiv_blank_slot_shortcut_agrees_with_the_tree_builder(context: str) -> None:
    """The shortcut for an empty slot against a block answers exactly what comparing the events answers,
    in every context it is taken in, for every element it trusts to open and for blanks of each kind."""
    blanks = ["", " ", "\n\t  \r\n", "\f"]
    openers = ["aside", "div", "section", "details", "p", "span", "ASIDE", "Div"]
    for tag in openers:
        for after in (" ", ">", "/", "\n"):
            attrs = 'class="x">' if after in (" ", "\n") else ""
            other = f" \n<{tag}{after}{attrs}本文</{tag}>"
            assert equivalence._OPENS.match(other)
            assert equivalence.events(other, context), (tag, context)  # it does open something
            for blank in blanks:
                assert equivalence.events(blank, context) == []
                assert not equivalent(blank, other, context) and not equivalent(other, blank, context)
    assert equivalent(" ", "\n", context)  # two blanks: no events either way
    assert not equivalence._OPENS.match("<!-- <aside> -->") and not equivalence._OPENS.match("<asidex>")
