"""Benchmark what the generator plugins add to a build, per page (issue 25, point 6).

    .venv/bin/python benchmarks/plugins.py --pages 100 --runs 5
    .venv/bin/python benchmarks/plugins.py --generators material --profile   # where the plugin's time goes

Generates one deterministic site per generator (MkDocs with Material, Sphinx with furo, Pelican with
its notmyidea theme): ``--pages`` pages of long Japanese text (headings, paragraphs, a table, a list, a
code block, a link) with ``--claims`` claims each, written as an editor writes them (the claim element
and an empty evidence slot as raw HTML, the sealed records in the page's bundle script), so the plugin
checks every page and fills every slot. Each site is built as a whole process with the plugin and
without it, alternating within each round; the figure is CPU time (user + system, the child's own
accounting), and the overhead per page is ``(with - without) / pages`` for each round, quoted as the
median with the rounds' minimum and maximum (the noise). ``--profile`` runs one build with the plugin
under cProfile and prints where the plugin's time goes, and counts the built pages the C parser's fast
path (:mod:`claim_evidence._html.fastpath`) leaves to the reference tokenizer. Not collected by pytest
(``testpaths = ["tests"]``); needs the generators (the ``mkdocs``, ``sphinx`` and ``pelican`` extras,
mkdocs-material and furo).
"""

from __future__ import annotations

import argparse
import cProfile  # noqa: F401 - (the child runs it; imported here so a missing module fails first)
import io
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from claim_evidence import claim_fingerprint
from claim_evidence._core.jsonio import dumps_for_script

TARGET_MS = 3.0  # issue 25: at most this much CPU per ~30 KB page, in every plugin

_WORDS = ("生成AI", "推論", "モデル", "データセンター", "半導体", "消費電力", "ベンチマーク", "開発者", "クラウド")
_PARTICLES = ("の", "が", "を", "に", "と", "で", "は")
_ENDINGS = ("が増えた。", "を発表した。", "とみられる。", "を示した。", "が続く。", "と述べた。")


def _sentence(rng: random.Random) -> str:
    parts = [f"{rng.choice(_WORDS)}{rng.choice(_PARTICLES)}" for _ in range(rng.randint(3, 7))]
    return "".join(parts) + f"{rng.choice(_WORDS)}{rng.choice(_ENDINGS)}"


def _bundle(rng: random.Random, page: int, claims: int) -> dict[str, Any]:
    sources = [
        {
            "id": f"src-{page}-{s}",
            "publisher": f"{rng.choice(_WORDS)}社",
            "title": f"{rng.choice(_WORDS)}に関する報告 第{s + 1}版",
            "url": f"https://example.com/reports/{page}/{s}",
            "published_at": "2026-06-10",
        }
        for s in range(2)
    ]
    records = []
    for c in range(claims):
        claim: dict[str, Any] = {
            "id": f"P{page:04d}-C{c}",
            "label": f"{rng.choice(_WORDS)}の{rng.choice(_WORDS)}",
            "statement": _sentence(rng),
            "evidence_label": "Claim",
            "basis": "vendor_claim",
            "status": "matched",
            "source_refs": [{"source_id": sources[c % 2]["id"], "section": "概要", "supports": _sentence(rng)}],
            "conditions": [f"{rng.choice(_WORDS)}の条件"],
            "as_of": "2026-07-01",
            "uncertainty": f"{rng.choice(_WORDS)}は未検証",
            "verification": {"checked_at": "2026-07-20", "method": "human_document_review"},
        }
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, sources)
        records.append(claim)
    return {"version": 1, "sources": sources, "claims": records}


