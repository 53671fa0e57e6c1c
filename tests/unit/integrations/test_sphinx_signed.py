"""The Sphinx extension verifies review signatures with the site's ``[reviews]``, in a real ``sphinx``
build: the block names the signer (``show_signer``), and a status edited after signing fails the ``-W``
build with CE411 at the reST line of the signature."""

from __future__ import annotations

from pathlib import Path

from ...signing_support import Keys, keys
from .test_integrations import CLAIM, SIGNER, _line_of, _needs, _signed_site, _sphinx, _tamper_status

__all__ = ["keys"]


def test_sphinx_verifies_review_signatures(keys: Keys, tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site = _signed_site(keys, tmp_path, "sphinx")
    done = _sphinx(site, True, strict=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert f"・署名: {SIGNER}）</span>" in (site / "_build" / "kumo.html").read_text(encoding="utf-8")
    source = site / "kumo.rst"
    _tamper_status(source)
    done = _sphinx(site, True, strict=True)
    assert done.returncode == 1
    line = _line_of(source, '"signature"')
    expected = (
        f"{source}:{line}: WARNING: claim-evidence: CE411 [{CLAIM}] the signature of {SIGNER} does not match "
        "this review (claim id, fingerprint, status, checked_at, method, review_by, signer)"
    )
    (warning,) = [w for w in done.stderr.splitlines() if w.startswith(expected)]
    assert f"claim-evidence review record kumo.rst --claim {CLAIM} --method … --checked-at … --sign" in warning
    assert warning.endswith(" [claim_evidence.CE411]")
