"""The JSON Schema of bundle v1, loaded from the installed package: jsonschema's validator for the
findings, the same schema compiled into a fast conformance check for the common, valid case, and
the words of a finding on a field (its phrase, what the field must be, what was found), derived
from the field's schema node."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core.dates import is_valid_date
from .._core.diagnostics import PathParts
from .._core.hints import closest, date_hint, found, json_type

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_FILE = "bundle-v1.schema.json"


def schemas_folder() -> Traversable:
    """The installed ``claim_evidence.schemas`` data, or ``schemas/`` of a source
    checkout imported straight from ``sys.path`` (no install, no package mapping)."""
    try:
        return resources.files("claim_evidence.schemas")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "schemas"


def schema_text() -> str:
    return schemas_folder().joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@cache
def bundle_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_text())
    return schema


# Our own format rules: jsonschema ignores "format" unless asked, and its date rule
# has varied across versions. These are the contract (SCHEMA.md, "Dates"); any other
# format is not asserted.
FORMATS: dict[str, Callable[[Any], bool]] = {"date": lambda value: not isinstance(value, str) or is_valid_date(value)}


@cache
def bundle_validator() -> Draft202012Validator:
    # Imported here: valid bundles never need jsonschema (see the compiled check below), and
    # importing it is a quarter of a one-page check's start-up.
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())
    for name, rule in FORMATS.items():
        checker.checks(name)(rule)
    return Draft202012Validator(bundle_schema(), format_checker=checker)


@cache
def known_keys(definition: str | None) -> frozenset[str]:
    """Property names the schema declares for the bundle (None) or a ``$defs`` entry."""
    schema = bundle_schema()
    node = schema if definition is None else schema["$defs"][definition]
    return frozenset(node.get("properties", {}))


def property_node(definition: str, name: str) -> dict[str, Any]:
    """The schema of property ``name`` of the ``$defs`` entry ``definition`` (its x-code, x-message and
    rules), for the Python rules that report on the same field as the schema."""
    node: dict[str, Any] = bundle_schema()["$defs"][definition]["properties"][name]
    return node


# --- what a schema node accepts, in words, and a finding's message on it ------------------
#
# A finding names what the field must be; the words are derived from the schema node that
# failed (the Python rules on the same field ask the same node), so the message and the rule
# cannot drift apart. Each pattern of the schema has its
# words here (tests/unit/core/test_validation_messages.py holds every pattern of the schema to it).

ID_RULE = "an ASCII letter, then up to 99 ASCII letters, digits, '_' or '-'"
URL_WORDS = "a direct http:// or https:// URL with a host (no credentials, whitespace, control characters or backslash; a valid port)"
PATTERN_WORDS: dict[str, str] = {
    "^[A-Za-z][A-Za-z0-9_-]{0,99}$": f"an id: {ID_RULE}",
    "^[0-9a-f]{64}$": "64 lowercase hex digits (a SHA-256)",
    "^[Hh][Tt][Tt][Pp][Ss]?://": URL_WORDS,
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": "an existing date as YYYY-MM-DD",
    "\\S": "a non-blank string",
    "^[^\\s,]+$": "a principal of allowed_signers (no spaces or commas)",
    "^-----BEGIN SSH SIGNATURE-----\\n[A-Za-z0-9+/=\\n]+-----END SSH SIGNATURE-----\\n?$": "an armored SSH signature",
}
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_]+")
_JSON_TYPES = {"integer": "number"}  # the JSON type a schema type name accepts values of


def is_url_node(node: dict[str, Any]) -> bool:
    """A field holding a URL: its value is never echoed in a message (it may carry credentials)."""
    return node.get("pattern") == "^[Hh][Tt][Tt][Pp][Ss]?://"


def accepted_types(node: dict[str, Any]) -> frozenset[str]:
    """The JSON types of the values ``node`` can accept (empty: the node says nothing about types)."""
    if "enum" in node and isinstance(node["enum"], list):
        return frozenset(json_type(v) for v in node["enum"])
    if "const" in node:
        return frozenset({json_type(node["const"])})
    names = node.get("type", [])
    return frozenset(_JSON_TYPES.get(n, n) for n in ([names] if isinstance(names, str) else names))


def allowed(node: dict[str, Any]) -> str:
    """What ``node`` accepts, as a message says it: ``one of matched, partial, …``, ``1``,
    ``an existing date as YYYY-MM-DD, or null``, ``a non-empty array of claim objects``."""
    if isinstance(node.get("enum"), list):
        values = node["enum"]
        plain = all(isinstance(v, str) and _PLAIN_WORD.fullmatch(v) for v in values)
        return "one of " + ", ".join(v if plain else repr(v) if isinstance(v, str) else json.dumps(v) for v in values)
    if "const" in node:
        return json.dumps(node["const"], ensure_ascii=False)
    names = node.get("type", [])
    names = [names] if isinstance(names, str) else list(names)
    words = " or ".join(_type_words(n, node) for n in names if n != "null") or "a value"
    return words + ", or null" if "null" in names else words


def _type_words(name: str, node: dict[str, Any]) -> str:
    if name == "string":
        if node.get("format") == "date":
            return "an existing date as YYYY-MM-DD"
        pattern = node.get("pattern")
        if isinstance(pattern, str) and pattern != "\\S":
            return PATTERN_WORDS.get(pattern, f"a string matching {pattern}")
        blank_ok = node.get("minLength", 0) < 1 and pattern is None
        words = "a string" if blank_ok else "a non-blank string"
        return words + (f" of at most {node['maxLength']} characters" if "maxLength" in node else "")
    if name == "array":
        items = node.get("items", {})
        ref = items.get("$ref") if isinstance(items, dict) else None
        if isinstance(ref, str):
            what = f"{ref.rsplit('/', 1)[-1]} objects"
        elif isinstance(items, dict) and items.get("type") == "string":
            what = _type_words("string", items).split(" ", 1)[1] + "s"  # "a non-blank string" -> "non-blank strings"
        else:
            what = "values"
        return ("a non-empty array of " if node.get("minItems", 0) >= 1 else "an array of ") + what
    return {"object": "an object", "number": "a number", "integer": "a whole number", "boolean": "true or false"}.get(
        name, f"a {name}"
    )


class _Missing:
    """The value of a key that is not there (``None`` would read as JSON ``null``)."""


MISSING: Any = _Missing()


def field_message(
    node: dict[str, Any], path: PathParts, value: Any, validator: str = "", *, expected: str | None = None
) -> str:
    """``PHRASE: FIELD must be ALLOWED (found VALUE; did you mean X?)``: the contract's phrase first
    (callers that match it keep working), then what to type. A phrase that already says what the
    field must be (``label must be a string``) gets only the parenthesis, before its shape when it
    shows one (``quote must be an object (found 7): {"exact": …}``). ``expected`` overrides what the
    schema node says it accepts, for a rule that asks more of the field (a review's date)."""
    phrase = str(node.get("x-message", ""))
    if value is MISSING:
        seen: str | None = "the key is missing"
    elif validator == "maxLength" and isinstance(value, str):
        seen = f"found {len(value)} characters"
    elif is_url_node(node) and isinstance(value, str):
        seen = None  # a URL is not echoed: it may carry credentials
    else:
        seen = "found " + found(value, accepted_types(node))
    inside = "; ".join(part for part in (seen, None if value is MISSING else _hint(node, value)) if part)
    detail = f" ({inside})" if inside else ""
    if " must be " in phrase:
        head, colon, shape = phrase.partition(": ")
        return f"{head}{detail}{colon}{shape}"
    return f"{phrase}: {_field_name(path)} must be {expected or allowed(node)}{detail}"


def _hint(node: dict[str, Any], value: Any) -> str | None:
    """A did-you-mean for a word of a vocabulary or a date written another way."""
    if isinstance(node.get("enum"), list) and isinstance(value, str):
        close = closest(value, [v for v in node["enum"] if isinstance(v, str)])
        return f"did you mean {close!r}?" if close is not None else None
    if node.get("format") == "date":
        return date_hint(value)
    return None


def _field_name(path: PathParts) -> str:
    """How a message names the field at ``path``: its key, or ``conditions[1]`` for an item."""
    if not path:
        return "the bundle"
    last = path[-1]
    if isinstance(last, str):
        return last
    parent = next((p for p in reversed(path[:-1]) if isinstance(p, str)), "")
    return f"{parent}[{last}]"


# --- a compiled conformance check --------------------------------------------------
#
# jsonschema walks the schema for every instance and builds an error object per
# finding: about 2 ms for a ten-claim bundle, most of a page check. Nearly every
# bundle a site checks is valid, so the schema is also compiled into closures
# that only answer "does it conform?". They are used as a filter: True means
# jsonschema would report nothing; False (or a keyword this compiler does not
# know) means "ask jsonschema", which then names every finding. The filter can
# make validation slower, never different; tests/unit/record/test_schema.py compares the two
# on random bundles. "Does not apply" guards use isinstance, as jsonschema does;
# "type" and "enum" accept exact JSON types only (a subclass is left to jsonschema).

Check = Callable[[Any], bool]
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default", "x-code", "x-message"}
)
_TYPES: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "number": lambda v: type(v) is int or type(v) is float,
    "integer": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
}


