"""README's example-site walkthrough with --write before the review: an edited claim shows 未確認 at once,
the page's other claims keep their reviewed blocks, the run fails until the review is recorded (issue 25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claim_evidence._html.locate import locate

from ..conftest import example_site_copy

OLD = "公開前に編集者が資料と照合する。"
NEW = "公開前に編集者が二人で資料と照合する。"
REVIEWED = '<span class="claim-evidence-status">資料との照合済み</span>'
UNVERIFIED = '<span class="claim-evidence-status">未確認・根拠未登録</span>'
INVALID_WARNING = "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。"


def slots(page: Path) -> dict[str, str]:
    text = page.read_text(encoding="utf-8")
    return {s.attrs["data-evidence-for"]: text[s.open_end : s.close_start] for s in locate(text).slots}


def test_example_site_write_shows_an_unreviewed_edit_as_unverified_until_the_review(
    tmp_path: Path, monkeypatch: Any, run_static: Any, run: Any
) -> None:
    site = example_site_copy(tmp_path / "site")
    monkeypatch.chdir(site)
    about = site / "about.html"
    before = slots(about)
    assert REVIEWED in before["ABOUT-AI"] and INVALID_WARNING not in before["ABOUT-CORRECTIONS"]
    others = {p: p.read_bytes() for p in site.rglob("*.html") if p != about}
    edited = about.read_text(encoding="utf-8").replace(OLD, NEW)
    assert edited.count(NEW) == 3  # the sentence, the block's statement and the record's: the review is broken
    about.write_text(edited, encoding="utf-8")

    code, out, _ = run_static("--no-cache")
    assert code == 1
    assert "CE403 [ABOUT-AI] review fingerprint does not match" in out
    assert "SH140 [ABOUT-AI] evidence display is stale and must now show the claim as unverified" in out
    assert "ABOUT-CORRECTIONS" not in out

    code, out, err = run_static("--no-cache", "--write")
    assert code == 1, out
    assert "CE403 [ABOUT-AI]" in out and "SH140" not in out and "SH150" not in out
    assert "static-helper: rewrote 1 page (exit 1: findings remain)\n" in err, err
    after = slots(about)
    assert UNVERIFIED in after["ABOUT-AI"] and INVALID_WARNING in after["ABOUT-AI"] and "<time" not in after["ABOUT-AI"]
    assert after["ABOUT-CORRECTIONS"] == before["ABOUT-CORRECTIONS"]
    assert {p: p.read_bytes() for p in others} == others
    written = about.read_bytes()
    assert run_static("--no-cache", "--write")[0] == 1 and about.read_bytes() == written  # nothing more to do

    code, out, _ = run(
        "review",
        "record",
        "about.html",
        "--claim",
        "ABOUT-AI",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-10-01",
    )
    assert code == 0, out
    assert run_static("--no-cache", "--write")[0] == 0
    code, out, _ = run_static("--no-cache")
    assert code == 0, out
    assert REVIEWED in slots(about)["ABOUT-AI"]
