"""`claim-evidence sources snapshot` and `sources verify` over real HTTP, against the loopback server."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, render_evidence
from claim_evidence._snapshots.store import SnapshotStore

from ...conftest import ROOT
from ...httpserver import QUOTE, LoopbackServer, Reply, loopback_fixture  # noqa: F401 (the `loopback` fixture)

SITE = ROOT / "examples" / "site"
CHANGING_QUOTE = "request"  # /changing serves "request N": different bytes, the same passage


def source(sid: str, url: str) -> dict[str, Any]:
    return {"id": sid, "publisher": "架空社", "title": sid, "url": url}


def sealed_bundle(sources: list[dict[str, Any]], quotes: dict[str, str] | None = None) -> dict[str, Any]:
    """One reviewed claim per source (so every snapshot undoes a review), with the quotes given."""
    claims = []
    for s in sources:
        ref: dict[str, Any] = {"source_id": s["id"], "section": "本文", "supports": "内容"}
        if quotes and s["id"] in quotes:
            ref["quote"] = {"exact": quotes[s["id"]]}
        claim = {
            "id": f"c-{s['id']}",
            "statement": "架空の主張。",
            "basis": "reporting",
            "status": "matched",
            "conditions": [],
            "source_refs": [ref],
        }
        claim["verification"] = {
            "checked_at": "2026-09-01",
            "method": "human_document_review",
            "fingerprint": claim_fingerprint(claim, sources),
        }
        claims.append(claim)
    return {"version": 1, "sources": sources, "claims": claims}


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def test_sources_snapshot_fetches_stores_and_records(loopback: LoopbackServer, run: Any, tmp_path: Path) -> None:
    sources = [
        source("sjis", loopback.url("/files/shift_jis.html")),
        source("eucjp", loopback.url("/files/euc_jp.html")),
        source("pdf", loopback.url("/files/page.pdf")),
        source("moved", loopback.url("/redirect/2")),
        source("gone", loopback.url("/404")),
    ]
    path = write(tmp_path / "b.json", sealed_bundle(sources))
    code, out, err = run(
        "sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), "--retrieved-at", "2026-10-01"
    )
    assert (code, err) == (1, "")  # one source could not be fetched
    lines = [line for line in out.splitlines() if line.startswith(("SNAPSHOT", "FAILED"))]
    assert [line.split("): ")[0] + ")" for line in lines] == [
        f"SNAPSHOT source sjis ({loopback.url('/files/shift_jis.html')})",
        f"SNAPSHOT source eucjp ({loopback.url('/files/euc_jp.html')})",
        f"SNAPSHOT source pdf ({loopback.url('/files/page.pdf')})",
        f"SNAPSHOT source moved ({loopback.url('/redirect/2')})",
        f"FAILED source gone ({loopback.url('/404')})",
    ]
    assert lines[-1].endswith(": dead: HTTP 404")
    value = json.loads(path.read_text(encoding="utf-8"))
    records = {s["id"]: s.get("snapshot") for s in value["sources"]}
    assert records["gone"] is None
    assert records["moved"]["final_url"] == loopback.url("/stable")
    assert records["pdf"]["content_type"] == "application/pdf"
    assert {r["retrieved_at"] for r in records.values() if r} == {"2026-10-01"}
    store = SnapshotStore(tmp_path / "snaps")
    for sid in ("sjis", "eucjp", "pdf", "moved"):
        digest = records[sid]["sha256"]
        assert store.check(digest) == "ok"
        assert store.bin_path(digest) == tmp_path / "snaps" / "sha256" / digest[:2] / f"{digest[2:]}.bin"
    assert "クモエンジン 3 の最大入力長は 256,000 トークンです" in (store.text(records["sjis"]["sha256"]) or "")
    assert "Kumo Engine 3 accepts up to 256,000 tokens." in (store.text(records["pdf"]["sha256"]) or "")
    for sid in ("sjis", "eucjp", "pdf", "moved"):  # their reviews covered the old source records
        assert f"note: this undoes the review of claim c-{sid}: read its sources again" in out
    assert "c-gone" not in out.split(f"{path}: written")[1]
    assert {r.headers["user-agent"] for r in loopback.requests} == {
        f"claim-evidence/{__import__('claim_evidence').__version__} (source snapshots)"
    }
    assert not any(
        k == "fingerprint" and v not in {c["verification"]["fingerprint"] for c in sealed_bundle(sources)["claims"]}
        for c in value["claims"]
        for k, v in c["verification"].items()
    )  # no seal was refreshed


def test_sources_snapshot_again_reuses_the_stored_file(loopback: LoopbackServer, run: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "b.json", sealed_bundle([source("s", loopback.url("/stable"))]))
    args = ("sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), "--retrieved-at", "2026-10-01")
    assert run(*args)[0] == 0
    stored = next((tmp_path / "snaps").rglob("*.bin"))
    stamp = stored.stat().st_mtime_ns
    code, out, _ = run(*args)
    assert code == 0 and f"{path}: no change" in out
    assert stored.stat().st_mtime_ns == stamp


def test_sources_snapshot_from_a_local_file(run: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "b.json", sealed_bundle([source("s", "https://example.com/report")]))
    copy = ROOT / "tests" / "data" / "snapshots" / "page.pdf"
    code, out, _ = run(
        "sources",
        "snapshot",
        str(path),
        "--source",
        "s",
        "--file",
        str(copy),
        "--snapshot-dir",
        str(tmp_path / "snaps"),
        "--retrieved-at",
        "2026-10-02",
    )
    assert code == 0
    assert out.startswith("SNAPSHOT source s (https://example.com/report): stored ")
    snapshot = json.loads(path.read_text(encoding="utf-8"))["sources"][0]["snapshot"]
    assert {k: v for k, v in snapshot.items() if k != "sha256"} == {
        "retrieved_at": "2026-10-02",
        "content_type": "application/pdf",
        "final_url": "https://example.com/report",
        "note": "imported from a local copy (page.pdf), not fetched",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--source", "nope"),
            "Error: Invalid value for '--source': {path} has no source with id 'nope'; its sources: s\n",
        ),
        (("--retrieved-at", "2026-02-30"), "--retrieved-at must be an existing date as YYYY-MM-DD"),
        (("--file", "{copy}"), "--file records one copy: give exactly one --source ID"),
    ],
)
def test_sources_snapshot_refusals_write_nothing(run: Any, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    path = write(tmp_path / "b.json", sealed_bundle([source("s", "https://example.com/report")]))
    before = path.read_bytes()
    copy = str(ROOT / "tests" / "data" / "snapshots" / "plain.txt")
    code, out, err = run(
        "sources",
        "snapshot",
        str(path),
        "--snapshot-dir",
        str(tmp_path / "snaps"),
        *(a.format(copy=copy) for a in args),
    )
    assert code == 2 and message.format(path=path) in err and out == ""
    assert path.read_bytes() == before and not (tmp_path / "snaps").exists()


def test_sources_snapshot_needs_a_folder(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "b.json", sealed_bundle([source("s", "https://example.com/report")]))
    code, _, err = run("sources", "snapshot", str(path))
    assert code == 2 and "no snapshot folder: give --snapshot-dir DIR" in err


# --- verify ------------------------------------------------------------------------------------------------


def site_page(bundle: dict[str, Any]) -> str:
    body = "".join(
        f'<p data-claim-id="{c["id"]}">{c["statement"]}</p><div data-evidence-for="{c["id"]}">{render_evidence(bundle, [c["id"]])}</div>\n'
        for c in bundle["claims"]
    )
    return (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8"><title>t</title>'
        '<link rel="stylesheet" href="/assets/claim-evidence.css"></head>\n<body>\n'
        f'{body}<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n</body></html>\n'
    )


def test_sources_verify_classifies_every_source(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    def movable(hit: int) -> Any:
        if hit == 1:
            return b"<html><body><p>moving soon</p></body></html>"
        return Reply(302, {"Location": loopback.url("/stable", host="localhost")}, b"")

    loopback.route("/movable", body=movable)
    sources = [
        source("same", loopback.url("/stable")),
        source("changes", loopback.url("/changing")),
        source("loses", loopback.url("/quote-removed")),
        source("dies", loopback.url("/dies")),
        source("moves", loopback.url("/movable")),
        source("slow", loopback.url("/slow-then?seconds=3")),
    ]
    loopback.route("/dies", body=lambda hit: b"<p>alive</p>" if hit == 1 else Reply(410, {}, b"gone"))
    loopback.route("/slow-then", body=lambda hit: b"<p>quick</p>")
    page = tmp_path / "page.html"
    bundle = sealed_bundle(sources, quotes={"loses": QUOTE.rstrip("。"), "changes": CHANGING_QUOTE})
    page.write_text(site_page(bundle), encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    assert run("sources", "snapshot", str(page), "--retrieved-at", "2026-10-01")[0] == 0
    assert len(list((tmp_path / "evidence-snapshots").rglob("*.bin"))) == 6

    def late(hit: int) -> bytes:
        time.sleep(2)
        return b"late"

    loopback.route("/slow-then", body=late)
    before = page.read_bytes()
    # --allow-private: "moves" goes to another host name of this loopback server (see the #31 tests for the default).
    code, out, _ = run(
        "sources", "verify", "--config", str(tmp_path / "claim-evidence.toml"), "--timeout", "0.5", "--allow-private"
    )
    assert code == 1, out
    assert page.read_bytes() == before  # verify never changes a record
    assert re.search(rf"^PASS {re.escape(loopback.url('/stable'))}: unchanged$", out, re.M), out
    assert "CE533 [source changes] drifted: changed since the snapshot, the 1 quote still present" in out
    assert "CE534 [source loses] drifted: the source changed and no longer has the quote of page.html [c-loses]" in out
    assert "CE530 [source dies] dead: HTTP 410" in out
    assert re.search(
        r"CE532 \[source moves\] moved: now served from http://localhost:\d+/stable \(another host\)", out
    ), out
    assert "CE531 [source slow] unreachable, not judged: timed out" in out
    assert out.splitlines()[-1] == "6 sources: 4 passed, 2 failed"  # warnings pass: a flaky day never fails the job


def test_sources_verify_update_snapshots_stores_new_copies_only(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.html"
    page.write_text(site_page(sealed_bundle([source("changes", loopback.url("/changing"))])), encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    assert run("sources", "snapshot", str(page), "--retrieved-at", "2026-10-01")[0] == 0
    before = page.read_bytes()
    stored = sorted((tmp_path / "evidence-snapshots").rglob("*.bin"))
    code, out, _ = run("sources", "verify", "--update-snapshots")
    assert code == 0 and "(new copy stored: " in out
    assert len(sorted((tmp_path / "evidence-snapshots").rglob("*.bin"))) == len(stored) + 1
    assert page.read_bytes() == before


def test_sources_verify_the_example_site_served_from_the_repo(run: Any, tmp_path: Path) -> None:
    """examples/site's sources, served over real HTTP from the committed copies: unchanged; then a copy
    loses the quoted sentence and verify names the claim whose review no longer holds."""
    copies = tmp_path / "copies"
    shutil.copytree(SITE / "source-copies", copies)
    site = tmp_path / "site"
    shutil.copytree(SITE, site, ignore=shutil.ignore_patterns(".claim-evidence-cache"))
    with LoopbackServer(files=copies) as server:
        for page in [site / "about.html", *sorted(site.glob("*/*.html"))]:
            if page.parent.name == "source-copies":
                continue
            text = page.read_text(encoding="utf-8")
            for sid in re.findall(r'"id": "([a-z-]+)",\s*"publisher"', text):
                url = re.search(rf'"id": "{sid}",.*?"url": "([^"]+)"', text, re.S).group(1)  # type: ignore[union-attr]
                text = text.replace(f'"{url}"', json.dumps(server.url(f"/files/{sid}.html")))
            page.write_text(text, encoding="utf-8")
        code, out, _ = run("sources", "verify", "--config", str(site / "claim-evidence.toml"))
        assert (code, out.splitlines()[-1]) == (0, "8 sources: 8 passed, 0 failed"), out
        assert out.count(": unchanged") == 8
        hoshi = (
            (copies / "hoshi-news.html")
            .read_bytes()
            .decode("shift_jis")
            .replace("架空クモ社は 8 月 22 日、クモエンジン 3 の企業向け提供を始めた。", "")
        )
        (copies / "hoshi-news.html").write_bytes(hoshi.encode("shift_jis"))
        code, out, _ = run("sources", "verify", "--config", str(site / "claim-evidence.toml"))
    assert code == 1
    assert (
        "CE534 [source hoshi-news] drifted: the source changed and no longer has the quote of articles/kumo-engine-3.html [KUMO-RELEASE]"
        in out.replace(str(site) + "/", "")
    )


def two_page_site(loopback: LoopbackServer, tmp_path: Path) -> Path:
    """a.html cites /stable and /changing, b.html cites /gzip; a config registers both."""
    (tmp_path / "a.html").write_text(
        site_page(
            sealed_bundle([source("same", loopback.url("/stable")), source("changes", loopback.url("/changing"))])
        ),
        encoding="utf-8",
    )
    (tmp_path / "b.html").write_text(
        site_page(sealed_bundle([source("zipped", loopback.url("/gzip"))])), encoding="utf-8"
    )
    config = tmp_path / "claim-evidence.toml"
    config.write_text('pages = ["*.html"]\n', encoding="utf-8")
    return config


def test_sources_verify_only_the_sources_and_pages_asked(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = two_page_site(loopback, tmp_path)
    code, out, _ = run("sources", "verify", "--source", "changes", "--source", "zipped")
    assert (code, out.splitlines()[-1]) == (0, "2 sources: 2 passed, 0 failed"), out
    assert sorted(r.path for r in loopback.requests) == ["/changing", "/gzip"]
    loopback.reset()
    code, out, _ = run("sources", "verify", "--config", str(config), "--page", "b.html")
    assert (code, out.splitlines()[-1]) == (0, "1 source: 1 passed, 0 failed"), out
    assert [r.path for r in loopback.requests] == ["/gzip"]
    loopback.reset()
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)  # --page from the config's folder as well as from here
    code, out, _ = run(
        "sources", "verify", "--config", str(config), "--page", "a.html", "--page", "../a.html", "--source", "same"
    )
    assert (code, [r.path for r in loopback.requests]) == (0, ["/stable"]), out


def test_sources_verify_unknown_source_or_page_is_exit_2_without_a_request(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    two_page_site(loopback, tmp_path)
    code, out, err = run("sources", "verify", "--source", "zipd", "--source", "same")
    assert (code, out) == (2, "")
    assert err.endswith(
        "Error: Invalid value for '--source': the site has no source with id 'zipd' (did you mean 'zipped'?); its sources: changes, same, zipped\n"
    )
    code, out, err = run("sources", "verify", "--page", "b.html", "--source", "same")
    assert (code, out) == (2, "")
    assert err.endswith("the pages given have no source with id 'same'; their sources: zipped\n")
    code, out, err = run("sources", "verify", "--page", "c.html")
    assert (code, out) == (2, "")
    assert err.endswith(
        "Error: Invalid value for '--page': claim-evidence.toml registers no page 'c.html' (did you mean 'b.html'?); its pages: a.html, b.html\n"
    )
    assert loopback.requests == []


def test_sources_verify_dns_failure_is_unreachable_not_dead(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name that does not resolve says nothing about the source: a warning, exit 0. (The lookup fails the
    way the system resolver fails it; no DNS query leaves this machine in the tests.)"""
    import socket

    from .test_fetch import resolver_failing_for

    resolver_failing_for(
        monkeypatch, "claim-evidence-test.invalid", socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    )
    monkeypatch.chdir(tmp_path)
    url = "http://claim-evidence-test.invalid/report"
    (tmp_path / "a.html").write_text(
        site_page(sealed_bundle([source("gone", url), source("same", loopback.url("/stable"))])), encoding="utf-8"
    )
    (tmp_path / "claim-evidence.toml").write_text('pages = ["a.html"]\n', encoding="utf-8")
    code, out, _ = run("sources", "verify")
    assert code == 0, out
    assert f"{url}: CE531 [source gone] unreachable, not judged: DNS lookup failed" in out
    assert "CE530" not in out and out.splitlines()[-1] == "2 sources: 2 passed, 0 failed"


