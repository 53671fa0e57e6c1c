"""The example site in a real browser: headless Chromium (Debian's chromium +
chromium-driver) over a loopback HTTP server, driven by Selenium, audited by
axe-core. Skips with a one-line reason when any of those is absent."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT

pytestmark = pytest.mark.browser

SITE = ROOT / "examples" / "site"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
AXE = ROOT / "tests" / "browser" / "node_modules" / "axe-core" / "axe.min.js"

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def _require_browser() -> None:
    if not Path(CHROMIUM).exists() or not Path(CHROMEDRIVER).exists():
        pytest.skip("Chromium not installed (apt-get install chromium chromium-driver; .ci/run does this)")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        # Chromium asks every new origin for /favicon.ico by itself, and logs the example site's 404 as a
        # console error of whichever page the browser opened first: with the tests spread over processes,
        # that may be the page whose console is checked. It is no request of the page's: answered empty.
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    _require_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1200,2000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    # Chromium may still be loading its new-tab page when the session starts; a first page opened over it
    # then logs the new tab's chrome:// requests as its own, or a screenshot is cut off by its navigation
    # (seen under load, tests on every core). A blank page, loaded first, ends it.
    driver.get("about:blank")
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser: Any, url: str) -> None:
    browser.get_log("performance")  # drop what earlier pages logged
    browser.get_log("browser")
    browser.get(url)


def _requests(browser: Any) -> list[str]:
    urls = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _axe(browser: Any, context: str, options: str) -> list[dict[str, Any]]:
    """axe-core's violations (id, impact, node count) for the JavaScript ``context`` and ``options``."""
    browser.execute_script(AXE.read_text(encoding="utf-8"))
    browser.set_script_timeout(30)
    found: list[dict[str, Any]] = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"axe.run({context}, {options})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', nodes: String(e)}]));"
    )
    return found


def _screenshot(browser: Any, path: Path) -> str:
    browser.save_screenshot(str(path))
    return f"(screenshot: {path})"


PAGES = [
    ("articles/kumo-engine-3.html", "KUMO-SPEED", "資料との照合済み"),
    ("slides/day-2026-09-04.html", "S1-SCORE", "資料との照合済み"),
    ("about.html", "ABOUT-CORRECTIONS", "未確認・根拠未登録"),
    ("notes/ame-free-tier.html", "ODD-LIMIT", "資料との照合済み"),
]


@pytest.mark.parametrize("page, claim_id, status", PAGES, ids=[p[0] for p in PAGES])
def test_browser_evidence_block_visible_beside_claim(
    browser: Any, server: str, tmp_path: Path, page: str, claim_id: str, status: str
) -> None:
    _open(browser, f"{server}/{page}")
    shot = _screenshot(browser, tmp_path / "page.png")
    claim = browser.find_element(By.CSS_SELECTOR, f'[data-claim-id="{claim_id}"]')
    block = browser.find_element(By.ID, f"evidence-{claim_id}")
    assert block.is_displayed(), shot
    claim_bottom = claim.location["y"] + claim.size["height"]
    gap = block.location["y"] - claim_bottom
    assert 0 <= gap < 120, f"evidence block is {gap}px from its claim {shot}"
    status_el = block.find_element(By.CLASS_NAME, "claim-evidence-status")
    assert status_el.is_displayed() and status_el.text == status, shot
    line = block.find_element(By.CLASS_NAME, "claim-evidence-line")
    assert line.is_displayed() and ("照合" in line.text), shot
    statement = block.find_element(By.CLASS_NAME, "claim-evidence-statement")
    assert not statement.is_displayed(), f"details should start closed {shot}"


def test_browser_limits_visible_without_opening(browser: Any, server: str, tmp_path: Path) -> None:
    _open(browser, f"{server}/articles/kumo-engine-3.html")
    shot = _screenshot(browser, tmp_path / "page.png")
    limits = browser.find_element(By.CSS_SELECTOR, "#evidence-KUMO-SPEED .claim-evidence-limits")
    assert limits.is_displayed(), shot
    assert limits.text == "適用・制限: 架空クモ社の社内ベンチマーク / バッチサイズ 8 / 第三者による再測定は未確認", shot
    conflict = browser.find_element(By.CSS_SELECTOR, "#evidence-KUMO-MEASURED .claim-evidence-status")
    assert conflict.text == "資料間に不一致あり", shot


