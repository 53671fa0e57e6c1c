"""Adversarial HTML: every ``#data`` input of the html5lib tree-construction tests, placed around a valid
claim/slot/bundle trio, must never crash the helper, never PASS a trio the HTML standard breaks, and never
make ``--write`` touch a byte outside the slot.

"Broken" is decided by an independent oracle: html5lib, a parser that follows the HTML standard's tree
construction (scripting off, as the helper models it). A fragment may legitimately swallow the trio (an
unclosed ``<!--``, ``<script>``, ``<textarea>``, ``<template>``, ``<plaintext>``, ``<select>``…): then the
helper must report the page, not pass it. The corpus stays in ``../shared``; it is never copied here.
"""
from __future__ import annotations

import json
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, normalized_text, render_evidence
from static_helper import check_text, render_static_page
from static_helper._splice import newline_style, with_newlines

html5lib = pytest.importorskip("html5lib", reason="html5lib is the independent oracle (pip install -e '.[test]')")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpora" / "html5lib-tests" / "tree-construction"
EXPECTED_INPUTS = 1796
HEADERS = frozenset({"#errors", "#new-errors", "#document", "#document-fragment", "#script-on", "#script-off"})

STATEMENT = "The sky is blue."
SOURCES = [{"id": "s1", "publisher": "P", "title": "T", "url": "https://example.com/r", "published_at": "2026-01-02"}]
CLAIM: dict[str, Any] = {
    "id": "C-1", "label": "L", "statement": STATEMENT, "evidence_label": "Claim", "basis": "vendor_claim",
    "status": "matched", "source_refs": [{"source_id": "s1", "section": "1", "supports": "x"}], "conditions": [],
    "as_of": "2026-01-02",
}
CLAIM["verification"] = {"checked_at": "2026-01-03", "method": "ai_document_review", "fingerprint": claim_fingerprint(CLAIM, SOURCES)}
BUNDLE = {"version": 1, "sources": SOURCES, "claims": [CLAIM]}
BLOCK = render_evidence(BUNDLE, ["C-1"])

LINK = '<link rel="stylesheet" href="/assets/claim-evidence.css">'
BODY = f'<p data-claim-id="C-1">{STATEMENT}</p>'
SLOT_OPEN, SLOT_CLOSE = '<div data-evidence-for="C-1">', "</div>"
SCRIPT = f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(BUNDLE)}</script>'
PLACEMENTS = ("before", "between-body-slot", "between-slot-bundle", "after")


def read_inputs(folder: Path) -> list[tuple[str, str]]:
    """``(file:case, data)`` for every ``#data`` section (the lines up to the next section header)."""
    inputs = []
    for path in sorted(folder.rglob("*.dat")):
        lines = path.read_text(encoding="utf-8").split("\n")
        case = 0
        for i, line in enumerate(lines):
            if line == "#data":
                end = next(j for j in range(i + 1, len(lines)) if lines[j] in HEADERS)
                case += 1
                inputs.append((f"{path.relative_to(folder)}:{case}", "\n".join(lines[i + 1 : end])))
    return inputs


def pages(fragment: str, slot_content: str) -> dict[str, str]:
    slot = SLOT_OPEN + slot_content + SLOT_CLOSE
    return {
        "before": fragment + LINK + BODY + slot + SCRIPT,
        "between-body-slot": LINK + BODY + fragment + slot + SCRIPT,
        "between-slot-bundle": LINK + BODY + slot + fragment + SCRIPT,
        "after": LINK + BODY + slot + SCRIPT + fragment,
    }


# --- the oracle: the trio as the HTML standard's tree construction builds it ------------------------

_HIDDEN = frozenset({"script", "style", "template", "rt", "rp"})
_BLOCKS = frozenset("address article aside blockquote br dd div dl dt fieldset figure footer form h1 h2 h3 h4 h5 h6 "
                    "header hr li main nav ol p pre section table td th tr ul".split())
_NOT_CONTAINERS = frozenset("area base br col embed hr img input link meta source track wbr script style textarea "
                            "title xmp iframe noembed noframes p template plaintext".split())


def _parse(text: str) -> ElementTree.Element:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return html5lib.parse(text, treebuilder="etree", namespaceHTMLElements=False)


def _live(root: ElementTree.Element) -> list[tuple[ElementTree.Element, tuple[ElementTree.Element, ...]]]:
    """Every element outside ``<template>`` content, with its ancestors."""
    out = []
    stack = [(root, ())]
    while stack:
        element, ancestors = stack.pop()
        out.append((element, ancestors))
        if element.tag != "template":
            stack.extend((child, (*ancestors, element)) for child in reversed(element) if isinstance(child.tag, str))
    return out


def _visible(element: ElementTree.Element) -> str:
    parts: list[str] = []

    def walk(node: ElementTree.Element) -> None:
        for child in node:
            if isinstance(child.tag, str) and child.tag not in _HIDDEN:
                parts.append(" " if child.tag in _BLOCKS else "")
                parts.append(child.text or "")
                walk(child)
                parts.append(" " if child.tag in _BLOCKS else "")
            parts.append(child.tail or "")

    parts.append(element.text or "")
    walk(element)
    return normalized_text("".join(parts))


def _canon(node: ElementTree.Element) -> tuple[object, ...]:
    return (str(node.tag), sorted(node.attrib.items()), node.text or "", [_canon(c) for c in node], node.tail or "")


def _content(node: ElementTree.Element) -> tuple[object, ...]:
    return (node.text or "", [_canon(c) for c in node])


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _BLOCK_TREE = _content(html5lib.parseFragment(BLOCK, container="div", treebuilder="etree", namespaceHTMLElements=False))


