"""Editing a record without hand-writing JSON: claims, sources, references and the covered fields.

Each edit works on a copy of the bundle and is then judged by the validator, so
a refusal carries the validator's own code and words (an unsafe URL is CE204
here as in ``validate``). What an edit may legitimately undo — a review seal
over the fields it changed — is reported, never repaired: only ``review
record`` writes a fingerprint, and nothing here does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.diagnostics import CLEARED_BY_REVIEW, Diagnostic
from .._core.errors import AuthoringError, EditRefused
from .._core.normalize import normalized_text
from .fingerprint import claim_fingerprint
from .validation import iter_diagnostics
from .vocabulary import BASES, VERIFIED_STATUSES, str_or_none

NEW_BUNDLE: dict[str, Any] = {"version": 1, "sources": [], "claims": []}
UNSET: Any = object()  # "leave the field as it is" (None means: set it to null)


@dataclass(frozen=True)
class Change:
    """A bundle after one edit, and what the editor must know about it."""

    bundle: dict[str, Any]
    notes: tuple[str, ...] = field(default=())


def start_bundle(bundle: Any) -> dict[str, Any]:
    """A copy of ``bundle``, or a new empty one for a page or file that has none yet."""
    if bundle is None or bundle == {}:
        return copy.deepcopy(NEW_BUNDLE)
    if (
        not isinstance(bundle, dict)
        or not isinstance(bundle.get("claims"), list)
        or not isinstance(bundle.get("sources"), list)
    ):
        raise AuthoringError(
            "the file's bundle has no sources and claims lists; fix it (claim-evidence validate FILE) first"
        )
    return copy.deepcopy(bundle)


def add_claim(
    bundle: Any,
    claim_id: str,
    statement: str,
    *,
    label: str | None = None,
    basis: str | None = None,
    evidence_label: str | None = None,
) -> Change:
    """A new ``unverified`` claim with no sources and no review.

    Without ``basis`` the record is incomplete (CE303) until ``claim set --basis``:
    there is no honest default for what a claim rests on.
    """
    updated = start_bundle(bundle)
    claim: dict[str, Any] = {"id": claim_id}
    if label is not None:
        claim["label"] = label
    claim["statement"] = statement
    if evidence_label is not None:
        claim["evidence_label"] = evidence_label
    if basis is not None:
        claim["basis"] = basis
    claim.update({"status": "unverified", "conditions": [], "source_refs": [], "verification": None})
    updated["claims"].append(claim)
    index = len(updated["claims"]) - 1
    allowed = set() if basis is not None else {("CE303", f"$.claims[{index}].basis")}
    notes = (
        []
        if basis is not None
        else [
            f"claim {claim_id} has no basis yet (CE303 until you set it): claim set FILE --claim {claim_id} --basis "
            + "|".join(BASES)
        ]
    )
    return judged(bundle, updated, allowed, notes)


def add_source(
    bundle: Any, source_id: str, url: str, publisher: str, title: str, published_at: str | None = None
) -> Change:
    """A new source record; it changes no seal until a claim cites it."""
    updated = start_bundle(bundle)
    source: dict[str, Any] = {"id": source_id, "publisher": publisher, "title": title, "url": url}
    if published_at is not None:
        source["published_at"] = published_at
    updated["sources"].append(source)
    notes = [
        f"source {source_id} is cited by no claim yet: claim-evidence ref add FILE --claim ID --source {source_id} …"
    ]
    return judged(bundle, updated, set(), notes)


def add_ref(
    bundle: Any, claim_id: str, source_id: str, section: str, supports: str, quote: str | None = None
) -> Change:
    """A reference from a claim to a source, with the quoted passage when given."""
    updated = start_bundle(bundle)
    claim = claim_record(updated, claim_id)
    source_record(updated, source_id)
    ref: dict[str, Any] = {"source_id": source_id, "section": section, "supports": supports}
    if quote is not None:
        ref["quote"] = {"exact": quote}
    source_refs(claim).append(ref)
    return judged(bundle, updated, set(), [])


def set_claim(
    bundle: Any,
    claim_id: str,
    *,
    status: str | None = None,
    conditions: Sequence[str] | None = None,
    as_of: Any = UNSET,
    uncertainty: Any = UNSET,
    label: Any = UNSET,
    basis: str | None = None,
    evidence_label: str | None = None,
    statement: str | None = None,
) -> Change:
    """Change the named fields of one claim; ``as_of``, ``uncertainty`` and ``label`` set to
    ``None`` become ``null``. Changing a covered field undoes the claim's review (reported).

    A ``statement`` that reads as the recorded one (the same text once normalized, as the page
    check and the fingerprint compare it) is left as written: rewriting it would change bytes
    and nothing the check or the review sees."""
    updated = start_bundle(bundle)
    claim = claim_record(updated, claim_id)
    notes = []
    if statement is not None and normalized_text(statement) == normalized_text(claim.get("statement")):
        notes.append(f"the statement of claim {claim_id} already reads so: it is left as it is")
        statement = None
    given = {
        "statement": statement,
        "status": status,
        "basis": basis,
        "evidence_label": evidence_label,
        "conditions": None if conditions is None else list(conditions),
    }
    for key, value in given.items():
        if value is not None:
            claim[key] = value
    for key, value in (("as_of", as_of), ("uncertainty", uncertainty), ("label", label)):
        if value is not UNSET:
            claim[key] = value
    if str_or_none(claim.get("status")) in VERIFIED_STATUSES and not isinstance(claim.get("verification"), dict):
        notes.append(
            f"status {claim['status']} asserts a review: record it with claim-evidence review record FILE --claim {claim_id} … (CE311 until then)"
        )
    return judged(bundle, updated, set(), notes)


def set_ref(
    bundle: Any,
    claim_id: str,
    source_id: str,
    *,
    section: str | None = None,
    supports: str | None = None,
    quote: Any = UNSET,
    prefix: Any = UNSET,
    suffix: Any = UNSET,
) -> Change:
    """Change the one reference of a claim to a source. ``quote`` is its ``exact`` text (``None``: no
    quote, its context gone with it); ``prefix`` and ``suffix`` its context (``None`` removes one),
    which exists only around a quote. A reference is covered by the claim's review (reported)."""
    updated = start_bundle(bundle)
    ref = _one_ref(claim_record(updated, claim_id), source_id)
    for key, value in (("section", section), ("supports", supports)):
        if value is not None:
            ref[key] = value
    if quote is None:
        ref.pop("quote", None)
    elif quote is not UNSET:
        ref["quote"] = {**ref["quote"], "exact": quote} if isinstance(ref.get("quote"), dict) else {"exact": quote}
    for key, value in (("prefix", prefix), ("suffix", suffix)):
        if value is UNSET:
            continue
        if not isinstance(ref.get("quote"), dict):
            raise AuthoringError(
                f"claim {claim_id}'s reference to {source_id} has no quote for a {key} to stand beside: "
                f"give --quote TEXT with --{key}"
            )
        if value is None:
            ref["quote"].pop(key, None)
        else:
            ref["quote"][key] = value
    return judged(bundle, updated, set(), [])


