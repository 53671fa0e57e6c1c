"""The JSON Schema of bundle v1, loaded from the installed package and compiled once."""
from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from ._vocabulary import is_valid_date

SCHEMA_FILE = "bundle-v1.schema.json"


def schemas_folder() -> Traversable:
    """The installed ``claim_evidence.schemas`` data, or ``schemas/`` of a source
    checkout imported straight from ``sys.path`` (no install, no package mapping)."""
    try:
        return resources.files("claim_evidence.schemas")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "schemas"


def schema_text() -> str:
    return schemas_folder().joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@cache
def bundle_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_text())
    return schema


# Our own checker: jsonschema ignores "format" unless asked, and its date rule
# has varied across versions. This one is the contract (SCHEMA.md, "Dates").
_FORMATS = FormatChecker(formats=())
_FORMATS.checks("date")(lambda value: not isinstance(value, str) or is_valid_date(value))


@cache
def bundle_validator() -> Draft202012Validator:
    return Draft202012Validator(bundle_schema(), format_checker=_FORMATS)


def known_keys(definition: str | None) -> frozenset[str]:
    """Property names the schema declares for the bundle (None) or a ``$defs`` entry."""
    schema = bundle_schema()
    node = schema if definition is None else schema["$defs"][definition]
    return frozenset(node.get("properties", {}))
