"""The walkthrough as a user runs it: exact output and exit code, and proof that
it notices when the library loses a guarantee."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import claim_evidence

from ..conftest import ROOT

SCRIPT = ROOT / "examples" / "claim-evidence" / "reproduce.py"
NAMES = [
    "core_under_test",
    "valid_record",
    "statement_change_rejected",
    "conditions_change_rejected",
    "missing_source_rejected",
    "source_record_change_rejected",
    "legacy_without_badge",
    "provenance_not_upgraded",
    "review_metadata_not_authenticated",
    "static_regeneration_identical",
    "implausible_claim_not_truth_checked",
    "subject_and_body_changes_rejected",
    "figure_not_in_quote_rejected",
    "status_edit_after_signing_rejected",
]


def _run(code: str | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-B", str(SCRIPT)] if code is None else [sys.executable, "-B", "-c", code]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=120)


def test_reproduce_prints_fourteen_passes_from_any_folder(tmp_path: Path) -> None:
    fixtures = (SCRIPT.parent / "fixtures.json").read_bytes()
    site = {p: p.read_bytes() for p in (ROOT / "examples").rglob("*.html")}
    done = _run(None, tmp_path)
    expected = [f"PASS 01 core_under_test (claim-evidence {claim_evidence.__version__}, this checkout)"]
    expected += [f"PASS {n:02d} {name}" for n, name in enumerate(NAMES[1:], 2)]
    expected.append("RESULT 14/14 checks passed; expected rejections were observed.")
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == (0, expected, "")
    assert list(tmp_path.iterdir()) == []  # created nothing where it ran
    assert (SCRIPT.parent / "fixtures.json").read_bytes() == fixtures
    assert {p: p.read_bytes() for p in site} == site


def _run_without_rule(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The walkthrough with one validation rule deleted: it must notice the lost guarantee."""
    sabotage = (
        "import runpy, sys\n"
        "import claim_evidence._record.validation as validation\n"
        f"del validation.RULES[{code!r}]  # break the library on purpose\n"
        f"sys.argv = [{str(SCRIPT)!r}]\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n"
    )
    return _run(sabotage, cwd)


def test_reproduce_reports_fail_when_fingerprint_rule_is_removed(tmp_path: Path) -> None:
    done = _run_without_rule("CE403", tmp_path)
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert lines[-1] == "RESULT unexpected failures: 4/14"
    failed = [line.split(":")[0] for line in lines if line.startswith("FAIL")]
    assert failed == [
        "FAIL 03 statement_change_rejected",
        "FAIL 04 conditions_change_rejected",
        "FAIL 06 source_record_change_rejected",
        "FAIL 13 figure_not_in_quote_rejected",
    ]
    assert "expected 'review fingerprint does not match current statement/conditions/sources', got []" in done.stdout


def test_reproduce_reports_fail_when_number_check_is_removed(tmp_path: Path) -> None:
    done = _run_without_rule("CE317", tmp_path)
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert lines[-1] == "RESULT unexpected failures: 1/14"
    assert [line for line in lines if line.startswith("FAIL")] == [
        "FAIL 13 figure_not_in_quote_rejected: expected 'statement has 300億 (30000000000) but no quoted passage has that value; "
        "quotes have 30億 (3000000000)', got []"
    ]


def test_reproduce_fixtures_are_fictional_and_sealed_literals() -> None:
    fixtures = json.loads((SCRIPT.parent / "fixtures.json").read_text(encoding="utf-8"))
    assert "架空" in fixtures["fixture_note"]
    seal = fixtures["bundle"]["claims"][0]["verification"]["fingerprint"]
    assert seal == "bdcd18d508044eb8cbbd0149fa9c575f46befc71e7c6d4b40f32c7a115b537ea"
    assert (
        fixtures["bundle"]["subject_fingerprint"] == "5bc54777f00ff7bbeda5ed25af3c5d1efcfb1f9d3d4070f150ad3cb4ae2a55b9"
    )
    misquoted = fixtures["misquoted_bundle"]
    assert (
        claim_evidence.claim_fingerprint(misquoted["claims"][0], misquoted["sources"])
        == misquoted["claims"][0]["verification"]["fingerprint"]
    )
    assert "claim_fingerprint" not in SCRIPT.read_text(encoding="utf-8")  # the runner never recomputes a seal


def test_reproduce_reports_fail_when_signatures_are_not_verified(tmp_path: Path) -> None:
    """With every signature taken as good, the status edit after signing goes through: case 14 fails."""
    sabotage = (
        "import runpy, sys\n"
        "import claim_evidence._check.signing as signing\n"
        "from claim_evidence._core.sshsig import Verdict\n"
        "signing.verify = lambda *args: Verdict('good')  # break the library on purpose\n"
        f"sys.argv = [{str(SCRIPT)!r}]\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n"
    )
    done = _run(sabotage, tmp_path)
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert lines[-1] == "RESULT unexpected failures: 1/14"
    assert [line.split(":")[0] for line in lines if line.startswith("FAIL")] == [
        "FAIL 14 status_edit_after_signing_rejected"
    ]
    assert "a status edited after signing was not caught" in done.stdout
