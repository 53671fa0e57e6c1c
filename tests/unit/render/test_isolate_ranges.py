"""The bidi prefilter of the ``isolate`` filter (``_render.templating._MAYBE_BIDI``) misses no character
the filter isolates for, in the running Python's Unicode data (issue 32: the filter ran a Python loop
over every character of every non-ASCII field)."""

from __future__ import annotations

import sys
import unicodedata

from claim_evidence._render import templating


def test_isolate_prefilter_covers_every_bidi_character() -> None:
    missed = [
        f"U+{cp:04X}"
        for cp in range(sys.maxunicode + 1)
        if unicodedata.bidirectional(chr(cp)) in templating._BIDI_CLASSES and not templating._MAYBE_BIDI.match(chr(cp))
    ]
    assert missed == []


def test_isolate_prefilter_answers_japanese_without_isolating() -> None:
    assert not templating._needs_isolate("生成AIの推論は、データセンターで測定した。")
    assert templating._needs_isolate("label \u202e reversed")
    assert templating._needs_isolate("עברית")
    assert templating.isolate("日本語 & <b>") == "日本語 &amp; &lt;b&gt;"
