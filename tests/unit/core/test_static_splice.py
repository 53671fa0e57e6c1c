"""Span splicing and its proof (``static_helper/_splice.py``), exact strings."""

from __future__ import annotations

import pytest

from claim_evidence._core.splice import (
    InternalError,
    moved_offset,
    new_spans,
    newline_style,
    outside_identical,
    splice,
    with_newlines,
)


@pytest.mark.parametrize(
    ("text", "newline"),
    [
        ("", "\n"),
        ("no line break", "\n"),
        ("a\nb", "\n"),
        ("\n", "\n"),
        ("\n\r", "\n"),  # the first break is LF
        ("a\nb\r\nc", "\n"),
        ("a\r\nb\nc", "\r\n"),
        ("\r\n", "\r\n"),
        ("a\rb", "\r"),
        ("\r", "\r"),
        ("\rb\nc", "\r"),  # a lone CR first, LF later
        ("a\rb\nc", "\r"),
        ("a\r\r\nb", "\r"),
    ],
)
def test_newline_style_is_that_of_the_first_line_break(text, newline):
    assert newline_style(text) == newline


def test_with_newlines_converts_only_for_other_styles():
    assert with_newlines("a\nb\n", "\n") == "a\nb\n"
    assert with_newlines("a\nb\n", "\r\n") == "a\r\nb\r\n"
    assert with_newlines("a\nb", "\r") == "a\rb"


def test_splice_applies_edits_against_original_offsets_in_any_order():
    assert splice("0123456789", [(7, 9, "X"), (0, 1, "AB"), (3, 3, "-")]) == "AB12-3456X9"


def test_splice_edit_at_start_and_end():
    assert splice("abc", [(0, 1, "X")]) == "Xbc"
    assert splice("abc", [(3, 3, "!")]) == "abc!"
    assert splice("abc", [(0, 3, "")]) == ""
    assert splice("abc", []) == "abc"


def test_splice_adjacent_edits_are_not_overlapping():
    assert splice("abcd", [(1, 2, "X"), (2, 3, "Y")]) == "aXYd"


def test_splice_overlapping_edits_raise_with_offset():
    with pytest.raises(InternalError) as caught:
        splice("abcdef", [(1, 4, "X"), (3, 5, "Y")])
    assert str(caught.value) == "internal error: overlapping edits at offset 3; nothing written"
    assert caught.value.exit_code == 2


def test_new_spans_shift_by_earlier_replacements():
    assert new_spans([(5, 7, "WXYZ"), (1, 2, "")]) == [(1, 1), (4, 8)]
    assert new_spans([]) == []


def test_moved_offset_is_where_the_character_is_after_the_splice():
    text = "0123456789"
    edits = [(6, 8, "ABCD"), (2, 4, ""), (9, 9, "+")]  # (in any order; the last inserts before "9")
    new = splice(text, edits)
    assert new == "0145ABCD8+9"
    outside = (0, 1, 4, 5, 8, 9)
    assert [new[moved_offset(o, edits)] for o in outside] == [text[o] for o in outside]
    assert [moved_offset(o, edits) for o in (*outside, 10)] == [0, 1, 2, 3, 8, 10, 11]
    assert [moved_offset(o, edits) for o in (2, 3, 6, 7)] == [2, 2, 4, 4]  # in a replaced span: its replacement's start
    assert moved_offset(5, []) == 5


def test_outside_identical_accepts_exact_splice():
    edits = [(1, 2, "XYZ"), (4, 6, "")]
    assert outside_identical("abcdefg", splice("abcdefg", edits), edits) is True
    assert outside_identical("abc", "abc", []) is True


@pytest.mark.parametrize(
    "new",
    [
        "zXYZcdg",  # the first character changed
        "aXYZcdh",  # the last character changed
        "aXYZzdg",  # between the edits
        "aXYQcdg",  # the replacement itself differs
        "aXYZcdgg",  # one character more at the end
        "aXYZcd",  # one character fewer at the end
    ],
)
def test_outside_identical_rejects_any_other_change(new):
    assert outside_identical("abcdefg", new, [(1, 2, "XYZ"), (4, 6, "")]) is False


def test_outside_identical_rejects_change_with_no_edits():
    assert outside_identical("abc", "abd", []) is False
    assert outside_identical("abc", "xbc", []) is False
