"""The incremental cache of passing pages (``static_helper/_cache.py``), through the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import claim_evidence
from claim_evidence._core.kvstore import KeyValueStore, cache_secret
from claim_evidence._site.config import CACHE_DIR_NAME
from static_helper import _cache
from static_helper._cache import folders_fingerprint, toolkit_folders

DATA = Path(__file__).resolve().parents[2] / "data" / "static"
CONFIG = 'pages = ["pages/*.html"]\n'


@pytest.fixture
def run(run_static: Any) -> Any:
    """``run(*args)`` -> ``(exit code, stdout, --stats counts)`` of static-helper."""

    def stats_run(*args: str) -> tuple[int, str, dict[str, int]]:
        code, out, err = run_static("--stats", *args)
        line = next(x for x in err.splitlines() if x.startswith("static-helper stats:"))
        stats = {k: int(v) for k, v in (part.split("=") for part in line.split(":", 1)[1].split())}
        return code, out, stats

    return stats_run


def store(folder: Path) -> KeyValueStore:
    """The page entries of the cache in ``folder`` (the records keep their own file: tests/unit/check/test_recordcache.py)."""
    return KeyValueStore(folder / _cache.PAGES_FILE_NAME, cache_secret(folder))


def entries(site: Path) -> list[str]:
    """The keys of the entries of pages' bytes (not the prefix entries: :func:`prefixes`)."""
    return _keys(store(site / CACHE_DIR_NAME), prefix=False)


def prefixes(site: Path) -> list[str]:
    """The keys of the prefix entries, one per passing page."""
    return _keys(store(site / CACHE_DIR_NAME), prefix=True)


def _keys(found: KeyValueStore, prefix: bool) -> list[str]:
    """(Read from the file itself: reading through the store would mark every entry used, and spare it
    from the next prune. The connection is closed here, not left to the garbage collector (a connection
    and its statement cache hold each other): a run with --jobs 2 in this process forks its workers, and a
    connection a parent holds open to the file can make a child's writes to it get lost.)"""
    import sqlite3

    found.flush()
    if not found.path.exists():
        return []
    with closing(sqlite3.connect(found.path)) as db:
        rows = db.execute("SELECT key, value FROM entries ORDER BY key").fetchall()
    return [key for key, value in rows if (b'"prefix": [' in bytes(value)) == prefix]


def entry(site: Path, key: str) -> dict[str, Any]:
    raw = store(site / CACHE_DIR_NAME).get(key)
    assert raw is not None
    return json.loads(raw)


def set_entry(site: Path, key: str, value: bytes) -> None:
    store(site / CACHE_DIR_NAME).put(key, value)


