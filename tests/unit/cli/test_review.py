"""``review record``: the diff of what it wrote, the warnings still pending on the claim, ``--strict``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.sealstore import FILE_NAME, SealStore
from claim_evidence._record.fingerprint import claim_fingerprint, claim_payload

REVIEW = ("--claim", "fictional-rate", "--method", "human_document_review", "--checked-at", "2026-10-01")
CE905 = (
    "b.json:$.claims[0].source_refs: CE905 [fictional-rate] statement has numbers but no quoted passage to check "
    "them against (add quote.exact to a source_ref): 72.7 (warning)\n"
)
EDITED = "架空ベンダーは固定条件で達成率72.7%と公表した。"


def _write(path: Path, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def _sealed_now(bundle: dict[str, Any]) -> str:
    claim = json.loads(json.dumps(bundle["claims"][0]))
    claim["verification"] = {"checked_at": "2026-10-01", "method": "human_document_review"}
    return claim_fingerprint(claim, bundle["sources"])


def _diff(at: int, fingerprint: str) -> str:
    return (
        "--- a/b.json\n"
        "+++ b/b.json\n"
        f"@@ -{at},9 +{at},9 @@\n"
        '       "as_of": "2026-09-03",\n'
        '       "uncertainty": "独立した再測定は未実施",\n'
        '       "verification": {\n'
        '-        "checked_at": "2026-09-05",\n'
        '-        "method": "ai_document_review",\n'
        '-        "fingerprint": "bdcd18d508044eb8cbbd0149fa9c575f46befc71e7c6d4b40f32c7a115b537ea"\n'
        '+        "checked_at": "2026-10-01",\n'
        '+        "method": "human_document_review",\n'
        f'+        "fingerprint": "{fingerprint}"\n'
        "       }\n"
        "     }\n"
        "   ]\n"
    )


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_review_record_prints_its_diff_then_the_pending_warning(run: Any, here: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = EDITED
    _write(here / "b.json", bundle)
    code, out, err = run("review", "record", "b.json", *REVIEW)
    assert (code, err) == (0, "")
    assert out == _diff(32, _sealed_now(bundle)) + "b.json: review of fictional-rate recorded\n" + CE905


def test_review_record_strict_refuses_while_a_warning_is_pending(run: Any, here: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = EDITED
    before = _write(here / "b.json", bundle)
    code, out, err = run("review", "record", "b.json", *REVIEW, "--strict")
    assert (code, out) == (1, "")
    assert err == (
        f"claim-evidence: {CE905}"
        "claim-evidence: review of fictional-rate not recorded: --strict refuses while a warning is pending on it; "
        "b.json is unchanged\n"
    )
    assert (here / "b.json").read_text(encoding="utf-8") == before
    assert "2026-10-01" not in before


def test_review_record_strict_seals_once_the_passage_is_quoted(run: Any, here: Path, bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = EDITED
    bundle["claims"][0]["source_refs"][0]["quote"] = {"exact": "達成率は72.7%"}
    _write(here / "b.json", bundle)
    code, out, err = run("review", "record", "b.json", *REVIEW, "--strict")
    assert (code, err) == (0, "")
    fingerprint = _sealed_now(bundle)
    assert out == _diff(35, fingerprint) + "b.json: review of fictional-rate recorded\n"


def test_review_record_keeps_the_sealed_version_in_the_site_seal_store(
    run: Any, here: Path, bundle: dict[str, Any]
) -> None:
    (here / "claim-evidence.toml").write_text('pages = ["*.html"]\n', encoding="utf-8")
    _write(here / "b.json", bundle)
    assert run("review", "record", "b.json", *REVIEW)[0] == 0
    stored = json.loads((here / "b.json").read_text(encoding="utf-8"))
    fingerprint = stored["claims"][0]["verification"]["fingerprint"]
    store = SealStore(here / ".claim-evidence-cache" / FILE_NAME)
    assert store.get(fingerprint) == claim_payload(stored["claims"][0], stored["sources"])
    assert (here / ".claim-evidence-cache" / ".gitignore").is_file()  # never committed by mistake


# --- review diff: on a real git repository made in the test -------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
RECORD = "claim-evidence review record {} --claim fictional-rate --method … --checked-at …"


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def repo(here: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict[str, Any]) -> Path:
    """``b.json`` (the sealed seed) committed; a seal store of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(here / "xdg"))
    _git(here, "init", "-q")
    _write(here / "b.json", bundle)
    _git(here, "add", "b.json")
    _git(here, "commit", "-q", "-m", "reviewed")
    return here


