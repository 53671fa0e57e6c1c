"""``review diff``: what changed in a claim's covered fields since its review, field by field.

A reviewer told "the fingerprint no longer matches" (CE403) has to know what to read again. The
reviewed version is found where it was kept: the file's git history (:func:`.sealdiff.sealed_in_git`,
renames followed), else the seal store ``review record`` fills (:mod:`.sealstore`), each verified by
recomputing the fingerprint, so neither can show a version that was not the one reviewed. Each changed
field is shown old → new with a character diff (:func:`char_diff`), deterministic: the same two
versions give the same bytes.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.hints import terminal_safe
from .._record.fingerprint import claim_fingerprint, claim_payload
from .sealdiff import FieldChange, field_changes, sealed_in_git

if TYPE_CHECKING:
    from .sealstore import SealStore

COVERED, CHANGED, NOT_FOUND, NOT_REVIEWED = "covered", "changed", "not found", "not reviewed"


@dataclass(frozen=True)
class ReviewDiff:
    """The answer for one claim: ``outcome`` (:data:`COVERED`, :data:`CHANGED`, :data:`NOT_FOUND`,
    :data:`NOT_REVIEWED`), the changes, where the sealed version came from, and where it was looked for."""

    path: str
    claim_id: str
    outcome: str
    changes: tuple[FieldChange, ...] = ()
    sealed_in: str = ""
    looked: tuple[str, ...] = ()


def review_diff(
    path: str, claim: Mapping[str, Any], sources: Any, store: SealStore | None = None, store_name: str = ""
) -> ReviewDiff:
    """What changed in ``claim`` (of the file at ``path``, with its bundle's ``sources``) since the review
    its recorded fingerprint seals: found in git first, else in ``store`` (named ``store_name``)."""
    claim_id = str(claim.get("id"))
    verification = claim.get("verification")
    recorded = verification.get("fingerprint") if isinstance(verification, Mapping) else None
    if not isinstance(recorded, str):
        return ReviewDiff(path, claim_id, NOT_REVIEWED)
    if claim_fingerprint(claim, sources) == recorded:
        return ReviewDiff(path, claim_id, COVERED)
    now = claim_payload(claim, sources)
    git = sealed_in_git(path, claim_id, recorded)
    if git.payload is not None:
        where = f"commit {git.revision}, as {git.path}"
        return ReviewDiff(path, claim_id, CHANGED, tuple(field_changes(git.payload, now)), where)
    looked = (git.looked, f"the seal store ({store_name}) does not have it" if store is not None else "no seal store")
    kept = store.get(recorded) if store is not None else None
    if kept is not None:
        return ReviewDiff(
            path, claim_id, CHANGED, tuple(field_changes(kept, now)), f"kept in the seal store {store_name}"
        )
    return ReviewDiff(path, claim_id, NOT_FOUND, looked=looked)


def diff_lines(result: ReviewDiff) -> list[str]:
    """``result`` as ``review diff`` prints it (every value escaped for a terminal)."""
    return [terminal_safe(line) for line in _lines(result)]


def _lines(result: ReviewDiff) -> list[str]:
    file, cid = result.path, result.claim_id
    record = f"claim-evidence review record {file} --claim {cid} --method … --checked-at …"
    if result.outcome == COVERED:
        return [f"{file}: review of {cid} still covers the record"]
    if result.outcome == NOT_REVIEWED:
        return [
            f"{file}: {cid} has no review to compare with (no verification.fingerprint); after reading its sources: {record}"
        ]
    if result.outcome == NOT_FOUND:
        return [
            f"{file}: review of {cid} no longer covers the record, and the reviewed version was not found: "
            f"{'; '.join(result.looked)}; read every covered field and cited source again, then: {record}"
        ]
    lines = [f"{file}: review of {cid} no longer covers the record; changed since the review ({result.sealed_in}):"]
    for change in result.changes:
        lines.extend(_change_lines(change))
    if not result.changes:
        lines.append(
            "  the covered fields are equal but for how JSON numbers are written (12 for 12.0, or the reverse)"
        )
    lines.append(f"then, after reading what changed: {record}")
    return lines


def _change_lines(change: FieldChange) -> list[str]:
    title = f"{change.group} ({change.key})" if change.key in ("added", "removed") else change.field
    old, new = _shown(change.old), _shown(change.new)
    lines = [f"  {title}:", f"    - {old}", f"    + {new}"]
    if change.old is not None and change.new is not None:
        lines.append(f"    ~ {char_diff(old, new)}")
    return lines


def _shown(value: Any) -> str:
    """A value as JSON (a string quoted, so a line break or a leading space shows), absent as ``(none)``."""
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False)


# An unchanged run shorter than this between two changes is shown as changed: a word replaced by
# another shares a letter or two with it, and "[-v-]{+r+}e[-nd-]{+p+}or…" hides the edit it shows.
_SHORTEST_KEPT = 3


def char_diff(old: str, new: str) -> str:
    """``new`` with the characters ``old`` had and it has not as ``[-…-]`` and those it adds as ``{+…+}``
    (git's ``--word-diff=plain`` marks, per character): the edit at a glance, in a line of text. An
    unchanged run of fewer than :data:`_SHORTEST_KEPT` characters between two changes joins them."""
    runs: list[list[Any]] = []  # [deleted, inserted, unchanged?]
    for tag, a, b, c, d in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        runs.append([old[a:b], new[c:d], tag == "equal"])
    merged: list[list[Any]] = []
    for i, run in enumerate(runs):
        inside = 0 < i < len(runs) - 1
        if run[2] and inside and len(run[0]) < _SHORTEST_KEPT:
            run = [run[0], run[1], False]
        if merged and not run[2] and not merged[-1][2]:
            merged[-1][0] += run[0]
            merged[-1][1] += run[1]
        else:
            merged.append(list(run))
    out = []
    for deleted, inserted, unchanged in merged:
        if unchanged:
            out.append(deleted)
            continue
        if deleted:
            out.append(f"[-{deleted}-]")
        if inserted:
            out.append(f"{{+{inserted}+}}")
    return "".join(out)


__all__ = ["CHANGED", "COVERED", "NOT_FOUND", "NOT_REVIEWED", "ReviewDiff", "char_diff", "diff_lines", "review_diff"]
