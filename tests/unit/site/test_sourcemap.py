"""Where a finding on a built page is written: ``source_line`` (shared with the generator plugins),
``place_findings`` over the ``sources`` globs, the reporters' forms of it, and the two command lines."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from claim_evidence import Diagnostic, FileResult, dumps_for_script, render_evidence, report
from claim_evidence._site import sourcemap as _sourcemap
from claim_evidence._site.sourcemap import (
    SourceFiles,
    claim_of,
    place_findings,
    place_in_sources,
    shown_from,
    source_line,
)
from claim_evidence.cli import main as claim_evidence_main
from static_helper.cli import main as static_helper_main

from ...acceptance.test_recipes import CLAIM, STATEMENT, sealed_bundle
from ...conftest import ROOT

EDITED = STATEMENT.replace("記録", "計測")
BUNDLE = sealed_bundle()
SLOT = render_evidence(BUNDLE, [CLAIM])
SARIF_SCHEMA_FILE = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
MARKDOWN = f"""---
title: 計測について
---
<p data-claim-id="{CLAIM}">{STATEMENT}</p>
<div data-evidence-for="{CLAIM}"></div>

{{{{< claim-evidence-data "about" >}}}}
"""
# The Markdown above, built (``built_page``): the claim element on line 8, its slot on line 9.
PAGE_LINES = 8


def built_page(statement: str = STATEMENT, bundle: dict[str, Any] = BUNDLE, stylesheet: bool = True) -> str:
    link = '<link rel="stylesheet" href="/assets/claim-evidence.css">\n' if stylesheet else ""
    return (
        f'<!doctype html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n<title>t</title>\n{link}</head>\n'
        f'<body><p data-claim-id="{CLAIM}">{statement}</p>\n<div data-evidence-for="{CLAIM}">{render_evidence(bundle, [CLAIM])}</div>\n'
        f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n</body>\n</html>\n'
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A generator's project: content/about.md and its built page public/about/index.html (passing),
    the config at the root with ``sources``; the working folder is the project."""
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "about.md").write_text(MARKDOWN, encoding="utf-8")
    (tmp_path / "public" / "about").mkdir(parents=True)
    (tmp_path / "public" / "about" / "index.html").write_text(built_page(), encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text(
        'pages = ["public/**/*.html"]\nsources = ["content/**/*.md"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def claim_finding(
    code: str = "SH120", rid: str = CLAIM, severity: str = "error", file: str | None = None
) -> Diagnostic:
    return Diagnostic(
        code,
        "body text differs",
        "$.claims[0].statement",
        severity,
        f"claim {rid}",
        file=file,
        line=PAGE_LINES,
        column=7,
    )  # type: ignore[arg-type]


def page_finding(code: str = "SH130", severity: str = "error") -> Diagnostic:
    return Diagnostic(code, "page does not link the stylesheet", "$", severity, "page", line=1, column=1)  # type: ignore[arg-type]


def place(site: Path, *diagnostics: Diagnostic, patterns: tuple[str, ...] = ("content/**/*.md",)) -> list[Diagnostic]:
    results = [FileResult("public/about/index.html", list(diagnostics))]
    return place_in_sources(results, site, patterns)[0].diagnostics


# --- source_line: the line in a source known to hold the markup (the plugins' case) -------------


def test_sourcemap_source_line_claim_at_its_claim_element() -> None:
    assert source_line(MARKDOWN, claim_finding()) == 4


def test_sourcemap_source_line_claim_falls_back_to_its_slot() -> None:
    text = f'intro\n\n<div data-evidence-for="{CLAIM}"></div>\n'
    assert source_line(text, claim_finding()) == 3


def test_sourcemap_source_line_page_finding_at_the_bundle_else_the_first_markup() -> None:
    assert source_line(MARKDOWN, page_finding()) == 7
    without_bundle = MARKDOWN.replace('{{< claim-evidence-data "about" >}}', "")
    assert source_line(without_bundle, page_finding()) == 4


def test_sourcemap_source_line_record_finding_at_its_json_line_in_the_script() -> None:
    """A record's finding (CE… with a JSON path) goes where ``review record`` writes: the path's line in the
    bundle script the source holds (a Markdown script as written; a reST raw directive, indented)."""
    script = (
        f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(BUNDLE, indent=2)}\n</script>\n'
    )
    source = f'<p data-claim-id="{CLAIM}">{STATEMENT}</p>\n\n{script}'
    seal = Diagnostic(
        "CE403", "review fingerprint does not match", "$.claims[0].verification.fingerprint", "error", f"claim {CLAIM}"
    )
    lines = source.splitlines()
    assert source_line(source, seal) == next(i for i, line in enumerate(lines, 1) if '"fingerprint"' in line)
    rst = ".. raw:: html\n\n" + textwrap.indent(source, "   ")
    assert source_line(rst, seal) == next(i for i, line in enumerate(rst.splitlines(), 1) if '"fingerprint"' in line)
    # another script whose id only starts the same is not the bundle's
    other = source.replace('id="claim-evidence-data"', 'id="claim-evidence-data-old"')
    assert source_line(other, seal) == 1
    assert source_line(source.replace(' id="claim-evidence-data"', ' data-id="claim-evidence-data"'), seal) == 1
    # no script written in the source (a shortcode includes it), or one that is no JSON: the claim's line
    assert source_line(MARKDOWN, seal) == 4
    assert source_line(source.replace(dumps_for_script(BUNDLE, indent=2), "@BUNDLE@"), seal) == 1


