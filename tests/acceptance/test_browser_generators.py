"""Generator themes in a real browser: what docs/generators/ promises about them, shown in headless
Chromium (the setup of tests/acceptance/test_browser.py) over a loopback HTTP server.

MkDocs Material's ``navigation.instant`` swaps the page content in place and re-creates every inline
``<script>`` of it from its text alone. docs/generators/mkdocs.md ("Caveats") says what that does to a
page with evidence: the evidence block of the new page shows as built, the bundle script loses
``type="application/json"`` and ``id="claim-evidence-data"`` in the live page (and the browser logs a
SyntaxError for it, as nothing runs), instant navigation keeps working, and the built files are
unchanged (a full load has the bundle script as built). The test proves each of these.
"""

from __future__ import annotations

import copy
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script

from ..conftest import ROOT

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from . import test_browser as chromium  # noqa: E402
from .test_browser import _QuietHandler, _require_browser, _screenshot  # noqa: E402

browser = chromium.browser  # the same fixture: Debian's chromium and chromedriver, with test_browser's flags

GENERATORS = ROOT / "tests" / "data" / "generators"
STYLESHEET = ROOT / "claim_evidence" / "assets" / "claim-evidence.css"
WAIT = 30  # seconds a condition may take to hold (a slow machine), never a measured duration
SCRIPT = re.compile(r'<script type="application/json" id="claim-evidence-data">(.*?)</script>', re.S)
PAGES = {  # page: (claim id, label, statement) — b.md's record is a.md's with another claim
    "a": ("KUMO-SPEED", "処理速度", "クモエンジンは前世代より処理速度が大幅に向上した。"),
    "b": ("SORA-POWER", "消費電力", "ソラエンジンは前世代より消費電力が大幅に低下した。"),
}


def _bundle(claim_id: str, label: str, statement: str) -> dict[str, Any]:
    bundle: dict[str, Any] = copy.deepcopy(json.loads((GENERATORS / "bundle.json").read_text(encoding="utf-8")))
    claim = bundle["claims"][0]
    claim.update(id=claim_id, label=label, statement=statement)
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    return bundle


@dataclass
class Built:
    url: str  # where the loopback server serves the built site
    site: Path  # the built site (mkdocs build's site/)
    scripts: dict[str, str]  # page -> the text of its bundle script, as built


@pytest.fixture(scope="module")
def material(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """tests/data/generators/material built with ``navigation.instant`` and the plugin, served on
    127.0.0.1; the server is bound first, since Material navigates instantly only to the URLs in its
    sitemap, which ``site_url`` writes."""
    _require_browser()
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material")):
        if find_spec(module) is None:
            pytest.skip(f"{package} not installed (pip install -e '.[test]')")
    project = tmp_path_factory.mktemp("material") / "project"
    shutil.copytree(GENERATORS / "material", project)
    (project / "docs" / "assets").mkdir()
    shutil.copyfile(STYLESHEET, project / "docs" / "assets" / "claim-evidence.css")
    for page, record in PAGES.items():
        source = project / "docs" / f"{page}.md"
        source.write_text(
            source.read_text(encoding="utf-8").replace("@BUNDLE@", dumps_for_script(_bundle(*record))), encoding="utf-8"
        )
    site = project / "site"
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("@SITE_URL@", url + "/"), encoding="utf-8")
    # NO_MKDOCS_2_WARNING: Material's banner about MkDocs 2.0 on every build, in colour whatever NO_COLOR says
    env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    scripts = {}
    for page in PAGES:
        (script,) = SCRIPT.findall((site / page / "index.html").read_text(encoding="utf-8"))
        scripts[page] = script
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Built(url, site, scripts)
    finally:
        httpd.shutdown()
        httpd.server_close()


def _until(browser: Any, script: str, shot: str) -> None:
    """Wait until the JavaScript expression ``script`` is true (what the page does next is asynchronous)."""
    WebDriverWait(browser, WAIT).until(
        lambda b: b.execute_script(f"return !!({script})"), f"never true: {script} {shot}"
    )


def _live_bundle(browser: Any) -> list[Any] | None:
    """``[type, text]`` of the element with id ``claim-evidence-data`` in the live page, else None."""
    found: list[Any] | None = browser.execute_script(
        "const s = document.getElementById('claim-evidence-data'); return s && [s.getAttribute('type'), s.textContent]"
    )
    return found


