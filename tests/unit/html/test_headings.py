"""The headings a reader sees, found by the page's own tokenizer and tree builder."""

from __future__ import annotations

from claim_evidence._html.headings import headings
from claim_evidence._html.text import visible_text


def shown(text: str) -> list[tuple[str, str]]:
    return [(h.name, visible_text(text, h)) for h in headings(text)]


def test_headings_in_order_with_their_visible_text() -> None:
    page = "<h1>Funding <small>2026</small></h1><p>x</p><H3 id=a>Staff&amp;pay<rt>r</rt></H3><h6>six</h6>"
    assert shown(page) == [("h1", "Funding 2026"), ("h3", "Staff&pay"), ("h6", "six")]
    spans = [(h.start, h.end) for h in headings(page)]
    assert page[spans[1][0] : spans[1][1]] == "<H3 id=a>Staff&amp;pay<rt>r</rt></H3>"


def test_headings_unseen_are_not_headings() -> None:
    page = (
        "<!-- <h2>comment</h2> --><template><h2>inert</h2></template><script>'<h2>code</h2>'</script>"
        "<textarea><h2>raw</h2></textarea><svg><h2>breaks out of svg</h2></svg><h4>seen</h4>"
    )
    assert shown(page) == [("h2", "breaks out of svg"), ("h4", "seen")]


def test_headings_an_implied_end_closes_where_the_browser_does() -> None:
    page = "<h2>Open<h3>Next</h3><p>after"  # a heading start tag closes an open heading
    assert shown(page) == [("h2", "Open"), ("h3", "Next")]
    assert headings("<h1>unclosed")[0].end == len("<h1>unclosed")
