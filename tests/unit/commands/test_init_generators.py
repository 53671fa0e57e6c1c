"""``claim-evidence init`` in a site generator's project: the guide's config, where the guide puts it.

The expectations are read from the guides in docs/generators/ (their TOML blocks, the Install
section's ``claim-evidence assets --out`` folder, the build and check commands), not copied from
the code: a guide and what ``init`` writes cannot drift apart without a test failing here.
"""

from __future__ import annotations

import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._commands.generators import GENERATORS
from claim_evidence._site.config import CONFIG_NAME, load_config

from ...conftest import ROOT

DOCS = ROOT / "docs" / "generators"
PACKAGED_CSS = resources.files("claim_evidence").joinpath("assets/claim-evidence.css").read_bytes()
CONFIG_KEYS = {"pages", "require", "exclude", "stylesheet", "web_root", "base_url", "lang", "sources"}
# Where each guide says its claim-evidence.toml goes, relative to the marker's folder (read from the
# guides: "`static/claim-evidence.toml`", "beside conf.py", "beside mkdocs.yml", "in the project root"...).
CONFIG_AT = {"hugo": "static/claim-evidence.toml", "astro": "public/claim-evidence.toml"}
# The Astro guide is another change of #25 (docs/generators/astro.md): until it is merged, its config
# and Install folder as its author wrote them.
ASTRO = {
    "config": {
        "pages": ["**/*.html"],
        "require": ["about/index.html"],
        "stylesheet": "/assets/claim-evidence.css",
        "lang": "ja",
        "sources": ["../src/pages/**/*.md", "../src/pages/**/*.astro", "../src/layouts/**/*.astro"],
    },
    "assets": "public/assets",
}


def _guide(name: str) -> str | None:
    path = DOCS / f"{name}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _guide_config(text: str) -> dict[str, Any] | None:
    """The guide's ``claim-evidence.toml``: the one TOML block of config keys that sets the stylesheet
    (a guide may show a one-line variant too, ``base_url = "/sub/"``)."""
    blocks = [tomllib.loads(b) for b in re.findall(r"```toml\n(.*?)```", text, re.S)]
    mine = [b for b in blocks if "stylesheet" in b and set(b) <= CONFIG_KEYS]
    assert len(mine) <= 1, mine
    return mine[0] if mine else None


def _require_example(text: str) -> list[str]:
    """The commented ``# require = [...]`` of a written config, as the list it would set."""
    (example,) = re.findall(r"^# (require = .*)$", text, re.M)
    return tomllib.loads(example)["require"]


def _guide_assets(text: str) -> str:
    """The folder the guide's Install section copies the stylesheet to."""
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    (folder,) = set(re.findall(r"claim-evidence assets --out\s+([^\s`)]+)", install))
    return folder


def _project(root: Path, marker: str) -> Path:
    (root / marker).parent.mkdir(parents=True, exist_ok=True)
    (root / marker).write_text('baseURL = "https://example.org/"\n' if marker.endswith(".toml") else "", "utf-8")
    return root


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.name)
def test_init_generator_writes_the_guides_config_and_stylesheet(run: Any, tmp_path: Path, generator: Any) -> None:
    marker = generator.markers[0].path
    project = _project(tmp_path / "site", marker)
    code, out, err = run("init", os.fspath(project))
    assert (code, err) == (0, "")
    guide = _guide(generator.name)
    at = project / Path(marker).parent
    config_path = at / CONFIG_AT.get(generator.name, CONFIG_NAME)
    text = config_path.read_text(encoding="utf-8")
    written = tomllib.loads(text)
    want = dict((_guide_config(guide) if guide else ASTRO["config"]) or {})
    # The guide's require names its sample page; init, before any page is built, shows it commented.
    if "require" in want:
        assert _require_example(text) == want.pop("require")
    # Every key the guide shows, with the guide's value; besides them, at most the default lang.
    assert {k: written.get(k) for k in want} == want
    extra = {k: v for k, v in written.items() if k not in want}
    if not want:  # a plugin's guide without a config block: the stylesheet it links (from the site's root)
        assert guide is not None and f"{extra.pop('stylesheet').lstrip('/')}" in guide
    assert extra in ({}, {"lang": "ja"})
    assert load_config(config_path).options.lang == "ja"
    assets = _guide_assets(guide) if guide else ASTRO["assets"]
    assert (at / assets / "claim-evidence.css").read_bytes() == PACKAGED_CSS
    lines = out.splitlines()
    assert lines[0] == f"{config_path}: written for {generator.title} (found {marker}; the recipe: {generator.guide})"
    assert lines[1] == f"{at / assets / 'claim-evidence.css'}: written"
    assert lines[2] == "Next:"
    # The guide's build and check commands are printed (Sphinx's with the project's folders filled in).
    commands = [c.split(" {src}")[0] for c in generator.build] + ([generator.check] if generator.check else [])
    build = next(line for line in lines if line.startswith("  ") and ". build: " in line)
    check = next(line for line in lines if line.startswith("  ") and ". check: " in line)
    for command in commands:
        assert command in build + check
        if guide:
            assert command in guide, f"{generator.guide} does not name {command!r}"
    # Nothing but the config and the stylesheet is written.
    assert sorted(p.relative_to(project) for p in project.rglob("*") if p.is_file()) == sorted(
        [Path(marker), config_path.relative_to(project), (at / assets / "claim-evidence.css").relative_to(project)]
    )


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.name)
def test_init_generator_config_shows_require_commented_with_an_example(
    run: Any, tmp_path: Path, generator: Any
) -> None:
    marker = generator.markers[0].path
    project = _project(tmp_path / "site", marker)
    assert run("init", os.fspath(project))[0] == 0
    config_path = project / Path(marker).parent / CONFIG_AT.get(generator.name, CONFIG_NAME)
    text = config_path.read_text(encoding="utf-8")
    assert "require" not in tomllib.loads(text)
    example = _require_example(text)
    uncommented = tomllib.loads(text.replace("# require = ", "require = "))["require"]
    assert uncommented == example and example and all(isinstance(glob, str) for glob in example)


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.name)
def test_init_generator_recognizes_every_marker(run: Any, tmp_path: Path, generator: Any) -> None:
    for n, marker in enumerate(generator.markers):
        project = _project(tmp_path / str(n), marker.path)
        code, out, _ = run("init", os.fspath(project))
        assert code == 0
        assert f": written for {generator.title} (found {marker.path};" in out.splitlines()[0]


