"""Every recipe built for a site served under a sub-path (``/sub/``), and served there for real.

Each generator is given its own base (Hugo ``baseURL``, Eleventy ``--pathprefix``, Jekyll
``--baseurl``, Astro ``--base``) and the recipe's ``claim-evidence.toml`` its ``base_url``, as the
guides say. Then the build passes, and a loopback HTTP server serving the output folder under
``/sub/`` answers 200 with the stylesheet's bytes for the href the built page links, where the root
href (``/assets/claim-evidence.css``) is a 404. A layout that writes that root href fails with
SH130 naming the href under the base and ``base_url``; a config that does not say where the site is
served fails with SH130 naming the ``base_url`` to set.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import pytest

from .recipe_support import (
    ELEVENTY,
    STYLESHEET,
    SUB,
    TOOLS,
    assert_fails,
    assert_passes,
    edit,
    fetch,
    require_tool,
    run,
    served,
    site,
    stylesheet_href,
)
from .test_recipes_astro import astro_build, astro_site

ROOT_HREF = "/assets/claim-evidence.css"
SUB_HREF = f"{SUB}assets/claim-evidence.css"


@dataclass(frozen=True)
class Recipe:
    name: str
    output: str  # the output folder, which the host serves at /sub/
    page: str  # the page, in it
    config: str  # the recipe's claim-evidence.toml, in the project
    layout: str  # the file that writes the stylesheet link
    link: str  # the link as the layout writes it (under the generator's base)
    setup: Callable[[Path], Path]
    build: Callable[[Path], subprocess.CompletedProcess[str]]  # under /sub/, the recipe's checks included


def _hugo(tmp_path: Path) -> Path:
    require_tool("hugo", "hugo not installed (apt-get install hugo; .ci/run does this)")
    root = site(tmp_path, "hugo", "data/evidence", "static/assets")
    edit(root / "hugo.toml", 'baseURL = "https://example.com/"', 'baseURL = "https://example.com/sub/"')
    return root


def _hugo_build(root: Path) -> subprocess.CompletedProcess[str]:
    built = run(["hugo"], root)
    assert built.returncode == 0, built.stdout + built.stderr
    run([TOOLS / "static-helper", "--write", "--no-cache", "--config", "public/claim-evidence.toml"], root)
    return built


def _eleventy(tmp_path: Path) -> Path:
    require_tool(ELEVENTY, "Eleventy not installed (npm ci --prefix tests/generators; .ci/run does this)")
    return site(tmp_path, "eleventy", "_data/evidence", "assets")


def _jekyll(tmp_path: Path) -> Path:
    require_tool("jekyll", "jekyll not installed (apt-get install jekyll; .ci/run does this)")
    return site(tmp_path, "jekyll", "_data/evidence", "assets")


RECIPES = {
    r.name: r
    for r in (
        Recipe(
            "hugo",
            "public",
            "about/index.html",
            "static/claim-evidence.toml",
            "layouts/_default/single.html",
            '<link rel="stylesheet" href="{{ "assets/claim-evidence.css" | relURL }}">',
            _hugo,
            _hugo_build,
        ),
        Recipe(
            "eleventy",
            "_site",
            "about/index.html",
            "claim-evidence.toml",
            "_includes/base.njk",
            '<link rel="stylesheet" href="{{ "/assets/claim-evidence.css" | url }}">',
            _eleventy,
            lambda root: run([ELEVENTY, f"--pathprefix={SUB}"], root),
        ),
        Recipe(
            "jekyll",
            "_site",
            "about.html",
            "claim-evidence.toml",
            "_layouts/default.html",
            '<link rel="stylesheet" href="{{ "/assets/claim-evidence.css" | relative_url }}">',
            _jekyll,
            lambda root: run(["jekyll", "build", "--baseurl", SUB.rstrip("/")], root),
        ),
        Recipe(
            "astro",
            "dist",
            "about/index.html",
            "public/claim-evidence.toml",
            "src/layouts/Base.astro",
            '<link rel="stylesheet" href={stylesheet}>',
            astro_site,
            lambda root: astro_build(root, "--base", SUB.rstrip("/")),
        ),
    )
}


@pytest.fixture(params=sorted(RECIPES))
def recipe(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Recipe, Path]:
    """A recipe's site, its generator set to build for /sub/ (Hugo: baseURL; the others: an option of
    the build command), and its config saying so, as the guide shows."""
    chosen = RECIPES[request.param]
    root = chosen.setup(tmp_path)
    edit(root / chosen.config, '# base_url = "/sub/"', 'base_url = "/sub/"')
    return chosen, root


def page_url(server_url: Callable[[str], str], page: str) -> str:
    """Where the host serves ``page``: a pretty URL for a folder's ``index.html``."""
    return server_url(SUB + page.removesuffix("index.html"))


def test_recipes_subpath_build_passes_and_the_stylesheet_is_served(recipe: tuple[Recipe, Path]) -> None:
    chosen, root = recipe
    built = chosen.build(root)
    assert built.returncode == 0, built.stdout + built.stderr
    assert_passes(root, chosen.output, chosen.page)
    page = (root / chosen.output / chosen.page).read_text(encoding="utf-8")
    href = stylesheet_href(page)
    with served(root / chosen.output) as server:
        url = page_url(server.url, chosen.page)
        assert fetch(url)[0] == 200  # the page itself is where the host serves it
        assert fetch(urljoin(url, href)) == (200, STYLESHEET.read_bytes()), href
        assert fetch(urljoin(url, ROOT_HREF))[0] == 404  # what the recipes used to link


def test_recipes_subpath_root_href_fails_with_sh130(recipe: tuple[Recipe, Path]) -> None:
    """The layout writes the root href, as every recipe did: the page is served under /sub/, so the
    stylesheet 404s, and the check names the href under the base and why."""
    chosen, root = recipe
    edit(root / chosen.layout, chosen.link, f'<link rel="stylesheet" href="{ROOT_HREF}">')
    chosen.build(root)
    report = assert_fails(
        root,
        chosen.output,
        f'SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="{SUB_HREF}">',
    )
    assert f'(href="{ROOT_HREF}") points to {ROOT_HREF}, outside base_url "{SUB}"' in report, report
    with served(root / chosen.output) as server:
        assert fetch(urljoin(page_url(server.url, chosen.page), ROOT_HREF))[0] == 404


def test_recipes_subpath_config_without_base_url_names_it(recipe: tuple[Recipe, Path]) -> None:
    """Built for /sub/, checked with the config's default base_url ("/"): SH130 says which base_url
    the site needs, instead of passing a link it cannot resolve or asking for the root href alone."""
    chosen, root = recipe
    edit(root / chosen.config, 'base_url = "/sub/"', '# base_url = "/sub/"')
    chosen.build(root)
    report = assert_fails(root, chosen.output, "SH130 ")
    assert (
        f'(href="{SUB_HREF}") points to {SUB_HREF}; a site served under {SUB} sets base_url = "{SUB}" in claim-evidence.toml'
        in report
    ), report
