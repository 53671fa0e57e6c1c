"""The editor's loop on a generator's own source, with the real ``mkdocs build --strict`` and ``sphinx-build -W``.

A claim is edited with ``claim set`` on the Markdown/reST file (a covered field: its seal breaks), the build fails
naming that file's line and printing the ``review record`` command to run, the command is run as printed on the
file it names, and the rebuilt site passes with the slot filled. The sites are the plugins' fixture sites
(``tests/data/generators``), set up as their own tests set them up.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from ..integrations.test_integrations import CLAIM, EMPTY_SLOT, _line_of, _mkdocs, _needs, _run, _site, _sphinx

HINT = re.compile(r"`claim-evidence review record (\S+) --claim (\S+) --method … --checked-at …`")
UNCERTAINTY = "架空の計測は一回だけ"


def _edit_then_review(site: Path, source: str, failed: subprocess.CompletedProcess[str]) -> None:
    """The failed build names ``source`` in its CE403 and SH140 hint; ``review record`` as the hint says."""
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "CE403" in failed.stderr
    hints = HINT.findall(failed.stderr)
    assert hints and set(hints) == {(source, CLAIM)}, failed.stderr
    recorded = _run(
        ["claim_evidence", "review", "record", source, "--claim", CLAIM, "--method", "human_document_review"]
        + ["--checked-at", "2026-10-01"],
        site,
    )
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout.endswith(f"\n{source}: review of {CLAIM} recorded\n"), recorded.stdout  # after its diff


def _claim_set(site: Path, source: str) -> str:
    """``claim set --uncertainty`` on the source; its text before the edit."""
    before = (site / source).read_text(encoding="utf-8")
    done = _run(["claim_evidence", "claim", "set", source, "--claim", CLAIM, "--uncertainty", UNCERTAINTY], site)
    assert done.returncode == 0 and f"{source}: written\n" in done.stdout, done.stdout + done.stderr
    assert "this undoes the review of claim" in done.stdout
    return before


def _only_json_changed(before: str, after: str) -> None:
    tag = 'id="claim-evidence-data">'
    assert before.split(tag)[0] == after.split(tag)[0]
    assert before.split("</script>")[1] == after.split("</script>")[1]
    assert f'"uncertainty": "{UNCERTAINTY}"' in after


def test_cli_sources_mkdocs_review_record_on_the_markdown_file_the_build_names(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    before = _claim_set(site, "docs/kumo.md")
    failed = _mkdocs(site, "claim-evidence", strict=True)
    line = _line_of(site / "docs" / "kumo.md", '"fingerprint"')  # the record's finding at its JSON line
    assert f"claim-evidence: docs/kumo.md:{line}: CE403 [{CLAIM}]" in failed.stderr
    _edit_then_review(site, "docs/kumo.md", failed)
    _only_json_changed(before, (site / "docs" / "kumo.md").read_text(encoding="utf-8"))
    rebuilt = _mkdocs(site, "claim-evidence", strict=True)
    assert rebuilt.returncode == 0, rebuilt.stderr
    page = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    assert EMPTY_SLOT not in page and UNCERTAINTY in page


def test_cli_sources_sphinx_review_record_on_the_rest_file_the_build_names(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx")
    before = _claim_set(site, "kumo.rst")
    failed = _sphinx(site, True, strict=True)
    line = _line_of(site / "kumo.rst", '"fingerprint"')  # the record's finding at its JSON line
    assert f"{site / 'kumo.rst'}:{line}: WARNING: claim-evidence: CE403 [{CLAIM}]" in failed.stderr
    # Sphinx names the document by its path, and the hint by the name the plugin checks it as
    hints = HINT.findall(failed.stderr)
    assert hints, failed.stderr
    _edit_then_review(site, hints[0][0], failed)
    after = (site / "kumo.rst").read_text(encoding="utf-8")
    _only_json_changed(before, after)
    script = after[after.index(".. raw:: html\n\n   <script") :].split("\n")[2:]
    assert all(line.startswith("   ") for line in script[: script.index("   </script>")])  # still the directive's
    rebuilt = _sphinx(site, True, strict=True)
    assert (rebuilt.returncode, rebuilt.stderr) == (0, "")
    page = (site / "_build" / "kumo.html").read_text(encoding="utf-8")
    assert EMPTY_SLOT not in page and UNCERTAINTY in page


def test_cli_sources_mkdocs_new_page_from_claim_add_to_a_passing_strict_build(tmp_path: Path) -> None:
    """A new Markdown page with only its marked sentence and slot: `claim add` adds the bundle script at its
    end, `source add`, `ref add` and `review record` fill it in place, and `mkdocs build --strict` passes."""
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    sentence = "クモ社の新エンジンは2026年9月に発表された。"
    page = site / "docs" / "news.md"
    page.write_text(
        f'# 発表\n\n<p data-claim-id="KUMO-DATE">{sentence}</p>\n<div data-evidence-for="KUMO-DATE"></div>\n',
        encoding="utf-8",
    )
    steps = [
        ["claim", "add", "docs/news.md", "--id", "KUMO-DATE", "--basis", "vendor_claim"],
        ["source", "add", "docs/news.md", "--id", "rel", "--url", "https://example.com/kumo/release"]
        + ["--publisher", "クモ社", "--title", "新エンジンの発表", "--published-at", "2026-09-03"],
        ["ref", "add", "docs/news.md", "--claim", "KUMO-DATE", "--source", "rel", "--section", "冒頭"]
        + ["--supports", "発表の時期", "--quote", "2026年9月に新エンジンを発表しました"],
        ["review", "record", "docs/news.md", "--claim", "KUMO-DATE", "--status", "matched"]
        + ["--method", "human_document_review", "--checked-at", "2026-10-01"],
    ]
    for step in steps:
        done = _run(["claim_evidence", *step], site)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    built = _mkdocs(site, "claim-evidence", strict=True)
    assert built.returncode == 0, built.stderr
    html = (site / "site" / "news" / "index.html").read_text(encoding="utf-8")
    assert '<div data-evidence-for="KUMO-DATE"></div>' not in html and "新エンジンの発表" in html
