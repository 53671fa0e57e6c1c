"""``claim-evidence report`` over a copy of the example site, aged to 2026-12-01 under [freshness]."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.page import read_page_bundle
from claim_evidence._commands.report import AGE_BUCKETS, ROW_FIELDS, age_bucket
from claim_evidence._record.freshness import DEFAULT_MAX_AGE_DAYS

from ...conftest import ROOT, example_site_copy

EXAMPLE = ROOT / "examples" / "site"
TODAY = "2026-12-01"
ARTICLES = ("about.html", "articles/kumo-engine-3.html", "notes/ame-free-tier.html", "slides/day-2026-09-04.html")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = example_site_copy(tmp_path / "site")  # its [freshness] policy: the defaults, with markers
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return folder


def _report(run: Any, site: Path, fmt: str, out: Path) -> tuple[int, str, str]:
    return run(
        "report", "--config", str(site / "claim-evidence.toml"), "--today", TODAY, "--format", fmt, "--out", str(out)
    )


def _claims(site: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every (page, claim) of the example, read from the pages' bundles."""
    found = []
    for page in ARTICLES:
        bundle = json.loads(read_page_bundle((site / page).read_text(encoding="utf-8")).text)
        found += [(page, claim) for claim in bundle["claims"]]
    return found


def _state(claim: dict[str, Any]) -> tuple[int | None, str]:
    if claim["status"] == "unverified":
        return None, "not reviewed"
    checked = date.fromisoformat(claim["verification"]["checked_at"])
    limit = DEFAULT_MAX_AGE_DAYS[claim["basis"]]
    age = (date.fromisoformat(TODAY) - checked).days
    if limit is None:
        return age, "no policy"
    left = (checked + timedelta(days=limit) - date.fromisoformat(TODAY)).days
    return age, "expired" if left < 0 else "due soon" if left * 100 <= limit * 15 else "fresh"


def test_sitereport_json_summary_counts(site: Path, tmp_path: Path, run: Any) -> None:
    out = tmp_path / "report.json"
    code, stdout, _ = _report(run, site, "json", out)
    claims = _claims(site)
    assert code == 0
    assert stdout == f"{out}: written ({len(claims)} claims on {len(ARTICLES)} pages)\n"
    data = json.loads(out.read_text(encoding="utf-8"))
    assert list(data) == ["build_date", "build_date_source", "summary", "claims", "sources", "pages"]
    assert (data["build_date"], data["build_date_source"]) == (TODAY, "--today")
    summary = data["summary"]
    assert (summary["pages"], summary["claims"], summary["freshness_policy"]) == (len(ARTICLES), len(claims), True)
    statuses = Counter(c["status"] for _, c in claims)
    assert summary["by_status"] == {s: statuses[s] for s in ("matched", "partial", "unverified", "conflict")} | {
        "other": 0
    }
    bases = Counter(c["basis"] for _, c in claims)
    assert {k: v for k, v in summary["by_basis"].items() if v} == dict(bases)
    methods = Counter((c.get("verification") or {}).get("method", "none") for _, c in claims)
    assert {k: v for k, v in summary["by_method"].items() if v} == dict(methods)
    states = {(page, c["id"]): _state(c) for page, c in claims}
    assert {k: v for k, v in summary["freshness"].items() if v} == dict(Counter(s for _, s in states.values()))
    assert summary["review_age"] == {
        **{name: sum(age_bucket(a) == name for a, _ in states.values()) for name, _, _ in AGE_BUCKETS},
        "not reviewed": sum(a is None for a, _ in states.values()),
    }
    expired = [{"page": p, "claim_id": i} for (p, i), (_, s) in states.items() if s == "expired"]
    assert [{k: v for k, v in e.items() if k != "due"} for e in summary["expired"]] == expired
    due_soon = [(p, i) for (p, i), (_, s) in states.items() if s == "due soon"]
    assert [(d["page"], d["claim_id"]) for d in summary["due_soon"]] == due_soon
    assert due_soon, "the reporting reviews are near their 90 days on 2026-12-01"
    assert [(u["page"], u["claim_id"]) for u in summary["unreviewed"]] == [
        k for k, (_, s) in states.items() if s == "not reviewed"
    ]
    assert summary["invalid"] == [] and summary["pages_with_findings"] == [
        {"page": p["page"], "codes": p["codes"]} for p in data["pages"] if p["codes"]
    ]
    cited = Counter(ref["source_id"] for _, c in claims for ref in c["source_refs"])
    assert sum(s["count"] for s in data["sources"]) == sum(cited.values())
    assert [list(row) for row in data["claims"]] == [list(ROW_FIELDS)] * len(claims)
    assert [(r["page"], r["claim_id"]) for r in data["claims"]] == [(p, c["id"]) for p, c in claims]


