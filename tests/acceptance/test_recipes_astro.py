"""The Astro 5 recipe of docs/generators/astro.md, run for real (Astro from ``tests/generators``, on Node 20).

The site in ``tests/data/recipes/astro/`` is built with ``astro build``; its integration
(``astro.config.mjs``, ``astro:build:done``) fills the slots in ``dist/`` and checks the pages the
config there registers, and the gate then reads the same config. Like the other recipes' tests: the
build fills the slot with exactly ``render_evidence`` and passes, what the recipe prevents fails
the build (a re-serialized bundle, a required page without markup), a finding names the Markdown line,
and a failed check prints its findings and one line. The sub-path build is in ``test_recipes_subpath.py``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .recipe_support import (
    ASTRO,
    BUNDLE_TEXT,
    CLAIM,
    EDITED,
    NODE_MODULES,
    NUMBERS_REWRITTEN,
    SCRIPT,
    SLOT,
    STATEMENT,
    assert_clean_failure,
    assert_fails,
    assert_passes,
    edit,
    placed,
    require_tool,
    run,
    site,
    unmark,
)

ASTRO_PAGE = "about/index.html"


def astro_site(tmp_path: Path) -> Path:
    """The recipe's site, with ``node_modules/astro`` pointing at the tests' install, as
    ``npm install --save-dev astro@5`` would put it there (the caches Astro writes into
    ``node_modules/`` stay in the copy)."""
    require_tool(ASTRO, "Astro not installed (npm ci --prefix tests/generators; .ci/run does this)")
    root = site(tmp_path, "astro", "src/data/evidence", "public/assets")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "astro").symlink_to(NODE_MODULES / "astro", target_is_directory=True)
    return root


@pytest.fixture(name="astro_site")
def astro_site_fixture(tmp_path: Path) -> Path:
    return astro_site(tmp_path)


def astro_build(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``astro build`` in ``root``."""
    return run([ASTRO, "build", *options], root)


def test_recipes_astro_build_fills_the_slot_and_keeps_the_bundle_as_written(astro_site: Path) -> None:
    built = astro_build(astro_site)
    assert built.returncode == 0, built.stdout + built.stderr
    assert f"PASS {ASTRO_PAGE}: 1 claim bound\n" in built.stdout  # the astro:build:done check
    page = (astro_site / "dist" / ASTRO_PAGE).read_text(encoding="utf-8")
    assert f'<div data-evidence-for="{CLAIM}">{SLOT}</div>' in page
    assert f"{SCRIPT}{BUNDLE_TEXT}</script>" in page
    assert_passes(astro_site, "dist", ASTRO_PAGE)


def test_recipes_astro_json_stringify_breaks_the_seal_and_the_build(astro_site: Path) -> None:
    """The bundle parsed and printed again (``JSON.stringify``, as ``import bundle from "….json"`` and
    ``{JSON.stringify(bundle)}`` would): 12.0 becomes 12, the seal breaks, the build fails."""
    edit(
        astro_site / "src" / "layouts" / "Base.astro",
        "set:html={bundle}",
        "set:html={JSON.stringify(JSON.parse(bundle))}",
    )
    built = astro_build(astro_site)
    assert_clean_failure(built, NUMBERS_REWRITTEN)
    page = (astro_site / "dist" / ASTRO_PAGE).read_text(encoding="utf-8")
    assert '"median_ms":12' in page and '"median_ms":12.0' not in page
    assert NUMBERS_REWRITTEN in assert_fails(astro_site, "dist", "CE403 [latency]")


def test_recipes_astro_finding_names_the_markdown_line_it_is_written_on(astro_site: Path) -> None:
    edit(astro_site / "src" / "pages" / "about.md", STATEMENT, EDITED)
    built = astro_build(astro_site)
    assert_clean_failure(built, "SH120 [latency] body text differs from reviewed statement")
    # The check runs in dist/ and names the Markdown source from there (sources, in the config).
    where = placed(built.stdout, "SH120 [latency] ")[1]
    assert where == "    written at ../src/pages/about.md:6", built.stdout
    report = assert_fails(astro_site, "dist", "SH120 [latency]")
    assert placed(report, "SH120 [latency] ")[1] == "    written at src/pages/about.md:6"


def test_recipes_astro_page_that_loses_its_markup_fails_the_build(astro_site: Path) -> None:
    """The claim, its slot and the ``evidence:`` line taken out of a page that ``require`` names: the
    page still builds, and the check over the config's pages fails it (SH160) and the site (SH007)."""
    about = astro_site / "src" / "pages" / "about.md"
    unmark(about)
    edit(about, "evidence: about\n", "")
    built = astro_build(astro_site)
    assert_clean_failure(built, f"{ASTRO_PAGE}: SH160 this page must carry evidence markup", "SH007 ")
    assert_fails(astro_site, "dist", f"dist/{ASTRO_PAGE}: SH160 ", "dist/claim-evidence.toml: SH007 ")
