"""The plugins' site-level checks, in real builds: a page ``require`` names losing its markup (SH160), a site
whose every page lost it (SH007), a generator's trace of dropped raw HTML (SH161), a glob that matches no
page (SH004); a non-strict build after a broken review never publishing an empty slot; and a site served
under a sub-path, whose base each plugin reads from the generator (MkDocs ``site_url``, Sphinx
``html_baseurl``, Pelican ``SITEURL``) unless ``claim-evidence.toml`` sets ``base_url``.

The fixture sites and the way each generator is run are :mod:`.test_integrations`'.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from claim_evidence import dumps_for_script, render_evidence
from claim_evidence.integrations._built import Gate, load_site

from ...acceptance.recipe_support import fetch, served
from ...conftest import ROOT
from .test_integrations import CLAIM, EDITED, EMPTY_SLOT, STATEMENT, _line_of, _needs, _run, _site

STRIPPED_MARKER = "<!-- raw HTML omitted -->"
NO_MARKUP_PAGE = "クモ社は新しいエンジンを発表した。\n"


def _toml(site: Path, **keys: Any) -> None:
    lines = ['stylesheet = "/assets/claim-evidence.css"', 'lang = "ja"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    (site / "claim-evidence.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _strip_markup(source: Path, keep: str = "") -> None:
    """The page as a build that lost its evidence leaves it: its title and prose only (``keep``: what a
    generator writes instead)."""
    text = source.read_text(encoding="utf-8")
    head = text[: text.index(NO_MARKUP_PAGE)]
    source.write_text(head + NO_MARKUP_PAGE + keep, encoding="utf-8")


def _log(done: Any) -> str:
    return " ".join((done.stdout + done.stderr).split())


def _unverified(bundle: dict[str, Any]) -> str:
    """The slot --write fills for a claim whose review no longer covers its record."""
    edited = json.loads(dumps_for_script(bundle).replace(STATEMENT, EDITED))
    block = render_evidence(edited, [CLAIM])
    assert "未確認" in block  # the safe block, with its warning
    return f'<div data-evidence-for="{CLAIM}">{block}</div>'


def _assert_no_empty_slot_published(done: Any, page: Path, bundle: dict[str, Any]) -> None:
    """A non-strict build after a broken review: either the build fails, saying why, or the slot holds the
    unverified block. Never an exit 0 with an empty slot."""
    built = page.read_text(encoding="utf-8")
    if done.returncode == 0:
        assert _unverified(bundle) in built and EMPTY_SLOT not in built
    else:
        assert "claim-evidence: the build failed: 1 page (" in _log(done)
        assert "came out with evidence slots that do not show their records" in _log(done)


# --- MkDocs ---------------------------------------------------------------------------------------


def _mkdocs(
    site: Path,
    *,
    strict: bool = False,
    css: str = "assets/claim-evidence.css",
    extra: str = "",
    cwd: Path | None = None,
) -> Any:
    (site / "mkdocs.yml").write_text(
        "site_name: Engines\n"
        "theme:\n  name: mkdocs\n  locale: ja\n"
        f"extra_css:\n  - {css}\n"
        "plugins:\n  - claim-evidence\n" + extra,
        encoding="utf-8",
    )
    here = cwd or site
    config = (site / "mkdocs.yml").relative_to(here).as_posix()
    return _run(["mkdocs", "build", "-f", config, *(["--strict"] if strict else [])], here)


def test_mkdocs_required_page_without_markup_fails_the_strict_build(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site, require=["docs/kumo.md"])  # the Markdown source, as the editor knows the page
    assert _mkdocs(site, strict=True).returncode == 0
    _strip_markup(site / "docs" / "kumo.md")
    done = _mkdocs(site, strict=True)
    assert done.returncode == 1
    assert "WARNING -  claim-evidence: docs/kumo.md: SH160 this page must carry evidence markup" in done.stderr


def test_mkdocs_required_built_page_is_named_by_its_output_path_too(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site, require=["site/kumo/index.html"])
    _strip_markup(site / "docs" / "kumo.md")
    done = _mkdocs(site)
    assert done.returncode == 0  # not --strict: MkDocs reports the warning and builds
    assert "SH160 this page must carry evidence markup" in done.stderr


def test_mkdocs_site_without_any_markup_fails_with_SH007_on_the_config(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site)
    _strip_markup(site / "docs" / "kumo.md")
    done = _mkdocs(site, strict=True)
    assert done.returncode == 1
    assert (
        "WARNING -  claim-evidence: claim-evidence.toml: SH007 the registered pages carry no evidence markup at all (2 pages checked;"
        in done.stderr
    )
    assert "Aborted with 1 warnings in strict mode!" in done.stdout


def test_mkdocs_pages_glob_limits_what_counts_for_SH007_and_a_glob_matching_nothing_is_SH004(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site, pages=["site/index.html"], require=["docs/missing.md"])  # the page with markup is not registered
    done = _mkdocs(site, strict=True)
    assert done.returncode == 1
    assert (
        "claim-evidence.toml: SH007 the registered pages carry no evidence markup at all (1 page checked;"
        in done.stderr
    )
    assert "claim-evidence.toml: SH004 require glob 'docs/missing.md' matches no page of this build" in done.stderr


def test_mkdocs_stripped_raw_html_marker_is_SH161_and_counted_in_SH007(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site, require=["docs/kumo.md"])
    _strip_markup(site / "docs" / "kumo.md", keep=f"\n{STRIPPED_MARKER}\n")  # what Hugo writes for dropped HTML
    done = _mkdocs(site, strict=True)
    assert done.returncode == 1
    line = _line_of(site / "site" / "kumo" / "index.html", STRIPPED_MARKER)
    assert (
        f"WARNING -  claim-evidence: docs/kumo.md (built page kumo/index.html:{line}): SH161 the site generator dropped raw HTML from this page: {STRIPPED_MARKER} (once here)"
        in done.stderr
    )
    assert "SH007 the registered pages carry no evidence markup at all (2 pages checked;" in done.stderr
    assert "The site generator dropped raw HTML from 1 of them (SH161): fix the build first." in done.stderr


def test_mkdocs_non_strict_build_after_a_broken_review_publishes_no_empty_slot(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, bundle = _site(tmp_path, "mkdocs", edited=True)
    _toml(site)
    done = _mkdocs(site, cwd=tmp_path)  # from the project's parent: the hint names the source from there
    assert "claim-evidence review record mkdocs/docs/kumo.md --claim KUMO-SPEED" in done.stderr
    _assert_no_empty_slot_published(done, site / "site" / "kumo" / "index.html", bundle)
    if done.returncode:  # the findings first, then the one line that says why the build stopped
        assert done.stderr.index("CE403") < done.stderr.index("the build failed")


def test_mkdocs_sub_path_site_url_is_the_base(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    _toml(site)
    sub = "site_url: https://example.com/sub/\n"
    css = site / "docs" / "assets" / "claim-evidence.css"  # the stylesheet as `claim-evidence assets` copies it
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_bytes((ROOT / "claim_evidence" / "assets" / "claim-evidence.css").read_bytes())
    passed = _mkdocs(site, strict=True, extra=sub)  # ../assets/claim-evidence.css from /sub/kumo/
    assert (passed.returncode, passed.stderr.count("WARNING")) == (0, 0), passed.stderr
    page = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    (href,) = re.findall(r'href="([^"]*claim-evidence\.css[^"]*)"', page)
    with served(site / "site", "/sub/") as server:  # deployed under /sub/, as site_url says
        url = server.url("/sub/kumo/")
        assert fetch(url)[0] == 200
        status, body = fetch(urljoin(url, href))
        assert (status, body) == (200, css.read_bytes()), href
        assert fetch(urljoin(url, "/assets/claim-evidence.css"))[0] == 404  # the root href a sub-path site loses
    failed = _mkdocs(site, strict=True, extra=sub, css="/assets/claim-evidence.css")  # outside /sub/: a 404
    assert failed.returncode == 1
    assert (
        'SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/sub/assets/claim-evidence.css">'
        in failed.stderr
    )
    _toml(site, base_url="/")  # an explicit base_url wins over site_url
    assert _mkdocs(site, strict=True, extra=sub, css="/assets/claim-evidence.css").returncode == 0
    (site / "claim-evidence.toml").unlink()  # without a config, site_url is the base all the same
    assert _mkdocs(site, strict=True, extra=sub).returncode == 0
    alone = _mkdocs(site, strict=True, extra=sub, css="/assets/claim-evidence.css")
    assert alone.returncode == 1 and 'href="/sub/assets/claim-evidence.css"' in alone.stderr


# --- Sphinx ---------------------------------------------------------------------------------------


def _sphinx(
    site: Path,
    *,
    strict: bool = False,
    css: str = "/assets/claim-evidence.css",
    conf: str = "",
    cwd: Path | None = None,
) -> Any:
    lines = [
        'project = "Engines"',
        'language = "ja"',
        'html_theme = "alabaster"',
        f"html_css_files = [{css!r}]",
        'extensions = ["claim_evidence.integrations.sphinx"]',
        conf,
    ]
    (site / "conf.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    here = cwd or site
    source = site.relative_to(here).as_posix() if here != site else "."
    out = (site / "_build").relative_to(here).as_posix()
    return _run(["sphinx", "-q", "-b", "html", *(["-W"] if strict else []), source, out], here)


def test_sphinx_required_page_without_markup_fails_the_W_build(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx")
    _toml(site, require=["_build/kumo.html"])  # the built page, as prepublish names it
    assert _sphinx(site, strict=True).returncode == 0
    _strip_markup(site / "kumo.rst")
    done = _sphinx(site, strict=True)
    assert done.returncode == 1
    assert f"{site / 'kumo.rst'}: WARNING: claim-evidence: SH160 this page must carry evidence markup" in done.stderr


def test_sphinx_site_without_any_markup_fails_with_SH007_on_the_config(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx")
    _toml(site, require=["kumo.rst"])
    _strip_markup(site / "kumo.rst")
    done = _sphinx(site)
    assert done.returncode == 0  # without -W a warning does not fail the build
    assert (
        "WARNING: claim-evidence: claim-evidence.toml: SH007 the registered pages carry no evidence markup at all ("
        in done.stderr
    )
    assert "SH160 this page must carry evidence markup" in done.stderr
    assert _sphinx(site, strict=True).returncode == 1


def test_sphinx_non_strict_build_after_a_broken_review_publishes_no_empty_slot(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, bundle = _site(tmp_path, "sphinx", edited=True)
    _toml(site)
    done = _sphinx(site, cwd=tmp_path)
    assert "claim-evidence review record sphinx/kumo.rst --claim KUMO-SPEED" in done.stderr
    _assert_no_empty_slot_published(done, site / "_build" / "kumo.html", bundle)


def test_sphinx_sub_path_html_baseurl_is_the_base(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx")
    _toml(site)
    sub = 'html_baseurl = "https://example.com/sub/"'
    passed = _sphinx(site, strict=True, conf=sub, css="/sub/assets/claim-evidence.css")
    assert (passed.returncode, passed.stderr) == (0, "")
    failed = _sphinx(site, strict=True, conf=sub)  # /assets/claim-evidence.css: outside /sub/
    assert failed.returncode == 1
    assert (
        'SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/sub/assets/claim-evidence.css">'
        in failed.stderr
    )
    _toml(site, base_url="/")  # an explicit base_url wins over html_baseurl
    assert _sphinx(site, strict=True, conf=sub).returncode == 0


# --- Pelican --------------------------------------------------------------------------------------


def _pelican(site: Path, *, fatal: bool = False, siteurl: str = "") -> Any:
    conf = [
        'SITENAME = "Engines"',
        f"SITEURL = {siteurl!r}",
        'PATH = "content"',
        'TIMEZONE = "UTC"',
        'DEFAULT_LANG = "en"',
        'THEME_TEMPLATES_OVERRIDES = ["templates"]',
        *(
            f"{feed} = None"
            for feed in (
                "FEED_ALL_ATOM",
                "CATEGORY_FEED_ATOM",
                "TRANSLATION_FEED_ATOM",
                "AUTHOR_FEED_ATOM",
                "AUTHOR_FEED_RSS",
            )
        ),
        'PLUGINS = ["claim_evidence.integrations.pelican"]',
    ]
    (site / "pelicanconf.py").write_text("\n".join(conf) + "\n", encoding="utf-8")
    args = ["pelican", "content", "-s", "pelicanconf.py", "-o", "output", *(["--fatal", "warnings"] if fatal else [])]
    return _run(args, site, {"COLUMNS": "1000"})


def test_pelican_required_page_without_markup_fails_the_fatal_build(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican")
    _toml(site, require=["content/kumo.md"])
    assert _pelican(site, fatal=True).returncode == 0
    _strip_markup(site / "content" / "kumo.md")
    done = _pelican(site, fatal=True)
    assert done.returncode == 1
    assert "claim-evidence: content/kumo.md: SH160 this page must carry evidence markup" in _log(done)


def test_pelican_site_without_any_markup_fails_with_SH007_on_the_config(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican")
    _toml(site)
    _strip_markup(site / "content" / "kumo.md")
    done = _pelican(site, fatal=True)
    assert done.returncode == 1
    assert (
        "claim-evidence: claim-evidence.toml: SH007 the registered pages carry no evidence markup at all (2 pages checked;"
        in _log(done)
    )
    assert _pelican(site).returncode == 0  # without --fatal a warning does not fail the build


def test_pelican_non_strict_build_after_a_broken_review_publishes_no_empty_slot(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, bundle = _site(tmp_path, "pelican", edited=True)
    _toml(site)
    done = _pelican(site)
    assert "claim-evidence review record content/kumo.md --claim KUMO-SPEED" in _log(done)
    _assert_no_empty_slot_published(done, site / "output" / "kumo-ja.html", bundle)


def test_pelican_sub_path_siteurl_is_the_base(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican")
    _toml(site)
    passed = _pelican(site, fatal=True, siteurl="https://example.com/sub")  # {{ SITEURL }}/assets/…
    assert passed.returncode == 0, passed.stdout + passed.stderr
    template = site / "templates" / "article.html"
    template.write_text(
        template.read_text(encoding="utf-8").replace("{{ SITEURL }}/assets/", "/assets/"), encoding="utf-8"
    )
    failed = _pelican(site, fatal=True, siteurl="https://example.com/sub")
    assert failed.returncode == 1
    assert (
        'SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/sub/assets/claim-evidence.css">'
        in _log(failed)
    )
    assert re.search(r"claim-evidence: content/kumo\.md:\d+: SH130", _log(failed))
    _toml(site, base_url="/")  # an explicit base_url wins over SITEURL
    assert _pelican(site, fatal=True, siteurl="https://example.com/sub").returncode == 0


# --- the globs, without a generator ---------------------------------------------------------------


def test_gate_globs_match_a_page_by_its_built_file_or_its_source(tmp_path: Path) -> None:
    _toml(tmp_path, pages=["site/**/*.html"], require=["docs/**/fund?ng.md", "site/[ab]/index.html"])
    gate = Gate(load_site(tmp_path / "claim-evidence.toml", tmp_path, None, "mkdocs.yml"), True)
    plain = "<!doctype html><html lang=ja><title>t</title><p>no evidence here</p></html>"

    def codes(*files: str) -> list[str]:
        return [d.code for d in gate.check(plain, "page", "index.html", [tmp_path / f for f in files]).findings]

    assert codes("site/deep/er/funding/index.html", "docs/deep/funding.md") == ["SH160"]  # ** spans folders
    assert codes("site/funding/index.html", "docs/funding.md") == ["SH160"]  # ** spans none too
    assert codes("site/a/index.html") == ["SH160"]
    assert codes("site/c/index.html", "docs/c.md") == []
    assert codes("site/docs/funding.md.html", "other/funding.md") == []  # a glob matches from the config's folder
    assert gate.checked == 5  # every page under site/ is registered
    codes("elsewhere/x.html")  # not registered: pages names none of its paths
    assert gate.checked == 5
    assert [d.code for d in gate.findings()] == ["SH007"]
    assert "(5 pages checked;" in gate.findings()[0].message


def test_gate_exclude_wins_and_a_required_page_pages_leaves_out_is_SH008(tmp_path: Path) -> None:
    """As a configured run reads them: a page an ``exclude`` glob matches (by a file, or a folder it lies
    in) is never checked nor counted, and a required page ``pages`` does not register is SH008."""
    _toml(tmp_path, pages=["site/posts/**/*.html"], require=["docs/**/*.md"], exclude=["docs/drafts", "site/tmp/**"])
    gate = Gate(load_site(tmp_path / "claim-evidence.toml", tmp_path, None, "mkdocs.yml"), True)
    broken = '<!doctype html><html lang=ja><title>t</title><p data-claim-id="x">x</p></html>'

    def codes(*files: str) -> list[str]:
        return [d.code for d in gate.check(broken, "page", "index.html", [tmp_path / f for f in files]).findings]

    assert codes("site/drafts/a/index.html", "docs/drafts/a.md") == []  # its source lies in an excluded folder
    assert codes("site/tmp/b/index.html") == []
    assert gate.check(broken, "page", "index.html", [tmp_path / "site/tmp/b/index.html"]).text == broken
    assert gate.checked == 0
    assert "SH160" not in codes("site/posts/c/index.html", "docs/c.md")
    assert gate.checked == 1
    codes("site/about/index.html", "docs/about.md")  # required, not registered
    codes("site/faq/index.html", "docs/faq.md")
    found = {d.code: d for d in gate.findings()}
    assert found["SH008"].message == (
        "require glob 'docs/**/*.md' matches page (and 1 more), which pages does "
        "not register: a page that must carry evidence must be checked as a registered page; add it to pages"
    )


def test_gate_a_glob_whose_every_page_is_excluded_is_SH004(tmp_path: Path) -> None:
    _toml(tmp_path, require=["docs/drafts/*.md"], exclude=["docs/drafts/**"])
    gate = Gate(load_site(tmp_path / "claim-evidence.toml", tmp_path, None, "mkdocs.yml"), True)
    gate.check("<p>x</p>", "page", "index.html", [tmp_path / "docs/drafts/a.md"])
    assert [d.message for d in gate.findings()] == [
        f"require glob 'docs/drafts/*.md' matches no page of this build that exclude keeps (neither its built file nor "
        f"its source, relative to {tmp_path}): correct the glob, or take it out of claim-evidence.toml"
    ]


def test_mkdocs_excluded_draft_is_not_checked_and_SH008_fails_the_strict_build(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    (site / "docs" / "drafts").mkdir()
    (site / "docs" / "drafts" / "wip.md").write_text(
        '# WIP\n\n<p data-claim-id="nope">未記録。</p>\n', encoding="utf-8"
    )
    _toml(site)
    assert _mkdocs(site, strict=True).returncode == 1  # checked, the draft's unrecorded claim fails
    _toml(site, exclude=["docs/drafts"])
    assert _mkdocs(site, strict=True).returncode == 0  # excluded, it is no page of the site
    _toml(site, exclude=["docs/drafts"], pages=["site/index.html"], require=["docs/kumo.md"])
    done = _mkdocs(site, strict=True)
    assert done.returncode == 1
    assert (
        "WARNING -  claim-evidence: claim-evidence.toml: SH008 require glob 'docs/kumo.md' matches docs/kumo.md, which pages does not "
        "register: a page that must carry evidence must be checked as a registered page; add it to pages" in done.stderr
    )
