"""``review record``: the diff of what it wrote, the warnings still pending on the claim, ``--strict``."""

from __future__ import annotations

import json
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
