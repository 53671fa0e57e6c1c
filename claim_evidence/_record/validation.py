"""Validation of bundle v1: the schema for structure, small Python rules for the rest.

One generator (:func:`iter_diagnostics`) underneath; the list, raise and
is-pending forms are thin wrappers. Each semantic rule is a generator
registered under its code; the record's name (``claim X``) and the JSON path
are filled in centrally by :func:`_finish`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, EvidenceValidationError, PathParts, Severity, json_path
from .._core.hints import closest, found, shown
from .._core.jsonio import MAX_DEPTH, hostile_value, nesting_depth
from .._core.memo import Memo, content_key
from .._core.urls import safe_http_url
from .fingerprint import article_fingerprint, claim_fingerprint, matches_with_numbers_rewritten
from .numerals import Number, find_numbers
from .policy import DEFAULT_POLICY, Policy
from .schema import ID_RULE, MISSING, bundle_conforms, bundle_validator, field_message, known_keys, property_node
from .vocabulary import FINGERPRINT_RE, SUPPORTING_STATUSES, VERIFIED_STATUSES, is_valid_id, str_or_none

if TYPE_CHECKING:
    from jsonschema import ValidationError

# (code, path parts, message, severity) as yielded by rules before _finish.
Finding = tuple[str, PathParts, str, Severity]


@dataclass
class _Context:
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


Rule = Callable[[_Context], Iterator[Finding]]
RULES: dict[str, Rule] = {}


def rule(code: str) -> Callable[[Rule], Rule]:
    def register(function: Rule) -> Rule:
        RULES[code] = function
        return function

    return register


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
    if nesting_depth(bundle) > MAX_DEPTH:
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
    """:func:`iter_diagnostics` for an object ``_jsonio.loads`` produced, which has kept the depth
    limit: no depth walk and no memo (a page check memoizes by the JSON text instead). The findings
    are the contract's; a caller applies its site's :class:`Policy` to them."""
    context = _Context(bundle, subject)
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


# --- rules a schema cannot express ------------------------------------------------


@rule("CE201")
def _source_ids(ctx: _Context) -> Iterator[Finding]:
    yield from _unique_ids(ctx.source_dicts(), "sources", "CE201")


@rule("CE204")
def _source_urls(ctx: _Context) -> Iterator[Finding]:
    node = property_node("source", "url")
    for i, source in ctx.source_dicts():
        if isinstance(source.get("url"), str) and not safe_http_url(source["url"]):
            yield "CE204", ("sources", i, "url"), field_message(node, ("sources", i, "url"), source["url"]), "error"


@rule("CE207")
def _archive_and_snapshot_urls(ctx: _Context) -> Iterator[Finding]:
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


@rule("CE301")
def _claim_ids(ctx: _Context) -> Iterator[Finding]:
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


@rule("CE309")
def _references_exist(ctx: _Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        for j, ref in _refs(claim):
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


@rule("CE311")
def _stated_verification(ctx: _Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        if str_or_none(claim.get("status")) in VERIFIED_STATUSES and (
            not _refs(claim) or not isinstance(claim.get("verification"), dict)
        ):
            yield "CE311", ("claims", i), "stated verification requires sources and a review record", "error"


@rule("CE401")
def _checked_at(ctx: _Context) -> Iterator[Finding]:
    node = property_node("verification", "checked_at")
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        status = str_or_none(claim.get("status"))
        if isinstance(verification, dict) and status in VERIFIED_STATUSES:
            if not is_valid_date(verification.get("checked_at")):
                path = ("claims", i, "verification", "checked_at")
                # Not "or null", as the schema alone would say: the status asserts that a review took place.
                expected = f"an existing date as YYYY-MM-DD for a {status} claim"
                yield (
                    "CE401",
                    path,
                    field_message(node, path, verification.get("checked_at", MISSING), expected=expected),
                    "error",
                )


@rule("CE407")
def _review_by_after_check(ctx: _Context) -> Iterator[Finding]:
    """A review_by on or before the review's own date makes the claim expired the moment it is sealed."""
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        if not isinstance(verification, dict):
            continue
        checked_at, review_by = verification.get("checked_at"), verification.get("review_by")
        if is_valid_date(checked_at) and is_valid_date(review_by) and str(review_by) <= str(checked_at):
            yield (
                "CE407",
                ("claims", i, "verification", "review_by"),
                review_by_not_after(str(review_by), str(checked_at)),
                "error",
            )


