"""The retrieved material: a text is grounded in the chunk it matches (URLs not counted) and in the
chunks holding its figures, strongest first."""

from __future__ import annotations

from claim_evidence._answer.figures import Figure
from claim_evidence._answer.material import Material

STRONG = {
    "id": "speed",
    "state": "CONFIRMED",
    "title": "公称処理速度",
    "text": "クモエンジン 3 は前版より推論が 1.8 倍速いと架空クモ社は公表した。 https://example.com/kumo/perf",
    "url": "/a.html#evidence-speed",
    "sources": [{"publisher": "架空クモ社", "title": "性能レポート", "url": "https://example.com/kumo/perf"}],
}
WEAK = {
    "id": "notes.md#1",
    "state": "UNVERIFIED",
    "title": "メモ",
    "text": "クモエンジン 3 は 999 億トークンを一度に処理できる。",
    "url": "",
    "sources": [],
}


def test_material_grounding_is_the_matched_chunk_then_the_holders_of_its_figures() -> None:
    material = Material.of([STRONG, WEAK])
    assert [c.id for c in material.grounding("クモエンジン 3 は前版より推論が 1.8 倍速い。")] == ["speed"]
    assert [c.id for c in material.grounding("クモエンジン 3 は 999 億トークンを一度に処理できる。")] == ["notes.md#1"]
    assert [
        c.id for c in material.grounding("クモエンジン 3 は前版より推論が 1.8 倍速く、999 億トークンを扱える。")
    ] == [
        "speed",
        "notes.md#1",
    ]
    assert material.grounding("関係のない話です。") == []
    assert [c.id for c in material.holders(Figure("3", "3"))] == ["speed", "notes.md#1"]  # strongest first
    assert material.holds(Figure("1.8 倍", "1.8", "倍")) and not material.holds(Figure("1.8 日", "1.8", "日"))


def test_material_urls_do_not_count_toward_a_match() -> None:
    material = Material.of([STRONG])
    match = material.closest("詳細は https://example.com/kumo/perf を見よ。")
    assert match is not None and (match.chunk.id, match.shared, match.total, match.grounded) == ("speed", 0, 6, False)
    assert material.urls == {"/a.html#evidence-speed": "公称処理速度", "https://example.com/kumo/perf": "性能レポート"}
