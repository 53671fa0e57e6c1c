"""The site generators ``claim-evidence init`` knows: how to recognize a project, and what its guide sets up.

One table, one row per guide in ``docs/generators/``: the guide is the truth, and this row is what
``init`` writes from it (the config's place and keys, the stylesheet's folder, the next steps).
``tests/unit/commands/test_init_generators.py`` parses each guide's config and compares it with the
row, so a guide and its row cannot drift apart unnoticed. Recognizing a project reads only marker
files named here (and, for Hugo's ambiguous ``config.toml``, its top-level keys): no network, no clock.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .._check.options import DEFAULT_STYLESHEET
from .._core.errors import InitError

TomlValue = str | tuple[str, ...]

# Hugo's own top-level keys (lower case: Hugo reads them case-insensitively). A config.toml is also
# Zola's, Netlify's or a tool's own: only one with a key of these is taken for Hugo's.
_HUGO_KEYS = frozenset(
    {
        "baseurl",
        "languagecode",
        "defaultcontentlanguage",
        "contentdir",
        "publishdir",
        "layoutdir",
        "enablerobotstxt",
        "enableemoji",
        "summarylength",
        "paginate",
        "pagination",
        "disablekinds",
        "markup",
        "module",
        "minify",
    }
)


def _hugo_config_toml(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return any(key.lower() in _HUGO_KEYS for key in data)


@dataclass(frozen=True)
class Marker:
    """A file that marks a generator's project, relative to the project folder; ``test`` looks inside."""

    path: str
    test: Callable[[Path], bool] | None = None

    def found(self, root: Path) -> bool:
        target = root / self.path
        return target.is_file() and (self.test is None or self.test(target))


@dataclass(frozen=True)
class Generator:
    """One guide's setup. ``config_dir`` and ``stylesheet_dir`` are relative to the marker's folder
    (Sphinx's ``conf.py`` may sit in ``docs/`` or ``source/``; every other marker is at the root)."""

    name: str  # --generator NAME; the guide is docs/generators/NAME.md
    title: str
    markers: tuple[Marker, ...]
    config_dir: str  # where claim-evidence.toml goes ("." beside the marker)
    where: str  # why it goes there: the first comment of the config
    settings: tuple[tuple[str, TomlValue], ...]  # the guide's keys, in the order written
    require_example: tuple[str, ...]  # a commented `require` (globs relative to config_dir)
    stylesheet_dir: str  # where the packaged stylesheet is copied
    setup: tuple[str, ...]  # what to add to the generator's own files; "{marker}": the marker found
    build: tuple[str, ...]  # the build commands, in order; "{src}": the marker's folder
    check: str  # the command that checks the built site ("" when the build itself fails on a finding)
    records: str  # where a page's bundle lives

    @property
    def guide(self) -> str:
        return f"docs/generators/{self.name}.md"


_PAGES = ("pages", ("**/*.html",))
_STYLESHEET = ("stylesheet", DEFAULT_STYLESHEET)
_LANG = ("lang", "ja")
_LINK = f"link {DEFAULT_STYLESHEET} in the <head> of your layout"
_IN_PAGE = "a bundle script in the same page, after the claims"

