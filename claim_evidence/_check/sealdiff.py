"""What changed since a review was sealed: the covered fields that differ from the version reviewed.

CE403 says a review no longer covers its record; a reviewer then has to know *what* to read again.
The fingerprint is a one-way digest, so the reviewed version must be found: the file's own git
history holds it when the review was committed. :func:`sealed_payload` walks the last
:data:`MAX_REVISIONS` commits that touched the file (``git log`` and ``git show``, local only, never
the network), and takes the first version whose claim, with the same id, hashes to the recorded
fingerprint. :func:`changed_fields` names what differs between that payload and today's.

Nothing here decides a finding: it only adds an explanation to CE403, when one can be found.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

from .._core.report import FileResult
from .._core.textio import BOM
from .._record.fingerprint import CLAIM_FIELDS, claim_fingerprint, claim_payload

MAX_REVISIONS = 30
_GIT_TIMEOUT = 10.0
_SHOWN = 40  # characters of a changed statement shown
# git runs no hook for log/show; what a checked-out repository's own config could make it run
# (an fsmonitor, a signature program, a pager) is turned off.
_GIT = (
    "git",
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.pager=cat",
    "-c",
    "core.quotePath=false",  # (a name git log prints is read back by git show: 記事.json as written)
)


_MISSING: Any = None  # (a field absent on one side reads as null, as the fingerprint reads it)


@dataclasses.dataclass(frozen=True)
class FieldChange:
    """One covered field that differs between the reviewed payload and today's: ``field`` as
    :func:`changed_fields` names it (``statement``, ``reference to SRC: quote``, ``source SRC: url``,
    ``reference to SRC`` when the whole reference was added or removed), with both values (None: absent)."""

    field: str
    old: Any
    new: Any
    group: str = ""  # ``reference to SRC`` / ``source SRC`` for a field of a cited record, else ""
    key: str = ""  # the record's key that differs, within ``group``


def field_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldChange]:
    """The covered fields of two claim payloads (:func:`claim_payload`) that differ, in the order
    SCHEMA.md lists them: the claim's own fields, then each reference added, removed, then each
    cited reference and source record field by field (by source id), then the order of the references."""
    changes = [
        FieldChange(name, old.get(name), new.get(name)) for name in CLAIM_FIELDS if old.get(name) != new.get(name)
    ]
    old_refs, new_refs = list(old.get("source_refs") or []), list(new.get("source_refs") or [])
    olds = {_ref_key(r): r for r in old_refs}
    news = {_ref_key(r): r for r in new_refs}
    for key in [k for k in news if k not in olds]:
        changes.append(FieldChange(f"reference to {key}", _MISSING, news[key], f"reference to {key}", "added"))
    for key in [k for k in olds if k not in news]:
        changes.append(FieldChange(f"reference to {key}", olds[key], _MISSING, f"reference to {key}", "removed"))
    for key in sorted(olds.keys() & news.keys()):
        for part, group in (("reference", f"reference to {key}"), ("source", f"source {key}")):
            was, now = olds[key].get(part), news[key].get(part)
            if not isinstance(was, Mapping) or not isinstance(now, Mapping):
                if was != now:
                    changes.append(FieldChange(group, was, now, group, "the whole record"))
                continue
            for name in sorted(was.keys() | now.keys()):
                if was.get(name) != now.get(name):
                    changes.append(FieldChange(f"{group}: {name}", was.get(name), now.get(name), group, name))
    order = [_ref_key(r) for r in old_refs], [_ref_key(r) for r in new_refs]
    if not changes and order[0] != order[1]:
        changes.append(FieldChange("order of the references", order[0], order[1]))
    return changes


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """:func:`field_changes` as CE403's message names them: a changed statement with its reviewed
    wording, each cited record's differing keys on one line."""
    changed: list[str] = []
    grouped: dict[str, list[str]] = {}
    for change in field_changes(old, new):
        if change.field == "statement":
            changed.append(f"statement (reviewed: {_excerpt(change.old)})")
        elif change.key in ("added", "removed"):
            changed.append(f"{change.group} {change.key}")
        elif change.group:
            if change.group not in grouped:
                grouped[change.group] = []
                changed.append(change.group)
            grouped[change.group].append(change.key)
        else:
            changed.append(change.field)
    return [f"{name}: {', '.join(grouped[name])}" if name in grouped else name for name in changed]


def _ref_key(ref: Mapping[str, Any]) -> str:
    reference = ref.get("reference")
    return str(reference.get("source_id")) if isinstance(reference, Mapping) else "?"


