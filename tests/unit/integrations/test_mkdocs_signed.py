"""The MkDocs plugin verifies review signatures with the site's ``[reviews]``, in a real ``mkdocs build``:
the block names the signer (``show_signer``), and a status edited after signing fails the strict build."""

from __future__ import annotations

from pathlib import Path

from claim_evidence import dumps_for_script
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._site.config import load_config

from ...signing_support import Keys, keys
from .test_integrations import CLAIM, _mkdocs, _needs, _site, _warnings

__all__ = ["keys"]


def test_mkdocs_verifies_review_signatures(keys: Keys, tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, bundle = _site(tmp_path, "mkdocs")
    key = keys.make("reviewer")
    (site / "allowed_signers").write_text(keys.line("編集部", key), encoding="utf-8")
    config = site / "claim-evidence.toml"
    reviews = '\n[reviews]\nallowed_signers = "allowed_signers"\nshow_signer = true\nrequire_signature = "error"\n'
    config.write_text(config.read_text(encoding="utf-8") + reviews, encoding="utf-8")
    signed = sign_claim(bundle, 0, str(key), "編集部", load_config(config).options.policy.reviews, None)
    page = site / "docs" / "kumo.md"
    text = page.read_text(encoding="utf-8")
    assert dumps_for_script(bundle) in text
    page.write_text(text.replace(dumps_for_script(bundle), dumps_for_script(signed)), encoding="utf-8")
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert (done.returncode, _warnings(done)) == (0, [])
    built = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    assert "・署名: 編集部）</span>" in built
    edited = page.read_text(encoding="utf-8").replace('"status": "matched"', '"status": "partial"', 1)
    page.write_text(edited, encoding="utf-8")
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert done.returncode == 1
    assert f"CE411 [{CLAIM}] the signature of 編集部 does not match this review" in done.stderr