def review_by_not_after(
    review_by: str, checked_at: str, names: tuple[str, str] = ("review_by", "checked_at"), fix: str = ""
) -> str:
    """CE407's message; ``names`` are how the caller calls the two dates (``--review-by`` for ``review record``)."""
    fix = fix or f"set {names[0]} to a date after {checked_at}, or remove it"
    return (
        f"{names[0]} {review_by} is not after {names[1]} {checked_at}: a review due on or before the day it was made "
        f"would show the claim as expired at once; {fix}"
    )


@rule("CE403")
def _fingerprint(ctx: _Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        if isinstance(verification, dict) and verification.get("fingerprint") != claim_fingerprint(claim, ctx.sources):
            message = "review fingerprint does not match current statement/conditions/sources"
            recorded = verification.get("fingerprint")
            if isinstance(recorded, str) and matches_with_numbers_rewritten(claim, ctx.sources, recorded):
                message += (
                    ", but only because JSON numbers were rewritten (12.0 written as 12, or the reverse): a build tool "
                    "reformatted the bundle (hugo --minify, jsonify); keep the bundle script's JSON as it was written"
                )
            yield "CE403", ("claims", i, "verification", "fingerprint"), message, "error"


@rule("CE312")
def _operator_measurement(ctx: _Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        if claim.get("basis") != "operator_measurement":
            continue
        measurement = claim.get("measurement")
        complete = (
            isinstance(measurement, dict)
            and all(isinstance(measurement.get(k), str) and measurement[k].strip() for k in ("environment", "method"))
            and safe_http_url(measurement.get("results_url"))
        )
        if not complete:
            message = "operator measurement requires environment, method and results URL"
            yield "CE312", ("claims", i, "measurement"), message, "error"


@rule("CE105")
def _subject(ctx: _Context) -> Iterator[Finding]:
    recorded = ctx.bundle.get("subject_fingerprint")
    if ctx.subject is None:
        return
    if recorded is None:
        yield "CE105", ("subject_fingerprint",), "article metadata requires a reviewed subject fingerprint", "error"
    elif (
        isinstance(recorded, str)
        and FINGERPRINT_RE.fullmatch(recorded)
        and recorded != article_fingerprint(ctx.subject)
    ):
        yield "CE106", ("subject_fingerprint",), "article text differs from the reviewed subject", "error"


@rule("CE900")
def _unknown_keys(ctx: _Context) -> Iterator[Finding]:
    """Typos such as ``uncertanity`` would otherwise drop data silently."""
    yield from _unknown(ctx.bundle, (), None)
    for i, source in ctx.source_dicts():
        yield from _unknown(source, ("sources", i), "source")
    for i, claim in ctx.claim_dicts():
        yield from _unknown(claim, ("claims", i), "claim")
        for j, ref in _refs(claim):
            if isinstance(ref, dict):
                yield from _unknown(ref, ("claims", i, "source_refs", j), "source_ref")
        if isinstance(claim.get("verification"), dict):
            yield from _unknown(claim["verification"], ("claims", i, "verification"), "verification")


@rule("CE902")
def _uncited_sources(ctx: _Context) -> Iterator[Finding]:
    cited = {
        str_or_none(ref.get("source_id"))
        for _, claim in ctx.claim_dicts()
        for _, ref in _refs(claim)
        if isinstance(ref, dict)
    }
    for sid, index in ctx.source_ids.items():
        if sid not in cited:
            yield "CE902", ("sources", index), f"source {sid!r} is not cited by any claim", "warning"


@rule("CE903")
def _published_after_check(ctx: _Context) -> Iterator[Finding]:
    for i, claim in ctx.claim_dicts():
        verification = claim.get("verification")
        checked_at = verification.get("checked_at") if isinstance(verification, dict) else None
        if not is_valid_date(checked_at):
            continue
        for j, ref in _refs(claim):
            sid = ref.get("source_id") if isinstance(ref, dict) else None
            index = ctx.source_ids.get(sid) if isinstance(sid, str) else None
            published = ctx.sources[index].get("published_at") if index is not None else None
            if isinstance(published, str) and is_valid_date(published) and published > str(checked_at):
                message = f"source published {published}, after the review on {checked_at}: was it really read?"
                yield "CE903", ("claims", i, "source_refs", j), message, "warning"


@rule("CE317")
def _numbers_quoted(ctx: _Context) -> Iterator[Finding]:
    """Every figure of a supported statement must be in a quoted passage, by value.

    This is the check a seal cannot make: a record can be reviewed, sealed and
    still say 300億 where its source said 30億. Quantities (amounts, percentages,
    multiples, anything with 万/億/兆) missing from the quotes are errors (CE317);
    other numbers (dates, counts, versions) are warnings (CE904); a statement
    with numbers and no quote at all cannot be checked (CE905, an error only
    under :class:`Policy` ``require_quotes``, applied by the caller).
    """
    for i, claim in ctx.claim_dicts():
        statement = claim.get("statement")
        if str_or_none(claim.get("status")) not in SUPPORTING_STATUSES or not isinstance(statement, str):
            continue
        numbers = _distinct(find_numbers(statement))
        if not numbers:
            continue
        passages, malformed = _quoted_passages(claim)
        if not passages:
            if not malformed:  # a malformed quote is CE316 already
                yield (
                    "CE905",
                    ("claims", i, "source_refs"),
                    _UNQUOTED + ", ".join(_shown(n) for n in numbers),
                    "warning",
                )
            continue
        quoted = _distinct([n for passage in passages for n in find_numbers(passage)])
        found = {n.value for n in quoted}
        missing = [n for n in numbers if n.value not in found]
        amounts = [n for n in missing if n.quantity]
        others = [n for n in missing if not n.quantity]
        if amounts:
            yield (
                "CE317",
                ("claims", i, "statement"),
                _not_quoted(amounts, [n for n in quoted if n.quantity] or quoted),
                "error",
            )
        if others:
            yield "CE904", ("claims", i, "statement"), _not_quoted(others, quoted), "warning"


_UNQUOTED = "statement has numbers but no quoted passage to check them against (add quote.exact to a source_ref): "
_LISTED = 6  # quoted numbers named in a message; a long passage would bury the point


def _quoted_passages(claim: dict[str, Any]) -> tuple[list[str], bool]:
    """The ``exact`` passages of the claim's quotes, and whether any quote is malformed."""
    passages: list[str] = []
    malformed = False
    for _, ref in _refs(claim):
        quote = ref.get("quote") if isinstance(ref, dict) else None
        if quote is None:
            continue
        exact = quote.get("exact") if isinstance(quote, dict) else None
        if isinstance(exact, str) and exact.strip():
            passages.append(exact)
        else:
            malformed = True
    return passages, malformed


def _distinct(numbers: Iterable[Number]) -> list[Number]:
    seen: set[str] = set()
    kept = []
    for number in numbers:
        if number.value not in seen:
            seen.add(number.value)
            kept.append(number)
    return kept


def _shown(number: Number) -> str:
    """``300億 (30000000000)``: as written, and the value compared when it reads differently."""
    return number.text if number.text == number.value else f"{number.text} ({number.value})"


def _not_quoted(missing: list[Number], quoted: list[Number]) -> str:
    which = "that value" if len(missing) == 1 else "those values"
    has = ", ".join(_shown(n) for n in missing)
    listed = ", ".join(_shown(n) for n in quoted[:_LISTED]) + (", …" if len(quoted) > _LISTED else "")
    return f"statement has {has} but no quoted passage has {which}; " + (
        f"quotes have {listed}" if quoted else "the quotes have no numbers"
    )


def _refs(claim: dict[str, Any]) -> list[tuple[int, Any]]:
    refs = claim.get("source_refs")
    return list(enumerate(refs)) if isinstance(refs, list) else []


def _unknown(record: dict[str, Any], at: PathParts, definition: str | None) -> Iterator[Finding]:
    known = known_keys(definition)
    for key in record:
        if key not in known:
            close = closest(key, sorted(known))
            hint = f"; did you mean {close!r}?" if close else ""
            yield "CE900", (*at, key), f"unknown key {shown(key)}{hint}", "warning"


# --- central finishing: dedupe, order, name the record ---------------------------


def _finish(ctx: _Context, findings: list[Finding]) -> Iterator[Diagnostic]:
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


def _subject_name(ctx: _Context, path: PathParts) -> str:
    if len(path) >= 2 and path[0] in ("sources", "claims") and isinstance(path[1], int):
        records = ctx.sources if path[0] == "sources" else ctx.claims
        record = records[path[1]] if path[1] < len(records) else None
        kind = "source" if path[0] == "sources" else "claim"
        rid = record.get("id") if isinstance(record, dict) else None
        return f"{kind} {rid}" if is_valid_id(rid) else f"{kind} #{path[1]}"
    return "claim_evidence"