def _excerpt(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
    return json.dumps(shown, ensure_ascii=False)


def sealed_payload(path: str, claim_id: str, fingerprint: str) -> tuple[str, dict[str, Any]] | None:
    """``(short commit, payload)`` of the newest committed version of ``path`` whose claim
    ``claim_id`` hashes to ``fingerprint``; None when git, the repository or such a version is missing."""
    found = sealed_in_git(path, claim_id, fingerprint)
    return (found.revision, found.payload) if found.payload is not None else None


@dataclasses.dataclass(frozen=True)
class GitSearch:
    """What :func:`sealed_in_git` found: the payload with its short commit and the file's path in that
    commit; else (``payload`` None) why it found none, as a clause (``git is not installed``)."""

    looked: str
    payload: dict[str, Any] | None = None
    revision: str = ""
    path: str = ""


def sealed_in_git(path: str, claim_id: str, fingerprint: str) -> GitSearch:
    """The newest of the last :data:`MAX_REVISIONS` commits that touched ``path`` whose version of the
    file holds a claim ``claim_id`` hashing to ``fingerprint``. A rename is followed (``git log
    --follow``): each commit's version is read under the name the file had in it."""
    real = os.path.realpath(path)
    if shutil.which("git") is None:
        return GitSearch("git is not installed")
    top = _git(os.path.dirname(real), "rev-parse", "--show-toplevel")
    if top is None:
        return GitSearch(f"{path} is not in a git repository")
    root = top.strip()
    relative = os.path.relpath(real, root).replace(os.sep, "/")
    log = _git(root, "log", "--follow", f"-n{MAX_REVISIONS}", "--format=%x00%H", "--name-only", "--", relative)
    entries = [chunk.split("\n") for chunk in (log or "").split("\0")[1:]]
    looked = f"none of the last {MAX_REVISIONS} commits of {path} in git has it (renames followed)"
    if not entries:
        return GitSearch(f"git has no commit of {path}")
    name = relative
    for lines in entries:
        revision, names = lines[0].strip(), [line for line in lines[1:] if line.strip()]
        name = names[0] if names else name  # (a merge lists no file: the name of the commit after it)
        text = _git(root, "show", f"{revision}:{name}")
        if text is None:
            continue
        for claim, sources in _claims(text, name, claim_id):
            if claim_fingerprint(claim, sources) == fingerprint:
                return GitSearch(looked, claim_payload(claim, sources), revision[:12], name)
    return GitSearch(looked)


def _git(folder: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            [*_GIT, *args],
            cwd=folder,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _claims(text: str, name: str, claim_id: str) -> list[tuple[dict[str, Any], Any]]:
    """The claims called ``claim_id`` in a file's text (a bundle or article JSON, or a page), with their
    bundle's sources; nothing when the text does not load."""
    from .._core.diagnostics import InputError
    from .documents import ARTICLE_KEY, holds_script

    try:
        if holds_script(name, text):
            from .page import read_page_bundle

            value: Any = read_page_bundle(text.removeprefix(BOM), name).loaded.value
        else:
            value = json.loads(text.removeprefix(BOM))
    except (InputError, ValueError, RecursionError):
        return []
    bundle = value.get(ARTICLE_KEY, value) if isinstance(value, dict) else None
    if not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        return []
    return [(c, bundle.get("sources")) for c in bundle["claims"] if isinstance(c, dict) and c.get("id") == claim_id]


def explain(results: Sequence[FileResult], current: Mapping[str, Any] | None = None) -> list[FileResult]:
    """``results`` with each CE403 message followed by what changed since the review, where the
    file's git history holds the reviewed version. Cheap when there is no CE403: nothing is read."""
    out = []
    for result in results:
        if not any(d.code == "CE403" for d in result.diagnostics):
            out.append(result)
            continue
        out.append(dataclasses.replace(result, diagnostics=[_explained(result.path, d) for d in result.diagnostics]))
    return out


def _explained(path: str, d: Any) -> Any:
    if d.code != "CE403" or "changed since the review" in d.message:
        return d
    found = _current(path, d.path)
    if found is None:
        return d
    claim, sources, fingerprint = found
    sealed = sealed_payload(path, str(claim.get("id")), fingerprint)
    if sealed is None:
        return d
    revision, old = sealed
    fields = changed_fields(old, claim_payload(claim, sources))
    if not fields:
        return d
    addition = f"; changed since the review (as committed in {revision}): {'; '.join(fields)}"
    if "claim-evidence review diff " not in d.message:  # (a page's hint names the command already)
        addition += f" (each change: claim-evidence review diff {path} --claim {claim.get('id')})"
    return dataclasses.replace(d, message=d.message + addition)


def _current(path: str, json_path: str) -> tuple[dict[str, Any], Any, str] | None:
    """The claim a CE403 at ``json_path`` (``$[.claim_evidence].claims[N].verification.fingerprint``) is
    about, read from the file as it is now, with its bundle's sources and recorded fingerprint."""
    from .._core.diagnostics import InputError
    from .documents import load_document

    try:
        document = load_document(path)
    except InputError:
        return None
    bundle = document.bundle
    index = _claim_index(json_path)
    if index is None or not isinstance(bundle, dict) or not isinstance(bundle.get("claims"), list):
        return None
    claims = bundle["claims"]
    if index >= len(claims) or not isinstance(claims[index], dict):
        return None
    verification = claims[index].get("verification")
    recorded = verification.get("fingerprint") if isinstance(verification, dict) else None
    if not isinstance(recorded, str):
        return None
    return claims[index], bundle.get("sources"), recorded


def _claim_index(json_path: str) -> int | None:
    marker = ".claims["
    at = json_path.find(marker)
    if at < 0:
        return None
    end = json_path.find("]", at)
    number = json_path[at + len(marker) : end]
    return int(number) if number.isdigit() else None


__all__ = [
    "MAX_REVISIONS",
    "FieldChange",
    "GitSearch",
    "changed_fields",
    "explain",
    "field_changes",
    "sealed_in_git",
    "sealed_payload",
]