def _body(rng: random.Random, page: int, claims: int, rst: bool, paragraphs: int) -> str:
    """A page's text in Markdown (or reST): evidence markup as raw HTML, the rest the generator's own."""
    bundle = _bundle(rng, page, claims)

    def raw(html: str) -> str:
        return ".. raw:: html\n\n" + textwrap.indent(html, "   ") + "\n\n" if rst else html + "\n\n"

    def heading(text: str, level: int) -> str:
        return f"{text}\n{'=-~'[level - 1] * (len(text) * 2)}\n\n" if rst else f"{'#' * level} {text}\n\n"

    out = [heading(f"{rng.choice(_WORDS)}の動向 {page}", 1)]
    for s in range(max(claims, 4)):
        out.append(heading(f"{rng.choice(_WORDS)}と{rng.choice(_WORDS)} {s}", 2))
        out += ["".join(_sentence(rng) for _ in range(rng.randint(4, 8))) + "\n\n" for _ in range(paragraphs)]
        out.append("".join(f"- {_sentence(rng)}\n" for _ in range(5)) + "\n")
        if s == 0:
            rows = [(rng.choice(_WORDS), f"{rng.randint(1, 999)} ms") for _ in range(10)]
            if rst:
                out.append(".. list-table::\n\n" + "".join(f"   * - {a}\n     - {b}\n" for a, b in rows) + "\n")
            else:
                out.append("| 項目 | 値 |\n| --- | --- |\n" + "".join(f"| {a} | {b} |\n" for a, b in rows) + "\n")
        if s == 1:
            code = "def total(cost):\n    return sum(c for c in cost if c > 0)\n"
            out.append(
                ".. code-block:: python\n\n" + textwrap.indent(code, "   ") + "\n"
                if rst
                else f"```python\n{code}```\n\n"
            )
        if s < claims:
            claim = bundle["claims"][s]
            cid = claim["id"]
            out.append(raw(f'<p data-claim-id="{cid}">{claim["statement"]}</p>\n<div data-evidence-for="{cid}"></div>'))
    out.append(raw(f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(bundle)}\n</script>'))
    return "".join(out)


TOML = 'stylesheet = "/assets/claim-evidence.css"\n'


def _material(site: Path, pages: int, claims: int, seed: int, plugin: bool) -> list[str]:
    docs = site / "docs"
    docs.mkdir(parents=True)
    for n in range(pages):
        text = _body(random.Random(seed * 7919 + n), n, claims, False, 4)
        (docs / f"page-{n:03d}.md").write_text(text, encoding="utf-8")
    (docs / "index.md").write_text("# 目次\n\n本文は各ページにある。\n", encoding="utf-8")
    plugins = "  - search\n" + ("  - claim-evidence\n" if plugin else "")
    (site / "mkdocs.yml").write_text(
        "site_name: Bench\ntheme:\n  name: material\n  language: ja\n  font: false\n"
        f"extra_css:\n  - assets/claim-evidence.css\nplugins:\n{plugins}",
        encoding="utf-8",
    )
    (site / "claim-evidence.toml").write_text(TOML, encoding="utf-8")
    return [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site / "site")]


def _sphinx(site: Path, pages: int, claims: int, seed: int, plugin: bool) -> list[str]:
    src = site / "src"
    src.mkdir(parents=True)
    names = [f"page-{n:03d}" for n in range(pages)]
    for n, name in enumerate(names):
        (src / f"{name}.rst").write_text(_body(random.Random(seed * 7919 + n), n, claims, True, 4), encoding="utf-8")
    toc = "".join(f"   {name}\n" for name in names)
    (src / "index.rst").write_text(f"目次\n====\n\n.. toctree::\n\n{toc}", encoding="utf-8")
    extensions = '["claim_evidence.integrations.sphinx"]' if plugin else "[]"
    (src / "conf.py").write_text(
        f'project = "Bench"\nlanguage = "ja"\nhtml_theme = "furo"\nextensions = {extensions}\n'
        # (furo's default styles are newer than some Pygments releases)
        'pygments_style = "sphinx"\npygments_dark_style = "monokai"\nhtml_css_files = ["/assets/claim-evidence.css"]\n',
        encoding="utf-8",
    )
    (src / "claim-evidence.toml").write_text(TOML, encoding="utf-8")
    return [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(site / "out")]


