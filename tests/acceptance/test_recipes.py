"""The generator recipes of docs/generators/ for Hugo, Eleventy and Jekyll, run for real.

Each test copies a small site from ``tests/data/recipes/`` into ``tmp_path``,
writes a sealed bundle into it (with a ``12.0`` the seal covers), builds it
with the generator's own binary, lets the recipe fill the evidence slots, and
checks the built page: the slot holds exactly ``render_evidence`` and the
page and ``claim-evidence prepublish`` pass. The other tests build what the
recipe prevents and show how it fails: the site-level checks too (a page that
``require`` names losing its markup, a build that escapes or drops all of it),
and a failed check prints its findings and one line, never a stack trace. A
finding also names the line of the Markdown source it is written on
(``sources`` in each recipe's config). Each generator's tests skip with a
one-line reason when its binary is missing (``.ci/run`` installs them). The
shared pieces are in ``recipe_support.py``; Astro's recipe is tested in
``test_recipes_astro.py``, every recipe under a sub-path in ``test_recipes_subpath.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .recipe_support import (
    BUNDLE_TEXT,
    CLAIM,
    DOCS,
    EDITED,
    ELEVENTY,
    NUMBERS_REWRITTEN,
    RECIPES,
    SCRIPT,
    SLOT,
    STATEMENT,
    TOOLS,
    assert_clean_failure,
    assert_fails,
    assert_passes,
    check,
    edit,
    placed,
    require_tool,
    run,
    sealed_bundle,
    site,
    unmark,
)

__all__ = ["CLAIM", "STATEMENT", "sealed_bundle"]  # tests/unit/site/test_sourcemap.py reads them from here

# What each recipe's page shows of its site verbatim, and the commands it names.
DOC_FILES = {
    "hugo": [
        "hugo.toml",
        "layouts/shortcodes/claim-evidence-data.html",
        "content/about.md",
        "static/claim-evidence.toml",
        "layouts/_default/single.html",
    ],
    "eleventy": ["eleventy.config.js", "about.md", "claim-evidence.toml", "_includes/base.njk"],
    "jekyll": [
        "_plugins/claim_evidence_data.rb",
        "_plugins/claim_evidence_write.rb",
        "about.md",
        "claim-evidence.toml",
        "_layouts/default.html",
    ],
    "astro": ["astro.config.mjs", "src/layouts/Base.astro", "src/pages/about.md", "public/claim-evidence.toml"],
}
# Where a shown file starts (hugo.toml: after the test site's own settings).
DOC_FROM = {("hugo", "hugo.toml"): "# Raw HTML"}
HUGO_WRITE = "static-helper --write --no-cache --config public/claim-evidence.toml"
DOC_COMMANDS = {
    "hugo": ["hugo\n", HUGO_WRITE, "claim-evidence prepublish --config public/claim-evidence.toml"],
    "eleventy": ["npx @11ty/eleventy\n", "claim-evidence prepublish --config _site/claim-evidence.toml"],
    "jekyll": ["jekyll build\n", "claim-evidence prepublish --config _site/claim-evidence.toml"],
    "astro": ["npx astro build\n", "claim-evidence prepublish --config dist/claim-evidence.toml"],
}


@pytest.mark.parametrize("name", sorted(DOC_FILES))
def test_recipes_doc_shows_the_tested_files_and_commands(name: str) -> None:
    doc = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    for relative in DOC_FILES[name]:
        text = (RECIPES / name / relative).read_text(encoding="utf-8")
        text = text[text.index(DOC_FROM.get((name, relative), "")) :]
        assert text in doc, f"{name}.md does not show {relative} as tested"
    for command in DOC_COMMANDS[name]:
        assert command in doc, f"{name}.md does not name {command!r}"


# --- Hugo ---------------------------------------------------------------------------------------

HUGO_PAGE = "about/index.html"
JSONIFY_SHORTCODE = f"{SCRIPT}{{{{ index site.Data.evidence (.Get 0) | jsonify | safeJS }}}}</script>\n"


@pytest.fixture
def hugo_site(tmp_path: Path) -> Path:
    require_tool("hugo", "hugo not installed (apt-get install hugo; .ci/run does this)")
    return site(tmp_path, "hugo", "data/evidence", "static/assets")


def hugo_build(root: Path, *options: str) -> str:
    """``hugo``, then the recipe's ``static-helper --write``; the built page's text."""
    built = run(["hugo", *options], root)
    assert built.returncode == 0, built.stdout + built.stderr
    run(HUGO_WRITE.split(), root)
    return (root / "public" / HUGO_PAGE).read_text(encoding="utf-8")


def test_recipes_hugo_build_fills_the_slot_and_keeps_the_bundle_as_written(hugo_site: Path) -> None:
    page = hugo_build(hugo_site)
    assert f'<div data-evidence-for="{CLAIM}">{SLOT}</div>' in page
    assert f"{SCRIPT}{BUNDLE_TEXT}</script>" in page
    assert_passes(hugo_site, "public", HUGO_PAGE)


def test_recipes_hugo_minify_keeps_numbers_with_keep_numbers(hugo_site: Path) -> None:
    page = hugo_build(hugo_site, "--minify")
    assert f"<div data-evidence-for={CLAIM}>{SLOT}</div>" in page
    assert '"median_ms":12.0}' in page
    assert_passes(hugo_site, "public", HUGO_PAGE)


def test_recipes_hugo_without_unsafe_omits_the_claim_and_its_slot(hugo_site: Path) -> None:
    edit(hugo_site / "hugo.toml", "unsafe = true\n", "")
    page = hugo_build(hugo_site)
    assert "<!-- raw HTML omitted -->" in page
    assert "data-claim-id" not in page and "data-evidence-for" not in page
    # The shortcode's bundle is still there, so the page fails instead of passing as "no evidence markup".
    assert SCRIPT in page
    assert_fails(hugo_site, "public", "SH110 [latency]", "SH111 [latency]")


def test_recipes_hugo_without_unsafe_fails_a_page_whose_markup_is_all_raw_html(hugo_site: Path) -> None:
    """The bundle written as raw HTML too (no shortcode): without ``unsafe`` nothing of the evidence is
    left, and the required page fails on its own (SH160), naming what Hugo dropped (SH161), and the
    site as a whole (SH007)."""
    edit(hugo_site / "hugo.toml", "unsafe = true\n", "")
    edit(hugo_site / "content" / "about.md", '{{< claim-evidence-data "about" >}}', f"{SCRIPT}\n{BUNDLE_TEXT}</script>")
    page = hugo_build(hugo_site)
    assert SCRIPT not in page and "data-claim-id" not in page
    report = assert_fails(hugo_site, "public", "public/about/index.html: SH160 ", "SH161 ", "SH007 ")
    assert report.splitlines()[-1] == "2 targets: 0 passed, 2 failed"  # the page, and the config (SH007)


def test_recipes_hugo_jsonify_breaks_the_seal(hugo_site: Path) -> None:
    (hugo_site / "layouts" / "shortcodes" / "claim-evidence-data.html").write_text(JSONIFY_SHORTCODE, encoding="utf-8")
    page = hugo_build(hugo_site)
    assert '"median_ms":12' in page and '"median_ms":12.0' not in page
    # the recipe's --write shows the claim as 未確認 (its seal no longer matches), never an empty slot
    assert f'<div data-evidence-for="{CLAIM}"></div>' not in page
    assert '<span class="claim-evidence-status">未確認・根拠未登録</span>' in page
    assert (
        f"CE403 [latency] review fingerprint does not match current statement/conditions/sources, {NUMBERS_REWRITTEN}"
        in (assert_fails(hugo_site, "public", "CE403 [latency]"))
    )


def test_recipes_hugo_minify_without_keep_numbers_breaks_the_seal(hugo_site: Path) -> None:
    edit(hugo_site / "hugo.toml", "keepNumbers = true\n", "")
    page = hugo_build(hugo_site, "--minify")
    assert '"median_ms":12' in page and '"median_ms":12.0' not in page
    assert NUMBERS_REWRITTEN in assert_fails(hugo_site, "public", "CE403 [latency]")


def test_recipes_hugo_config_at_the_project_root_flags_the_shortcode(hugo_site: Path) -> None:
    (hugo_site / "claim-evidence.toml").write_text('pages = ["public/**/*.html"]\n', encoding="utf-8")
    hugo_build(hugo_site)
    gate = run([TOOLS / "claim-evidence", "prepublish", "--config", "claim-evidence.toml"], hugo_site)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert f"PASS public/{HUGO_PAGE}: 1 claim bound\n" in gate.stdout
    assert "UNREGISTERED layouts/shortcodes/claim-evidence-data.html: " in gate.stdout


def test_recipes_hugo_finding_names_the_markdown_line_it_is_written_on(hugo_site: Path) -> None:
    """``sources`` in the config: a sentence edited in the Markdown after the review is reported on the
    built page and placed at its line in content/ (front matter counted, as an editor counts it)."""
    edit(hugo_site / "content" / "about.md", STATEMENT, EDITED)
    hugo_build(hugo_site)
    helper, gate = check(hugo_site, "public")
    for report in (helper.stdout, gate.stdout):
        assert placed(report, "SH120 [latency] ") == (
            f"public/{HUGO_PAGE}:10:1",
            "    written at content/about.md:4",
        ), report
    github = run(
        [TOOLS / "static-helper", "--no-cache", "--format", "github", "--config", "public/claim-evidence.toml"],
        hugo_site,
    )
    assert github.stdout.startswith(
        "::error file=content/about.md,line=4,title=SH120::$.claims[0].statement: body text differs"
    )
    assert f"(built page public/{HUGO_PAGE}:10:1)\n" in github.stdout


def test_recipes_hugo_finding_about_the_page_names_the_bundle_line(hugo_site: Path) -> None:
    """A finding about the whole page (no stylesheet link: SH130) goes to the one source holding the
    page's claims, at the line that puts the bundle script in (the shortcode)."""
    edit(
        hugo_site / "layouts" / "_default" / "single.html",
        '<link rel="stylesheet" href="{{ "assets/claim-evidence.css" | relURL }}">\n',
        "",
    )
    hugo_build(hugo_site)
    assert placed(assert_fails(hugo_site, "public", "SH130"), "SH130 ")[1] == "    written at content/about.md:7"