def _head(repo: Path, rev: str = "HEAD") -> str:
    return _git(repo, "rev-parse", "--short=12", rev).strip()


@needs_git
def test_review_diff_shows_each_changed_field_since_the_commit(run: Any, repo: Path, bundle: dict[str, Any]) -> None:
    sealed = _head(repo)
    claim = bundle["claims"][0]
    claim["statement"] = EDITED
    claim["conditions"] = ["架空の固定ベンチマーク"]
    claim["source_refs"][0]["quote"] = {"exact": "達成率は72.7%"}
    bundle["sources"][0]["url"] = "https://example.com/moved"
    _write(repo / "b.json", bundle)
    _git(repo, "commit", "-q", "-am", "edited, not reviewed")
    code, out, err = run("review", "diff", "b.json", "--claim", "fictional-rate")
    assert (code, err) == (0, "")
    assert out == (
        f"b.json: review of fictional-rate no longer covers the record; changed since the review (commit {sealed}, as b.json):\n"
        "  statement:\n"
        '    - "架空ベンダーは固定条件で達成率72.6%と公表した。"\n'
        '    + "架空ベンダーは固定条件で達成率72.7%と公表した。"\n'
        '    ~ "架空ベンダーは固定条件で達成率72.[-6-]{+7+}%と公表した。"\n'
        "  conditions:\n"
        '    - ["架空の固定ベンチマーク", "対象は説明用データのみ"]\n'
        '    + ["架空の固定ベンチマーク"]\n'
        '    ~ ["架空の固定ベンチマーク"[-, "対象は説明用データのみ"-]]\n'
        "  reference to fictional-vendor-doc: quote:\n"
        "    - (none)\n"
        '    + {"exact": "達成率は72.7%"}\n'
        "  source fictional-vendor-doc: url:\n"
        '    - "https://example.com/fictional-report"\n'
        '    + "https://example.com/moved"\n'
        '    ~ "https://example.com/[-fictional-report-]{+moved+}"\n'
        f"then, after reading what changed: {RECORD.format('b.json')}\n"
    )


@needs_git
@pytest.mark.parametrize("old_name", ["b.json", "記事.json"])
def test_review_diff_follows_a_rename_of_the_file(run: Any, repo: Path, bundle: dict[str, Any], old_name: str) -> None:
    if old_name != "b.json":
        _git(repo, "mv", "b.json", old_name)
        _git(repo, "commit", "-q", "-m", "named as reviewed")
    sealed = _head(repo)
    _git(repo, "mv", old_name, "renamed.json")
    bundle["claims"][0]["as_of"] = "2026-09-04"
    _write(repo / "renamed.json", bundle)
    _git(repo, "commit", "-q", "-am", "renamed and edited")  # (the sealed version is only under the old name)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    code, out, _ = run("review", "diff", "renamed.json", "--claim", "fictional-rate")
    assert code == 0
    assert out == (
        f"renamed.json: review of fictional-rate no longer covers the record; changed since the review (commit {sealed}, as {old_name}):\n"
        "  as_of:\n"
        '    - "2026-09-03"\n'
        '    + "2026-09-04"\n'
        '    ~ "2026-09-0[-3-]{+4+}"\n'
        f"then, after reading what changed: {RECORD.format('renamed.json')}\n"
    )


