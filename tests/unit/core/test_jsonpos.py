"""``offsets_of`` (every path placed by one walk of the JSON text) against ``offset_of`` (each path on its
own): the same offset for every path, on random JSON documents written in random styles, with paths that
exist, stop half way, cross a value of the wrong type or name a key written twice, and on broken text."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._core.diagnostics import json_path
from claim_evidence._core.jsonpos import offset_of, offsets_of

_KEYS = st.sampled_from(["a", "b", "claims", "0", "x y", 'q"', ""])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=25,
)
_PATH = st.lists(_KEYS | st.integers(0, 4), max_size=5).map(tuple)


def _text(value: object, indent: int | None, duplicate: bool) -> str:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    if duplicate and text.startswith("{") and len(text) > 2:
        return '{"a": [1, {"b": 2}],' + text[1:]  # (a key that may come again: the first one is pointed at)
    return text


@settings(max_examples=400, deadline=None)
@given(_JSON, st.lists(_PATH, max_size=6), st.sampled_from([None, 0, 2]), st.booleans(), st.integers(0, 40))
def test_offsets_of_as_offset_of_each_path(
    value: object, paths: list[tuple], indent: int | None, duplicate: bool, cut: int
) -> None:
    text = _text(value, indent, duplicate)
    names = [json_path(path) for path in paths] + ["$", "$.claims[0].statement", '$["odd \\u key"]']
    for candidate in (text, text[: max(0, len(text) - cut)], "  " + text + "\n"):
        assert offsets_of(candidate, names) == {name: offset_of(candidate, name) for name in names}


def test_offsets_of_a_bundle_points_at_each_claims_key() -> None:
    text = '{"version": 1, "claims": [{"id": "C-1", "statement": "x"}, {"id": "C-2", "statement": "y"}]}'
    found = offsets_of(text, ["$.claims[1].statement", "$.claims[0].id", "$.claims[2]", "$.version.x"])
    assert found == {
        "$.claims[1].statement": text.index('"statement": "y"'),
        "$.claims[0].id": text.index('"id": "C-1"'),
        "$.claims[2]": text.index('"claims"'),
        "$.version.x": text.index('"version"'),
    }


def test_offsets_of_a_key_written_twice_is_its_first() -> None:
    text = '{"a": {"b": 1}, "c": 2, "a": {"b": 3}}'
    assert offsets_of(text, ["$.a.b", "$.a"]) == {"$.a.b": text.index('"b": 1'), "$.a": 1}
    assert offset_of(text, "$.a.b") == text.index('"b": 1')