def test_sourcemap_source_line_none_when_the_source_does_not_hold_it() -> None:
    assert source_line("# a page\n\nno markup\n", claim_finding()) is None
    assert source_line("# a page\n\nno markup\n", page_finding()) is None


@pytest.mark.parametrize(
    "written",
    [
        f"<p data-claim-id='{CLAIM}'>",
        f"<p data-claim-id={CLAIM}>",
        f'<p DATA-CLAIM-ID = "{CLAIM}">',
        f"<p data-claim-id={CLAIM} class=x>",
    ],
)
def test_sourcemap_source_line_reads_every_attribute_form(written: str) -> None:
    assert source_line(f"a\nb\n{written}x</p>\n", claim_finding()) == 3


def test_sourcemap_source_line_never_takes_a_longer_id_for_the_claim() -> None:
    text = f'<p data-claim-id="{CLAIM}-2">x</p>\n<p data-claim-id="{CLAIM}">y</p>\n'
    assert source_line(text, claim_finding()) == 2


def test_sourcemap_claim_of_reads_the_subject() -> None:
    assert claim_of(claim_finding()) == CLAIM
    assert claim_of(Diagnostic("CE403", "m", subject=f"article https://example.com/a, claim {CLAIM}")) == CLAIM
    assert [
        claim_of(Diagnostic("X", "m", subject=s)) for s in ("page", "source lab-log", "claim", "claim_evidence")
    ] == [None] * 4


def test_sourcemap_plugins_use_the_one_implementation() -> None:
    from claim_evidence.integrations import _built

    assert not hasattr(_built, "source_line") and not hasattr(_built, "_attribute")
    for name in ("mkdocs", "sphinx", "pelican"):
        text = (ROOT / "claim_evidence" / "integrations" / f"{name}.py").read_text(encoding="utf-8")
        assert "from .._site.sourcemap import source_line\n" in text, name


# --- place_findings: which source, from the sources globs ---------------------------------------


def test_sourcemap_claim_finding_is_placed_in_the_one_source_holding_it(site: Path) -> None:
    (found,) = place(site, claim_finding())
    assert found.written == (("content/about.md", 4),)
    assert found == claim_finding()  # nothing else changes (``written`` is no part of the finding's identity)


def test_sourcemap_claim_in_two_sources_names_both_and_chooses_neither(site: Path) -> None:
    (site / "content" / "posts").mkdir()
    (site / "content" / "posts" / "again.md").write_text("x\n" + MARKDOWN, encoding="utf-8")
    (found,) = place(site, claim_finding())
    assert found.written == (("content/about.md", 4), ("content/posts/again.md", 5))


def test_sourcemap_claim_in_no_source_is_left_as_it_was(site: Path) -> None:
    (found,) = place(site, claim_finding(rid="elsewhere"))
    assert found.written == ()


def test_sourcemap_claim_written_only_as_a_slot_is_placed_at_the_slot(site: Path) -> None:
    (site / "content" / "about.md").write_text(
        f'# t\n\n{{{{< claim {CLAIM} >}}}}\n<div data-evidence-for="{CLAIM}"></div>\n', encoding="utf-8"
    )
    (found,) = place(site, claim_finding())
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_a_claim_element_wins_over_slots_elsewhere(site: Path) -> None:
    """A template that writes the slot for the id does not make the claim ambiguous."""
    (site / "layouts").mkdir()
    (site / "layouts" / "slot.html").write_text(f'<div data-evidence-for="{CLAIM}"></div>\n', encoding="utf-8")
    (found,) = place(site, claim_finding(), patterns=("content/**/*.md", "layouts/*.html"))
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_page_finding_is_placed_in_the_source_holding_the_page_claims(site: Path) -> None:
    (site / "layouts").mkdir()  # a layout holds no claim of the page: not a candidate
    (site / "layouts" / "single.html").write_text(
        '<script id="claim-evidence-data">{{ .Content }}</script>\n', encoding="utf-8"
    )
    (found,) = place(site, page_finding(), patterns=("content/**/*.md", "layouts/*.html"))
    assert found.written == (("content/about.md", 7),)