@needs_git
def test_review_diff_without_a_sealed_version_says_where_it_looked(
    run: Any, here: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict[str, Any]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(here / "xdg"))
    _git(here, "init", "-q")
    bundle["claims"][0]["uncertainty"] = "書き換えた"
    _write(here / "late.json", bundle)  # committed only after the edit: no version hashes to the seal
    _git(here, "add", "late.json")
    _git(here, "commit", "-q", "-m", "late")
    code, out, err = run("review", "diff", "late.json", "--claim", "fictional-rate")
    assert (code, err) == (1, "")
    assert out == (
        "late.json: review of fictional-rate no longer covers the record, and the reviewed version was not found: "
        "none of the last 30 commits of late.json in git has it (renames followed); the seal store "
        "(xdg/claim-evidence/seals.sqlite3) does not have it; read every covered field and cited source again, "
        f"then: {RECORD.format('late.json')}\n"
    )


@needs_git
def test_review_diff_of_a_covered_claim_and_of_one_never_reviewed(run: Any, repo: Path, bundle: dict[str, Any]) -> None:
    assert run("review", "diff", "b.json", "--claim", "fictional-rate") == (
        0,
        "b.json: review of fictional-rate still covers the record\n",
        "",
    )
    del bundle["claims"][0]["verification"]
    bundle["claims"][0]["status"] = "unverified"
    _write(repo / "b.json", bundle)
    assert run("review", "diff", "b.json", "--claim", "fictional-rate") == (
        1,
        "b.json: fictional-rate has no review to compare with (no verification.fingerprint); after reading its "
        f"sources: {RECORD.format('b.json')}\n",
        "",
    )
    code, _, err = run("review", "diff", "b.json", "--claim", "nope")
    assert code == 2 and err.endswith("b.json has no claim with id 'nope'; its claims: fictional-rate\n")


def test_review_diff_outside_git_reads_the_seal_store_review_record_filled(
    run: Any, here: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict[str, Any]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(here / "xdg"))
    bundle["claims"][0]["statement"] = EDITED
    _write(here / "b.json", bundle)
    assert run("review", "record", "b.json", *REVIEW)[0] == 0
    stored = json.loads((here / "b.json").read_text(encoding="utf-8"))
    stored["claims"][0]["basis"] = "reporting"
    _write(here / "b.json", stored)
    code, out, _ = run("review", "diff", "b.json", "--claim", "fictional-rate")
    assert code == 0
    assert out == (
        "b.json: review of fictional-rate no longer covers the record; changed since the review "
        "(kept in the seal store xdg/claim-evidence/seals.sqlite3):\n"
        "  basis:\n"
        '    - "vendor_claim"\n'
        '    + "reporting"\n'
        '    ~ "[-vendor_claim-]{+reporting+}"\n'
        f"then, after reading what changed: {RECORD.format('b.json')}\n"
    )
    (here / "xdg" / "claim-evidence" / FILE_NAME).unlink()
    code, out, _ = run("review", "diff", "b.json", "--claim", "fictional-rate")
    assert code == 1 and "b.json is not in a git repository; the seal store (" in out


@needs_git
def test_review_diff_of_an_article_and_of_a_markdown_source(run: Any, repo: Path, bundle: dict[str, Any]) -> None:
    """The reviewed version is read from each kind of file that holds a bundle, as committed."""
    article = {"title": "t", "claim_evidence": bundle}
    _write(repo / "item.json", article)
    script = json.dumps(bundle, ensure_ascii=False, indent=2)
    markdown = f'# 架空\n\n<script type="application/json" id="claim-evidence-data">\n{script}\n</script>\n'
    (repo / "page.md").write_text(markdown, encoding="utf-8")
    _git(repo, "add", "item.json", "page.md")
    _git(repo, "commit", "-q", "-m", "more")
    sealed = _head(repo)
    bundle["claims"][0]["measurement"] = {"unit": "%"}
    _write(repo / "item.json", {**article, "claim_evidence": bundle})
    edited = json.dumps(bundle, ensure_ascii=False, indent=2)
    (repo / "page.md").write_text(markdown.replace(script, edited), encoding="utf-8")
    for name in ("item.json", "page.md"):
        assert run("review", "diff", name, "--claim", "fictional-rate") == (
            0,
            f"{name}: review of fictional-rate no longer covers the record; changed since the review (commit {sealed}, as {name}):\n"
            "  measurement:\n"
            "    - (none)\n"
            '    + {"unit": "%"}\n'
            f"then, after reading what changed: {RECORD.format(name)}\n",
            "",
        )
