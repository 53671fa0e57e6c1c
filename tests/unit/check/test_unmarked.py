"""A page without evidence markup: what a run reports for a page whose text holds no evidence keyword,
found without the checker (``_site.runner``), is what the page check reports for it.

Differential: the html5lib inputs and the tests' pages with every evidence keyword taken out, with and
without a generator's trace of dropped raw HTML (once, twice, after CRLF and CR lines, in a comment's
place), registered and not, required and not; each run's result (findings with their lines and
columns, the detail, the status) against the full check's.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claim_evidence._check.page import PageOptions, check_text
from claim_evidence._check.unmarked import REQUIRED, STRIPPED_MARKERS, unmarked_findings
from claim_evidence._html.locate import Located, might_have_markup
from claim_evidence._site.runner import NO_MARKUP, Task, check_task

from ...acceptance.test_static_corpus import CORPUS, read_inputs
from ..html.test_static_fastscan import _pages

MARKER = STRIPPED_MARKERS[0].text


def _texts() -> list[str]:
    inputs = [data for _, data in read_inputs(CORPUS)]
    assert inputs, f"the vendored html5lib tree-construction corpus is missing under {CORPUS}"
    known = [path.read_text(encoding="utf-8", errors="replace") for path in _pages()]
    texts = [text for text in (*inputs, *known) if not might_have_markup(text)]
    texts += [
        f"<p>a</p>\n{MARKER}\n",
        f"{MARKER}<p>x</p>{MARKER}",
        f"<p>a</p>\r\n<p>b</p>\r\n  {MARKER}\r\n",
        f"<p>a</p>\r<p>b</p>\r{MARKER}",
        f"<!DOCTYPE html>\n<html><body>\n<main>\n{MARKER}\n<p>text</p>\n{MARKER}\n{MARKER}\n</main>\n",
        "",
    ]
    return texts


def _expected(text: str, registered: bool, options: PageOptions) -> tuple[object, ...] | None:
    page = check_text(text, "page.html", options)
    assert not page.has_markup and page.located.hidden is None, text[:200]
    return None if not registered else (page.diagnostics, NO_MARKUP, "")


def test_a_page_without_a_keyword_is_reported_as_the_check_reports_it() -> None:
    texts = _texts()
    assert len(texts) > 500
    marked = 0
    for text in texts:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            continue  # (a lone surrogate: no page's bytes decode to it)
        for registered in (True, False):
            for options in (PageOptions(), PageOptions(required=True)):
                result = check_task(Task("page.html", "page.html", options, registered=registered), data)
                got = None if result is None else (result.diagnostics, result.detail, result.status)
                assert got == _expected(text, registered, options), text[:200]
                marked += result is not None and any(d.code != REQUIRED for d in result.diagnostics)
    assert marked >= 10  # (the generator's traces were placed, not only the required failures)


def test_unmarked_findings_place_each_trace_where_it_first_is() -> None:
    text = f"<p>a</p>\r\n<p>b</p>\n  {MARKER}<p>{MARKER}</p>\n"
    (found,) = unmarked_findings(Located(text), "p.html", PageOptions())
    assert (found.code, found.severity, found.file, found.line, found.column) == ("SH161", "warning", "p.html", 3, 3)
    assert "(2 times here)" in found.message and "Hugo" in found.message
    required = unmarked_findings(Located(text), "p.html", PageOptions(required=True))
    assert [(d.code, d.severity) for d in required] == [("SH160", "error"), ("SH161", "error")]
    assert dataclasses.replace(required[1], severity="warning") == found
    assert unmarked_findings(Located("<p>nothing</p>"), "p.html", PageOptions()) == []


def test_a_run_of_pages_answered_or_without_a_keyword_loads_no_checker(tmp_path: Path) -> None:
    """A rebuild whose pages with evidence the cache answers, and whose other pages hold no evidence
    keyword (most of a site's), never loads the checker: the report is the one a check gives."""
    from ...acceptance.test_static_build import built

    site = tmp_path / "public"
    site.mkdir()
    (site / "basic.html").write_bytes(built("basic"))
    (site / "plain.html").write_bytes(b"<!DOCTYPE html>\n<html><body><p>No claims here.</p></body></html>\n")
    (site / "hugo.html").write_bytes(f"<html><body>\n<p>a</p>\n{MARKER}\n</body></html>\n".encode())
    probe = (
        "import sys; from static_helper.cli import main; code = main(sys.argv[1:]); "
        "print('EXIT', code, sorted(m for m in ('claim_evidence._check.page', 'claim_evidence._record.validation', "
        "'jinja2') if m in sys.modules))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("CLAIM_EVIDENCE_CACHE_KEY", None)

    def run(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=site, timeout=120, env=env
        )
        return done.stdout.splitlines()

    first = run("--write", "--jobs", "1", ".")
    # (The check renders the blocks by the functions compiled ahead: jinja2 is not loaded either.)
    assert first[-1] == "EXIT 0 ['claim_evidence._check.page', 'claim_evidence._record.validation']"
    assert "SH161" in "\n".join(first)
    assert run("--jobs", "1", ".")[-1] == "EXIT 0 []"  # (the written page: kept by the write as its bytes' check)
    for page in site.glob("*.html"):
        page.write_bytes(page.read_bytes() + b"<!-- build 2 -->\n")
    rebuilt = run("--jobs", "1", ".")
    assert rebuilt[-1] == "EXIT 0 []"
    assert rebuilt[:-1] == run("--no-cache", "--jobs", "1", ".")[:-1]
    # A page with a keyword and no markup (a code sample that names it) is checked: the checker loads.
    (site / "sample.html").write_bytes(b"<pre><code>&lt;p data-claim-id=&quot;C-1&quot;&gt;</code></pre>\n")
    assert run("--jobs", "1", ".")[-1] == "EXIT 0 ['claim_evidence._check.page', 'claim_evidence._record.validation']"


@pytest.mark.parametrize("registered", [True, False])
def test_a_page_with_a_keyword_is_checked(registered: bool) -> None:
    text = '<pre><code>&lt;p data-claim-id="C-1"&gt;</code></pre>\n'
    assert might_have_markup(text)
    result = check_task(Task("page.html", "page.html", PageOptions(), registered=registered), text.encode())
    page = check_text(text, "page.html", PageOptions())
    assert (None if result is None else result.diagnostics) == (page.diagnostics if registered else None)
