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
from claim_evidence._snapstore import SnapshotStore

from .conftest import ROOT
from .httpserver import QUOTE, LoopbackServer, Reply, loopback_fixture  # noqa: F401 (the `loopback` fixture)

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
            "id": f"c-{s['id']}", "statement": "架空の主張。", "basis": "reporting", "status": "matched",
            "conditions": [], "source_refs": [ref],
        }
        claim["verification"] = {"checked_at": "2026-09-01", "method": "human_document_review", "fingerprint": claim_fingerprint(claim, sources)}
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
    code, out, err = run("sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), "--retrieved-at", "2026-10-01")
    assert (code, err) == (1, "")  # one source could not be fetched
    lines = [line for line in out.splitlines() if line.startswith(("SNAPSHOT", "FAILED"))]
    assert [line.split("): ")[0] + ")" for line in lines] == [
        f"SNAPSHOT source sjis ({loopback.url('/files/shift_jis.html')})", f"SNAPSHOT source eucjp ({loopback.url('/files/euc_jp.html')})",
        f"SNAPSHOT source pdf ({loopback.url('/files/page.pdf')})", f"SNAPSHOT source moved ({loopback.url('/redirect/2')})",
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
    assert {r.headers["user-agent"] for r in loopback.requests} == {f"claim-evidence/{__import__('claim_evidence').__version__} (source snapshots)"}
    assert not any(k == "fingerprint" and v not in {c["verification"]["fingerprint"] for c in sealed_bundle(sources)["claims"]}
                   for c in value["claims"] for k, v in c["verification"].items())  # no seal was refreshed


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
    code, out, _ = run("sources", "snapshot", str(path), "--source", "s", "--file", str(copy), "--snapshot-dir", str(tmp_path / "snaps"), "--retrieved-at", "2026-10-02")
    assert code == 0
    assert out.startswith("SNAPSHOT source s (https://example.com/report): stored ")
    snapshot = json.loads(path.read_text(encoding="utf-8"))["sources"][0]["snapshot"]
    assert {k: v for k, v in snapshot.items() if k != "sha256"} == {
        "retrieved_at": "2026-10-02", "content_type": "application/pdf", "final_url": "https://example.com/report",
        "note": "imported from a local copy (page.pdf), not fetched",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--source", "nope"), "no source with id 'nope' (sources: s)"),
        (("--retrieved-at", "2026-02-30"), "--retrieved-at must be an existing date as YYYY-MM-DD"),
        (("--file", "{copy}"), "--file records one copy: give exactly one --source ID"),
    ],
)
def test_sources_snapshot_refusals_write_nothing(run: Any, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    path = write(tmp_path / "b.json", sealed_bundle([source("s", "https://example.com/report")]))
    before = path.read_bytes()
    copy = str(ROOT / "tests" / "data" / "snapshots" / "plain.txt")
    code, out, err = run("sources", "snapshot", str(path), "--snapshot-dir", str(tmp_path / "snaps"), *(a.format(copy=copy) for a in args))
    assert code == 2 and message in err and out == ""
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


def test_sources_verify_classifies_every_source(loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    code, out, _ = run("sources", "verify", "--config", str(tmp_path / "claim-evidence.toml"), "--timeout", "0.5")
    assert code == 1, out
    assert page.read_bytes() == before  # verify never changes a record
    assert re.search(rf"^PASS {re.escape(loopback.url('/stable'))}: unchanged$", out, re.M), out
    assert "CE533 [source changes] drifted: changed since the snapshot, the 1 quote still present" in out
    assert "CE534 [source loses] drifted: the source changed and no longer has the quote of page.html [c-loses]" in out
    assert "CE530 [source dies] dead: HTTP 410" in out
    assert re.search(r"CE532 \[source moves\] moved: now served from http://localhost:\d+/stable \(another host\)", out), out
    assert "CE531 [source slow] unreachable, not judged: timed out" in out
    assert out.splitlines()[-1] == "6 sources: 4 passed, 2 failed"  # warnings pass: a flaky day never fails the job


def test_sources_verify_update_snapshots_stores_new_copies_only(loopback: LoopbackServer, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
        hoshi = (copies / "hoshi-news.html").read_bytes().decode("shift_jis").replace("架空クモ社は 8 月 22 日、クモエンジン 3 の企業向け提供を始めた。", "")
        (copies / "hoshi-news.html").write_bytes(hoshi.encode("shift_jis"))
        code, out, _ = run("sources", "verify", "--config", str(site / "claim-evidence.toml"))
    assert code == 1
    assert "CE534 [source hoshi-news] drifted: the source changed and no longer has the quote of articles/kumo-engine-3.html [KUMO-RELEASE]" in out.replace(str(site) + "/", "")
