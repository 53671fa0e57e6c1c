"""``claim-evidence cite`` over tests/data/cite/site, aged to 2026-12-10: golden files per format and language."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import lxml.html
import markdown
import pytest
from markdown_it import MarkdownIt

from ...conftest import ROOT

DATA = ROOT / "tests" / "data" / "cite"
GOLDEN = DATA / "golden"
TODAY = "2026-12-10"
SUFFIX = {"markdown": "md", "html": "html", "json": "json"}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return Path(shutil.copytree(DATA / "site", tmp_path / "site"))


def _cite(run: Any, site: Path, *argv: str) -> tuple[int, str, str]:
    result: tuple[int, str, str] = run("cite", "--config", str(site / "claim-evidence.toml"), *argv)
    return result


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("fmt", ["markdown", "html", "json"])
def test_cite_golden(site: Path, run: Any, fmt: str, lang: str) -> None:
    code, out, err = _cite(run, site, "--today", TODAY, "--format", fmt, "--lang", lang)
    assert (code, err) == (0, "")
    golden = GOLDEN / f"site-{lang}.{SUFFIX[fmt]}"
    if os.environ.get("CITE_WRITE_GOLDEN"):  # regenerate, then read the diff before committing it
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def test_cite_markdown_renders_links_only_for_safe_urls(site: Path, run: Any) -> None:
    """Rendered by two real Markdown parsers (CommonMark and Python-Markdown, which MkDocs uses): the
    links are exactly the safe source URLs, and no record text becomes a tag, a link or emphasis."""
    _, out, _ = _cite(run, site, "--today", TODAY)
    safe = {
        "https://example.com/kumo/spec-v3",
        "https://example.net/sora/compare",
        "https://example.org/hoshi/kumo3",
        "https://example.com/a_b(c)?q=%3C1%3E",
        "https://example.com/kumo/benchmark",
        "https://example.com/logs/latency",
        "https://example.com/policy",
    }
    for rendered in (MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(out), markdown.markdown(out)):
        tree = lxml.html.document_fromstring(rendered)
        assert {a.get("href") for a in tree.iter("a")} == safe
        assert {e.tag for e in tree.iter()} <= {"html", "body", "h2", "h3", "ul", "li", "a", "p"}
        text = tree.text_content()
        assert "<script>alert(1)</script>" in text  # shown as text, not run
        assert "[x](javascript:alert(1)) *a* _b_ `c` &copy; | ~~d~~" in text  # every special kept literally
        assert "Evil](javascript:alert(1)) <i>: " in text
        assert "user:pw@" not in rendered
        assert [h.text_content() for h in tree.iter("h3")] == [
            "公式仕様・一次資料",
            "報道",
            "ベンダーの公称",
            "運営者による実測",
            "編集者の見解",
            "未照合（照合記録なし・有効な照合なし）",
        ]


def test_cite_html_escapes_every_record_text(site: Path, run: Any) -> None:
    _, out, _ = _cite(run, site, "--today", TODAY, "--format", "html")
    tree = lxml.html.document_fromstring(out)
    assert {e.tag for e in tree.iter()} == {"html", "body", "section", "h2", "h3", "ul", "li", "span", "time", "a"}
    hrefs = [a.get("href") for a in tree.iter("a")]
    assert all(h and h.startswith("https://") and "@" not in h for h in hrefs)
    assert "https://example.com/a_b(c)?q=&lt;1&gt;" in out  # the attribute escaped, the URL as recorded
    assert "<script>alert(1)</script>" in tree.text_content()
    states = [li.get("data-freshness") for li in tree.iter("li")]
    assert states.count("expired") == 2 and states.count("due-soon") == 1 and states.count("not-reviewed") == 4


def test_cite_claim_and_page_select(site: Path, run: Any) -> None:
    code, out, _ = _cite(run, site, "--today", TODAY, "--claim", "VC1", "--claim", "UV1", "--lang", "en")
    assert code == 0
    assert out == (
        "## 📚 Cited Sources\n\n### Vendor claims\n\n"
        "- 🟡 [180 days] 2026-06-20 架空クモ社: [性能レポート](<https://example.com/kumo/benchmark>) — 公称処理速度 (前版比 1.8 倍)\n\n"
        "### Not reviewed (no valid review recorded)\n\n- 今後の予定 — no source recorded\n"
    )
    code, out, _ = _cite(run, site, "--today", TODAY, "--page", str(site / "c.html"), "--format", "json")
    assert code == 0
    found = json.loads(out)
    assert [g["kind"] for g in found["groups"]] == ["vendor"] and found["not_reviewed"] == []
    assert (found["build_date"], found["build_date_source"]) == (TODAY, "--today")


def test_cite_expiry_changes_only_the_expired_line(site: Path, run: Any) -> None:
    """The block changes when a review changes state, not with each day: the day after, it is the
    same bytes; a day past OS2's due soon window it changes."""
    _, one, _ = _cite(run, site, "--today", "2026-12-10", "--claim", "OS1", "--claim", "ED1")
    _, two, _ = _cite(run, site, "--today", "2027-01-20", "--claim", "OS1", "--claim", "ED1")
    assert one == two
    _, late, _ = _cite(run, site, "--today", "2027-09-06", "--claim", "OS1")
    assert "⚠ [365日] 2026-09-05" in late and late.rstrip("\n").endswith("⚠ 古い: 再確認が必要（期限 2027-09-05）")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--claim", "OS9"],
            "the pages have no claim with id 'OS9' (did you mean 'OS2'?); their claims: OS1, OS2, VC1",
        ),
        (["--page", "d.html"], "the site registers no page 'd.html'"),
        (["--page", "c.html", "--claim", "OS1"], "the pages have no claim with id 'OS1'; their claims: H2"),
        (["--today", "2026-02-30"], "CE600"),
        (["--format", "pdf"], "'pdf' is not one of"),
    ],
)
def test_cite_usage_errors_exit_2(site: Path, run: Any, argv: list[str], message: str) -> None:
    code, out, err = _cite(run, site, *argv)
    assert (code, out) == (2, "")
    assert message in err and "Traceback" not in err


