"""Removing a claim, a reference or a source from a record, without hand-editing JSON.

Each removal is judged like every other edit (:func:`.authoring.judged`): one that would leave a
validation error is refused with the validator's code and words (the last claim of a bundle, CE103),
but for what a new review clears (a claim left citing nothing while its status asserts a review:
CE311, said in a note), and a claim that lost a reference is reported as no longer reviewed. A source still cited is not removed:
its references are the editor's to drop first, each by name, so no claim loses one unseen.
"""

from __future__ import annotations

from typing import Any

from .._core.errors import AuthoringError
from .authoring import Change, cited_sources, claim_record, judged, source_record, source_refs, start_bundle
from .vocabulary import VERIFIED_STATUSES, str_or_none


def remove_claim(bundle: Any, claim_id: str) -> Change:
    """The bundle without the claim ``claim_id`` (its review goes with it; no other claim's changes)."""
    updated = start_bundle(bundle)
    updated["claims"].remove(claim_record(updated, claim_id))
    return judged(bundle, updated, set(), _uncited(bundle, updated))


def remove_ref(bundle: Any, claim_id: str, source_id: str) -> Change:
    """The claim without its references to ``source_id`` (all of them: the claim no longer cites it)."""
    updated = start_bundle(bundle)
    claim = claim_record(updated, claim_id)
    refs = source_refs(claim)
    kept = [r for r in refs if not (isinstance(r, dict) and r.get("source_id") == source_id)]
    if len(kept) == len(refs):
        raise AuthoringError(f"claim {claim_id} cites no source {source_id!r} ({cited_sources(claim)})")
    notes = (
        []
        if len(refs) - len(kept) == 1
        else [f"claim {claim_id} cited {source_id} {len(refs) - len(kept)} times: all are removed"]
    )
    refs[:] = kept
    if not kept and str_or_none(claim.get("status")) in VERIFIED_STATUSES:
        notes.append(
            f"claim {claim_id} cites no source now, and its status {claim['status']} asserts a review (CE311 until it "
            f"cites one again, or claim-evidence claim set FILE --claim {claim_id} --status unverified)"
        )
    return judged(bundle, updated, set(), notes + _uncited(bundle, updated))


def remove_source(bundle: Any, source_id: str) -> Change:
    """The bundle without the source ``source_id``; refused while a claim cites it (naming each, with the
    command that drops its reference)."""
    updated = start_bundle(bundle)
    source = source_record(updated, source_id)
    citing = [
        str(c.get("id"))
        for c in updated["claims"]
        if isinstance(c, dict)
        and isinstance(c.get("source_refs"), list)
        and any(isinstance(r, dict) and r.get("source_id") == source_id for r in c["source_refs"])
    ]
    if citing:
        commands = "; ".join(f"claim-evidence ref remove FILE --claim {cid} --source {source_id}" for cid in citing)
        raise AuthoringError(
            f"source {source_id} is cited by {'claims' if len(citing) > 1 else 'claim'} {', '.join(citing)}: "
            f"remove {'those references' if len(citing) > 1 else 'that reference'} first ({commands})"
        )
    updated["sources"].remove(source)
    return judged(bundle, updated, set(), [])


def _uncited(before: Any, after: dict[str, Any]) -> list[str]:
    """A note for each source the removal left cited by no claim (CE902 from now on)."""
    was, now = _cited(start_bundle(before)), _cited(after)
    kept = {str(s.get("id")) for s in after["sources"] if isinstance(s, dict)}
    return [
        f"source {sid} is cited by no claim now (CE902): claim-evidence source remove FILE --id {sid}, if it is no longer needed"
        for sid in sorted((was - now) & kept)
    ]


def _cited(bundle: dict[str, Any]) -> set[str]:
    return {
        str(r.get("source_id"))
        for c in bundle["claims"]
        if isinstance(c, dict) and isinstance(c.get("source_refs"), list)
        for r in c["source_refs"]
        if isinstance(r, dict)
    }
