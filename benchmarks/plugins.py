"""Benchmark what the generator plugins add to a build, per page (issue 25, point 6).

    .venv/bin/python benchmarks/plugins.py --pages 100 --runs 5
    .venv/bin/python benchmarks/plugins.py --hook-only --runs 3             # only the in-build timings
    .venv/bin/python benchmarks/plugins.py --generators material --profile  # where the plugin's time goes

Generates deterministic sites per generator (MkDocs with Material, Sphinx with furo, Pelican with its
notmyidea theme): pages of long Japanese text (headings, paragraphs, a table, lists, a code block)
with ``--claims`` claims each, written as an editor writes them (the claim element and an empty
evidence slot as raw HTML, the sealed records in the page's bundle script), so the plugin checks every
page and fills every slot. Two figures, both CPU time (user + system):

- whole builds, with the plugin and without it, of ``--pages`` pages and of half as many, the four in
  turn in every round: the plugin's start-up (importing the checker) and its cost per page (the
  difference of the two overheads over the difference of pages), the median of ``--runs`` rounds with
  their minimum and maximum, which on a shared machine is mostly noise;
- builds run in-process with the plugin's hook and its page check (``check_built``) timed: CPU time in
  the hook per page (its first call, which loads the record schema and templates, included), and the
  median and the first of the page checks. The median page check is what the target judges: it is
  what each further page costs, and the least noisy figure.

``--profile`` runs one build with the plugin under cProfile and prints where the plugin's time goes,
and counts the built pages the C parser's fast path (:mod:`claim_evidence._html.fastpath`) leaves to
the reference tokenizer. Not collected by pytest (``testpaths = ["tests"]``); needs the generators
(the ``mkdocs``, ``sphinx`` and ``pelican`` extras, mkdocs-material and furo) and, for the fast path,
selectolax.
"""

from __future__ import annotations