def test_cite_build_date_from_source_date_epoch(site: Path, run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796860800")  # 2026-12-10T00:00:00Z
    _, out, _ = _cite(run, site, "--format", "json")
    assert (json.loads(out)["build_date"], json.loads(out)["build_date_source"]) == (TODAY, "SOURCE_DATE_EPOCH")
    _, md, _ = _cite(run, site)
    assert md == (GOLDEN / "site-ja.md").read_text(encoding="utf-8")


def test_cite_without_config_exit_2(tmp_path: Path, run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("cite")
    assert code == 2 and "no claim-evidence.toml" in err


def test_cite_readme_example_is_what_the_example_site_gives(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """README's "Cited Sources" shows lines of this output: each is printed as written."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("## Cited Sources\n", 1)[1]
    command, block = readme.split("```sh\n", 1)[1].split("```\n", 1)[0], readme.split("```markdown\n", 1)[1]
    block = block.split("```", 1)[0]
    argv = command.split()
    assert argv[:2] == [".venv/bin/claim-evidence", "cite"]
    code, out, _ = run(*[str(ROOT / a) if a.endswith(".toml") else a for a in argv[1:]])
    assert code == 0
    shown = [line for line in block.splitlines() if line and line != "…"]
    assert len(shown) == 7 and all(line in out.splitlines() for line in shown), shown


def test_cite_page_whose_record_cannot_be_read_exits_2_naming_it(site: Path, run: Any) -> None:
    page = site / "b.html"
    page.write_text(page.read_text(encoding="utf-8").replace('"version": 1', '"version": 1,,', 1), encoding="utf-8")
    code, out, err = _cite(run, site, "--today", TODAY)
    assert (code, out) == (2, "")
    assert f"{page}:" in err and "CE003 invalid JSON" in err and "Traceback" not in err
