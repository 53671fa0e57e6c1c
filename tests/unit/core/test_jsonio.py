from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claim_evidence import InputError
from claim_evidence._core.jsonio import dumps_for_script, loads, nesting_depth, text_depth

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