GENERATORS: tuple[Generator, ...] = (
    Generator(
        name="mkdocs",
        title="MkDocs",
        markers=(Marker("mkdocs.yml"), Marker("mkdocs.yaml")),
        config_dir=".",
        where="Beside mkdocs.yml: the plugin reads it from there (it lets the relative stylesheet href pass).",
        settings=(_STYLESHEET, _LANG),
        require_example=("site/index.html",),
        stylesheet_dir="docs/assets",
        setup=(
            "in {marker}: plugins: [search, claim-evidence] (list the plugins you had: a plugins: list "
            "replaces MkDocs' default) and extra_css: [assets/claim-evidence.css]",
        ),
        build=("mkdocs build --strict",),
        check="",
        records=_IN_PAGE,
    ),
    Generator(
        name="sphinx",
        title="Sphinx",
        markers=(Marker("conf.py"), Marker("docs/conf.py"), Marker("source/conf.py")),
        config_dir=".",
        where="Beside conf.py: the extension reads it from there.",
        settings=(("stylesheet", "/_static/claim-evidence.css"), _LANG),
        require_example=("_build/html/index.html",),
        stylesheet_dir="_static",
        setup=(
            'in {marker}: extensions = ["claim_evidence.integrations.sphinx"], html_static_path = ["_static"], '
            'html_css_files = ["claim-evidence.css"]',
        ),
        build=("sphinx-build -W {src} {src}/_build/html",),
        check="",
        records=_IN_PAGE + " (a .. raw:: html block)",
    ),
    Generator(
        name="pelican",
        title="Pelican",
        markers=(Marker("pelicanconf.py"),),
        config_dir=".",
        where="Beside pelicanconf.py: CLAIM_EVIDENCE_CONFIG names it.",
        settings=(_STYLESHEET, _LANG),
        require_example=("output/index.html",),
        stylesheet_dir="content/assets",
        setup=(
            'in {marker}: PLUGINS = ["claim_evidence.integrations.pelican"], '
            'CLAIM_EVIDENCE_CONFIG = str(Path(__file__).with_name("claim-evidence.toml")), '
            'STATIC_PATHS = ["images", "assets"]',
            "link {{ SITEURL }}/assets/claim-evidence.css from the theme (THEME_TEMPLATES_OVERRIDES)",
        ),
        build=("pelican --fatal warnings",),
        check="",
        records=_IN_PAGE,
    ),
    Generator(
        name="hugo",
        title="Hugo",
        markers=(
            Marker("hugo.toml"),
            Marker("hugo.yaml"),
            Marker("hugo.json"),
            Marker("config.toml", _hugo_config_toml),
        ),
        config_dir="static",
        where="Copied to public/ by Hugo: the gate reads it there, so it walks the built site, not layouts/.",
        settings=(
            _PAGES,
            _STYLESHEET,
            _LANG,
            ("sources", ("../content/**/*.md", "../layouts/**/*.html", "../data/**/*.json")),
        ),
        require_example=("about/index.html",),
        stylesheet_dir="static/assets",
        setup=(
            "in {marker}: markup.goldmark.renderer.unsafe = true and minify.tdewolff.json.keepNumbers = true "
            "(in TOML: [markup.goldmark.renderer] unsafe = true, [minify.tdewolff.json] keepNumbers = true)",
            "add the shortcode layouts/shortcodes/claim-evidence-data.html that puts data/evidence/NAME.json in the page",
            _LINK,
        ),
        build=("hugo", "static-helper --write --no-cache --config public/claim-evidence.toml"),
        check="claim-evidence prepublish --config public/claim-evidence.toml",
        records="data/evidence/NAME.json",
    ),
    Generator(
        name="eleventy",
        title="Eleventy",
        markers=(
            Marker(".eleventy.js"),
            Marker("eleventy.config.js"),
            Marker("eleventy.config.mjs"),
            Marker("eleventy.config.cjs"),
        ),
        config_dir=".",
        where="Copied to _site/ by the passthrough copy: the gate reads it there.",
        settings=(
            _PAGES,
            _STYLESHEET,
            _LANG,
            ("sources", ("../*.md", "../posts/**/*.md", "../_includes/**/*.njk", "../_data/**/*.json")),
        ),
        require_example=("about/index.html",),
        stylesheet_dir="assets",
        setup=(
            "in {marker}: add the passthrough copies of assets and claim-evidence.toml, the "
            "claimEvidenceData shortcode and the eleventy.after check",
            _LINK,
        ),
        build=("npx @11ty/eleventy",),
        check="claim-evidence prepublish --config _site/claim-evidence.toml",
        records="_data/evidence/NAME.json",
    ),
    Generator(
        name="jekyll",
        title="Jekyll",
        markers=(Marker("_config.yml"), Marker("_config.yaml")),
        config_dir=".",
        where="Jekyll copies this file to _site/: the gate reads it there, so it walks the built site, "
        "not _layouts/ or _includes/.",
        settings=(
            _PAGES,
            _STYLESHEET,
            _LANG,
            (
                "sources",
                (
                    "../*.md",
                    "../_posts/**/*.md",
                    "../_layouts/**/*.html",
                    "../_includes/**/*.html",
                    "../_data/**/*.json",
                ),
            ),
        ),
        require_example=("about.html",),
        stylesheet_dir="assets",
        setup=(
            "add _plugins/claim_evidence_data.rb (the Liquid tag) and _plugins/claim_evidence_write.rb (the hook)",
            _LINK,
        ),
        build=("jekyll build",),
        check="claim-evidence prepublish --config _site/claim-evidence.toml",
        records="_data/evidence/NAME.json",
    ),
    Generator(
        name="astro",
        title="Astro",
        markers=(
            Marker("astro.config.mjs"),
            Marker("astro.config.js"),
            Marker("astro.config.ts"),
            Marker("astro.config.mts"),
        ),
        config_dir="public",
        where="Copied to dist/ by Astro (public/): the gate reads it there, so it walks the built site, not src/.",
        settings=(
            _PAGES,
            _STYLESHEET,
            _LANG,
            (
                "sources",
                (
                    "../src/pages/**/*.md",
                    "../src/pages/**/*.astro",
                    "../src/layouts/**/*.astro",
                    "../src/data/**/*.json",
                ),
            ),
        ),
        require_example=("about/index.html",),
        stylesheet_dir="public/assets",
        setup=(
            "in {marker}: the claim-evidence integration, last in integrations (astro:build:done fills the "
            "slots in dist/ and checks them)",
            "the layout src/layouts/Base.astro that puts src/data/evidence/NAME.json in the page as written "
            "(?raw) and links the stylesheet under the site's base",
        ),
        build=("npx astro build",),
        check="claim-evidence prepublish --config dist/claim-evidence.toml",
        records="src/data/evidence/NAME.json",
    ),
)

