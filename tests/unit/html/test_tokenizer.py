"""The tokenizer's own pieces that other readers reuse (``claim_evidence/_html/tokenizer.py``)."""

from __future__ import annotations

import itertools

from claim_evidence._html.tokenizer import comment_end, raw_close


def _first_end(text: str, lt: int, stop: int) -> int | None:
    """Where the HTML standard's comment states end a comment opened at ``lt``: ``<!-->`` and ``<!--->``
    at once, else at the first ``-->`` or ``--!>`` before ``stop`` (searched for as written)."""
    if text.startswith("<!-->", lt):
        return lt + 5
    if text.startswith("<!--->", lt):
        return lt + 6
    ends = [at + len(mark) for mark in ("-->", "--!>") if (at := text.find(mark, lt + 4, stop)) >= 0]
    starts = [end - 3 if text.startswith("-->", end - 3) else end - 4 for end in ends]
    return None if not ends else ends[starts.index(min(starts))]


def test_comment_end_is_the_first_end_of_every_short_comment() -> None:
    # Every comment body up to seven characters of "-", "!", ">" and "x", cut off at every point.
    for size in range(8):
        for body in itertools.product("-!>x", repeat=size):
            text = "a<!--" + "".join(body)
            for stop in range(5, len(text) + 1):
                assert comment_end(text, 1, stop) == _first_end(text, 1, stop), (text, stop)


def test_raw_close_finds_the_end_tag_that_ends_raw_text() -> None:
    text = "<style>a</styles></style ><script><!--<script></script>--></script><title>x</TITLE>"
    assert raw_close(text, 7, len(text), "style") == text.index("</style ")
    start = text.index("<script>") + 8
    assert raw_close(text, start, len(text), "script") == text.rindex("</script>")  # (the escaped states)
    assert raw_close(text, text.index("<title>") + 7, len(text), "title") == text.index("</TITLE>")
    assert raw_close(text, 7, text.index("</style "), "style") is None
