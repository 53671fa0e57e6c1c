"""Pelican's own pages, in real builds: the index, category, tag, author and period archive pages copy
the articles' evidence markup (the newest article in full, the others' summaries cut at
``SUMMARY_MAX_LENGTH`` words, inside the markup), and the plugin must leave a site that the post-build
gate (``claim-evidence prepublish`` over ``output/``) passes, in the default theme and in ``simple``.
And a failed check prints its findings whole, whatever the terminal's width.

The expected listing pages are computed from a build without the plugin, by removing the markup's
attributes, slots and bundle scripts as plain strings: the plugin's own locator is not asked.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, render_evidence

from .test_integrations import DATA, _needs, _run

# slug: (date, claim id, statement, text before the claim). Each character of Japanese counts as a word
# in Pelican's summary, so with SUMMARY_MAX_LENGTH = 40 sora's summary is cut inside its bundle's JSON
# and umi's inside its claim sentence; kumo, the newest, is shown in full by notmyidea's listings.
ARTICLES = {
    "kumo": (
        "2024-09-05",
        "KUMO-SPEED",
        "クモエンジンは前世代より処理速度が大幅に向上した。",
        "クモ社は新しいエンジンを発表した。",
    ),
    "sora": ("2024-09-03", "SORA-POWER", "ソラエンジンは消費電力が低下した。", ""),
    "umi": (
        "2024-09-01",
        "UMI-NOISE",
        "ウミエンジンは前世代より運転音が小さくなったと発表された。",
        "ウミ社も新しいエンジンを発表した。",
    ),
}
SUMMARY_WORDS = 40
# The article pages link the stylesheet; listings do not. Both themes have a head block (notmyidea's
# extra_head is its own).
ARTICLE_TEMPLATE = """{% extends "!theme/article.html" %}
{% block head %}{{ super() }}
  <link rel="stylesheet" href="{{ SITEURL }}/assets/claim-evidence.css" />
{% endblock %}
"""
SCRIPT = re.compile(r'<script type="application/json" id="claim-evidence-data">.*?</script>', re.S)


def _bundle(claim_id: str, statement: str) -> dict[str, Any]:
    bundle: dict[str, Any] = json.loads((DATA / "bundle.json").read_text(encoding="utf-8"))
    claim = bundle["claims"][0]
    claim.update(id=claim_id, statement=statement)
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    return bundle


def _site(tmp_path: Path, theme: str, *, broken: str | None = None) -> Path:
    """Three articles with a sealed claim each, one without; ``broken``: that article's statement
    edited after sealing (on the page and in its record alike), so only its review is broken."""
    site = tmp_path / theme
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "templates" / "article.html").write_text(ARTICLE_TEMPLATE, encoding="utf-8")
    for slug, (date, claim_id, statement, before) in ARTICLES.items():
        bundle = _bundle(claim_id, statement)
        shown = statement
        if slug == broken:
            shown = statement.replace("エンジン", "新エンジン")
            bundle["claims"][0]["statement"] = shown
        (site / "content" / f"{slug}.md").write_text(
            f"Title: {slug}\nDate: {date}\nSlug: {slug}\nCategory: news\nTags: engines\nAuthor: editor\n\n"
            + (f"{before}\n\n" if before else "")
            + f'<p data-claim-id="{claim_id}">{shown}</p>\n<div data-evidence-for="{claim_id}"></div>\n\n'
            + f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(bundle)}\n</script>\n',
            encoding="utf-8",
        )
    (site / "content" / "plain.md").write_text(
        "Title: plain\nDate: 2024-08-01\nSlug: plain\nCategory: news\nAuthor: editor\n\n記録のない記事。\n",
        encoding="utf-8",
    )
    (site / "claim-evidence.toml").write_text(
        'stylesheet = "/assets/claim-evidence.css"\npages = ["output/**/*.html"]\n'
        f"require = {json.dumps([f'output/{slug}.html' for slug in ARTICLES])}\n",
        encoding="utf-8",
    )
    return site


def _pelican(
    site: Path, theme: str, plugin: bool, *, fatal: bool = True, columns: int = 1000, options: tuple[str, ...] = ()
) -> Any:
    conf = [
        'SITENAME = "Engines"',
        'SITEURL = ""',
        'PATH = "content"',
        'TIMEZONE = "UTC"',
        'DEFAULT_LANG = "ja"',
        f"THEME = {theme!r}",
        'THEME_TEMPLATES_OVERRIDES = ["templates"]',
        f"SUMMARY_MAX_LENGTH = {SUMMARY_WORDS}",
        'YEAR_ARCHIVE_SAVE_AS = "{date:%Y}/index.html"',
        "FEED_ALL_ATOM = None",
        "CATEGORY_FEED_ATOM = None",
        "TRANSLATION_FEED_ATOM = None",
        "AUTHOR_FEED_ATOM = None",
        "AUTHOR_FEED_RSS = None",
    ]
    if plugin:
        conf.append('PLUGINS = ["claim_evidence.integrations.pelican"]')
    (site / "pelicanconf.py").write_text("\n".join(conf) + "\n", encoding="utf-8")
    args = [
        "pelican",
        "content",
        "-s",
        "pelicanconf.py",
        "-o",
        "output",
        *(["--fatal", "warnings"] if fatal else []),
        *options,
    ]
    return _run(args, site, {"COLUMNS": str(columns)})


def _prepublish(site: Path) -> Any:
    return _run(["claim_evidence", "prepublish", "--config", "claim-evidence.toml"], site)


def _stripped(plain: str) -> str:
    """A listing page as the plugin must leave it: each claim element without its attribute, each
    slot and bundle script gone (a summary cut inside the JSON included: Pelican closed the script)."""
    text = SCRIPT.sub("", plain)
    for _, claim_id, _, _ in ARTICLES.values():
        text = text.replace(f' data-claim-id="{claim_id}"', "").replace(
            f'<div data-evidence-for="{claim_id}"></div>', ""
        )
    return text


def _failed(gate: Any) -> set[str]:
    """The pages ``prepublish`` failed (``ERROR page`` / ``FAIL page: …`` lines)."""
    return {
        line.split()[1].removesuffix(":") for line in gate.stdout.splitlines() if line.startswith(("ERROR ", "FAIL "))
    }


def _pages(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.html"))}


@pytest.mark.parametrize("theme", ["notmyidea", "simple"])
def test_pelican_listings_clean_site_passes_prepublish_over_the_output(tmp_path: Path, theme: str) -> None:
    _needs("pelican", "pelican")
    site = _site(tmp_path, theme)
    plain = _pelican(site, theme, False)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    before = _prepublish(site)
    assert before.returncode == 1, before.stdout  # the listings' copies fail the gate without the plugin
    plain_pages = _pages(site / "output")
    articles = {f"{slug}.html" for slug in ARTICLES}
    copies = {name for name, text in plain_pages.items() if name not in articles and "data-evidence-for" in text}
    assert copies >= {"index.html", "category/news.html", "tag/engines.html", "author/editor.html"}
    assert _failed(before) == {f"output/{name}" for name in copies | articles}
    # the fixture does what it claims: the summaries are cut inside a bundle and inside a claim sentence
    listed = "".join(plain_pages[name] for name in copies)
    assert " …</script>" in listed and re.search(r'data-claim-id="UMI-NOISE">[^<]* …</p>', listed)
    shutil.rmtree(site / "output")

    built = _pelican(site, theme, True)
    assert built.returncode == 0, built.stdout + built.stderr
    gate = _prepublish(site)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    helper = _run(["static_helper", "--no-cache", "--config", "claim-evidence.toml"], site)
    assert helper.returncode == 0, helper.stdout + helper.stderr
    pages = _pages(site / "output")
    assert pages.keys() == plain_pages.keys()
    for slug, (_, claim_id, _, _) in ARTICLES.items():
        empty = f'<div data-evidence-for="{claim_id}"></div>'
        block = (
            f'<div data-evidence-for="{claim_id}">{render_evidence(_bundle(*ARTICLES[slug][1:3]), [claim_id])}</div>'
        )
        assert pages.pop(f"{slug}.html") == plain_pages.pop(f"{slug}.html").replace(empty, block)
    for name, text in pages.items():
        assert text == _stripped(plain_pages[name]), name
    for name in copies:
        assert "data-claim-id" not in pages[name] and "claim-evidence-data" not in pages[name]
    assert f"<p>{ARTICLES['kumo'][2][:6]}" in pages["index.html"]  # the sentence stays, as plain text


def test_pelican_listings_broken_review_still_fails_the_build_and_the_gate(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site = _site(tmp_path, "notmyidea", broken="sora")
    done = _pelican(site, "notmyidea", True)
    assert done.returncode == 1
    assert "claim-evidence: content/sora.md:" in done.stdout and "CE403 [SORA-POWER]" in done.stdout
    # without --fatal the site is written, and the gate still fails on the broken article alone
    kept = _pelican(site, "notmyidea", True, fatal=False)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    gate = _prepublish(site)
    assert gate.returncode == 1
    assert _failed(gate) == {"output/sora.html"}


def test_pelican_listings_failure_prints_each_finding_on_one_line_at_80_columns(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site = _site(tmp_path, "notmyidea", broken="kumo")
    done = _pelican(site, "notmyidea", True, columns=80)
    assert done.returncode == 1
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    *findings, summary = lines
    source = (site / "content" / "kumo.md").read_text(encoding="utf-8").splitlines()
    seal_line = next(i for i, line in enumerate(source, 1) if '"fingerprint"' in line)  # the record's JSON line
    # the slot was filled with 未確認 (no SH140, no SH150): the seal's finding alone, with the command to type
    assert [f.split(" [")[0] for f in findings] == [f"WARNING  claim-evidence: content/kumo.md:{seal_line}: CE403"]
    assert len(findings[0]) > 80  # whole, not wrapped at the terminal's width
    assert "review fingerprint does not match current statement/conditions/sources" in findings[0]
    assert "`claim-evidence review record content/kumo.md --claim KUMO-SPEED --method … --checked-at …`" in findings[0]
    assert "CRITICAL RuntimeError: Warning encountered" in summary


def test_pelican_listings_quiet_fatal_build_fails_without_the_findings(tmp_path: Path) -> None:
    # what docs/generators/pelican.md says of -q: Pelican's fatal logger raises even for a warning it hides
    _needs("pelican", "pelican")
    site = _site(tmp_path, "notmyidea", broken="kumo")
    done = _pelican(site, "notmyidea", True, options=("-q",))
    assert done.returncode == 1
    (line,) = (done.stdout + done.stderr).splitlines()
    assert "CRITICAL RuntimeError: Warning encountered" in line and "claim-evidence" not in line


def test_pelican_listings_markup_left_in_a_comment_fails_the_build_and_keeps_the_listing(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site = _site(tmp_path, "notmyidea")
    source = site / "content" / "kumo.md"
    old = '<!-- <p data-claim-id="KUMO-OLD">旧い文。</p> -->'
    source.write_text(source.read_text(encoding="utf-8") + f"\n{old}\n", encoding="utf-8")
    done = _pelican(site, "notmyidea", True, fatal=False)
    assert done.returncode == 0, done.stdout + done.stderr
    warned = [line for line in done.stdout.splitlines() if "SH009" in line]
    assert warned and all("evidence markup is left on the listing page" in line for line in warned)
    assert "WARNING  claim-evidence: output/index.html: SH009" in done.stdout
    index = (site / "output" / "index.html").read_text(encoding="utf-8")
    assert old in index and 'data-evidence-for="KUMO-SPEED"' in index  # left as Pelican wrote it
