"""claim-evidence.toml: keys, values, errors with positions and hints."""

from __future__ import annotations

from pathlib import Path

import pytest

from claim_evidence import InputError
from claim_evidence._check.page import PageOptions, SiteLayout
from claim_evidence._site.config import find_config, load_config, registered_pages


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claim-evidence.toml"
    path.write_text(text, encoding="utf-8")
    return path


def message(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_config(path)
    return str(caught.value)


def test_config_defaults(tmp_path):
    config = load_config(write(tmp_path, ""))
    snapshots = str(tmp_path / "evidence-snapshots")
    site = SiteLayout(str(tmp_path))  # served from the config's folder at "/", nothing required or excluded
    assert (config.pages, config.options, config.root) == (
        (),
        PageOptions("/assets/claim-evidence.css", "ja", snapshots=snapshots, site=site),
        tmp_path,
    )


def test_config_values(tmp_path):
    config = load_config(write(tmp_path, 'pages = ["a/*.html"]\nstylesheet = "/css/e.css"\nlang = "en"\n'))
    expected = PageOptions(
        "/css/e.css", "en", True, snapshots=str(tmp_path / "evidence-snapshots"), site=SiteLayout(str(tmp_path))
    )
    assert (config.pages, config.options) == (("a/*.html",), expected)
    moved = load_config(write(tmp_path, 'snapshots = "copies/read"\n'))
    assert moved.options.snapshots == str(tmp_path / "copies" / "read")


def test_config_unknown_key_did_you_mean(tmp_path):
    path = write(tmp_path, 'page = ["x"]\n')
    assert message(path) == f"{path}: SH002 unknown key 'page' (did you mean 'pages'?)"


def test_config_unknown_key_without_close_match(tmp_path):
    path = write(tmp_path, "zzz = 1\n")
    assert (
        message(path)
        == f"{path}: SH002 unknown key 'zzz' (known keys: pages, require, exclude, stylesheet, base_url, web_root, lang, require_quotes, snapshots, search_ignore, sources, template_dir, news, freshness, chat, reviews)"
    )


def test_config_invalid_toml_has_position(tmp_path):
    path = write(tmp_path, 'lang = "ja"\npages = = 1\n')
    assert message(path) == f"{path}:2:9: SH001 invalid TOML: Invalid value"


def test_config_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "claim-evidence.toml"
    path.write_bytes(b'\xef\xbb\xbfpages = ["a.html"]\nlang = "en"\n')
    (tmp_path / "a.html").write_text("<p>a</p>", encoding="utf-8")
    config = load_config(path)
    assert (config.pages, config.options.lang) == (("a.html",), "en")


def test_config_utf8_bom_keeps_error_positions(tmp_path: Path) -> None:
    path = tmp_path / "claim-evidence.toml"
    path.write_bytes(b"\xef\xbb\xbfpages = = 1\n")
    assert message(path) == f"{path}:1:9: SH001 invalid TOML: Invalid value"


def test_config_not_utf8_is_sh001(tmp_path: Path) -> None:
    path = tmp_path / "claim-evidence.toml"
    path.write_bytes('lang = "ja" # 日本語\n'.encode("shift_jis"))
    assert message(path) == f"{path}: SH001 config is not UTF-8"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pages = 'x'", "SH003 pages must be a list of glob strings"),
        ('lang = "fr"', "SH003 lang must be one of en, ja (found 'fr')"),
        ("stylesheet = 3", "SH003 stylesheet must be the href"),
    ],
)
def test_config_bad_values(tmp_path, text, expected):
    assert expected in message(write(tmp_path, text))


def test_config_sources_are_globs_relative_to_the_config(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "")).sources == ()
    config = load_config(write(tmp_path, 'sources = ["../content/**/*.md", "layouts/**/*.html"]\n'))
    assert config.sources == ("../content/**/*.md", "layouts/**/*.html")
    # Read only to place findings: a glob that matches nothing is no error (and nothing is globbed here).
    assert load_config(write(tmp_path, 'sources = ["missing/*.md"]\n')).sources == ("missing/*.md",)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            '"content/*.md"',
            "SH003 sources must be a list of glob strings, e.g. sources = [\"content/**/*.md\"] (found 'content/*.md')",
        ),
        ("[]", None),
        ('[""]', "SH003 sources must be a list of glob strings, e.g. sources = [\"content/**/*.md\"] (found [''])"),
        ("[3]", 'SH003 sources must be a list of glob strings, e.g. sources = ["content/**/*.md"] (found [3])'),
        ("true", 'SH003 sources must be a list of glob strings, e.g. sources = ["content/**/*.md"] (found True)'),
        (
            '["/srv/site/content/*.md"]',
            "SH003 sources glob '/srv/site/content/*.md' must be relative to the config's folder, with ** only as a whole folder name, "
            'e.g. "../content/**/*.md"',
        ),
        (
            '["content/**.md"]',
            "SH003 sources glob 'content/**.md' must be relative to the config's folder, with ** only as a whole folder name, "
            'e.g. "../content/**/*.md"',
        ),
    ],
)
def test_config_bad_sources_is_sh003_naming_the_key(tmp_path: Path, value: str, expected: str | None) -> None:
    path = write(tmp_path, f"sources = {value}\n")
    if expected is None:
        assert load_config(path).sources == ()
    else:
        assert message(path) == f"{path}: {expected}"


def test_config_glob_matching_nothing_is_an_error(tmp_path):
    config = load_config(write(tmp_path, 'pages = ["missing/*.html"]'))
    with pytest.raises(InputError, match="SH004 pages glob 'missing/\\*.html' matches no file"):
        registered_pages(config)


def test_config_found_in_parent_folder(tmp_path):
    path = write(tmp_path, "")
    (tmp_path / "sub").mkdir()
    assert find_config(tmp_path / "sub") == path


def test_config_stylesheet_false_turns_sh130_off(tmp_path: Path) -> None:
    path = tmp_path / "claim-evidence.toml"
    path.write_text("stylesheet = false\n", encoding="utf-8")
    options = load_config(path).options
    assert options.stylesheet is None
    from claim_evidence._check.page import check_text

    page = '<p data-claim-id="a">x</p><div data-evidence-for="a"></div><script type="application/json" id="claim-evidence-data">{}</script>'
    assert "SH130" not in {d.code for d in check_text(page, "p.html", options).diagnostics}
    assert "SH130" in {d.code for d in check_text(page, "p.html").diagnostics}


@pytest.mark.parametrize("value", ["true", '""', "1", "[]"])
def test_config_stylesheet_must_be_an_href_or_false(tmp_path: Path, value: str) -> None:
    path = tmp_path / "claim-evidence.toml"
    path.write_text(f"stylesheet = {value}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert caught.value.diagnostic.message == (
        'stylesheet must be the href of the shared evidence stylesheet, or false to skip SH130 (e.g. stylesheet = "/assets/claim-evidence.css")'
    )