@pytest.fixture(autouse=True)
def _key_file_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's key file goes to $XDG_CONFIG_HOME: never the real user's, in tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("CLAIM_EVIDENCE_CACHE_KEY", raising=False)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pages").mkdir()
    shutil.copy(DATA / "basic_after.html", tmp_path / "pages" / "basic.html")
    shutil.copy(DATA / "tricky_after.html", tmp_path / "pages" / "tricky.html")
    (tmp_path / "claim-evidence.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cache_hit_gives_the_same_report_without_checking(run: Any, site: Path) -> None:
    first = run()
    assert first[0] == 0 and first[2] == {"pages": 2, "checked": 2, "cached": 0}
    assert len(entries(site)) == 2
    second = run()
    assert second[:2] == first[:2]
    assert second[2] == {"pages": 2, "checked": 0, "cached": 2}


def test_cache_miss_when_page_bytes_change(run: Any, site: Path) -> None:
    run()
    page = site / "pages" / "basic.html"
    page.write_bytes(b"<p>edited</p>\n" + page.read_bytes())  # before its evidence: checked again
    assert run()[2] == {"pages": 2, "checked": 1, "cached": 1}


def test_cache_a_change_after_the_evidence_is_answered_by_the_prefix(run: Any, site: Path) -> None:
    """A build that changed only what follows the last evidence element (a build stamp) is answered by
    the page's prefix entry, with the report a check gives; then by the new bytes' own entry. A change
    there that could add markup (a stylesheet link) is checked."""
    first = run()
    assert len(prefixes(site)) == 2
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n<footer>\xc2\xa9 2026</footer>\n")
    checked = run("--no-cache")
    answered = run()
    assert answered[:2] == checked[:2] == first[:2]
    assert answered[2] == {"pages": 2, "checked": 0, "cached": 2}
    assert len(entries(site)) == 4 and len(prefixes(site)) == 2
    page = site / "pages" / "basic.html"
    page.write_bytes(page.read_bytes() + b'<link rel="stylesheet" href="/other.css">\n')
    code, out, stats = run()
    assert (code, out) == run("--no-cache")[:2]
    assert stats == {"pages": 2, "checked": 1, "cached": 1}


def _varied_page() -> str:
    """A page of the benchmark's varied site: a header and navigation, ten claims with CE905 warnings."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_varied", DATA.parents[2] / "benchmarks" / "varied.py")
    assert spec is not None and spec.loader is not None
    varied = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(varied)
    return str(varied.page(1, 10, 7, True)[0])


def _each_build(run: Any, page: Path, first: tuple[int, str, dict[str, int]], builds: Any, grown: int) -> str:
    """Write each of ``builds`` (``(bytes, pages checked, exit code)``, each made from the first build's
    page: one change at a time) and run with the cache: its report and exit code must be a
    ``--no-cache`` run's and it checks that many pages; build ``grown`` moves every finding down a line
    or more. The last ``--no-cache`` report."""
    original = page.read_bytes()
    for build, (new, checked, code) in enumerate(builds):
        assert new != original, build
        page.write_bytes(new)
        expected = run("--no-cache")
        answered = run()
        assert answered[:2] == expected[:2] and answered[0] == code, build
        assert answered[2]["checked"] == checked, build
        if build == grown:
            assert expected[1] != first[1] and expected[1].count("CE905") == first[1].count("CE905")
    return str(expected[1])


def test_cache_a_change_in_the_head_is_answered_by_the_head(run: Any, site: Path) -> None:
    """A build that changed only the head in what decides nothing (a build stamp in a comment, a meta's
    value, a line more, a new site name in the title, a new asset hash in a script's or a stylesheet's
    URL, a meta or a link more) is answered by the page's prefix entry, with the report a check gives: its
    findings' lines moved with the head. A change there that decides something (a paragraph, which starts
    the body; the evidence stylesheet's link pointing elsewhere) is checked."""
    page = site / "pages" / "varied.html"
    page.write_text(_varied_page(), encoding="utf-8")  # (a page with CE905 warnings)
    first = run()
    assert "CE905" in first[1] and first[2]["checked"] == 3  # (warnings: findings placed on lines)
    text = page.read_bytes()
    css = b"/assets/claim-evidence.css"
    assert css in text
    builds = (
        (text.replace(b"</head>", b"<!-- build 2 --></head>", 1), 0, 0),
        (text.replace(b"</head>", b"<!-- build 3 -->\n\n</head>", 1), 0, 0),  # (two lines more)
        (text.replace(b"/assets/site.css", b"/assets/site.6f8fc17f.css", 1), 0, 0),
        (text.replace(b"</title>", b" &mdash; build 4</title>", 1), 0, 0),
        (text.replace(css, css + b"?v=4", 1), 0, 0),  # (still the evidence stylesheet, as SH130 asks)
        (text.replace(b'<meta charset="utf-8">', b'<meta charset="utf-8" data-x="1">', 1), 0, 0),  # (a name more)
        (text.replace(b"</head>", b'<link rel="stylesheet" href="/assets/site.css?v=4">\n</head>', 1), 0, 0),
        (text.replace(b"</head>", b"<p>a paragraph in the head</p>\n</head>", 1), 1, 0),  # (the body starts)
        (text.replace(css, b"/assets/claim-evidence.6f8fc17f.css", 1), 1, 1),  # (SH130 now)
    )
    assert "SH130" in _each_build(run, page, first, builds, grown=1)


def test_cache_a_change_in_the_body_before_the_evidence_is_answered_by_the_head(run: Any, site: Path) -> None:
    """A build that changed the body before the evidence only in markup that pushes and pops what it
    opens (a navigation item more, a new element after ``<body>``, lines more) is answered by the page's
    head, with the report a check gives; one that leaves another element open there is checked."""
    page = site / "pages" / "varied.html"
    page.write_text(_varied_page(), encoding="utf-8")  # (a page with CE905 warnings)
    first = run()
    assert "CE905" in first[1] and first[2]["checked"] == 3
    (key,) = (key for key in prefixes(site) if entry(site, key)["path"].endswith("varied.html"))
    assert entry(site, key)["head"][7] > 0  # (the head has a body part: the header and its navigation)
    text = page.read_bytes()
    builds = (
        (text.replace(b"</li>", b'</li><li><a href="/articles/new.html">New</a></li>', 1), 0, 0),
        (text.replace(b"<body>", b'<body><p class="build-2">build</p>', 1), 0, 0),
        (text.replace(b"<main>", b"<main>\n\n<!-- two lines more -->", 1), 0, 0),
        (text.replace(b"<li>", b"", 1), 1, 0),  # (an item's end tag with no start: it closes the list)
        (text.replace(b"<main>", b"<div><main>", 1), 1, 0),  # (one more element left open)
        (text.replace(b"<main>", b'<a href="/x"><main>', 1), 1, 1),  # (a link around the evidence: SH116)
    )
    _each_build(run, page, first, builds, grown=2)
    # The body part's digest only spares reading it; what decides is what it leaves open.
    text = _varied_page().encode()
    for field, needle, checked in ((9, b"</head>", 0), (10, b"</li>", 1)):
        new = text.replace(needle, b"<!-- build 8 --></head>" if field == 9 else b"</li><li>8</li>", 1)
        page.write_bytes(text)
        shutil.rmtree(site / CACHE_DIR_NAME)
        assert run()[2]["checked"] == 3
        (key,) = (key for key in prefixes(site) if entry(site, key)["path"].endswith("varied.html"))
        raw = entry(site, key)
        raw["head"][field] = "0" * 64
        set_entry(site, key, json.dumps(raw).encode())
        page.write_bytes(new)
        answered = run()
        assert answered[:2] == run("--no-cache")[:2] and answered[2]["checked"] == checked, field


def test_cache_a_change_between_the_head_and_the_evidence_leaves_the_head_for_the_next_build(
    run: Any, site: Path
) -> None:
    """A build that changed the page between its head and its evidence (a stamp before the first claim) is
    checked, and the prefix entry its check leaves keeps the head the run read against the last one: the
    next build, changed in its head or its navigation, is answered by it with the report a check gives.
    So is one after a line more where its body part ended, which that head's body part, read on, holds:
    the entry is the one a check makes."""
    from claim_evidence._check.page import check_text
    from claim_evidence._check.prefix import page_prefix

    page = site / "pages" / "varied.html"
    text = _varied_page().encode()  # (a page with CE905 warnings and a body part)
    found = re.search(rb'<[a-z]+[^<>]* data-claim-id="', text)  # (the first claim element)
    assert found is not None
    tag = found.start()
    prefix = page_prefix(check_text(text.decode(), None))
    assert prefix is not None and prefix.head is not None and prefix.head.body > 0
    line = len(text.decode()[: prefix.head.end].encode())  # (where its body part ends)
    for stamped in (
        text[:tag] + b"<!-- evidence build 2 -->" + text[tag:],
        text[:line] + b"<!-- build 2 -->\n" + text[line:],
    ):
        page.write_bytes(text)
        shutil.rmtree(site / CACHE_DIR_NAME, ignore_errors=True)
        assert run()[2]["checked"] == 3
        head_stamped = stamped.replace(b"</head>", b"<!-- build 3 --></head>", 1)
        builds = (
            (stamped, 1),
            (head_stamped, 0),
            (head_stamped.replace(b"</li>", b'</li><li><a href="/articles/new.html">New</a></li>', 1), 0),
        )
        for build, (new, checked) in enumerate(builds):
            page.write_bytes(new)
            expected = run("--no-cache")
            answered = run()
            assert answered[:2] == expected[:2] and "CE905" in answered[1], build
            assert answered[2]["checked"] == checked, build
            if build == 0:
                (key,) = (key for key in prefixes(site) if entry(site, key)["path"].endswith("varied.html"))
                fresh = page_prefix(check_text(new.decode(), None))
                assert fresh is not None and fresh.head is not None
                assert entry(site, key)["head"] == list(fresh.head)


def test_cache_miss_when_toolkit_changes(run: Any, site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run()
    monkeypatch.setattr(_cache, "toolkit_fingerprint", lambda: "another version")
    assert run()[2]["checked"] == 2


def test_cache_miss_when_config_changes(run: Any, site: Path) -> None:
    run()
    (site / "claim-evidence.toml").write_text("# reviewed\n" + CONFIG, encoding="utf-8")
    assert run()[2]["checked"] == 2


def test_cache_miss_when_templates_change(tmp_path: Path) -> None:
    package_templates = Path(claim_evidence.__file__).parent / "templates"
    assert any(folder in (package_templates, *package_templates.parents) for folder in toolkit_folders())
    templates = tmp_path / "templates"
    shutil.copytree(package_templates, templates)
    before = folders_fingerprint("1", [templates])
    template = templates / "evidence.html.j2"
    template.write_text(template.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert folders_fingerprint("1", [templates]) != before


def test_cache_a_page_with_a_byte_order_mark_is_answered_by_its_prefix(run: Any, site: Path) -> None:
    # (The mark is no text: the prefix is the text's, and the bytes after the mark are compared.)
    page = site / "pages" / "basic.html"
    page.write_bytes(b"\xef\xbb\xbf" + page.read_bytes())
    first = run()
    page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    assert run()[2] == {"pages": 2, "checked": 0, "cached": 2}
    page.write_bytes(page.read_bytes()[3:] + b"<!-- build 3 -->\n")  # the mark gone: the same text
    answered = run()
    assert answered[2] == {"pages": 2, "checked": 0, "cached": 2} and answered[:2] == first[:2] == run("--no-cache")[:2]
    # In the head (the mark back; two marks: the second is text, which makes it another head).
    for mark, checked in ((b"\xef\xbb\xbf", 0), (b"\xef\xbb\xbf\xef\xbb\xbf", 1)):
        page.write_bytes(mark + page.read_bytes().replace(b"<title>", b"<!-- build 4 --><title>", 1))
        answered = run()
        assert answered[2] == {"pages": 2, "checked": checked, "cached": 2 - checked}, mark
        assert answered[:2] == run("--no-cache")[:2]
        page.write_bytes(page.read_bytes()[len(mark) :].replace(b"<!-- build 4 -->", b"", 1))


def test_cache_corrupt_or_foreign_entries_are_ignored_and_rebuilt(run: Any, site: Path) -> None:
    _, expected, _ = run()
    for first, second in (entries(site), prefixes(site)):
        set_entry(site, first, b"\x00not json")
        raw = entry(site, second)
        raw["key"] = "0" * 64  # an entry copied from elsewhere
        set_entry(site, second, json.dumps(raw).encode())
    code, out, stats = run()
    assert (code, out, stats["checked"]) == (0, expected, 2)
    assert all(entry(site, key)["outcome"] == "pass" for key in store(site / CACHE_DIR_NAME).keys())
    assert run()[2]["cached"] == 2
    for key in entries(site):
        raw = entry(site, key)
        assert isinstance(raw["record"], str)  # (the record entry the page keeps in use)
        raw["record"] = 5
        set_entry(site, key, json.dumps(raw).encode())
    assert run()[:2] == (0, expected)  # (a miss: the prefix entries answer, and write the entries anew)
    assert all(isinstance(entry(site, key)["record"], str) for key in entries(site))


@pytest.mark.parametrize(
    "damage",
    [
        lambda e: e.update(prefix=None),
        lambda e: e.update(prefix=[1, 2, 3, 4, 5]),
        lambda e: e.update(prefix=["1", 5, "d", "\n", "ja"]),
        lambda e: e.update(prefix=[1, "5", "d", "\n", "ja"]),
        lambda e: e.update(prefix=[1, 5, "d", "\n"]),
        lambda e: e["prefix"].__setitem__(1, e["prefix"][1] + 1),  # (the bytes no longer those of the text)
        lambda e: e["prefix"].__setitem__(2, "0" * 64),
        lambda e: e.pop("prefix"),
        lambda e: e.update(outcome="fail"),
        lambda e: e.update(record=["0" * 64]),  # (the record entry it keeps in use: a key or nothing)
    ],
)
def test_cache_a_damaged_prefix_entry_answers_nothing(run: Any, site: Path, damage: Any) -> None:
    _, expected, _ = run()
    for key in prefixes(site):
        raw = entry(site, key)
        raw["head"] = None  # (a head answers on its own, prefix damaged or not: see the next test)
        damage(raw)
        set_entry(site, key, json.dumps(raw).encode())
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    code, out, stats = run()
    assert (code, out, stats["checked"]) == (0, expected, 2)


@pytest.mark.parametrize(
    "damage",
    [
        None,  # (none: the head answers)
        lambda h: h.__setitem__(0, h[0] + 1),  # (a head that does not end where its middle starts)
        lambda h: h.__setitem__(5, h[5] - 1),
        lambda h: h.__setitem__(6, "0" * 64),  # (another middle)
        lambda h: h.__setitem__(3, "0" * 64),  # (other parts)
        lambda h: h.__setitem__(2, "3"),
        lambda h: h.__setitem__(7, h[0] + 1),  # (a body part longer than the head)
        lambda h: h.__setitem__(8, -1),
        lambda h: h.__setitem__(7, 1),  # (a body part where the head has none: its bytes are not those)
        lambda h: h.__setitem__(10, 3),
        lambda h: h.pop(),
        lambda h: h.append(0),
        lambda h: h.clear(),
    ],
)
def test_cache_a_damaged_head_answers_nothing(run: Any, site: Path, damage: Any) -> None:
    _, expected, _ = run()
    for key in prefixes(site):
        raw = entry(site, key)
        if raw["head"] is not None and damage is not None:  # (tricky.html has none: its lines end with CRLF)
            damage(raw["head"])
        set_entry(site, key, json.dumps(raw).encode())
    page = site / "pages" / "basic.html"
    page.write_bytes(page.read_bytes().replace(b"<title>", b"<!-- build 2 --><title>", 1))
    code, out, stats = run()
    assert (code, out, stats["checked"]) == (0, expected, 0 if damage is None else 1)


@pytest.mark.parametrize("damage", [b"not a database at all", b"SQLite format 3\x00" + b"\xff" * 200])
def test_cache_damaged_file_is_made_anew(run: Any, site: Path, damage: bytes) -> None:
    _, expected, _ = run()
    (site / CACHE_DIR_NAME / _cache.PAGES_FILE_NAME).write_bytes(damage)
    for suffix in ("-wal", "-shm"):
        (site / CACHE_DIR_NAME / (_cache.PAGES_FILE_NAME + suffix)).unlink(missing_ok=True)
    code, out, stats = run()
    assert (code, out, stats["checked"]) == (0, expected, 2)
    assert len(entries(site)) == 2 and run()[2]["cached"] == 2


def test_cache_entry_claiming_a_failure_is_never_trusted(run: Any, site: Path) -> None:
    run()
    for key in store(site / CACHE_DIR_NAME).keys():  # (the prefix entries hold the result too)
        raw = entry(site, key)
        raw["diagnostics"] = [
            {
                "code": "SH140",
                "message": "x",
                "path": "$",
                "severity": "error",
                "subject": "page",
                "file": None,
                "line": None,
                "column": None,
            }
        ]
        set_entry(site, key, json.dumps(raw).encode())
    assert run()[2]["checked"] == 2


def test_cache_failing_pages_are_not_cached(run: Any, site: Path) -> None:
    shutil.copy(DATA / "basic_before.html", site / "pages" / "basic.html")  # stale slots
    code, _, stats = run()
    assert (code, stats["checked"]) == (1, 2)
    assert len(entries(site)) == 1
    assert run()[2] == {"pages": 2, "checked": 1, "cached": 1}


def test_cache_no_cache_neither_reads_nor_writes(run: Any, site: Path) -> None:
    assert run("--no-cache")[2]["checked"] == 2
    assert not (site / CACHE_DIR_NAME).exists()
    run()
    assert run("--no-cache")[2]["checked"] == 2


def test_cache_dir_option_and_paths_mode(run: Any, site: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    run("--cache-dir", str(other), "pages")
    assert len(store(other).keys()) == 4 and not (site / CACHE_DIR_NAME).exists()  # (bytes and prefix entries)
    assert run("--cache-dir", str(other), "pages")[2]["cached"] == 2


def test_cache_dir_creates_only_its_last_folder(run: Any, site: Path, tmp_path: Path) -> None:
    made = tmp_path / "new-cache"
    assert run("--cache-dir", str(made), "pages")[0] == 0
    assert len(store(made).keys()) == 4 and (made / ".gitignore").read_text(encoding="utf-8").endswith("\n*\n")


@pytest.mark.parametrize("missing", ["absent/cache", "absent/deeper/cache"])
def test_cache_dir_with_missing_parent_is_sh010(run_static: Any, site: Path, tmp_path: Path, missing: str) -> None:
    target = tmp_path / missing
    code, out, err = run_static("--cache-dir", str(target), "pages")
    parent = target.parent
    assert (code, out) == (2, "")
    assert err == (
        f"static-helper: error: {target}: SH010 --cache-dir: its parent folder {parent} does not exist; create it first, "
        "or name a folder inside an existing one (only DIR itself is created)\n"
    )
    assert not (tmp_path / "absent").exists()


def test_cache_dir_under_a_file_is_sh010(run_static: Any, site: Path, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x", encoding="utf-8")
    code, _, err = run_static("--cache-dir", str(tmp_path / "plain" / "cache"), "pages")
    assert code == 2 and f"its parent folder {tmp_path / 'plain'} is not a folder" in err


def test_cache_folder_is_never_scanned_for_pages(run: Any, site: Path) -> None:
    run()
    stray = site / CACHE_DIR_NAME / "stray.html"
    stray.write_bytes((DATA / "basic_before.html").read_bytes())
    code, out, stats = run()
    assert code == 0 and CACHE_DIR_NAME not in out and stats["pages"] == 2
    assert run(".")[2]["pages"] == 2


def test_cache_write_after_a_cached_pass_changes_nothing(run: Any, site: Path) -> None:
    run()
    before = {p: p.read_bytes() for p in (site / "pages").iterdir()}
    code, out, stats = run("--write")
    assert (code, stats["cached"]) == (0, 2)
    assert {p: p.read_bytes() for p in (site / "pages").iterdir()} == before


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cache_a_page_write_rewrote_is_answered_by_its_written_bytes(run: Any, site: Path, jobs: str) -> None:
    """A run with --write keeps each page it rewrote as a check of the bytes it wrote (what the rewrite's
    proof establishes the written page is: ``Page.written``): the next check answers it with the report a
    check gives (its findings placed in the written page: a block of another number of lines moved them),
    and the build after that, a stamp after the evidence, by its prefix entry. A page whose write left an
    error is checked again, and so is one edited where no entry answers."""
    from claim_evidence._site.runner import MIN_PARALLEL

    from ..check.test_rewrite import _stale_pages

    pages = dict(_stale_pages())
    (site / "pages" / "varied.html").write_bytes(pages["shrinks"].encode("utf-8"))  # (warnings, moved up)
    (site / "pages" / "linked.html").write_bytes(pages["link"].encode("utf-8"))  # (SH130: fails)
    (site / "pages" / "basic.html").write_bytes((DATA / "basic_before.html").read_bytes())  # (stale)
    copies = MIN_PARALLEL if jobs == "2" else 0  # (enough pages for the pool)
    for n in range(copies):
        (site / "pages" / f"copy{n:03d}.html").write_bytes((DATA / "basic_before.html").read_bytes())
    total = 4 + copies
    written = run("--write", "--jobs", jobs)
    assert written[0] == 1 and written[2]["checked"] == total and "SH009" not in written[1]
    expected = run("--no-cache")
    assert expected[0] == 1 and "CE905" in expected[1]
    answered = run("--jobs", jobs)
    assert answered[:2] == expected[:2]
    assert answered[2] == {"pages": total, "checked": 1, "cached": total - 1}  # (the failing page checked)
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    stamped = run("--jobs", jobs)
    assert stamped[:2] == run("--no-cache")[:2]
    assert stamped[2] == {"pages": total, "checked": 1, "cached": total - 1}  # (by the written pages' prefixes)
    varied = site / "pages" / "varied.html"
    text = varied.read_bytes()
    at = text.index(b'<p data-claim-id="')  # (before the first claim: no entry answers)
    varied.write_bytes(text[:at] + b"<!-- edited -->" + text[at:])
    assert run("--jobs", jobs)[2]["checked"] == 2


def test_cache_concurrent_runs_agree(run: Any, site: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "static_helper", "--stats"],
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
    assert all(entry(site, key)["outcome"] == "pass" for key in entries(site))
    assert len(entries(site)) == 2
    assert run()[2]["cached"] == 2


def test_cache_folder_ignores_itself_in_git(tmp_path, monkeypatch):
    from static_helper.cli import main

    page = tmp_path / "page.html"
    page.write_text("<p>no evidence here</p>", encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main([]) == 1  # SH007: no registered page carries evidence; the page itself passed, and is cached
    ignore = tmp_path / ".claim-evidence-cache" / ".gitignore"
    assert (
        ignore.read_text(encoding="utf-8")
        == "# Created by static-helper: its caches of passing pages and checked records.\n*\n"
    )


def test_cache_pass_with_notes_is_cached(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example site passes with CE602 notes (reviews due soon at its build date): notes come with a
    pass like warnings, so the second run is answered from the cache, with the same report."""
    from ...conftest import example_site_copy

    site = example_site_copy(tmp_path / "site")
    monkeypatch.chdir(site)
    first = run()
    assert first[0] == 0 and "(note)" in first[1] and first[2]["checked"] == first[2]["pages"] > 0
    second = run()
    assert second[:2] == first[:2] and second[2]["cached"] == first[2]["pages"] and second[2]["checked"] == 0


def test_cache_run_over_the_site_drops_entries_it_did_not_use(run: Any, site: Path) -> None:
    """A generator rebuilds every page on every build: a run over the whole site keeps only the entries
    it wrote or used, so the cache does not grow by a site's worth of entries per build. A run over
    named pages prunes nothing (it did not see the others)."""
    run()
    first = entries(site)
    assert len(first) == 2
    _age(site)  # an earlier build's entries (a run spares those touched in the second before it starts)
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    run("pages/basic.html")
    assert len(entries(site)) == 3  # the named page's new entry; nothing pruned
    run()
    now = entries(site)
    assert len(now) == 2 and not set(now) & set(first)
    assert run()[2] == {"pages": 2, "checked": 0, "cached": 2}  # the kept ones answer


def test_cache_a_run_answered_by_page_entries_keeps_the_prefix_entries(run: Any, site: Path) -> None:
    """A run whose every page its own entry answers (an unchanged build checked again) reads no prefix
    entry, yet keeps them through its prune: the next build, a new stamp after the evidence, is answered by
    them, not checked page by page (a 1,000-page site checked 735 pages of such a build before)."""
    run()
    _age(site)  # the first build's entries (a run spares those touched in the second before it starts)
    assert run()[2] == {"pages": 2, "checked": 0, "cached": 2}
    assert len(prefixes(site)) == 2
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    assert run()[2] == {"pages": 2, "checked": 0, "cached": 2}


def test_cache_a_run_answered_by_page_entries_keeps_their_record_entries(run: Any, site: Path) -> None:
    """Record entries unused for RECORDS_KEEP_DAYS go in a run's prune. A page answered by its page entry,
    its prefix entry or its head reads no records, yet keeps its record entry in use: a site unchanged for
    a week, checked every day, whose next build changes every page where no entry answers, finds its
    records validated and rendered, not checked again from the JSON up."""
    varied = site / "pages" / "varied.html"
    varied.write_text(_varied_page(), encoding="utf-8")  # (its bundle after its head: a head answers it)
    _new_process()  # (records another test checked are not in this one's record cache)
    run()
    records = _records(site)
    assert len(records) == 3  # (one bundle a page)

    def week_later(pages: int = 3) -> None:
        _age(site, days=_cache.RECORDS_KEEP_DAYS + 1)
        assert run()[2] == {"pages": pages, "checked": 0, "cached": pages}

    week_later()  # every page answered by its own entry
    assert _records(site) == records
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    week_later()  # answered by the prefix entries
    assert _records(site) == records
    varied.write_bytes(varied.read_bytes().replace(b"</head>", b"<!-- build 3 --></head>", 1))
    week_later()  # answered by its head (the others by their own entries)
    assert _records(site) == records
    week_later()  # by the entry the head's answer wrote
    assert _records(site) == records
    (site / "pages" / "tricky.html").unlink()  # a page gone: nothing names its records any more
    week_later(pages=2)
    assert len(_records(site)) == 2 and set(_records(site)) < set(records)


def _new_process() -> None:
    """Forget the bundles this test process checked, as a new static-helper process has: a bundle text the
    in-process memo answers is not stored in the record cache (the process that first checked it did)."""
    from claim_evidence._check import facts
    from claim_evidence._render import evidence

    for memo in (facts._FACTS, facts._LOADED, evidence._MEMO):
        memo.items.clear()


def _records(site: Path) -> list[str]:
    """The keys of the record entries (read from the file: reading through a store would mark them used)."""
    import sqlite3

    path = site / CACHE_DIR_NAME / _cache.RECORDS_FILE_NAME
    with closing(sqlite3.connect(path)) as db:
        return [key for (key,) in db.execute("SELECT key FROM entries ORDER BY key")]


def _age(site: Path, days: float = 1 / 24) -> None:
    """Date every entry of both caches ``days`` back, as if an earlier build had written them."""
    import sqlite3
    import time

    for name in (_cache.PAGES_FILE_NAME, _cache.RECORDS_FILE_NAME):
        path = site / CACHE_DIR_NAME / name
        if path.exists():
            with closing(sqlite3.connect(path)) as db, db:
                db.execute("UPDATE entries SET used = ?", (time.time() - days * 86400,))


def test_cache_filled_by_a_parallel_run_answers_the_next_one(run: Any, site: Path) -> None:
    """With --jobs 2 the worker processes write the entries they kept when they end, before the run prunes
    and returns: the next run checks nothing. Record entries go the same way, and the pages the workers
    answer keep them in use."""
    from claim_evidence._site.runner import MIN_PARALLEL

    _new_process()  # (the records this test process checked before would be the workers' memo: no entry written)
    basic = (site / "pages" / "basic.html").read_bytes()
    for n in range(MIN_PARALLEL):
        (site / "pages" / f"copy{n:03d}.html").write_bytes(basic)
    pages = MIN_PARALLEL + 2
    assert run("--jobs", "2")[2] == {"pages": pages, "checked": pages, "cached": 0}
    assert len(entries(site)) == pages and len(prefixes(site)) == pages
    _age(site)  # (what the workers read, or only kept, counts for the run's prune: nothing goes)
    assert run("--jobs", "2")[2] == {"pages": pages, "checked": 0, "cached": pages}
    assert len(entries(site)) == pages and len(prefixes(site)) == pages
    # The workers' prefix entries answer a rebuild that stamped every page after its evidence.
    for page in (site / "pages").glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    assert run("--jobs", "2")[2] == {"pages": pages, "checked": 0, "cached": pages}
    # A week on, the pages the workers answered kept their records' entries in use (two bundles: the copies
    # share basic's).
    records = _records(site)
    assert len(records) == 2
    _age(site, days=_cache.RECORDS_KEEP_DAYS + 1)
    assert run("--jobs", "2")[2] == {"pages": pages, "checked": 0, "cached": pages}
    assert _records(site) == records
