"""The guard's chat-spec rules (#28), each over real HTTP: the reference endpoint under uvicorn on
127.0.0.1, the real Anthropic SDK, and the fake Messages API on 127.0.0.1 scripted with the reply.

The site is a copy of examples/site with a ``[chat]`` table of its own — an injected Markdown file
in ``extra``, a site's own banned and advice phrases, and its own system prompt, one that asks the
model for advice (the guard refuses it all the same) — built into kb.json by ``kb build``."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import load_kb, retrieve
from claim_evidence.cli import main as claim_evidence_main

from ...conftest import ROOT

pytest.importorskip("anthropic", reason="the chat extra is not installed (pip install -e '.[test]')")
uvicorn = pytest.importorskip("uvicorn", reason="the chat extra is not installed (pip install -e '.[test]')")
httpx = pytest.importorskip("httpx", reason="httpx not installed")

from claim_evidence.chat import ChatSettings, create_app  # noqa: E402
from claim_evidence.chat._app import RESPONSE_KEYS  # noqa: E402
from claim_evidence.chat.fakemodel import FakeModel, error  # noqa: E402

KEY = "sk-ant-test-guard-http"
SPEED_STATEMENT = "クモエンジン 3 は前版より推論が 1.8 倍速いと架空クモ社は公表した。"
SPEED_ITEM = f"[CONFIRMED] {SPEED_STATEMENT}"
ADVICE_TEXT = "売買の助言や将来の予測はお答えできません。資料で確認できることとわからないことをお示しします。"
MEMO = "# 寄稿メモ\n\nクモエンジン 3 は 999 億トークンを一度に処理できると寄稿者は書いた。\n"
CHAT_TABLE = """
[chat]
extra = ["docs/*.md"]
banned_extra = ["おすすめ"]
advice_extra = ["要チェック銘柄"]
system_prompt = "chat/prompt.txt"
"""
# A site's own prompt that tells the model to give advice: the guard's rules are the server's, not the prompt's.
SITE_PROMPT = (
    "あなたはクモ投資クラブの案内役です。読者には遠慮なく売買の助言をしてください。\n"
    'Answer in the language {lang}; reply with one JSON object {"answer": ..., "refused": false}.\n'
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("guard-site") / "site"
    shutil.copytree(ROOT / "examples" / "site", root)
    (root / "docs").mkdir()
    (root / "docs" / "memo.md").write_text(MEMO, encoding="utf-8")
    (root / "chat").mkdir()
    (root / "chat" / "prompt.txt").write_text(SITE_PROMPT, encoding="utf-8")
    with (root / "claim-evidence.toml").open("a", encoding="utf-8") as config:
        config.write(CHAT_TABLE)
    return root


@pytest.fixture(scope="module")
def kb_path(site: Path) -> Path:
    out = site.parent / "kb.json"
    command = ["kb", "build", "--config", str(site / "claim-evidence.toml"), "--today", "2026-12-01", "--out", str(out)]
    assert claim_evidence_main(command) == 0
    return out


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModel]:
    with FakeModel(api_key=KEY, lifetime=300.0) as server:
        yield server


@pytest.fixture(scope="module")
def endpoint(kb_path: Path, fake: FakeModel) -> Iterator[str]:
    """``http://127.0.0.1:PORT``: the app under uvicorn in a thread, stopped after the module."""
    with _serving(kb_path, fake) as url:
        yield url


@pytest.fixture(scope="module")
def site_endpoint(kb_path: Path, fake: FakeModel, site: Path) -> Iterator[str]:
    """The same with ``--site``: the site's folder served at ``/`` too."""
    with _serving(kb_path, fake, site_dir=site) as url:
        yield url


@contextlib.contextmanager
def _serving(kb_path: Path, fake: FakeModel, **settings: Any) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", KEY)
        app = create_app(
            ChatSettings(
                kb_path=kb_path, base_url=fake.url, timeout=10.0, rate_burst=1000, rate_per_minute=6000.0, **settings
            )
        )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="guard-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not server.started:
        pytest.fail("the chat endpoint did not start on 127.0.0.1")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _reply(**fields: Any) -> str:
    value = {"answer": "", "confirmed": [], "unknown": [], "state": "ESTIMATE", "sources": [], "refused": False}
    return json.dumps(value | fields, ensure_ascii=False)


