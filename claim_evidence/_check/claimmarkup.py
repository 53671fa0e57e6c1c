"""A claim's markup on a page, for ``claim set --from-page`` and ``claim remove --markup``.

The statement is read from the one element with the claim's ``data-claim-id`` as the page check
reads it (:func:`.._html.text.visible_text`, what SH120 compares), so a re-read statement cannot
differ from the page. Removing the markup takes out the ``data-claim-id`` attribute (the element
and its text stay) and the claim's evidence slot, with the slot's own line when it stands alone on
one (as ``claim add`` wrote it); every other byte stays, which is proven, and so is that the page
check finds nothing new but what the removal explains.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.errors import AuthoringError, InternalError
from .._core.splice import Edit, outside_identical, splice
from .._html.locate import CLAIM_ATTR, SLOT_ATTR, Element, locate
from .._html.text import visible_text
from .._html.tokenizer import ATTR, START_TAG, lower
from .newfindings import added_errors
from .page import PageOptions

# A summary slot lists the page's claims: once one is gone it is stale until `static-helper --write`.
_EXPECTED = {"SH140"}


def marked_statement(text: str, name: str, claim_id: str) -> str:
    """The visible text of the one element of ``text`` (a page, or a Markdown/reST source's raw HTML)
    marked ``data-claim-id=claim_id``: the statement the page check expects."""
    found = [e for e in locate(text).claims if e.attrs[CLAIM_ATTR] == claim_id]
    if len(found) != 1:
        where = "no element" if not found else f"{len(found)} elements"
        raise AuthoringError(
            f'{name} has {where} with data-claim-id="{claim_id}" to read the statement from; a claim binds '
            f'exactly one (<p data-claim-id="{claim_id}">…</p>)'
        )
    statement = visible_text(text, found[0])
    if not statement:
        raise AuthoringError(
            f'the element with data-claim-id="{claim_id}" in {name} has no visible text to record as the statement'
        )
    return statement


@dataclass(frozen=True)
class Unmarked:
    """A page without one claim's markup, and what was taken out."""

    text: str
    elements: int  # elements that lost their data-claim-id
    slots: int  # evidence slots removed


def remove_markup(text: str, name: str, claim_id: str) -> Unmarked:
    """``text`` without the ``data-claim-id="claim_id"`` attributes and the ``data-evidence-for`` slots of
    that claim. Refused (nothing changes) when the page would then fail its check in a way it did not."""
    located = locate(text)
    edits: list[Edit] = []
    elements = [e for e in located.claims if e.attrs[CLAIM_ATTR] == claim_id]
    slots = [e for e in located.slots if e.attrs[SLOT_ATTR] == claim_id]
    for element in elements:
        edits.extend(_attribute_edits(text, element))
    for slot in slots:
        edits.append(_slot_span(text, slot))
    new = splice(text, edits)
    if not outside_identical(text, new, edits):
        raise InternalError(
            f"internal error: removing the markup of {claim_id} in {name} moved other bytes; nothing written"
        )
    again = locate(new)
    if any(e.attrs[CLAIM_ATTR] == claim_id for e in again.claims) or any(
        e.attrs[SLOT_ATTR] == claim_id for e in again.slots
    ):
        raise InternalError(
            f"internal error: the markup of {claim_id} in {name} is still there after removal; nothing written"
        )
    return Unmarked(new, len(elements), len(slots))


def refuse_new_findings(before: str, after: str, name: str) -> None:
    """The page after a removal must not fail its check in a way it did not before (a summary slot's
    staleness aside): that would be markup the removal broke, and is refused."""
    added, _ = added_errors(before, after, name, PageOptions(), _EXPECTED)
    if added:
        raise AuthoringError(
            f"removing the markup would make {name} fail the check ({added[0].code} {added[0].message}); nothing "
            "was written. Remove the data-claim-id attribute and the evidence slot by hand"
        )


def _attribute_edits(text: str, element: Element) -> list[Edit]:
    """Every ``data-claim-id`` attribute of the element's start tag (a duplicate too: it would bind
    next), with the whitespace before it, so ``<p data-claim-id="x">`` becomes ``<p>``."""
    tag = START_TAG.match(text, element.start)
    if tag is None:  # located elements start with a start tag
        raise InternalError(f"internal error: no start tag at offset {element.start}; nothing written")
    start = tag.start(2)
    return [
        (start + m.start(), start + m.end(), "") for m in ATTR.finditer(tag.group(2)) if lower(m.group(1)) == CLAIM_ATTR
    ]


def _slot_span(text: str, slot: Element) -> Edit:
    """The slot, with its own line when it stands alone on one (only spaces or tabs before it, a line
    break or the end right after it): from the line break before it, as ``claim add`` wrote it."""
    before = slot.start
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    alone = before > 0 and text[before - 1] in "\r\n" and text[slot.end : slot.end + 1] in ("", "\r", "\n")
    if not alone:
        return (slot.start, slot.end, "")
    return (before - (2 if text[before - 2 : before] == "\r\n" else 1), slot.end, "")
