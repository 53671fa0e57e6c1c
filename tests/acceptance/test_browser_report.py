"""The site report in headless Chromium: it renders without a request, and axe finds nothing serious.
Skips like test_browser.py when Chromium, chromedriver or axe-core is absent."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence.cli import main

from ..conftest import ROOT
from .test_browser import AXE, _axe, _require_browser, _screenshot, browser  # noqa: F401 - browser is a fixture

pytestmark = pytest.mark.browser


@pytest.fixture
def report_html(tmp_path: Path) -> Path:
    _require_browser()
    site = tmp_path / "site"
    shutil.copytree(ROOT / "examples" / "site", site)  # its [freshness] policy: the defaults, with markers
    out = site / "report.html"
    argv = [
        "report",
        "--config",
        str(site / "claim-evidence.toml"),
        "--today",
        "2026-12-01",
        "--format",
        "html",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    return out


def test_browser_report_renders_and_axe_reports_no_serious_violations(
    browser: Any,  # noqa: F811 - the fixture imported above
    report_html: Path,
    tmp_path: Path,
) -> None:
    if not AXE.exists():
        pytest.skip("axe-core not installed (npm ci --prefix tests/browser; .ci/run does this)")
    browser.get(report_html.as_uri())
    shot = _screenshot(browser, tmp_path / "report.png")
    assert browser.title.startswith("根拠記録の状況"), shot
    charts = browser.execute_script(
        "return [...document.querySelectorAll('svg[role=img]')].map(s => s.getBoundingClientRect().width)"
    )
    assert len(charts) == 2 and all(width > 100 for width in charts), shot
    violations = _axe(browser, "document", "{resultTypes: ['violations']}")
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], f"axe: {serious} (all: {violations}) {shot}"
