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
_GIT = ("git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false", "-c", "core.pager=cat")


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The covered fields of two claim payloads (:func:`claim_payload`) that differ, in the order
    SCHEMA.md lists them: the claim's own fields, then each cited reference and source record."""
    changed = []
    for name in CLAIM_FIELDS:
        if old.get(name) != new.get(name):
            if name == "statement":
                changed.append(f"statement (reviewed: {_excerpt(old.get(name))})")
            else:
                changed.append(name)
    old_refs, new_refs = list(old.get("source_refs") or []), list(new.get("source_refs") or [])
    olds = {_ref_key(r): r for r in old_refs}
    news = {_ref_key(r): r for r in new_refs}
    for key in news.keys() - olds.keys():
        changed.append(f"reference to {key} added")
    for key in olds.keys() - news.keys():
        changed.append(f"reference to {key} removed")
    for key in sorted(olds.keys() & news.keys()):
        was, now = olds[key], news[key]
        fields = _differing(was.get("reference"), now.get("reference"))
        if fields:
            changed.append(f"reference to {key}: {', '.join(fields)}")
        fields = _differing(was.get("source"), now.get("source"))
        if fields:
            changed.append(f"source {key}: {', '.join(fields)}")
    if not changed and [_ref_key(r) for r in old_refs] != [_ref_key(r) for r in new_refs]:
        changed.append("order of the references")
    return changed


def _ref_key(ref: Mapping[str, Any]) -> str:
    reference = ref.get("reference")
    return str(reference.get("source_id")) if isinstance(reference, Mapping) else "?"


def _differing(old: Any, new: Any) -> list[str]:
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return [] if old == new else ["the whole record"]
    return sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))


def _excerpt(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
    return json.dumps(shown, ensure_ascii=False)


def sealed_payload(path: str, claim_id: str, fingerprint: str) -> tuple[str, dict[str, Any]] | None:
    """``(short commit, payload)`` of the newest committed version of ``path`` whose claim
    ``claim_id`` hashes to ``fingerprint``; None when git, the repository or such a version is missing."""
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    git = shutil.which("git")
    if git is None:
        return None
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    relative = os.path.relpath(real, top.strip()).replace(os.sep, "/")
    revisions = _git(top.strip(), "log", f"-n{MAX_REVISIONS}", "--format=%H", "--", relative)
    for revision in (revisions or "").split():
        text = _git(top.strip(), "show", f"{revision}:{relative}")
        if text is None:
            continue
        for claim, sources in _claims(text, relative, claim_id):
            if claim_fingerprint(claim, sources) == fingerprint:
                return revision[:12], claim_payload(claim, sources)
    return None


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
    from .documents import ARTICLE_KEY, is_page

    try:
        if is_page(name):
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


__all__ = ["MAX_REVISIONS", "changed_fields", "explain", "sealed_payload"]