def test_sitereport_csv_header_and_rows(site: Path, tmp_path: Path, run: Any) -> None:
    out = tmp_path / "report.csv"
    assert _report(run, site, "csv", out)[0] == 0
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0] == list(ROW_FIELDS)
    assert rows[0] == [
        "page",
        "claim_id",
        "label",
        "status",
        "basis",
        "evidence_label",
        "method",
        "checked_at",
        "age_days",
        "due",
        "freshness",
        "invalid",
        "page_findings",
        "sources",
        "signer",
    ]
    assert len(rows) - 1 == len(_claims(site))


def test_sitereport_html_self_contained(site: Path, run: Any) -> None:
    out = site / "report.html"
    assert _report(run, site, "html", out)[0] == 0
    html = out.read_text(encoding="utf-8")
    assert '<html lang="ja">' in html
    assert '<p class="built">ビルド日 2026-12-01（--today による）</p>' in html
    assert html.count("<svg ") == 2 and html.count("<title id=") == 2
    assert '<title id="status-title">照合状態の内訳</title>' in html
    assert '<a href="articles/kumo-engine-3.html#evidence-KUMO-SPEED">' in html
    assert "<script" not in html and "@media print" in html and "prefers-color-scheme: dark" in html
    links = re.findall(r'<a href="(https?:[^"]*)"', html)
    assert links and all(link.startswith("https://example.") for link in links)
    assert re.findall(r'="[^"]*http', re.sub(r'<a href="https?:[^"]*"', "<a", html)) == []
    assert not re.search(r"url\(|@import|<link|<img|src=", html)


def test_sitereport_html_links_lead_from_the_report_folder(site: Path, tmp_path: Path, run: Any) -> None:
    out = tmp_path / "elsewhere" / "report.html"
    out.parent.mkdir()
    assert _report(run, site, "html", out)[0] == 0
    assert '<a href="../site/articles/kumo-engine-3.html#evidence-KUMO-SPEED">' in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["json", "csv", "html"])