def _ask(endpoint: str, fake: FakeModel, question: str, reply: str, lang: str = "ja") -> dict[str, Any]:
    fake.script(reply)
    response = httpx.post(
        f"{endpoint}/api/chat", json={"question": question, "history": [], "lang": lang}, timeout=20.0
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert list(body) == list(RESPONSE_KEYS)
    return body


def _chunk(kb_path: Path, question: str, suffix: str) -> dict[str, Any]:
    """The retrieved chunk whose id ends with ``suffix``, as the endpoint will retrieve it for ``question``."""
    return next(c for c in retrieve(load_kb(kb_path), question) if c["id"].endswith(suffix))


def _fields(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in ("answer", "confirmed", "unknown", "state", "sources", "refused", "findings")}


# --- 1 and 2: advice and predictions refused on the server, the grounded items kept ------------------


def test_http_advice_is_refused_and_the_grounded_item_and_source_kept(
    endpoint: str, fake: FakeModel, kb_path: Path
) -> None:
    question = "クモ社の株は買いですか？クモエンジン 3 の公称処理速度は？"
    speed = _chunk(kb_path, question, "#KUMO-SPEED")
    body = _ask(
        endpoint,
        fake,
        question,
        _reply(
            answer="クモ社の株は今が買い時です。早めに買うのがよいでしょう。",
            confirmed=[SPEED_ITEM],
            sources=[speed["url"]],
        ),
    )
    assert _fields(body) == {
        "answer": ADVICE_TEXT,
        "confirmed": [SPEED_ITEM],
        "unknown": [],
        "state": "UNVERIFIED",
        "sources": [{"title": speed["title"], "url": speed["url"]}],
        "refused": True,
        "findings": ["CE751", "CE751"],
    }
    assert body["copy_text"].startswith("【AI生成・未検証】証拠状態: UNVERIFIED（会則第14条）\n" + ADVICE_TEXT)


def test_http_prediction_is_refused(endpoint: str, fake: FakeModel) -> None:
    body = _ask(endpoint, fake, "介入はありますか？", _reply(answer="来週には介入するでしょう"))
    assert (body["answer"], body["refused"], body["state"], body["findings"]) == (
        ADVICE_TEXT,
        True,
        "UNVERIFIED",
        ["CE752"],
    )


def test_http_a_past_event_is_no_prediction(endpoint: str, fake: FakeModel) -> None:
    answer = "架空ホシ新聞によると、クモエンジン 3 は 8 月 22 日に企業向けの提供が始まった。"
    body = _ask(endpoint, fake, "クモエンジン 3 の提供はいつ始まった？", _reply(answer=answer))
    assert (body["answer"], body["refused"], body["state"], body["findings"]) == (answer, False, "ESTIMATE", [])


def test_http_a_site_advice_phrase_is_refused_in_english(endpoint: str, fake: FakeModel) -> None:
    body = _ask(endpoint, fake, "Is Kumo a buy?", _reply(answer="Kumo is a 要チェック銘柄.", state="UNVERIFIED"), "en")
    assert (body["answer"], body["refused"], body["findings"]) == (
        "Trading advice and predictions cannot be given. Here is what the material confirms and what it does not.",
        True,
        ["CE751"],
    )


def test_http_a_model_refusal_keeps_its_grounded_items(endpoint: str, fake: FakeModel, kb_path: Path) -> None:
    question = "明日のクモ社の株価は？クモエンジン 3 の公称処理速度は？"
    speed = _chunk(kb_path, question, "#KUMO-SPEED")
    reply = _reply(
        answer="株価の予測はできません。",
        confirmed=[SPEED_ITEM],
        unknown=["[UNVERIFIED] 第三者による再測定は未確認。"],
        sources=[speed["url"]],
        state="UNVERIFIED",
        refused=True,
    )
    assert _fields(_ask(endpoint, fake, question, reply)) == {
        "answer": "株価の予測はできません。",
        "confirmed": [SPEED_ITEM],
        "unknown": ["[UNVERIFIED] 第三者による再測定は未確認。"],
        "state": "UNVERIFIED",
        "sources": [{"title": speed["title"], "url": speed["url"]}],
        "refused": True,
        "findings": [],
    }


# --- 3: banned wording: the defaults stay, the site's phrases are added ---------------------------


@pytest.mark.parametrize("answer", ["介入確定です。", "当局は弾切れです。", "確実に速いです。", "おすすめです。"])
def test_http_banned_defaults_and_the_site_phrase(endpoint: str, fake: FakeModel, answer: str) -> None:
    body = _ask(endpoint, fake, "クモエンジン 3 の公称処理速度は？", _reply(answer=answer))
    assert (body["answer"], body["state"], body["findings"]) == (
        "この資料からは確認できません。",
        "UNVERIFIED",
        ["CE743"],
    )


# --- 4: the state of the chunk used, not of the strongest retrieved --------------------------------


def test_http_an_injected_chunk_bounds_the_answer_it_is_used_for(endpoint: str, fake: FakeModel, kb_path: Path) -> None:
    question = "クモエンジン 3 は何トークンを一度に処理できる？公称処理速度は？"
    ids = [c["id"] for c in retrieve(load_kb(kb_path), question)]
    assert "docs/memo.md#1" in ids and "articles/kumo-engine-3.html#KUMO-SPEED" in ids
    body = _ask(
        endpoint,
        fake,
        question,
        _reply(
            answer="クモエンジン 3 は 999 億トークンを一度に処理できる。",
            confirmed=[SPEED_ITEM, "[ESTIMATE] クモエンジン 3 は 999 億トークンを一度に処理できる。"],
        ),
    )
    assert (body["answer"], body["confirmed"], body["state"], body["findings"]) == (
        "クモエンジン 3 は 999 億トークンを一度に処理できる。",
        [SPEED_ITEM, "[UNVERIFIED] クモエンジン 3 は 999 億トークンを一度に処理できる。"],
        "UNVERIFIED",
        ["CE732", "CE734"],
    )


def test_http_a_url_does_not_ground_a_tag(endpoint: str, fake: FakeModel, kb_path: Path) -> None:
    question = "クモエンジン 3 の公称処理速度は？"
    speed = _chunk(kb_path, question, "#KUMO-SPEED")
    (source,) = speed["sources"]
    body = _ask(
        endpoint,
        fake,
        question,
        _reply(answer="公称値です。", confirmed=[f"[CONFIRMED] 詳細は {source['url']} を参照。"]),
    )
    assert (body["confirmed"], body["findings"]) == ([f"[UNVERIFIED] 詳細は {source['url']} を参照。"], ["CE732"])


# --- 5: figures with their counter -----------------------------------------------------------------


def test_http_22_times_is_not_grounded_by_22_august(endpoint: str, fake: FakeModel) -> None:
    question = "クモエンジン 3 の提供はいつ始まった？"
    wrong = _ask(endpoint, fake, question, _reply(answer="クモエンジン 3 は前版の 22 倍速い。"))
    assert (wrong["answer"], wrong["state"], wrong["findings"]) == (
        "この資料からは確認できません。",
        "UNVERIFIED",
        ["CE742"],
    )
    right = _ask(endpoint, fake, question, _reply(answer="企業向けの提供は 8 月 22 日に始まった。"))
    assert (right["answer"], right["findings"]) == ("企業向けの提供は 8 月 22 日に始まった。", [])


# --- 6: the 1,200-character limit measured on what is returned -------------------------------------


def test_http_a_1224_character_reply_is_cut_to_1200_as_returned(endpoint: str, fake: FakeModel, kb_path: Path) -> None:
    """A reply pretty-printed as a model writes it, 1,224 characters, whose answer, items and sources'
    titles and URLs add up to under 1,200 (the old measure let it through) but whose returned fields
    come to 1,250 as JSON: the last source goes."""
    question = "クモエンジン 3 の公称処理速度と対応文脈長と提供開始は？"
    chunks = retrieve(load_kb(kb_path), question)
    links = [c["url"] for c in chunks if c["url"]][:2] + [s["url"] for c in chunks for s in c["sources"]][:2]
    titles = {c["url"]: c["title"] for c in chunks} | {s["url"]: s["title"] for c in chunks for s in c["sources"]}

    def item(words: str) -> str:
        return "[UNVERIFIED] " + (words * 30)[:87]

    value = {
        "answer": ("個人向けの提供時期は資料にありません。" * 20)[:200],
        "confirmed": [
            SPEED_ITEM,
            *(item(w) for w in ("利用者の評価は資料にない。", "価格は資料にない。", "割引の条件は資料にない。")),
        ],
        "unknown": [item(w) for w in ("提供地域は不明。", "対応言語は不明。", "保守期間は不明。")],
        "state": "UNVERIFIED",
        "sources": links,
        "refused": False,
    }
    reply = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    assert len(reply) == 1224
    old_measure = len(value["answer"]) + sum(map(len, value["confirmed"] + value["unknown"]))
    assert old_measure + sum(len(titles[url]) + len(url) for url in links) < 1200
    body = _ask(endpoint, fake, question, reply)
    returned = {k: body[k] for k in ("answer", "confirmed", "unknown", "state", "sources", "refused")}
    assert len(json.dumps(returned, ensure_ascii=False, separators=(",", ":"))) == 1182
    assert body["findings"] == ["CE724"]
    assert (body["answer"], body["confirmed"], body["unknown"]) == (
        value["answer"],
        value["confirmed"],
        value["unknown"],
    )
    assert [s["url"] for s in body["sources"]] == links[:3]


# --- 7: a full Japanese history fits, a longer one is trimmed ------------------------------------


def _history(exchanges: int, chars: int) -> list[dict[str, str]]:
    return [
        {"role": role, "content": (f"{n}番目の{'質問' if role == 'user' else '回答'}。" + "長" * chars)[:chars]}
        for n in range(1, exchanges + 1)
        for role in ("user", "assistant")
    ]


def test_http_the_longest_history_the_spec_allows_fits_written_the_longest_way(endpoint: str, fake: FakeModel) -> None:
    """8 exchanges of 700-character messages, every character a \\uXXXX pair (an emoji): 140 KB, answered."""
    history = [{"role": t["role"], "content": "🐙" * 700} for t in _history(8, 700)]
    payload = {"question": "🐙" * 500, "history": history, "lang": "ja"}
    raw = json.dumps(payload).encode("ascii")  # ensure_ascii: the longest spelling JSON has
    assert len(raw) > 135_000
    fake.script(_reply(answer="この資料からは確認できません。", state="UNVERIFIED"))
    response = httpx.post(
        f"{endpoint}/api/chat", content=raw, headers={"Content-Type": "application/json"}, timeout=20.0
    )
    assert response.status_code == 200, response.text
    sent = fake.requests[-1].body["messages"]
    assert [m["content"] for m in sent[:-1]] == ["🐙" * 700] * 16


def test_http_a_longer_history_is_trimmed_not_refused(endpoint: str, fake: FakeModel) -> None:
    """40 exchanges (80 messages, past the 64 kept) of 900 characters: the model sees the last 8, each cut to 700."""
    history = _history(40, 900)
    fake.script(_reply(answer="この資料からは確認できません。", state="UNVERIFIED"))
    response = httpx.post(
        f"{endpoint}/api/chat",
        json={"question": "クモエンジン 3 の公称処理速度は？", "history": history, "lang": "ja"},
        timeout=20.0,
    )
    assert response.status_code == 200, response.text
    sent = fake.requests[-1].body["messages"]
    assert [m["content"] for m in sent[:-1]] == [t["content"][:700] for t in history[-16:]]


def test_http_a_body_over_256_kib_is_413_in_the_request_language(endpoint: str, fake: FakeModel) -> None:
    before = len(fake.requests)
    response = httpx.post(
        f"{endpoint}/api/chat",
        json={"question": "質問", "history": [{"role": "user", "content": "あ" * 90_000}], "lang": "en"},
        headers={"Accept-Language": "en"},
        timeout=20.0,
    )
    assert (response.status_code, response.json()) == (
        413,
        {"error": "request_too_large", "message": "The request body is too large."},
    )
    assert len(fake.requests) == before


# --- 8: messages in the request's language, Retry-After passed on, repeats dropped, 405 -----------


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("ja", "question は 1〜500 文字の文字列にしてください。"),
        ("en", "question must be a string of 1 to 500 characters."),
    ],
)
def test_http_an_error_message_is_in_the_request_lang(endpoint: str, lang: str, message: str) -> None:
    response = httpx.post(f"{endpoint}/api/chat", json={"question": "", "lang": lang}, timeout=20.0)
    assert (response.status_code, response.json()) == (400, {"error": "invalid_question", "message": message})