def _bundle_scripts(browser: Any, built: Built) -> list[list[Any]]:
    """Every ``<script>`` in Material's content container that holds a page's records (Material has
    inline scripts of its own there): its attribute names and its text."""
    found: list[list[Any]] = browser.execute_script(
        "return [...document.querySelectorAll('[data-md-component=container] script')]"
        ".filter(s => arguments[0].includes(s.textContent)).map(s => [s.getAttributeNames(), s.textContent])",
        list(built.scripts.values()),
    )
    return found


def _block_shown(browser: Any, page: str, shot: str) -> None:
    claim_id, label, _ = PAGES[page]
    block = browser.find_element(By.ID, f"evidence-{claim_id}")
    assert block.is_displayed(), shot
    line = block.find_element(By.CLASS_NAME, "claim-evidence-line")
    assert line.is_displayed() and line.text.startswith(label), shot
    assert block.find_element(By.CLASS_NAME, "claim-evidence-status").text == "資料との照合済み", shot
    other = next(cid for p, (cid, _, _) in PAGES.items() if p != page)
    assert browser.find_elements(By.ID, f"evidence-{other}") == [], shot


def _follow(browser: Any, built: Built, page: str, shot: str) -> None:
    """Click the article's link to ``page`` and wait until Material has swapped its content in and
    re-created its scripts."""
    claim_id = PAGES[page][0]
    link = browser.execute_script(
        f"return [...document.querySelectorAll('article a')].find(a => a.href === '{built.url}/{page}/')"
    )
    assert link is not None, f"no link to {page} {shot}"
    link.click()
    _until(
        browser, f"location.pathname === '/{page}/' && document.querySelector('[data-claim-id=\"{claim_id}\"]')", shot
    )
    _until(
        browser,
        "[...document.querySelectorAll('[data-md-component=container] script')].every(s => !s.hasAttribute('type'))",
        shot,
    )


def test_browser_material_instant_navigation_keeps_the_evidence_block_and_strips_the_bundle_script(
    browser: Any, material: Built, tmp_path: Path
) -> None:
    browser.get_log("browser")  # drop what earlier tests logged
    browser.get(f"{material.url}/a/")
    _until(browser, "document.readyState === 'complete'", "")
    shot = _screenshot(browser, tmp_path / "a.png")
    _block_shown(browser, "a", shot)
    assert _live_bundle(browser) == ["application/json", material.scripts["a"]], shot  # a full load: as built
    assert browser.get_log("browser") == [], shot
    browser.execute_script("window.claimEvidenceLoaded = 'a'")  # gone after a full load; kept by instant navigation

    _follow(browser, material, "b", shot)
    shot = _screenshot(browser, tmp_path / "b-instant.png")
    assert browser.execute_script("return window.claimEvidenceLoaded") == "a", (
        f"a full load, not instant navigation {shot}"
    )
    _block_shown(browser, "b", shot)  # page b's evidence block, shown as built
    # The bundle script, re-created from its text: no type, no id; page b's records, not page a's.
    assert _live_bundle(browser) is None, shot
    assert _bundle_scripts(browser, material) == [[[], material.scripts["b"]]], shot
    assert material.scripts["a"] not in browser.execute_script("return document.documentElement.outerHTML"), shot
    # As a classic script the JSON is a syntax error: the browser says so, and nothing runs.
    logged = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert [m for m in logged if "Uncaught SyntaxError" in m and "Unexpected token ':'" in m], (logged, shot)

    _follow(browser, material, "a", shot)  # instant navigation keeps working, back to page a
    shot = _screenshot(browser, tmp_path / "a-instant.png")
    assert browser.execute_script("return window.claimEvidenceLoaded") == "a", shot
    _block_shown(browser, "a", shot)
    assert _live_bundle(browser) is None and _bundle_scripts(browser, material) == [[[], material.scripts["a"]]], shot

    # The built files are unchanged: a full load of page b has its bundle script as built.
    browser.get(f"{material.url}/b/")
    _until(browser, "document.readyState === 'complete'", shot)
    shot = _screenshot(browser, tmp_path / "b-loaded.png")
    assert browser.execute_script("return window.claimEvidenceLoaded") is None, shot
    _block_shown(browser, "b", shot)
    assert _live_bundle(browser) == ["application/json", material.scripts["b"]], shot
    assert SCRIPT.findall((material.site / "b" / "index.html").read_text(encoding="utf-8")) == [material.scripts["b"]]