def _pelican(site: Path, pages: int, claims: int, seed: int, plugin: bool) -> list[str]:
    content = site / "content"
    content.mkdir(parents=True)
    for n in range(pages):
        head = f"Title: 記事 {n}\nDate: 2026-07-{1 + n % 28:02d}\nSlug: page-{n:03d}\nLang: ja\nSummary: 要約 {n}。\n\n"
        text = _body(random.Random(seed * 7919 + n), n, claims, False, 4)
        (content / f"page-{n:03d}.md").write_text(head + text, encoding="utf-8")
    plugins = '["claim_evidence.integrations.pelican"]' if plugin else "[]"
    (site / "templates").mkdir()
    (site / "templates" / "article.html").write_text(
        '{% extends "!theme/article.html" %}\n{% block extra_head %}{{ super() }}\n'
        '  <link rel="stylesheet" href="{{ SITEURL }}/assets/claim-evidence.css" />\n{% endblock %}\n',
        encoding="utf-8",
    )
    (site / "pelicanconf.py").write_text(
        'SITENAME = "Bench"\nPATH = "content"\nOUTPUT_PATH = "output"\nTIMEZONE = "UTC"\nDEFAULT_LANG = "ja"\n'
        f"PLUGINS = {plugins}\nTHEME_TEMPLATES_OVERRIDES = ['templates']\nFEED_ALL_ATOM = None\nCATEGORY_FEED_ATOM = None\nAUTHOR_FEED_ATOM = None\n"
        "AUTHOR_FEED_RSS = None\nTRANSLATION_FEED_ATOM = None\nDEFAULT_PAGINATION = 10\n",
        encoding="utf-8",
    )
    (site / "claim-evidence.toml").write_text(TOML, encoding="utf-8")
    return [sys.executable, "-m", "pelican", "-q", "-s", str(site / "pelicanconf.py")]


Maker = Callable[[Path, int, int, int, bool], list[str]]
GENERATORS: dict[str, tuple[str, Maker, str]] = {
    # name: (what is built, the site maker, the folder of built pages)
    "material": ("MkDocs + Material", _material, "site"),
    "sphinx": ("Sphinx + furo", _sphinx, "out"),
    "pelican": ("Pelican (notmyidea)", _pelican, "output"),
}


def _cpu(argv: Sequence[str], cwd: Path, output: Path) -> float:
    """CPU seconds (user + system) of one build from a clean output folder; the build must succeed."""
    shutil.rmtree(output, ignore_errors=True)
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    return usage.ru_utime + usage.ru_stime


def _built_pages(output: Path) -> list[Path]:
    """The generated pages' output (not the listings a generator makes of them: issue 25, point 4)."""
    return [
        p
        for p in sorted(output.rglob("*.html"))
        if any(part.startswith("page-") for part in p.relative_to(output).parts)
        and "data-evidence-for" in p.read_text(encoding="utf-8")
    ]


def _check_filled(output: Path, pages: int) -> float:
    """Mean size in KiB of the built pages with evidence; every slot must be filled (else the benchmark
    would time a plugin that did nothing)."""
    built = _built_pages(output)
    if len(built) < pages:
        raise SystemExit(f"{output}: {len(built)} built pages carry evidence markup, expected {pages}")
    empty = [p for p in built if '"></div>' in p.read_text(encoding="utf-8").split("data-evidence-for", 1)[1][:40]]
    if empty:
        raise SystemExit(f"{empty[0]}: an evidence slot is still empty after a build with the plugin")
    return statistics.mean(p.stat().st_size for p in built) / 1024


def measure(name: str, root: Path, pages: int, claims: int, seed: int, runs: int) -> dict[str, Any]:
    label, make, out = GENERATORS[name]
    sites = {plugin: root / name / ("with" if plugin else "without") for plugin in (True, False)}
    argv = {plugin: make(site, pages, claims, seed, plugin) for plugin, site in sites.items()}
    _cpu(argv[True], sites[True], sites[True] / out)  # warm-up (and the bytecode caches)
    _cpu(argv[False], sites[False], sites[False] / out)
    size = _check_filled(sites[True] / out, pages)
    withs, withouts = [], []
    for _ in range(runs):
        withs.append(_cpu(argv[True], sites[True], sites[True] / out))
        withouts.append(_cpu(argv[False], sites[False], sites[False] / out))
    per_page = sorted((w - wo) / pages * 1000 for w, wo in zip(withs, withouts, strict=True))
    return {
        "label": label,
        "size": size,
        "with": statistics.median(withs),
        "without": statistics.median(withouts),
        "ms": statistics.median(per_page),
        "low": per_page[0],
        "high": per_page[-1],
        "site": sites[True],
        "argv": argv[True],
        "out": out,
    }


