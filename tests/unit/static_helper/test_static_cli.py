"""The static-helper command end to end: the real command in process (conftest's ``run_static``), files on disk,
one subprocess."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from static_helper.cli import main

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "static"
SITE = ROOT.parent / "shared" / "corpora" / "ai-news-site"
EVIDENCE_PAGES = [
    "about.html",
    "articles/claim-evidence-design.html",
    "presentations/day_slides/day_slide_2026_09_04.html",
]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("basic", "tricky"):
        shutil.copy(DATA / f"{name}_before.html", tmp_path / f"{name}.html")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def corpus() -> Path:
    if not SITE.is_dir():
        pytest.skip(
            f"optional: the existing site's pages are not at {SITE} (../shared beside the project); the vendored corpora cover the rest"
        )
    return SITE


def test_cli_corpus_pages_pass_unchanged(run_static: Any, monkeypatch):
    monkeypatch.chdir(corpus())
    # --no-cache: ../shared is read-only test data; nothing may be written there.
    code, out, _ = run_static(*EVIDENCE_PAGES, "presentations/ai_coding_agents_guide.html", "--no-cache")
    assert code == 0
    assert out.splitlines()[0] == "PASS about.html: 6 claims bound"
    assert "PASS presentations/day_slides/day_slide_2026_09_04.html: 47 claims bound" in out
    assert "PASS presentations/ai_coding_agents_guide.html: no evidence markup" in out
    assert out.splitlines()[-1] == "4 pages: 4 passed, 0 failed"


def test_cli_corpus_write_changes_nothing(run_static: Any, tmp_path, monkeypatch):
    copy = tmp_path / "site"
    shutil.copytree(corpus(), copy)
    before = {p: p.read_bytes() for p in copy.rglob("*.html")}
    monkeypatch.chdir(copy)
    assert run_static(".", "--write")[0] == 0
    assert {p: p.read_bytes() for p in copy.rglob("*.html")} == before


def test_cli_stale_pages_fail_with_locations(run_static: Any, site):
    code, out, _ = run_static("basic.html")
    assert (code, out) == (
        1,
        (
            "basic.html:43:5: SH140 [B-1] evidence display is stale (run --write after reviewing source data)\n"
            "basic.html:47:5: SH140 [B-2] evidence display is stale (run --write after reviewing source data)\n"
            "1 page: 0 passed, 1 failed\n"
        ),
    )


def test_cli_write_matches_golden_and_is_idempotent(run_static: Any, site):
    code, out, err = run_static("basic.html", "tricky.html", "--write")
    assert (
        code == 0
    )  # clean once the slots are re-rendered (ruff's --fix); --exit-non-zero-on-write: tests/acceptance/test_static_build.py
    assert err == "static-helper: rewrote 2 pages (exit 0: nothing left to report)\n"
    assert out == (
        "PASS basic.html: 2 claims bound, 2 evidence slots re-rendered\n"
        "PASS tricky.html: 3 claims bound, 3 evidence slots re-rendered\n"
        "2 pages: 2 passed, 0 failed\n"
    )
    for name in ("basic", "tricky"):
        assert (site / f"{name}.html").read_bytes() == (DATA / f"{name}_after.html").read_bytes()
    stamps = {p: p.stat().st_mtime_ns for p in site.glob("*.html")}
    os.utime(site / "basic.html", ns=(1, 1))
    assert run_static(".", "--write") == (
        0,
        out.replace(", 2 evidence slots re-rendered", "").replace(", 3 evidence slots re-rendered", ""),
        "",
    )
    assert (site / "basic.html").stat().st_mtime_ns == 1  # unchanged file is not rewritten
    assert (site / "tricky.html").stat().st_mtime_ns == stamps[site / "tricky.html"]
    # no temp or lock files (the cache folder of issue 6 is expected)
    assert sorted(p.name for p in site.iterdir() if p.name != ".claim-evidence-cache") == ["basic.html", "tricky.html"]


def test_cli_write_refuses_a_broken_page_structure(run_static: Any, site):
    """A claim with two slots (SH111): which one is its cannot be told, so --write leaves the page as it
    is and SH150 names the structure to fix first."""
    page = site / "basic.html"
    text = page.read_text(encoding="utf-8").replace("</main>", '<div data-evidence-for="B-1"></div>\n  </main>')
    page.write_text(text, encoding="utf-8")
    before = page.read_bytes()
    code, out, _ = run_static("basic.html", "--write")
    assert code == 1
    assert 'SH111 [B-1] exactly one evidence slot required for claim "B-1" (found 2)' in out
    assert "SH140 [B-2]" in out
    assert out.splitlines()[-2] == (
        'basic.html: SH150 not rewritten: fix SH111 (exactly one evidence slot required for claim "B-1") first; '
        "the page was left unchanged"
    )
    assert page.read_bytes() == before
    code, out, _ = run_static("basic.html")  # a check without --write says nothing about rewriting
    assert code == 1 and "SH150" not in out


def test_cli_write_fills_slots_of_a_page_missing_its_stylesheet(run_static: Any, site):
    """SH130 is not the slots' business: their content does not depend on the stylesheet link, so
    --write fills them (as the golden page shows them) and the run still fails on SH130."""
    page = site / "basic.html"
    link = '<link rel="stylesheet" href="/assets/claim-evidence.css?v=2">'
    page.write_text(page.read_text(encoding="utf-8").replace(link, ""), encoding="utf-8")
    code, out, _ = run_static("basic.html", "--write")
    assert code == 1
    assert "SH130 shared evidence stylesheet is missing" in out
    assert "SH140" not in out and "SH150" not in out
    assert page.read_text(encoding="utf-8") == (DATA / "basic_after.html").read_text(encoding="utf-8").replace(link, "")
    assert run_static("basic.html", "--write")[0] == 1  # nothing left to write; SH130 still fails


@pytest.mark.parametrize("what", ["shrinks", "link", "crlf"])
def test_cli_write_reports_findings_where_the_written_page_has_them(run_static: Any, site, what):
    """A stale block over several lines, rewritten as one, moves what follows it up: the --write run
    reports each finding (and the line SH130 names) where the file it wrote has it, as the next check
    does. (It reported the old lines, and a page whose SH130 link followed such a slot failed the
    rewrite's own proof, SH009.)"""
    from ..check.test_rewrite import _stale_pages

    for other in site.glob("*.html"):
        other.unlink()
    (site / "claim-evidence.toml").write_text('pages = ["p.html"]\n', encoding="utf-8")  # (SH130 names the line)
    (site / "p.html").write_bytes(dict(_stale_pages())[what].encode("utf-8"))
    code, written, err = run_static("--write", "--all-warnings")
    assert "SH009" not in written and "rewrote 1 page" in err
    again = run_static("--all-warnings")
    findings = [line for line in written.splitlines() if line.startswith("p.html:")]
    assert findings and findings == [line for line in again[1].splitlines() if line.startswith("p.html:")]
    assert code == again[0] == (1 if what == "link" else 0)
    assert (" at line " in written) == (what == "link")


def test_cli_write_never_leaves_readers_an_empty_slot(run_static: Any, site):
    """A claim whose sentence no longer matches its record: --write fills its slot with the safe 未確認 block
    (saying the page and the record disagree), renders the other claims as usual, and the run still fails."""
    page = site / "basic.html"
    text = page.read_text(encoding="utf-8").replace("毎日 <time>07:00 JST</time>", "毎日 <time>08:00 JST</time>")
    start = text.index('data-evidence-for="B-2"')
    start = text.index(">", start) + 1
    end = text.index("</aside>", start) + len("</aside>")
    page.write_text(text[:start] + text[end:], encoding="utf-8")  # a fresh build: the slot is empty
    code, out, _ = run_static("basic.html", "--write")
    assert code == 1
    assert "SH120 [B-2] body text differs from reviewed statement at character 5" in out and "SH150" not in out
    written = page.read_text(encoding="utf-8")
    at = written.index('data-evidence-for="B-2"')  # (the other stale slots were filled too: offsets moved)
    slot = written[at : written.index("</aside>", at)]
    assert '<span class="claim-evidence-status">未確認・根拠未登録</span>' in slot
    assert (
        '<p class="claim-evidence-warning">ページ上の文と根拠記録が一致しないため、照合状態を表示していません（未確認）。</p>'
        in slot
    )
    assert "資料との照合済み" not in slot
    code, out, _ = run_static("basic.html")
    assert code == 1 and "SH120" in out and "SH140" not in out  # the safe block is what the slot must show now
    page.write_text(written.replace("毎日 <time>08:00 JST</time>", "毎日 <time>07:00 JST</time>"), encoding="utf-8")
    code, out, _ = run_static("basic.html", "--write")  # the sentence fixed: the claim shows its reviewed status again
    fixed = page.read_text(encoding="utf-8")
    assert code == 0 and "ページ上の文と根拠記録が一致しない" not in fixed


def test_cli_write_keeps_symlink_and_mode(run_static: Any, site):
    target = site / "real.html"
    shutil.move(site / "basic.html", target)
    target.chmod(0o640)
    (site / "basic.html").symlink_to("real.html")
    assert run_static("basic.html", "--write")[0] == 0
    assert (site / "basic.html").is_symlink()
    assert target.read_bytes() == (DATA / "basic_after.html").read_bytes()
    assert target.stat().st_mode & 0o777 == 0o640


def test_cli_write_read_only_page_is_a_clear_error(run_static: Any, site):
    (site / "basic.html").chmod(0o444)
    code, out, _ = run_static("basic.html", "--write")
    assert code == 2
    assert "CE010 file is read-only; nothing was written: make it writable (chmod u+w) and run the command again" in out
    assert (site / "basic.html").read_bytes() == (DATA / "basic_before.html").read_bytes()


def test_cli_write_read_only_folder_is_a_clear_error(run_static: Any, site):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root can write into read-only folders")
    folder = site / "ro"
    folder.mkdir()
    shutil.move(site / "basic.html", folder / "basic.html")
    folder.chmod(0o555)
    try:
        code, out, _ = run_static("ro/basic.html", "--write")
    finally:
        folder.chmod(0o755)
    assert code == 2 and "CE010" in out


def test_cli_non_utf8_page_names_file_and_byte_offset(run_static: Any, site):
    (site / "latin1.html").write_bytes('<p data-claim-id="a">caf\u00e9</p>'.encode("latin-1"))
    code, out, _ = run_static("latin1.html")
    assert code == 2
    assert out.splitlines()[0] == "latin1.html:1:25: CE002 not UTF-8: byte 0xe9 at offset 24; re-save the file as UTF-8"


def test_cli_missing_file_exit_2(run_static: Any, site):
    code, out, _ = run_static("nope.html")
    assert code == 2
    assert out.splitlines()[0] == "nope.html: CE001 file not found"


def _write_config(site: Path, text: str) -> None:
    (site / "claim-evidence.toml").write_text(text, encoding="utf-8")


def test_cli_registered_pages_and_unregistered_markup(run_static: Any, site):
    _write_config(site, 'pages = ["basic.html"]\n')
    (site / "plain.html").write_text("<p>no markup</p>", encoding="utf-8")
    run_static("basic.html", "--write")
    code, out, _ = run_static()
    assert (code, out) == (
        1,
        (
            "PASS basic.html: 2 claims bound\n"
            'UNREGISTERED tricky.html: carries evidence markup but is not registered in claim-evidence.toml: add "*.html" to '
            "pages there (or, if it is a template, to exclude)\n"
            "2 pages: 1 passed, 0 failed, 1 unregistered\n"
        ),
    )


def test_cli_unregistered_page_suggests_its_folder_glob_and_the_config(
    run_static: Any, site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_config(site, 'pages = ["basic.html"]\n')
    (site / "drafts").mkdir()
    shutil.move(site / "tricky.html", site / "drafts" / "tricky.html")
    run_static("basic.html", "--write")
    monkeypatch.chdir(tmp_path.parent)
    code, out, _ = run_static("--config", str(site / "claim-evidence.toml"))
    shown = f"{site.name}/claim-evidence.toml"
    assert (
        code == 1
        and (
            f"UNREGISTERED {site.name}/drafts/tricky.html: carries evidence markup but is not registered in {shown}: "
            'add "drafts/*.html" to pages there (or, if it is a template, to exclude)\n'
        )
        in out
    )


def test_cli_unregistered_file_outside_web_root_suggests_exclude(run_static: Any, site: Path) -> None:
    """A generator's include carries markup with placeholders and is never served: exclude is its fix, not pages."""
    (site / "public").mkdir()
    shutil.move(site / "basic.html", site / "public" / "basic.html")
    (site / "_includes").mkdir()
    shutil.move(site / "tricky.html", site / "_includes" / "tricky.html")
    _write_config(site, 'pages = ["public/*.html"]\nweb_root = "public"\nstylesheet = false\n')
    code, out, _ = run_static()
    assert (
        code == 1
        and (
            "UNREGISTERED _includes/tricky.html: carries evidence markup but is not registered in claim-evidence.toml, and "
            'lies outside web_root (public), so the site does not serve it: if it is a template, add "_includes/*.html" to exclude there\n'
        )
        in out
    )


def test_cli_config_unknown_key_has_hint(run_static: Any, site):
    _write_config(site, 'pages = ["*.html"]\nstylsheet = "/x.css"\n')
    code, out, err = run_static()
    assert (code, out) == (2, "")
    assert (
        err == "static-helper: error: claim-evidence.toml: SH002 unknown key 'stylsheet' (did you mean 'stylesheet'?)\n"
    )


def test_cli_no_paths_and_no_config_is_usage_error(site):
    assert main([]) == 2


def test_cli_json_and_github_formats(run_static: Any, site):
    code, out, _ = run_static("basic.html", "--format", "json")
    payload = json.loads(out)
    assert code == 1
    assert payload["summary"] == "1 page: 0 passed, 1 failed"
    assert [(d["code"], d["line"], d["column"]) for d in payload["files"][0]["diagnostics"]] == [
        ("SH140", 43, 5),
        ("SH140", 47, 5),
    ]
    code, out, _ = run_static("basic.html", "--format", "github")
    assert out.splitlines()[0] == (
        "::error file=basic.html,line=43,col=5,title=SH140::$.claims[0]: evidence display is stale (run --write after reviewing source data)"
    )


def test_cli_parallel_jobs_same_result_as_serial(run_static: Any, site):
    for index in range(10):
        shutil.copy(DATA / "basic_after.html", site / f"page{index:02}.html")
    serial = run_static(".", "--jobs", "1")
    parallel = run_static(".", "--jobs", "2")
    assert serial == parallel
    assert serial[1].splitlines()[-1] == "12 pages: 10 passed, 2 failed"


def _write_worker(path: str) -> int:
    return main([path, "--write", "--exit-non-zero-on-write", "--jobs", "1"])


def test_cli_concurrent_writes_leave_a_valid_page(site):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        codes = pool.map(_write_worker, [str(site / "tricky.html")] * 8)
    assert sorted(codes) == [0] * 7 + [1]  # exactly one run changed the page
    assert (site / "tricky.html").read_bytes() == (DATA / "tricky_after.html").read_bytes()
    # no temp files left (the cache folder of issue 6 is expected)
    assert sorted(p.name for p in site.iterdir() if p.name != ".claim-evidence-cache") == ["basic.html", "tricky.html"]


def test_cli_python_m_subprocess(site):
    result = subprocess.run(
        [sys.executable, "-m", "static_helper", "basic.html", "--config", "missing.toml"],
        capture_output=True,
        text=True,
        cwd=site,
    )
    assert result.returncode == 2
    assert result.stderr == "static-helper: error: missing.toml: SH001 config file not found\n"
    assert "Traceback" not in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "static_helper", "basic.html"], capture_output=True, text=True, cwd=site
    )
    assert (result.returncode, result.stdout.splitlines()[-1]) == (1, "1 page: 0 passed, 1 failed")


