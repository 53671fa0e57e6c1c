"""The chat widget's Cited Sources in headless Chromium, against the real endpoint and the fake model
(the fixtures of test_browser_chat.py): shown under the answer, each text as text, links only safe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from . import test_browser_chat
from .test_browser import _screenshot
from .test_browser_chat import QUESTION, ChatServer, _ask, _open, _wait_for_answers

browser = test_browser_chat.browser
chat_server = test_browser_chat.chat_server

pytestmark = pytest.mark.browser

from selenium.webdriver.common.by import By  # noqa: E402

EPOCH_2026_12_10 = "1796860800"  # reporting reviews of 2026-09-05 have expired (due 2026-12-04)


def _line(source: dict[str, Any]) -> str:
    who = f"{source['publisher']}: " if source["publisher"] else ""
    tail = f" {source['suffix']}" if source["suffix"] else ""
    return f"{source['symbol']} {source['tag']} {source['checked_at']} {who}{source['title']} — {source['uses']}{tail}"


def test_browser_chat_shows_the_cited_sources_under_the_answer(
    browser: Any, chat_server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2026_12_10)  # read by the endpoint on each request
    expected = chat_server.answer(QUESTION)
    cited = expected["cited_sources"]
    assert cited["build_date"] == "2026-12-10" and cited["groups"]
    _open(browser, f"{chat_server.url}/chat.html")
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "cited.png")
    section = article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-cited")
    # under the answer: after the sources list, before the note
    order = article.find_elements(
        By.CSS_SELECTOR, ".claim-evidence-chat-sources, .claim-evidence-chat-cited, .claim-evidence-chat-note"
    )
    assert [e.get_attribute("class") for e in order][-2:] == [
        "claim-evidence-chat-cited",
        "claim-evidence-chat-note",
    ], shot
    assert section.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-heading").text == "📚 依拠した資料", shot
    assert [e.text for e in section.find_elements(By.CSS_SELECTOR, ".claim-evidence-chat-kind")] == [
        g["heading"] for g in cited["groups"]
    ] + ([cited["not_reviewed_heading"]] if cited["not_reviewed"] else []), shot
    items = section.find_elements(By.CSS_SELECTOR, "li[data-freshness]:not([data-freshness=not-reviewed])")
    sources = [s for g in cited["groups"] for s in g["sources"]]
    assert [li.text for li in items] == [_line(s) for s in sources], shot
    assert [li.get_attribute("data-freshness") for li in items] == [s["state"].replace(" ", "-") for s in sources]
    links = section.find_elements(By.CSS_SELECTOR, "a")
    assert [a.get_attribute("href") for a in links] == [s["url"] for s in sources if s["url"]] + [
        x["url"] for n in cited["not_reviewed"] for x in n["sources"] if x["url"]
    ], shot
    assert all(a.get_attribute("rel") == "noopener noreferrer nofollow" for a in links), shot
    assert article.get_attribute("data-copy-text").endswith(
        "## 📚 依拠した資料\n\n" + expected["copy_text"].split("## 📚 依拠した資料\n\n", 1)[1]
    )


def test_browser_chat_cited_sources_text_stays_text_and_unsafe_urls_no_links(
    browser: Any, chat_server: ChatServer, tmp_path: Path
) -> None:
    """Whatever a server sends in cited_sources, the widget writes text with textContent and links only
    a safe http(s) URL (the page's fetch answers with a crafted response: the real endpoint never sends one)."""
    expected = chat_server.answer(QUESTION)
    hostile = {
        "publisher": "<b>pub</b>",
        "title": "<img src=x onerror=window.__pwned=1>",
        "state": "expired",
        "symbol": "⚠",
        "tag": "[90日]",
        "checked_at": "2026-09-05",
        "suffix": "⚠ 古い: 再確認が必要（期限 2026-12-04）",
        "uses": "](javascript:alert(1))",
    }
    crafted = dict(
        expected,
        cited_sources={
            "title": "📚 依拠した資料",
            "groups": [
                {
                    "kind": "reporting",
                    "heading": "報道",
                    "sources": [
                        dict(hostile, url="javascript:alert(1)"),
                        dict(hostile, url="https://user:pw@example.com/x"),
                        dict(hostile, url="https://example.com/ok"),
                    ],
                }
            ],
            "not_reviewed_heading": "未照合",
            "not_reviewed": [
                {"uses": "<script>x</script>", "sources": [{"publisher": "", "title": "t", "url": "data:x"}]}
            ],
        },
    )
    _open(browser, f"{chat_server.url}/chat.html")
    browser.execute_script(
        "const body = arguments[0];"
        "window.fetch = () => Promise.resolve(new Response(body, {status: 200, headers: {'Content-Type': 'application/json'}}));",
        json.dumps(crafted),
    )
    _ask(browser, QUESTION)
    article = _wait_for_answers(browser, 1)
    shot = _screenshot(browser, tmp_path / "cited-hostile.png")
    section = article.find_element(By.CSS_SELECTOR, ".claim-evidence-chat-cited")
    assert [a.get_attribute("href") for a in section.find_elements(By.CSS_SELECTOR, "a")] == [
        "https://example.com/ok"
    ], shot
    assert not section.find_elements(By.CSS_SELECTOR, "img, b, script"), shot
    assert browser.execute_script("return window.__pwned === undefined"), shot
    items = section.find_elements(By.CSS_SELECTOR, "li")
    assert items[0].text == (
        "⚠ [90日] 2026-09-05 <b>pub</b>: <img src=x onerror=window.__pwned=1> — ](javascript:alert(1)) ⚠ 古い: 再確認が必要（期限 2026-12-04）"
    ), shot
    assert items[-1].text == "<script>x</script> — t", shot
