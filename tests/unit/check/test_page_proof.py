"""The proof of ``--write`` (``Page.rendered_text``): a re-rendered page differs only inside its stale
slots, each holding exactly the block the check rendered, and locates and checks as before.

The proof is made without checking the new page again wherever the elements' places show it (issue 25):
these tests hold that each way of getting the result wrong is still refused, by whichever step."""

from __future__ import annotations

import dataclasses

import pytest

from claim_evidence import render_evidence
from claim_evidence._check.page import _fast_proof, _prove, check_located, check_text
from claim_evidence._core.splice import InternalError, splice
from claim_evidence._html import fastpath
from claim_evidence._html.locate import locate

from .test_static_page import ONE, page

STALE = page('<p data-claim-id="C-1">The sky is blue.</p>\n<div data-evidence-for="C-1">old</div>', ONE)
BLOCK = render_evidence(ONE, ["C-1"])
OUTSIDE = "internal error: splicing changed text outside the evidence slots; nothing written"
NOT_CLEAN = "internal error: the re-rendered page does not check clean; nothing written"


def _edits(found):
    return [(slot.open_end, slot.close_start, content) for slot, content in found.rendered]


def _with_content(found, content):
    """The checked page, as if the check had rendered ``content`` for its stale slot."""
    return dataclasses.replace(found, rendered=[(found.rendered[0][0], content)])


def test_proof_accepts_the_rendered_block():
    found = check_text(STALE)
    new = found.rendered_text()
    assert new == STALE.replace(">old<", f">{BLOCK}<")
    again = check_text(new)
    assert again.diagnostics == [] and again.rendered == []


@pytest.mark.skipif(not fastpath.available(), reason="selectolax is not installed")
def test_proof_by_the_fast_path_needs_the_fast_path_location():
    found = check_text(STALE)
    edits = _edits(found)
    new = splice(STALE, edits)
    assert isinstance(found.located, fastpath.FastLocated) and _fast_proof(found.located, new, edits)
    assert not _fast_proof(locate(STALE), new, edits)  # the reference's location: located again instead
    bad = splice(STALE, [(edits[0][0], edits[0][1], "</div><div>")])
    assert not _fast_proof(found.located, bad, [(edits[0][0], edits[0][1], "</div><div>")])


def test_proof_accepts_a_page_the_reference_located():
    found = check_located(STALE, None, locate(STALE))
    assert found.rendered_text() == STALE.replace(">old<", f">{BLOCK}<")


def test_proof_refuses_text_changed_outside_the_slots():
    found = check_text(STALE)
    edits = _edits(found)
    new = splice(STALE, edits).replace("The sky", "The Sky")
    with pytest.raises(InternalError) as caught:
        _prove(found, new, edits)
    assert str(caught.value) == OUTSIDE


def test_proof_refuses_content_other_than_the_rendered_block():
    found = check_text(STALE)
    slot = found.rendered[0][0]
    edits = [(slot.open_end, slot.close_start, BLOCK.replace("The sky is blue.", "The sky is green."))]
    with pytest.raises(InternalError) as caught:
        _prove(found, splice(STALE, edits), edits)
    assert str(caught.value) == NOT_CLEAN


@pytest.mark.parametrize(
    "content",
    [
        "</div><div>",  # ends the slot early: the slot shows nothing, and a stray element follows
        BLOCK + '<p data-claim-id="C-2">x</p>',  # a claim element the bundle does not register
        BLOCK + '<div data-evidence-for="C-1"></div>',  # a second slot for the claim
        BLOCK + '<script type="application/json" id="claim-evidence-data">{}</script>',  # a second bundle
    ],
)
def test_proof_refuses_content_that_changes_the_page(content):
    with pytest.raises(InternalError) as caught:
        _with_content(check_text(STALE), content).rendered_text()
    assert str(caught.value) in (
        NOT_CLEAN,
        "internal error: the evidence slots moved after re-rendering; nothing written",
    )


def test_proof_checks_the_page_again_when_other_markup_was_in_the_slot():
    # A <link> inside the stale slot goes with the old content: the elements differ, so the new page is
    # checked in full, and it checks as the old one did.
    text = STALE.replace(">old<", '><link rel="stylesheet" href="/x.css">old<')
    found = check_text(text)
    assert len(found.located.links) == 2 and found.stale
    new = found.rendered_text()
    assert new == STALE.replace(">old<", f">{BLOCK}<")
    assert check_text(new).diagnostics == []


def test_proof_checks_the_page_again_without_its_stylesheet_link():
    # SH130: the check then reads the whole text for SVG/MathML that swallowed the link, slot content
    # included, so the new page is checked in full; it must check as the old one did.
    text = STALE.replace('<link rel="stylesheet" href="/assets/claim-evidence.css">', "")
    found = check_text(text)
    assert [d.code for d in found.errors] == ["SH130"]
    assert found.rendered_text() == text.replace(">old<", f">{BLOCK}<")
    swallowing = _with_content(found, BLOCK + '<svg><link rel="stylesheet" href="/assets/claim-evidence.css">')
    with pytest.raises(InternalError) as caught:
        swallowing.rendered_text()
    assert str(caught.value) == NOT_CLEAN
