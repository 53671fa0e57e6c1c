"""``claim-evidence init``: a starter config guessed from the pages on disk, never overwriting anything."""

from __future__ import annotations

import os
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._site.config import load_config
from static_helper.cli import main as static_helper_main

PACKAGED_CSS = resources.files("claim_evidence").joinpath("assets/claim-evidence.css").read_bytes()
NEXT = (
    "Next:\n"
    '  1. mark a sentence: <p data-claim-id="my-claim">…</p>\n'
    "  2. claim-evidence claim add PAGE --id my-claim --basis reporting (it also links the stylesheet in <head>: "
    '<link rel="stylesheet" href="/assets/claim-evidence.css">)\n'
    "  3. claim-evidence source add PAGE --id src --url URL --publisher P --title T\n"
    '  4. claim-evidence ref add PAGE --claim my-claim --source src --section S --supports T --quote "passage"\n'
    "  5. read the source, then: claim-evidence review record PAGE --claim my-claim --status matched --method human_document_review "
    "--checked-at YYYY-MM-DD\n"
    "  6. static-helper --write, then claim-evidence prepublish\n"
)
HEADER = (
    "# claim-evidence.toml: the settings static-helper and `claim-evidence prepublish` read.\n"
    "# Written by `claim-evidence init` (which never overwrites it): edit it freely.\n"
    '# Paths and globs are relative to this folder; every key: SCHEMA.md, "Site configuration".\n'
    "\n"
    "# The pages to check.\n"
)
REQUIRE = (
    "# Pages that must carry evidence markup: each fails on its own when the build drops it (SH160),\n"
    "# where otherwise a page without markup passes. Each glob must match a page that is checked\n"
    "# (SH004, SH008). For example:\n"
    '# require = ["articles/*.html"]\n'
)
STYLESHEET_AND_REST = (
    "\n" + REQUIRE + "\n"
    '# The stylesheet every page with evidence must link (SH130): <link rel="stylesheet" href="…">.\n'
    "# A root-relative href: this folder is taken to be served at the site root. The file is\n"
    "# assets/claim-evidence.css here (`claim-evidence assets --out assets` copies it again).\n"
    "# false: the site ships the evidence styles its own way, and the link is not checked.\n"
    'stylesheet = "/assets/claim-evidence.css"\n'
    "\n"
    "# Language of the evidence block labels: ja or en.\n"
)
QUOTES_AND_NEWS = (
    "\n"
    "# true: a matched or partial claim whose statement has numbers must quote the passage they come\n"
    "# from (quote.exact in its source_refs): without a quote that is an error (CE905), not a warning.\n"
    '# Figures the quotes do not have are reported either way. See SCHEMA.md, "The number check".\n'
    "# require_quotes = true\n"
    "\n"
    "# The news path (correction registry, day-files, list pages) is an optional [news] table: see SCHEMA.md.\n"
)
FOUND_COMMENT = (
    "# Guessed from the {n} found here (hidden folders, __pycache__, node_modules, venv skipped).\n"
    "# Every page that carries evidence markup must be listed; a glob that matches no file is an error (SH004).\n"
)


def _page(path: Path, lang: str | None = "ja", body: str = "本文です。") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    attr = "" if lang is None else f' lang="{lang}"'
    path.write_text(
        f"<!DOCTYPE html>\n<html{attr}>\n<head><title>t</title></head>\n<body><p>{body}</p></body>\n</html>\n",
        encoding="utf-8",
    )
    return path


def _config(pages: str, n: str, lang: str, reason: str) -> str:
    return (
        HEADER
        + FOUND_COMMENT.format(n=n)
        + pages
        + "\n"
        + STYLESHEET_AND_REST
        + f"# Guessed: {reason}.\n"
        + f'lang = "{lang}"\n'
        + QUOTES_AND_NEWS
    )