def test_cli_both_command_lines_word_and_count_an_error_alike(site, capsys):
    """One error mapping: the same failing input gives the same line, apart from the program's name,
    and the same exit code, from static-helper and from claim-evidence."""
    from claim_evidence.cli import main as claim_evidence_main

    told = {}
    for prog, run in (("static-helper", main), ("claim-evidence", claim_evidence_main)):
        args = ["basic.html"] if prog == "static-helper" else ["prepublish"]
        code = run([*args, "--config", "missing.toml"])
        err = capsys.readouterr().err
        assert err.startswith(f"{prog}: error: "), err
        told[prog] = (code, err.removeprefix(prog))
        code = run([*args, "--jobs", "0"])  # a usage error: click's own words, its exit code
        err = capsys.readouterr().err
        told[prog + " usage"] = (code, err.splitlines()[-1])
    assert (
        told["static-helper"] == told["claim-evidence"] == (2, ": error: missing.toml: SH001 config file not found\n")
    )
    assert told["static-helper usage"] == told["claim-evidence usage"]
    assert told["claim-evidence usage"][0] == 2


def test_cli_bad_option_is_usage_error_without_traceback(site, capsys):
    assert main(["--jobs", "0"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_write_then_restored_stale_page_is_stale_again(run_static: Any, site):
    """Regression: --write cached its pass under the stale bytes it read, so a restored stale page passed."""
    assert run_static("basic.html", "--write")[0] == 0
    shutil.copy(DATA / "basic_before.html", site / "basic.html")
    code, out, _ = run_static("basic.html")
    assert (code, out.splitlines()[-1]) == (1, "1 page: 0 passed, 1 failed")
    assert "SH140" in out


def test_cli_unexpected_error_is_reported_without_traceback(tmp_path, monkeypatch, capsys):
    import static_helper.cli as cli_module

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli_module, "execute", broken)
    monkeypatch.delenv("CLAIM_EVIDENCE_DEBUG", raising=False)
    assert cli_module.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == "static-helper: internal error: RuntimeError: simulated bug (set CLAIM_EVIDENCE_DEBUG=1 for details)\n"
    )


