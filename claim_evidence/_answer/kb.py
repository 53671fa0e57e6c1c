"""The knowledge base an AI answer may draw on: kb.json's chunks, loaded and indexed.

``_commands.kbbuild`` writes kb.json (``claim-evidence kb build``); this module is what a server needs to
read it back — no page parser, no site config — so ``import claim_evidence`` stays light. A kb is
generated, never edited: anything unexpected in it is refused whole (CE700), not half-used.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .._core.diagnostics import Diagnostic, InputError, MalformedInput
from .._core.jsonio import loads
from .._core.textio import read_text
from .config import LANG_VARIABLE, STATES, state_or_none
from .retrieve import Index, chunk_text

KB_FORMAT = "claim-evidence-kb"
KB_VERSION = 1
KINDS = ("claim", "text")
_CHUNK_KEYS = {
    "id": str,
    "kind": str,
    "state": str,
    "state_rule": str,
    "title": str,
    "text": str,
    "url": str,
    "page": str,
    "sources": list,
}


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece: a claim with its record, or a section of an extra file."""

    id: str  # PAGE#CLAIM-ID for claims, FILE#N for extra text; unique in the kb
    kind: str  # "claim" | "text"
    state: str  # one of STATES
    state_rule: str  # the mapping rule that gave the state (see config.DEFAULT_STATES)
    title: str
    text: str
    url: str  # the claim's evidence block: PAGE-URL#evidence-ID ("" for extra text)
    page: str  # the page's path under the site root, the registry article's URL, or the extra file's path
    sources: tuple[tuple[str, str, str], ...] = ()  # (publisher, title, url) of cited sources with a safe URL
    # A claim's record as its page holds it ({"claim", "sources": the sources it cites}): what the
    # Cited Sources of an answer age at answer time. None for extra text.
    record: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "state_rule": self.state_rule,
            "title": self.title,
            "text": self.text,
            "url": self.url,
            "page": self.page,
            "sources": [{"publisher": p, "title": t, "url": u} for p, t, u in self.sources],
        }
        if self.record is not None:
            found["record"] = dict(self.record)
        return found


@dataclass(frozen=True)
class KnowledgeBase:
    """A loaded kb.json: its chunks as stored (dicts), what the guard is configured with, and an
    inverted index built on first use and kept (so a server pays for it once)."""

    chunks: tuple[dict[str, Any], ...]
    built_at: str
    built_at_source: str
    lang: str = "ja"
    banned: tuple[str, ...] = ()
    copy_prefix: str = ""
    states: Mapping[str, str] = field(default_factory=dict)
    path: str | None = None
    # The site's [freshness] periods per basis, that an answer's Cited Sources are aged by; None: a kb
    # written before they were recorded (the default periods apply).
    max_age_days: tuple[tuple[str, int | None], ...] | None = None
    advice: tuple[str, ...] = ()  # phrases added to the guard's advice check ([chat] advice_extra)
    prediction: tuple[str, ...] = ()  # and to its prediction check ([chat] prediction_extra)
    system_prompt: str | None = None  # the site's own prompt ([chat] system_prompt), {lang} not yet filled in

    @cached_property
    def index(self) -> Index:
        return Index([chunk_text(c) for c in self.chunks])