def test_recipes_hugo_claim_written_in_two_sources_is_placed_in_neither(hugo_site: Path) -> None:
    """Two Markdown files write the same claim id: each is named with its line, neither is chosen."""
    about = (hugo_site / "content" / "about.md").read_text(encoding="utf-8")
    (hugo_site / "content" / "again.md").write_text(about.replace(STATEMENT, EDITED), encoding="utf-8")
    hugo_build(hugo_site)
    report = assert_fails(hugo_site, "public", "SH120 [latency]")
    assert placed(report, "SH120 [latency] ") == (
        "public/again/index.html:10:1",
        "    written in 2 sources: content/about.md:4, content/again.md:4",
    )
    assert "written at" not in report


def test_recipes_hugo_source_that_is_not_utf8_is_skipped(hugo_site: Path) -> None:
    """A source that is not UTF-8 is left out, not a crash: the claim is still placed in the one other."""
    edit(hugo_site / "content" / "about.md", STATEMENT, EDITED)
    hugo_build(hugo_site)
    (hugo_site / "content" / "latin1.md").write_bytes('<p data-claim-id="latency">caf\xe9</p>\n'.encode("latin-1"))
    report = assert_fails(hugo_site, "public", "SH120 [latency]")
    assert placed(report, "SH120 [latency] ")[1] == "    written at content/about.md:4"


