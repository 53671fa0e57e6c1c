"""Sites built by generators (Hugo, MkDocs, Sphinx, Jekyll, Eleventy, Pelican), checked through the real
command lines: no false pass when the build dropped the evidence, ``require`` and ``exclude``, stylesheet
links relative to the page, ``base_url``, and labels that follow each page's ``<html lang>``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import render_evidence
from static_helper.cli import main as static_helper_main

from ..conftest import cli_in_process

JA = "エンジンの処理量は二倍になった。"
EN = "The engine doubled its throughput."
CSS = "/assets/claim-evidence.css"
HUGO_FIX = (
    "the site generator dropped raw HTML from this page: <!-- raw HTML omitted --> ({times} here) is what Hugo writes "
    "in place of HTML written in Markdown, so evidence markup written there never reaches the page; set "
    "markup.goldmark.renderer.unsafe = true in Hugo's config ([markup.goldmark.renderer] unsafe = true in hugo.toml), "
    "rebuild the site and check again"
)
REQUIRED = (
    "this page must carry evidence markup (require in claim-evidence.toml names it) but has none: no claim element, "
    "evidence slot or bundle script; restore it (did the site generator drop it?), or take the page out of require"
)


def sh007(pages: int, stripped: int = 0) -> str:
    return (
        f"SH007 the registered pages carry no evidence markup at all ({pages} page{'' if pages == 1 else 's'} checked; "
        "not one has a claim element, evidence slot or bundle script), so nothing was checked, and a gate must not "
        "pass a site whose evidence vanished in the build. "
        + (
            f"The site generator dropped raw HTML from {stripped} of them (SH161): fix the build first. "
            if stripped
            else ""
        )
        + "Check that pages names the built pages that carry evidence (a new site: mark a claim first, with "
        "claim-evidence claim add), and list in require the pages that must carry it, so that each fails on its own "
        "when it loses it (SH160)"
    )


def bundle(statement: str, cid: str = "G-1") -> dict[str, Any]:
    claim: dict[str, Any] = {
        "id": cid,
        "label": "処理量" if statement == JA else "Throughput",
        "statement": statement,
        "evidence_label": "Opinion",
        "basis": "editorial",
        "status": "unverified",
        "source_refs": [],
        "conditions": [],
        "as_of": None,
        "verification": None,
    }
    return {"version": 1, "sources": [], "claims": [claim]}


def evidence_page(
    statement: str = JA, *, lang: str | None = "ja", css: str | None = CSS, block_lang: str | None = None
) -> str:
    """A page as a generator writes it: the claim, its slot filled (in ``block_lang``, default the page's), the bundle."""
    records = bundle(statement)
    block = render_evidence(records, ["G-1"], lang=block_lang or ("en" if lang and lang.startswith("en") else "ja"))
    return (
        "<!DOCTYPE html>\n"
        + (f'<html lang="{lang}">\n' if lang is not None else "<html>\n")
        + '<head>\n<meta charset="utf-8">\n<title>t</title>\n'
        + (f'<link rel="stylesheet" href="{css}">\n' if css is not None else "")
        + "</head>\n<body>\n"
        + f'<p data-claim-id="G-1">{statement}</p>\n'
        + f'<div data-evidence-for="G-1">{block}</div>\n'
        + '<script type="application/json" id="claim-evidence-data">'
        + json.dumps(records, ensure_ascii=False)
        + "</script>\n</body>\n</html>\n"
    )


def hugo_stripped_page(title: str = "One") -> str:
    """What Hugo writes for a Markdown page whose evidence markup was raw HTML, with its default settings."""
    return (
        '<!DOCTYPE html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n'
        f'<title>{title}</title>\n<link rel="stylesheet" href="{CSS}">\n</head>\n<body>\n<main>\n'
        "<!-- raw HTML omitted -->\n<p>本文。<!-- raw HTML omitted --></p>\n<!-- raw HTML omitted -->\n"
        "</main>\n</body>\n</html>\n"
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def static_helper(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return cli_in_process("static-helper", ["--no-cache", "--jobs", "1", *args], capsys)


def prepublish(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return cli_in_process("claim-evidence", ["prepublish", "--jobs", "1", *args], capsys)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def config(root: Path, text: str) -> None:
    write(root / "claim-evidence.toml", text)


# --- 1. no false pass ---------------------------------------------------------------------------------


def hugo_site(root: Path, extra: str = "") -> None:
    """A Hugo repository: sources, a shortcode template with evidence markup, and public/ as built by default."""
    config(root, 'pages = ["public/**/*.html"]\nweb_root = "public"\nexclude = ["layouts/**"]\n' + extra)
    write(root / "layouts" / "shortcodes" / "claim.html", '<p data-claim-id="{{ .Get 0 }}">{{ .Inner }}</p>\n')
    write(root / "content" / "posts" / "one.md", f'---\ntitle: One\n---\n<p data-claim-id="G-1">{JA}</p>\n')
    write(
        root / "public" / "index.html",
        '<!DOCTYPE html>\n<html lang="ja">\n<head><title>Home</title></head>\n<body><p>ホーム</p></body>\n</html>\n',
    )
    write(root / "public" / "posts" / "one" / "index.html", hugo_stripped_page())


def test_generated_sites_hugo_raw_html_omitted_no_longer_passes(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Hugo's default build replaced every raw-HTML block: each page passes on its own, the site does not."""
    hugo_site(site)
    warning = f"public/posts/one/index.html:10:1: SH161 {HUGO_FIX.format(times='3 times')} (warning)"
    assert static_helper(capsys) == (
        1,
        "PASS public/index.html: no evidence markup\n"
        "PASS public/posts/one/index.html: no evidence markup\n"
        f"{warning}\n"
        f"claim-evidence.toml: {sh007(2, stripped=1)}\n"
        "3 pages: 2 passed, 1 failed\n",
        "",
    )
    assert prepublish(capsys) == (
        1,
        "PASS public/index.html: no evidence markup\n"
        "PASS public/posts/one/index.html: no evidence markup\n"
        f"{warning}\n"
        "ERROR claim-evidence.toml\n"
        f"claim-evidence.toml: {sh007(2, stripped=1)}\n"
        "3 targets: 2 passed, 1 failed\n",
        "",
    )


def test_generated_sites_hugo_required_page_names_the_setting(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hugo_site(site, 'require = ["public/posts/**/*.html"]\n')
    code, out, _ = prepublish(capsys)
    assert code == 1
    assert out.splitlines()[1:5] == [
        "ERROR public/posts/one/index.html",
        f"public/posts/one/index.html: SH160 {REQUIRED}",
        f"public/posts/one/index.html:10:1: SH161 {HUGO_FIX.format(times='3 times')}",
        "ERROR claim-evidence.toml",
    ]
    # The same page named on the command line (a pre-commit hook) fails the same way.
    code, out, _ = static_helper(capsys, "public/posts/one/index.html")
    assert (code, out.splitlines()[0]) == (1, f"public/posts/one/index.html: SH160 {REQUIRED}")


def test_generated_sites_hugo_rebuilt_with_unsafe_passes(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hugo_site(site, 'require = ["public/posts/**/*.html"]\n')
    write(site / "public" / "posts" / "one" / "index.html", evidence_page())
    assert static_helper(capsys) == (
        0,
        "PASS public/index.html: no evidence markup\nPASS public/posts/one/index.html: 1 claim bound\n2 pages: 2 passed, 0 failed\n",
        "",
    )
    code, out, _ = prepublish(capsys)
    assert (code, out.splitlines()[-1]) == (0, "2 targets: 2 passed, 0 failed")


def test_generated_sites_one_stripped_page_among_evidence_pages_is_a_warning(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without require, a page with Hugo's marker and no evidence may need none: a warning, and the site passes."""
    config(site, 'pages = ["*.html"]\n')
    write(site / "a.html", evidence_page())
    write(site / "b.html", hugo_stripped_page())
    assert static_helper(capsys) == (
        0,
        "PASS a.html: 1 claim bound\n"
        "PASS b.html: no evidence markup\n"
        f"b.html:10:1: SH161 {HUGO_FIX.format(times='3 times')} (warning)\n"
        "2 pages: 2 passed, 0 failed\n",
        "",
    )


def test_generated_sites_parallel_run_reports_sh007_once(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["public/**/*.html"]\nweb_root = "public"\nrequire = ["public/posts/p00/index.html"]\n')
    for n in range(70):  # enough for worker processes (MIN_PARALLEL)
        write(site / "public" / "posts" / f"p{n:02}" / "index.html", hugo_stripped_page(f"Post {n}"))
    assert static_helper_main(["--no-cache", "--jobs", "2"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        f"public/posts/p00/index.html: SH160 {REQUIRED}",
        f"public/posts/p00/index.html:10:1: SH161 {HUGO_FIX.format(times='3 times')}",
        "PASS public/posts/p01/index.html: no evidence markup",
    ]
    assert lines[-2:] == [f"claim-evidence.toml: {sh007(70, stripped=70)}", "71 pages: 69 passed, 2 failed"]


def test_generated_sites_paths_without_config_never_get_sh007(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "plain.html", "<!DOCTYPE html><p>no evidence</p>\n")
    assert static_helper(capsys, "plain.html") == (
        0,
        "PASS plain.html: no evidence markup\n1 page: 1 passed, 0 failed\n",
        "",
    )


def test_generated_sites_sh007_in_other_formats(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["*.html"]\n')
    write(site / "a.html", "<p>nothing</p>\n")
    code, out, _ = static_helper(capsys, "--format", "json")
    files = json.loads(out)["files"]
    assert code == 1
    assert [(f["path"], f["status"], [d["code"] for d in f["diagnostics"]]) for f in files] == [
        ("a.html", "pass", []),
        ("claim-evidence.toml", "fail", ["SH007"]),
    ]
    code, out, _ = static_helper(capsys, "--format", "github")
    assert code == 1 and out.splitlines()[0].startswith(
        "::error file=claim-evidence.toml,title=SH007::$: the registered pages carry no"
    )


# --- require: configuration -----------------------------------------------------------------------------


def test_generated_sites_required_page_must_be_registered(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["articles/*.html"]\nrequire = ["articles/*.html", "about.html"]\n')
    write(site / "articles" / "a.html", evidence_page())
    write(site / "about.html", evidence_page())
    message = (
        "SH008 require glob 'about.html' matches about.html, which pages does not register: "
        "a page that must carry evidence must be checked as a registered page; add it to pages"
    )
    assert static_helper(capsys) == (2, "", f"static-helper: error: claim-evidence.toml: {message}\n")
    assert prepublish(capsys) == (2, "", f"claim-evidence: error: {site}/claim-evidence.toml: {message}\n")


def test_generated_sites_require_and_pages_globs_that_match_nothing(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(site / "articles" / "a.html", evidence_page())
    config(site, 'pages = ["articles/*.html"]\nrequire = ["artcles/*.html"]\n')
    assert (
        static_helper(capsys)[2]
        == f"static-helper: error: claim-evidence.toml: SH004 require glob 'artcles/*.html' matches no file under {site}\n"
    )
    config(site, 'pages = ["articles/*.html"]\nexclude = ["articles"]\n')
    assert static_helper(capsys)[2] == (
        f"static-helper: error: claim-evidence.toml: SH004 pages glob 'articles/*.html' matches only files that exclude leaves out, "
        f"under {site} (exclude wins over pages)\n"
    )
    config(
        site, 'pages = ["articles/*.html"]\nexclude = ["no-such-folder/**", "*.tmpl"]\n'
    )  # nothing to leave out: fine
    assert static_helper(capsys)[:2] == (0, "PASS articles/a.html: 1 claim bound\n1 page: 1 passed, 0 failed\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('requires = ["a.html"]', "SH002 unknown key 'requires' (did you mean 'require'?)"),
        ('excludes = ["layouts/**"]', "SH002 unknown key 'excludes' (did you mean 'exclude'?)"),
        ('baseurl = "/docs/"', "SH002 unknown key 'baseurl' (did you mean 'base_url'?)"),
        (
            'require = "a.html"',
            "SH003 require must be a list of glob strings, e.g. require = [\"articles/*.html\"] (found 'a.html')",
        ),
        ("exclude = [1]", 'SH003 exclude must be a list of glob strings, e.g. exclude = ["layouts/**"] (found [1])'),
        (
            'base_url = "docs/"',
            'SH003 base_url must be the URL path the site is served under, e.g. base_url = "/docs/" or '
            "base_url = \"https://example.com/docs/\" (no query or fragment; found 'docs/')",
        ),
        ('base_url = "/docs/?v=1"', "SH003 base_url must be the URL path the site is served under"),
        (
            'web_root = "../public"',
            "SH003 web_root must be a folder under the config's folder, e.g. web_root = \"public\" (found '../public')",
        ),
        ('web_root = "/srv/www"', "SH003 web_root must be a folder under the config's folder"),
        (
            'pages = ["/abs/*.html"]',
            "SH003 pages glob '/abs/*.html' must be relative to the config's folder, e.g. \"articles/*.html\"",
        ),
    ],
)
def test_generated_sites_config_errors(
    site: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    config(site, text + "\n")
    code, out, err = static_helper(capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"static-helper: error: claim-evidence.toml: {expected}"), err


# --- 4. exclude -------------------------------------------------------------------------------------------


def jekyll_site(root: Path, extra: str = "") -> None:
    """A Jekyll repository: an include with evidence markup (a template), and _site/ as built."""
    config(root, 'pages = ["_site/**/*.html"]\nweb_root = "_site"\n' + extra)
    write(
        root / "_includes" / "claim.html",
        '<p data-claim-id="{{ include.id }}">{{ include.text }}</p>\n<div data-evidence-for="{{ include.id }}"></div>\n',
    )
    write(root / "_layouts" / "default.html", "<!DOCTYPE html>\n<html>{{ content }}</html>\n")
    write(root / "_site" / "2026" / "09" / "01" / "post.html", evidence_page(css="/assets/claim-evidence.css"))


def test_generated_sites_jekyll_include_was_reported_unregistered(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jekyll_site(site)
    code, out, _ = prepublish(capsys)
    assert (code, out.splitlines()) == (
        1,
        [
            "PASS _site/2026/09/01/post.html: 1 claim bound",
            "UNREGISTERED _includes/claim.html: carries evidence markup but is not registered in claim-evidence.toml, and lies "
            'outside web_root (_site), so the site does not serve it: if it is a template, add "_includes/*.html" to exclude there',
            "2 targets: 1 passed, 0 failed, 1 unregistered",
        ],
    )


def test_generated_sites_jekyll_include_excluded(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jekyll_site(site, 'exclude = ["_includes/*.html", "_layouts"]\n')
    assert prepublish(capsys) == (
        0,
        "PASS _site/2026/09/01/post.html: 1 claim bound\n1 target: 1 passed, 0 failed\n",
        "",
    )
    assert static_helper(capsys) == (
        0,
        "PASS _site/2026/09/01/post.html: 1 claim bound\n1 page: 1 passed, 0 failed\n",
        "",
    )
    # pre-commit names every changed *.html: an excluded template is skipped, not checked as a page
    assert static_helper(capsys, "_includes/claim.html", "_site/2026/09/01/post.html") == (
        0,
        "PASS _site/2026/09/01/post.html: 1 claim bound\n1 page: 1 passed, 0 failed\n",
        "",
    )
    assert static_helper(capsys, "_includes")[:2] == (2, "")
    assert capsys.readouterr() == ("", "")
    assert static_helper_main(["--no-cache", "_includes"]) == 2
    assert capsys.readouterr().err == (
        "static-helper: error: _includes: SH006 no pages found under this folder (looked for *.html; hidden folders are skipped); "
        "exclude in claim-evidence.toml leaves out the 1 found\n"
    )


def test_generated_sites_exclude_wins_over_pages(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["**/*.html"]\nexclude = ["layouts/**"]\n')
    write(site / "layouts" / "partials" / "claim.html", '<p data-claim-id="{{ .id }}">x</p>\n')
    write(site / "index.html", evidence_page())
    assert static_helper(capsys) == (0, "PASS index.html: 1 claim bound\n1 page: 1 passed, 0 failed\n", "")


# --- 2. stylesheet links relative to the page -------------------------------------------------------------


def test_generated_sites_mkdocs_relative_stylesheet_at_every_depth(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config(site, 'pages = ["site/**/*.html"]\nweb_root = "site"\nstylesheet = "/assets/claim-evidence.css"\n')
    write(site / "site" / "index.html", evidence_page(css="assets/claim-evidence.css"))
    write(site / "site" / "guide" / "index.html", evidence_page(css="../assets/claim-evidence.css"))
    write(site / "site" / "guide" / "install" / "index.html", evidence_page(css="../../assets/claim-evidence.css"))
    write(
        site / "site" / "guide" / "install" / "linux" / "index.html",
        evidence_page(css="./../../../assets/claim-evidence.css#top"),
    )
    write(site / "site" / "404.html", evidence_page(css="/assets/claim-evidence.css"))
    code, out, _ = static_helper(capsys)
    assert (code, out.splitlines()[-1]) == (0, "5 pages: 5 passed, 0 failed")


def test_generated_sites_mkdocs_wrong_depth_and_wrong_name_fail(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["site/**/*.html"]\nweb_root = "site"\nstylesheet = "/assets/claim-evidence.css"\n')
    write(site / "site" / "guide" / "install" / "index.html", evidence_page(css="../assets/claim-evidence.css"))
    write(site / "site" / "guide" / "index.html", evidence_page(css="../assets/claim-evidense.css"))
    code, out, _ = static_helper(capsys)
    assert (code, out) == (
        1,
        (
            'site/guide/index.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" '
            'href="/assets/claim-evidence.css"> (or, relative to this page, href="../assets/claim-evidence.css")\n'
            'site/guide/install/index.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" '
            'href="/assets/claim-evidence.css"> (or, relative to this page, href="../../assets/claim-evidence.css"); the '
            'stylesheet <link> at line 6 (href="../assets/claim-evidence.css") points to /guide/assets/claim-evidence.css\n'
            "2 pages: 0 passed, 2 failed\n"
        ),
    )


def test_generated_sites_sphinx_versioned_static_link(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(
        site,
        'pages = ["_build/html/**/*.html"]\nweb_root = "_build/html"\nstylesheet = "/_static/claim-evidence.css"\n',
    )
    write(site / "_build" / "html" / "index.html", evidence_page(css="_static/claim-evidence.css?v=e8c6f6ce"))
    write(
        site / "_build" / "html" / "guide" / "page.html", evidence_page(css="../_static/claim-evidence.css?v=e8c6f6ce")
    )
    code, out, _ = static_helper(capsys)
    assert (code, out.splitlines()[-1]) == (0, "2 pages: 2 passed, 0 failed")
    write(
        site / "_build" / "html" / "guide" / "page.html", evidence_page(css="../_static/claim_evidence.css?v=e8c6f6ce")
    )
    code, out, _ = static_helper(capsys)
    assert (code, out.splitlines()[0]) == (
        1,
        (
            '_build/html/guide/page.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" '
            'href="/_static/claim-evidence.css"> (or, relative to this page, href="../_static/claim-evidence.css")'
        ),
    )


def test_generated_sites_base_url_sub_path(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["**/*.html"]\nbase_url = "/docs/"\n')
    write(site / "a.html", evidence_page(css="/docs/assets/claim-evidence.css?v=3"))
    write(site / "b" / "index.html", evidence_page(css="../assets/claim-evidence.css"))
    write(site / "c.html", evidence_page(css="https://example.com/docs/assets/claim-evidence.css"))
    write(site / "d.html", evidence_page(css="//cdn.example.com/docs/assets/claim-evidence.css"))
    assert static_helper(capsys)[:2] == (
        0,
        (
            "PASS a.html: 1 claim bound\nPASS b/index.html: 1 claim bound\nPASS c.html: 1 claim bound\nPASS d.html: 1 claim bound\n"
            "4 pages: 4 passed, 0 failed\n"
        ),
    )
    # Served under /docs/, a link to /assets/… leaves the site.
    write(site / "e.html", evidence_page(css=CSS))
    code, out, _ = static_helper(capsys)
    assert (code, out.splitlines()[4]) == (
        1,
        (
            'e.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/docs/assets/claim-evidence.css"> '
            '(or, relative to this page, href="assets/claim-evidence.css"); the stylesheet <link> at line 6 '
            '(href="/assets/claim-evidence.css") points to /assets/claim-evidence.css, outside base_url "/docs/" '
            "(claim-evidence.toml: where the site is served): let the site generator put its base before the href "
            '(the default href: set stylesheet = "…" in '
            "claim-evidence.toml for your site's path, or stylesheet = false when the site ships the evidence CSS in its own stylesheet)"
        ),
    )


def test_generated_sites_link_under_another_base_names_base_url(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rooted link that a generator wrote under its base (/sub/) on a site whose config says "/": SH130
    names the base_url to set. A relative link tells nothing about the base: no such addition."""
    config(site, 'pages = ["**/*.html"]\nstylesheet = "/assets/claim-evidence.css"\n')
    write(site / "a.html", evidence_page(css="/sub/assets/claim-evidence.css"))
    write(site / "b" / "index.html", evidence_page(css="assets/claim-evidence.css"))
    code, out, _ = static_helper(capsys)
    lines = out.splitlines()
    assert code == 1
    assert lines[0].endswith(
        '(href="/sub/assets/claim-evidence.css") points to /sub/assets/claim-evidence.css; '
        'a site served under /sub/ sets base_url = "/sub/" in claim-evidence.toml'
    ), out
    assert lines[1].endswith('(href="assets/claim-evidence.css") points to /b/assets/claim-evidence.css'), out
    (site / "b" / "index.html").unlink()
    config(site, 'pages = ["a.html"]\nstylesheet = "/assets/claim-evidence.css"\nbase_url = "/sub/"\n')
    assert static_helper(capsys)[:2] == (0, "PASS a.html: 1 claim bound\n1 page: 1 passed, 0 failed\n")


def test_generated_sites_base_url_with_host(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(
        site, 'pages = ["*.html"]\nbase_url = "https://Example.com/docs"\nstylesheet = "/assets/claim-evidence.css"\n'
    )
    write(site / "a.html", evidence_page(css="http://example.com/docs/assets/claim-evidence.css"))
    write(site / "b.html", evidence_page(css="https://elsewhere.example/docs/assets/claim-evidence.css"))
    code, out, _ = static_helper(capsys)
    assert (code, out.splitlines()[:2]) == (
        1,
        [
            "PASS a.html: 1 claim bound",
            'b.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/docs/assets/claim-evidence.css"> '
            '(or, relative to this page, href="assets/claim-evidence.css"); the stylesheet <link> at line 6 '
            '(href="https://elsewhere.example/docs/assets/claim-evidence.css") points to /docs/assets/claim-evidence.css',
        ],
    )


def test_generated_sites_without_config_keeps_the_exact_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "guide" / "index.html", evidence_page(css="../assets/claim-evidence.css"))
    write(tmp_path / "ok.html", evidence_page(css="/assets/claim-evidence.css?v=1#x"))
    code, out, _ = static_helper(capsys, "guide/index.html", "ok.html")
    assert (code, out) == (
        1,
        (
            'guide/index.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/assets/claim-evidence.css"> '
            '(the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path, or stylesheet = false when the site '
            "ships the evidence CSS in its own stylesheet)\n"
            "PASS ok.html: 1 claim bound\n"
            "2 pages: 1 passed, 1 failed\n"
        ),
    )


def test_generated_sites_library_page_place_without_config() -> None:
    """A generator plugin knows where each page is served: PageOptions.page alone turns the resolution on."""
    from claim_evidence._check.page import PageOptions, check_text

    text = evidence_page(css="../_static/claim-evidence.css?v=e8c6f6ce")

    def codes(options: PageOptions) -> list[str]:
        return [d.code for d in check_text(text, "p.html", options).diagnostics]

    assert codes(PageOptions("/_static/claim-evidence.css")) == ["SH130"]
    assert codes(PageOptions("/_static/claim-evidence.css", page="guide/p.html")) == []
    assert codes(PageOptions("/_static/claim-evidence.css", page="guide/deeper/p.html")) == ["SH130"]


def test_generated_sites_named_pages_resolve_against_the_config(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """static-helper PATHS with a config: each page is placed in the site, wherever the run starts."""
    config(site, 'pages = ["site/**/*.html"]\nweb_root = "site"\n')
    write(site / "site" / "guide" / "index.html", evidence_page(css="../assets/claim-evidence.css"))
    monkeypatch.chdir(site / "site" / "guide")
    assert static_helper(capsys, "index.html")[:2] == (
        0,
        "PASS index.html: 1 claim bound\n1 page: 1 passed, 0 failed\n",
    )


# --- 3. labels follow the page's <html lang> ----------------------------------------------------------


def test_generated_sites_english_page_in_a_japanese_site(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["**/*.html"]\nlang = "ja"\n')
    write(site / "ja" / "index.html", evidence_page(JA))
    write(site / "en" / "index.html", evidence_page(EN, lang="en"))
    write(site / "en-us" / "index.html", evidence_page(EN, lang="en-US"))
    write(site / "fr" / "index.html", evidence_page(JA, lang="fr", block_lang="ja"))  # no French labels: the site's
    write(site / "none" / "index.html", evidence_page(JA, lang=None, block_lang="ja"))
    assert static_helper(capsys) == (
        0,
        (
            "PASS en/index.html: 1 claim bound\nPASS en-us/index.html: 1 claim bound\nPASS fr/index.html: 1 claim bound\n"
            "PASS ja/index.html: 1 claim bound\nPASS none/index.html: 1 claim bound\n5 pages: 5 passed, 0 failed\n"
        ),
        "",
    )


def test_generated_sites_write_renders_in_the_page_lang(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config(site, 'pages = ["*.html"]\nlang = "ja"\n')
    english = evidence_page(EN, lang="en")
    stale = write(site / "en.html", evidence_page(EN, lang="en", block_lang="ja"))  # labelled as the site was before
    assert static_helper(capsys) == (
        1,
        "en.html:10:1: SH140 [G-1] evidence display is stale (run --write after reviewing source data)\n1 page: 0 passed, 1 failed\n",
        "",
    )
    assert (
        static_helper(capsys, "--write")[1]
        == "PASS en.html: 1 claim bound, 1 evidence slot re-rendered\n1 page: 1 passed, 0 failed\n"
    )
    assert stale.read_text(encoding="utf-8") == english  # the English block, byte for byte
    assert 'lang="ja"' not in english and render_evidence(bundle(EN), ["G-1"], lang="ja") not in english
    assert static_helper(capsys, "--write")[:2] == (
        0,
        "PASS en.html: 1 claim bound\n1 page: 1 passed, 0 failed\n",
    )  # a no-op now


def test_generated_sites_lang_in_a_comment_or_template_does_not_count(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config(site, 'pages = ["*.html"]\nlang = "ja"\n')
    text = evidence_page(JA, lang=None, block_lang="ja").replace("<html>", '<!-- <html lang="en"> --><html>')
    write(site / "a.html", text)
    assert static_helper(capsys)[:2] == (0, "PASS a.html: 1 claim bound\n1 page: 1 passed, 0 failed\n")


# --- the cache keeps these settings apart --------------------------------------------------------------


def cached(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return cli_in_process("static-helper", ["--stats", "--jobs", "1", *args], capsys)


def test_generated_sites_cache_separates_base_url_require_and_place(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config(site, 'pages = ["**/*.html"]\nbase_url = "/docs/"\n')
    write(site / "a.html", evidence_page(css="/docs/assets/claim-evidence.css"))
    write(site / "b.html", "<p>no evidence</p>\n")
    assert cached(capsys)[::2] == (0, "static-helper stats: pages=2 checked=2 cached=0\n")
    assert cached(capsys)[::2] == (0, "static-helper stats: pages=2 checked=0 cached=2\n")
    config(site, 'pages = ["**/*.html"]\nbase_url = "/"\n')  # the same pages, served elsewhere
    code, out, err = cached(capsys)
    assert (code, err) == (1, "static-helper stats: pages=2 checked=2 cached=0\n")
    assert "a.html:11:1: SH130" in out
    config(site, 'pages = ["**/*.html"]\nbase_url = "/docs/"\nrequire = ["b.html"]\n')
    code, out, err = cached(capsys)
    assert (code, out.splitlines()[1]) == (1, f"b.html: SH160 {REQUIRED}")
    # The same bytes at another place in the site, shown under the same name from another folder.
    config(site, 'pages = ["**/*.html"]\n')
    write(site / "c.html", evidence_page(css="assets/claim-evidence.css"))
    write(site / "sub" / "c.html", evidence_page(css="assets/claim-evidence.css"))
    code, out, _ = cached(capsys)
    assert "PASS c.html: 1 claim bound" in out and "sub/c.html:11:1: SH130" in out
    monkeypatch.chdir(site / "sub")
    code, out, _ = cached(capsys, "c.html")
    assert (code, out.splitlines()[0]) == (
        1,
        (
            'c.html:11:1: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/assets/claim-evidence.css"> '
            '(or, relative to this page, href="../assets/claim-evidence.css"); the stylesheet <link> at line 6 '
            '(href="assets/claim-evidence.css") points to /sub/assets/claim-evidence.css (the default href: set stylesheet = "…" in '
            "claim-evidence.toml for your site's path, or stylesheet = false when the site ships the evidence CSS in its own stylesheet)"
        ),
    )


def test_generated_sites_page_options_stay_json_for_cache_keys(site: Path) -> None:
    import dataclasses

    from claim_evidence._site.config import load_config
    from static_helper._cache import settings_fingerprint

    config(
        site,
        'pages = ["*.html"]\nrequire = ["a.html"]\nexclude = ["layouts/**"]\nbase_url = "/docs/"\nweb_root = "."\n',
    )
    options = load_config(site / "claim-evidence.toml").options
    assert options.site is not None and options.site.root == os.fspath(site)
    assert (options.site.web_root, options.site.base_url, options.site.require, options.site.exclude) == (
        "",
        "/docs/",
        ("a.html",),
        ("layouts/**",),
    )
    json.dumps(dataclasses.astuple(options))  # what settings_fingerprint does with them
    for change in ({"base_url": "/"}, {"web_root": "public"}, {"require": ()}, {"exclude": ()}):
        other = dataclasses.replace(options, site=dataclasses.replace(options.site, **change))
        assert settings_fingerprint(options, b"x") != settings_fingerprint(other, b"x"), change
    placed = dataclasses.replace(options, page="guide/index.html", required=True)
    json.dumps(dataclasses.astuple(placed))