def test_http_before_the_body_is_read_the_message_follows_accept_language(endpoint: str) -> None:
    headers = {"Content-Type": "text/plain"}
    ja = httpx.post(f"{endpoint}/api/chat", content=b"x", headers=headers, timeout=20.0)
    en = httpx.post(
        f"{endpoint}/api/chat", content=b"x", headers=headers | {"Accept-Language": "en-GB,en;q=0.8"}, timeout=20.0
    )
    assert (ja.status_code, ja.json()["message"]) == (415, "リクエストは application/json で送ってください。")
    assert (en.status_code, en.json()["message"]) == (415, "Send the request as application/json.")


@pytest.mark.parametrize(
    ("status", "retry_after", "code", "passed"),
    [
        (429, 30, "upstream_rate_limited", "30"),
        (529, 12, "upstream_unavailable", "12"),
        (503, 99_999, "upstream_unavailable", None),
    ],
)
def test_http_the_upstream_retry_after_is_passed_on(
    endpoint: str, fake: FakeModel, status: int, retry_after: int, code: str, passed: str | None
) -> None:
    fake.script(error(status, "UPSTREAM-DETAIL", retry_after=retry_after))
    response = httpx.post(
        f"{endpoint}/api/chat", json={"question": "クモエンジン 3 の公称処理速度は？", "lang": "en"}, timeout=20.0
    )
    assert (response.status_code, response.json()["error"]) == (429 if status == 429 else 503, code)
    assert response.headers.get("retry-after") == passed  # over an hour: not passed on
    assert "UPSTREAM-DETAIL" not in response.text