def oracle_intact(text: str) -> bool:
    """True when the standard's DOM holds the trio whole: one stylesheet link, one body element reading the
    statement, one container slot holding the rendered block (neither inside the other), one JSON bundle."""
    live = _live(_parse(text))
    scripts = [e for e, _ in live if e.tag == "script" and e.get("id") == "claim-evidence-data"]
    bodies = [(e, up) for e, up in live if "data-claim-id" in e.attrib]
    slots = [(e, up) for e, up in live if "data-evidence-for" in e.attrib]
    links = [e for e, _ in live if e.tag == "link" and "stylesheet" in e.get("rel", "").lower().split()
             and e.get("href") == "/assets/claim-evidence.css"]
    if len(scripts) != 1 or len(bodies) != 1 or len(slots) != 1 or not links:
        return False
    (body, body_up), (slot, slot_up) = bodies[0], slots[0]
    try:
        bundle = json.loads(scripts[0].text or "")
    except ValueError:
        return False
    return (
        scripts[0].get("type", "").strip().lower() == "application/json"
        and bundle == BUNDLE
        and body.get("data-claim-id") == "C-1" and slot.get("data-evidence-for") == "C-1"
        and _visible(body) == STATEMENT
        and slot.tag not in _NOT_CONTAINERS and ":" not in slot.tag and not slot.tag.startswith("{")
        and _content(slot) == _BLOCK_TREE
        and body not in slot_up and slot not in body_up
    )


# --- running the corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    case: str
    placement: str
    helper_pass: bool = False
    intact: bool = False
    codes: tuple[str, ...] = ()
    raised: str = ""
    write_problem: str = ""


def run_case(item: tuple[str, str]) -> list[Outcome]:
    """All placements of one input: the fresh page checked against the oracle, the stale copy rendered."""
    case, fragment = item
    outcomes = []
    try:
        bare = check_text(fragment)
        rendered, _ = render_static_page(fragment)
        codes = tuple(d.code for d in bare.diagnostics if d.is_error)
        problem = "" if rendered == fragment else "a page without a slot was changed"
        outcomes.append(Outcome(case, "bare", not codes, False, codes, "", problem))
    except Exception as exc:  # noqa: BLE001 - the finding is that it raised
        outcomes.append(Outcome(case, "bare", raised=f"{type(exc).__name__}: {exc}"))
    stale_pages = pages(fragment, "stale")
    for placement, stale in stale_pages.items():
        # The page's newline style decides the block's line breaks (fragments may carry CRLF).
        fresh = pages(fragment, with_newlines(BLOCK, newline_style(stale)))[placement]
        try:
            page = check_text(fresh)
            codes = tuple(d.code for d in page.diagnostics if d.is_error)
            rendered, errors = render_static_page(stale)
            problem = ""
            if not errors and rendered not in (stale, fresh):
                problem = "rendering changed more than the slot's content"
            elif not errors and rendered == fresh and render_static_page(rendered) != (rendered, []):
                problem = "a second rendering is not a no-op"
            elif not errors and rendered == stale:
                problem = "a stale slot was left stale without an error"
            outcomes.append(Outcome(case, placement, not codes, oracle_intact(fresh), codes, "", problem))
        except Exception as exc:  # noqa: BLE001
            outcomes.append(Outcome(case, placement, raised=f"{type(exc).__name__}: {exc}"))
    return outcomes


@pytest.fixture(scope="module")
def inputs() -> list[tuple[str, str]]:
    if not CORPUS.is_dir():
        pytest.skip(f"html5lib-tests corpus not found at {CORPUS}; the adversarial corpus tests need ../shared")
    return read_inputs(CORPUS)


@pytest.fixture(scope="module")
def outcomes(inputs: list[tuple[str, str]]) -> list[Outcome]:
    with ProcessPoolExecutor(max_workers=2) as pool:
        return [o for batch in pool.map(run_case, inputs, chunksize=64) for o in batch]


def test_static_corpus_reads_every_data_section(inputs):
    assert len(inputs) == EXPECTED_INPUTS


def test_static_corpus_helper_never_raises(outcomes):
    assert [(o.case, o.placement, o.raised) for o in outcomes if o.raised] == []


def test_static_corpus_never_passes_a_broken_trio(outcomes):
    wrong = [(o.case, o.placement) for o in outcomes if o.placement != "bare" and o.helper_pass and not o.intact]
    assert wrong == []


def test_static_corpus_intact_trio_passes(outcomes):
    wrong = [(o.case, o.placement, o.codes) for o in outcomes if o.placement != "bare" and o.intact and not o.helper_pass]
    assert wrong == []


def test_static_corpus_write_changes_only_the_slot_and_is_idempotent(outcomes):
    assert [(o.case, o.placement, o.write_problem) for o in outcomes if o.write_problem] == []


def test_static_corpus_summary(outcomes, capsys):
    table = Counter((o.placement, "passed" if o.helper_pass else "diagnosed") for o in outcomes)
    broken = Counter(o.placement for o in outcomes if o.placement != "bare" and not o.intact)
    lines = [f"html5lib-tests corpus: {len(outcomes)} pages from {len(outcomes) // 5} inputs"]
    for placement in (*PLACEMENTS, "bare"):
        lines.append(
            f"  {placement:20} passed {table[placement, 'passed']:5}  diagnosed {table[placement, 'diagnosed']:5}"
            + (f"  (trio broken per the standard: {broken[placement]})" if placement != "bare" else "")
        )
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert sum(table.values()) == len(outcomes) == 5 * EXPECTED_INPUTS
