"""The sources summary slot on a page (``<div data-evidence-summary></div>``): its findings.

At most one per page, a container it owns alone, showing the block of
:func:`claim_evidence._render.summary.render_summary` for the page's records, else stale (SH140) with
the block ``--write`` puts there. Rendering the block is :mod:`claim_evidence._render`'s; what a page's
slot gets wrong is the page check's, which knows the binding (the unbound claims) and whether the
record is valid.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._core.diagnostics import Diagnostic
from .._core.splice import newline_style, with_newlines
from .._html.equivalence import equivalent
from .._html.locate import CLAIM_ATTR, NOT_CONTAINERS, SLOT_ATTR, SUMMARY_ATTR, Element, Located
from .._render.summary import render_summary
from .binding import STALE, _only_marker_differs
from .options import PageOptions

DUPLICATE = "SH170"
SHAPE = "SH171"
NESTED = "SH172"
STALE_SUMMARY = (
    "sources summary is stale: it no longer lists what the claims on this page cite, or their latest reviews "
    "(run --write)"
)
STALE_MARKERS = (
    "sources summary is stale: only a freshness marker differs (a review it shows turned due soon or expired, "
    "or markers were switched on or off; the evidence blocks' SH140 say which and when); run --write to show "
    "the current markers"
)


def summary_findings(
    located: Located,
    text: str,
    bundle: Mapping[str, Any],
    options: PageOptions,
    lang: str,
    invalid: bool,
    unbound: frozenset[str],
    rendered: list[tuple[Element, str]],
) -> Iterator[tuple[int, Diagnostic]]:
    """A page's summary slot findings (offset in ``text``, diagnostic), and its content when stale
    (appended to ``rendered``, the page's stale slots). ``invalid`` and ``unbound`` are what the page
    check found of the record and the binding.

    At most one slot per page (SH170 at the second); it must be a container with an end tag that
    holds no claim element or evidence slot and sits in none (SH171, SH172); then it must show
    :func:`render_summary`'s block, up to what minifiers change (SH140).
    """
    found = located.summaries
    for extra in found[1:]:
        message = f"at most one {SUMMARY_ATTR} slot per page (found {len(found)}); keep one and remove the others"
        yield extra.start, Diagnostic(DUPLICATE, message, subject="page")
    if len(found) != 1:
        return
    slot = found[0]
    problem = _shape_problem(slot)
    if problem is not None:
        message = f"the {SUMMARY_ATTR} slot must be a container element with an explicit end tag, e.g. <div {SUMMARY_ATTR}></div> (it {problem})"
        yield slot.start, Diagnostic(SHAPE, message, subject="page")
        return
    nested = _nesting(slot, [*located.claims, *located.slots])
    if nested is not None:
        yield slot.start, Diagnostic(NESTED, nested, subject="page")
        return
    order = [e.attrs[CLAIM_ATTR] for e in located.claims]
    block = render_summary(
        bundle,
        order,
        invalid=invalid,
        unbound=unbound,
        lang=lang,
        search_ignore=options.search_ignore,
        freshness=options.freshness,
        template_dir=options.template_dir,
    )
    wanted = with_newlines(block, newline_style(text))
    shown = text[slot.open_end : slot.close_start]
    if shown != wanted and not equivalent(shown, wanted, slot.name):
        rendered.append((slot, wanted))
        message = STALE_MARKERS if _only_marker_differs(shown, wanted) else STALE_SUMMARY
        yield slot.start, Diagnostic(STALE, message, subject="page")


def _shape_problem(slot: Element) -> str | None:
    if CLAIM_ATTR in slot.attrs or SLOT_ATTR in slot.attrs:
        return f"also carries {CLAIM_ATTR if CLAIM_ATTR in slot.attrs else SLOT_ATTR}; give the summary an element of its own"
    if slot.self_closing and slot.name not in NOT_CONTAINERS:
        return f"is written <{slot.name} …/>, which HTML does not close"
    if slot.name in NOT_CONTAINERS or ":" in slot.name:
        return f"is a <{slot.name}>"
    if not slot.has_end_tag:
        return "has no end tag"
    return None


def _nesting(slot: Element, elements: list[Element]) -> str | None:
    for element in elements:
        kind, cid = (
            ("claim element", element.attrs[CLAIM_ATTR])
            if CLAIM_ATTR in element.attrs
            else ("evidence slot", element.attrs[SLOT_ATTR])
        )
        if element.contains(slot):
            return f'the {SUMMARY_ATTR} slot must not be inside the {kind} of "{cid}": move it out'
        if slot.contains(element):
            return f'the {SUMMARY_ATTR} slot holds the {kind} of "{cid}", which --write would replace: move it out of the slot'
    return None
