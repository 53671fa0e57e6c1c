"""The Pelican plugin verifies review signatures with the site's ``[reviews]``, in a real ``pelican``
build: the block names the signer (``show_signer``), and a status edited after signing fails the
``--fatal warnings`` build with CE411 at the Markdown line of the signature."""

from __future__ import annotations

from pathlib import Path

from ...signing_support import Keys, keys
from .test_integrations import CLAIM, SIGNER, _line_of, _needs, _pelican, _signed_site, _tamper_status

__all__ = ["keys"]


def test_pelican_verifies_review_signatures(keys: Keys, tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site = _signed_site(keys, tmp_path, "pelican")
    done = _pelican(site, True, fatal=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"・署名: {SIGNER}）</span>" in (site / "output" / "kumo-ja.html").read_text(encoding="utf-8")
    source = site / "content" / "kumo.md"
    _tamper_status(source)
    done = _pelican(site, True, fatal=True)
    assert done.returncode == 1
    log = " ".join((done.stdout + done.stderr).split())  # Pelican's console wraps long lines
    line = _line_of(source, '"signature"')
    expected = f"claim-evidence: content/kumo.md:{line}: CE411 [{CLAIM}] the signature of {SIGNER} does not match"
    assert expected in log
