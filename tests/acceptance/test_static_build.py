"""static-helper inside a site generator's build: ``--write`` after a fresh build, ``-`` as a pipe, start-up.

A generator writes every page with empty evidence slots, so every slot is stale
after a build and ``build && static-helper --write && deploy`` must go on once
the slots are filled (ruff's ``--fix``); the pre-commit hook keeps the formatter
convention with ``--exit-non-zero-on-write``. The built pages here are the
golden ``*_after.html`` pages with their slots emptied, so the rewrite must give
the golden bytes back exactly.
"""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from claim_evidence.cli import main as claim_evidence_main
from static_helper import locate
from static_helper.cli import main

from .test_hooks import hooks

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "static"
BOM = b"\xef\xbb\xbf"
REWRITTEN = (
    "PASS basic.html: 2 claims bound, 2 evidence slots re-rendered\n"
    "PASS tricky.html: 3 claims bound, 3 evidence slots re-rendered\n"
    "2 pages: 2 passed, 0 failed\n"
)
CLEAN = "PASS basic.html: 2 claims bound\nPASS tricky.html: 3 claims bound\n2 pages: 2 passed, 0 failed\n"
STALE = "evidence display is stale (run --write after reviewing source data)"


def golden(name: str) -> bytes:
    return (DATA / f"{name}_after.html").read_bytes()