def test_browser_keyboard_tab_reaches_summary_and_enter_opens(browser: Any, server: str, tmp_path: Path) -> None:
    _open(browser, f"{server}/about.html")
    shot = _screenshot(browser, tmp_path / "page.png")
    body = browser.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(40):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
        if active.tag_name.lower() == "summary":
            break
    else:
        pytest.fail(f"Tab never reached a <summary> {shot}")
    details = active.find_element(By.XPATH, "..")
    assert details.get_attribute("open") is None, shot
    active.send_keys(Keys.ENTER)
    assert details.get_attribute("open") == "true", shot
    statement = details.find_element(By.CLASS_NAME, "claim-evidence-statement")
    assert statement.is_displayed(), shot
    assert statement.text == "照合対象: 記事の下書きには生成AIを使い、公開前に編集者が資料と照合する。", shot


def test_browser_sources_summary_lists_sources_and_leads_to_the_blocks(
    browser: Any, server: str, tmp_path: Path
) -> None:
    """The example article's "sources this page relies on" block: a labelled region with its heading, one
    item per cited source with a freshness marker in words, and claim links a keyboard reaches and follows."""
    _open(browser, f"{server}/articles/kumo-engine-3.html")
    summary = browser.find_element(By.CSS_SELECTOR, "[data-evidence-summary] section.claim-evidence-summary")
    browser.execute_script("arguments[0].scrollIntoView()", summary)
    shot = _screenshot(browser, tmp_path / "summary.png")
    assert summary.is_displayed(), shot
    heading = summary.find_element(By.TAG_NAME, "h2")
    assert heading.text == "このページが依拠する資料" and summary.get_attribute(
        "aria-labelledby"
    ) == heading.get_attribute("id"), shot
    items = summary.find_elements(By.CSS_SELECTOR, "ol > li")
    assert [i.text.split(" — ")[0] for i in items] == ["架空クモ社", "架空クモ社", "架空ソラ研究所", "架空ホシ新聞"], (
        shot
    )
    marker = items[3].find_element(By.CLASS_NAME, "claim-evidence-freshness")
    assert marker.text == "🟡 [90日] 照合 2026-09-05 · まもなく再確認（2026-12-04まで）" and marker.is_displayed(), shot
    symbol = marker.find_element(By.CSS_SELECTOR, "[aria-hidden=true]")
    assert symbol.text == "🟡", shot  # decoration only: the words say it
    link = items[1].find_element(By.CSS_SELECTOR, 'a[href="#evidence-KUMO-SPEED"]')
    browser.find_element(By.TAG_NAME, "body").click()
    for _ in range(80):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        if browser.switch_to.active_element == link:
            break
    else:
        pytest.fail(f"Tab never reached the claim link in the summary {shot}")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    assert browser.current_url.endswith("#evidence-KUMO-SPEED"), shot
    target = browser.find_element(By.ID, "evidence-KUMO-SPEED")
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", target)
    assert 0 <= top < browser.execute_script("return window.innerHeight"), _screenshot(
        browser, tmp_path / "followed.png"
    )


@pytest.mark.parametrize("page", [p[0] for p in PAGES])
def test_browser_no_outside_requests_and_no_console_errors(
    browser: Any, server: str, tmp_path: Path, page: str
) -> None:
    _open(browser, f"{server}/{page}")
    shot = _screenshot(browser, tmp_path / "page.png")
    outside = [u for u in _requests(browser) if not (u.startswith(server + "/") or u.startswith("data:"))]
    assert outside == [], f"requests left loopback: {outside} {shot}"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors} {shot}"


@pytest.mark.parametrize("page", [p[0] for p in PAGES])
def test_browser_axe_reports_no_serious_violations(browser: Any, server: str, tmp_path: Path, page: str) -> None:
    if not AXE.exists():
        pytest.skip("axe-core not installed (npm ci --prefix tests/browser; .ci/run does this)")
    _open(browser, f"{server}/{page}")
    shot = _screenshot(browser, tmp_path / "page.png")
    violations = _axe(browser, "document", "{resultTypes: ['violations']}")
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], f"axe: {serious} (all: {violations}) {shot}"


THEMES = {
    # A site's own themes, as a generator's light/dark toggle sets them (not the OS setting).
    "light": "document.body.style.background = '#ffffff'; document.body.style.color = '#1f2328';",
    "dark": "document.body.style.background = '#0d1117'; document.body.style.color = '#e6edf3';"
    "for (const a of document.querySelectorAll('a')) a.style.color = '#58a6ff';",
}


