"""The Cited Sources block as a library function: ``format_cited_sources`` over records (bundles)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import pytest

from claim_evidence import InputError, format_cited_sources
from claim_evidence._check.page import read_page_bundle
from claim_evidence._render.citedforms import markdown_text

from ...conftest import ROOT

DATA = ROOT / "tests" / "data" / "cite"


def _records() -> list[Any]:
    return [
        json.loads(read_page_bundle((DATA / "site" / name).read_text(encoding="utf-8")).text)
        for name in ("a.html", "b.html", "c.html")
    ]


def test_format_cited_sources_is_the_command_block() -> None:
    """One piece of code: the public function gives the golden file ``claim-evidence cite`` gives."""
    found = format_cited_sources(_records(), today="2026-12-10")
    assert found == (DATA / "golden" / "site-ja.md").read_text(encoding="utf-8")
    assert format_cited_sources(_records(), today="2026-12-10", lang="en") == (
        DATA / "golden" / "site-en.md"
    ).read_text(encoding="utf-8")


def test_format_cited_sources_used_for_and_policy() -> None:
    found = format_cited_sources(_records(), ["RP1"], today="2026-12-10", max_age_days={"reporting": None})
    assert found == (
        "## 📚 依拠した資料\n\n### 報道\n\n"
        "- 🟢 [常設] 2026-08-01 架空クモ社: [クモエンジン 3 技術仕様書](<https://example.com/kumo/spec-v3>) — 提供開始（公開日）\n"
        "- 🟢 [常設] 2026-08-01 架空ホシ新聞: [提供開始の報道](<https://example.org/hoshi/kumo3>) — 提供開始（企業向け提供開始）\n"
    )
    assert (
        format_cited_sources([], today="2026-12-10", lang="en") == "## 📚 Cited Sources\n\nNo sources were relied on.\n"
    )


def test_format_cited_sources_bad_today_is_ce600() -> None:
    with pytest.raises(InputError) as caught:
        format_cited_sources(_records(), today="2026-13-01")
    assert caught.value.diagnostic.code == "CE600"


def _os1() -> dict[str, Any]:
    """OS1 alone (official_spec, checked 2026-09-05) in its record."""
    bundle = next(b for b in _records() if any(c["id"] == "OS1" for c in b["claims"]))
    claim = next(c for c in bundle["claims"] if c["id"] == "OS1")
    return {**bundle, "claims": [claim]}


def test_cited_line_changes_exactly_at_the_two_state_changes() -> None:
    """Every day from the review to a year and a month after: the line is one text while fresh, a
    second while due soon (the last 15 % of 365 days: from day 311), a third once expired (day 366)."""
    record = _os1()
    start = date(2026, 9, 5)
    texts = [format_cited_sources([record], today=(start + timedelta(days=n)).isoformat()) for n in range(0, 400)]
    changes = [n for n in range(1, len(texts)) if texts[n] != texts[n - 1]]
    assert changes == [311, 366]
    assert texts[310].startswith("## 📚 依拠した資料\n\n### 公式仕様・一次資料\n\n- 🟢 [365日] 2026-09-05 ")
    assert "\n- 🟡 [365日] 2026-09-05 " in texts[311] and "⚠ 古い" not in texts[311]
    assert texts[366].rstrip("\n").endswith(" ⚠ 古い: 再確認が必要（期限 2027-09-05）")


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("<script>", "&lt;script&gt;"),
        ("](javascript:x)", "\\]\\(javascript:x\\)"),
        ("*a* _b_ `c` ![d]", "\\*a\\* \\_b\\_ \\`c\\` \\!\\[d\\]"),
        ("&copy; | ~~s~~ #h \\", "&amp;copy; &#124; &#126;&#126;s&#126;&#126; \\#h \\\\"),
        ("クモエンジン 3", "クモエンジン 3"),
    ],
)
def test_markdown_text_escapes(text: str, escaped: str) -> None:
    assert markdown_text(text) == escaped
