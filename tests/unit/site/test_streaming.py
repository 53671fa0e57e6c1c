"""A site's results stream: :func:`run` and :func:`check_pages` hand each page's result on as it is
ready and keep none, and ``static-helper`` writes a text or GitHub report result by result, byte for
byte what the report of the collected results is (issue 32: memory flat in the number of pages)."""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from claim_evidence import FileResult, report
from claim_evidence._commands.prepublish import check_site
from claim_evidence._core.report import STREAMED_FORMATS, Tally, exit_code, report_lines, write_report
from claim_evidence._site import sourcemap as _sourcemap
from claim_evidence._site.check import check_pages
from claim_evidence._site.config import Config, load_config
from claim_evidence._site.runner import Stats, Task, Vanished, run, site_findings, tasks_for_config

from ...conftest import cli_in_process
from .test_sourcemap import EDITED, MARKDOWN, built_page


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A generator's project with ``sources``: two passing pages, two whose sentence was edited after the
    review (findings placed in content/about.md), one page the config does not register that carries
    markup, and one plain page; the working folder is the project."""
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "about.md").write_text(MARKDOWN, encoding="utf-8")
    public = tmp_path / "public"
    for name, text in {
        "a/index.html": built_page(),
        "b/index.html": built_page(EDITED),
        "c/index.html": built_page(),
        "d/index.html": built_page(EDITED, stylesheet=False),
        "plain/index.html": "<!doctype html><title>t</title><p>no evidence here</p>\n",
        "drafts/x.html": built_page(),
    }.items():
        (public / name).parent.mkdir(parents=True, exist_ok=True)
        (public / name).write_text(text, encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text(
        'pages = ["public/*/index.html"]\nsources = ["content/**/*.md"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _tasks(site: Path) -> tuple[Config, list[Task]]:
    config = load_config(site / "claim-evidence.toml")
    return config, tasks_for_config(config, write=False)


def test_streaming_run_checks_a_page_only_when_its_result_is_asked_for(site: Path) -> None:
    """Lazy: nothing is checked before the first result is taken, one page for it (a serial run)."""
    _, tasks = _tasks(site)
    stats = Stats()
    results = run(tasks, stats=stats)
    assert stats.checked == 0
    first = next(results)
    assert stats.checked == 1 and first.path == tasks[0].display
    rest = list(results)
    assert stats.checked == len(tasks) and len(rest) == len(tasks) - 1  # the plain page is registered: kept


@pytest.mark.parametrize("jobs", [1, 2])
def test_streaming_check_pages_keeps_no_result_it_handed_on(site: Path, jobs: int) -> None:
    """Each result, once the caller let it go, is garbage before the next one comes: neither the runner,
    the pool's collection, the source placing nor the site's SH007 tally holds it."""
    config, tasks = _tasks(site)
    tasks = tasks * 4  # past the runner's threshold for a pool
    refs: list[weakref.ref[FileResult]] = []
    failing = 0
    for result in check_pages(tasks, config, jobs):
        gc.collect()
        assert [r for r in refs if r() is not None] == []  # the earlier ones are gone while the run goes on
        refs.append(weakref.ref(result))
        failing += result.outcome() == "fail"
        del result
    assert len(refs) == len(tasks) and failing == 8


def test_streaming_the_sources_are_read_once_for_all_the_findings_of_a_run(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    read = _sourcemap._read

    def counted(path: str) -> str | None:
        reads.append(path)
        return read(path)

    monkeypatch.setattr(_sourcemap, "_read", counted)
    config, tasks = _tasks(site)
    results = list(check_pages(tasks, config))
    placed = [d.written for r in results for d in r.diagnostics if d.code == "SH120"]
    assert placed == [(("content/about.md", 4),)] * 2
    assert reads == [os.path.realpath(site / "content" / "about.md")]


def test_streaming_the_built_pages_of_the_run_are_never_sources(site: Path) -> None:
    """Also with a glob over everything, before the pages' results are in: every task's page is left out."""
    (site / "claim-evidence.toml").write_text(
        'pages = ["public/*/index.html"]\nsources = ["**/*.md", "public/**/*.html"]\n', encoding="utf-8"
    )
    config, tasks = _tasks(site)
    results = list(check_pages(tasks, config))
    placed = {d.written for r in results for d in r.diagnostics if d.code == "SH120"}
    # b's finding is placed before c's and d's results exist, and they hold the claim too: still left out
    assert placed == {(("content/about.md", 4),)}


@pytest.mark.parametrize("fmt", STREAMED_FORMATS)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_streaming_static_helper_report_is_the_report_of_the_collected_results(
    site: Path, capsys: pytest.CaptureFixture[str], fmt: str, jobs: str
) -> None:
    """What the command streams is what :func:`report` gives for the results collected in one list, with
    the exit code of :func:`exit_code`: the streamed path and the collected one cannot drift apart."""
    config, tasks = _tasks(site)
    collected = list(check_pages(tasks, config))
    expected = report(collected, fmt, noun="page", all_warnings=False)
    code, out, _ = cli_in_process("static-helper", ["--no-cache", "--jobs", jobs, "--format", fmt], capsys)
    assert (code, out) == (exit_code(collected), expected)
    assert "6 pages: 3 passed, 2 failed, 1 unregistered" in out  # (the plain page passes)
    assert ("content/about.md:4" if fmt == "text" else "file=content/about.md,line=4") in out  # placed


def test_streaming_a_report_is_its_files_lines_then_the_summary() -> None:
    results = [
        FileResult("a.html", detail="1 claim bound"),
        FileResult("b.html", status="unregistered", detail="carries evidence markup but is not registered"),
        FileResult("c.html", status="unreadable"),
    ]
    for fmt in STREAMED_FORMATS:
        streamed = "".join(report_lines(r, fmt) for r in results) + Tally.of(results).summary("page") + "\n"
        assert streamed == report(results, fmt, noun="page")
    with pytest.raises(ValueError, match="cannot be streamed"):
        report_lines(results[0], "json")


@pytest.mark.parametrize(
    ("outcomes", "code", "summary"),
    [
        ([], 0, "0 pages: 0 passed, 0 failed"),
        (["pass"], 0, "1 page: 1 passed, 0 failed"),
        (["pass", "unregistered"], 1, "2 pages: 1 passed, 0 failed, 1 unregistered"),
        (["fail", "pass"], 1, "2 pages: 1 passed, 1 failed"),
        (["fail", "unreadable"], 2, "2 pages: 0 passed, 2 failed"),
        (["error"], 2, "1 page: 0 passed, 1 failed"),
    ],
)
def test_streaming_tally_counts_as_the_policy_says(outcomes: list[str], code: int, summary: str) -> None:
    tally = Tally.of(FileResult(f"{n}.html", status=o) for n, o in enumerate(outcomes))
    assert (tally.exit_code(), tally.summary("page")) == (code, summary)


def test_streaming_sh007_is_told_from_counts_as_from_the_whole_list(tmp_path: Path) -> None:
    """The site's vanished evidence, counted result by result, is what :func:`site_findings` says."""
    (tmp_path / "a.html").write_text("<!doctype html><title>t</title><p>x</p>\n", encoding="utf-8")
    (tmp_path / "b.html").write_text("<!doctype html><title>t</title><p>y</p>\n", encoding="utf-8")
    (tmp_path / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    config = load_config(tmp_path / "claim-evidence.toml")
    tasks = tasks_for_config(config, write=False)
    results = list(run(tasks))
    assert [r.diagnostics[0].code for r in results[-1:]] == ["SH007"]
    assert results[-1:] == site_findings(tasks, results[:-1])
    vanished = Vanished(tasks)
    assert list(vanished.seeing(iter(results[:1]))) == results[:1] and vanished.findings() == []  # one unseen


@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_streaming_prepublish_report_is_the_report_of_the_collected_results(
    site: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """``prepublish`` streams its text and GitHub reports through the same :func:`write_report`."""
    config, _ = _tasks(site)
    collected = list(check_site(config))
    expected = report(collected, fmt, noun="target", headers=True)
    code, out, _ = cli_in_process("claim-evidence", ["prepublish", "--jobs", "1", "--format", fmt], capsys)
    assert (code, out) == (exit_code(collected), expected)
    assert "6 targets: 3 passed, 2 failed, 1 unregistered" in out


def test_streaming_write_report_writes_each_file_as_it_comes() -> None:
    """A streamed format is written before the next result is asked for; json only once all are in (its
    summary comes first), the same text as :func:`report`'s."""
    written: list[str] = []
    asked: list[int] = []

    def results() -> Iterator[FileResult]:
        for n in range(3):
            asked.append(len(written))  # how much was written when result n was asked for
            yield FileResult(f"{n}.html", detail="1 claim bound")

    tally = write_report(results(), "text", written.append, noun="page")
    assert asked == [0, 1, 2] and written[-1] == "3 pages: 3 passed, 0 failed\n" and tally.exit_code() == 0
    written.clear()
    asked.clear()
    write_report(results(), "json", written.append, noun="page")
    assert asked == [0, 0, 0] and "".join(written) == report(list(results()), "json", noun="page")