def _one_ref(claim: dict[str, Any], source_id: str) -> dict[str, Any]:
    refs = source_refs(claim)
    found = [r for r in refs if isinstance(r, dict) and r.get("source_id") == source_id]
    if len(found) == 1:
        return found[0]
    cid = claim.get("id")
    if found:
        raise AuthoringError(
            f"claim {cid} cites source {source_id} {len(found)} times; ref set changes a claim's one reference to a "
            f"source: remove them (claim-evidence ref remove FILE --claim {cid} --source {source_id}) and add each again"
        )
    raise AuthoringError(f"claim {cid} cites no source {source_id!r} ({cited_sources(claim)}); ref add cites one")


def cited_sources(claim: dict[str, Any]) -> str:
    """What a refusal lists: the sources the claim cites."""
    ids = [str(r.get("source_id")) for r in source_refs(claim) if isinstance(r, dict)]
    return "it cites: " + ", ".join(dict.fromkeys(ids)) if ids else "it cites none"


def set_source(
    bundle: Any,
    source_id: str,
    *,
    url: str | None = None,
    title: str | None = None,
    publisher: str | None = None,
    published_at: Any = UNSET,
    archive_url: Any = UNSET,
) -> Change:
    """Change a source's fields (``published_at`` and ``archive_url`` set to ``None`` are removed: both
    are optional). Every claim citing the source is covered by it: their reviews are undone (reported)."""
    updated = start_bundle(bundle)
    source = source_record(updated, source_id)
    old_url = source.get("url")
    for key, value in (("url", url), ("title", title), ("publisher", publisher)):
        if value is not None:
            source[key] = value
    for key, value in (("published_at", published_at), ("archive_url", archive_url)):
        if value is None:
            source.pop(key, None)
        elif value is not UNSET:
            source[key] = value
    notes = []
    if url is not None and isinstance(source.get("snapshot"), dict) and url != old_url:
        notes.append(
            f"source {source_id}'s snapshot is of its old URL: take a new one with claim-evidence sources snapshot "
            f"FILE --source {source_id}"
        )
    return judged(bundle, updated, set(), notes)


