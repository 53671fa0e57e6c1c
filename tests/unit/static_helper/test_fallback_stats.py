"""``static-helper --stats`` counts the pages the fast path left to the reference tokenizer, and why
(issue 32): one line for the share, one per reason, most frequent first; nothing when none fell back."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selectolax")

DATA = Path(__file__).resolve().parents[2] / "data" / "static"
CLAIM = '<p data-claim-id="'


def _pages(site: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    shutil.copy(DATA / "basic_after.html", site / "fast.html")
    text = (site / "fast.html").read_text(encoding="utf-8")
    start = text.index(CLAIM)
    open_end = text.index(">", start) + 1
    # A <div> in a claim's sentence ends the paragraph: the fast path cannot prove where the claim ends.
    (site / "div.html").write_text(text[:open_end] + "<div>x</div>" + text[open_end:], encoding="utf-8")
    monkeypatch.chdir(site)
    return text[start:open_end]


def test_stats_fallback_lines_name_each_reason(run_static: Any, tmp_path: Path, monkeypatch) -> None:
    _pages(tmp_path, monkeypatch)
    code, _, err = run_static("fast.html", "div.html", "fast.html", "--stats", "--no-cache")
    assert code == 1  # (the claim's visible text no longer matches its statement)
    assert err.splitlines()[-3:] == [
        "static-helper stats: pages=3 checked=3 cached=0",
        "static-helper fallback: 1 of 3 pages with evidence markup left to the reference tokenizer (33.3%)",
        "static-helper fallback: 1 claim <p>: content not neutral (<div>)",
    ]


def test_stats_without_fallbacks_prints_one_line(run_static: Any, tmp_path: Path, monkeypatch) -> None:
    _pages(tmp_path, monkeypatch)
    code, _, err = run_static("fast.html", "--stats", "--no-cache")
    assert (code, err.splitlines()[-1]) == (0, "static-helper stats: pages=1 checked=1 cached=0")
    assert "fallback" not in err


def test_stats_counts_no_fallback_for_cached_pages(run_static: Any, tmp_path: Path, monkeypatch) -> None:
    _pages(tmp_path, monkeypatch)
    (tmp_path / "div.html").unlink()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert run_static("fast.html")[0] == 0
    code, _, err = run_static("fast.html", "--stats")
    assert (code, err.splitlines()[-1]) == (0, "static-helper stats: pages=1 checked=0 cached=1")