# --- Eleventy -----------------------------------------------------------------------------------

ELEVENTY_PAGE = "about/index.html"


@pytest.fixture
def eleventy_site(tmp_path: Path) -> Path:
    require_tool(ELEVENTY, "Eleventy not installed (npm ci --prefix tests/generators; .ci/run does this)")
    return site(tmp_path, "eleventy", "_data/evidence", "assets")


def test_recipes_eleventy_build_fills_the_slot_and_keeps_the_bundle_as_written(eleventy_site: Path) -> None:
    built = run([ELEVENTY], eleventy_site)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "PASS about/index.html: 1 claim bound\n" in built.stdout  # the eleventy.after check
    page = (eleventy_site / "_site" / ELEVENTY_PAGE).read_text(encoding="utf-8")
    assert f'<div data-evidence-for="{CLAIM}">{SLOT}</div>' in page
    assert f"{SCRIPT}{BUNDLE_TEXT}</script>" in page
    assert_passes(eleventy_site, "_site", ELEVENTY_PAGE)


def test_recipes_eleventy_json_filter_breaks_the_seal_and_the_build(eleventy_site: Path) -> None:
    edit(
        eleventy_site / "about.md",
        '{% claimEvidenceData "about" %}',
        f"{SCRIPT}{{{{ evidence.about | json }}}}</script>",
    )
    built = run([ELEVENTY], eleventy_site)
    assert_clean_failure(built, NUMBERS_REWRITTEN)
    page = (eleventy_site / "_site" / ELEVENTY_PAGE).read_text(encoding="utf-8")
    assert '"median_ms":12' in page and '"median_ms":12.0' not in page
    assert NUMBERS_REWRITTEN in assert_fails(eleventy_site, "_site", "CE403 [latency]")


def test_recipes_eleventy_finding_names_the_markdown_line_it_is_written_on(eleventy_site: Path) -> None:
    edit(eleventy_site / "about.md", STATEMENT, EDITED)
    built = run([ELEVENTY], eleventy_site)
    assert_clean_failure(built, "SH120 [latency] body text differs from reviewed statement")
    # eleventy.after checks in _site/, and names the Markdown source from there (sources, in the config)
    assert placed(built.stdout, "SH120 [latency] ") == (f"{ELEVENTY_PAGE}:10:1", "    written at ../about.md:5")
    report = assert_fails(eleventy_site, "_site", "SH120 [latency]")
    assert placed(report, "SH120 [latency] ") == (f"_site/{ELEVENTY_PAGE}:10:1", "    written at about.md:5")