def test_sourcemap_page_finding_with_claims_in_two_sources_names_both(site: Path) -> None:
    (site / "content" / "again.md").write_text(MARKDOWN, encoding="utf-8")
    (found,) = place(site, page_finding())
    assert found.written == (("content/about.md", 7), ("content/again.md", 7))


def test_sourcemap_page_finding_on_a_page_that_cannot_be_read_is_left_as_it_was(site: Path) -> None:
    results = [FileResult("public/gone.html", [page_finding()])]
    assert place_in_sources(results, site, ("content/**/*.md",))[0].diagnostics[0].written == ()


def test_sourcemap_notes_and_findings_about_files_are_not_placed(site: Path) -> None:
    unplaced = [
        claim_finding(severity="note"),
        Diagnostic("CE999", "internal error", subject="file", file="public/about/index.html"),
        Diagnostic("SH007", "no page carries evidence", subject="config", file="claim-evidence.toml"),
        claim_finding(file="data/evidence/about.json"),  # a finding on another file than the page
    ]
    assert [d.written for d in place(site, *unplaced)] == [()] * 4
    unreadable = [FileResult("public/about/index.html", [claim_finding()], status="unreadable")]
    assert place_in_sources(unreadable, site, ("content/**/*.md",))[0].diagnostics[0].written == ()


def test_sourcemap_warnings_are_placed_like_errors(site: Path) -> None:
    (found,) = place(site, claim_finding(severity="warning"))
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_a_page_the_run_checked_is_never_a_source(site: Path) -> None:
    """A glob over everything also matches the built page, which holds the claim too: left out."""
    (found,) = place(site, claim_finding(), patterns=("**/*.md", "**/*.html"))
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_source_that_is_not_utf8_or_not_a_file_is_skipped(site: Path) -> None:
    (site / "content" / "latin1.md").write_bytes(f'<p data-claim-id="{CLAIM}">caf\xe9</p>\n'.encode("latin-1"))
    (site / "content" / "folder.md").mkdir()
    os.mkfifo(site / "content" / "pipe.md")  # opening it would block: never opened
    (site / "content" / "dangling.md").symlink_to(site / "missing.md")
    (found,) = place(site, claim_finding())
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_utf8_bom_is_not_counted(site: Path) -> None:
    (site / "content" / "about.md").write_bytes(b"\xef\xbb\xbf" + MARKDOWN.encode("utf-8"))
    (found,) = place(site, claim_finding())
    assert found.written == (("content/about.md", 4),)