BY_NAME = {g.name: g for g in GENERATORS}
NONE = "none"  # --generator none: a plain folder of HTML pages
CHOICES = (*BY_NAME, NONE)


@dataclass(frozen=True)
class Found:
    """A generator recognized in a project, by the marker file found (relative to the project)."""

    generator: Generator
    marker: str
    present: bool = True  # False: chosen with --generator in a folder without its markers

    @property
    def why(self) -> str:
        """Why ``init`` set this generator up: the marker found, or the option."""
        if self.present:
            return f"found {self.marker}"
        return f"--generator {self.generator.name}; no {self.marker} here yet"

    @property
    def src(self) -> str:
        """The marker's folder, relative to the project: where the generator's own config lives."""
        return Path(self.marker).parent.as_posix()

    def fill(self, text: str) -> str:
        """A step or command of the row with this project's marker and its folder in (``{src}/x``
        is ``x`` at the root). Not ``str.format``: Pelican's ``{{ SITEURL }}`` must stay as written."""
        if self.src == ".":
            text = text.replace("{src}/", "")
        return text.replace("{src}", self.src).replace("{marker}", self.marker)

    @property
    def build(self) -> str:
        return ", then ".join(self.fill(command) for command in self.generator.build)


def detect(root: Path) -> list[Found]:
    """Every generator whose marker is in ``root``, each with the first of its markers found."""
    found = []
    for generator in GENERATORS:
        marker = next((m.path for m in generator.markers if m.found(root)), None)
        if marker is not None:
            found.append(Found(generator, marker))
    return found


def choose(root: Path, shown: str, name: str | None) -> Found | None:
    """The generator ``init`` sets up in ``root``: the one named, else the one recognized; ``None``
    for a plain folder. Two recognized ones are refused: guessing would write the wrong setup."""
    if name == NONE:
        return None
    found = detect(root)
    if name is not None:
        generator = BY_NAME[name]
        return next((f for f in found if f.generator is generator), Found(generator, generator.markers[0].path, False))
    if len(found) > 1:
        which = ", ".join(f"{f.generator.title} ({f.marker})" for f in found)
        options = " or ".join(f"--generator {f.generator.name}" for f in found)
        raise InitError(
            f"{shown or 'this folder'}: this looks like a project of {len(found)} site generators: {which}; choose one with "
            f"{options} (--generator none: a plain folder of HTML pages); nothing written"
        )
    return found[0] if found else None
