from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claim_evidence import InputError
from claim_evidence._core.jsonio import (
    CYCLIC,
    UNICODE_CODE,
    dumps_for_script,
    hostile_value,
    loads,
    nesting_depth,
    text_depth,
)

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def test_dumps_for_script_escapes_dangerous_sequences() -> None:
    text = dumps_for_script({"s": "</script><!-- \u2028\u2029 & <b>"}, indent=None)
    assert text == '{"s": "\\u003c/script>\\u003c!-- \\u2028\\u2029 & \\u003cb>"}'
    assert "<" not in text and "\u2028" not in text


@given(_JSON)
def test_dumps_for_script_round_trips_any_json(value: object) -> None:
    text = dumps_for_script(value)
    assert "<" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == value


@given(st.text(alphabet=st.sampled_from(["<", "/", "s", "c", "r", "i", "p", "t", "!", "-", ">", "\u2028", "&", "😀"])))
def test_dumps_for_script_survives_script_end_tags(value: str) -> None:
    text = dumps_for_script([value])
    assert "</script" not in text.lower() and "<!--" not in text
    assert json.loads(text) == [value]


def test_loads_reports_line_and_column_with_offsets() -> None:
    with pytest.raises(InputError) as caught:
        loads('{\n  "a": 1,\n}', "page.html", line_offset=10)
    d = caught.value.diagnostic
    assert (d.code, d.file, d.line, d.column) == ("CE003", "page.html", 13, 1)
    assert d.message.startswith("invalid JSON: Expecting property name")


def test_loads_lists_duplicate_key_paths() -> None:
    loaded = loads('{"a": [{"k": 1, "k": 2}], "a": [{"k": 3}], "b": {"x": 1, "x": 1}}')
    assert loaded.value == {"a": [{"k": 3}], "b": {"x": 1}}
    assert sorted(loaded.duplicate_keys) == [("a",), ("b", "x")]


DEEP_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='"\\[]{}ab \u3042\n', max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(alphabet='"\\[]{}k', max_size=4), children, max_size=3)
    ),
    max_leaves=25,
)


@given(DEEP_JSON, st.sampled_from([None, 2]), st.booleans())
def test_text_depth_equals_the_depth_of_the_parsed_value(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert text_depth(text) == nesting_depth(json.loads(text))


def _depth_by_regex(text: str) -> int:
    """The computation ``text_depth`` replaced, kept as its reference: strings cut out by a pattern
    of JSON's string syntax, then the running sum of the brackets left."""
    outside = re.sub(r'"[^"\\]*+(?>(?:\\.[^"\\]*+)*)"', "", text, flags=re.DOTALL)
    steps = [1 if c in "[{" else -1 for c in outside if c in "[]{}"]
    return max(accumulate(steps), default=0)


# Strings where the byte tricks could slip: escapes next to quotes and brackets, runs of backslashes,
# adjacent strings, raw non-ASCII and lone surrogates (json accepts them raw in str input).
_TRICKY_TEXT = st.text(alphabet='"\\[]{}a\u3042\ud800\udfff\U0001f600/', max_size=8)
TRICKY_JSON = st.recursive(
    st.none() | st.integers() | _TRICKY_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_TRICKY_TEXT, children, max_size=3),
    max_leaves=30,
)


@given(TRICKY_JSON, st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_text_depth_matches_the_regex_reference_and_the_value(
    value: object, indent: int | str | None, ascii_only: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert text_depth(text) == _depth_by_regex(text) == nesting_depth(json.loads(text))


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('"]"', 0),
        (r'["\\"]', 1),  # an escaped backslash, then the string's end
        (r'["\\\\", "\"]"]', 1),  # two backslashes, then an escaped quote before a bracket
        (r'["\\\"[" ]', 1),  # three backslashes: the last escapes the quote
        ('[["]", "[["], "{"]', 2),  # a string with brackets right before another string
        ('["", "]]]]", ""]', 1),
        (r'{"\"[": ["]", {"}": []}]}', 4),
        ('[\n  "\ud800]",\n  "\u3042["\n]', 1),  # a raw lone surrogate before a bracket in the string
        ("[" * 70 + "]" * 70, 70),
        ("[" + '"[[[[", ' * 80 + "[]]", 2),
    ],
)
def test_text_depth_counts_only_brackets_outside_strings(text: str, depth: int) -> None:
    assert text_depth(text) == _depth_by_regex(text) == nesting_depth(json.loads(text)) == depth


def test_loads_reports_the_same_depth_finding_past_the_limit() -> None:
    from claim_evidence._core.jsonio import MAX_DEPTH

    deeper = '{"a": "\\"]]]]", "b": ' + "[" * (MAX_DEPTH + 2) + '"]}"' + "]" * (MAX_DEPTH + 2) + "}"
    with pytest.raises(InputError) as caught:
        loads(deeper, "x.json")
    d = caught.value.diagnostic
    assert (d.code, d.message, d.file, d.line, d.column) == (
        "CE005",
        f"JSON nested {MAX_DEPTH + 3} levels deep, over the limit of {MAX_DEPTH}",
        "x.json",
        None,
        None,
    )


def test_loads_enforces_the_depth_limit_from_the_text() -> None:
    from claim_evidence._core.jsonio import MAX_DEPTH

    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH).value is not None
    deeper = '{"a": "[[[[", "b": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    with pytest.raises(InputError, match=f"nested {MAX_DEPTH + 1} levels deep"):
        loads(deeper)
    # Brackets inside strings do not count.
    assert loads('["' + "[" * 200 + '"]').value == ["[" * 200]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_loads_counts_lines_the_same_for_every_line_ending(newline: str) -> None:
    text = newline.join(["{", '  "a": 1,', '  "b": ]', "}"])
    with pytest.raises(InputError) as caught:
        loads(text, "x.json")
    assert (caught.value.diagnostic.line, caught.value.diagnostic.column) == (3, 8)


def _shared(levels: int) -> list[Any]:
    """``[x, x]`` nested ``levels`` times: one list per level, 2**levels paths."""
    value: list[Any] = []
    for _ in range(levels):
        value = [value, value]
    return value


def test_nesting_depth_counts_a_shared_container_once_and_a_cycle_as_cyclic() -> None:
    """Values from Python: 2**60 paths through 61 lists take 61 steps; a list or dict inside itself
    (directly or further down) is CYCLIC instead of a walk that never ends."""
    assert nesting_depth(_shared(60)) == 61
    loop: dict[str, Any] = {"a": [1, {"b": None}]}
    loop["a"][1]["b"] = loop
    assert nesting_depth(loop) == CYCLIC
    listed: list[Any] = []
    listed.append(listed)
    assert nesting_depth(listed) == CYCLIC
    assert nesting_depth({"a": [[], {"b": [1]}], "c": "x"}) == 4 and nesting_depth("x") == 0


def test_hostile_value_looks_into_a_shared_or_cyclic_container_once() -> None:
    loop: dict[str, Any] = {"ok": "x"}
    loop["self"] = loop
    assert hostile_value(loop) is None
    shared = _shared(60)
    assert hostile_value(shared) is None
    shared[1].append("\ud800")  # (shared[1] is shared[0]: reported at the first path, $[0][2])
    found = hostile_value(shared)
    assert found is not None and found[0] == UNICODE_CODE and found[1] == (0, 2)