# --- hostile sources (#31): redirects into other local services, deadlines, bombs, escapes, partial answers ---


def one_source_site(tmp_path: Path, url: str, sid: str = "s") -> Path:
    page = tmp_path / "page.html"
    page.write_text(site_page(sealed_bundle([source(sid, url)])), encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    return page


def test_sources_redirect_to_another_local_service_is_neither_stored_nor_followed(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source that redirects to another port of the machine must not bring that service's answer
    into the snapshot folder (which is committed); verify says refused (CE535), an error."""
    monkeypatch.chdir(tmp_path)
    with LoopbackServer() as internal:
        internal.route("/stable", body=b"INTERNAL SERVICE SECRET")
        url = loopback.url(f"/to-port?port={internal.port}")
        page = one_source_site(tmp_path, url)
        before = page.read_bytes()
        code, out, _ = run("sources", "snapshot", str(page), "--retrieved-at", "2026-10-01")
        assert code == 1, out
        assert out == (
            f"FAILED source s ({url}): refused: redirected to {internal.url('/stable')}, a non-public address (127.0.0.1): not followed\n"
            f"{page}: no change\n"
        )
        assert page.read_bytes() == before and not (tmp_path / "evidence-snapshots").exists()
        code, out, _ = run("sources", "verify")
        assert code == 1
        assert (
            f"{url}: CE535 [source s] refused, not read: redirected to {internal.url('/stable')}, a non-public address (127.0.0.1): not followed"
            in out
        )
        assert internal.requests == []
        code, out, _ = run(
            "sources", "snapshot", str(page), "--retrieved-at", "2026-10-01", "--allow-private"
        )  # an intranet, knowingly
        assert code == 0 and out.startswith(f"SNAPSHOT source s ({url}): stored "), out
        assert len(internal.requests) == 1


def test_sources_verify_moved_compares_scheme_host_and_port(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same host name, another port: another service, so CE532 (it compared host names only)."""
    monkeypatch.chdir(tmp_path)
    with LoopbackServer() as elsewhere:
        loopback.route(
            "/page",
            body=lambda hit: b"<p>here</p>" if hit == 1 else Reply(301, {"Location": elsewhere.url("/stable")}, b""),
        )
        page = one_source_site(tmp_path, loopback.url("/page"))
        assert run("sources", "snapshot", str(page), "--retrieved-at", "2026-10-01")[0] == 0
        code, out, _ = run("sources", "verify", "--allow-private")
    assert code == 0, out
    assert (
        f"CE532 [source s] moved: now served from {elsewhere.url('/stable')} (another port); cited in page.html [source s] (warning)"
        in out
    )


def test_sources_snapshot_dripped_body_is_cut_at_the_deadline_never_stored(
    loopback: LoopbackServer, run: Any, tmp_path: Path
) -> None:
    """A body dripped a byte every 0.1 s: with --timeout 1 the source is given up after about a second,
    whatever each single read does; nothing is stored or recorded."""
    url = loopback.url("/drip?bytes=200&every=0.1")
    path = write(tmp_path / "b.json", sealed_bundle([source("s", url)]))
    before = path.read_bytes()
    started = time.monotonic()
    code, out, _ = run("sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), "--timeout", "1")
    elapsed = time.monotonic() - started
    assert (code, out) == (
        1,
        f"FAILED source s ({url}): unreachable: timed out: not finished within the 1 s deadline\n{path}: no change\n",
    )
    assert path.read_bytes() == before and not (tmp_path / "snaps").exists()
    assert elapsed < 5.0, elapsed


def test_sources_snapshot_of_a_partial_answer_is_refused(
    loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    url = loopback.url("/partial")
    page = one_source_site(tmp_path, url)
    code, out, _ = run("sources", "snapshot", str(page), "--retrieved-at", "2026-10-01")
    assert (code, out) == (
        1,
        f"FAILED source s ({url}): refused: HTTP 206 Partial Content: not the whole document (no range was asked for)\n{page}: no change\n",
    )
    code, out, _ = run("sources", "verify")
    assert code == 1 and "CE535 [source s] refused, not read: HTTP 206 Partial Content" in out


def test_sources_terminal_controls_from_the_network_are_escaped_printed_and_stored(
    loopback: LoopbackServer, run: Any, tmp_path: Path
) -> None:
    loopback.route(
        "/escapes",
        headers={"Content-Type": "text/plain\x1b[2J\x1b]0;owned\x07\u202e; charset=utf-8"},
        body=b"some text",
    )
    url = loopback.url("/escapes")
    path = write(tmp_path / "b.json", sealed_bundle([source("s", url)]))
    code, out, _ = run(
        "sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), "--retrieved-at", "2026-10-01"
    )
    assert code == 0, out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "(text/plain\\x1b[2J\\x1b]0;owned\\x07\\u202e; charset=utf-8, 9 bytes" in out
    record = json.loads(path.read_text(encoding="utf-8"))["sources"][0]["snapshot"]
    assert record["content_type"] == "text/plain\\x1b[2J\\x1b]0;owned\\x07\\u202e; charset=utf-8"


_CLI_RSS_PROBE = """
import resource, sys
import httpx, lxml.html, claim_evidence._sources.commands  # what the commands load, before the baseline
from claim_evidence.cli import main
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = main(sys.argv[1:])
print("GROWTH_KIB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline, "EXIT", code)
"""


def test_sources_snapshot_and_verify_of_a_stacked_gzip_bomb_stay_small(
    loopback: LoopbackServer, tmp_path: Path
) -> None:
    """Both commands over ``Content-Encoding: gzip, gzip`` of 1 GiB (about 2.5 KB on the wire), each in a
    fresh interpreter: too large, nothing stored, and the peak RSS grows by far less than 200 MB."""
    import os
    import subprocess
    import sys

    url = loopback.url(f"/gzip-stacked?size={1 << 30}")
    page = one_source_site(tmp_path, url)
    for argv in (
        ["sources", "snapshot", str(page), "--retrieved-at", "2026-10-01"],
        ["sources", "verify", "--config", str(tmp_path / "claim-evidence.toml")],
    ):
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", _CLI_RSS_PROBE, *argv],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},  # this tree's package, whatever is installed
        )
        elapsed = time.monotonic() - started
        *lines, last = done.stdout.splitlines()
        growth, code = int(last.split()[1]), int(last.split()[3])
        assert growth < 200 * 1024 and elapsed < 30, (argv[1], growth, elapsed)
        if argv[1] == "snapshot":
            assert (code, lines) == (
                1,
                [f"FAILED source s ({url}): too_large: body over 20000000 bytes", f"{page}: no change"],
            ), done.stdout + done.stderr
        else:
            assert (
                code == 0
                and f"{url}: CE531 [source s] unreachable, not judged: body over 20000000 bytes" in done.stdout
            ), done.stdout
    assert not (tmp_path / "evidence-snapshots").exists()
