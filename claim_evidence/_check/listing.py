"""Evidence markup taken out of a page that only copies it: a generator's listing of several articles.

A blog generator's index, archive, category, tag and author pages repeat each article's content or
summary. The evidence record lives on the article's own page, which is checked and filled; the listing's
copy cannot check as a page of its own: two articles bring two bundles, a summary cut at N words drops
the bundle or cuts its JSON, and themes link the evidence stylesheet from the article template only.
Left as copied, the listing shows an empty slot and fails every gate run over the built site. So the
copy is made inert, always the same way whatever else the listing holds (a rule that filled the slots
when the listing happened to hold one whole article would change the page's shape as articles are
added): the claim element keeps its sentence and loses ``data-claim-id``, and the slots, the summary
slot and the bundle script go. The reader follows the article's link for its evidence.

The strip follows ``--write``'s rule (:mod:`.rewrite`): only what the toolkit owns changes, spliced in
one pass, and proven: every character outside the edits is unchanged, and the result carries no evidence
markup at all, not even markup the browser would not see as an element. What the strip removes:

- an evidence slot, summary slot or bundle script with its end tag: the whole element, content included
  (its content is the toolkit's block or records);
- such an element whose end tag is missing (its content would run on to wherever the parser ends it,
  which the toolkit does not own): only its marking attribute;
- a claim element: only its ``data-claim-id`` attribute, so the sentence reads as plain text.

A summary cut in the middle of the markup (Pelican closes the tags it cut open, so a cut bundle is a
``<script>`` holding half a JSON text) is stripped by the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.splice import Edit, InternalError, outside_identical, splice
from .._core.textio import BOM
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, SLOT_ATTR, SUMMARY_ATTR, Element, locate
from .._html.tokenizer import ATTR, START_TAG, attribute_value, lower

# The attributes that make an element evidence markup; ``id`` only as the bundle script's.
_MARKING = frozenset({CLAIM_ATTR, SLOT_ATTR, SUMMARY_ATTR})


@dataclass(frozen=True)
class Stripped:
    """A listing page with its evidence markup taken out.

    ``text``: the page without it (its BOM kept), or None when it carried none.
    ``removed``: elements removed whole; ``unmarked``: elements that kept their content.
    """

    text: str | None
    removed: int = 0
    unmarked: int = 0


def strip_evidence(text: str) -> Stripped:
    """``text`` (a page as read, a leading BOM allowed) without its evidence markup, proven; raises
    :class:`InternalError` when the proof fails (a bug, or markup hidden where no element holds it:
    the page must then stay as it is)."""
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    located = locate(body)
    if located.hidden is not None:
        raise InternalError(_LEFT)
    if not located.has_markup:
        return Stripped(None)
    whole = [e for e in (*located.slots, *located.summaries, *located.scripts) if e.has_end_tag]
    kept = [e for e in (*located.claims, *located.slots, *located.summaries, *located.scripts) if e not in whole]
    edits = [(e.start, e.end, "") for e in whole]
    edits += [edit for e in kept if not _inside(e, whole) for edit in _unmark(body, e)]
    edits = sorted(set(edits))
    new = splice(body, edits)
    _prove(body, new, edits)
    return Stripped(bom + new, len(whole), len({e.start for e in kept if not _inside(e, whole)}))


_LEFT = (
    "internal error: evidence markup is left on the listing page after stripping it: markup the browser does "
    "not read as an element (inside a comment, raw text or a <template>) is not the toolkit's to take out; "
    "remove it from the article's source (else this is a bug). The page was left as the generator wrote it"
)


def _inside(element: Element, removed: list[Element]) -> bool:
    return any(r.start <= element.start and element.end <= r.end for r in removed)


def _unmark(text: str, element: Element) -> list[Edit]:
    """Edits removing the marking attributes of ``element``'s start tag, each with the separator before it."""
    tag = START_TAG.match(text, element.start, element.open_end)
    if tag is None:  # a located element starts with a start tag
        raise InternalError("internal error: a located element has no start tag; nothing written")
    edits = []
    for match in ATTR.finditer(text, tag.start(2), tag.end(2)):
        name = lower(match.group(1))
        if name in _MARKING or (name == "id" and attribute_value(match.group(2)) == BUNDLE_ID):
            edits.append((match.start(), match.end(), ""))
    return edits


def _prove(old: str, new: str, edits: list[Edit]) -> None:
    """Nothing outside the edits moved, and nothing in the new text is evidence markup any more."""
    if not outside_identical(old, new, edits):
        raise InternalError("internal error: stripping changed text outside the evidence markup; nothing written")
    again = locate(new)
    if again.has_markup or again.hidden is not None:
        raise InternalError(_LEFT)