def _snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    return {
        os.fspath(p.relative_to(root)): (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }


def _site(root: Path) -> Path:
    _page(root / "index.html")
    _page(root / "about.html", "ja-JP")
    _page(root / "articles" / "first.html")
    _page(root / "articles" / "deep" / "second.html")
    return root


def test_init_fresh_site_writes_config_and_stylesheet(run: Any, tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    code, out, err = run("init", os.fspath(site))
    assert (code, err) == (0, "")
    assert out == (
        f"{site}/claim-evidence.toml: written (pages: *.html, articles/*.html, articles/deep/*.html; "
        "lang: ja from <html lang> of 4 pages)\n"
        f"{site}/assets/claim-evidence.css: written\n" + NEXT
    )
    assert (site / "claim-evidence.toml").read_text(encoding="utf-8") == _config(
        'pages = ["*.html", "articles/*.html", "articles/deep/*.html"]',
        "4 HTML pages",
        "ja",
        "ja from <html lang> of 4 pages",
    )
    assert (site / "assets" / "claim-evidence.css").read_bytes() == PACKAGED_CSS


def test_init_relative_folder_paths_shown_as_given(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _site(tmp_path / "site")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("init", "site")
    assert code == 0
    assert out.splitlines()[:2] == [
        "site/claim-evidence.toml: written (pages: *.html, articles/*.html, articles/deep/*.html; lang: ja from <html lang> of 4 pages)",
        "site/assets/claim-evidence.css: written",
    ]


def test_init_default_folder_is_here(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _page(tmp_path / "index.html")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("init")
    assert code == 0
    assert out == (
        "claim-evidence.toml: written (pages: *.html; lang: ja from <html lang> of 1 page)\n"
        "assets/claim-evidence.css: written\n" + NEXT
    )
    assert (tmp_path / "claim-evidence.toml").is_file()


def test_init_config_loads_and_the_gates_run(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _site(tmp_path / "site")
    _page(site / "legacy" / "old.htm", "en")
    assert run("init", os.fspath(site))[0] == 0
    config = load_config(site / "claim-evidence.toml")
    assert config.pages == ("*.html", "articles/*.html", "articles/deep/*.html", "legacy/*.htm")
    assert (config.options.lang, config.options.stylesheet, config.options.policy.require_quotes) == (
        "ja",
        "/assets/claim-evidence.css",
        False,
    )
    monkeypatch.chdir(site)
    # Every page passes on its own; a site without any evidence markup yet does not pass the gate (SH007).
    code, out, err = run("prepublish", "--config", "claim-evidence.toml", "--jobs", "1")
    assert (code, err) == (1, "")
    assert out.splitlines()[:6] == [
        "PASS about.html: no evidence markup",
        "PASS articles/deep/second.html: no evidence markup",
        "PASS articles/first.html: no evidence markup",
        "PASS index.html: no evidence markup",
        "PASS legacy/old.htm: no evidence markup",
        "ERROR claim-evidence.toml",
    ]
    assert out.splitlines()[6].startswith(
        "claim-evidence.toml: SH007 the registered pages carry no evidence markup at all (5 pages checked;"
    )
    assert out.splitlines()[7:] == ["6 targets: 5 passed, 1 failed"]
    assert static_helper_main(["--no-cache", "--jobs", "1"]) == 1
    assert capsys.readouterr().out.splitlines()[-2:][0].startswith("claim-evidence.toml: SH007 ")


def test_init_refuses_existing_config_and_changes_nothing(run: Any, tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    (site / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    before = _snapshot(site)
    assert run("init", os.fspath(site)) == (
        2,
        "",
        f"claim-evidence: error: {site}/claim-evidence.toml exists; edit it instead (init never overwrites)\n",
    )
    assert _snapshot(site) == before
    assert not (site / "assets").exists()


def test_init_refuses_missing_folder(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init", "nope") == (2, "", "claim-evidence: error: nope: no such folder\n")
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_a_file(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _page(tmp_path / "index.html")
    monkeypatch.chdir(tmp_path)
    assert run("init", "index.html") == (2, "", "claim-evidence: error: index.html: not a folder\n")
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]


def test_init_no_html_files(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run("init")
    assert (code, err) == (0, "")
    lines = NEXT.splitlines()
    assert (
        out
        == "\n".join(
            [
                "claim-evidence.toml: written (pages: none found, so pages = []; lang: ja (default: no pages yet))",
                "assets/claim-evidence.css: written",
                "Next:",
                '  1. list your pages in claim-evidence.toml, e.g. pages = ["*.html"]; until then static-helper and prepublish '
                "stop with SH006 (registers nothing)",
                *(f"  {n + 1}.{line.partition('.')[2]}" for n, line in enumerate(lines[1:], 1)),
            ]
        )
        + "\n"
    )
    assert (tmp_path / "claim-evidence.toml").read_text(encoding="utf-8") == (
        HEADER + "# No HTML page was found when this file was written: list your pages here,\n"
        '# e.g. pages = ["*.html", "articles/*.html"]. Until then static-helper and\n'
        "# claim-evidence prepublish stop with SH006 (registers nothing).\n"
        "pages = []\n"
        + STYLESHEET_AND_REST
        + "# Guessed: ja (default: no pages yet).\n"
        + 'lang = "ja"\n'
        + QUOTES_AND_NEWS
    )
    assert load_config(tmp_path / "claim-evidence.toml").pages == ()
    code, _, err = run("prepublish", "--jobs", "1")
    assert code == 2
    assert "SH006 registers nothing to check" in err


def test_init_skips_hidden_cache_and_tool_folders(run: Any, tmp_path: Path) -> None:
    for folder in (".git", ".claim-evidence-cache", "node_modules/pkg", "venv/lib", "__pycache__", "docs/.drafts"):
        _page(tmp_path / folder / "skipped.html", "en")
    _page(tmp_path / ".hidden.html", "en")
    _page(tmp_path / "docs" / "guide.html")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert (
        out.splitlines()[0]
        == f"{tmp_path}/claim-evidence.toml: written (pages: docs/*.html; lang: ja from <html lang> of 1 page)"
    )


def test_init_more_than_eight_folders_uses_double_star(run: Any, tmp_path: Path) -> None:
    for n in range(9):
        _page(tmp_path / f"section{n}" / "index.html")
    _page(tmp_path / "old" / "page.htm")
    _page(tmp_path / "node_modules" / "pkg" / "readme.txt")  # no page there: "**" takes nothing from it
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[0] == (
        f"{tmp_path}/claim-evidence.toml: written (pages: **/*.html, **/*.htm; lang: ja from <html lang> of 10 pages)"
    )
    assert 'pages = ["**/*.html", "**/*.htm"]\n' in (tmp_path / "claim-evidence.toml").read_text(encoding="utf-8")


def test_init_more_than_eight_folders_keeps_skipped_folders_out(run: Any, tmp_path: Path) -> None:
    """``**`` also walks node_modules and hidden folders: then one glob per folder, and the file says why."""
    for n in range(9):
        _page(tmp_path / f"s{n}" / "index.html")
    _page(tmp_path / "node_modules" / "pkg" / "docs.html")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    globs = [f"s{n}/*.html" for n in range(9)]
    assert out.splitlines()[0] == (
        f"{tmp_path}/claim-evidence.toml: written (pages: {', '.join(globs)}; lang: ja from <html lang> of 9 pages)"
    )
    text = (tmp_path / "claim-evidence.toml").read_text(encoding="utf-8")
    assert text == _config(
        "pages = [\n" + "".join(f'    "{g}",\n' for g in globs) + "]",
        "9 HTML pages",
        "ja",
        "ja from <html lang> of 9 pages",
    ).replace(
        "(SH004).\n",
        '(SH004).\n# One glob per folder: "**/*.html" would also take pages under hidden folders or node_modules.\n',
    )
    assert load_config(tmp_path / "claim-evidence.toml").pages == tuple(globs)


def test_init_htm_and_upper_case_suffixes(run: Any, tmp_path: Path) -> None:
    """``Path.glob`` is case-sensitive: each spelling of the suffix gets its own glob, or the page is missed."""
    _page(tmp_path / "index.html")
    _page(tmp_path / "old.htm")
    _page(tmp_path / "LEGACY.HTML")
    _page(tmp_path / "only-htm" / "a.htm")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[0] == (
        f"{tmp_path}/claim-evidence.toml: written (pages: *.html, *.HTML, *.htm, only-htm/*.htm; lang: ja from <html lang> of 4 pages)"
    )
    config = load_config(tmp_path / "claim-evidence.toml")
    from claim_evidence._site.config import registered_pages

    assert [p.name for p in registered_pages(config)] == ["LEGACY.HTML", "index.html", "old.htm", "a.htm"]


def test_init_folder_names_with_glob_characters(run: Any, tmp_path: Path) -> None:
    _page(tmp_path / "[draft]" / "a.html")
    _page(tmp_path / "what?" / "b.html")
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert "pages: [[]draft]/*.html, what[?]/*.html;" in out
    from claim_evidence._site.config import registered_pages

    assert [p.name for p in registered_pages(load_config(tmp_path / "claim-evidence.toml"))] == ["a.html", "b.html"]


@pytest.mark.parametrize(
    ("langs", "lang", "reason"),
    [
        (["ja", "ja-JP", "JA"], "ja", "ja from <html lang> of 3 pages"),
        (["en-US", "en-GB", "ja"], "en", "en from <html lang> of 2 of 3 pages"),
        (["en", "ja"], "ja", "ja from <html lang> of 1 of 2 pages (tied with en; ties go to ja, then en)"),
        (["fr", "en"], "en", "en from <html lang> of 1 of 2 pages (tied with fr; ties go to ja, then en)"),
        (
            ["fr", "fr-CA", "en"],
            "ja",
            "ja (default: labels exist only in ja and en, and <html lang> of 2 of 3 pages says fr)",
        ),
        (["fr"], "ja", "ja (default: labels exist only in ja and en, and <html lang> of 1 page says fr)"),
        ([None, None], "ja", "ja (default: no <html lang> on 2 pages)"),
        (["en_US", None, ""], "en", "en from <html lang> of 1 of 3 pages"),
    ],
)
def test_init_lang_guess(run: Any, tmp_path: Path, langs: list[str | None], lang: str, reason: str) -> None:
    for n, value in enumerate(langs):
        _page(tmp_path / f"p{n}.html", value)
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[0] == f"{tmp_path}/claim-evidence.toml: written (pages: *.html; lang: {reason})"
    text = (tmp_path / "claim-evidence.toml").read_text(encoding="utf-8")
    assert f'# Guessed: {reason}.\nlang = "{lang}"\n' in text
    assert load_config(tmp_path / "claim-evidence.toml").options.lang == lang


def test_init_lang_read_by_the_tokenizer(run: Any, tmp_path: Path) -> None:
    """A ``<html lang>`` in a comment, a script or a template is not the document's; the first real one decides."""
    (tmp_path / "a.html").write_text(
        '<!-- <html lang="ja"> --><script>"<html lang=ja>"</script><template><html lang="ja"></template>'
        "<HTML Lang='en-US'><html lang=ja><p>x</p>",
        encoding="utf-8",
    )
    assert run("init", os.fspath(tmp_path))[1].splitlines()[0].endswith("lang: en from <html lang> of 1 page)")


def test_init_non_utf8_page_skipped_for_lang_but_registered(run: Any, tmp_path: Path) -> None:
    _page(tmp_path / "a.html", "en")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "sjis.html").write_bytes('<html lang="ja"><p>日本語</p>'.encode("shift_jis"))
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[0] == (
        f"{tmp_path}/claim-evidence.toml: written (pages: *.html, old/*.html; lang: en from <html lang> of 1 page; "
        "1 page skipped for lang: not readable as UTF-8)"
    )


def test_init_only_non_utf8_pages(run: Any, tmp_path: Path) -> None:
    (tmp_path / "a.html").write_bytes(b'<html lang="en">\xff')
    assert run("init", os.fspath(tmp_path))[1].splitlines()[0] == (
        f"{tmp_path}/claim-evidence.toml: written (pages: *.html; lang: ja (default: no page could be read as UTF-8); "
        "1 page skipped for lang: not readable as UTF-8)"
    )


def test_init_identical_stylesheet_up_to_date(run: Any, tmp_path: Path) -> None:
    _page(tmp_path / "index.html")
    css = tmp_path / "assets" / "claim-evidence.css"
    css.parent.mkdir()
    css.write_bytes(PACKAGED_CSS)
    before = css.stat().st_mtime_ns
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[1] == f"{css}: up to date"
    assert css.stat().st_mtime_ns == before


def test_init_different_stylesheet_left_alone(run: Any, tmp_path: Path) -> None:
    _page(tmp_path / "index.html")
    css = tmp_path / "assets" / "claim-evidence.css"
    css.parent.mkdir()
    css.write_bytes(b"/* the site's own edits */\n")
    before = css.stat().st_mtime_ns
    code, out, _ = run("init", os.fspath(tmp_path))
    assert code == 0
    assert out.splitlines()[1] == (
        f"{css}: left unchanged: it differs from the packaged stylesheet (init never overwrites; "
        f"claim-evidence assets --out {tmp_path}/assets replaces it)"
    )
    assert (css.read_bytes(), css.stat().st_mtime_ns) == (b"/* the site's own edits */\n", before)
    assert (tmp_path / "claim-evidence.toml").is_file()


def test_init_assets_file_in_the_way_writes_nothing(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _page(tmp_path / "index.html")
    (tmp_path / "assets").write_bytes(b"not a folder")
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    assert run("init") == (
        2,
        "",
        "claim-evidence: error: assets is a file, so the stylesheet cannot go there; move it, then run init again; nothing written\n",
    )
    assert _snapshot(tmp_path) == before


def test_init_same_bytes_in_two_fresh_copies(run: Any, tmp_path: Path) -> None:
    site = _site(tmp_path / "one")
    _page(site / "en" / "index.html", "en-US")
    (site / "old.htm").write_bytes(b"\x81\x40")
    shutil.copytree(site, tmp_path / "two")
    first = run("init", os.fspath(site))
    second = run("init", os.fspath(tmp_path / "two"))
    assert first[1].replace(os.fspath(site), "X") == second[1].replace(os.fspath(tmp_path / "two"), "X")
    for name in ("claim-evidence.toml", "assets/claim-evidence.css"):
        assert (site / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_init_help_says_what_and_never_overwrites(run: Any) -> None:
    code, out, _ = run("init", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "Usage: claim-evidence init [OPTIONS] [DIR]" in flat
    assert "Write a starter claim-evidence.toml for the site in DIR" in flat
    assert "It never overwrites: an existing claim-evidence.toml is refused (exit 2; edit it instead)" in flat
    assert "then run static-helper --write and claim-evidence prepublish" in flat
