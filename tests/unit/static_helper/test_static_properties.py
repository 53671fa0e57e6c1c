"""Property tests over random pages built around a valid, sealed claim/slot/bundle trio.

Each page is assembled from pieces the test knows: the bytes outside the slots
and what each slot holds. So the expected result of ``--write`` is computed
without the helper's locator: the same outside pieces around the freshly
rendered blocks, in the page's newline style, after the same BOM.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claim_evidence import claim_fingerprint, render_evidence, validate_bundle
from claim_evidence._core.jsonio import dumps_for_script
from static_helper import PageOptions, check_text, load_page, render_static_page, write_page

BOM = "\ufeff"
IDS = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True)
# Statement characters: plain, Japanese, and the ones HTML needs escaped (written as entities).
STATEMENT = st.text(st.sampled_from("abcXYZ019 .,!?-_%'\"&<>検証済みの数値「」。"), min_size=1, max_size=24).filter(
    lambda s: s.strip()
)
NEWLINES = st.sampled_from(["\n", "\r\n", "mixed"])
HEAD_FILLERS = [
    "",
    '<!-- head comment with <div data-claim-id="ghost"> inside -->',
    '<meta name="description" content="a &amp; b">',
    "<style>p > b { color: red } /* </div> */</style>",
    '<script>var s = "<div data-evidence-for=\\"ghost\\"></div>";</script>',
]
BODY_FILLERS = [
    "",
    "<p>plain paragraph &copy; 2026 &amp; more</p>",
    '<!-- a comment: <p data-claim-id="ghost">not a claim</p> -->',
    "<!--[if IE]><p>conditional comment</p><![endif]-->",
    "<br><hr/><img src=x.png alt='an &quot;image&quot;'>",
    '<template><p data-claim-id="ghost">inert</p><div data-evidence-for="ghost"></div></template>',
    "<textarea>raw </div> data-evidence-for=x</textarea>",
    "<TABLE><TR><TD>cell<TD>cell</TABLE>",
    "<ul><li>one<li>two</ul>",
    "<section><h3>Heading</h3><p>text<p>implicitly closed</section>",
    "<p class=correction>訂正: 以前の文言</p>",
]
STALE_CONTENTS = [
    "",
    "\n",
    "<aside>古い表示</aside>",
    "<p>old <b>evidence</b></p>",
    "<!-- placeholder -->",
    "FRESH",
    "FRESH_LF",
]
ENTITIES = {
    "&": ["&amp;", "&#38;", "&#x26;"],
    "<": ["&lt;", "&#60;"],
    ">": ["&gt;", "&#x3E;"],
    '"': ["&quot;", '"'],
    "'": ["&#39;", "'"],
}


@dataclass
class Built:
    """A page as pieces: ``outside[i]`` precedes slot ``i``; the last piece follows the last slot."""

    bundle: dict[str, Any]
    outside: list[str]
    slots: list[str]  # claim id per slot, in document order
    contents: list[str]
    newline: str
    bom: bool

    def text(self, contents: list[str]) -> str:
        pieces = [self.outside[0]]
        for content, after in zip(contents, self.outside[1:], strict=True):
            pieces += (content, after)
        return "".join(pieces)

    @property
    def original(self) -> str:
        return self.text(self.contents)

    def expected(self) -> str:
        return self.text([self.block(cid) for cid in self.slots])

    def block(self, cid: str) -> str:
        block = render_evidence(self.bundle, [cid], lang="ja")
        return block.replace("\n", "\r\n") if self.newline == "\r\n" else block


def _bundle(draw: Any) -> dict[str, Any]:
    sources = [
        {
            "id": "src-1",
            "publisher": "Example Lab",
            "title": "Report",
            "url": "https://example.com/r",
            "published_at": "2026-09-01",
        }
    ]
    claims = []
    for cid in draw(st.lists(IDS, min_size=1, max_size=3, unique_by=str.lower)):
        matched = draw(st.booleans())
        claim: dict[str, Any] = {
            "id": cid,
            "label": draw(st.none() | st.sampled_from(["公表値", "A <label> & more"])),
            "statement": draw(STATEMENT),
            "evidence_label": "Claim" if matched else "Opinion",
            "basis": "vendor_claim" if matched else "editorial",
            "status": "matched" if matched else "unverified",
            "source_refs": [{"source_id": "src-1", "section": "§2", "supports": "the figure"}] if matched else [],
            "conditions": draw(st.lists(st.sampled_from(["fixed benchmark", "条件 </script> <!--"]), max_size=2)),
            "as_of": "2026-09-01",
            "verification": None,
        }
        claims.append(claim)
    if not any(claim["source_refs"] for claim in claims):
        sources = []  # an uncited source is a warning
    for claim in claims:
        if claim["status"] == "matched":
            claim["verification"] = {
                "checked_at": "2026-09-05",
                "method": "human_document_review",
                "fingerprint": claim_fingerprint(claim, sources),
            }
    bundle = {"version": 1, "sources": sources, "claims": claims}
    assert validate_bundle(bundle) == []
    return bundle


def _attr(draw: Any, name: str, value: str) -> str:
    name = draw(st.sampled_from([name, name.upper()]))
    equals = draw(st.sampled_from(["=", " = "]))
    quoted = draw(st.sampled_from([f'"{value}"', f"'{value}'", value]))
    return f"{name}{equals}{quoted}"


def _body_markup(draw: Any, statement: str) -> str:
    """The statement as HTML: entities for what HTML needs escaped (and some more), inline tags, extra spaces."""
    out = []
    open_tag = None
    for char in statement:
        if char in ENTITIES:
            piece = draw(st.sampled_from(ENTITIES[char]))
        elif char == " ":
            piece = draw(st.sampled_from([" ", "  ", "\n  ", "&#32;", "\t"]))
        else:
            piece = draw(st.sampled_from([char, char, f"&#{ord(char)};"]))
        if open_tag is None and draw(st.integers(0, 7)) == 0:
            open_tag = draw(st.sampled_from(["b", "EM", "code", 'a href="/x?a=1&amp;b=2"']))
            piece = f"<{open_tag}>" + piece
        elif open_tag is not None and draw(st.integers(0, 3)) == 0:
            piece += f"</{open_tag.split()[0].lower()}>"
            open_tag = None
        out.append(piece)
    if open_tag is not None:
        out.append(f"</{open_tag.split()[0]}>")
    return "".join(out)


@st.composite
def pages(draw: Any) -> Built:
    bundle = _bundle(draw)
    newline = draw(NEWLINES)
    nl = "\r\n" if newline == "\r\n" else "\n"
    # mixed: the first line break decides the page's style (LF), later ones may be CRLF
    later = (lambda: draw(st.sampled_from(["\n", "\r\n"]))) if newline == "mixed" else (lambda: nl)
    link = (
        "<link "
        + " ".join(
            draw(st.permutations([_attr(draw, "rel", "stylesheet"), _attr(draw, "href", "/assets/claim-evidence.css")]))
        )
        + ">"
    )
    script = f'<script type="application/json" id="claim-evidence-data">{later()}{dumps_for_script(bundle).replace(chr(10), later())}{later()}</script>'
    script_in_head = draw(st.booleans())
    head = [draw(st.sampled_from(HEAD_FILLERS)), link, draw(st.sampled_from(HEAD_FILLERS))]
    if script_in_head:
        head.insert(draw(st.integers(0, len(head))), script)
    outside = [
        f'<!DOCTYPE html>{nl}<html lang="ja">{later()}<head>{later()}'
        + later().join(head)
        + f"{later()}</head>{later()}<body>{later()}"
    ]
    slots, contents = [], []
    for claim in bundle["claims"]:
        cid = claim["id"]
        tag = draw(st.sampled_from(["p", "div", "span", "h2", "blockquote", "li", "P"]))
        body = _body_markup(draw, claim["statement"])
        claim_open = f'<{tag} {_attr(draw, "data-claim-id", cid)} class="claim">'
        slot_tag = draw(st.sampled_from(["div", "section", "DIV"]))
        slot_open = f"<{slot_tag} class=evidence {_attr(draw, 'data-evidence-for', cid)}>"
        implicit_end = tag.lower() in {"p", "li"} and draw(st.booleans())
        if tag.lower() == "li":
            claim_html = f"<ul>{claim_open}{body}{'' if implicit_end else '</li>'}</ul>"
        elif implicit_end:  # <p> closed by the slot's <div>, which must follow at once
            claim_html = f"{claim_open}{body}"
        else:
            claim_html = f"{claim_open}{body}</{tag.lower()}>"
        between = "" if implicit_end else draw(st.sampled_from(BODY_FILLERS)) + later()
        outside[-1] += draw(st.sampled_from(BODY_FILLERS)) + later() + claim_html + between + slot_open
        outside.append(f"</{slot_tag}>{later()}")
        slots.append(cid)
        contents.append(draw(st.sampled_from(STALE_CONTENTS)))
    tail = (
        draw(st.sampled_from(BODY_FILLERS))
        + later()
        + ("" if script_in_head else script + later())
        + f"</body>{later()}</html>{later()}"
    )
    outside[-1] += tail
    built = Built(bundle, outside, slots, contents, nl if newline != "mixed" else "\n", draw(st.booleans()))
    fresh = {"FRESH": lambda cid: built.block(cid), "FRESH_LF": lambda cid: render_evidence(bundle, [cid], lang="ja")}
    built.contents = [fresh[c](cid) if c in fresh else c for c, cid in zip(contents, slots, strict=True)]
    return built


def assert_same_page(written: Any, again: Any) -> None:
    """``Page.written`` (the rewrite's proof) against a check of the written text: the same location, findings,
    language and prefix (what the page cache keeps of it)."""
    from claim_evidence._check.page import _shape, page_prefix

    assert written is not None and written.text == again.text
    assert _shape(written.located) == _shape(again.located)
    assert (written.diagnostics, written.lang, written.bundle) == (again.diagnostics, again.lang, again.bundle)
    assert page_prefix(written) == page_prefix(again)


def _stale_count(built: Built) -> int:
    return sum(content != built.block(cid) for content, cid in zip(built.contents, built.slots, strict=True))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(pages())
def test_static_properties_check_write_check_is_clean(built: Built) -> None:
    original = built.original
    page = check_text(original, "page.html", PageOptions())
    # Generated statements may hold numbers with no quote to check them against: CE905, a warning.
    assert [d.text for d in page.diagnostics if d.code not in ("SH140", "CE905")] == []
    assert len(page.stale) == _stale_count(built)
    assert page.bundle == built.bundle
    encoded = (BOM if built.bom else "") + original
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.html"
        path.write_bytes(encoded.encode("utf-8"))
        checked, rewritten = write_page(os.fspath(path), PageOptions())
        assert rewritten == _stale_count(built)
        written = path.read_bytes()
        # outside the slots byte-identical (BOM and newlines included), the slots hold the fresh blocks
        assert written == ((BOM if built.bom else "") + built.expected()).encode("utf-8")
        again = load_page(path)
        assert [d for d in again.diagnostics if d.code != "CE905"] == []
        assert again.bundle == built.bundle == checked.bundle
        if rewritten:  # what the rewrite's proof says the written page is: what its check finds
            assert_same_page(checked.written, again)
        stamp = path.stat().st_mtime_ns
        assert write_page(os.fspath(path), PageOptions())[1] == 0  # a second --write is a no-op
        assert path.read_bytes() == written and path.stat().st_mtime_ns == stamp
        assert sorted(os.listdir(folder)) == ["page.html"]
    # the library form agrees with the file form
    assert render_static_page(original) == (built.expected(), [])