import argparse
import cProfile  # noqa: F401 - (the child runs it; imported here so a missing module fails first)
import io
import json
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
    """Build the site of ``pages`` pages and one of half as many, each with and without the plugin, the
    four in turn in every round. What the plugin adds to a build is a start-up (importing the checker,
    compiling its schema and templates: the same for any number of pages) plus a cost per page, so the
    per-page figure is the difference of the two overheads over the difference of their pages, and the
    start-up what is left of the larger overhead."""
    label, make, out = GENERATORS[name]
    half = max(pages // 2, 1)
    builds = {}
    for count in (pages, half):
        for plugin in (True, False):
            site = root / name / f"{count}-{'with' if plugin else 'without'}"
            builds[count, plugin] = (make(site, count, claims, seed, plugin), site)
    for argv, site in builds.values():
        _cpu(argv, site, site / out)  # warm-up (and the bytecode caches)
    size = _check_filled(builds[pages, True][1] / out, pages)
    times: dict[tuple[int, bool], list[float]] = {key: [] for key in builds}
    for _ in range(runs):
        for key, (argv, site) in builds.items():
            times[key].append(_cpu(argv, site, site / out))
    rounds = range(runs)
    overhead = {count: [times[count, True][r] - times[count, False][r] for r in rounds] for count in (pages, half)}
    per_page = sorted((overhead[pages][r] - overhead[half][r]) / (pages - half) * 1000 for r in rounds)
    startup = sorted(
        overhead[pages][r] - (overhead[pages][r] - overhead[half][r]) / (pages - half) * pages for r in rounds
    )
    whole = sorted(overhead[pages][r] / pages * 1000 for r in rounds)
    return {
        "label": label,
        "size": size,
        "with": statistics.median(times[pages, True]),
        "without": statistics.median(times[pages, False]),
        "ms": statistics.median(per_page),
        "low": per_page[0],
        "high": per_page[-1],
        "startup": statistics.median(startup),
        "whole": statistics.median(whole),
        "site": builds[pages, True][1],
        "argv": builds[pages, True][0],
        "out": out,
    }


def hook_row(name: str, root: Path, pages: int, claims: int, seed: int) -> dict[str, Any]:
    """The site of ``pages`` pages with the plugin, built once (``--hook-only``: no whole-build figures)."""
    label, make, out = GENERATORS[name]
    site = root / name / f"{pages}-with"
    argv = make(site, pages, claims, seed, True)
    _cpu(argv, site, site / out)
    size = _check_filled(site / out, pages)
    return {"label": label, "size": size, "site": site, "argv": argv, "out": out}


def table(rows: list[dict[str, Any]], pages: int, runs: int) -> str:
    lines = [
        f"plugin overhead, builds of {pages} and {max(pages // 2, 1)} pages, CPU seconds (user + system), "
        f"median of {runs} alternating rounds",
        "",
        f"| generator | page KiB | {pages} pages without | with | overhead / page, start-up included "
        "| start-up | per page (min-max) | in the hook / page | one page's check | first page's check | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['label']} | {r['size']:.1f} | {r['without']:.2f} s | {r['with']:.2f} s | {r['whole']:.2f} ms "
            f"| {r['startup']:.2f} s | {r['ms']:.2f} ms ({r['low']:.2f}-{r['high']:.2f}) | {_hook_cells(r['hook'])} |"
        )
    lines += [
        "",
        "per page: the difference of the two builds' overheads over the difference of their pages (start-up",
        "excluded; the min-max of the rounds is the machine's noise). Then, in builds of their own: CPU time",
        "inside the plugin's hook per page (first call included), the median page check and the first one",
        "(which loads the schema and templates); each as the median (min-max) of the builds. The target is",
        "judged on the median page check.",
    ]
    return "\n".join(lines)


# Runs one build in-process with the plugin's hook timed (CPU time, this process): the plugin's own
# cost per page, without the start-up and without the noise of two whole builds' difference.
_HOOK_CHILD = r"""
import atexit, functools, json, sys, time
kind, report, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
spent = {"hook": [], "check": []}

def timed(owner, name, key):
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[key].append(time.process_time() - start)

    setattr(owner, name, wrapper)

atexit.register(lambda: open(report, "w").write(json.dumps(spent)))
if kind == "material":
    from claim_evidence.integrations import mkdocs as plugin
    timed(plugin.ClaimEvidencePlugin, "on_post_page", "hook")
elif kind == "sphinx":
    from claim_evidence.integrations import sphinx as plugin
    timed(plugin, "check_build", "hook")
else:
    from claim_evidence.integrations import pelican as plugin
    timed(plugin, "check_written", "hook")
from claim_evidence.integrations import _built  # every plugin checks a page through _built.check_built
timed(_built, "check_built", "check")
if kind == "material":
    from mkdocs.__main__ import cli
    sys.argv = ["mkdocs", *argv]
    cli()
elif kind == "sphinx":
    from sphinx.cmd.build import main
    sys.exit(main(argv))
else:
    from pelican import main
    sys.argv = ["pelican", *argv]
    main()
"""


def hook_ms(name: str, row: dict[str, Any], pages: int, runs: int) -> dict[str, list[float]]:
    """Per build: CPU milliseconds per page spent in the plugin's hook (its first call included, which
    loads the record schema and the templates), and the median and first of its page checks
    (``check_built``, one per page with evidence: the median is what a page costs, the first what the
    loading costs)."""
    site, out, argv = row["site"], row["out"], row["argv"]
    report = site / "hook.json"
    found: dict[str, list[float]] = {"hook": [], "check": [], "first": []}
    for _ in range(runs):
        _cpu([argv[0], "-c", _HOOK_CHILD, name, str(report), *argv[3:]], site, site / out)  # (argv: python -m X …)
        spent = json.loads(report.read_text())
        found["hook"].append(sum(spent["hook"]) / pages * 1000)
        found["check"].append(statistics.median(spent["check"]) * 1000)
        found["first"].append(spent["check"][0] * 1000)
    return {key: sorted(values) for key, values in found.items()}


def _hook_cells(hook: dict[str, list[float]]) -> str:
    cells = [
        f"{statistics.median(hook[key]):.2f} ms ({hook[key][0]:.2f}-{hook[key][-1]:.2f})"
        for key in ("hook", "check", "first")
    ]
    verdict = "PASS" if statistics.median(hook["check"]) <= TARGET_MS else "MISS"
    return " | ".join([*cells, f"<= {TARGET_MS:.0f} ms: {verdict}"])


def hook_table(rows: list[dict[str, Any]], pages: int, runs: int) -> str:
    lines = [
        f"CPU time inside the plugin's hook, builds of {pages} pages, {runs} builds each",
        "",
        "| generator | page KiB | in the hook / page | one page's check | first page's check | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(f"| {r['label']} | {r['size']:.1f} | {_hook_cells(r['hook'])} |")
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
    parser.add_argument("--hook-only", action="store_true", help="time only the plugin's hook (no whole builds)")
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
            if args.hook_only:
                rows.append(hook_row(n, root.resolve(), args.pages, args.claims, args.seed))
            else:
                rows.append(measure(n, root.resolve(), args.pages, args.claims, args.seed, args.runs))
            rows[-1]["hook"] = hook_ms(n, rows[-1], args.pages, args.runs)
            print(f"measured {rows[-1]['label']}: {_hook_cells(rows[-1]['hook'])}", file=sys.stderr, flush=True)
        print(hook_table(rows, args.pages, args.runs) if args.hook_only else table(rows, args.pages, args.runs))
        if args.profile:
            for row in rows:
                print("\n" + profile(row, args.top))
    finally:
        if args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
