"""The chat endpoint's ``cited_sources``: the chunks an answer used, aged on the day it is asked.

As in test_chat.py: the Starlette app, the real Anthropic SDK, and the fake Messages API on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import load_kb, retrieve
from claim_evidence.cli import main as claim_evidence_main

from ...conftest import ROOT

pytest.importorskip("anthropic", reason="the chat extra is not installed (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="the chat extra is not installed (pip install -e '.[test]')")
from starlette.testclient import TestClient  # noqa: E402

from claim_evidence.chat import ChatSettings, create_app  # noqa: E402
from claim_evidence.chat.fakemodel import FakeModel  # noqa: E402

SITE = ROOT / "examples" / "site"
KEY = "sk-ant-test-0123456789-DO-NOT-LEAK"
QUESTION = "クモエンジン 3 の企業向け提供開始はいつ？"
RELEASE_ID = "articles/kumo-engine-3.html#KUMO-RELEASE"
DAY = 86400
EPOCH_2026_12_01 = 1796083200


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kb") / "kb.json"
    argv = ["kb", "build", "--config", str(SITE / "claim-evidence.toml"), "--today", "2026-11-01", "--out", str(out)]
    assert claim_evidence_main(argv) == 0
    return out


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel(api_key=KEY, lifetime=60.0) as server:
        yield server


def _client(kb: Path, fake: FakeModel, monkeypatch: pytest.MonkeyPatch, epoch: int) -> TestClient:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
    settings = ChatSettings(
        kb_path=kb, base_url=fake.url, model="m", timeout=10.0, rate_burst=100, rate_per_minute=600.0
    )
    return TestClient(create_app(settings), raise_server_exceptions=False)


def _release(kb: Path) -> dict[str, Any]:
    return next(c for c in retrieve(load_kb(kb), QUESTION) if c["id"] == RELEASE_ID)


def _ask(client: TestClient, fake: FakeModel, sources: list[str]) -> dict[str, Any]:
    reply = {
        "answer": "提供開始は報道されています。",
        "confirmed": [],
        "unknown": [],
        "state": "UNVERIFIED",
        "sources": sources,
    }
    fake.script(json.dumps(reply | {"refused": False}, ensure_ascii=False))
    with client:
        response = client.post("/api/chat", json={"question": QUESTION, "history": [], "lang": "ja"})
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _lines(body: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (g["kind"], s["title"], s["state"], s["suffix"]) for g in body["cited_sources"]["groups"] for s in g["sources"]
    ]


@pytest.mark.parametrize(
    ("days", "state", "suffix"),
    [
        (-30, "fresh", ""),  # 2026-11-01, the day the kb was built
        (0, "due soon", ""),  # 2026-12-01: the last 15 % of reporting's 90 days
        (9, "expired", "⚠ 古い: 再確認が必要（期限 2026-12-04）"),  # 2026-12-10
    ],
)
def test_chat_cited_sources_age_on_the_day_asked(
    kb_path: Path, fake: FakeModel, monkeypatch: pytest.MonkeyPatch, days: int, state: str, suffix: str
) -> None:
    """The same kb, asked on three days: the review's state is the day's, not the kb build's."""
    release = _release(kb_path)
    body = _ask(_client(kb_path, fake, monkeypatch, EPOCH_2026_12_01 + days * DAY), fake, [release["url"]])
    assert _lines(body) == [
        ("reporting", "クモエンジン 3 技術仕様書", state, suffix),
        ("reporting", "クモエンジン 3、企業向けに提供開始", state, suffix),
    ]
    assert body["cited_sources"]["not_reviewed"] == []
    markdown = body["copy_text"].split("\n\n", 1)[1]
    assert markdown.startswith("## 📚 依拠した資料\n\n### 報道\n\n- ")
    assert markdown.count(" ⚠ 古い: 再確認が必要") == (2 if suffix else 0)
    assert not body["copy_text"].endswith("\n")


def test_chat_cited_sources_never_fresh_for_a_chunk_kb_build_judged_invalid_or_without_record(
    kb_path: Path, tmp_path: Path, fake: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = json.loads(kb_path.read_text(encoding="utf-8"))
    for chunk in kb["chunks"]:
        if chunk["id"] == RELEASE_ID:
            chunk["state_rule"], chunk["state"] = "invalid", "UNVERIFIED"
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(kb, ensure_ascii=False), encoding="utf-8")
    for chunk in kb["chunks"]:
        chunk.pop("record", None)
    kb.pop("freshness")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(kb, ensure_ascii=False), encoding="utf-8")
    release = _release(kb_path)
    for path in (invalid, old):
        body = _ask(_client(path, fake, monkeypatch, EPOCH_2026_12_01 - 30 * DAY), fake, [release["url"]])
        assert body["cited_sources"]["groups"] == []
        (entry,) = body["cited_sources"]["not_reviewed"]
        assert [s["url"] for s in entry["sources"]] == [
            "https://example.org/hoshi/2026/08/kumo3",
            "https://example.com/kumo/spec-v3",
        ]
        assert "### 未照合（照合記録なし・有効な照合なし）\n\n- " in body["copy_text"]


def test_chat_answer_without_sources_cites_nothing(
    kb_path: Path, fake: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _ask(_client(kb_path, fake, monkeypatch, EPOCH_2026_12_01), fake, [])
    assert (body["cited_sources"]["groups"], body["cited_sources"]["not_reviewed"]) == ([], [])
    assert body["copy_text"].endswith("\n\n## 📚 依拠した資料\n\n依拠した資料はありません。")


def test_chat_cited_sources_of_a_kept_source_url_name_the_chunk_citing_it(
    kb_path: Path, fake: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer that keeps a source's own URL (not the evidence block's) relied on the chunks citing it."""
    body = _ask(
        _client(kb_path, fake, monkeypatch, EPOCH_2026_12_01), fake, ["https://example.org/hoshi/2026/08/kumo3"]
    )
    assert [s["url"] for s in body["sources"]] == ["https://example.org/hoshi/2026/08/kumo3"]
    used = [u["claim_id"] for g in body["cited_sources"]["groups"] for s in g["sources"] for u in s["used_for"]]
    assert set(used) == {"KUMO-RELEASE"}
