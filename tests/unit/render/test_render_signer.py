"""The block names the signer of a signed review only when the site turns it on (``[reviews] show_signer``)."""

from __future__ import annotations

from typing import Any

from claim_evidence import render_evidence

from .test_render import SEED_BLOCK

SIGNATURE = {"signer": "編集部", "sig": "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"}
LINE = '<span>照合 <time datetime="2026-09-05">2026-09-05</time>（AIによる資料照合）</span>'


def test_render_signer_shown_only_when_turned_on(bundle: dict[str, Any], subject: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["signature"] = SIGNATURE
    assert render_evidence(bundle, subject=subject) == SEED_BLOCK
    shown = render_evidence(bundle, subject=subject, show_signer=True)
    assert shown == SEED_BLOCK.replace(
        LINE, '<span>照合 <time datetime="2026-09-05">2026-09-05</time>（AIによる資料照合・署名: 編集部）</span>'
    )
    english = render_evidence(bundle, subject=subject, lang="en", show_signer=True)
    assert "(AI review of documents, signed by 編集部)</span>" in english


def test_render_signer_never_on_an_unsigned_or_invalid_claim(bundle: dict[str, Any], subject: dict[str, Any]) -> None:
    assert render_evidence(bundle, subject=subject, show_signer=True) == SEED_BLOCK
    bundle["claims"][0]["verification"]["signature"] = SIGNATURE
    bundle["claims"][0]["statement"] += "（改変）"  # CE403: the block is unverified and names no one
    assert "署名" not in render_evidence(bundle, subject=subject, show_signer=True)