def test_sitereport_out_dash_writes_stdout(
    site: Path, tmp_path: Path, run: Any, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = tmp_path / f"report.{fmt}"
    assert _report(run, site, fmt, out)[0] == 0
    code, stdout, stderr = _report(run, site, fmt, Path("-"))
    assert (code, list(work.iterdir())) == (0, [])  # no file named "-"
    expected = out.read_text(encoding="utf-8")
    if fmt == "html":  # the links lead from the working folder, not from the report file's folder
        expected = expected.replace('<a href="site/', '<a href="../site/')
        assert '<a href="../site/articles/kumo-engine-3.html#evidence-KUMO-SPEED">' in stdout
    assert stdout == expected
    assert stderr == f"<stdout>: written ({len(_claims(site))} claims on {len(ARTICLES)} pages)\n"


def test_sitereport_without_pages_or_news_is_sh006_as_prepublish(tmp_path: Path, run: Any) -> None:
    config = tmp_path / "claim-evidence.toml"
    config.write_text('lang = "ja"\n', encoding="utf-8")
    code, stdout, stderr = run("report", "--config", str(config), "--format", "json", "--out", str(tmp_path / "r.json"))
    message = 'SH006 registers nothing to check: list static pages (pages = ["**/*.html"]) or add a [news] table'
    assert (code, stdout, stderr) == (2, "", f"claim-evidence: error: {config}: {message}\n")
    assert not (tmp_path / "r.json").exists()
    assert run("prepublish", "--config", str(config))[2] == stderr  # the same message, from the same check


def test_sitereport_english_labels(site: Path, tmp_path: Path, run: Any) -> None:
    config = site / "claim-evidence.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('lang = "ja"', 'lang = "en"'), encoding="utf-8")
    out = tmp_path / "report.html"
    assert _report(run, site, "html", out)[0] == 0
    html = out.read_text(encoding="utf-8")
    assert '<html lang="en">' in html and "Build date 2026-12-01 (from --today)" in html


@pytest.mark.parametrize("fmt", ["html", "json", "csv"])
def test_sitereport_deterministic(site: Path, tmp_path: Path, run: Any, fmt: str) -> None:
    first, second = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
    assert _report(run, site, fmt, first)[0] == 0
    assert _report(run, site, fmt, second)[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_sitereport_build_date_from_source_date_epoch(
    site: Path, tmp_path: Path, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")  # 2026-12-01T00:00:00Z
    out = tmp_path / "report.json"
    assert run("report", "--config", str(site / "claim-evidence.toml"), "--format", "json", "--out", str(out))[0] == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["build_date"], data["build_date_source"]) == (TODAY, "SOURCE_DATE_EPOCH")


@pytest.mark.parametrize(
    "argv",
    [
        ["--format", "pdf", "--out", "x.pdf"],
        ["--format", "json"],
        ["--format", "json", "--out", "x.json", "--today", "2026-02-30"],
    ],
)
def test_sitereport_usage_errors_exit_2(site: Path, tmp_path: Path, run: Any, argv: list[str]) -> None:
    code, _, _ = run("report", "--config", str(site / "claim-evidence.toml"), *argv)
    assert code == 2
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.json").exists()


def test_sitereport_missing_config_exit_2(tmp_path: Path, run: Any) -> None:
    code, _, err = run(
        "report", "--config", str(tmp_path / "none.toml"), "--format", "json", "--out", str(tmp_path / "r.json")
    )
    assert code == 2 and "SH001 config file not found" in err


def test_sitereport_news_registry_rows(tmp_path: Path, run: Any) -> None:
    out = tmp_path / "news.json"
    code, stdout, _ = run(
        "report",
        "--config",
        str(ROOT / "examples/news/claim-evidence.toml"),
        "--today",
        TODAY,
        "--format",
        "json",
        "--out",
        str(out),
    )
    registry = json.loads((ROOT / "examples/news/corrections.json").read_text(encoding="utf-8"))
    expected = [(url, c["id"]) for url, entry in registry.items() for c in entry["claim_evidence"]["claims"]]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0 and [(r["page"], r["claim_id"]) for r in data["claims"]] == expected
    assert data["summary"]["freshness_policy"] is False and data["summary"]["freshness"]["expired"] == 0


def _row(**changes: Any) -> Any:
    from claim_evidence._commands.report import ClaimRow

    base: dict[str, Any] = dict(
        page="a.html",
        claim_id="C-1",
        label="速度",
        status="matched",
        basis="vendor_claim",
        evidence_label="Claim",
        method="human_document_review",
        checked_at="2026-09-05",
        age_days=-3,
        due=None,
        freshness="ok",
        invalid=False,
        page_findings=(),
        sources=1,
    )
    return ClaimRow(**{**base, **changes})


def _csv(*rows: Any) -> str:
    from claim_evidence._commands.report import SiteReport, render_csv

    return render_csv(SiteReport("2026-12-01", "--today", "ja", True, tuple(rows), (), ())).decode("utf-8")


def test_sitereport_csv_bare_cr_in_a_label_is_quoted_and_forges_no_row() -> None:
    text = _csv(_row(label="x\r=1+1,evil"), _row(claim_id="C-2"))
    assert (
        text.split("\n")[1]
        == 'a.html,C-1,"x\r=1+1,evil",matched,vendor_claim,Claim,human_document_review,2026-09-05,-3,,ok,false,,1,'
    )
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert [r[2] for r in rows] == ["label", "x\r=1+1,evil", "速度"]
    assert all(len(r) == len(ROW_FIELDS) for r in rows)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_sitereport_csv_formula_cells_get_a_quote_prefix(start: str) -> None:
    rows = list(
        csv.reader(io.StringIO(_csv(_row(label=start + "SUM(A1)", claim_id=start + "1", page=start + "p")), newline=""))
    )
    assert rows[1][:3] == ["'" + start + "p", "'" + start + "1", "'" + start + "SUM(A1)"]
    assert rows[1][8] == "-3"  # the report's own number stays a number


def test_sitereport_csv_quotes_fields_with_quotes_and_newlines() -> None:
    line = _csv(_row(label='say "hi"\nthere'))
    assert 'a.html,C-1,"say ""hi""\nthere",matched' in line


def test_sitereport_csv_hostile_label_from_the_site(site: Path, tmp_path: Path, run: Any) -> None:
    page = site / "about.html"
    text = page.read_text(encoding="utf-8")
    label = re.search(r'"label": "[^"]*"', text)
    assert label is not None
    page.write_text(text.replace(label.group(0), '"label": "x\\r=1+1"', 1), encoding="utf-8")
    out = tmp_path / "report.csv"
    assert _report(run, site, "csv", out)[0] == 0
    rows = list(csv.reader(io.StringIO(out.read_bytes().decode("utf-8"), newline="")))
    assert len(rows) - 1 == len(_claims(site)) and all(len(r) == len(ROW_FIELDS) for r in rows)
    assert "x\r=1+1" in [r[2] for r in rows]
    assert not any(cell.startswith("=") for r in rows for cell in r)


def test_sitereport_invalid_only_for_record_errors_page_findings_apart(site: Path, tmp_path: Path, run: Any) -> None:
    """Issue 27, measured: on 2026-12-10 the report said 9 of 11 valid claims were 記録に不整合, because
    their slots were stale. A record is invalid only when its record is; a stale slot (SH140, here two
    reviews that expired), a stale summary and a missing stylesheet are page findings, in their own column."""
    about = site / "about.html"
    text = about.read_text(encoding="utf-8")
    bundle_at = text.index('"statement": "記事の下書きには')
    about.write_text(text[:bundle_at] + text[bundle_at:].replace("照合する。", "照合する!", 1), encoding="utf-8")
    note = site / "notes" / "ame-free-tier.html"
    link = "<LINK REL=stylesheet HREF=/assets/claim-evidence.css>"  # a hand-written page's old markup
    assert link in note.read_text(encoding="utf-8")
    note.write_text(note.read_text(encoding="utf-8").replace(link, ""), encoding="utf-8")
    out = tmp_path / "report.csv"
    argv = ["report", "--config", str(site / "claim-evidence.toml"), "--today", "2026-12-10"]
    assert run(*argv, "--format", "csv", "--out", str(out))[0] == 0
    rows = [(r[0], r[1], r[11], r[12]) for r in csv.reader(io.StringIO(out.read_text(encoding="utf-8")))]
    assert rows == [
        ("page", "claim_id", "invalid", "page_findings"),
        ("about.html", "ABOUT-AI", "true", "SH120 SH140"),  # CE403: its review no longer covers the statement
        ("about.html", "ABOUT-CORRECTIONS", "false", ""),
        ("articles/kumo-engine-3.html", "KUMO-CONTEXT", "false", "page:SH140"),  # the sources summary
        ("articles/kumo-engine-3.html", "KUMO-SPEED", "false", "page:SH140"),
        ("articles/kumo-engine-3.html", "KUMO-RELEASE", "false", "SH140 page:SH140"),  # expired since 2026-12-05
        ("articles/kumo-engine-3.html", "KUMO-MEASURED", "false", "page:SH140"),
        ("articles/kumo-engine-3.html", "KUMO-ADVICE", "false", "page:SH140"),
        ("notes/ame-free-tier.html", "ODD-LIMIT", "false", "page:SH130"),
        ("slides/day-2026-09-04.html", "S1-SCORE", "false", ""),
        ("slides/day-2026-09-04.html", "S2-PRICE", "false", ""),
        ("slides/day-2026-09-04.html", "S3-REPORT", "false", "SH140"),  # expired since 2026-12-04
    ]
    data = tmp_path / "report.json"
    assert run(*argv, "--format", "json", "--out", str(data))[0] == 0
    summary = json.loads(data.read_text(encoding="utf-8"))["summary"]
    assert summary["invalid"] == [{"page": "about.html", "claim_id": "ABOUT-AI", "due": None}]
    assert [(f["claim_id"], f["codes"]) for f in summary["page_findings"]] == [
        ("ABOUT-AI", ["SH120", "SH140"]),
        ("KUMO-CONTEXT", ["page:SH140"]),
        ("KUMO-SPEED", ["page:SH140"]),
        ("KUMO-RELEASE", ["SH140", "page:SH140"]),
        ("KUMO-MEASURED", ["page:SH140"]),
        ("KUMO-ADVICE", ["page:SH140"]),
        ("ODD-LIMIT", ["page:SH130"]),
        ("S3-REPORT", ["SH140"]),
    ]
    page = tmp_path / "report.html"
    assert run(*argv, "--format", "html", "--out", str(page))[0] == 0
    html = page.read_text(encoding="utf-8")
    assert "<li><strong>1</strong> 記録に不整合</li>\n<li><strong>8</strong> ページ上の指摘</li>" in html
    assert (
        '<td>2026-09-04</td>\n<td class="num">97</td>\n<td>2026-12-03</td>\n<td>期限切れ</td>\n<td>なし</td>\n'
        '<td>SH140</td>\n<td class="num">1</td>'
    ) in html
