"""Where a page's located elements must be after ``--write`` splices its slots (``page._moved``, which
``Page.rendered_text``'s proof compares the new page's location with), against the plain reading of it
written here: every offset moves by the edits that end at or before it, an edited slot holds its new
content, and an element an edit cuts into (or an empty edit at its start) has no place."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._check.page import _moved, _shape
from claim_evidence._html.locate import Element, Located


def _reference(located: Located, edits: list[tuple[int, int, str]]) -> Any:
    ordered = sorted(edits)
    spans = {(start, end): len(text) for start, end, text in ordered}

    def at(offset: int) -> int:
        return offset + sum(len(text) - (end - start) for start, end, text in ordered if end <= offset)

    def moved(e: Element) -> tuple[Any, ...] | None:
        length = spans.get((e.open_end, e.close_start))
        if length is not None:
            start = at(e.start)
            open_end = start + e.open_end - e.start
            return (e.name, e.attrs, start, open_end, open_end + length, open_end + length + e.end - e.close_start)
        if any(e.start < end and start < e.end for start, end, _ in ordered) or any(
            e.start == start == end for start, end, _ in ordered
        ):
            return None
        return (e.name, e.attrs, at(e.start), at(e.open_end), at(e.close_start), at(e.end))

    rows = []
    for found in (located.claims, located.slots, located.summaries, located.scripts, located.links):
        row = []
        for e in found:
            done = moved(e)
            if done is None:
                return None
            row.append((*done, e.self_closing))
        rows.append(tuple(row))
    hidden = None if located.hidden is None else at(located.hidden)
    frameset = None if located.frameset is None else at(located.frameset)
    linked = []
    for slot, link in located.linked:
        done = moved(slot)
        if done is None:
            return None
        linked.append((done[2], at(link)))
    return tuple(rows), hidden, frameset, tuple(linked)


def _element(start: int, sizes: tuple[int, int, int]) -> Element:
    tag, content, close = sizes
    return Element("div", {}, start, start + tag, start + tag + content, start + tag + content + close, False)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(1, 6), st.integers(0, 9), st.integers(1, 6)), max_size=8),
    st.lists(st.tuples(st.integers(0, 60), st.integers(0, 8), st.text("ab", max_size=12)), max_size=4),
    st.lists(st.booleans(), max_size=8),
    st.integers(0, 80),
)
def test_moved_as_each_offset_moved_by_the_edits_before_it(
    layout: list[tuple[int, int, int, int]],
    cuts: list[tuple[int, int, str]],
    slot_edits: list[bool],
    hidden: int,
) -> None:
    located = Located("")
    at = 0
    elements = []
    for gap, tag, content, close in layout:
        at += gap
        elements.append(_element(at, (tag, content, close)))
        at = elements[-1].end
    # Slots (every other element), the rest claims; some slots' contents edited, plus edits elsewhere that
    # may fall between elements, cut into them or sit empty at an element's start.
    located.slots = elements[1::2]
    located.claims = elements[0::2]
    located.hidden = hidden if hidden % 3 == 0 else None
    edits = [(s.open_end, s.close_start, "x" * 7) for s, on in zip(located.slots, slot_edits, strict=False) if on]
    taken = [(start, end) for start, end, _ in edits]
    for start, length, text in cuts:
        end = start + length
        if all(end <= a or b <= start for a, b in taken) and (length or all(start != a for a, _ in taken)):
            edits.append((start, end, text))
            taken.append((start, end))
    moved = _moved(located, edits, "the new text")
    assert (None if moved is None else _shape(moved)) == _reference(located, edits)
    assert moved is None or moved.text == "the new text"
