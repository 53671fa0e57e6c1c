"""The chat widget in headless Chromium against the real endpoint (uvicorn on 127.0.0.1 in a thread)
and the fake model: what it renders, the keyboard, the copy button, errors, and axe. Skips like
test_browser.py when Chromium, chromedriver, Selenium or axe-core is absent."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from claim_evidence.cli import main as claim_evidence_main

from ..conftest import ROOT
from . import test_browser
from .test_browser import AXE, THEMES, _axe, _requests, _require_browser, _screenshot

browser = test_browser.browser  # the module-scoped headless Chromium fixture, shared with test_browser.py

pytestmark = pytest.mark.browser

pytest.importorskip("starlette", reason="the chat extra is not installed (pip install -e '.[test]')")
pytest.importorskip("anthropic", reason="the chat extra is not installed (pip install -e '.[test]')")
uvicorn = pytest.importorskip("uvicorn", reason="the chat extra is not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from claim_evidence.chat import ChatSettings, create_app  # noqa: E402
from claim_evidence.chat.fakemodel import FakeModel, error, grounded_answer  # noqa: E402

KEY = "sk-ant-browser-test-key"
QUESTION = "クモエンジン 3 の公称処理速度は？"
NOTE_JA = "各項目の状態タグは、引用した資料に記録された状態を書き写したものです。この回答の正しさを保証するものではありません。"
NOTE_EN = "Item tags transcribe the state recorded in the cited material. They do not vouch for this answer."
EN_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Ask the records</title>
<link rel="stylesheet" href="/chat-widget/chat.css"><script src="/chat-widget/chat.js" defer></script></head>
<body><main><h1>Ask the records</h1><div data-claim-evidence-chat data-endpoint="/api/chat"></div></main></body>
</html>
"""
# The floating launcher: one script tag on a page that has no widget and no stylesheet of it.
LAUNCHER_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head><meta charset="utf-8"><title>An article</title><link rel="icon" href="data:,">
<script src="/chat-widget/chat.js" data-claim-evidence-chat-launcher defer></script></head>
<body><main><h1>An article</h1><p>Any page of the site.</p><p><a href="/chat.html">A link</a></p></main></body>
</html>
"""
COPY_STUB = (
    "window.__copied = [];"
    "Object.defineProperty(navigator, 'clipboard', {configurable: true, value: {writeText: function (text) {"
    " window.__copied.push(text); return Promise.resolve(); }}});"
)


class ChatServer:
    def __init__(self, url: str, fake: FakeModel) -> None:
        self.url, self.fake = url, fake

    def answer(self, question: str, lang: str = "ja") -> dict[str, Any]:
        """What the endpoint answers (the same as the widget gets: the fake model is deterministic)."""
        response = httpx.post(
            f"{self.url}/api/chat", json={"question": question, "history": [], "lang": lang}, timeout=30
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    _require_browser()
    work = tmp_path_factory.mktemp("chat")
    site = work / "site"
    shutil.copytree(ROOT / "examples" / "site", site)
    (site / "chat-en.html").write_text(EN_PAGE, encoding="utf-8")
    for lang in ("ja", "en"):
        (site / f"launcher-{lang}.html").write_text(LAUNCHER_PAGE.replace("{lang}", lang), encoding="utf-8")
    kb = work / "kb.json"
    assert (
        claim_evidence_main(
            ["kb", "build", "--config", str(site / "claim-evidence.toml"), "--today", "2026-12-01", "--out", str(kb)]
        )
        == 0
    )
    with FakeModel(grounded_answer, reported_model="fake-browser-model", api_key=KEY, lifetime=300.0) as fake:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ANTHROPIC_API_KEY", KEY)
            app = create_app(
                ChatSettings(kb_path=kb, site_dir=site, base_url=fake.url, rate_burst=1000, rate_per_minute=6000.0)
            )
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="chat-uvicorn", daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not server.started:
            pytest.fail("the chat endpoint did not start on 127.0.0.1")
        try:
            yield ChatServer(f"http://127.0.0.1:{sock.getsockname()[1]}", fake)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            sock.close()


def _open(browser: Any, url: str) -> None:
    browser.get_log("performance")
    browser.get_log("browser")
    browser.get(url)
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-form"))


def _field(browser: Any) -> Any:
    label = browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-label")
    return browser.find_element(By.ID, label.get_attribute("for"))


def _answers(browser: Any) -> list[Any]:
    found: list[Any] = browser.find_elements(By.CSS_SELECTOR, "article.claim-evidence-chat-answer")
    return found


def _status(browser: Any) -> Any:
    return browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat [role=status]")


def _wait_for_answers(browser: Any, count: int) -> Any:
    WebDriverWait(browser, 20).until(lambda d: len(_answers(d)) >= count)
    return _answers(browser)[count - 1]


def _wait_idle(browser: Any) -> None:
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-submit").is_enabled()
    )


def _ask(browser: Any, question: str) -> None:
    field = _field(browser)
    field.clear()
    field.send_keys(question)
    browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-submit").click()


def _texts(article: Any, selector: str) -> list[str]:
    return [e.text for e in article.find_elements(By.CSS_SELECTOR, selector)]


def test_browser_chat_renders_answer_state_items_sources_and_note(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    expected = chat_server.answer(QUESTION)
    _open(browser, f"{chat_server.url}/chat.html")
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "answer.png")
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-text").text == expected["answer"], shot
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-state").text == expected["state"], shot
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-ai").text == "AI生成・未検証", shot
    assert expected["confirmed"] and _texts(article, ".claim-evidence-chat-confirmed li") == expected["confirmed"], shot
    assert _texts(article, ".claim-evidence-chat-unknown li") == expected["unknown"], shot
    tags = [
        t.get_attribute("data-state")
        for t in article.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-confirmed .claim-evidence-chat-tag")
    ]
    assert tags == [item[1 : item.index("]")] for item in expected["confirmed"]], shot
    links = article.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-sources a")
    assert [(a.text, a.get_attribute("href")) for a in links] == [
        (s["title"], chat_server.url + s["url"]) for s in expected["sources"]
    ], shot
    assert all(a.get_attribute("rel") == "noopener noreferrer nofollow" for a in links), shot
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-note").text == NOTE_JA, shot
    assert article.get_attribute("data-copy-text") == expected["copy_text"], shot
    assert _status(browser).text == "回答を受け取りました。", shot
    assert _field(browser).get_attribute("value") == "", shot


def test_browser_chat_keyboard_only(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    _open(browser, f"{chat_server.url}/chat.html")
    browser.execute_script(COPY_STUB)
    browser.find_element(By.TAG_NAME, "h1").click()
    field_id = _field(browser).get_attribute("id")
    for _ in range(30):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        if browser.switch_to.active_element.get_attribute("id") == field_id:
            break
    else:
        pytest.fail(f"Tab never reached the question field {_screenshot(browser, tmp_path / 'tab.png')}")
    active = browser.switch_to.active_element
    active.send_keys("一行目", Keys.SHIFT, Keys.ENTER, Keys.SHIFT, "二行目")  # Shift+Enter is a new line, not a send
    assert _field(browser).get_attribute("value") == "一行目\n二行目" and _answers(browser) == []
    active.send_keys(Keys.CONTROL, "a", Keys.CONTROL, Keys.DELETE)
    active.send_keys(QUESTION, Keys.ENTER)
    _wait_for_answers(browser, 1)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / "keyboard.png")
    assert browser.switch_to.active_element.get_attribute("id") == field_id, shot
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("class") == "claim-evidence-chat-submit", shot
    for _ in range(20):  # on through the source links to the copy button
        browser.switch_to.active_element.send_keys(Keys.TAB)
        if browser.switch_to.active_element.get_attribute("class") == "claim-evidence-chat-copy":
            break
    else:
        pytest.fail(f"Tab never reached the copy button {shot}")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.__copied.length") == 1)
    assert browser.execute_script("return window.__copied[0]") == _answers(browser)[0].get_attribute(
        "data-copy-text"
    ), shot


def test_browser_chat_copy_button_copies_the_copy_text(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    expected = chat_server.answer(QUESTION)
    _open(browser, f"{chat_server.url}/chat.html")
    browser.execute_script(COPY_STUB)
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-copy").click()
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.__copied.length") == 1)
    shot = _screenshot(browser, tmp_path / "copy.png")
    copied = browser.execute_script("return window.__copied[0]")
    assert copied == expected["copy_text"], shot
    assert copied.startswith(f"【AI生成・未検証】証拠状態: {expected['state']}（会則第14条）\n"), shot
    assert _status(browser).text == "回答をコピーしました。", shot


def test_browser_chat_keeps_history_for_the_next_question(browser: Any, chat_server: ChatServer) -> None:
    _open(browser, f"{chat_server.url}/chat.html")
    _ask(browser, QUESTION)
    first = _wait_for_answers(browser, 1).find_element(By.CSS_SELECTOR, ".claim-evidence-chat-text").text
    _wait_idle(browser)
    _ask(browser, "第三者の測定ではどうでしたか？")
    _wait_for_answers(browser, 2)
    sent = chat_server.fake.requests[-1].body["messages"]
    assert [(m["role"], m["content"]) for m in sent[:2]] == [("user", QUESTION), ("assistant", first)]
    assert len(sent) == 3


@pytest.mark.parametrize(
    "status, message",
    [
        (529, "AIモデルに接続できませんでした。時間をおいてもう一度お試しください。"),
        (429, "リクエストが多すぎます。しばらく待ってからもう一度お試しください。"),
    ],
)
def test_browser_chat_upstream_error_shows_a_message(
    browser: Any, chat_server: ChatServer, tmp_path: Path, status: int, message: str
) -> None:
    _open(browser, f"{chat_server.url}/chat.html")
    chat_server.fake.script(error(status))
    _ask(browser, QUESTION)
    WebDriverWait(browser, 20).until(lambda d: _status(d).text == message)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / "error.png")
    assert "claim-evidence-chat-error" in _status(browser).get_attribute("class"), shot
    assert _answers(browser) == [], shot
    assert _field(browser).get_attribute("value") == QUESTION, shot  # kept, to send again


def test_browser_chat_model_markup_is_shown_as_text(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    hostile = "<img src=x onerror=window.__pwned=true><b>太字</b>"
    reply = {"answer": hostile, "confirmed": [], "unknown": [], "state": "UNVERIFIED", "sources": [], "refused": False}
    _open(browser, f"{chat_server.url}/chat.html")
    chat_server.fake.script(json.dumps(reply, ensure_ascii=False))
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "markup.png")
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-text").text == hostile, shot
    assert article.find_elements(By.CSS_SELECTOR, "img, b") == [], shot
    assert browser.execute_script("return window.__pwned === undefined"), shot


def test_browser_chat_english_labels_follow_the_lang(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    _open(browser, f"{chat_server.url}/chat-en.html")
    assert _field(browser).find_element(By.XPATH, "preceding-sibling::label").text == "Question (up to 500 characters)"
    assert browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-submit").text == "Ask"
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "en.png")
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-note").text == NOTE_EN, shot
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-copy").text == "Copy answer", shot
    assert chat_server.fake.requests[-1].body["system"].count("in English.") == 1, shot


def test_browser_chat_no_outside_requests_and_no_console_errors(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    _open(browser, f"{chat_server.url}/chat.html")
    _ask(browser, QUESTION)
    _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "page.png")
    outside = [u for u in _requests(browser) if not (u.startswith(chat_server.url + "/") or u.startswith("data:"))]
    assert outside == [], f"requests left loopback: {outside} {shot}"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors} {shot}"


def test_browser_chat_axe_reports_no_serious_violations(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    if not AXE.exists():
        pytest.skip("axe-core not installed (npm ci --prefix tests/browser; .ci/run does this)")
    _open(browser, f"{chat_server.url}/chat.html")
    _ask(browser, QUESTION)
    _wait_for_answers(browser, 1)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / "axe.png")
    violations = _axe(browser, "document", "{resultTypes: ['violations']}")
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], f"axe: {serious} (all: {violations}) {shot}"


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_browser_chat_follows_the_site_theme(browser: Any, chat_server: ChatServer, tmp_path: Path, theme: str) -> None:
    if not AXE.exists():
        pytest.skip("axe-core not installed (npm ci --prefix tests/browser; .ci/run does this)")
    _open(browser, f"{chat_server.url}/chat.html")
    browser.execute_script(THEMES[theme])
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / f"theme-{theme}.png")
    body_color = browser.execute_script("return getComputedStyle(document.body).color")
    assert browser.execute_script("return getComputedStyle(arguments[0]).color", article) == body_color, shot
    violations = _axe(browser, "document.querySelectorAll('.claim-evidence-chat')", "{runOnly: ['color-contrast']}")
    assert violations == [], f"{theme}: color-contrast {violations} {shot}"


def test_browser_chat_widget_links_only_safe_urls_whatever_the_server_sends(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    """The guard sends only the retrieved records' URLs; the widget is a second fence of its own: a
    source with credentials, another scheme or no host is shown as text, never a link. (The page's
    fetch answers with such a response here, since the real endpoint never sends one.)"""
    expected = chat_server.answer(QUESTION)
    crafted = dict(
        expected,
        sources=[
            {"title": "credentials", "url": "https://user:secret@example.com/a"},
            {"title": "script", "url": "javascript:alert(1)"},
            {"title": "protocol-relative", "url": "//example.com/b"},
            {"title": "on the site", "url": "/articles/kumo-engine-3.html#evidence-KUMO-SPEED"},
        ],
    )
    _open(browser, f"{chat_server.url}/chat.html")
    browser.execute_script(
        "const body = arguments[0];"
        "window.fetch = () => Promise.resolve(new Response(body, {status: 200, headers: {'Content-Type': 'application/json'}}));",
        json.dumps(crafted),
    )
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "sources.png")
    links = article.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-sources a")
    assert [(a.text, a.get_attribute("href")) for a in links] == [
        ("on the site", f"{chat_server.url}/articles/kumo-engine-3.html#evidence-KUMO-SPEED")
    ], shot
    shown = article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-sources").text
    assert all(title in shown for title in ("credentials", "script", "protocol-relative")), shot


# --- the floating launcher: one script tag, a button at the bottom right, the widget in a panel ---------


def _open_launcher(browser: Any, url: str) -> Any:
    browser.get_log("performance")
    browser.get_log("browser")
    browser.get(url)
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-launcher-button"))
    return browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-launcher-button")


def _panel(browser: Any) -> Any:
    return browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-panel")


def test_browser_launcher_one_script_tag_opens_the_widget_at_the_bottom_right(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    expected = chat_server.answer(QUESTION)
    button = _open_launcher(browser, f"{chat_server.url}/launcher-ja.html")
    shot = _screenshot(browser, tmp_path / "launcher-closed.png")
    assert (button.text, button.get_attribute("aria-expanded")) == ("記事の資料にAIで質問", "false"), shot
    assert not _panel(browser).is_displayed() and _answers(browser) == [], shot
    place = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); const s = getComputedStyle(arguments[0].parentElement);"
        "return [innerWidth - r.right, innerHeight - r.bottom, s.position];",
        button,
    )
    assert place[2] == "fixed" and 0 < place[0] <= 24 and 0 < place[1] <= 24, (place, shot)
    stylesheets = browser.execute_script(
        "return [...document.querySelectorAll('link[rel=stylesheet]')].map(l => new URL(l.href).pathname)"
    )
    assert stylesheets == ["/chat-widget/chat.css"], shot  # linked by the script from its own folder
    button.click()
    assert _panel(browser).is_displayed() and button.get_attribute("aria-expanded") == "true"
    assert browser.switch_to.active_element.get_attribute("id") == _field(browser).get_attribute("id")
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / "launcher-open.png")
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-text").text == expected["answer"], shot
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-note").text == NOTE_JA, shot
    assert article.get_attribute("data-copy-text") == expected["copy_text"], shot
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not _panel(browser).is_displayed() and button.get_attribute("aria-expanded") == "false", shot
    assert browser.switch_to.active_element.get_attribute("class") == "claim-evidence-chat-launcher-button", shot
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"console errors: {errors} {shot}"


def test_browser_launcher_keyboard_only_in_english(browser: Any, chat_server: ChatServer, tmp_path: Path) -> None:
    _open_launcher(browser, f"{chat_server.url}/launcher-en.html")
    browser.find_element(By.TAG_NAME, "h1").click()
    for _ in range(10):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        if browser.switch_to.active_element.get_attribute("class") == "claim-evidence-chat-launcher-button":
            break
    else:
        pytest.fail(f"Tab never reached the launcher {_screenshot(browser, tmp_path / 'tab.png')}")
    assert browser.switch_to.active_element.text == "Ask AI about these records"
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    browser.switch_to.active_element.send_keys(QUESTION, Keys.ENTER)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "launcher-en.png")
    assert article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-note").text == NOTE_EN, shot
    assert chat_server.fake.requests[-1].body["system"].count("in English.") == 1, shot
    close = browser.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-close")
    assert close.get_attribute("aria-label") == "Close", shot
    close.click()
    assert not _panel(browser).is_displayed(), shot


def test_browser_launcher_error_message_in_the_page_language(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    _open_launcher(browser, f"{chat_server.url}/launcher-en.html").click()
    chat_server.fake.script(error(529))
    _ask(browser, QUESTION)
    WebDriverWait(browser, 20).until(
        lambda d: _status(d).text == "The AI model could not be reached. Please try again later."
    )
    assert chat_server.fake.requests[-1].body["messages"][-1]["role"] == "user"


@pytest.mark.parametrize("theme", ["default", *sorted(THEMES)])
def test_browser_launcher_axe_reports_no_serious_violations(
    browser: Any, chat_server: ChatServer, tmp_path: Path, theme: str
) -> None:
    if not AXE.exists():
        pytest.skip("axe-core not installed (npm ci --prefix tests/browser; .ci/run does this)")
    button = _open_launcher(browser, f"{chat_server.url}/launcher-ja.html")
    if theme != "default":
        browser.execute_script(THEMES[theme])
    closed = _axe(browser, "document", "{resultTypes: ['violations']}")
    button.click()
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    _wait_idle(browser)
    shot = _screenshot(browser, tmp_path / f"launcher-axe-{theme}.png")
    if theme != "default":
        body_color = browser.execute_script("return getComputedStyle(document.body).color")
        assert browser.execute_script("return getComputedStyle(arguments[0]).color", article) == body_color, shot
    opened = _axe(browser, "document", "{resultTypes: ['violations']}")
    serious = [v for v in closed + opened if v["impact"] in ("serious", "critical")]
    assert serious == [], f"axe ({theme}): {serious} (all: {closed + opened}) {shot}"
