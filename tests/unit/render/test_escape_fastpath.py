"""The escaping filters' shortcut for plain ``str`` (``type(value) is str``) gives exactly what their
general path gives: a ``str`` subclass takes the general path, so each filter is compared with itself."""

from __future__ import annotations

import markupsafe
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._render.evidence import _escape_like_legacy, _escape_output, isolate


class _Text(str):
    """A ``str`` that is not exactly ``str``: the filters' general path."""


# Markup characters, right-to-left letters and digits, bidi controls, Japanese, ASCII.
_ALPHABET = "&<>\"'=/ abcアイ語日本\u05d0\u05d1\u0627\u0661\u202a\u202b\u202e\u2066\u2067\u2069\u200f0123"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30))
def test_each_filter_answers_a_plain_str_as_its_general_path_does(text: str) -> None:
    for escape in (isolate, _escape_like_legacy, _escape_output):
        fast, general = escape(text), escape(_Text(text))
        assert str(fast) == str(general), escape.__name__
        assert isinstance(fast, markupsafe.Markup) == isinstance(general, markupsafe.Markup), escape.__name__
