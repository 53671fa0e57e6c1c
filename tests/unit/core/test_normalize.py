"""``normalized_text`` splits at ``str.isspace`` runs: the same string as the ``\\s+`` substitution it
replaced, since the two sets of whitespace are one set (checked here over every code point)."""

from __future__ import annotations

import re
import sys

from hypothesis import example, given
from hypothesis import strategies as st

from claim_evidence._core.normalize import normalized_text

SUBSTITUTED = re.compile(r"\s+")
WHITESPACE = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())


def reference(value: object) -> str:
    """The definition (SCHEMA.md "Fingerprints"): every run of whitespace one space, the ends stripped."""
    return SUBSTITUTED.sub(" ", str(value or "")).strip()


def test_normalize_regex_whitespace_is_str_isspace_over_every_code_point() -> None:
    matched = "".join(chr(c) for c in range(sys.maxunicode + 1) if SUBSTITUTED.fullmatch(chr(c)))
    assert matched == WHITESPACE and "\u3000" in WHITESPACE and "\x1c" in WHITESPACE


@given(st.text(alphabet=st.one_of(st.sampled_from(WHITESPACE), st.characters()), max_size=60))
@example("  a\u3000\u3000b \n")
@example("\x1c\x1d\x1e\x1fa\x85b\u2028c\u2029")
@example("\u200bzero width is no space\ufeff")
def test_normalize_normalized_text_is_the_substitution(text: str) -> None:
    assert normalized_text(text) == reference(text)


def test_normalize_non_text_values_as_before() -> None:
    for value in (None, "", 0, 12, 1.5, False, True, ["a  b"]):
        assert normalized_text(value) == reference(value)
