"""The record cache (``claim_evidence/_check/recordcache.py``): a rebuilt page whose records did not change is
checked without validating or rendering them again; a corrupt, foreign or stale entry is a miss."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check import binding as _binding
from claim_evidence._check import facts as _facts
from claim_evidence._check.recordcache import RecordCache, Stored
from claim_evidence._core.diagnostics import Diagnostic
from claim_evidence._core.kvstore import KeyValueStore, cache_secret
from claim_evidence._render import evidence as _render
from static_helper._cache import RECORDS_FILE_NAME, RECORDS_KEEP_DAYS

from ...conftest import example_site_copy
from ..static_helper.test_static_cache import _age

CACHE = ".claim-evidence-cache"


@pytest.fixture
def run(run_static: Any) -> Any:
    """``run(*args)`` -> ``(exit code, stdout, --stats counts)`` of static-helper as a new process would run it."""

    def fresh(*args: str) -> tuple[int, str, dict[str, int]]:
        _facts._FACTS.items.clear()  # a new process: nothing remembered in memory
        _facts._LOADED.items.clear()
        _render._MEMO.items.clear()
        code, out, err = run_static("--stats", *args)
        line = next(x for x in err.splitlines() if x.startswith("static-helper stats:"))
        stats = {k: int(v) for k, v in (part.split("=") for part in line.split(":", 1)[1].split())}
        return code, out, stats

    return fresh


def rebuild(site: Path, mark: str) -> None:
    """What a generator's build does to every page: bytes change outside the slots, records do not. (A
    comment before the first claim element: a change after the evidence is answered by the page cache's
    prefix entries, and one in the head by their heads, unchecked.)"""
    stamp = f"<!-- build {mark} -->".encode()
    for page in site.rglob("*.html"):
        if CACHE not in page.parts:
            data = page.read_bytes()
            stamped = _FIRST_CLAIM.sub(lambda m: stamp + m.group(), data, count=1)
            page.write_bytes(stamped if stamped != data else stamp + data)


_FIRST_CLAIM = re.compile(rb"<[a-z]+[^<>]*\sdata-claim-id=")


def store(site: Path) -> KeyValueStore:
    """The record entries as the toolkit reads them: sealed with this user's secret (see _kvstore.cache_secret)."""
    return KeyValueStore(site / CACHE / RECORDS_FILE_NAME, cache_secret(site / CACHE))


def entries(site: Path) -> list[str]:
    return store(site).keys()


def entry(site: Path, key: str) -> dict[str, Any]:
    raw = store(site).get(key)
    assert raw is not None
    return json.loads(raw)


@pytest.fixture(autouse=True)
def _key_file_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's key file goes to $XDG_CONFIG_HOME: never the real user's, in tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("CLAIM_EVIDENCE_CACHE_KEY", raising=False)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = example_site_copy(tmp_path / "site")
    monkeypatch.chdir(folder)
    return folder


