"""The correction registry: one JSON object mapping an article URL to its correction.

A correction replaces displayed fields (title, tldr, summary, source, …) and may
carry the reviewed ``claim_evidence`` bundle, whose ``subject_fingerprint``
covers the *corrected* title/tldr/summary. Loading validates every bundle
against that corrected subject, so a bad registry stops the pipeline before
anything is derived from it.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from .._check.sitechecks import site_diagnostics
from .._core.diagnostics import Diagnostic, PathParts, json_path
from .._core.errors import CorrectionRegistryError
from .._core.jsonio import loads
from .._core.jsonpos import placed
from .._core.textio import MAX_BYTES, read_text
from .._core.urls import safe_http_url
from .._record.freshness import Freshness
from .._record.policy import DEFAULT_POLICY, Policy
from .._record.validation import iter_diagnostics
from .._record.vocabulary import EVIDENCE_LABELS
from .._snapshots.check import snapshot_store
from .._snapshots.store import SnapshotStore

EVIDENCE_KEY = "claim_evidence"
SUBJECT_FIELDS = ("title", "tldr", "summary")
# Displayed text fields; a correction may replace any of them and must give them as strings.
TEXT_FIELDS = ("title", "tldr", "summary", "source", "category", "evidence_label")


@dataclass(frozen=True)
class Correction:
    """One registered article: the fields that replace the item's, and the bundle (or None)."""

    url: str
    fields: Mapping[str, Any]
    bundle: Mapping[str, Any] | None

    @property
    def subject(self) -> dict[str, Any]:
        """The corrected title/tldr/summary an editor reviewed."""
        return {name: self.fields.get(name) for name in SUBJECT_FIELDS}

    def expected_bundle(self) -> dict[str, Any] | None:
        """A fresh deep copy of the canonical bundle, safe to hand out."""
        return None if self.bundle is None else copy.deepcopy(dict(self.bundle))


@dataclass(frozen=True)
class CorrectionRegistry:
    """Corrections by URL, in file order; ``diagnostics`` holds the warnings of a loaded file."""

    path: str
    corrections: Mapping[str, Correction]
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def get(self, url: object) -> Correction | None:
        return self.corrections.get(url) if isinstance(url, str) else None

    def evidence_urls(self) -> list[str]:
        """URLs whose correction carries a bundle: the prepublish targets, sorted."""
        return sorted(url for url, c in self.corrections.items() if c.bundle)


def load_corrections(
    path: str | os.PathLike[str],
    max_bytes: int = MAX_BYTES,
    *,
    policy: Policy = DEFAULT_POLICY,
    snapshots: str | os.PathLike[str] | None = None,
    freshness: Freshness | None = None,
) -> CorrectionRegistry:
    """Read and validate a registry file (under the site's ``policy``; with the offline snapshot
    checks when ``snapshots`` names the site's snapshot folder, and the review ages under ``freshness``).

    Raises :class:`~claim_evidence.InputError` when the file cannot be read or
    parsed, and :class:`CorrectionRegistryError` when any correction is invalid.
    """
    name = os.fspath(path)
    text = read_text(name, max_bytes)
    loaded = loads(text, name)
    return registry_from_value(
        loaded.value,
        name,
        duplicate_keys=loaded.duplicate_keys,
        policy=policy,
        text=text,
        snapshots=snapshots,
        freshness=freshness,
    )


def registry_from_value(
    value: Any,
    name: str = "<corrections>",
    *,
    duplicate_keys: list[PathParts] | None = None,
    policy: Policy = DEFAULT_POLICY,
    text: str | None = None,
    snapshots: str | os.PathLike[str] | None = None,
    freshness: Freshness | None = None,
) -> CorrectionRegistry:
    """Validate an already-parsed registry value (the input is deep-copied, never kept).

    ``text``, the JSON the value was parsed from, gives each finding its line and column.
    """
    found = iter_registry_diagnostics(
        value,
        duplicate_keys or [],
        policy=policy,
        snapshots=snapshot_store(snapshots),
        freshness=freshness,
        file=None if name == "<corrections>" else name,
    )
    diagnostics = [replace(d, file=name) for d in found]
    if text is not None:
        diagnostics = placed(diagnostics, text)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise CorrectionRegistryError(errors)
    corrections = {url: _correction(url, entry) for url, entry in value.items()}
    return CorrectionRegistry(name, MappingProxyType(corrections), tuple(diagnostics))