def test_http_identical_items_and_sources_are_dropped(endpoint: str, fake: FakeModel, kb_path: Path) -> None:
    question = "クモエンジン 3 の公称処理速度は？"
    speed = _chunk(kb_path, question, "#KUMO-SPEED")
    body = _ask(
        endpoint,
        fake,
        question,
        _reply(
            answer="公称値があります。",
            confirmed=[SPEED_ITEM, SPEED_ITEM],
            unknown=["[UNVERIFIED] 再測定は未確認。", "[UNVERIFIED] 再測定は未確認。"],
            sources=[speed["url"], speed["url"]],
        ),
    )
    assert (body["confirmed"], body["unknown"], body["sources"], body["findings"]) == (
        [SPEED_ITEM],
        ["[UNVERIFIED] 再測定は未確認。"],
        [{"title": speed["title"], "url": speed["url"]}],
        ["CE725", "CE725", "CE725"],
    )


@pytest.mark.parametrize("mode", ["endpoint", "site_endpoint"])
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_http_any_method_but_post_is_405_with_or_without_site(mode: str, method: str, request: Any) -> None:
    url = request.getfixturevalue(mode)
    response = httpx.request(method, f"{url}/api/chat", headers={"Accept-Language": "en"}, timeout=20.0)
    assert (response.status_code, response.headers["allow"], response.json()) == (
        405,
        "POST",
        {"error": "method_not_allowed", "message": "Send the question with POST."},
    )


def test_http_the_site_is_still_served_beside_the_405(site_endpoint: str) -> None:
    assert httpx.get(f"{site_endpoint}/chat.html", timeout=20.0).status_code == 200


# --- 9: the site's own system prompt, the guard's rules all the same ------------------------------


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_http_the_site_prompt_is_sent_with_its_lang_and_advice_is_still_refused(
    endpoint: str, fake: FakeModel, lang: str
) -> None:
    body = _ask(
        endpoint,
        fake,
        "クモ社の株は買いですか？",
        _reply(answer="クモ社の株は今が買い時です。" if lang == "ja" else "You should buy now.", state="UNVERIFIED"),
        lang,
    )
    assert fake.requests[-1].body["system"] == SITE_PROMPT.replace("{lang}", lang)
    assert (body["refused"], body["state"], body["findings"]) == (True, "UNVERIFIED", ["CE751"])
