"""``review queue``: every claim of a small site made here that needs a review, oldest review first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._record.fingerprint import claim_fingerprint

SOURCE = {"id": "doc", "publisher": "架空社", "title": "架空の資料", "url": "https://example.com/doc"}
SNAPSHOT = {
    "sha256": "ab" * 32,
    "retrieved_at": "2026-07-01",
    "content_type": "text/html",
    "final_url": "https://example.com/doc",
}
KANA = str.maketrans("123456789", "アイウエオカキクケ")  # (a digit in a statement would want a quote: CE905)


def _claim(cid: str, basis: str, checked_at: str | None, source: str = "doc", **more: Any) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "id": cid,
        "label": f"主張{cid}",
        "statement": f"{cid.translate(KANA)}の文は架空である。",
        "evidence_label": "Claim",
        "basis": basis,
        "status": "matched" if checked_at else "unverified",
        "source_refs": [{"source_id": source, "section": "本文", "supports": "主張"}],
        "conditions": ["架空の条件"],
        "as_of": "2026-07-01",
        "uncertainty": "架空",
    }
    if checked_at:
        claim["verification"] = {"checked_at": checked_at, "method": "human_document_review", **more}
    return claim


def _page(folder: Path, name: str, claims: list[dict[str, Any]], sources: list[dict[str, Any]]) -> None:
    for claim in claims:
        if "verification" in claim:
            claim["verification"]["fingerprint"] = claim_fingerprint(claim, sources)
    body = "".join(
        f'<p data-claim-id="{c["id"]}">{c["statement"]}</p><div data-evidence-for="{c["id"]}"></div>\n' for c in claims
    )
    bundle = json.dumps({"version": 1, "sources": sources, "claims": claims}, ensure_ascii=False, indent=2)
    (folder / name).write_text(
        f'<!doctype html><html lang="ja"><head><title>t</title></head><body>\n{body}'
        f'<script type="application/json" id="claim-evidence-data">{bundle}</script>\n</body></html>\n',
        encoding="utf-8",
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claim-evidence.toml").write_text('pages = ["*.html"]\n\n[freshness]\n', encoding="utf-8")
    (tmp_path / "evidence-snapshots").mkdir()  # the snapshot folder: its checks run
    return tmp_path


def _record(name: str, cid: str) -> str:
    return f"claim-evidence review record {name} --claim {cid} --method … --checked-at …"


def test_queue_of_a_site_whose_reviews_all_hold_is_empty(run: Any, site: Path) -> None:
    _page(site, "a.html", [_claim("A1", "vendor_claim", "2026-09-05"), _claim("A9", "editorial", None)], [SOURCE])
    assert run("review", "queue", "--today", "2026-12-01") == (0, "review queue: no claim needs a review\n", "")


def test_queue_lists_each_claim_with_its_reason_oldest_review_first(run: Any, site: Path) -> None:
    edited = _claim("A3", "vendor_claim", "2026-08-01")
    a = [_claim("A1", "vendor_claim", "2026-09-05"), _claim("A2", "reporting", "2026-09-05"), edited]
    _page(site, "a.html", a, [SOURCE])
    text = (site / "a.html").read_text(encoding="utf-8")
    (site / "a.html").write_text(text.replace("Aウの文は架空である。", "Aウの文は書き換えた。"), encoding="utf-8")
    drifted = {**SOURCE, "id": "snap", "snapshot": SNAPSHOT}
    b = [
        _claim("B1", "official_spec", "2026-10-01", review_by="2026-11-01"),
        _claim("B2", "official_spec", "2026-07-01", source="snap"),
        _claim("B3", "official_spec", None),
    ]
    _page(site, "b.html", b, [SOURCE, drifted])
    code, out, err = run("review", "queue", "--today", "2026-12-01")
    assert (code, err) == (1, "")
    assert out == (
        "b.html: B2 (reviewed 2026-07-01): source snap: snapshot file missing: "
        f"{Path('evidence-snapshots').resolve()}/sha256/ab/{'ab' * 31}.bin (CE521); after reading the sources: "
        f"{_record('b.html', 'B2')}\n"
        "a.html: A3 (reviewed 2026-08-01): the record changed since the review (CE403); see what changed: "
        f"claim-evidence review diff a.html --claim A3; then: {_record('a.html', 'A3')}\n"
        "a.html: A2 (reviewed 2026-09-05): review due in 3 days (by 2026-12-04) (CE602); after reading the "
        f"sources: {_record('a.html', 'A2')}\n"
        "b.html: B1 (reviewed 2026-10-01): expired: review_by 2026-11-01 has passed (30 days ago) (CE601); after "
        f"reading the sources: {_record('b.html', 'B1')}\n"
        "review queue: 4 claims need a review\n"
    )


def test_queue_without_a_config_is_a_usage_error(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run("review", "queue")
    assert (code, out) == (2, "")
    assert err.endswith("no claim-evidence.toml here or in a parent folder; give --config FILE\n")


def test_queue_names_the_source_holding_the_record_of_a_built_page(run: Any, site: Path) -> None:
    """A generator's site (``sources`` in claim-evidence.toml): the commands name the Markdown holding the
    record, which the next build copies, not the built page."""
    (site / "claim-evidence.toml").write_text(
        'pages = ["public/*.html"]\nsources = ["content/*.md"]\n\n[freshness]\n', encoding="utf-8"
    )
    (site / "public").mkdir()
    (site / "content").mkdir()
    _page(site / "public", "a.html", [_claim("A2", "reporting", "2026-09-05")], [SOURCE])
    built = (site / "public" / "a.html").read_text(encoding="utf-8")
    script = built[built.index('<p data-claim-id="A2">') : built.index("</body>")]
    (site / "content" / "a.md").write_text(f"# 架空\n\n{script}", encoding="utf-8")
    assert run("review", "queue", "--today", "2026-12-01") == (
        1,
        "content/a.md: A2 (reviewed 2026-09-05): review due in 3 days (by 2026-12-04) (CE602); after reading the "
        f"sources: {_record('content/a.md', 'A2')}\nreview queue: 1 claim needs a review\n",
        "",
    )
