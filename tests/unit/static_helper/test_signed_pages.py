"""static-helper on a site with ``[reviews]``: the block names the signer (``show_signer``), a status
edited on the page after signing fails the check, the cache does not hide it. Real keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import dumps_for_script
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._site.config import load_config

from ...conftest import ROOT
from ...signing_support import Keys, keys, site

__all__ = ["keys"]
FIXTURES = json.loads((ROOT / "examples" / "claim-evidence" / "fixtures.json").read_text(encoding="utf-8"))
SHOWN = "（AIによる資料照合・署名: 編集部）</span>"


@pytest.fixture
def signed_page(keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict[str, Any]) -> Path:
    key = keys.make("reviewer")
    folder = tmp_path / "site"
    reviews = 'require_signature = "error"\nshow_signer = true\n'
    config = site(folder, keys.line("編集部", key), reviews)
    config.write_text('pages = ["*.html"]\nstylesheet = false\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    options = load_config(config).options
    signed = sign_claim(bundle, 0, str(key), "編集部", options.policy.reviews, "page.html")
    text = FIXTURES["page_template"].replace(FIXTURES["page_placeholder"], dumps_for_script(signed))
    (folder / "page.html").write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder / "page.html"


def test_signed_page_shows_the_signer_and_catches_a_status_edit(run_static: Any, signed_page: Path) -> None:
    assert run_static("--write")[0] == 0
    assert SHOWN in signed_page.read_text(encoding="utf-8")
    passed = (
        "PASS page.html: 1 claim bound\n"
        "page.html:35:7: CE905 [fictional-rate] statement has numbers but no quoted passage to check them against "
        "(add quote.exact to a source_ref): 72.6 (warning)\n"
        "1 page: 1 passed, 0 failed\n"
    )
    assert run_static() == (0, passed, "")
    assert run_static() == (0, passed, "")  # again, from the cache
    text = signed_page.read_text(encoding="utf-8")
    assert '"status": "matched"' in text
    signed_page.write_text(text.replace('"status": "matched"', '"status": "partial"', 1), encoding="utf-8")
    code, out, _ = run_static()
    assert code == 1
    assert "CE411 [fictional-rate] the signature of 編集部 does not match this review" in out
    assert "record the review with claim-evidence review record page.html --claim fictional-rate" in out


def test_signed_page_an_allowed_signers_edit_is_seen_through_the_cache(run_static: Any, signed_page: Path) -> None:
    assert run_static("--write")[0] == 0
    assert run_static()[0] == 0
    (signed_page.parent / "allowed_signers").write_text("", encoding="utf-8")  # the reviewer's key withdrawn
    code, out, _ = run_static()
    assert code == 1
    assert "CE412 [fictional-rate] signer 編集部 is not allowed by allowed_signers" in out


def test_signed_page_prepublish_gate(run: Any, run_static: Any, signed_page: Path) -> None:
    assert run_static("--write")[0] == 0
    gate = ("prepublish", "--config", "claim-evidence.toml", "--today", "2026-12-01")
    assert run(*gate)[0] == 0
    text = signed_page.read_text(encoding="utf-8")
    signed_page.write_text(
        text.replace('"checked_at": "2026-09-05"', '"checked_at": "2026-09-04"', 1), encoding="utf-8"
    )
    code, out, _ = run(*gate)
    assert code == 1
    assert "CE411 [fictional-rate] the signature of 編集部 does not match this review" in out
