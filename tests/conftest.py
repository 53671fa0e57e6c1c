"""Shared fixtures: the seed example, sealed once with literal fingerprints."""

from __future__ import annotations

import copy
import functools
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

SEED_FINGERPRINT = "bdcd18d508044eb8cbbd0149fa9c575f46befc71e7c6d4b40f32c7a115b537ea"
SEED_SUBJECT_FINGERPRINT = "5bc54777f00ff7bbeda5ed25af3c5d1efcfb1f9d3d4070f150ad3cb4ae2a55b9"

_SUBJECT = {
    "title": "架空の根拠表示の見出し",
    "tldr": "これはローカル再現専用の架空の要約です。",
    "summary": "この本文も架空で、事実判定の対象ではありません。",
}
_BUNDLE: dict[str, Any] = {
    "version": 1,
    "subject_fingerprint": SEED_SUBJECT_FINGERPRINT,
    "sources": [
        {
            "id": "fictional-vendor-doc",
            "publisher": "架空ベンダー",
            "title": "架空の固定条件レポート",
            "url": "https://example.com/fictional-report",
            "published_at": "2026-09-03",
        }
    ],
    "claims": [
        {
            "id": "fictional-rate",
            "label": "架空の公表値",
            "statement": "架空ベンダーは固定条件で達成率72.6%と公表した。",
            "evidence_label": "Claim",
            "basis": "vendor_claim",
            "status": "matched",
            "source_refs": [
                {
                    "source_id": "fictional-vendor-doc",
                    "section": "結果",
                    "supports": "架空ベンダーが達成率を公表したという主張",
                }
            ],
            "conditions": ["架空の固定ベンチマーク", "対象は説明用データのみ"],
            "as_of": "2026-09-03",
            "uncertainty": "独立した再測定は未実施",
            "verification": {
                "checked_at": "2026-09-05",
                "method": "ai_document_review",
                "fingerprint": SEED_FINGERPRINT,
            },
        }
    ],
}


@pytest.fixture
def bundle() -> dict[str, Any]:
    """A valid, sealed bundle (a fresh deep copy per test)."""
    return copy.deepcopy(_BUNDLE)


@pytest.fixture
def subject() -> dict[str, Any]:
    return dict(_SUBJECT)


def cli_in_process(prog: str, argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The one test harness of both commands: ``(exit code, stdout, stderr)`` of ``prog`` (``claim-evidence``
    or ``static-helper``) run in process through its console script's ``main(argv)``, the code that turns
    errors into exit codes as a user's run does. Output before the call is not the command's: dropped."""
    if prog == "claim-evidence":
        from claim_evidence.cli import main
    elif prog == "static-helper":
        from static_helper.cli import main
    else:
        raise ValueError(f"no command {prog!r}")
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    """``cli("static-helper", "--write", PAGE)`` -> ``(exit code, stdout, stderr)`` (:func:`cli_in_process`)."""
    return lambda prog, *argv: cli_in_process(prog, argv, capsys)


@pytest.fixture
def run(cli: Any) -> Any:
    """``run("validate", FILE)`` -> ``(exit code, stdout, stderr)`` of the claim-evidence command, in process."""
    return functools.partial(cli, "claim-evidence")


@pytest.fixture
def run_static(cli: Any) -> Any:
    """``run_static("--write", PAGE)`` -> ``(exit code, stdout, stderr)`` of the static-helper command, in process.

    click's ``CliRunner`` stays only where a test needs the click command itself (``--version`` answered
    by click, not by ``main``'s fast path: tests/acceptance/test_static_build.py)."""
    return functools.partial(cli, "static-helper")


@pytest.fixture
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(
            f"optional: the existing site's pages and the shared fingerprint vectors are not at {SHARED} (../shared beside the project); the vendored corpora cover the rest"
        )
    return SHARED


@pytest.fixture(autouse=True)
def _user_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """static-helper without a config caches under $XDG_CACHE_HOME, and keeps the key that seals cache
    entries under $XDG_CONFIG_HOME: never the real user's, in tests."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "xdg-config"))
    monkeypatch.delenv("CLAIM_EVIDENCE_CACHE_KEY", raising=False)


# The example site shows freshness markers ([freshness] markers = true), which change when a review
# turns due soon or expires: its pages are rendered for this build date (two reviews due soon on it).
EXAMPLE_BUILD_DATE = "2026-12-01"
EXAMPLE_EPOCH = "1796083200"  # 2026-12-01T00:00:00Z


@pytest.fixture(autouse=True)
def _example_build_date(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test builds at the example's build date unless it sets its own (a test of the clock
    fallback deletes SOURCE_DATE_EPOCH): the committed example must check clean on any day."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EXAMPLE_EPOCH)


_FRESHNESS_TABLE = re.compile(r"(?ms)^\[freshness\]\n(?:(?!\[).*?\n)*")


def example_site_copy(dest: Path, freshness: str | None = None) -> Path:
    """A copy of the example site at ``dest``; with ``freshness``, its ``[freshness]`` table replaced by that
    text (``""``: none) and every registered page re-rendered to match, so a test of another policy or
    build date starts from a clean site (without markers, the blocks are as they were before them)."""
    shutil.copytree(ROOT / "examples" / "site", dest, ignore=shutil.ignore_patterns(".claim-evidence-cache"))
    if freshness is None:
        return dest
    from claim_evidence._check.page import check_text
    from claim_evidence._site.config import at_build_date, load_config, registered_pages

    config_path = dest / "claim-evidence.toml"
    text = config_path.read_text(encoding="utf-8")
    assert _FRESHNESS_TABLE.search(text), "the example's config has a [freshness] table"
    config_path.write_text(_FRESHNESS_TABLE.sub(lambda _: freshness, text), encoding="utf-8")
    config = at_build_date(load_config(config_path), None)
    for page in registered_pages(config):
        checked = check_text(page.read_bytes().decode("utf-8"), str(page), config.options)
        assert not checked.blocking, [d.text for d in checked.blocking]
        page.write_bytes(checked.rendered_text().encode("utf-8"))
    return dest


def example_page_without_markers(name: str) -> bytes:
    """An example page as a site without freshness markers renders it (the page checked with the
    default options, re-rendered): for tests that put the example's pages into a site of their own."""
    from claim_evidence._check.page import check_text

    checked = check_text((ROOT / "examples" / "site" / name).read_bytes().decode("utf-8"), name)
    assert not checked.blocking, [d.text for d in checked.blocking]
    return checked.rendered_text().encode("utf-8")


@pytest.fixture(scope="session", autouse=True)
def _shared_stays_untouched() -> Any:
    """../shared is read-only test data (CI lays it without write bits, but runs as root)."""
    if not SHARED.is_dir():
        yield
        return
    before = sorted(str(p) for p in SHARED.rglob("*"))
    yield
    after = sorted(str(p) for p in SHARED.rglob("*"))
    assert after == before, f"tests created or removed files under {SHARED}: {sorted(set(after) ^ set(before))[:5]}"
