"""The escaping filters against a reference written here from the standard library alone: ``html.escape``
for the entities, and ``unicodedata.bidirectional`` over every character for the ``<bdi>`` rule (the
filters answer that with a regex of code-point ranges first). Plain ``str``, a ``str`` subclass and
``Markup`` each take their own branch of a filter, so all three are compared."""

from __future__ import annotations

import html
import unicodedata

import markupsafe
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._render.templating import _escape_like_legacy, _escape_output, isolate

# UAX #9: strong right-to-left letters, Arabic digits, the explicit embeddings, overrides and isolates.
_REORDERING = {"R", "AL", "AN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}


class _Text(str):
    """A ``str`` that is not exactly ``str``."""


def _reference_isolate(text: str) -> markupsafe.Markup:
    escaped = markupsafe.Markup(html.escape(text))
    if any(unicodedata.bidirectional(ch) in _REORDERING for ch in text):
        return markupsafe.Markup("<bdi>") + escaped + markupsafe.Markup("</bdi>")
    return escaped


# Markup characters, right-to-left letters and digits, bidi controls, Japanese, ASCII; then any text.
_ALPHABET = "&<>\"'=/ abcアイ語日本\u05d0\u05d1\u0627\u0661\u202a\u202b\u202e\u2066\u2067\u2069\u200f0123"
_TEXT = st.text(alphabet=_ALPHABET, max_size=120) | st.text(max_size=120)


@settings(max_examples=600, deadline=None)
@given(_TEXT)
def test_escape_fastpath_text_escaped_as_html_escape_and_isolated_by_bidi_class(text: str) -> None:
    for value in (text, _Text(text)):
        for got, want in (
            (isolate(value), _reference_isolate(text)),
            (_escape_like_legacy(value), markupsafe.Markup(html.escape(text))),
        ):
            assert type(got) is markupsafe.Markup
            assert str(got) == str(want)
        output = _escape_output(value)
        assert not isinstance(output, markupsafe.Markup)  # finalize's output is printed as it is
        assert str(output) == html.escape(text)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_escape_fastpath_markup_never_escaped_again_and_isolated_by_bidi_class(text: str) -> None:
    markup = markupsafe.Markup(text)
    assert _escape_like_legacy(markup) is markup
    assert _escape_output(markup) is markup
    got = isolate(markup)
    assert type(got) is markupsafe.Markup
    bidi = any(unicodedata.bidirectional(ch) in _REORDERING for ch in text)
    assert str(got) == (f"<bdi>{text}</bdi>" if bidi else text)


def test_escape_fastpath_other_values_pass_the_filters_and_finalize_prints_them_as_autoescape() -> None:
    for value in (0, 12.5, True, None, ["<a>"], {"k": "<v>"}):
        assert isolate(value) is value
        assert _escape_like_legacy(value) is value
        assert _escape_output(value) == markupsafe.escape(value)  # ``&#39;``: markupsafe's, as before
