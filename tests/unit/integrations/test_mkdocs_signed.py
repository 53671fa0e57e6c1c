"""The MkDocs plugin verifies review signatures with the site's ``[reviews]``, in a real ``mkdocs build``:
the block names the signer (``show_signer``), and a status edited after signing fails the strict build."""

from __future__ import annotations

from pathlib import Path

from ...signing_support import Keys, keys
from .test_integrations import CLAIM, SIGNER, _line_of, _mkdocs, _needs, _signed_site, _tamper_status, _warnings

__all__ = ["keys"]


def test_mkdocs_verifies_review_signatures(keys: Keys, tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site = _signed_site(keys, tmp_path, "mkdocs")
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert (done.returncode, _warnings(done)) == (0, [])
    built = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    assert f"・署名: {SIGNER}）</span>" in built
    page = site / "docs" / "kumo.md"
    _tamper_status(page)
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert done.returncode == 1
    line = _line_of(page, '"signature"')
    (warning,) = [w for w in _warnings(done) if " CE411 " in w]
    assert f"docs/kumo.md:{line}: CE411 [{CLAIM}] the signature of {SIGNER} does not match this review" in warning
