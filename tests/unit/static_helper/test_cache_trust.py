"""What the caches trust (issue #31, item 5): an entry written into ``pages.sqlite3`` or
``records.sqlite3`` by anyone but this user's toolkit (a CI cache restored from a pull request's run)
must neither make a page pass nor put markup into a page; a snapshot changed under a kept size and
mtime must not be answered from the cache."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check import facts as _facts
from claim_evidence._check.recordcache import RecordCache
from claim_evidence._core.kvstore import KEY_ENV, KeyValueStore, cache_secret, key_file_path
from claim_evidence._render import evidence as _render
from static_helper import _cache
from static_helper._cache import PAGES_FILE_NAME, RECORDS_FILE_NAME, folder_state

from ...conftest import example_site_copy

CACHE = ".claim-evidence-cache"
SCRIPT = '<script>alert("cache")</script>'
OLD = "記事の下書きには生成AIを使い、公開前に編集者が資料と照合する。"
NEW = "記事の下書きには生成AIを使い、公開後に編集者が資料と照合する。"


@pytest.fixture(autouse=True)
def _key_file_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv(KEY_ENV, raising=False)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = example_site_copy(tmp_path / "site")
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def run(run_static: Any) -> Any:
    """``run(*args)`` -> ``(exit code, stdout)`` of static-helper as a new process would run it."""

    def fresh(*args: str) -> tuple[int, str]:
        _facts._FACTS.items.clear()  # a new process: nothing remembered in memory
        _facts._LOADED.items.clear()
        _render._MEMO.items.clear()
        return run_static(*args)[:2]

    return fresh


def forge(path: Path, key: str, entry: dict[str, Any]) -> None:
    """What an attacker who writes the cache folder can do: a row of their choosing, with sqlite3."""
    db = sqlite3.connect(path)
    with db:
        db.execute(
            "INSERT OR REPLACE INTO entries (key, value, used) VALUES (?, ?, 1e12)", (key, json.dumps(entry).encode())
        )
    db.close()


def spy_keys(monkeypatch: pytest.MonkeyPatch, cls: Any) -> list[str]:
    """The keys a run looks up (an attacker computes them the same way: no secret goes into a key)."""
    asked: list[str] = []
    original = cls.get

    def get(self: Any, key: str, *args: Any) -> Any:
        asked.append(key)
        return original(self, key, *args)

    monkeypatch.setattr(cls, "get", get)
    return asked


def break_seal(site: Path) -> Path:
    """about.html with ABOUT-AI's statement changed in the page and the bundle alike: CE403 (the review
    no longer covers it), and its slot emptied as a fresh build leaves it."""
    page = site / "about.html"
    text = page.read_text(encoding="utf-8").replace(OLD, NEW)
    start = text.index('data-evidence-for="ABOUT-AI">') + len('data-evidence-for="ABOUT-AI">')
    end = text.index("</aside>", start) + len("</aside>")
    page.write_text(text[:start] + text[end:], encoding="utf-8")
    return page


def test_cache_trust_forged_record_entry_neither_injects_nor_passes(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = break_seal(site)
    asked = spy_keys(monkeypatch, RecordCache)
    code, out = run("--write")
    assert code == 1 and "CE403 [ABOUT-AI]" in out
    for key in set(asked):  # every bundle's key: a forged entry for each
        forge(
            site / CACHE / RECORDS_FILE_NAME,
            key,
            {
                "format": 1,
                "key": key,
                "findings": [],
                "blocks": {"ABOUT-AI": SCRIPT, "ABOUT-CORRECTIONS": SCRIPT},
            },
        )
    text = page.read_text(encoding="utf-8")
    start = text.index('data-evidence-for="ABOUT-AI">') + len('data-evidence-for="ABOUT-AI">')
    end = text.index("</aside>", start) + len("</aside>")
    page.write_text(text[:start] + text[end:], encoding="utf-8")
    code, out = run("--write")
    assert code == 1 and "CE403 [ABOUT-AI]" in out
    assert SCRIPT not in page.read_text(encoding="utf-8")


def test_cache_trust_forged_page_pass_entry_is_not_trusted(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _ = run()
    assert code == 0
    genuine = KeyValueStore(site / CACHE / PAGES_FILE_NAME, cache_secret(site / CACHE))
    detail = next(e["detail"] for e in (json.loads(genuine.get(k) or b"{}") for k in genuine.keys()) if "detail" in e)
    break_seal(site)
    asked = spy_keys(monkeypatch, _cache.Cache)
    code, out = run()
    assert code == 1 and "CE403 [ABOUT-AI]" in out
    for key in asked:  # every page's key: a forged pass for each (the passing ones' are genuine)
        forge(
            site / CACHE / PAGES_FILE_NAME,
            key,
            {
                "format": 1,
                "key": key,
                "outcome": "pass",
                "path": "about.html",
                "detail": detail,
                "diagnostics": [],
            },
        )
    code, out = run()
    assert code == 1 and "CE403 [ABOUT-AI]" in out


def test_cache_trust_genuine_entries_still_hit(run: Any, run_static: Any, site: Path) -> None:
    """The seal costs nothing in hits: a second run is answered from the page cache."""
    run()
    code, _, err = run_static("--stats")
    line = next(x for x in err.splitlines() if x.startswith("static-helper stats:"))
    stats = dict(part.split("=") for part in line.split(":", 1)[1].split())
    assert code == 0 and stats["cached"] == stats["pages"] != "0"


def test_cache_trust_entry_sealed_under_another_secret_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    KeyValueStore(path, b"a" * 32).put("k", b"value")
    assert KeyValueStore(path, b"a" * 32).get("k") == b"value"
    assert KeyValueStore(path, b"b" * 32).get("k") is None
    raw = KeyValueStore(path).get("k")
    assert raw is not None
    KeyValueStore(path).put("other", raw)  # a genuine entry copied under another key
    assert KeyValueStore(path, b"a" * 32).get("other") is None
    KeyValueStore(path).put("short", b"x")
    assert KeyValueStore(path, b"a" * 32).get("short") is None


def test_cache_trust_key_file_made_private_once(tmp_path: Path) -> None:
    first = cache_secret(tmp_path / "cache")
    path = key_file_path()
    assert path == tmp_path / "xdg-config" / "claim-evidence" / "cache.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(path.read_bytes()) == 32
    assert cache_secret(tmp_path / "elsewhere") == first
    assert [p.name for p in path.parent.iterdir()] == ["cache.key"]  # no temp file left


def test_cache_trust_key_file_others_may_write_is_not_used(tmp_path: Path) -> None:
    first = cache_secret(tmp_path / "cache")
    os.chmod(key_file_path(), 0o666)
    assert cache_secret(tmp_path / "cache") != first  # a secret for this process alone


def test_cache_trust_key_file_inside_the_cache_folder_is_not_used(tmp_path: Path) -> None:
    inside = cache_secret(tmp_path / "xdg-config")
    assert not key_file_path().exists()
    assert inside != cache_secret(tmp_path / "cache")


def test_cache_trust_secret_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "ci-secret-0123456789abcdef")
    secret = cache_secret(tmp_path / "cache")
    monkeypatch.setenv(KEY_ENV, "another-secret-0123456789")
    assert cache_secret(tmp_path / "cache") != secret
    assert not key_file_path().exists()


def test_cache_trust_snapshot_state_follows_content_not_size_and_mtime(tmp_path: Path) -> None:
    snap = tmp_path / "snaps" / "sha256" / "ab" / "x.bin"
    snap.parent.mkdir(parents=True)
    snap.write_bytes(b"source text A")
    before = folder_state(str(tmp_path / "snaps"))
    info = snap.stat()
    snap.write_bytes(b"source text B")
    os.utime(snap, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert snap.stat().st_size == info.st_size and snap.stat().st_mtime_ns == info.st_mtime_ns
    assert folder_state(str(tmp_path / "snaps")) != before