def test_init_sphinx_conf_in_source_folder_gets_config_and_static_there(run: Any, tmp_path: Path) -> None:
    project = _project(tmp_path / "site", "source/conf.py")
    code, out, _ = run("init", os.fspath(project))
    assert code == 0
    assert (project / "source" / CONFIG_NAME).is_file()
    assert (project / "source" / "_static" / "claim-evidence.css").read_bytes() == PACKAGED_CSS
    assert not (project / CONFIG_NAME).exists()
    assert "build: sphinx-build -W source source/_build/html" in out


def test_init_config_toml_without_hugo_keys_is_a_plain_folder(run: Any, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('base_url = "https://example.org"\ntitle = "a Zola site"\n', "utf-8")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[:2] == [
        f"{tmp_path}/claim-evidence.toml: written (pages: none found, so pages = []; lang: ja (default: no pages yet))",
        f"{tmp_path}/assets/claim-evidence.css: written",
    ]


def test_init_hugo_config_toml_with_hugo_keys_any_case(run: Any, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('BaseURL = "https://example.org/"\n', "utf-8")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.startswith(f"{tmp_path}/static/claim-evidence.toml: written for Hugo (found config.toml;")
    assert not (tmp_path / "assets").exists() and not (tmp_path / CONFIG_NAME).exists()


def test_init_two_generators_refused_and_nothing_written(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "mkdocs.yml")
    _project(tmp_path, "hugo.toml")
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run("init", os.fspath(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: error: {tmp_path}: this looks like a project of 2 site generators: MkDocs (mkdocs.yml), "
        "Hugo (hugo.toml); choose one with --generator mkdocs or --generator hugo (--generator none: a plain folder "
        "of HTML pages); nothing written\n"
    )
    assert sorted(tmp_path.rglob("*")) == before


def test_init_two_generators_here_named_this_folder(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, "_config.yml")
    _project(tmp_path, "astro.config.mjs")
    monkeypatch.chdir(tmp_path)
    code, _, err = run("init")
    assert code == 2
    assert err.startswith("claim-evidence: error: this folder: this looks like a project of 2 site generators: ")


def test_init_generator_option_chooses_among_two(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "mkdocs.yml")
    _project(tmp_path, "hugo.toml")
    code, out, _ = run("init", "--generator", "hugo", os.fspath(tmp_path))
    assert code == 0
    assert out.startswith(f"{tmp_path}/static/claim-evidence.toml: written for Hugo (found hugo.toml;")
    assert not (tmp_path / "docs").exists()


def test_init_generator_option_without_markers(run: Any, tmp_path: Path) -> None:
    code, out, _ = run("init", "--generator", "jekyll", os.fspath(tmp_path))
    assert code == 0
    assert out.startswith(
        f"{tmp_path}/claim-evidence.toml: written for Jekyll (--generator jekyll; no _config.yml here yet; the recipe: "
    )
    assert "pages" in tomllib.loads((tmp_path / CONFIG_NAME).read_text(encoding="utf-8"))


def test_init_generator_none_keeps_the_plain_setup(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "hugo.toml")
    code, out, _ = run("init", "--generator", "none", os.fspath(tmp_path))
    assert code == 0
    assert (tmp_path / CONFIG_NAME).is_file() and (tmp_path / "assets" / "claim-evidence.css").is_file()
    assert not (tmp_path / "static").exists()
    assert "written for" not in out


def test_init_unknown_generator_is_a_usage_error(run: Any, tmp_path: Path) -> None:
    code, out, err = run("init", "--generator", "gatsby", os.fspath(tmp_path))
    assert (code, out) == (2, "")
    assert "Invalid value for '--generator': 'gatsby' is not one of " in err
    assert list(tmp_path.iterdir()) == []


def test_init_generator_refuses_existing_config_and_changes_nothing(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "hugo.toml")
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / CONFIG_NAME).write_text("# mine\n", "utf-8")
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run("init", os.fspath(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: error: {tmp_path}/static/claim-evidence.toml exists; edit it instead (init never overwrites)\n"
    )
    assert sorted(tmp_path.rglob("*")) == before
    assert (tmp_path / "static" / CONFIG_NAME).read_text(encoding="utf-8") == "# mine\n"


def test_init_generator_leaves_a_different_stylesheet_alone(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "mkdocs.yml")
    (tmp_path / "docs" / "assets").mkdir(parents=True)
    (tmp_path / "docs" / "assets" / "claim-evidence.css").write_text("/* mine */\n", "utf-8")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[1] == (
        f"{tmp_path}/docs/assets/claim-evidence.css: left unchanged: it differs from the packaged stylesheet "
        f"(init never overwrites; claim-evidence assets --out {tmp_path}/docs/assets replaces it)"
    )
    assert (tmp_path / "docs" / "assets" / "claim-evidence.css").read_text(encoding="utf-8") == "/* mine */\n"


def test_init_generator_same_bytes_twice(run: Any, tmp_path: Path) -> None:
    outs = []
    for name in ("one", "two"):
        project = _project(tmp_path / name, "hugo.toml")
        outs.append(run("init", os.fspath(project))[1].replace(os.fspath(project), "SITE"))
    assert outs[0] == outs[1]
    assert (tmp_path / "one" / "static" / CONFIG_NAME).read_bytes() == (
        tmp_path / "two" / "static" / CONFIG_NAME
    ).read_bytes()


def test_init_help_names_the_generators_and_the_option(run: Any) -> None:
    code, out, _ = run("init", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "--generator [" + "|".join([*(g.name for g in GENERATORS), "none"]) + "]" in flat
    for generator in GENERATORS:
        for marker in generator.markers:
            # each marker is named, whole or as the shared stem with its suffixes (eleventy.config.js/.mjs)
            stem, ext = marker.path.rsplit(".", 1)
            assert marker.path in flat or (stem in flat and f"/.{ext}" in flat), marker.path
    assert "A project with the files of two generators is refused (exit 2): choose one with --generator" in flat


def test_init_generator_folder_in_the_way_writes_nothing(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "hugo.toml")
    (tmp_path / "static").write_text("not a folder\n", "utf-8")
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run("init", os.fspath(tmp_path))
    assert (code, out) == (2, "")
    assert err.startswith(f"claim-evidence: error: {tmp_path}/static/assets: cannot create the folder (")
    assert err.endswith("); nothing written\n")
    assert sorted(tmp_path.rglob("*")) == before


def test_init_config_toml_not_utf8_is_no_hugo_marker(run: Any, tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b'baseURL = "\xff"\n')
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert "written for" not in out and (tmp_path / CONFIG_NAME).is_file()


def test_init_hugo_names_a_root_config_a_plain_init_left(run: Any, tmp_path: Path) -> None:
    _project(tmp_path, "hugo.toml")
    (tmp_path / CONFIG_NAME).write_text('pages = ["layouts/_default/*.html"]\n', "utf-8")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[2] == (
        f"{tmp_path}/claim-evidence.toml: left unchanged, but docs/generators/hugo.md keeps the config in "
        f"{tmp_path}/static/claim-evidence.toml; remove this one (from the project root the gate would check the "
        "templates too)"
    )
    assert (tmp_path / CONFIG_NAME).read_text(encoding="utf-8") == 'pages = ["layouts/_default/*.html"]\n'
    assert (tmp_path / "static" / CONFIG_NAME).is_file()
