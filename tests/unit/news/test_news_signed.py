"""The correction registry's reviews are verified like a page's when the site has ``[reviews]``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claim_evidence import Policy
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._commands.prepublish import check_site
from claim_evidence._site.config import load_config
from claim_evidence.news import (
    CorrectionRegistry,
    CorrectionRegistryError,
    apply_article_correction,
    check_derived_outputs,
    load_corrections,
    render_daily_page,
    render_top_page,
)

from ...news_support import DATE, URL, example_items, registry_value, write_registry
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


def _signed_news_site(keys: Keys, folder: Path) -> tuple[Path, CorrectionRegistry, list[dict[str, Any]]]:
    """A site whose registry's first claim is signed by 編集部, with ``show_signer`` on and the Top page
    registered under ``[news]``; the registry as prepublish loads it, and the example items corrected."""
    key = keys.make("reviewer")
    news = '\n[news]\ncorrections = "corrections.json"\npages = ["top.html"]\n'
    config = site(folder, keys.line("編集部", key), "show_signer = true\n" + news)
    options = load_config(config).options
    value = registry_value()
    value[URL]["claim_evidence"] = sign_claim(
        value[URL]["claim_evidence"], 0, str(key), "編集部", options.policy.reviews, None
    )
    registry = load_corrections(write_registry(folder, value), policy=options.policy)
    return config, registry, [apply_article_correction(item, registry) for item in example_items()]


def test_news_pages_name_the_signer_with_show_signer(keys: Keys, tmp_path: Path) -> None:
    config, registry, items = _signed_news_site(keys, tmp_path / "site")
    for render in (render_top_page, render_daily_page):
        shown = render(items, date=DATE, show_signer=True)
        assert shown.count("・署名: 編集部）</span>") == 1  # the signed claim only; the others are unsigned
        plain = render(items, date=DATE)
        assert "署名" not in plain
        assert plain == render(items, date=DATE, show_signer=False)


def test_prepublish_compares_list_pages_rendered_with_show_signer(keys: Keys, tmp_path: Path) -> None:
    config, registry, items = _signed_news_site(keys, tmp_path / "site")
    page = tmp_path / "site" / "top.html"
    page.write_text(render_top_page(items, date=DATE, show_signer=True), encoding="utf-8")
    (result,) = [r for r in check_site(load_config(config)) if r.path == URL]
    assert [d.code for d in result.diagnostics if d.is_error] == []
    assert result.detail == "1 derived copy match the registry"
    # Pages rendered without the signer are stale for a site that shows it: prepublish says so (NW421).
    page.write_text(render_top_page(items, date=DATE), encoding="utf-8")
    (result,) = [r for r in check_site(load_config(config)) if r.path == URL]
    assert [d.code for d in result.diagnostics if d.is_error] == ["NW421"]
    (result,) = check_derived_outputs(registry, pages=[page])  # as the page was rendered
    assert [d.code for d in result.diagnostics if d.is_error] == []