def _correction(url: str, entry: Mapping[str, Any]) -> Correction:
    fields = {k: copy.deepcopy(v) for k, v in entry.items() if k != EVIDENCE_KEY}
    bundle = entry.get(EVIDENCE_KEY)
    frozen_bundle = copy.deepcopy(bundle) if isinstance(bundle, dict) and bundle else None
    return Correction(url, MappingProxyType(fields), frozen_bundle)


def iter_registry_diagnostics(
    value: Any,
    duplicate_keys: list[PathParts] | None = None,
    *,
    policy: Policy = DEFAULT_POLICY,
    snapshots: SnapshotStore | None = None,
    freshness: Freshness | None = None,
    file: str | None = None,
) -> Iterator[Diagnostic]:
    """Every finding of a registry value: its shape, then each correction and bundle; ``file``, the
    registry's file, is the one the commands in the findings name (``review sign FILE --claim ID``)."""
    if not isinstance(value, dict):
        yield Diagnostic(
            "NW100", "the registry must be a JSON object mapping article URLs to corrections", subject="corrections"
        )
        return
    for parts in duplicate_keys or []:
        if len(parts) == 1:
            yield Diagnostic(
                "NW104",
                "URL registered twice; only the last correction would be kept",
                json_path(parts),
                subject=f"article {parts[0]}",
            )
    for url, entry in value.items():
        duplicates = [p[2:] for p in duplicate_keys or [] if p[:2] == (url, EVIDENCE_KEY)]
        yield from _entry_diagnostics(url, entry, duplicates, policy, snapshots, freshness, file)


def _entry_diagnostics(
    url: str,
    entry: Any,
    duplicate_keys: list[PathParts],
    policy: Policy,
    snapshots: SnapshotStore | None,
    freshness: Freshness | None,
    file: str | None,
) -> Iterator[Diagnostic]:
    subject = f"article {url}"

    def at(code: str, parts: PathParts, message: str) -> Diagnostic:
        return Diagnostic(code, message, json_path((url, *parts)), subject=subject)

    if not safe_http_url(url):
        yield at("NW101", (), "registry keys must be safe http(s) article URLs")
    if not isinstance(entry, dict):
        yield at("NW102", (), "correction must be an object")
        return
    if "url" in entry:
        yield at("NW107", ("url",), "a correction cannot change url: the key is the URL")
    for name in TEXT_FIELDS:
        if name in entry and not isinstance(entry[name], str):
            yield at("NW105", (name,), f"{name} must be a string")
    if isinstance(entry.get("evidence_label"), str) and entry["evidence_label"] not in EVIDENCE_LABELS:
        yield at("NW106", ("evidence_label",), f"unknown evidence_label {entry['evidence_label']!r}")
    bundle = entry.get(EVIDENCE_KEY)
    if bundle is None or bundle == {}:
        return
    missing = [name for name in SUBJECT_FIELDS if not isinstance(entry.get(name), str)]
    if missing:
        message = f"a correction with claim_evidence must give the reviewed {', '.join(missing)} as strings"
        yield at("NW103", (), message)
        return
    for d in (
        *iter_diagnostics(bundle, entry, duplicate_keys=duplicate_keys, policy=policy),
        *site_diagnostics(bundle, snapshots, freshness, policy, file),
    ):
        inner = subject if d.subject == "claim_evidence" else f"{subject}, {d.subject}"
        yield replace(d, path=json_path((url, EVIDENCE_KEY)) + d.path[1:], subject=inner)


def apply_article_correction(item: Mapping[str, Any], registry: CorrectionRegistry) -> dict[str, Any]:
    """A new item with the registered corrected fields and bundle; ``item`` is never mutated.

    An item whose URL is not registered comes back as an equal deep copy: no
    bundle is added, so it renders without a badge.
    """
    result = copy.deepcopy(dict(item))
    correction = registry.get(item.get("url"))
    if correction is None:
        return result
    result.update(copy.deepcopy(dict(correction.fields)))
    if correction.bundle is not None:
        result[EVIDENCE_KEY] = correction.expected_bundle()
    return result