def dumps_kb(kb: Mapping[str, Any]) -> bytes:
    """kb.json's bytes: sorted keys, two-space indent, UTF-8 as written, one final newline."""
    return (json.dumps(kb, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def load_kb(path: str | os.PathLike[str]) -> KnowledgeBase:
    """Read kb.json; an unreadable or malformed file, or one not written by ``kb build``, is an :class:`InputError`."""
    name = os.fspath(path)
    try:
        value = loads(read_text(name), name).value
    except MalformedInput as exc:  # a kb is generated, never edited: broken JSON is unusable input (exit 2)
        raise InputError(exc.diagnostic) from None
    if not isinstance(value, dict) or value.get("format") != KB_FORMAT or value.get("version") != KB_VERSION:
        raise _bad(
            name,
            "$",
            f'not a knowledge base: expected an object with "format": "{KB_FORMAT}" and "version": {KB_VERSION}',
        )
    for key in ("built_at", "built_at_source", "lang"):
        if not isinstance(value.get(key), str):
            raise _bad(name, f"$.{key}", f"{key} must be a string")
    chunks = value.get("chunks")
    if not isinstance(chunks, list):
        raise _bad(name, "$.chunks", "chunks must be a list")
    seen: set[str] = set()
    for i, chunk in enumerate(chunks):
        problem = _chunk_problem(chunk, seen)
        if problem:
            raise _bad(name, f"$.chunks[{i}]{problem[0]}", problem[1])
    guard = value.get("guard") if isinstance(value.get("guard"), dict) else {}
    assert isinstance(guard, dict)
    banned, prefix = guard.get("banned"), guard.get("copy_prefix")
    if not isinstance(banned, list) or not all(isinstance(b, str) for b in banned) or not isinstance(prefix, str):
        raise _bad(name, "$.guard", "guard must hold banned (a list of phrases) and copy_prefix (text)")
    added = {key: guard.get(key, []) for key in ("advice", "prediction")}  # absent from a kb built before #28
    for key, phrases in added.items():
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise _bad(name, f"$.guard.{key}", f"guard.{key} must be a list of phrases")
    prompt = guard.get("system_prompt")
    if prompt is not None and not (isinstance(prompt, str) and LANG_VARIABLE in prompt):
        raise _bad(name, "$.guard.system_prompt", f"guard.system_prompt must be text holding {LANG_VARIABLE}")
    states = value.get("states") if isinstance(value.get("states"), dict) else {}
    assert isinstance(states, dict)
    periods = _periods(value.get("freshness"))
    if isinstance(periods, bool):
        raise _bad(name, "$.freshness", "freshness must hold max_age_days: days (a whole number, or null) per basis")
    return KnowledgeBase(
        tuple(chunks),
        value["built_at"],
        value["built_at_source"],
        value["lang"],
        tuple(banned),
        prefix,
        dict(states),
        name,
        periods,
        tuple(added["advice"]),
        tuple(added["prediction"]),
        prompt,
    )


def _periods(value: Any) -> tuple[tuple[str, int | None], ...] | None | bool:
    """``freshness.max_age_days`` as pairs; None when the kb has none; False when it is malformed."""
    # (a bool, not an exception: load_kb names the path of what is wrong, as for every other key)
    if value is None:
        return None
    periods = value.get("max_age_days") if isinstance(value, dict) else None
    if not isinstance(periods, dict) or not all(
        p is None or (isinstance(p, int) and not isinstance(p, bool) and p >= 0) for p in periods.values()
    ):
        return False
    return tuple(sorted(periods.items()))


def _chunk_problem(chunk: Any, seen: set[str]) -> tuple[str, str] | None:
    if not isinstance(chunk, dict):
        return "", "a chunk must be an object"
    for key, kind in _CHUNK_KEYS.items():
        if not isinstance(chunk.get(key), kind):
            return f".{key}", f"{key} must be a {'string' if kind is str else 'list'}"
    if chunk["id"] in seen:
        return ".id", f"duplicate chunk id {chunk['id']!r}"
    seen.add(chunk["id"])
    if chunk["kind"] not in KINDS:
        return ".kind", f"kind must be one of {', '.join(KINDS)}"
    if state_or_none(chunk["state"]) is None:
        return ".state", f"state must be one of {', '.join(STATES)}"
    for j, source in enumerate(chunk["sources"]):
        if not isinstance(source, dict) or not all(
            isinstance(source.get(k), str) for k in ("publisher", "title", "url")
        ):
            return f".sources[{j}]", "a source must be an object with publisher, title and url strings"
    return None


def _bad(name: str, path: str, message: str) -> InputError:
    return InputError(
        Diagnostic("CE700", f"{message}; rebuild it with `claim-evidence kb build`", path=path, subject="kb", file=name)
    )
