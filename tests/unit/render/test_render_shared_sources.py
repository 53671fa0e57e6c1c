"""A source's fields are read once per bundle and shared by every reference to it: each block must be
what the claim renders alone (a bundle of that claim only, nothing shared), whatever the source holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._render.evidence import render_blocks, render_unbound

_FIELD = st.sampled_from(["<b>x</b> & 'q'", "\u202eevil", "עברית", "公開 report", "", 0, None, ["<a>"]])
_URL = st.sampled_from(["https://example.com/a?b=1&c=2", "javascript:alert(1)", "//host/x", "", None, 5])
_DATE = st.sampled_from(["2026-05-17", "2026-02-30", "", None, 20260517])


@st.composite
def _bundles(draw: Any) -> dict[str, Any]:
    sources = [
        {
            "id": f"s{i}",
            "publisher": draw(_FIELD),
            "title": draw(_FIELD),
            "url": draw(_URL),
            "archive_url": draw(_URL),
            "published_at": draw(_DATE),
        }
        for i in range(draw(st.integers(1, 3)))
    ]
    claims = [
        {
            "id": f"c{n}",
            "label": draw(_FIELD),
            "statement": "文",
            "source_refs": [
                {
                    "source_id": f"s{draw(st.integers(0, len(sources)))}",
                    "section": draw(_FIELD),
                    "quote": {"exact": "q"},
                }
                for _ in range(draw(st.integers(0, 4)))
            ],
        }
        for n in range(draw(st.integers(1, 4)))
    ]
    return {"sources": sources, "claims": claims}


@settings(max_examples=150, deadline=None)
@given(_bundles(), st.sampled_from(["ja", "en"]))
def test_render_shared_sources_each_block_as_its_claim_alone(bundle: dict[str, Any], lang: str) -> None:
    blocks = render_blocks(bundle, invalid=set(), lang=lang)
    for claim in bundle["claims"]:
        alone = {"sources": bundle["sources"], "claims": [claim]}
        assert blocks[claim["id"]] == render_blocks(alone, invalid=set(), lang=lang)[claim["id"]]
        assert render_unbound(bundle, claim["id"], lang=lang) == render_unbound(alone, claim["id"], lang=lang)