# markdown-it's html: false: every tag written in Markdown is escaped into visible text.
ESCAPE_HTML = 'eleventyConfig.amendLibrary("md", (md) => md.set({ html: false }));\n'


def test_recipes_eleventy_markdown_without_html_fails_the_build(eleventy_site: Path) -> None:
    """``html: false`` escapes the claim, its slot and the bundle into text: the page shows the tags and
    carries no markup. The recipe's check runs over the config's pages, so the build fails: the page
    ``require`` names (SH160), and the site whose evidence vanished (SH007); a check of the folder alone
    would have reported "1 passed"."""
    edit(eleventy_site / "eleventy.config.js", "  // In _site/", f"  {ESCAPE_HTML}  // In _site/")
    built = run([ELEVENTY], eleventy_site)
    assert_clean_failure(built, f"{ELEVENTY_PAGE}: SH160 this page must carry evidence markup", "SH007 ")
    page = (eleventy_site / "_site" / ELEVENTY_PAGE).read_text(encoding="utf-8")
    assert "&lt;p data-claim-id=" in page and "data-claim-id=" not in page.replace("&lt;p data-claim-id=", "")
    assert_fails(eleventy_site, "_site", f"_site/{ELEVENTY_PAGE}: SH160 ", "_site/claim-evidence.toml: SH007 ")


def test_recipes_eleventy_page_that_loses_its_markup_fails_the_build(eleventy_site: Path) -> None:
    """A page that ``require`` names, with its markup taken out of the Markdown: SH160 fails the build."""
    unmark(eleventy_site / "about.md")
    built = run([ELEVENTY], eleventy_site)
    assert_clean_failure(built, f"{ELEVENTY_PAGE}: SH160 ")


# --- Jekyll -------------------------------------------------------------------------------------

JEKYLL_PAGE = "about.html"


@pytest.fixture
def jekyll_site(tmp_path: Path) -> Path:
    require_tool("jekyll", "jekyll not installed (apt-get install jekyll; .ci/run does this)")
    return site(tmp_path, "jekyll", "_data/evidence", "assets")


def test_recipes_jekyll_build_fills_the_slot_and_keeps_the_bundle_as_written(jekyll_site: Path) -> None:
    built = run(["jekyll", "build"], jekyll_site)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "PASS about.html: 1 claim bound\n" in built.stdout  # the post_write check
    page = (jekyll_site / "_site" / JEKYLL_PAGE).read_text(encoding="utf-8")
    assert f'<div data-evidence-for="{CLAIM}">{SLOT}</div>' in page
    assert f"{SCRIPT}{BUNDLE_TEXT}</script>" in page
    assert_passes(jekyll_site, "_site", JEKYLL_PAGE)


def test_recipes_jekyll_without_the_hook_ships_empty_slots(jekyll_site: Path) -> None:
    (jekyll_site / "_plugins" / "claim_evidence_write.rb").unlink()
    built = run(["jekyll", "build"], jekyll_site)
    assert built.returncode == 0, built.stdout + built.stderr
    page = (jekyll_site / "_site" / JEKYLL_PAGE).read_text(encoding="utf-8")
    assert f'<div data-evidence-for="{CLAIM}"></div>' in page
    assert_fails(jekyll_site, "_site", "SH140 [latency] evidence display is stale")


def test_recipes_jekyll_hook_fails_the_build_on_a_finding(jekyll_site: Path) -> None:
    edit(jekyll_site / "about.md", STATEMENT, EDITED)
    built = run(["jekyll", "build"], jekyll_site)
    assert_clean_failure(built, "SH120 [latency] body text differs from reviewed statement")
    # The hook runs in _site/: the Markdown source is named from there (sources, in the config).
    assert placed(built.stdout, "SH120 [latency] ") == (f"{JEKYLL_PAGE}:10:1", "    written at ../about.md:5")
    # The gate, run from the project root, names it from there.
    report = assert_fails(jekyll_site, "_site", "SH120 [latency]")
    assert placed(report, "SH120 [latency] ") == (f"_site/{JEKYLL_PAGE}:10:1", "    written at about.md:5")


def test_recipes_jekyll_page_that_loses_its_markup_fails_the_build(jekyll_site: Path) -> None:
    """The markup taken out of a page that ``require`` names: the page still builds, and the hook's
    check over the config's pages fails it (SH160) and the site (SH007: no page carries any)."""
    unmark(jekyll_site / "about.md")
    built = run(["jekyll", "build"], jekyll_site)
    assert_clean_failure(built, f"{JEKYLL_PAGE}: SH160 this page must carry evidence markup", "SH007 ")
    assert_fails(jekyll_site, "_site", f"_site/{JEKYLL_PAGE}: SH160 ", "_site/claim-evidence.toml: SH007 ")
