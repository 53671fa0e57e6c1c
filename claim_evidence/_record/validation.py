"""Validation of bundle v1: the schema for structure, small Python rules for the rest.

One generator (:func:`iter_diagnostics`) underneath; the list, raise and
is-pending forms are thin wrappers. Each semantic rule is a generator
registered under its code in :data:`RULES`; the record's name (``claim X``) and the JSON path
are filled in centrally by :func:`_finish`.

This module is the engine; the rules are in :mod:`.recordrules` (ids, addresses, references and
keys of the records), :mod:`.reviewrules` (what a review record and its seals must say) and
:mod:`.quoterules` (a statement's figures against its quotes). They get their :class:`Context`
and yield :data:`Finding` values, and know nothing of the schema pass, the memo or the order of
the findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._core.diagnostics import Diagnostic, EvidenceValidationError, PathParts, Severity, json_path
from .._core.hints import closest, found, shown
from .._core.jsonio import CYCLIC, MAX_DEPTH, hostile_value, nesting_depth
from .._core.memo import Memo, content_key
from . import quoterules, recordrules, reviewrules
from .policy import DEFAULT_POLICY, Policy
from .schema import MISSING, bundle_conforms, bundle_validator, field_message
from .vocabulary import is_valid_id

if TYPE_CHECKING:
    from jsonschema import ValidationError

# (code, path parts, message, severity) as yielded by rules before _finish.
Finding = tuple[str, PathParts, str, Severity]


@dataclass
class Context:
    """What every rule reads: the bundle, the article's subject, and its sources and claims as
    lists whatever the bundle holds (the schema pass reports a wrong type; the rules go on)."""

    bundle: dict[str, Any]
    subject: Mapping[str, Any] | None
    sources: list[Any] = field(default_factory=list)
    claims: list[Any] = field(default_factory=list)
    source_ids: dict[str, int] = field(default_factory=dict)  # first valid occurrence

    def __post_init__(self) -> None:
        self.sources = self.bundle["sources"] if isinstance(self.bundle.get("sources"), list) else []
        self.claims = self.bundle["claims"] if isinstance(self.bundle.get("claims"), list) else []
        for index, source in enumerate(self.sources):
            if isinstance(source, dict) and is_valid_id(source.get("id")):
                self.source_ids.setdefault(source["id"], index)

    def claim_dicts(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return ((i, c) for i, c in enumerate(self.claims) if isinstance(c, dict))

    def source_dicts(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return ((i, s) for i, s in enumerate(self.sources) if isinstance(s, dict))


Rule = Callable[[Context], Iterator[Finding]]
# Each rule under the code it is known by (CE207 also reports CE206, CE105 CE106, CE317 CE904 and
# CE905). One table, not registration as a side effect of importing the rule modules: which rules
# run is read here, and the rule modules need nothing of this one at run time.
RULES: dict[str, Rule] = {
    "CE105": reviewrules.subject,
    "CE201": recordrules.source_ids,
    "CE204": recordrules.source_urls,
    "CE207": recordrules.archive_and_snapshot_urls,
    "CE301": recordrules.claim_ids,
    "CE309": recordrules.references_exist,
    "CE311": reviewrules.stated_verification,
    "CE312": reviewrules.operator_measurement,
    "CE317": quoterules.numbers_quoted,
    "CE401": reviewrules.checked_at,
    "CE403": reviewrules.fingerprint,
    "CE407": reviewrules.review_by_after_check,
    "CE900": recordrules.unknown_keys,
    "CE902": recordrules.uncited_sources,
    "CE903": reviewrules.published_after_check,
}


def iter_diagnostics(
    bundle: Any,
    subject: Mapping[str, Any] | None = None,
    *,
    duplicate_keys: Iterable[PathParts] = (),
    policy: Policy = DEFAULT_POLICY,
) -> Iterator[Diagnostic]:
    """Every finding for ``bundle``, errors and warnings, ordered by JSON path.

    ``None`` and ``{}`` are legacy items without evidence: no findings.
    ``duplicate_keys`` are the paths of keys the loader saw twice (the parsed value
    no longer shows them). ``policy`` is what the site demands beyond the contract
    (``require_quotes``).
    """
    if bundle is None or (isinstance(bundle, dict) and not bundle):
        return
    depth = nesting_depth(bundle)
    if depth == CYCLIC:  # (only a value from Python: no JSON text holds itself)
        yield Diagnostic("CE005", "bundle holds itself (a list or object inside itself): it has no JSON text")
        return
    if depth > MAX_DEPTH:
        yield Diagnostic("CE005", f"bundle nested deeper than {MAX_DEPTH} levels")
        return
    # Values from Python skip the loader's check: a lone surrogate or an overflowing number would
    # crash the fingerprint rules, so it is the one finding, as for nesting (fix it, then the rest).
    problem = hostile_value(bundle)
    if problem is None and subject is not None:
        problem = hostile_value(subject)
        if problem is not None:
            problem = (problem[0], (), f"{problem[2]} (in the article's subject: its title, tldr or summary)")
    if problem is not None:
        yield Diagnostic(problem[0], problem[2], json_path(problem[1]))
        return
    if not isinstance(bundle, dict):
        seen = found(bundle, ("object", "null"))
        yield Diagnostic(
            "CE100", f"object required: the bundle must be an object, or null or {{}} for no evidence (found {seen})"
        )
        return
    duplicates = list(duplicate_keys)
    key = _memo_key(bundle, subject, duplicates)
    findings = _MEMO.get(key) if key is not None else None
    if findings is None:
        findings = diagnose_loaded(bundle, subject, duplicates)
        if key is not None:
            _MEMO.put(key, findings)
    yield from policy.apply(findings)


def diagnose_loaded(
    bundle: dict[str, Any],
    subject: Mapping[str, Any] | None,
    duplicates: list[PathParts],
) -> tuple[Diagnostic, ...]:
    """:func:`iter_diagnostics` for an object ``_core.jsonio.loads`` produced, which has kept the depth
    limit: no depth walk and no memo (a page check memoizes by the JSON text instead). The findings
    are the contract's; a caller applies its site's :class:`Policy` to them."""
    context = Context(bundle, subject)
    findings: list[Finding] = list(_schema_findings(bundle))
    for code in sorted(RULES):
        findings.extend(RULES[code](context))
    for path in duplicates:
        findings.append(("CE901", path, "duplicate key in the JSON text: only the last value is kept", "warning"))
    return tuple(_finish(context, findings))


# Many pages carry the same records: validate each distinct (bundle, subject) once per process.
# Diagnostics are frozen, so the cached tuple can be shared.
_MEMO: Memo[tuple[Diagnostic, ...]] = Memo(512)


def _memo_key(
    bundle: Any, subject: Mapping[str, Any] | None, duplicates: list[PathParts]
) -> tuple[str, str, str] | None:
    bundle_key = content_key(bundle)
    subject_key = "" if subject is None else content_key(subject)
    if bundle_key is None or subject_key is None:
        return None
    return bundle_key, subject_key, repr(duplicates)


def validate_bundle(
    bundle: Any, subject: Mapping[str, Any] | None = None, *, policy: Policy = DEFAULT_POLICY
) -> list[str]:
    """Error messages (``"claim X: statement required"``); empty when valid."""
    return [d.text for d in iter_diagnostics(bundle, subject, policy=policy) if d.is_error]


def require_valid_evidence(
    bundle: Any, subject: Mapping[str, Any] | None = None, *, policy: Policy = DEFAULT_POLICY
) -> None:
    """Raise :class:`EvidenceValidationError` carrying the error diagnostics."""
    errors = [d for d in iter_diagnostics(bundle, subject, policy=policy) if d.is_error]
    if errors:
        raise EvidenceValidationError(errors)


def evidence_review_pending(item: Any) -> bool:
    """True unless ``item["claim_evidence"]`` is present, valid for the item and fully reviewed.

    An information label such as ``Fact`` is a classification, not a review:
    it never turns a missing, invalid or unverified record into a reviewed one.
    """
    if not isinstance(item, dict):
        return True
    bundle = item.get("claim_evidence")
    if not isinstance(bundle, dict) or not bundle or validate_bundle(bundle, item):
        return True
    return any(claim.get("status") == "unverified" for claim in bundle["claims"])


# --- structure, from the schema -------------------------------------------------


def _schema_findings(bundle: dict[str, Any]) -> Iterator[Finding]:
    if bundle_conforms(bundle):  # the common case, answered without jsonschema's error objects
        return
    for error in bundle_validator().iter_errors(bundle):
        yield from _from_schema_error(error)


# Codes whose rule reports every case the schema finds, with more to say (which id, which rule).
_RULE_OWNED = frozenset({"CE201", "CE301"})


def _from_schema_error(error: ValidationError) -> Iterator[Finding]:
    """Map a jsonschema error to the contract's code (``x-code``) and a message that starts with the
    contract's phrase (``x-message``) and names what the field must be and what was found."""
    path: PathParts = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        for name in error.validator_value if isinstance(error.validator_value, list) else ():
            if name not in present:
                prop = schema.get("properties", {}).get(name, {})
                message = field_message(prop, (*path, name), MISSING) if "x-message" in prop else error.message
                yield prop.get("x-code", "CE000"), (*path, name), message, "error"
        return
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        # Name each unexpected key at its own path, as CE900 does for the records that allow them.
        known = schema.get("properties", {})
        for name in error.instance:
            if name not in known:
                message = f"unexpected key {shown(name)}{_did_you_mean(name, known)}; " + schema.get(
                    "x-message", error.message
                )
                yield schema.get("x-code", "CE000"), (*path, name), message, "error"
        return
    if schema.get("x-code") in _RULE_OWNED:
        return
    message = (
        field_message(schema, path, error.instance, str(error.validator)) if "x-message" in schema else error.message
    )
    yield schema.get("x-code", "CE000"), path, message, "error"