def claim_record(bundle: dict[str, Any], claim_id: str) -> dict[str, Any]:
    """The one claim with ``claim_id``; else a refusal listing the ids there are, to copy from."""
    matches = [c for c in bundle["claims"] if isinstance(c, dict) and c.get("id") == claim_id]
    if len(matches) != 1:
        known = ", ".join(str(c.get("id")) for c in bundle["claims"] if isinstance(c, dict)) or "none yet"
        raise AuthoringError(f"no single claim with id {claim_id!r} (claims: {known})")
    return matches[0]


def source_record(bundle: dict[str, Any], source_id: str) -> dict[str, Any]:
    """The one source with ``source_id``; else a refusal listing the ids there are."""
    matches = [s for s in bundle["sources"] if isinstance(s, dict) and s.get("id") == source_id]
    if len(matches) != 1:
        known = ", ".join(str(s.get("id")) for s in bundle["sources"] if isinstance(s, dict)) or "none yet"
        raise AuthoringError(
            f"no source with id {source_id!r} (sources: {known}); add it with claim-evidence source add"
        )
    return matches[0]


def source_refs(claim: dict[str, Any]) -> list[Any]:
    """The claim's ``source_refs`` list, to edit in place (a record whose field is broken is refused)."""
    refs = claim.get("source_refs")
    if not isinstance(refs, list):
        raise AuthoringError(
            f"claim {claim.get('id')}'s source_refs is not a list; fix it (claim-evidence validate FILE) first"
        )
    return refs


def judged(before: Any, after: dict[str, Any], allowed: set[tuple[str, str]], notes: list[str]) -> Change:
    """Refuse an edit that adds errors, except what a review clears (or ``allowed``); report
    the reviews it undid. Every command that changes a record goes through here."""
    old = {_key(d) for d in _errors(before)}
    added = [
        d
        for d in _errors(after)
        if _key(d) not in old and d.code not in CLEARED_BY_REVIEW and (d.code, d.path) not in allowed
    ]
    if added:
        raise EditRefused(added)
    undone = sorted((_sealed(before) - _sealed(after)) & _ids(after))  # a removed claim's review is not undone
    reviews = [
        f"this undoes the review of claim {cid}: read its sources again, then claim-evidence review record FILE --claim {cid} …"
        for cid in undone
    ]
    return Change(after, tuple(reviews + notes))


def _errors(bundle: Any) -> list[Diagnostic]:
    if not isinstance(bundle, dict) or not bundle:
        return []
    return [d for d in iter_diagnostics(bundle) if d.is_error]


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return d.code, d.path, d.message


def _ids(bundle: dict[str, Any]) -> set[str]:
    return {str(c.get("id")) for c in bundle["claims"] if isinstance(c, dict)}


def _sealed(bundle: Any) -> set[str]:
    """Ids of claims whose recorded review still covers them."""
    if not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        return set()
    return {
        str(c["id"])
        for c in bundle["claims"]
        if isinstance(c, dict)
        and isinstance(c.get("verification"), dict)
        and c["verification"].get("fingerprint") == claim_fingerprint(c, bundle.get("sources"))
    }
