"""A page's claims bound to their records: one body element and one evidence slot per claim.

A claim registered in the bundle needs exactly one body element (SH110) whose visible text is its
reviewed statement (SH120), and exactly one evidence slot (SH111), which must show the claim's block as
rendered from the record, up to what minifiers change; else it is stale (SH140) and ``--write`` puts
the block there. A claim whose page and record disagree (SH110, SH120) is *unbound*: its slot gets the
safe 未確認 block, never the reviewed one. A claim whose record is invalid (the errors
:func:`.._render.evidence.claim_errors` gives it, on ``Page.invalid``) gets the 未確認 block with the
record warning, and its SH140 says why and what to do; the other claims keep their blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .._core.diagnostics import CLEARED_BY_REVIEW, Diagnostic
from .._core.jsonpos import offset_of
from .._core.normalize import normalized_text
from .._core.splice import newline_style, with_newlines
from .._html.equivalence import equivalent
from .._html.locate import CLAIM_ATTR, NOT_CONTAINERS, SLOT_ATTR, Element
from .._html.text import visible_text
from .._record.freshness import Freshness, review_marker, state_changes
from .._render.evidence import render_blocks, render_unbound
from .facts import _FACTS, _facts, _load
from .options import render_settings

if TYPE_CHECKING:
    from .page import Finding, Page

STALE = "SH140"
UNBOUND = frozenset({"SH110", "SH120"})  # a claim's page and record disagree: its slot gets the safe block
UNBOUND_STALE = (
    "evidence display must now show the claim as unverified: the page and its record disagree (see SH110/SH120 for it); "
    "--write puts the 未確認 block in this slot, and the check fails until the sentence or the record is fixed"
)


def _binding(page: Page) -> Iterator[Finding]:
    bundle = page.bundle
    script = page.located.scripts[0]
    content = page.text[script.open_end : script.close_start]
    registered: dict[str, int] = {}
    for index, claim in enumerate(bundle["claims"]):
        if isinstance(claim, dict) and isinstance(claim.get("id"), str):
            registered.setdefault(claim["id"], index)
    bodies = _by_id(page.located.claims, CLAIM_ATTR)
    slots = _by_id(page.located.slots, SLOT_ATTR)
    for element in (*page.located.claims, *page.located.slots):
        for attr in (CLAIM_ATTR, SLOT_ATTR):
            cid = element.attrs.get(attr)
            if cid is not None and cid not in registered:
                message = f'body/slot references unregistered claim "{cid}" ({attr}); the bundle has no such claim'
                yield element.start, Diagnostic("SH112", message, subject=f"claim {cid}")
    newline = newline_style(page.text)
    facts = _FACTS.get((content, page.lang))
    settings = render_settings(page.options, bundle)
    if facts is not None and facts.blocks is not None and facts.rendered_with != settings:
        facts.blocks = None  # rendered for a site with other settings (search, markers, build date)
    if facts is None:  # (the memo never drops it within one check; a stand-in would pass an invalid bundle)
        facts = _facts(content, page.lang, _load(content, page.name, lambda: (1, 1)))
    for cid, index in registered.items():
        path = f"$.claims[{index}]"
        subject = f"claim {cid}"
        found_bodies, found_slots = bodies.get(cid, []), slots.get(cid, [])
        if len(found_bodies) != 1 or len(found_slots) != 1:
            offset = facts.offsets.get(path)
            if offset is None:
                offset = facts.offsets[path] = offset_of(content, path)
            where = script.open_end + offset
        unbound = len(found_bodies) != 1  # the page and the record disagree about this claim
        if unbound:
            page.unbound.add(cid)
            at = found_bodies[1].start if found_bodies else where
            message = f'exactly one bound body element required for claim "{cid}" (found {len(found_bodies)})'
            yield at, Diagnostic("SH110", message, path=path, subject=subject)
        else:
            for finding in _body_text(page, found_bodies[0], bundle["claims"][index], path):
                unbound = True
                page.unbound.add(cid)
                yield finding
        if len(found_slots) != 1:
            at = found_slots[1].start if found_slots else where
            message = f'exactly one evidence slot required for claim "{cid}" (found {len(found_slots)})'
            yield at, Diagnostic("SH111", message, path=path, subject=subject)
        elif _ownable(found_slots[0]):
            slot = found_slots[0]
            if facts.blocks is None:
                options = page.options
                facts.blocks = render_blocks(
                    bundle,
                    invalid=page.invalid.keys(),
                    lang=page.lang,
                    search_ignore=options.search_ignore,
                    freshness=options.freshness,
                    template_dir=options.template_dir,
                    show_signer=options.policy.show_signer,
                )
                facts.rendered_with = settings
            if unbound:
                block = render_unbound(
                    bundle,
                    cid,
                    lang=page.lang,
                    search_ignore=page.options.search_ignore,
                    template_dir=page.options.template_dir,
                )
            else:
                block = facts.blocks[cid]
            wanted = with_newlines(block, newline)
            shown = page.text[slot.open_end : slot.close_start]
            if shown != wanted and not equivalent(shown, wanted, slot.name):  # a minifier's rewrite is not stale
                page.rendered.append((slot, wanted))
                message = UNBOUND_STALE if unbound else _stale_message(page, index)
                if not unbound and _only_marker_differs(shown, wanted):
                    message = _marker_stale(page.options.freshness, bundle["claims"][index], shown)
                yield slot.start, Diagnostic(STALE, message, path=path, subject=subject)


def _marker_stale(freshness: Freshness | None, claim: dict[str, Any], shown: str) -> str:
    """A slot that differs from its block only in the freshness marker: the record is as reviewed. The
    message says what changed for a reader: the state the slot shows, the state it has now and the day it
    changed (due soon from the first day of the window, expired from the day after the due date)."""
    if freshness is None or not freshness.markers or freshness.today is None:
        return "evidence display is stale: it shows a freshness marker, and this site shows none ([freshness] markers); run --write to remove it"
    marker = review_marker(claim, freshness)
    if marker is None:
        return "evidence display is stale: it shows a freshness marker, and the claim has no review to show one for; run --write to remove it"
    found = _MARKER_STATE.search(shown)
    if found is None:
        return "evidence display is stale: it shows no freshness marker, and this site shows them ([freshness] markers); run --write to add it"
    was, now = found.group(1).replace("-", " "), marker.state
    dates = f"reviewed {marker.checked_at}" + ("" if marker.due is None else f", due {marker.due}")
    soon, expired = state_changes(marker)
    changed = {"due soon": soon, "expired": expired}.get(now)
    if was == now or was not in _ORDER:  # (a state no version wrote: a hand edit)
        why = f"it is {now} ({dates}), and the slot shows the marker in another form (an earlier version's, or another policy's)"
    elif changed is not None and _ORDER.index(was) < _ORDER.index(now):
        why = f"{was} → {now} on {changed.isoformat()} ({dates})"
    else:
        why = f"the slot shows {was}, and on the build date ({freshness.today}) it is {now} ({dates})"
    return (
        f"evidence display is stale: only its freshness marker differs: {why}; run --write to show the current marker"
    )


_ORDER = ("fresh", "due soon", "expired")


# The marker as evidence.html.j2 writes it (with the separator before it), and nothing else.
_MARKER_SPAN = re.compile(
    r' · <span class="claim-evidence-freshness" data-freshness="[a-z-]+"><span aria-hidden="true">[^<]*</span> [^<]*</span>'
)


_MARKER_STATE = re.compile(r'<span class="claim-evidence-freshness" data-freshness="([a-z-]+)">')


def _only_marker_differs(shown: str, wanted: str) -> bool:
    """A slot that differs from its block only in the freshness marker (a marker turned, or markers were
    switched on or off): the record is as reviewed, and the message should say so."""
    return _MARKER_SPAN.sub("", shown) == _MARKER_SPAN.sub("", wanted)


def _stale_message(page: Page, index: int) -> str:
    """Why the slot differs from its block, and what to do: a claim whose record is invalid now shows
    as 未確認 (``--write`` puts that block there, and the run fails until the record is fixed)."""
    errors = page.invalid.get(index, [])
    if not errors:
        return "evidence display is stale (run --write after reviewing source data)"
    own = [d for d in errors if d.path.startswith("$.claims[")]  # its own record, or its twin's (the same id)
    cited = [d for d in errors if d.path.startswith("$.sources[")]
    resealed = any(d.code == "CE403" for d in own)  # what a recorded review fixes
    if resealed:
        why = "its review no longer covers its record (CE403)"
    elif own:
        why = f"its record has errors ({_codes(own)})"
    elif cited:
        why = f"a source has errors ({_codes(cited)} in {_subjects(cited)})"
    else:
        why = (
            f"the bundle has errors that concern every claim ({_codes(errors)} in {_subjects(errors)}), "
            "so every claim of the bundle shows as unverified"
        )
    shown = f"evidence display is stale and must now show the claim as unverified: {why}; --write puts the 未確認 block in this slot"
    if resealed:
        return (
            f"{shown}, and the check fails until the review is recorded: {review_hint(page, index)}, "
            "then run --write to show the reviewed block"
        )
    return f"{shown}, and the check fails until the errors are fixed: fix them, then run --write to show the reviewed block"


def review_hint(page: Page, index: int) -> str:
    """What to type for claim ``index`` of ``page`` whose review no longer covers its record (CE403): the
    errors ``review record`` refuses to seal over first, then the command. The stale slot's finding says
    it, and so does the CE403 itself once ``--write`` has put the 未確認 block there (the slot's finding
    is gone then, and the editor still needs the command). ``review diff`` first: what to read again."""
    errors = page.invalid.get(index, [])
    cid = str(page.bundle["claims"][index]["id"])
    first = [d for d in errors if d.code not in CLEARED_BY_REVIEW]  # review record refuses until these are fixed
    fix = f"fix {_codes(first)} first (review record refuses a record with errors), then " if first else ""
    name = page.name or "PAGE"
    return (
        f"{fix}see what changed with `claim-evidence review diff {name} --claim {cid}`, read the sources again, "
        f"record the review with `claim-evidence review record {name} --claim {cid} --method … --checked-at …`"
    )


def _subjects(diagnostics: list[Diagnostic]) -> str:
    return ", ".join(sorted({d.subject for d in diagnostics}))


def _codes(diagnostics: list[Diagnostic]) -> str:
    return ", ".join(sorted({d.code for d in diagnostics}))


def _ownable(slot: Element) -> bool:
    return slot.name not in NOT_CONTAINERS and ":" not in slot.name and slot.has_end_tag


def _by_id(elements: list[Element], attr: str) -> dict[str, list[Element]]:
    out: dict[str, list[Element]] = {}
    for element in elements:
        out.setdefault(element.attrs[attr], []).append(element)
    return out


def _body_text(page: Page, body: Element, claim: dict[str, Any], path: str) -> Iterator[Finding]:
    statement = claim.get("statement")
    if not isinstance(statement, str):
        return  # the core validation reports the missing statement
    expected = normalized_text(statement)
    seen = visible_text(page.text, body)
    if seen != expected:
        at = next(
            (i for i, (a, b) in enumerate(zip(seen, expected, strict=False)) if a != b), min(len(seen), len(expected))
        )
        message = (
            f'body text differs from reviewed statement at character {at + 1}: page "{seen}" / statement "{expected}"'
        )
        yield body.start, Diagnostic("SH120", message, path=f"{path}.statement", subject=f"claim {claim['id']}")