def _luminance(css_color: str) -> float:
    """Relative luminance of an ``rgb(…)``/``rgba(…)`` computed colour (alpha ignored)."""
    parts = [
        float(x) for x in css_color[css_color.index("(") + 1 : css_color.index(")")].replace("/", ",").split(",")[:3]
    ]
    channels = [c / 255 for c in parts]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_browser_block_follows_the_site_theme(browser: Any, server: str, tmp_path: Path, theme: str) -> None:
    """The card takes its colours from the surrounding text, so it reads on a light and on a dark theme
    alike; the screenshots are kept beside the test's temporary files."""
    _open(browser, f"{server}/articles/kumo-engine-3.html")
    browser.execute_script(THEMES[theme])
    aside = browser.find_element(By.CSS_SELECTOR, "#evidence-KUMO-SPEED")
    shot = _screenshot(browser, tmp_path / f"theme-{theme}.png")
    body_color = browser.execute_script("return getComputedStyle(document.body).color")
    text_color = browser.execute_script("return getComputedStyle(arguments[0]).color", aside)
    page_bg = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert text_color == body_color, shot
    # The card has no fill of its own (the page shows through; a site may set --ce-bg): the text is read on the page.
    text, background = _luminance(text_color), _luminance(page_bg)
    contrast = (max(text, background) + 0.05) / (min(text, background) + 0.05)
    assert contrast > 7, f"{theme}: {text_color} on {page_bg} {shot}"
    if AXE.exists():
        violations = _axe(browser, "document.querySelectorAll('aside.claim-evidence')", "{runOnly: ['color-contrast']}")
        assert violations == [], f"{theme}: color-contrast {violations} {shot}"


# A label with an unbalanced RIGHT-TO-LEFT OVERRIDE, and a 120-character unbroken token (issue #31, item 12).
_RLO_LABEL = "\u202eラベル"
_TOKEN = "X" * 120


def _hostile_block_page(tmp_path: Path) -> Path:
    """Two evidence blocks, 500 px wide, with the packaged stylesheet: one sealed block whose label opens
    a bidi override it never closes, one whose every record field is a 120-character unbroken token."""
    import copy

    from claim_evidence import render_evidence

    from ..conftest import _BUNDLE

    bidi = copy.deepcopy(_BUNDLE)
    bidi["claims"][0]["label"] = _RLO_LABEL  # the label is not sealed: the block stays verified
    wide = copy.deepcopy(_BUNDLE)
    claim, source = wide["claims"][0], wide["sources"][0]
    claim.update(
        id="wide", label=_TOKEN, statement=_TOKEN, evidence_label=_TOKEN, conditions=[_TOKEN], uncertainty=_TOKEN
    )
    claim["source_refs"][0].update(section=_TOKEN, supports=_TOKEN, quote={"exact": _TOKEN})
    claim["verification"]["note"] = _TOKEN
    source.update(publisher=_TOKEN, title=_TOKEN, url="https://example.com/" + _TOKEN)
    css = (ROOT / "claim_evidence" / "assets" / "claim-evidence.css").read_text(encoding="utf-8")
    page = tmp_path / "hostile.html"
    page.write_text(
        '<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>hostile</title>'
        f'<style>{css}</style></head><body style="margin:0"><main style="width:500px">'
        f"{render_evidence(bidi)}{render_evidence(wide)}</main></body></html>",
        encoding="utf-8",
    )
    return page


def test_browser_hostile_label_and_long_token_stay_inside_the_block(browser: Any, tmp_path: Path) -> None:
    _require_browser()
    _open(browser, _hostile_block_page(tmp_path).as_uri())
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    shot = _screenshot(browser, tmp_path / "hostile.png")
    found = browser.execute_script(
        """
        const [bidi, wide] = document.querySelectorAll('aside.claim-evidence');
        const line = bidi.querySelector('.claim-evidence-line');
        const parts = Array.from(line.children).map(e => e.getClientRects()[0]);  // a wrapped span: its first line
        const box = wide.getBoundingClientRect();
        const outside = Array.from(wide.querySelectorAll('*'))
          .filter(e => e.getBoundingClientRect().right > box.right + 0.5 || e.getBoundingClientRect().left < box.left - 0.5)
          .map(e => e.tagName + '.' + e.className);
        return {
          lefts: parts.map(r => Math.round(r.left)),
          tops: parts.map(r => Math.round(r.top)),
          label_bidi: getComputedStyle(line.querySelector('strong')).unicodeBidi,
          status: line.querySelector('.claim-evidence-status').textContent,
          overflow: [wide.scrollWidth, wide.clientWidth, document.documentElement.scrollWidth],
          outside: outside,
          width: Math.round(box.width),
        };
        """
    )
    assert found["width"] == 500, shot
    assert found["label_bidi"] == "isolate", shot
    assert len(set(found["tops"])) == 1, f"status line wraps {found} {shot}"
    assert found["lefts"] == sorted(found["lefts"]), f"status line reordered by the label's override {found} {shot}"
    assert found["status"] == "資料との照合済み", shot
    scroll, client, page_width = found["overflow"]
    assert scroll <= client and page_width <= 1200, f"block overflows {found} {shot}"
    assert found["outside"] == [], f"fields overflow the block {found} {shot}"