def _forbid_checking_records(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the records were validated or rendered again")

    for module, name in ((_facts, "diagnose_loaded"), (_facts, "iter_diagnostics"), (_binding, "render_blocks")):
        monkeypatch.setattr(module, name, forbidden)


def test_recordcache_rebuild_checks_pages_without_validating_or_rendering_records(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, first, stats = run()
    assert code == 0 and stats["checked"] == stats["pages"] and entries(site)
    rebuild(site, "2")
    _forbid_checking_records(monkeypatch)
    code, again, stats = run()
    assert (code, again) == (0, first)
    assert stats["checked"] == stats["pages"]  # every page missed the page cache: its bytes changed
    assert stats["cached"] == 0


def test_recordcache_another_build_date_in_the_same_states_hits(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key names each claim's marker state, not the build date: a rebuild two days later with every
    review in its state is answered from the entries; the day a review expires misses, and shows why."""
    assert run("--today", "2026-12-01")[0] == 0
    keys = set(entries(site))
    rebuild(site, "2")
    with monkeypatch.context() as patched:
        _forbid_checking_records(patched)
        code, out, stats = run("--today", "2026-12-03")
    assert code == 0 and stats["cached"] == 0 and set(entries(site)) == keys
    assert "CE602 [KUMO-RELEASE] review due in 1 day (by 2026-12-04) (note)" in out  # the findings are today's
    rebuild(site, "3")
    code, out, _ = run("--today", "2026-12-05")
    assert code == 1 and "SH140 [KUMO-RELEASE] evidence display is stale: only its freshness marker differs" in out
    assert set(entries(site)) > keys  # the pages whose states changed have entries of their own


def test_recordcache_rebuild_still_finds_what_the_page_changed(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached record never hides the page's own findings: an edited sentence, an emptied slot."""
    run()
    page = site / "articles" / "kumo-engine-3.html"
    text = page.read_text(encoding="utf-8").replace("1.8 倍</strong>速い", "2 倍</strong>速い", 1)
    start = text.index('data-evidence-for="KUMO-SPEED">') + len('data-evidence-for="KUMO-SPEED">')
    end = text.index("</aside>", start) + len("</aside>")
    page.write_text(text[:start] + text[end:], encoding="utf-8")
    _forbid_checking_records(monkeypatch)
    code, out, _ = run()
    assert code == 1
    assert "SH120 [KUMO-SPEED] body text differs from reviewed statement" in out
    assert "SH140 [KUMO-SPEED] evidence display must now show the claim as unverified" in out


def test_recordcache_write_after_a_rebuild_uses_the_stored_blocks(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh build empties the slots; --write fills them from the stored blocks, byte for byte."""
    run()
    page = site / "about.html"
    before = page.read_bytes()
    text = before.decode("utf-8")
    start = text.index('data-evidence-for="ABOUT-AI">') + len('data-evidence-for="ABOUT-AI">')
    end = text.index("</aside>", start) + len("</aside>")
    page.write_text(text[:start] + text[end:], encoding="utf-8")
    _forbid_checking_records(monkeypatch)
    assert run("--write")[0] == 0
    assert page.read_bytes() == before


def test_recordcache_corrupt_and_foreign_entries_are_misses(run: Any, site: Path) -> None:
    code, first, _ = run()
    found = entries(site)
    assert len(found) >= 2
    good = store(site).get(found[0])
    assert good is not None
    store(site).put(found[0], b"{not json")
    store(site).put(found[1], good)  # another key's entry under this key
    for key in found[2:]:
        store(site).put(key, json.dumps({"format": 99}).encode())
    rebuild(site, "2")
    assert run()[:2] == (code, first)
    assert [entry(site, key)["key"] for key in entries(site)] == entries(site)  # rebuilt


def test_recordcache_keys_follow_language_and_render_settings(tmp_path: Path) -> None:
    cache = RecordCache(tmp_path / "cache" / "records.sqlite3", "toolkit-1")
    key = cache.key("{}", "ja", (False, None))
    assert (
        len(
            {
                key,
                cache.key("{}", "en", (False, None)),
                cache.key("{}", "ja", (True, None)),
                cache.key("{}", "ja", (False, ((("reporting", 90),), ("fresh",)))),
                cache.key("{ }", "ja", (False, None)),
                RecordCache(tmp_path, "toolkit-2").key("{}", "ja", (False, None)),
            }
        )
        == 6
    )
    d = Diagnostic("CE101", "statement required", "$.claims[0].statement", "error", "claim c", hint="add one")
    cache.put(key, Stored(((7, d),), {"c": "<aside>…</aside>"}))
    assert cache.get(key) == Stored(((7, d),), {"c": "<aside>…</aside>"})
    assert cache.get(cache.key("{}", "en", (False, None))) is None
    assert (tmp_path / "cache" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


@pytest.mark.parametrize(
    "entry",
    [
        {"findings": [["7", {}]], "blocks": None},
        {
            "findings": [
                [
                    7,
                    {
                        "code": "X",
                        "message": "m",
                        "path": "$",
                        "severity": "fatal",
                        "subject": "s",
                        "file": None,
                        "line": None,
                        "column": None,
                        "hint": None,
                    },
                ]
            ],
            "blocks": None,
        },
        {
            "findings": [
                [
                    7,
                    {
                        "code": 1,
                        "message": "m",
                        "path": "$",
                        "severity": "error",
                        "subject": "s",
                        "file": None,
                        "line": None,
                        "column": None,
                        "hint": None,
                    },
                ]
            ],
            "blocks": None,
        },
        {"findings": [], "blocks": {"c": 3}},
        {"findings": [], "blocks": ["c"]},
        {"findings": {}, "blocks": None},
    ],
)
def test_recordcache_wrong_types_in_an_entry_are_a_miss(tmp_path: Path, entry: dict[str, Any]) -> None:
    cache = RecordCache(tmp_path / "records.sqlite3", "t")
    key = cache.key("{}", "ja", ())
    cache.store.put(key, json.dumps({"format": 1, "key": key, **entry}).encode())
    assert cache.get(key) is None


def test_recordcache_no_cache_neither_reads_nor_writes(run: Any, site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run()
    count = len(entries(site))
    rebuild(site, "2")
    assert run("--no-cache")[0] == 0
    assert len(entries(site)) == count
    _forbid_checking_records(monkeypatch)
    code, out, _ = run("--no-cache")  # the records are checked again: the stand-ins fail each page
    assert code == 2 and "internal error: AssertionError: the records were validated or rendered again" in out


def test_recordcache_concurrent_runs_agree(run: Any, site: Path) -> None:
    run()
    rebuild(site, "2")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "static_helper", "--jobs", "1"],
            cwd=site,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert outputs[0][0] == outputs[1][0]
    assert entries(site) and all(entry(site, key)["format"] == 1 for key in entries(site))


def test_recordcache_unloadable_bundle_is_never_stored_nor_trusted(run: Any, site: Path) -> None:
    """A bundle that does not load writes no entry; an entry forged for it does not hide the JSON error."""
    page = site / "about.html"
    text = page.read_text(encoding="utf-8")
    broken = text.replace('"version": 1', '"version": 1,,', 1)
    assert broken != text
    page.write_text(broken, encoding="utf-8")
    code, out, _ = run()
    assert code == 1 and "about.html:" in out and "CE00" in out
    from claim_evidence._html.locate import locate

    located = locate(broken)
    content = broken[located.scripts[0].open_end : located.scripts[0].close_start]
    from static_helper._cache import toolkit_fingerprint

    cache = RecordCache(site / CACHE / RECORDS_FILE_NAME, toolkit_fingerprint())
    from claim_evidence._check.options import render_settings
    from claim_evidence._site.config import at_build_date, load_config

    options = at_build_date(load_config(site / "claim-evidence.toml"), None).options
    key = cache.key(content, "ja", render_settings(options, None))  # (the text does not load: no states)
    assert cache.get(key) is None  # never stored
    cache.put(key, Stored(()))
    assert run()[:2] == (code, out)  # the forged entry changes nothing


def test_recordcache_entries_unused_for_a_week_are_dropped_after_a_run_over_the_site(
    run: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record entries go after RECORDS_KEEP_DAYS unused; a page answered by its page entry reads no records
    but keeps its entry in use (the page entry names it), so what goes is the entry no page names any more
    (a page's records edited). A run over named pages prunes nothing."""
    run()
    first = entries(site)
    _age(site, days=RECORDS_KEEP_DAYS - 1)
    rebuild(site, "2")
    run()
    assert entries(site) == first  # used again by the rebuild (and a day short of the limit anyway)
    _age(site, days=RECORDS_KEEP_DAYS + 1)
    page = site / "notes" / "ame-free-tier.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace('"version": 1', '"version": 1, "x-note": "edited"', 1),
        encoding="utf-8",
    )
    run("notes/ame-free-tier.html")
    assert len(entries(site)) == len(first) + 1  # named pages: nothing pruned
    run()
    now = entries(site)
    assert len(now) == len(first) and now != first  # the edited page's old records went, no other
    rebuild(site, "3")  # a week on: every page changed where no page entry answers
    _forbid_checking_records(monkeypatch)
    code, _, stats = run()
    assert code == 0 and stats["checked"] >= len(now) and entries(site) == now


def test_recordcache_record_key_is_the_entry_the_check_used(tmp_path: Path) -> None:
    """``facts.record_key`` names the entry the page's check read or wrote (the page cache keeps it in use
    while it answers the page), also for a page whose bundle this process had already checked, where the
    memo, not the record cache, answered and no key was made; None without a record cache."""
    from claim_evidence._check.page import check_text

    _facts._FACTS.items.clear()
    _facts._LOADED.items.clear()
    text = (Path(__file__).resolve().parents[3] / "examples" / "site" / "about.html").read_text(encoding="utf-8")
    cache = RecordCache(tmp_path / "records.sqlite3", "toolkit-1", b"s" * 32)
    first = check_text(text, "about.html", records=cache)
    again = check_text(text.replace("<body>", "<body><!-- build 2 -->", 1), "about.html", records=cache)
    assert first.record is not None and again.record is None  # (the memo answered the second)
    cache.store.flush()
    assert cache.store.keys() == [_facts.record_key(first)] == [_facts.record_key(again)]
    assert _facts.record_key(check_text(text, "about.html")) is None
