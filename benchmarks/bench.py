"""Benchmark the static page check against the lxml parse floor (issue 6).

    .venv/bin/python benchmarks/bench.py --pages 1000

Generates a deterministic synthetic site (about 50 KB Japanese pages with nav,
long paragraphs, tables, code blocks, inline scripts and styles, comments and
entities; sealed bundles made with the library; slots rendered so the cold
check passes) plus an all-stale copy, then times whole processes, alternating
the measurements within each round, and prints medians, ratios to the floor
and each child's peak RSS. Not collected by pytest (``testpaths = ["tests"]``).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from claim_evidence import claim_fingerprint, render_evidence
from claim_evidence._jsonio import dumps_for_script

STYLESHEET = "/assets/claim-evidence.css"
PAGES_GLOB = "articles/**/*.html"
PER_FOLDER = 100
# A page without any evidence markup, every this many pages (unregistered; the pre-filter's case).
PLAIN_EVERY = 10

_WORDS = (
    "生成AI", "推論", "モデル", "データセンター", "半導体", "消費電力", "ベンチマーク", "開発者", "クラウド",
    "学習データ", "評価", "精度", "応答速度", "料金", "契約", "利用規約", "安全性", "透明性", "公開", "発表",
    "検証", "測定", "記事", "編集部", "資料", "出典", "仕様", "バージョン", "対応", "提供", "企業", "研究者",
    "東京", "大阪", "日本語", "翻訳", "要約", "検索", "画像", "音声", "動画", "端末", "サーバー", "回線",
)
_PARTICLES = ("は", "が", "を", "に", "で", "と", "の", "から", "まで", "より")
_ENDINGS = ("した。", "している。", "と発表した。", "とみられる。", "を示した。", "が続く。", "と述べた。", "になった。")
_SCRIPT = """
  <script>
    // inline script whose raw text mentions markup: </div> data-claim-id="x" <!-- not a comment -->
    window.dataLayer = window.dataLayer || [];
    function track(name) { if (name && name.length < 80) { window.dataLayer.push({event: name}); } }
    document.addEventListener("DOMContentLoaded", function () { track("view"); });
  </script>"""
_STYLE = """
  <style>
    body { font-family: "Noto Sans JP", sans-serif; line-height: 1.8; }
    nav > ul > li { display: inline-block; margin: 0 .5em; }
    table.data td, table.data th { border: 1px solid #ccc; padding: .25em .5em; }
    pre code { background: #f6f8fa; } /* </style> is only the real end */
  </style>"""


# --- the synthetic site ---------------------------------------------------------------


def _sentence(rng: random.Random) -> str:
    parts = [f"{rng.choice(_WORDS)}{rng.choice(_PARTICLES)}" for _ in range(rng.randint(3, 7))]
    return "".join(parts) + f"{rng.choice(_WORDS)}{rng.choice(_ENDINGS)}"


def _paragraph(rng: random.Random, sentences: int) -> str:
    text = "".join(_sentence(rng) for _ in range(sentences))
    # Entities and inline markup, as hand-written pages have them.
    return text.replace("。", "。&nbsp;", 1).replace("AI", "<b>AI</b>", 1) + " &amp; 注&#x3042;"


def _bundle(rng: random.Random, page: int, claims: int) -> dict[str, Any]:
    sources = [
        {
            "id": f"src-{page}-{s}",
            "publisher": f"{rng.choice(_WORDS)}社",
            "title": f"{rng.choice(_WORDS)}の{rng.choice(_WORDS)}に関する報告 第{s + 1}版",
            "url": f"https://example.com/reports/{page}/{s}",
            "published_at": f"2026-0{rng.randint(1, 6)}-1{rng.randint(0, 9)}",
        }
        for s in range(3)
    ]
    records = []
    for c in range(claims):
        claim: dict[str, Any] = {
            "id": f"P{page:05d}-C{c:02d}",
            "label": f"{rng.choice(_WORDS)}の{rng.choice(_WORDS)}",
            "statement": _sentence(rng) + _sentence(rng),
            "evidence_label": rng.choice(("Fact", "Claim", "Fact-A")),
            "basis": rng.choice(("official_spec", "vendor_claim", "reporting")),
            "status": "matched",
            "source_refs": [
                {"source_id": sources[(c + k) % 3]["id"], "section": f"第 {k + 1} 節", "supports": _sentence(rng)}
                for k in range(2)
            ],
            "conditions": [f"{rng.choice(_WORDS)}の条件"],
            "as_of": "2026-07-01",
            "uncertainty": f"{rng.choice(_WORDS)}は未検証",
            "verification": {"checked_at": "2026-07-20", "method": "human_document_review"},
        }
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, sources)
        records.append(claim)
    return {"version": 1, "sources": sources, "claims": records}


def _page(index: int, claims: int, seed: int, markup: bool, share: int) -> tuple[str, str]:
    """``(fresh page, the same page with every slot stale)``; ``share`` pages carry the same record."""
    rng = random.Random(seed * 1_000_003 + index)
    record = index // share
    bundle = _bundle(random.Random(seed * 7_919 + record), record, claims) if markup else {"claims": []}
    nav = "".join(f'<li><a href="/articles/{n}.html">{rng.choice(_WORDS)}</a></li>' for n in range(40))
    head = (
        f'<!DOCTYPE html>\n<html lang="ja">\n<head>\n  <meta charset="utf-8">\n'
        f"  <title>{rng.choice(_WORDS)}の最新動向 &mdash; 架空テックノート</title>\n"
        f'  <link rel="stylesheet" href="/assets/site.css">\n'
        + (f'  <link rel="stylesheet" href="{STYLESHEET}">\n' if markup else "")
        + _STYLE + _SCRIPT + "\n</head>\n<body>\n"
        f'  <!-- site header: generated nav, edited by hand since -->\n  <nav class="site"><ul>{nav}</ul></nav>\n'
        f"  <main>\n    <article>\n      <h1>{_sentence(rng)}</h1>\n"
    )
    fresh, stale = [head], [head]
    sections = max(claims, 8)
    for s in range(sections):
        chunk = [f"      <h2>{rng.choice(_WORDS)}と{rng.choice(_WORDS)}</h2>\n"]
        chunk += [f"      <p>{_paragraph(rng, rng.randint(5, 9))}</p>\n" for _ in range(3)]
        if s % 3 == 0:
            rows = "".join(
                f"<tr><td>{rng.choice(_WORDS)}</td><td>{rng.randint(1, 999)}.{rng.randint(0, 9)} ms</td><td>{_sentence(rng)}</td></tr>\n"
                for _ in range(12)
            )
            chunk.append(f'      <table class="data">\n<thead><tr><th>項目</th><th>値</th><th>備考</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n')
        if s % 4 == 1:
            chunk.append('      <pre><code class="language-html">&lt;div data-claim-id="example"&gt;例&lt;/div&gt;\n'
                         "for (let i = 0; i &lt; n; i++) { total += cost[i]; }</code></pre>\n")
        if s % 5 == 2:
            chunk.append(f"      <!-- 編集メモ: {_sentence(rng)} <p data-evidence-for=\"old\"> -->\n")
        fresh += chunk
        stale += chunk
        if markup and s < claims:
            claim = bundle["claims"][s]
            cid = claim["id"]
            body = f'      <p data-claim-id="{cid}">{claim["statement"]}</p>\n'
            slot = f'      <div data-evidence-for="{cid}">'
            fresh += [body, slot, render_evidence(bundle, [cid], lang="ja"), "</div>\n"]
            stale += [body, slot, "</div>\n"]
    tail = "    </article>\n  </main>\n"
    if markup:
        tail += f'  <script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n'
    tail += f"  <footer><p>&copy; 2026 架空テックノート &middot; {_sentence(rng)}</p></footer>\n</body>\n</html>\n"
    fresh.append(tail)
    stale.append(tail)
    return "".join(fresh), "".join(stale)


def _page_path(index: int, markup: bool) -> str:
    folder = "articles" if markup else "static"
    return f"{folder}/{index // PER_FOLDER:04d}/page-{index:06d}.html"


def _write_chunk(args: tuple[Path, Path, range, int, int, int]) -> None:
    site, stale_site, indexes, claims, seed, share = args
    for index in indexes:
        markup = index % PLAIN_EVERY != PLAIN_EVERY - 1
        fresh, stale = _page(index, claims, seed, markup, share)
        for root, text in ((site, fresh), (stale_site, stale)):
            path = root / _page_path(index, markup)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="")


def generate(out: Path, pages: int, claims: int, seed: int, jobs: int, share: int = 1) -> tuple[Path, Path]:
    """Write ``out/site`` (every page passes) and ``out/stale`` (every slot stale); return both."""
    site, stale_site = out / "site", out / "stale"
    for root in (site, stale_site):
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        config = f'pages = ["{PAGES_GLOB}"]\nstylesheet = "{STYLESHEET}"\nlang = "ja"\n'
        (root / "claim-evidence.toml").write_text(config, encoding="utf-8")
    step = max(1, pages // (jobs * 8))
    chunks = [(site, stale_site, range(i, min(i + step, pages)), claims, seed, share) for i in range(0, pages, step)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            list(pool.map(_write_chunk, chunks))
    else:
        for chunk in chunks:
            _write_chunk(chunk)
    return site, stale_site


# --- timing whole processes ----------------------------------------------------------------

_FLOOR = """
import os, sys
import lxml.html
for here, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for name in files:
        if name.endswith(".html"):
            with open(os.path.join(here, name), "rb") as handle:
                lxml.html.document_fromstring(handle.read())
"""


def _helper(*args: str) -> list[str]:
    return [sys.executable, "-m", "static_helper", *args]


def _child(argv: Sequence[str], cwd: Path, expect: set[int], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """``(wall seconds, peak RSS in KiB, stderr)`` of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in expect:
        raise SystemExit(f"{' '.join(argv)} exited {code}:\n{err}")
    return elapsed, usage.ru_maxrss, err


def _stats(stderr: str) -> dict[str, int]:
    for line in stderr.splitlines():
        if line.startswith("static-helper stats:"):
            return {k: int(v) for k, v in (part.split("=") for part in line.split(":", 1)[1].split())}
    raise SystemExit(f"no stats line on stderr:\n{stderr}")


def measure(site: Path, stale_site: Path, pages: int, runs: int) -> list[tuple[str, list[float], list[int]]]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-write-", dir=site.parent))
    cache = site / ".claim-evidence-cache"
    edited = next(site.glob(PAGES_GLOB))
    original = edited.read_bytes()

    def floor() -> tuple[float, int]:
        elapsed, rss, _ = _child([sys.executable, "-c", _FLOOR, str(site)], site, {0})
        return elapsed, rss

    def cold(jobs: int) -> Callable[[], tuple[float, int]]:
        def go() -> tuple[float, int]:
            elapsed, rss, _ = _child(_helper("--no-cache", "--jobs", str(jobs)), site, {0})
            return elapsed, rss
        return go

    def warm() -> tuple[float, int]:
        _child(_helper("--jobs", "1"), site, {0})  # populate (not timed)
        elapsed, rss, err = _child(_helper("--jobs", "1", "--stats"), site, {0})
        checked = _stats(err)["checked"]
        if checked:
            raise SystemExit(f"warm run re-checked {checked} pages, expected 0")
        return elapsed, rss

    def warm_edit() -> tuple[float, int]:
        _child(_helper("--jobs", "1"), site, {0})
        edited.write_bytes(original.replace(b"</footer>", b"</footer><!-- edited -->", 1))
        try:
            elapsed, rss, err = _child(_helper("--jobs", "1", "--stats"), site, {0})
        finally:
            edited.write_bytes(original)
        checked = _stats(err)["checked"]
        if checked != 1:
            raise SystemExit(f"after editing one page {checked} pages were re-checked, expected 1")
        return elapsed, rss

    def write() -> tuple[float, int]:
        target = scratch / "site"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(stale_site, target)
        elapsed, rss, _ = _child(_helper("--write", "--no-cache", "--jobs", "1"), target, {0})  # 0: clean once rewritten
        return elapsed, rss

    plan: list[tuple[str, Callable[[], tuple[float, int]]]] = [
        ("lxml parse floor (1 process)", floor),
        ("cold check --jobs 1", cold(1)),
        ("cold check --jobs 2", cold(2)),
        ("warm check (cache populated)", warm),
        ("warm, one page edited", warm_edit),
        ("--write, every slot stale, --jobs 1", write),
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in plan}
    peaks: dict[str, list[int]] = {name: [] for name, _ in plan}
    try:
        for round_ in range(runs):
            shutil.rmtree(cache, ignore_errors=True)
            for name, step in plan:
                elapsed, rss = step()
                times[name].append(elapsed)
                peaks[name].append(rss)
            print(f"round {round_ + 1}/{runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    return [(name, times[name], peaks[name]) for name, _ in plan]


def table(rows: list[tuple[str, list[float], list[int]]], pages: int, runs: int) -> str:
    floor = statistics.median(rows[0][1])
    cold1 = statistics.median(rows[1][1])
    lines = [
        f"{pages} pages, median of {runs} runs, whole processes",
        "",
        "| measurement | median s | vs floor | vs cold --jobs 1 | peak RSS MiB |",
        "|---|---|---|---|---|",
    ]
    for name, times, peaks in rows:
        median = statistics.median(times)
        lines.append(
            f"| {name} | {median:.3f} | {median / floor:.2f}x | {median / cold1:.2f}x | {max(peaks) / 1024:.0f} |"
        )
    jobs2 = statistics.median(rows[2][1])
    lines += ["", f"--jobs 2 throughput: {cold1 / jobs2:.2f}x of --jobs 1"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000, help="pages in the site (default 1000)")
    parser.add_argument("--claims", type=int, default=10, help="claims per page (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    parser.add_argument("--pages-per-record", type=int, default=1,
                        help="consecutive pages that embed the same evidence record (default 1: every page its own)")
    parser.add_argument("--runs", type=int, default=3, help="rounds to take the median of (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="where to generate (default a temp folder, removed)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes for generating the site")
    parser.add_argument("--generate-only", action="store_true", help="generate the site and stop")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="claim-evidence-bench-"))
    try:
        started = time.perf_counter()
        site, stale_site = generate(out.resolve(), args.pages, args.claims, args.seed, args.jobs, args.pages_per_record)
        size = sum(p.stat().st_size for p in site.rglob("*.html"))
        print(f"generated {args.pages} pages ({size / args.pages / 1024:.1f} KiB each) in "
              f"{time.perf_counter() - started:.1f}s under {out}", file=sys.stderr)
        if args.generate_only:
            return 0
        print(f"pages per record: {args.pages_per_record}")
        print(table(measure(site, stale_site, args.pages, args.runs), args.pages, args.runs))
    finally:
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
