"""The listing strip (``_check/listing.py``): which bytes go, which stay, and when it refuses."""

from __future__ import annotations

import pytest

from claim_evidence._check.listing import strip_evidence
from claim_evidence._core.errors import InternalError
from claim_evidence._core.textio import BOM
from static_helper import check_text

CLAIM = '<p class="lead" data-claim-id="A-1">文。</p>'
SLOT = '<div data-evidence-for="A-1"><aside class="claim-evidence">block</aside></div>'
SCRIPT = '<script type="application/json" id="claim-evidence-data">{"version": 1, "claims": [</script>'
SUMMARY = "<section data-evidence-summary></section>"


def _page(body: str) -> str:
    return f"<!doctype html>\r\n<html><body>\r\n{body}\r\n</body></html>\r\n"


def test_listing_strips_slots_scripts_and_summary_whole_and_the_claim_attribute_only() -> None:
    text = _page(f"{CLAIM}\r\n{SLOT}\r\n{SUMMARY}\r\n{SCRIPT}")
    done = strip_evidence(text)
    assert done.text == _page('<p class="lead">文。</p>\r\n\r\n\r\n')
    assert (done.removed, done.unmarked) == (3, 1)
    assert not check_text(done.text).has_markup
    assert strip_evidence(done.text).text is None  # a second pass finds nothing to do


def test_listing_keeps_the_bom_and_every_attribute_spelling_of_the_claim() -> None:
    text = BOM + _page("<P DATA-CLAIM-ID='A-1' id=x data-claim-id=A-2>文。</P>")
    assert strip_evidence(text).text == BOM + _page("<P id=x>文。</P>")


def test_listing_slot_without_end_tag_keeps_its_content_and_loses_its_attribute() -> None:
    # the parser ends the unclosed <div> at </body>: what follows the start tag is not the toolkit's
    text = _page(f'{CLAIM}\r\n<div data-evidence-for="A-1"><p>続き</p>')
    assert strip_evidence(text).text == _page('<p class="lead">文。</p>\r\n<div><p>続き</p>')


def test_listing_claim_inside_a_removed_slot_goes_with_it() -> None:
    text = _page(f'<div data-evidence-for="A-1"><p data-claim-id="B-1">文。</p></div>{CLAIM}')
    assert strip_evidence(text).text == _page('<p class="lead">文。</p>')


def test_listing_without_markup_is_left_alone() -> None:
    text = _page("<p>claim-evidence-data is only a word here</p>")
    assert strip_evidence(text).text is None


@pytest.mark.parametrize("before", ["", f"{CLAIM}\r\n"])
def test_listing_markup_hidden_in_a_comment_is_refused(before: str) -> None:
    text = _page(before + '<!-- <p data-claim-id="A-1">文。</p> -->')
    with pytest.raises(InternalError, match="evidence markup is left on the listing page"):
        strip_evidence(text)
