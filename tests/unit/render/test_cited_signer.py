"""The Cited Sources block names a review's signer only when the site turns it on (``[reviews] show_signer``)."""

from __future__ import annotations

import json
from typing import Any

from claim_evidence._record.freshness import Freshness
from claim_evidence._record.policy import Policy
from claim_evidence._record.signature import Reviews
from claim_evidence._render.cited import cited_sources
from claim_evidence._render.citedforms import render

SIGNATURE = {"signer": "編集部", "sig": "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"}
DAY = Freshness(today="2026-12-01", source="--today")
LINE = (
    "- 🟢 [180日] 2026-09-05 架空ベンダー: [架空の固定条件レポート](<https://example.com/fictional-report>) — "
    "架空の公表値（架空ベンダーが達成率を公表したという主張）"
)


def test_cited_signer_only_with_show_signer(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["signature"] = SIGNATURE
    plain = render(cited_sources([bundle], freshness=DAY), "markdown")
    assert LINE + "\n" in plain
    shown = Policy(reviews=Reviews(show_signer=True))
    block = cited_sources([bundle], freshness=DAY, policy=shown)
    assert LINE + "（署名: 編集部）\n" in render(block, "markdown")
    assert "架空の公表値（架空ベンダーが達成率を公表したという主張）（署名: 編集部）</li>" in render(block, "html")
    used = json.loads(render(block, "json"))["groups"][0]["sources"][0]["used_for"]
    assert used == [
        {
            "claim_id": "fictional-rate",
            "label": "架空の公表値",
            "supports": ["架空ベンダーが達成率を公表したという主張"],
            "signer": "編集部",
        }
    ]
    english = render(cited_sources([bundle], freshness=DAY, policy=shown, lang="en"), "markdown")
    assert "(架空ベンダーが達成率を公表したという主張) (signed by 編集部)\n" in english


def test_cited_signer_not_on_an_unsigned_review(bundle: dict[str, Any]) -> None:
    shown = Policy(reviews=Reviews(show_signer=True))
    assert "署名" not in render(cited_sources([bundle], freshness=DAY, policy=shown), "markdown")