def _never(value: Any) -> bool:
    return False


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}
        self.deferred: list[str] = []  # keywords (or forms) left to jsonschema

    def ref(self, target: str) -> Check:
        """A ``#/$defs/name`` reference, compiled once (recursion-safe through a late-bound cell)."""
        if target not in self.refs:
            if not target.startswith("#/$defs/") or target[8:] not in self.root.get("$defs", {}):
                self.deferred.append(f"$ref {target}")
                return _never
            cell: list[Check] = [_never]
            self.refs[target] = lambda v: cell[0](v)  # what a recursive reference sees
            cell[0] = self.refs[target] = self.node(self.root["$defs"][target[8:]])
        return self.refs[target]

    def node(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if not isinstance(schema, dict):
            return _never
        fused = self.fused(schema)
        if fused is not None:
            return fused
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS:
                continue
            check = self.keyword(keyword, value, schema)
            if check is None:
                self.deferred.append(keyword)
                return _never  # a keyword this compiler does not know: let jsonschema decide
            checks.append(check)
        if not checks:
            return lambda v: True
        return checks[0] if len(checks) == 1 else _all_of(checks)

    def fused(self, schema: dict[str, Any]) -> Check | None:
        """One closure for a node of one type (or that type or null) whose every keyword is about values
        of that type, the shape of nearly every node of the bundle schema; None for any other node, and
        for a keyword value :meth:`keyword` would not compile (the generic path then defers it).

        The same answers as the keywords' closures joined by :func:`_all_of` (they are pure, so their
        order cannot matter), in half the calls: the check runs on every node of every bundle."""
        names = schema.get("type")
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None
        kinds = set(names) - {"null"}
        nullable = "null" in names
        keywords = set(schema) - _ANNOTATIONS
        if len(kinds) != 1 or len(names) != 1 + nullable:
            return None
        kind = kinds.pop()
        if kind == "string" and keywords <= _STRING_KEYWORDS:
            low, high = schema.get("minLength", 0), schema.get("maxLength")
            pattern, form = schema.get("pattern"), schema.get("format")
            if type(low) is not int or not (high is None or type(high) is int):
                return None
            if not (pattern is None or isinstance(pattern, str)) or not (form is None or isinstance(form, str)):
                return None
            search = None if pattern is None else re.compile(pattern).search
            return _string(nullable, low, high, search, None if form is None else FORMATS.get(form))
        if kind == "object" and keywords <= _OBJECT_KEYWORDS:
            required, props = schema.get("required", []), schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            if not isinstance(required, list) or not isinstance(props, dict):
                return None
            if "additionalProperties" in schema and extra is not False:
                return None  # only ``false`` is a form :meth:`keyword` compiles
            checks = {name: self.node(sub) for name, sub in props.items()}
            return _object(nullable, required, None if extra is True else frozenset(props), checks)
        if kind == "array" and keywords <= _ARRAY_KEYWORDS:
            low, items = schema.get("minItems", 0), schema.get("items")
            if type(low) is not int or isinstance(items, list):
                return None
            return _array(nullable, low, None if "items" not in schema else self.node(items))
        return None

    def keyword(self, keyword: str, value: Any, schema: dict[str, Any]) -> Check | None:
        if keyword == "type":
            names = [value] if isinstance(value, str) else value
            if not isinstance(names, list) or any(n not in _TYPES for n in names):
                return None
            tests = [_TYPES[n] for n in names]
            return tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))
        if keyword == "properties" and isinstance(value, dict):
            return _properties({name: self.node(sub) for name, sub in value.items()})
        if keyword == "required" and isinstance(value, list):
            return _required(value)
        if keyword == "items" and not isinstance(value, list):
            return _items(self.node(value))
        if keyword == "minItems" and type(value) is int:
            return lambda v: not isinstance(v, list) or len(v) >= value
        if keyword == "minLength" and type(value) is int:
            return lambda v: not isinstance(v, str) or len(v) >= value
        if keyword == "maxLength" and type(value) is int:
            return lambda v: not isinstance(v, str) or len(v) <= value
        if keyword == "additionalProperties" and value is False:
            allowed = frozenset(schema.get("properties", {}))
            return lambda v: not isinstance(v, dict) or all(key in allowed for key in v)
        if keyword == "pattern" and isinstance(value, str):
            search = re.compile(value).search
            return lambda v: not isinstance(v, str) or search(v) is not None
        if keyword == "format" and isinstance(value, str):
            rule = FORMATS.get(value)
            return (lambda v: rule(v)) if rule is not None else (lambda v: True)
        if keyword == "$ref" and isinstance(value, str):
            return self.ref(value)
        if keyword in ("enum", "const"):
            options = value if keyword == "enum" else [value]
            # Strings and plain numbers only: jsonschema's equality keeps 1, 1.0 and True apart this way too.
            if not isinstance(options, list) or any(type(o) not in (str, int) for o in options):
                return None
            strings = frozenset(o for o in options if type(o) is str)
            numbers = [o for o in options if type(o) is int]
            return lambda v: (
                (type(v) is str and v in strings)
                or ((type(v) is int or type(v) is float) and any(v == n for n in numbers))
            )
        return None


