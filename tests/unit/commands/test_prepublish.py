"""``claim-evidence prepublish`` over the example news pipeline and the example
site: passes clean, and fails with a clear message on each injected drift."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ...conftest import ROOT

URL = "https://example.com/news/nornbay-compute-funding"


@pytest.fixture
def news(tmp_path: Path) -> Path:
    """A copy of examples/news with a fresh pipeline run in ``out/``."""
    site = tmp_path / "news"
    shutil.copytree(ROOT / "examples" / "news", site, ignore=shutil.ignore_patterns("out"))
    done = subprocess.run(
        [sys.executable, str(site / "pipeline.py"), str(site / "out")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def _edit_json(path: Path, change: Callable[[Any], None]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _item(data: Any) -> dict[str, Any]:
    return next(i for i in data["items"] if i.get("url") == URL)


def test_prepublish_clean_news_example_passes(run: Any, news: Path) -> None:
    code, out, err = run("prepublish", "--config", str(news / "claim-evidence.toml"))
    assert (code, err) == (0, "")
    assert out == f"PASS {URL}: 6 derived copies match the registry\n1 target: 1 passed, 0 failed\n"


def test_prepublish_clean_example_site_passes(run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "examples" / "site")
    code, out, _ = run("prepublish", "--jobs", "1")
    assert code == 0
    assert out.splitlines()[-1] == "4 targets: 4 passed, 0 failed"
    assert "PASS articles/kumo-engine-3.html: 5 claims bound" in out


def _set_checked_at(data: Any) -> None:
    _item(data)["claim_evidence"]["claims"][0]["verification"]["checked_at"] = "2026-09-30"


DRIFTS: list[tuple[str, str, Callable[[Path], None], str]] = [
    (
        "review date in day-file",
        "out/news_2026-09-04.txt",
        lambda p: p.write_text(
            p.read_text(encoding="utf-8").replace('"checked_at":"2026-09-04"', '"checked_at":"2026-09-05"', 1),
            encoding="utf-8",
        ),
        'NW402 claim_evidence differs from the correction registry: $.claims[0].verification.checked_at is "2026-09-05", the registry has "2026-09-04"',
    ),
    (
        "review date in data.json",
        "out/top15/data.json",
        lambda p: _edit_json(p, _set_checked_at),
        "NW402 claim_evidence differs from the correction registry",
    ),
    (
        "evidence label",
        "out/daily-news/data.json",
        lambda p: _edit_json(p, lambda d: _item(d)["claim_evidence"]["claims"][0].update(evidence_label="Fact")),
        "NW402 claim_evidence differs from the correction registry: $.claims[0].evidence_label",
    ),
    (
        "dropped bundle",
        "out/top15/data.json",
        lambda p: _edit_json(p, lambda d: _item(d).pop("claim_evidence")),
        "NW401",
    ),
    (
        "changed summary",
        "out/daily-news/data.json",
        lambda p: _edit_json(p, lambda d: _item(d).update(summary=_item(d)["summary"] + "追記。")),
        "article text differs from the reviewed subject",
    ),
    (
        "undated homepage link",
        "out/homepage.json",
        lambda p: _edit_json(
            p, lambda d: _item(d).update(evidence_url="/daily-news/latest.html#evidence-nornbay-valuation")
        ),
        "NW41",
    ),
    (
        "changed blurb",
        "out/homepage.json",
        lambda p: _edit_json(p, lambda d: _item(d).update(blurb="別の要約。")),
        "NW41",
    ),
    (
        "malformed metadata line",
        "out/news_2026-09-04.txt",
        lambda p: p.write_text(
            p.read_text(encoding="utf-8").replace("🔎 Claim Evidence: {", "🔎 Claim Evidence: {,", 1), encoding="utf-8"
        ),
        "NW201",
    ),
]


@pytest.mark.parametrize("name, target, inject, expected", DRIFTS, ids=[d[0] for d in DRIFTS])
def test_prepublish_fails_on_injected_drift(
    run: Any, news: Path, name: str, target: str, inject: Callable[[Path], None], expected: str
) -> None:
    inject(news / target)
    code, out, _ = run("prepublish", "--config", str(news / "claim-evidence.toml"))
    assert code == 1, out
    assert expected in out, out
    assert out.splitlines()[-1].endswith("0 passed, 1 failed") or "failed" in out.splitlines()[-1]
    assert f"PASS {URL}" not in out


def test_prepublish_bad_registry_stops_before_outputs(run: Any, news: Path) -> None:
    _edit_json(news / "corrections.json", lambda d: d[URL]["claim_evidence"]["claims"][0].update(statement="書き換え"))
    code, out, _ = run("prepublish", "--config", str(news / "claim-evidence.toml"))
    assert code == 1
    assert "CE403 [nornbay-valuation] review fingerprint does not match current statement/conditions/sources" in out
    assert "corrections.json" in out and "derived cop" not in out


def test_prepublish_unregistered_page_never_passes(run: Any, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "examples" / "site", site)
    toml = site / "claim-evidence.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('  "notes/*.html",\n', ""), encoding="utf-8")
    code, out, _ = run("prepublish", "--config", str(toml), "--jobs", "1")
    assert code == 1
    assert "UNREGISTERED" in out and "ame-free-tier.html" in out
    assert out.splitlines()[-1] == "4 targets: 3 passed, 0 failed, 1 unregistered"


@pytest.mark.parametrize(
    "content, expected",
    [
        (
            'lang = "ja"\n[news]\ncorections = "x.json"\n',
            "SH002 unknown key news.'corections' (did you mean 'corrections'?)",
        ),
        ('pagez = ["a.html"]\n', "SH002 unknown key 'pagez' (did you mean 'pages'?)"),
        ("[news]\ndayfiles = []\n", "SH003 news.corrections must name the correction registry JSON"),
        ('[news]\ncorrections = "c.json"\nevidence_url = "/x.html"\n', "SH003 news.evidence_url must be a pattern"),
        ("pages = [\n", "SH001 invalid TOML"),
    ],
)
def test_prepublish_config_errors_exit_2(run: Any, tmp_path: Path, content: str, expected: str) -> None:
    (tmp_path / "claim-evidence.toml").write_text(content, encoding="utf-8")
    code, out, err = run("prepublish", "--config", str(tmp_path / "claim-evidence.toml"))
    assert code == 2
    assert expected in err
    assert "Traceback" not in out + err


def test_prepublish_without_config_is_usage_error(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("prepublish")
    assert code == 2 and "no claim-evidence.toml here or in a parent folder" in err


def test_prepublish_missing_output_glob_is_config_error(run: Any, news: Path) -> None:
    shutil.rmtree(news / "out")
    code, _, err = run("prepublish", "--config", str(news / "claim-evidence.toml"))
    assert code == 2 and "SH004 news.dayfiles glob 'out/news_*.txt' matches no file" in err


def test_prepublish_missing_output_glob_stops_before_any_page_is_reported(run: Any, news: Path) -> None:
    """The report streams page by page: a config error in the news outputs is found before the first
    page's line, so the run prints the error alone, never half a report without its summary."""
    config = news / "claim-evidence.toml"
    config.write_text('pages = ["a.html"]\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    (news / "a.html").write_text("<!doctype html><title>a</title><p>no evidence</p>\n", encoding="utf-8")
    shutil.rmtree(news / "out")
    code, out, err = run("prepublish", "--config", str(config), "--jobs", "1")
    assert (code, out) == (2, "") and "SH004 news.dayfiles glob 'out/news_*.txt' matches no file" in err


def test_prepublish_never_writes(run: Any, news: Path) -> None:
    before = {p: p.read_bytes() for p in news.rglob("*") if p.is_file()}
    run("prepublish", "--config", str(news / "claim-evidence.toml"))
    assert {p: p.read_bytes() for p in news.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("fmt", ["json", "github", "sarif"])
def test_prepublish_other_formats(run: Any, news: Path, fmt: str) -> None:
    (news / "out" / "homepage.json").write_text("{", encoding="utf-8")
    code, out, _ = run("prepublish", "--config", str(news / "claim-evidence.toml"), "--format", fmt)
    assert code == 1  # malformed JSON is a finding (exit 2 is for what cannot be read)
    if fmt != "github":
        json.loads(out)
    assert "homepage.json" in out