class _Terminal:
    """A stand-in for stderr on a terminal: records what is written."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.written: list[str] = []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_progress_bar_only_on_a_terminal_for_big_runs(monkeypatch):
    from static_helper import cli

    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = _Terminal(tty=True)
    monkeypatch.setattr(cli.sys, "stderr", terminal)
    assert cli._progress_bar(cli.PROGRESS_MIN_PAGES - 1) is None
    show = cli._progress_bar(cli.PROGRESS_MIN_PAGES)
    assert show is not None
    show(1, 200)
    show(200, 200)
    assert terminal.written == ["\r1/200 pages checked", "\r200/200 pages checked\n"]
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli._progress_bar(1000) is None
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr(cli.sys, "stderr", _Terminal(tty=False))
    assert cli._progress_bar(1000) is None


def test_cli_folder_without_pages_is_exit_2(run_static: Any, tmp_path, monkeypatch):
    """A mistyped or empty folder must not pass a CI run as "0 pages: 0 passed"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a page", encoding="utf-8")
    code, out, err = run_static("empty")
    assert (code, out) == (2, "")
    assert (
        err
        == "static-helper: error: empty: SH006 no pages found under this folder (looked for *.html; hidden folders are skipped)\n"
    )


def test_cli_config_registering_no_pages_is_exit_2(run_static: Any, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claim-evidence.toml").write_text("pages = []\n", encoding="utf-8")
    code, out, err = run_static()
    assert (code, out) == (2, "")
    assert (
        err
        == 'static-helper: error: claim-evidence.toml: SH006 registers no pages: list them, e.g. pages = ["**/*.html"]\n'
    )


def test_cli_version(run_static: Any):
    import claim_evidence

    assert run_static("--version") == (0, f"static-helper, version {claim_evidence.__version__}\n", "")


def test_cli_cache_without_config_is_outside_the_checked_folder(run_static: Any, site, tmp_path_factory, monkeypatch):
    """Without claim-evidence.toml the cache goes to $XDG_CACHE_HOME/claim-evidence/sites/<key>/, never
    into the folder being checked (an rsync-style deploy would publish it)."""
    xdg = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    before = sorted(p.name for p in site.iterdir())
    shutil.copy(DATA / "basic_after.html", site / "basic.html")
    assert run_static("basic.html")[0] == 0
    assert sorted(p.name for p in site.iterdir()) == before
    sites = list((xdg / "claim-evidence" / "sites").iterdir())
    assert len(sites) == 1 and len(sites[0].name) == 16
    code, out, err = run_static("basic.html", "--stats")
    assert (code, err.splitlines()[-1]) == (0, "static-helper stats: pages=1 checked=0 cached=1")


def test_cli_marked_page_without_bundle_names_claim_add(run_static: Any, site: Path) -> None:
    (site / "new page.html").write_text(
        '<p data-claim-id="A-1">a</p>\n<p data-claim-id="B-2">b</p>\n<p data-claim-id="A-1">a</p>\n', encoding="utf-8"
    )
    code, out, _ = run_static("new page.html")
    assert code == 1 and out.splitlines()[0] == (
        "new page.html:1:1: SH101 exactly one script#claim-evidence-data is required (found 0): the page marks claims with "
        "data-claim-id but has no evidence bundle yet; add their records with claim-evidence claim add 'new page.html' --id A-1 "
        "(--all adds all 2 marked claims)"
    )


@pytest.mark.parametrize(
    "body",
    [
        '<div data-evidence-for="A-1"></div>\n',  # no claim element: nothing for claim add to read
        '<p data-claim-id="A-1">a</p>\n<!-- <script type="application/json" id="claim-evidence-data">{}</script> -->\n',  # written, but no element
    ],
)
def test_cli_sh101_without_claim_add_advice(run_static: Any, site: Path, body: str) -> None:
    (site / "p.html").write_text(body, encoding="utf-8")
    code, out, _ = run_static("p.html")
    assert code == 1 and "p.html:1:1: SH101 exactly one script#claim-evidence-data is required (found 0)\n" in out


def test_cli_page_over_the_size_limit_names_no_option_it_lacks(run_static: Any, site: Path) -> None:
    """CE004 said "raise --max-bytes", which only claim-evidence validate has."""
    with open(site / "huge.html", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: refused from its size alone
    code, out, _ = run_static("--no-cache", "huge.html")
    assert code == 2
    assert out.splitlines()[0] == "huge.html: CE004 file is 52428800 bytes, over the 33554432-byte limit; split it"