def _did_you_mean(word: Any, known: Iterable[str]) -> str:
    close = closest(word, sorted(known)) if isinstance(word, str) else None
    return f" (did you mean {close!r}?)" if close is not None else ""


# --- central finishing: dedupe, order, name the record ---------------------------


def _finish(ctx: Context, findings: list[Finding]) -> Iterator[Diagnostic]:
    unique: dict[tuple[str, PathParts], Finding] = {}
    for finding in findings:
        code, path, message, severity = finding
        key = (code, path)
        # Rules add the offending value to some messages; prefer the richer one.
        if key not in unique or len(message) > len(unique[key][2]):
            unique[key] = finding
    ordered = sorted(unique.values(), key=lambda f: (_sort_key(f[1]), f[0]))
    for code, path, message, severity in ordered:
        yield Diagnostic(code, message, json_path(path), severity, _subject_name(ctx, path))


def _sort_key(path: PathParts) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, p) if isinstance(p, int) else (1, p) for p in path)


def _subject_name(ctx: Context, path: PathParts) -> str:
    if len(path) >= 2 and path[0] in ("sources", "claims") and isinstance(path[1], int):
        records = ctx.sources if path[0] == "sources" else ctx.claims
        record = records[path[1]] if path[1] < len(records) else None
        kind = "source" if path[0] == "sources" else "claim"
        rid = record.get("id") if isinstance(record, dict) else None
        return f"{kind} {rid}" if is_valid_id(rid) else f"{kind} #{path[1]}"
    return "claim_evidence"