def table(rows: list[dict[str, Any]], pages: int, runs: int) -> str:
    lines = [
        f"plugin overhead, {pages} pages, CPU seconds (user + system), median of {runs} alternating rounds",
        "",
        "| generator | page KiB | build without | build with | overhead ms/page (min-max) | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        verdict = "PASS" if r["ms"] <= TARGET_MS else "MISS"
        lines.append(
            f"| {r['label']} | {r['size']:.1f} | {r['without']:.2f} s | {r['with']:.2f} s | "
            f"{r['ms']:.2f} ({r['low']:.2f}-{r['high']:.2f}) | <= {TARGET_MS:.0f} ms: {verdict} |"
        )
    return "\n".join(lines)


def profile(row: dict[str, Any], top: int) -> str:
    """One build with the plugin under cProfile: the plugin's functions by cumulative time, and the fast
    path's fall-backs over the built pages."""
    site, out = row["site"], row["out"]
    stats_file = site / "plugin.prof"
    argv = [row["argv"][0], "-m", "cProfile", "-o", str(stats_file), *row["argv"][1:]]
    _cpu(argv, site, site / out)
    buffer = io.StringIO()
    stats = pstats.Stats(str(stats_file), stream=buffer)
    stats.sort_stats("cumulative").print_stats(r"claim_evidence|selectolax", top)
    return f"{row['label']}:\n{buffer.getvalue().split('ordered by: cumulative time', 1)[-1]}\n{fallbacks(site / out)}"


def fallbacks(output: Path) -> str:
    """How many built pages :func:`fast_locate` leaves to the reference tokenizer, and the first reason."""
    from claim_evidence._html import fastpath

    if not fastpath.available():
        return "fast path: selectolax is not installed"
    reasons: dict[str, int] = {}
    built = _built_pages(output)
    for path in built:
        text = path.read_text(encoding="utf-8")
        if fastpath.fast_locate(text) is not None:
            continue
        tags = [tag for tag in ("<svg", "<math", "<select", "<frameset") if tag in text.lower()]
        reason = f"the page has {', '.join(tags)}" if tags else "other"
        reasons[reason] = reasons.get(reason, 0) + 1
    given_up = sum(reasons.values())
    why = "; ".join(f"{n}: {reason}" for reason, n in sorted(reasons.items()))
    return f"fast path: {len(built) - given_up} of {len(built)} built pages located by lexbor" + (
        f", given up on {given_up} ({why})" if given_up else ""
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100, help="pages per site (default 100)")
    parser.add_argument("--claims", type=int, default=2, help="claims per page (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds to take the median of (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    parser.add_argument(
        "--generators", default=",".join(GENERATORS), help=f"comma-separated, of {', '.join(GENERATORS)} (default all)"
    )
    parser.add_argument("--profile", action="store_true", help="then profile one build with the plugin")
    parser.add_argument("--top", type=int, default=25, help="functions listed by --profile (default 25)")
    parser.add_argument("--out", type=Path, default=None, help="where to build (default a temp folder, removed)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.generators.split(",") if n.strip()]
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        parser.error(f"unknown generator {unknown[0]!r}; choose from {', '.join(GENERATORS)}")
    root = args.out or Path(tempfile.mkdtemp(prefix="claim-evidence-plugins-"))
    try:
        rows = []
        for n in names:
            rows.append(measure(n, root.resolve(), args.pages, args.claims, args.seed, args.runs))
            print(f"measured {rows[-1]['label']}: {rows[-1]['ms']:.2f} ms/page", file=sys.stderr, flush=True)
        print(table(rows, args.pages, args.runs))
        if args.profile:
            for row in rows:
                print("\n" + profile(row, args.top))
    finally:
        if args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