# Every text field a record supplies, each opening an override it never closes (issue #31, item 12).
_BIDI_FIELDS = ("label", "statement", "uncertainty", "section", "supports", "publisher", "title", "note")


def _bidi_bundle(field_text: Any) -> dict[str, Any]:
    """The sealed test bundle with ``field_text(value)`` in place of every field of ``_BIDI_FIELDS``
    (and each condition), sealed again so the block renders verified with its review date and method."""
    import copy

    from claim_evidence import claim_fingerprint

    from ..conftest import _BUNDLE

    bundle = copy.deepcopy(_BUNDLE)
    claim, source, ref = bundle["claims"][0], bundle["sources"][0], bundle["claims"][0]["source_refs"][0]
    claim.update(label=field_text("公表値"), statement=field_text("達成率は七割と公表した"))
    claim.update(uncertainty=field_text("再測定は未実施"))  # evidence_label is a word of the vocabulary
    claim["conditions"] = [field_text("固定条件"), field_text("説明用データ")]
    ref.update(section=field_text("結果"), supports=field_text("公表したという主張"))
    source.update(publisher=field_text("架空ベンダー"), title=field_text("架空レポート"))
    claim["verification"]["note"] = field_text("確認メモ")
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    return bundle


def test_browser_overrides_in_record_fields_reverse_only_their_own_text(browser: Any, tmp_path: Path) -> None:
    """Screenshots: a block (and a summary) whose every record field opens U+202E looks exactly like
    the same markup with each field written backwards and the control removed. So each override
    reversed its own field and nothing after it: not the status, date and method on the first line,
    nor the fixed phrases that share an element with a field ("の根拠", "該当箇所:", "—", " / ")."""
    _require_browser()
    import re

    from claim_evidence import render_evidence
    from claim_evidence._render.summary import render_summary

    def blocks(bundle: dict[str, Any]) -> str:
        return render_evidence(bundle) + render_summary(bundle, ["fictional-rate"], invalid=False)

    # Text without right-to-left letters or controls renders exactly as before: no <bdi> at all.
    assert "<bdi>" not in blocks(_bidi_bundle(lambda s: s[::-1]))
    override = blocks(_bidi_bundle(lambda s: "\u202e" + s))
    reference = re.sub("<bdi>\u202e([^<]*)</bdi>", lambda m: f"<bdi>{m[1][::-1]}</bdi>", override)
    assert "\u202e" not in reference, "a field's override is outside its own <bdi>"
    # The block: label twice, 2 conditions and the uncertainty, statement, section, supports, publisher,
    # title, note; the summary: publisher, title, label.
    assert reference.count("<bdi>") == 14

    css = (ROOT / "claim_evidence" / "assets" / "claim-evidence.css").read_text(encoding="utf-8")
    shots = {}
    for name, markup in (("override", override), ("reference", reference)):
        page = tmp_path / f"bidi-{name}.html"
        page.write_text(
            '<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>bidi</title>'
            f'<style>{css}</style></head><body style="margin:0"><main style="width:900px">{markup}</main></body></html>',
            encoding="utf-8",
        )
        _open(browser, page.as_uri())
        browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        status = browser.execute_script("return document.querySelector('.claim-evidence-status').textContent")
        assert status == "資料との照合済み", name
        shots[name] = [element.screenshot_as_png for element in browser.find_elements(By.CSS_SELECTOR, "main > *")]
    assert len(shots["override"]) == len(shots["reference"]) == 2
    for index, (got, expected) in enumerate(zip(shots["override"], shots["reference"], strict=True)):
        if got != expected:
            (tmp_path / f"bidi-{index}-override.png").write_bytes(got)
            (tmp_path / f"bidi-{index}-reference.png").write_bytes(expected)
        assert got == expected, f"element {index} differs: screenshots in {tmp_path}"