def test_sourcemap_nothing_is_read_or_globbed_without_a_finding_to_place(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("read without a finding to place")

    monkeypatch.setattr(_sourcemap, "_read", refuse)
    monkeypatch.setattr(Path, "glob", refuse)
    clean = [FileResult("public/about/index.html", []), FileResult("public/b.html", [claim_finding(severity="note")])]
    sources = SourceFiles(site, ("content/**/*.md",))
    assert place_findings(clean, sources, str, refuse) == clean


def test_sourcemap_each_source_is_read_once(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    read = _sourcemap._read

    def counted(path: str) -> str | None:
        reads.append(path)
        return read(path)

    monkeypatch.setattr(_sourcemap, "_read", counted)
    found = place(site, claim_finding(), claim_finding("SH140"), page_finding(), claim_finding(rid="other"))
    assert [d.written for d in found] == [
        (("content/about.md", 4),),
        (("content/about.md", 4),),
        (("content/about.md", 7),),
        (),
    ]
    assert reads == [os.path.realpath(site / "content" / "about.md")]


def test_sourcemap_sources_outside_the_working_folder_are_named_from_it(tmp_path: Path) -> None:
    shown = shown_from(str(tmp_path / "_site"))
    assert shown(str(tmp_path / "about.md")) == "../about.md"
    assert shown(str(tmp_path / "_site" / "x" / "a.md")) == "x/a.md"


# --- the reporters ------------------------------------------------------------------------------

ONE = (("content/about.md", 4),)
FIVE = tuple((f"content/p{i}.md", i) for i in range(1, 6))


def results_with(written: tuple[tuple[str, int], ...]) -> list[FileResult]:
    d = Diagnostic(
        "SH120",
        "body text differs",
        "$.claims[0].statement",
        "error",
        f"claim {CLAIM}",
        line=7,
        column=7,
        written=written,
    )
    return [FileResult("public/about/index.html", [d])]


def test_sourcemap_text_report_puts_the_place_under_the_finding() -> None:
    assert report(results_with(ONE), "text", noun="page") == (
        "public/about/index.html:7:7: SH120 [latency] body text differs\n    written at content/about.md:4\n1 page: 0 passed, 1 failed\n"
    )


def test_sourcemap_text_report_names_three_sources_and_counts_the_rest() -> None:
    assert report(results_with(FIVE), "text", noun="page").splitlines()[1] == (
        "    written in 5 sources: content/p1.md:1, content/p2.md:2, content/p3.md:3 and 2 more"
    )
    assert (
        report(results_with(FIVE[:2]), "text", noun="page").splitlines()[1]
        == "    written in 2 sources: content/p1.md:1, content/p2.md:2"
    )


def test_sourcemap_json_report_adds_written_at_only_to_a_placed_finding() -> None:
    (placed,) = json.loads(report(results_with(ONE), "json"))["files"][0]["diagnostics"]
    assert placed["written_at"] == [{"file": "content/about.md", "line": 4}]
    assert (placed["file"], placed["line"], placed["column"]) == ("public/about/index.html", 7, 7)
    (plain,) = json.loads(report(results_with(()), "json"))["files"][0]["diagnostics"]
    assert "written_at" not in plain


def test_sourcemap_github_report_annotates_the_one_source() -> None:
    lines = report(results_with(ONE), "github").splitlines()
    assert (
        lines[0]
        == "::error file=content/about.md,line=4,title=SH120::$.claims[0].statement: body text differs (built page public/about/index.html:7:7)"
    )
    lines = report(results_with(FIVE[:2]), "github").splitlines()
    assert lines[0] == (
        "::error file=public/about/index.html,line=7,col=7,title=SH120::$.claims[0].statement: body text differs "
        "(written in 2 sources: content/p1.md:1, content/p2.md:2)"
    )
    assert report(results_with(()), "github").splitlines()[0] == (
        "::error file=public/about/index.html,line=7,col=7,title=SH120::$.claims[0].statement: body text differs"
    )


def sarif_errors(log: dict[str, Any]) -> list[str]:
    schema = json.loads(SARIF_SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def test_sourcemap_sarif_report_locates_the_finding_in_the_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (result,) = json.loads(report(results_with(ONE), "sarif"))["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "content/about.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 4, "startColumn": 1},
    }
    assert result["relatedLocations"] == [
        {
            "id": 0,
            "physicalLocation": {
                "artifactLocation": {"uri": "public/about/index.html", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 7, "startColumn": 7},
            },
            "message": {"text": "built page"},
        }
    ]
    (ambiguous,) = json.loads(report(results_with(FIVE[:2]), "sarif"))["runs"][0]["results"]
    assert ambiguous["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "public/about/index.html"
    assert [
        (r["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"]) for r in ambiguous["relatedLocations"]
    ] == [
        ("content/p1.md", "written here"),
        ("content/p2.md", "written here"),
    ]
    (plain,) = json.loads(report(results_with(()), "sarif"))["runs"][0]["results"]
    assert "relatedLocations" not in plain
    for written in (ONE, FIVE[:2], (("../about.md", 5),)):
        assert sarif_errors(json.loads(report(results_with(written), "sarif"))) == []


# --- the command lines --------------------------------------------------------------------------


def edit_built_page(site: Path, statement: str = EDITED) -> None:
    (site / "public" / "about" / "index.html").write_text(built_page(statement), encoding="utf-8")


SH120 = (
    f"public/about/index.html:{PAGE_LINES}:7: SH120 [latency] body text differs from reviewed statement at character 22: "
    f'page "{EDITED}" / statement "{STATEMENT}"\n'
)
SH140 = (
    f"public/about/index.html:{PAGE_LINES + 1}:1: SH140 [latency] evidence display must now show the claim as unverified: the page "
    "and its record disagree (see SH110/SH120 for it); --write puts the 未確認 block in this slot, and the check fails until the "
    "sentence or the record is fixed\n"
)
WRITTEN = "    written at content/about.md:4\n"


def test_sourcemap_static_helper_names_the_source_line(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_built_page(site)
    assert static_helper_main(["--no-cache", "--jobs", "1"]) == 1
    assert capsys.readouterr().out == SH120 + WRITTEN + SH140 + WRITTEN + "1 page: 0 passed, 1 failed\n"


def test_sourcemap_static_helper_paths_use_the_config_sources_too(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_built_page(site)
    assert static_helper_main(["--no-cache", "--jobs", "1", "public/about/index.html"]) == 1
    assert "\n    written at content/about.md:4\n" in capsys.readouterr().out


def test_sourcemap_static_helper_without_sources_says_nothing_more(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (site / "claim-evidence.toml").write_text('pages = ["public/**/*.html"]\n', encoding="utf-8")
    edit_built_page(site)
    assert static_helper_main(["--no-cache", "--jobs", "1"]) == 1
    assert capsys.readouterr().out == SH120 + SH140 + "1 page: 0 passed, 1 failed\n"


def test_sourcemap_static_helper_clean_run_and_cache_hits_read_no_source(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: str) -> None:
        raise AssertionError(f"read {path} on a clean run")

    monkeypatch.setattr(_sourcemap, "_read", refuse)
    monkeypatch.setattr(_sourcemap, "read_page", refuse)
    cache = ["--cache-dir", str(site / "cache"), "--stats", "--jobs", "1"]
    assert static_helper_main(cache) == 0
    assert static_helper_main(cache) == 0
    captured = capsys.readouterr()
    assert captured.out == "PASS public/about/index.html: 1 claim bound\n1 page: 1 passed, 0 failed\n" * 2
    assert captured.err.splitlines() == [
        "static-helper stats: pages=1 checked=1 cached=0",
        "static-helper stats: pages=1 checked=0 cached=1",
    ]


def test_sourcemap_static_helper_page_on_stdin_places_claim_findings(
    site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BytesIO(built_page(EDITED, stylesheet=False).encode("utf-8")))
    )
    assert static_helper_main(["-"]) == 1
    out = capsys.readouterr().out
    assert f"<stdin>:{PAGE_LINES - 1}:7: SH120 [latency] " in out and f"<stdin>:{PAGE_LINES}:1: SH140 [latency] " in out
    assert out.count(f"\n{WRITTEN}") == 2
    # The page on stdin is on no disk: its finding about the whole page (SH130) stays unplaced.
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if " SH130 " in line)
    assert not lines[at + 1].startswith("    written")


def test_sourcemap_prepublish_names_the_source_line(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_built_page(site)
    assert claim_evidence_main(["prepublish", "--jobs", "1"]) == 1
    assert capsys.readouterr().out == (
        "ERROR public/about/index.html\n" + SH120 + WRITTEN + SH140 + WRITTEN + "1 target: 0 passed, 1 failed\n"
    )


def test_sourcemap_prepublish_format_json_has_written_at(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_built_page(site)
    assert claim_evidence_main(["prepublish", "--jobs", "1", "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert [(d["code"], d["line"], d["written_at"]) for d in findings] == [
        ("SH120", PAGE_LINES, [{"file": "content/about.md", "line": 4}]),
        ("SH140", PAGE_LINES + 1, [{"file": "content/about.md", "line": 4}]),
    ]


def test_sourcemap_warning_from_the_cache_is_placed_as_a_fresh_one(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache keeps passing results with their warnings, never where they are written: a cache
    hit is placed at report time, so the output is the same whether the page was checked or not."""
    bundle = sealed_bundle()
    bundle["claims"][0]["zzz_note"] = "x"  # an unknown key: a warning (CE900), and the page passes
    (site / "public" / "about" / "index.html").write_text(built_page(bundle=bundle), encoding="utf-8")
    cache = ["--cache-dir", str(site / "cache"), "--stats", "--jobs", "1"]
    assert static_helper_main(cache) == 0
    first = capsys.readouterr()
    assert static_helper_main(cache) == 0
    second = capsys.readouterr()
    assert "CE900 [latency] unknown key 'zzz_note' (warning)\n    written at content/about.md:4\n" in first.out
    assert second.out == first.out
    assert second.err == "static-helper stats: pages=1 checked=0 cached=1\n"


# --- a record's findings: in the data file holding the page's bundle JSON -----------------------

DATA_GLOBS = ("content/**/*.md", "data/**/*.json")
REVIEW_HINT = "record the review with `claim-evidence review record {} --claim latency --method … --checked-at …`"


def seal_finding() -> Diagnostic:
    return Diagnostic(
        "CE403",
        "review fingerprint does not match current statement/conditions/sources",
        "$.claims[0].verification.fingerprint",
        "error",
        f"claim {CLAIM}",
        line=40,
        column=9,
    )


def stale_finding(page: str = "public/about/index.html") -> Diagnostic:
    diff = f"see what changed with `claim-evidence review diff {page} --claim latency`, "  # named like the record's
    message = "evidence display is stale … (CE403). " + diff + "read the sources again, " + REVIEW_HINT.format(page)
    return Diagnostic("SH140", message, "$.claims[0]", "error", f"claim {CLAIM}", line=PAGE_LINES + 1, column=1)


def write_data(site: Path, name: str, text: str) -> Path:
    path = site / "data" / "evidence" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def test_sourcemap_record_finding_is_placed_at_its_json_path_in_the_data_file(site: Path) -> None:
    """The page's bundle JSON is the data file's text (the recipes insert it verbatim): CE403 goes to the
    fingerprint's line there, SH140 stays at the Markdown and its command names the data file."""
    data = write_data(site, "about.json", "\n" + dumps_for_script(BUNDLE) + "\n")
    seal, stale = place(site, seal_finding(), stale_finding(), patterns=DATA_GLOBS)
    assert seal.written == (("data/evidence/about.json", line_of(data, '"fingerprint"')),)
    assert stale.written == (("content/about.md", 4),)
    assert REVIEW_HINT.format("data/evidence/about.json") in stale.message
    assert stale.message == stale_finding().message.replace("public/about/index.html", "data/evidence/about.json")
    assert "review diff data/evidence/about.json --claim latency`" in stale.message


def test_sourcemap_record_finding_found_as_the_same_json_value(site: Path) -> None:
    """A template that re-serialized the file (another indentation): the JSON source with the same value."""
    data = write_data(site, "about.json", json.dumps(BUNDLE, ensure_ascii=False, indent=4))
    write_data(site, "other.json", json.dumps({**BUNDLE, "version": 2}))
    (seal,) = place(site, seal_finding(), patterns=DATA_GLOBS)
    assert seal.written == (("data/evidence/about.json", line_of(data, '"fingerprint"')),)


def test_sourcemap_record_in_two_data_files_names_both_and_the_hint_names_the_page(site: Path) -> None:
    first = write_data(site, "about.json", dumps_for_script(BUNDLE))
    second = write_data(site, "copy.json", "\n\n" + dumps_for_script(BUNDLE))
    seal, stale = place(site, seal_finding(), stale_finding(), patterns=DATA_GLOBS)
    fingerprint = line_of(first, '"fingerprint"')
    assert seal.written == (("data/evidence/about.json", fingerprint), ("data/evidence/copy.json", fingerprint + 2))
    assert line_of(second, '"fingerprint"') == fingerprint + 2
    assert stale.message == stale_finding().message


def test_sourcemap_record_finding_without_its_data_file_stays_with_the_claim(site: Path) -> None:
    write_data(site, "about.json", dumps_for_script(BUNDLE))
    seal, stale = place(site, seal_finding(), stale_finding())  # data/ not in the globs
    assert (seal.written, stale.written) == ((("content/about.md", 4),), (("content/about.md", 4),))
    assert stale.message == stale_finding().message


def test_sourcemap_data_file_that_is_not_json_or_not_utf8_is_no_record(site: Path) -> None:
    write_data(site, "broken.json", "{not json")
    (site / "data" / "evidence" / "latin1.json").write_bytes(b'{"caf\xe9": 1}')
    (seal,) = place(site, seal_finding(), patterns=DATA_GLOBS)
    assert seal.written == (("content/about.md", 4),)


def test_sourcemap_record_written_in_the_markdown_is_placed_at_its_json_line(site: Path) -> None:
    """A Markdown source holding the bundle script itself (no data file): the record's finding goes to the
    fingerprint's line in it, and `review record` is aimed at it."""
    about = site / "content" / "about.md"
    script = f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(BUNDLE)}</script>'
    about.write_text(MARKDOWN.replace('{{< claim-evidence-data "about" >}}', script), encoding="utf-8")
    seal, stale = place(site, seal_finding(), stale_finding())
    assert seal.written == (("content/about.md", line_of(about, '"fingerprint"')),)
    assert REVIEW_HINT.format("content/about.md") in stale.message and stale.written == (("content/about.md", 4),)
