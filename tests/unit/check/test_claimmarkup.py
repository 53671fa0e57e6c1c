"""A claim's markup on a page: its statement read as the check reads it, and its removal (the attribute
and the slot only, every other byte kept, the page checked again)."""

from __future__ import annotations

import pytest

from claim_evidence._check.claimmarkup import marked_statement, refuse_new_findings, remove_markup
from claim_evidence._check.page import PageOptions, check_text
from claim_evidence._record.authoring import AuthoringError

BODY = (
    "<main>\n"
    '  <p class="lead" data-claim-id="raise" title="t">架空ミナト量子は、<b>30&nbsp;億円</b>を\n    調達した。</p>\n'
    '  <div data-evidence-for="raise"></div>\n'
    "  <p>ほかの文。</p>\n"
    "</main>\n"
)


def test_claimmarkup_statement_is_the_visible_text_the_check_compares() -> None:
    assert marked_statement(BODY, "p.html", "raise") == "架空ミナト量子は、30 億円を 調達した。"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "<p>x</p>",
            'p.html has no element with data-claim-id="raise" to read the statement from; a claim binds exactly one '
            '(<p data-claim-id="raise">…</p>)',
        ),
        (
            '<p data-claim-id="raise">a</p><p data-claim-id="raise">b</p>',
            'p.html has 2 elements with data-claim-id="raise" to read the statement from; a claim binds exactly one '
            '(<p data-claim-id="raise">…</p>)',
        ),
        (
            '<p data-claim-id="raise"> <img alt=""> </p>',
            'the element with data-claim-id="raise" in p.html has no visible text to record as the statement',
        ),
    ],
)
def test_claimmarkup_statement_refuses_no_one_element_or_no_text(text: str, message: str) -> None:
    with pytest.raises(AuthoringError) as caught:
        marked_statement(text, "p.html", "raise")
    assert str(caught.value) == message


def test_claimmarkup_remove_takes_the_attribute_and_the_slot_line_only() -> None:
    unmarked = remove_markup(BODY, "p.html", "raise")
    assert unmarked.text == BODY.replace(' data-claim-id="raise"', "").replace(
        '\n  <div data-evidence-for="raise"></div>', ""
    )
    assert (unmarked.elements, unmarked.slots) == (1, 1)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ('<p data-claim-id="raise">', "<p>"),
        ("<p DATA-CLAIM-ID=raise class=a>", "<p class=a>"),
        ("<p class='a'\n   data-claim-id='raise'>", "<p class='a'>"),
        ('<p data-claim-id="raise" data-claim-id="raise">', "<p>"),  # a duplicate would bind next
        ('<p title="data-claim-id=x" data-claim-id="raise">', '<p title="data-claim-id=x">'),
    ],
)
def test_claimmarkup_remove_attribute_spellings(tag: str, expected: str) -> None:
    text = f"{tag}文。</p>"
    assert remove_markup(text, "p.html", "raise").text == f"{expected}文。</p>"


def test_claimmarkup_remove_keeps_a_slot_sharing_its_line_and_crlf() -> None:
    text = '<p data-claim-id="raise">文。</p><div data-evidence-for="raise"></div>\r\n<p>x</p>\r\n'
    assert remove_markup(text, "p.html", "raise").text == "<p>文。</p>\r\n<p>x</p>\r\n"
    own_line = '<p data-claim-id="raise">文。</p>\r\n\t<div data-evidence-for="raise"></div>\r\n<p>x</p>\r\n'
    assert remove_markup(own_line, "p.html", "raise").text == "<p>文。</p>\r\n<p>x</p>\r\n"
    followed = '<p data-claim-id="raise">文。</p>\n<div data-evidence-for="raise"></div> <p>x</p>\n'
    assert remove_markup(followed, "p.html", "raise").text == "<p>文。</p>\n <p>x</p>\n"


def test_claimmarkup_remove_leaves_other_claims_and_reports_nothing_found() -> None:
    text = '<p data-claim-id="a">一。</p><div data-evidence-for="a"></div>'
    unmarked = remove_markup(text, "p.html", "raise")
    assert (unmarked.text, unmarked.elements, unmarked.slots) == (text, 0, 0)


def test_claimmarkup_refuses_a_removal_the_check_would_fail() -> None:
    """A slot whose removal lets an unclosed <a> reach another slot (SH116): refused, nothing written."""
    before = (
        '<!DOCTYPE html><html><body><p data-claim-id="x">x</p><div data-evidence-for="x"></div>'
        '<script type="application/json" id="claim-evidence-data">{"version": 1, "sources": [], "claims": []}</script>'
        "</body></html>"
    )
    after = before.replace('<div data-evidence-for="x"></div>', '<a href="/"><div data-evidence-for="x"></div>')
    old = [d.code for d in check_text(before, "p.html", PageOptions()).diagnostics if d.is_error]
    assert "SH116" not in old
    with pytest.raises(AuthoringError) as caught:
        refuse_new_findings(before, after, "p.html")
    assert str(caught.value).startswith("removing the markup would make p.html fail the check (SH116 ")
    assert str(caught.value).endswith(
        "); nothing was written. Remove the data-claim-id attribute and the evidence slot by hand"
    )
    refuse_new_findings(before, before, "p.html")  # nothing new: no refusal
