"""Evidence markup the helper cannot own safely, or that the browser's parser reads otherwise.

The locator finds elements by their spans; these checks say where those spans are not what a reader's
browser builds: a slot that is no container or has no end tag (SH114), a slot or claim nested where
``--write`` would destroy text (SH113, SH115), markup that is no element (SH104) and a slot that would
sit inside a link (SH116).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._core.diagnostics import Diagnostic
from .._html.elements import VOID
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, NOT_CONTAINERS, SLOT_ATTR, Element, foreign_markup

if TYPE_CHECKING:
    from .page import Finding, Page

HIDDEN_MARKUP = (
    "evidence markup is written here but is not an element: it lies inside a comment, raw text (<script>, "
    "<textarea>, …), a <template> or <select>, or after <plaintext>; an earlier unclosed tag or comment swallowed it"
)
FRAMESET_MARKUP = (
    "evidence markup is written here but is not an element: the <frameset> at line {line} makes this a frameset "
    "document, and HTML parsers drop the whole body with it, claim, evidence slot and bundle included; remove the "
    "<frameset>"
)
FOREIGN_MARKUP = (
    "evidence markup is written here but is not an element: {what} is inside the <{root}> opened at line {line}, "
    "so HTML parsers read it as {language}, not as HTML; close the <{root}> before it ({hint})"
)
_FOREIGN = {
    "math": ("MathML", 'inside <math>, only <annotation-xml encoding="text/html"> holds HTML'),
    "svg": ("SVG", "inside <svg>, only <foreignObject>, <desc> and <title> hold HTML"),
}
LINKED = "SH116"
LINKED_SLOT = (
    'evidence slot for "{cid}" would be inside a link: the <a> opened at line {line} is still open where the slot '
    "starts (browsers re-open a link closed only implicitly, without its own </a>); close it with </a> before the slot"
)
LINKED_SUMMARY = (
    "the data-evidence-summary slot would be inside a link: the <a> opened at line {line} is still open where the "
    "slot starts; close it with </a> before the slot"
)


def _parsing(page: Page, codes: set[str]) -> list[tuple[int, Diagnostic]]:
    """What the browser's parser does to markup whose spans look right: a ``<frameset>`` it accepts, slots
    it puts inside a link, and (when one is missing) a bundle script or stylesheet link it reads as SVG/MathML."""
    located = page.located
    found: list[tuple[int, Diagnostic]] = []
    if located.frameset is not None:
        first = min(e.start for e in (*located.claims, *located.slots, *located.scripts, *located.summaries))
        message = FRAMESET_MARKUP.format(line=located.position(located.frameset)[0])
        found.append((first, Diagnostic("SH104", message, subject="page")))
    for slot, link in located.linked:
        cid = slot.attrs.get(SLOT_ATTR)
        if cid is None:  # the sources summary's slot
            message = LINKED_SUMMARY.format(line=located.position(link)[0])
            found.append((slot.start, Diagnostic(LINKED, message, subject="page")))
            continue
        message = LINKED_SLOT.format(cid=cid, line=located.position(link)[0])
        found.append((slot.start, Diagnostic(LINKED, message, subject=f"claim {cid}")))
    if not located.scripts or "SH130" in codes:
        for foreign in foreign_markup(page.text):
            if located.scripts if foreign.kind == "script" else "SH130" not in codes:
                continue  # only what explains a missing bundle script or stylesheet link
            what = f"script#{BUNDLE_ID}" if foreign.kind == "script" else "the stylesheet <link>"
            language, hint = _FOREIGN[foreign.root]
            line = located.position(foreign.root_start)[0]
            message = FOREIGN_MARKUP.format(what=what, root=foreign.root, line=line, language=language, hint=hint)
            found.append((foreign.start, Diagnostic("SH104", message, subject="page")))
    return found


def _shapes(page: Page) -> Iterator[Finding]:
    """Slots the helper cannot own safely, and slots or claims nested where --write would destroy text."""
    claims, slots = page.located.claims, page.located.slots
    in_markup = _Containment((*claims, *slots))
    in_slot = _Containment(slots)
    for slot in slots:
        cid = slot.attrs[SLOT_ATTR]
        if slot.name in NOT_CONTAINERS or ":" in slot.name or not slot.has_end_tag:
            why = (
                "has no end tag" if slot.name not in NOT_CONTAINERS and not slot.has_end_tag else f"is a <{slot.name}>"
            )
            if slot.self_closing and slot.name not in VOID:
                why = f"is written <{slot.name} …/>, which HTML does not close"
            message = (
                f'evidence slot for "{cid}" must be a container element with an explicit end tag, '
                f'e.g. <div {SLOT_ATTR}="{cid}"></div> (it {why})'
            )
            yield slot.start, Diagnostic("SH114", message, subject=f"claim {cid}")
        for outer in in_markup.candidates(slot):
            if outer is not slot and outer.contains(slot):
                kind = "claim element" if CLAIM_ATTR in outer.attrs and outer in claims else "evidence slot"
                owner = outer.attrs.get(CLAIM_ATTR) if kind == "claim element" else outer.attrs.get(SLOT_ATTR)
                message = f'evidence slot must not be nested in claim text (the slot for "{cid}" is inside the {kind} of "{owner}")'
                yield slot.start, Diagnostic("SH113", message, subject=f"claim {cid}")
                break
    for claim in claims:
        for slot in in_slot.candidates(claim):
            if slot is not claim and slot.contains(claim):
                cid, owner = claim.attrs[CLAIM_ATTR], slot.attrs[SLOT_ATTR]
                message = f'claim element "{cid}" is inside the evidence slot for "{owner}", which --write replaces'
                yield claim.start, Diagnostic("SH115", message, subject=f"claim {cid}")
                break


class _Containment:
    """Which of ``elements`` might contain a given element, without comparing every pair: pages
    with hundreds of claims would pay n² for a check that finds nothing on almost every page."""

    def __init__(self, elements: tuple[Element, ...] | list[Element]) -> None:
        self.elements = elements
        ordered = sorted(elements, key=lambda e: e.open_end)
        self.open_ends = [e.open_end for e in ordered]
        self.widest: list[int] = []  # the furthest close_start among the first i+1 by open_end
        for e in ordered:
            self.widest.append(max(e.close_start, self.widest[-1]) if self.widest else e.close_start)

    def candidates(self, inner: Element) -> tuple[Element, ...] | list[Element]:
        """All elements, in their order, when one of them contains ``inner``; else none."""
        k = bisect_right(self.open_ends, inner.start)
        return self.elements if k and self.widest[k - 1] >= inner.end else ()
