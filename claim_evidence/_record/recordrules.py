"""The rules over a bundle's records as records: ids valid and unique, addresses safe, every
referenced source present, every source cited, no unknown key.

Rules of :mod:`.validation` (registered in its ``RULES``): each takes the bundle's
:class:`~.validation.Context` and yields findings; the engine names the record, fills in the path
and orders them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .._core.diagnostics import PathParts, json_path
from .._core.hints import closest, found, shown
from .._core.urls import safe_http_url
from .schema import ID_RULE, MISSING, field_message, known_keys, property_node
from .vocabulary import is_valid_id, str_or_none

if TYPE_CHECKING:
    from .validation import Context, Finding


def source_ids(ctx: Context) -> Iterator[Finding]:
    yield from _unique_ids(ctx.source_dicts(), "sources", "CE201")


def claim_ids(ctx: Context) -> Iterator[Finding]:
    yield from _unique_ids(ctx.claim_dicts(), "claims", "CE301")


def _unique_ids(records: Iterator[tuple[int, dict[str, Any]]], key: str, code: str) -> Iterator[Finding]:
    """Every invalid id (the schema's pattern, which also misses a trailing newline) and every repeat,
    saying which of the two it is: the rule for an invalid one, where the first is for a repeat."""
    kind = key[:-1]  # "claims" -> "claim"
    node = property_node(kind, "id")
    phrase = node["x-message"]
    first: dict[str, int] = {}
    for i, record in records:
        rid = record.get("id")
        if "id" in record and not is_valid_id(rid):
            rule = f"an id is {ID_RULE} (the schema's pattern {node['pattern']})"
            yield code, (key, i, "id"), f"{phrase}: {found(rid, ('string',))} is invalid; {rule}", "error"
        elif isinstance(rid, str) and rid in first:
            where = json_path((key, first[rid], "id"))
            yield (
                code,
                (key, i, "id"),
                f"{phrase}: {shown(rid)} is a duplicate; the first {kind} with this id is at {where}",
                "error",
            )
        if isinstance(rid, str):
            first.setdefault(rid, i)


def source_urls(ctx: Context) -> Iterator[Finding]:
    node = property_node("source", "url")
    for i, source in ctx.source_dicts():
        if isinstance(source.get("url"), str) and not safe_http_url(source["url"]):
            yield "CE204", ("sources", i, "url"), field_message(node, ("sources", i, "url"), source["url"]), "error"


def archive_and_snapshot_urls(ctx: Context) -> Iterator[Finding]:
    """The same URL safety as ``url`` for the other addresses a source record carries."""
    for i, source in ctx.source_dicts():
        archive = source.get("archive_url")
        if isinstance(archive, str) and not safe_http_url(archive):
            yield "CE207", ("sources", i, "archive_url"), "archive_url must be a safe HTTP(S) URL", "error"
        snapshot = source.get("snapshot")
        final = snapshot.get("final_url") if isinstance(snapshot, dict) else None
        if isinstance(final, str) and not safe_http_url(final):
            yield (
                "CE206",
                ("sources", i, "snapshot", "final_url"),
                "snapshot.final_url must be a safe HTTP(S) URL",
                "error",
            )


def references_exist(ctx: Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        for j, ref in refs(claim):
            if isinstance(ref, dict) and str_or_none(ref.get("source_id")) not in ctx.source_ids:
                path = ("claims", i, "source_refs", j, "source_id")
                yield "CE309", path, _missing_source(ref.get("source_id", MISSING), list(ctx.source_ids)), "error"


_LISTED_IDS = 8  # source ids named in a CE309 message


def _missing_source(value: Any, ids: list[str]) -> str:
    """The ids a ``source_id`` can name are the bundle's: CE309 lists them like a vocabulary."""
    if not ids:
        expected = "the id of a source of this bundle, which has no valid source"
    else:
        listed = ", ".join(ids[:_LISTED_IDS]) + (f", … ({len(ids)} in all)" if len(ids) > _LISTED_IDS else "")
        expected = f"the id of a source of this bundle: {listed}"
    seen = "the key is missing" if value is MISSING else "found " + found(value, ("string",))
    close = closest(value, ids) if isinstance(value, str) else None
    hint = f"; did you mean {close!r}?" if close is not None else ""
    return f"missing referenced source: source_id must be {expected} ({seen}{hint})"


def unknown_keys(ctx: Context) -> Iterator[Finding]:
    """Typos such as ``uncertanity`` would otherwise drop data silently."""
    yield from _unknown(ctx.bundle, (), None)
    for i, source in ctx.source_dicts():
        yield from _unknown(source, ("sources", i), "source")
    for i, claim in ctx.claim_dicts():
        yield from _unknown(claim, ("claims", i), "claim")
        for j, ref in refs(claim):
            if isinstance(ref, dict):
                yield from _unknown(ref, ("claims", i, "source_refs", j), "source_ref")
        if isinstance(claim.get("verification"), dict):
            yield from _unknown(claim["verification"], ("claims", i, "verification"), "verification")


def _unknown(record: dict[str, Any], at: PathParts, definition: str | None) -> Iterator[Finding]:
    known = known_keys(definition)
    for key in record:
        if key not in known:
            close = closest(key, sorted(known))
            hint = f"; did you mean {close!r}?" if close else ""
            yield "CE900", (*at, key), f"unknown key {shown(key)}{hint}", "warning"


def uncited_sources(ctx: Context) -> Iterator[Finding]:
    cited = {
        str_or_none(ref.get("source_id"))
        for _, claim in ctx.claim_dicts()
        for _, ref in refs(claim)
        if isinstance(ref, dict)
    }
    for sid, index in ctx.source_ids.items():
        if sid not in cited:
            yield "CE902", ("sources", index), f"source {sid!r} is not cited by any claim", "warning"


def refs(claim: dict[str, Any]) -> list[tuple[int, Any]]:
    refs = claim.get("source_refs")
    return list(enumerate(refs)) if isinstance(refs, list) else []
