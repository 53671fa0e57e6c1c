"""CE403 says which covered field changed since the review, when the file's git history holds it."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.documents import check_file
from claim_evidence._check.sealdiff import changed_fields, explain, sealed_payload
from claim_evidence._record.fingerprint import claim_payload

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, bundle: dict[str, Any]) -> Path:
    _git(tmp_path, "init", "-q")
    _write(tmp_path / "b.json", bundle)
    _git(tmp_path, "add", "b.json")
    _git(tmp_path, "commit", "-q", "-m", "reviewed")
    return tmp_path


def test_sealdiff_changed_fields_names_each_covered_field(bundle: dict[str, Any]) -> None:
    claim, sources = bundle["claims"][0], bundle["sources"]
    old = copy.deepcopy(claim_payload(claim, sources))
    claim["statement"] = "別の文。"
    claim["conditions"] = []
    claim["source_refs"][0]["section"] = "付録"
    sources[0]["url"] = "https://example.com/moved"
    assert changed_fields(old, claim_payload(claim, sources)) == [
        'statement (reviewed: "架空ベンダーは固定条件で達成率72.6%と公表した。")',
        "conditions",
        "reference to fictional-vendor-doc: section",
        "source fictional-vendor-doc: url",
    ]


def test_sealdiff_changed_fields_references_added_and_removed(bundle: dict[str, Any]) -> None:
    claim, sources = bundle["claims"][0], bundle["sources"]
    old = copy.deepcopy(claim_payload(claim, sources))
    sources.append({"id": "other", "publisher": "P", "title": "T", "url": "https://example.com/o"})
    claim["source_refs"] = [{"source_id": "other", "section": "s", "supports": "x"}]
    assert changed_fields(old, claim_payload(claim, sources)) == [
        "reference to other added",
        "reference to fictional-vendor-doc removed",
    ]


@needs_git
def test_sealdiff_ce403_names_what_changed_since_the_commit(repo: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["conditions"] = ["別の条件"]
    bundle["claims"][0]["as_of"] = "2026-09-04"
    _write(repo / "b.json", bundle)
    [result] = explain([check_file(repo / "b.json")])
    [ce403] = [d for d in result.diagnostics if d.code == "CE403"]
    assert ce403.message.startswith(
        "review fingerprint does not match current statement/conditions/sources; changed since the review (as committed in "
    )
    assert ce403.message.endswith(
        f"): conditions; as_of (each change: claim-evidence review diff {repo / 'b.json'} --claim fictional-rate)"
    )


@needs_git
def test_sealdiff_finds_the_reviewed_version_among_later_commits(repo: Path, bundle: dict[str, Any]) -> None:
    sealed = dict(bundle["claims"][0]["verification"])
    bundle["claims"][0]["uncertainty"] = "変更1"
    _write(repo / "b.json", bundle)
    _git(repo, "commit", "-q", "-am", "edit without review")
    bundle["claims"][0]["statement"] = "さらに変えた文。"
    _write(repo / "b.json", bundle)
    assert bundle["claims"][0]["verification"] == sealed
    found = sealed_payload(str(repo / "b.json"), bundle["claims"][0]["id"], sealed["fingerprint"])
    assert found is not None
    [result] = explain([check_file(repo / "b.json")])
    [ce403] = [d for d in result.diagnostics if d.code == "CE403"]
    assert "; uncertainty" in ce403.message and "statement (reviewed: " in ce403.message


@needs_git
def test_sealdiff_without_the_reviewed_version_the_message_is_unchanged(repo: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["fingerprint"] = "0" * 64  # no version ever hashed to this
    _write(repo / "b.json", bundle)
    [plain] = [check_file(repo / "b.json")]
    assert explain([plain]) == [plain]
    assert [d.message for d in explain([plain])[0].diagnostics if d.code == "CE403"] == [
        "review fingerprint does not match current statement/conditions/sources"
    ]


def test_sealdiff_outside_a_repository_the_message_is_unchanged(tmp_path: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = "別の文。"
    _write(tmp_path / "b.json", bundle)
    plain = check_file(tmp_path / "b.json")
    assert any(d.code == "CE403" for d in plain.diagnostics)
    assert explain([plain]) == [plain]


@needs_git
def test_sealdiff_validate_names_what_changed(run: Any, repo: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["uncertainty"] = "書き換えた不確実性"
    _write(repo / "b.json", bundle)
    code, out, _ = run("validate", str(repo / "b.json"))
    assert code == 1
    [line] = [line for line in out.splitlines() if ": CE403 " in line]
    assert (
        "CE403 [fictional-rate] review fingerprint does not match current statement/conditions/sources; changed since the review (as committed in "
        in line
    )
    assert line.endswith(
        f"): uncertainty (each change: claim-evidence review diff {repo / 'b.json'} --claim fictional-rate)"
    )


@needs_git
def test_sealdiff_static_helper_and_prepublish_name_what_changed(
    run_static: Any, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ...conftest import example_site_copy

    site = example_site_copy(tmp_path / "site")
    _git(site, "init", "-q")
    _git(site, "add", ".")
    _git(site, "commit", "-q", "-m", "site")
    page = site / "about.html"
    text = page.read_text(encoding="utf-8")
    assert text.count('"uncertainty": "照合の範囲は記事ごとに根拠表示で示す"') == 1
    page.write_text(
        text.replace('"uncertainty": "照合の範囲は記事ごとに根拠表示で示す"', '"uncertainty": "別の範囲"'),
        encoding="utf-8",
    )
    monkeypatch.chdir(site)
    expected = "): uncertainty (each change: claim-evidence review diff about.html --claim ABOUT-AI)"
    _, out, _ = run_static("--no-cache")
    [line] = [line for line in out.splitlines() if ": CE403 " in line]
    assert "changed since the review (as committed in " in line and line.endswith(expected)
    code, out, _ = run("prepublish", "--today", "2026-12-01")
    [line] = [line for line in out.splitlines() if ": CE403 " in line]
    assert code == 1 and line.endswith(expected)