def built(name: str, newline: str = "\n", bom: bool = False) -> bytes:
    """The golden page as a generator writes it: every evidence slot empty."""
    text = golden(name).decode("utf-8")
    for slot in sorted(locate(text).slots, key=lambda s: s.open_end, reverse=True):
        text = text[: slot.open_end] + text[slot.close_start :]
    return (BOM if bom else b"") + text.replace("\n", newline).encode("utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A freshly built output folder: two pages, every slot empty; the cache outside it."""
    out = tmp_path / "public"
    out.mkdir()
    for name in ("basic", "tricky"):
        (out / f"{name}.html").write_bytes(built(name))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(out)
    return out


def feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# --- --write after a fresh build --------------------------------------------------------


def test_static_build_fresh_build_has_only_stale_slots(site, capsys):
    assert main(["."]) == 1
    out = capsys.readouterr().out
    assert [line.split(": ", 1)[1] for line in out.splitlines()[:-1]] == [
        f"SH140 [{i}] {STALE}" for i in ("B-1", "B-2", "T-1", "T-2", "T-3")
    ]


def test_static_build_write_exits_0_when_everything_is_clean_after_writing(site, capsys):
    assert main([".", "--write"]) == 0  # was 1: build && static-helper --write && deploy stopped here
    assert capsys.readouterr() == (REWRITTEN, "static-helper: rewrote 2 pages (exit 0: nothing left to report)\n")
    assert [(site / f"{name}.html").read_bytes() for name in ("basic", "tricky")] == [golden("basic"), golden("tricky")]
    assert main([".", "--write"]) == 0
    assert capsys.readouterr() == (CLEAN, "")


def test_static_build_exit_non_zero_on_write_keeps_the_formatter_exit(site, capsys):
    assert main([".", "--write", "--exit-non-zero-on-write"]) == 1
    assert capsys.readouterr() == (REWRITTEN, "static-helper: rewrote 2 pages (exit 1: files changed)\n")
    assert (site / "tricky.html").read_bytes() == golden("tricky")
    assert main([".", "--write", "--exit-non-zero-on-write"]) == 0  # nothing changed this time
    assert capsys.readouterr() == (CLEAN, "")


def test_static_build_write_with_findings_left_exits_1_in_both_modes(site, capsys):
    page = site / "basic.html"
    page.write_bytes(
        page.read_bytes().replace(b"</main>", b'<div data-evidence-for="B-1"></div></main>')
    )  # SH111, a broken structure: not --write's to fix
    for flags, reason in (
        ([], "findings remain"),
        (["--exit-non-zero-on-write"], "files changed, and findings remain"),
    ):
        (site / "tricky.html").write_bytes(built("tricky"))
        assert main([".", "--write", *flags]) == 1
        out, err = capsys.readouterr()
        assert 'basic.html: SH150 not rewritten: fix SH111 (exactly one evidence slot required for claim "B-1")' in out
        assert out.endswith(
            "PASS tricky.html: 3 claims bound, 3 evidence slots re-rendered\n2 pages: 1 passed, 1 failed\n"
        )
        assert err == f"static-helper: rewrote 1 page (exit 1: {reason})\n"


def test_static_build_write_that_fails_says_exit_2(site, capsys):
    (site / "basic.html").chmod(0o444)
    assert main([".", "--write"]) == 2
    out, err = capsys.readouterr()
    assert "basic.html: CE010 file is read-only" in out
    assert err == "static-helper: rewrote 1 page (exit 2: a page could not be read, checked or written)\n"


def test_static_build_exit_non_zero_on_write_needs_write(site, capsys):
    assert main([".", "--exit-non-zero-on-write"]) == 2
    assert "Error: --exit-non-zero-on-write is about --write; give both" in capsys.readouterr().err
    assert (site / "basic.html").read_bytes() == built("basic")


def test_static_build_json_says_what_was_rewritten(site, capsys):
    assert main([".", "--write", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload == {
        "summary": "2 pages: 2 passed, 0 failed",
        "files": [
            {"path": "basic.html", "status": "pass", "rewritten": 2, "diagnostics": []},
            {"path": "tricky.html", "status": "pass", "rewritten": 3, "diagnostics": []},
        ],
    }
    assert main([".", "--write", "--format", "json"]) == 0  # nothing rewritten: the keys as they always were
    assert [sorted(f) for f in json.loads(capsys.readouterr().out)["files"]] == [["diagnostics", "path", "status"]] * 2


def test_static_build_claim_evidence_json_keys_unchanged(site, capsys):
    (site / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    assert claim_evidence_main(["prepublish", "--format", "json"]) == 1
    files = json.loads(capsys.readouterr().out)["files"]
    assert [sorted(f) for f in files] == [["diagnostics", "path", "status"]] * 2


def test_static_build_pre_commit_hook_still_stops_the_commit(site, capsys):
    argv = shlex.split(str(hooks()["static-helper-write"]["entry"]))
    assert argv == ["static-helper", "--write", "--exit-non-zero-on-write"]
    staged = ["basic.html", "tricky.html"]  # pre-commit appends the staged files
    assert main([*argv[1:], *staged]) == 1  # the commit stops: the change is there to review and stage
    assert capsys.readouterr().err == "static-helper: rewrote 2 pages (exit 1: files changed)\n"
    assert main([*argv[1:], *staged]) == 0  # staged and committed again: passes


# --- a page through stdin and stdout ------------------------------------------------------


def test_static_build_dash_is_stdin_not_a_file_named_dash(site, monkeypatch, capsys):
    feed(monkeypatch, built("basic"))
    assert main(["-"]) == 1  # was 2: "-: CE001 file not found"
    out, err = capsys.readouterr()
    assert (out, err) == (
        f"<stdin>:43:5: SH140 [B-1] {STALE}\n<stdin>:47:5: SH140 [B-2] {STALE}\n1 page: 0 passed, 1 failed\n",
        "",
    )


def test_static_build_dash_write_prints_the_rewritten_page_byte_exact(site, monkeypatch, capsysbinary):
    feed(monkeypatch, built("basic"))
    assert main(["--write", "-"]) == 0
    out, err = capsysbinary.readouterr()
    assert out == golden("basic")
    assert err == (
        b"PASS <stdin>: 2 claims bound, 2 evidence slots re-rendered\n"
        b"1 page: 1 passed, 0 failed\n"
        b"static-helper: rewrote 1 page (exit 0: nothing left to report)\n"
    )
    assert sorted(p.name for p in site.iterdir()) == ["basic.html", "tricky.html"]  # nothing written to disk
    assert (site / "basic.html").read_bytes() == built("basic")
    feed(monkeypatch, built("basic"))
    assert main(["--write", "--exit-non-zero-on-write", "-"]) == 1
    out, err = capsysbinary.readouterr()
    assert out == golden("basic")
    assert err.endswith(b"static-helper: rewrote 1 page (exit 1: files changed)\n")


def test_static_build_dash_write_keeps_bom_and_crlf(site, monkeypatch, capsysbinary):
    feed(monkeypatch, built("tricky", "\r\n", bom=True))
    assert main(["--write", "-"]) == 0
    assert capsysbinary.readouterr().out == BOM + golden("tricky").replace(b"\n", b"\r\n")


def test_static_build_dash_write_json_report_goes_to_stderr(site, monkeypatch, capsysbinary):
    feed(monkeypatch, built("basic"))
    assert main(["--write", "--format", "json", "-"]) == 0
    out, err = capsysbinary.readouterr()
    assert out == golden("basic")
    report, note = err.decode("utf-8").rsplit("}\n", 1)
    assert json.loads(report + "}")["files"] == [
        {"path": "<stdin>", "status": "pass", "rewritten": 2, "diagnostics": []}
    ]
    assert note == "static-helper: rewrote 1 page (exit 0: nothing left to report)\n"


def test_static_build_dash_write_clean_page_comes_back_unchanged(site, monkeypatch, capsysbinary):
    feed(monkeypatch, golden("basic"))
    assert main(["--write", "-"]) == 0
    assert capsysbinary.readouterr() == (golden("basic"), b"PASS <stdin>: 2 claims bound\n1 page: 1 passed, 0 failed\n")


def test_static_build_dash_write_page_with_findings_comes_back_unchanged(site, monkeypatch, capsysbinary):
    page = built("basic").replace(b"</main>", b'<div data-evidence-for="B-1"></div></main>')  # SH111
    feed(monkeypatch, page)
    assert main(["--write", "-"]) == 1
    out, err = capsysbinary.readouterr()
    assert out == page
    assert err.endswith(
        b'<stdin>: SH150 not rewritten: fix SH111 (exactly one evidence slot required for claim "B-1") first; '
        b"the page was left unchanged\n1 page: 0 passed, 1 failed\n"
    )


def test_static_build_dash_write_page_missing_its_stylesheet_comes_back_filled(site, monkeypatch, capsysbinary):
    """A missing stylesheet link (SH130) is no reason to ship empty slots: --write from stdin gives the
    page back with its slots filled, and the run still fails."""
    link = b'<link rel="stylesheet" href="/assets/claim-evidence.css?v=2">'
    feed(monkeypatch, built("basic").replace(link, b""))
    assert main(["--write", "-"]) == 1
    out, err = capsysbinary.readouterr()
    assert out == golden("basic").replace(link, b"")
    assert b"SH130" in err and b"SH150" not in err


@pytest.mark.parametrize("flags", [[], ["--write"]])
def test_static_build_dash_not_utf8_is_ce002_exit_2(site, monkeypatch, capsysbinary, flags):
    page = '<p data-claim-id="a">caf\u00e9</p>'.encode("latin-1")
    feed(monkeypatch, page)
    assert main([*flags, "-"]) == 2
    out, err = capsysbinary.readouterr()
    report = b"<stdin>:1:25: CE002 not UTF-8: byte 0xe9 at offset 24; re-save the file as UTF-8\n1 page: 0 passed, 1 failed\n"
    assert (out, err) == ((page, report) if flags else (report, b""))


def test_static_build_dash_over_the_size_limit_is_ce004_exit_2(site, monkeypatch, capsysbinary):
    import claim_evidence._core.textio

    monkeypatch.setattr(claim_evidence._core.textio, "MAX_BYTES", 100)
    page = built("basic")
    feed(monkeypatch, page)
    assert main(["--write", "-"]) == 2
    out, err = capsysbinary.readouterr()
    assert out == page
    assert (
        err
        == f"<stdin>: CE004 input is {len(page)} bytes, over the 100-byte limit; split it\n1 page: 0 passed, 1 failed\n".encode()
    )


def test_static_build_dash_with_other_paths_is_usage_error(site, monkeypatch, capsys):
    feed(monkeypatch, built("basic"))
    assert main(["-", "basic.html"]) == 2
    assert "Error: '-' (one page on stdin) cannot be combined with other paths" in capsys.readouterr().err


def test_static_build_dash_takes_the_settings_of_the_working_folder(site, monkeypatch, capsys):
    (site / "claim-evidence.toml").write_text('pages = ["*.html"]\nstylesheet = "/site.css"\n', encoding="utf-8")
    feed(monkeypatch, golden("basic"))
    assert main(["-"]) == 1
    assert (
        '<stdin>:7:3: SH130 shared evidence stylesheet is missing: add <link rel="stylesheet" href="/site.css">'
        in capsys.readouterr().out
    )


def test_static_build_python_m_pipes_a_page(site):
    done = subprocess.run(
        [sys.executable, "-m", "static_helper", "--write", "-"],
        input=built("tricky"),
        capture_output=True,
        cwd=site,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, golden("tricky"))
    assert (
        done.stderr.decode("utf-8").splitlines()[-1] == "static-helper: rewrote 1 page (exit 0: nothing left to report)"
    )


# --- start-up -------------------------------------------------------------------------------


def test_static_build_import_loads_neither_click_nor_the_toolkit():
    """Only the two packages' lazy entry points load (claim_evidence's ``__init__`` imports nothing)."""
    probe = (
        "import sys, static_helper, static_helper.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'click', 'jinja2', 'jsonschema'}), "
        "sorted(m for m in sys.modules if m.startswith('claim_evidence')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "[] ['claim_evidence', 'claim_evidence._core', 'claim_evidence._core.lazy']\n"


def test_static_build_lazy_exports_are_the_public_api():
    import claim_evidence._check.page
    import static_helper
    import static_helper._write

    assert {name: getattr(static_helper, name) is not None for name in static_helper.__all__} == dict.fromkeys(
        static_helper.__all__, True
    )
    assert static_helper.check_text is claim_evidence._check.page.check_text
    assert static_helper.write_page is static_helper._write.write_page
    assert set(static_helper.__all__) <= set(dir(static_helper))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        static_helper.nope  # noqa: B018


def test_static_build_version_answers_without_the_toolkit(capsys):
    import claim_evidence
    from static_helper.cli import command

    assert main(["--version"]) == 0
    fast = capsys.readouterr().out
    assert fast == f"static-helper, version {claim_evidence.__version__}\n"
    assert CliRunner().invoke(command, ["--version"]).output == fast  # the same answer when click gives it
    probe = (
        "import sys; from static_helper.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m.startswith('claim_evidence')), 'click' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == f"{fast}['claim_evidence', 'claim_evidence._core', 'claim_evidence._core.lazy'] False\n"


# What a run imports that only some runs use: jinja2 (rendering a block), the process pool (--jobs > 1);
# and what no check uses (importlib.metadata: the cache's key names the package's own version).
RUN_ONLY_WHEN_USED = (
    "jinja2",
    "markupsafe",
    "concurrent.futures",
    "concurrent.futures.process",
    "multiprocessing",
    "importlib.metadata",
)
_RUN_PROBE = (
    "import sys; from static_helper.cli import main; code = main(sys.argv[1:]); "
    f"print('EXIT', code, sorted(m for m in {RUN_ONLY_WHEN_USED!r} if m in sys.modules))"
)


def _run_loading(site: Path, *args: str) -> tuple[str, str]:
    """``static-helper ARGS`` in a fresh interpreter: its exit code and which of RUN_ONLY_WHEN_USED it
    loaded (the report's last line), and the first line of its stderr (``--stats``)."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN_PROBE, *args], capture_output=True, text=True, cwd=site, timeout=120, check=False
    )
    return done.stdout.splitlines()[-1], (done.stderr.splitlines() or [""])[0]


def test_static_build_cached_runs_load_neither_jinja2_nor_the_process_pool(site):
    """Issue 32: a run that renders no block loads no jinja2, a serial one no process pool, none
    importlib.metadata. The cold
    ``--write`` renders every slot (the golden bytes) and loads markupsafe, not jinja2 (the packaged
    templates render by their functions compiled ahead, ``_render.precompiled``); after it the check of the written
    pages (answered: the write kept each as a check of the bytes it wrote), a one-page run, and rebuilds (every page's bytes changed outside its slots: after the evidence, answered
    by the pages' prefix entries; in a comment before it, by their heads; a tag before it, checked again)
    load none of them."""
    assert _run_loading(site, "--write", "--jobs", "1", ".")[0] == "EXIT 0 ['markupsafe']"
    assert [(site / f"{name}.html").read_bytes() for name in ("basic", "tricky")] == [golden("basic"), golden("tricky")]
    checked_again = ("EXIT 0 []", "static-helper stats: pages=2 checked=2 cached=0")
    assert _run_loading(site, "--jobs", "1", "--stats", ".") == (
        "EXIT 0 []",
        "static-helper stats: pages=2 checked=0 cached=2",
    )
    assert _run_loading(site, "basic.html")[0] == "EXIT 0 []"  # (--jobs: the cores; one page makes no pool)
    for name in ("basic", "tricky"):
        page = site / f"{name}.html"
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    assert _run_loading(site, "--jobs", "1", "--stats", ".") == (
        "EXIT 0 []",
        "static-helper stats: pages=2 checked=0 cached=2",  # (answered by their prefix entries)
    )
    for name in ("basic", "tricky"):  # a build stamp in a comment before the evidence
        page = site / f"{name}.html"
        page.write_bytes(b"<!-- build 3 -->" + page.read_bytes())
    assert _run_loading(site, "--jobs", "1", "--stats", ".") == (
        "EXIT 0 []",
        "static-helper stats: pages=2 checked=1 cached=1",  # (basic.html by its head; tricky's lines end in CRLF)
    )
    for name in ("basic", "tricky"):  # a build that changed a tag before the evidence: checked again
        page = site / f"{name}.html"
        page.write_bytes(b"<p>build 4</p>" + page.read_bytes())
    assert _run_loading(site, "--jobs", "1", "--stats", ".") == checked_again
