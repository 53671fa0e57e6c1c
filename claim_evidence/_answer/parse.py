"""Reading a model's reply as exactly one JSON object, or saying precisely why not.

A model asked for JSON sometimes wraps it in a ```json fence or a sentence; that object is
still the answer, taken with a finding. Anything that leaves a doubt about *which* object is
the answer — two objects, a repeated key, an array, prose only — is refused: the guard then
gives its fixed "could not produce a checked answer" text rather than guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_MODEL_TEXT_CHARS = 20_000  # far above any answer within the limits; bounds the work on a runaway reply
_MAX_CANDIDATES = 64  # "{" positions tried when the object is embedded in text
_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


class _Repeated(ValueError):
    pass


@dataclass(frozen=True)
class Parsed:
    """The object (or None), and either why it was accepted only with a finding or why it was refused."""

    value: dict[str, Any] | None
    note: str | None = None
    error: str | None = None


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Repeated(key)
        result[key] = value
    return result


def _constant(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant)


def parse_model_json(text: Any) -> Parsed:
    """The one JSON object of ``text``: the whole text, else the only fenced block, else the only
    object with text around it (see SCHEMA.md "Answer guard", CE710 and CE711)."""
    if not isinstance(text, str):
        return Parsed(None, error=f"model output must be text (found {type(text).__name__})")
    if len(text) > MAX_MODEL_TEXT_CHARS:
        return Parsed(None, error=f"model output is {len(text)} characters, over the limit of {MAX_MODEL_TEXT_CHARS}")
    stripped = text.strip()
    try:
        whole = _loads(stripped)
    except _Repeated as exc:
        return Parsed(None, error=f"model output repeats the key {json.dumps(str(exc), ensure_ascii=False)}")
    except (ValueError, RecursionError):
        whole = _NOTHING
    if whole is not _NOTHING:
        if isinstance(whole, dict):
            return Parsed(whole)
        return Parsed(None, error=f"model output is JSON but not an object (found {_json_type(whole)})")
    fences = _FENCE.findall(stripped)
    if len(fences) == 1:
        try:
            inner = _loads(fences[0].strip())
        except (ValueError, RecursionError):
            inner = _NOTHING
        if isinstance(inner, dict):
            return Parsed(inner, note="the JSON object was inside a ``` fence; text around it was ignored")
    return _embedded(stripped)


def _embedded(text: str) -> Parsed:
    found: list[dict[str, Any]] = []
    at, tries = text.find("{"), 0
    while at != -1 and tries < _MAX_CANDIDATES:
        tries += 1
        try:
            value, end = _DECODER.raw_decode(text, at)
        except _Repeated as exc:
            return Parsed(None, error=f"model output repeats the key {json.dumps(str(exc), ensure_ascii=False)}")
        except (ValueError, RecursionError):
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = text.find("{", end)
    if len(found) == 1:
        return Parsed(found[0], note="text before or after the JSON object was ignored")
    if found:
        return Parsed(None, error=f"model output holds {len(found)} JSON objects; exactly one is expected")
    return Parsed(None, error="model output is not a JSON object")


_NOTHING: Any = object()


def _loads(text: str) -> Any:
    return _DECODER.decode(text)


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")
