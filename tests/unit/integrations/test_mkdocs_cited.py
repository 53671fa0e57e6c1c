"""The MkDocs plugin's Cited Sources placeholder, in a real ``mkdocs build``."""

from __future__ import annotations

from pathlib import Path

import pytest

from claim_evidence._record.freshness import Freshness
from claim_evidence._render.cited import cited_sources
from claim_evidence._render.citedforms import render_html

from .test_integrations import _mkdocs, _needs, _site, _warnings

PLACEHOLDER = "<!-- claim-evidence: cited-sources -->"
EPOCH_2026_12_10 = "1796860800"


def test_mkdocs_fills_the_cited_sources_placeholder_from_the_page_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs("mkdocs", "mkdocs")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2026_12_10)
    site, bundle = _site(tmp_path, "mkdocs")
    page = site / "docs" / "kumo.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "発表の詳細は出典を参照。", f"発表の詳細は出典を参照。\n\n{PLACEHOLDER}\n\n例: `{PLACEHOLDER}`"
        ),
        encoding="utf-8",
    )
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert (done.returncode, _warnings(done)) == (0, [])
    built = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    expected = render_html(
        cited_sources([bundle], freshness=Freshness(today="2026-12-10", source="SOURCE_DATE_EPOCH"), lang="ja")
    ).rstrip("\n")
    assert built.count(expected) == 1 and PLACEHOLDER not in built
    assert (
        '<li data-freshness="fresh"><span aria-hidden="true">🟢</span> [180日] <time datetime="2026-09-05">2026-09-05</time> '
        'クモ社: <a href="https://example.com/kumo/release" rel="noopener noreferrer">新エンジンの発表</a> — 処理速度（処理速度が向上したという主張）</li>'
    ) in expected
    assert "<code>&lt;!-- claim-evidence: cited-sources --&gt;</code>" in built  # an example in code stays one
    # A page without the placeholder is built as before: no block.
    assert "claim-evidence-cited" not in (site / "site" / "index.html").read_text(encoding="utf-8")