# Plain loops, not all() over generators: these run for every node of every bundle.
def _all_of(checks: list[Check]) -> Check:
    def check(v: Any) -> bool:
        for one in checks:
            if not one(v):
                return False
        return True

    return check


def _properties(props: dict[str, Check]) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, dict):
            for key, value in v.items():
                one = props.get(key)
                if one is not None and not one(value):
                    return False
        return True

    return check


def _required(names: list[str]) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, dict):
            for name in names:
                if name not in v:
                    return False
        return True

    return check


def _items(item: Check) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, list):
            for value in v:
                if not item(value):
                    return False
        return True

    return check


_STRING_KEYWORDS = frozenset({"type", "minLength", "maxLength", "pattern", "format"})
_OBJECT_KEYWORDS = frozenset({"type", "required", "properties", "additionalProperties"})
_ARRAY_KEYWORDS = frozenset({"type", "items", "minItems"})


def _string(
    nullable: bool, low: int, high: int | None, search: Callable[[str], Any] | None, rule: Check | None
) -> Check:
    def check(v: Any) -> bool:
        if type(v) is str:
            return (
                len(v) >= low
                and (high is None or len(v) <= high)
                and (search is None or search(v) is not None)
                and (rule is None or rule(v))
            )
        return nullable and v is None

    return check


