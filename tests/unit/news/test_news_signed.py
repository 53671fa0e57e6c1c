"""The correction registry's reviews are verified like a page's when the site has ``[reviews]``."""

from __future__ import annotations

from pathlib import Path

import pytest

from claim_evidence import Policy
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._site.config import load_config
from claim_evidence.news import CorrectionRegistryError, load_corrections

from ...news_support import URL, registry_value, write_registry
from ...signing_support import Keys, keys, site

__all__ = ["keys"]


def test_news_registry_signatures_verified(keys: Keys, tmp_path: Path) -> None:
    key = keys.make("reviewer", "rsa")
    reviews = load_config(site(tmp_path / "site", keys.line("編集部", key))).options.policy.reviews
    policy = Policy(reviews=reviews)
    value = registry_value()
    value[URL]["claim_evidence"] = sign_claim(value[URL]["claim_evidence"], 0, str(key), "編集部", reviews, None)
    registry = load_corrections(write_registry(tmp_path, value), policy=policy)
    # The registry's other claims are reviewed but unsigned: a note each (require_signature is false).
    assert {(d.code, d.severity) for d in registry.diagnostics} == {("CE414", "note")}
    value[URL]["claim_evidence"]["claims"][0]["verification"]["method"] = "operator_test"
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(write_registry(tmp_path, value), policy=policy)
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [
        ("CE411", f'$["{URL}"].claim_evidence.claims[0].verification.signature')
    ]
