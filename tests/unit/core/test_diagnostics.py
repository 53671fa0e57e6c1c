"""Placing findings in a text (``claim_evidence/_core/diagnostics.py``): lines end at CRLF, CR or LF."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claim_evidence._core.diagnostics import line_breaks, line_column, line_starts

_TEXT = st.text(alphabet="ab\r\n", max_size=40)


@given(_TEXT, st.integers(0, 45), st.integers(0, 45))
def test_line_breaks_counts_what_line_starts_finds(text: str, start: int, end: int) -> None:
    start, end = min(start, end, len(text)), min(max(start, end), len(text))
    if text[start - 1 : start + 1] == "\r\n" or text[end - 1 : end + 1] == "\r\n":
        return  # (a span that splits a CRLF: none of a page's slots does, both ends being at tags)
    assert line_breaks(text, start, end) == len(line_starts(text[start:end]))
    assert line_breaks(text) == len(line_starts(text))


def test_line_column_counts_crlf_once() -> None:
    text = "a\r\nb\rc\nd"
    starts = line_starts(text)
    assert [line_column(starts, text.index(c)) for c in "abcd"] == [(1, 1), (2, 1), (3, 1), (4, 1)]
    assert line_breaks(text) == 3