def _object(nullable: bool, required: list[Any], allowed: frozenset[str] | None, props: dict[str, Check]) -> Check:
    def check(v: Any) -> bool:
        if type(v) is dict:
            for name in required:
                if name not in v:
                    return False
            for key, value in v.items():
                if allowed is not None and key not in allowed:
                    return False
                one = props.get(key)
                if one is not None and not one(value):
                    return False
            return True
        return nullable and v is None

    return check


def _array(nullable: bool, low: int, item: Check | None) -> Check:
    def check(v: Any) -> bool:
        if type(v) is list:
            if len(v) < low:
                return False
            if item is not None:
                for value in v:
                    if not item(value):
                        return False
            return True
        return nullable and v is None

    return check


def compile_conformance(schema: dict[str, Any]) -> Check:
    """A predicate that is True only when ``schema`` (a subset of draft 2020-12) accepts the value."""
    return _Compiler(schema).node(schema)


def deferred_keywords(schema: dict[str, Any]) -> list[str]:
    """Keywords of ``schema`` the compiled check cannot decide (its subschemas then always defer)."""
    compiler = _Compiler(schema)
    compiler.node(schema)
    return compiler.deferred


@cache
def _bundle_conforms() -> Check:
    return compile_conformance(bundle_schema())


def bundle_conforms(bundle: Any) -> bool:
    """True when the bundle schema accepts ``bundle``, for sure; False means "ask jsonschema"."""
    return _bundle_conforms()(bundle)
