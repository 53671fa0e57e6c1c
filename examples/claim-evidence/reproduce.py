#!/usr/bin/env python3
"""Walk through what claim-evidence guarantees, and what it deliberately does not.

Each case starts from a deep copy of fixtures.json and calls only the public
API (claim_evidence and static_helper). A case that expects a rejection passes
when the rejection is observed; nothing here recomputes or refreshes a seal.
Files are created only in a temporary folder, removed at the end.

Run:  python -B examples/claim-evidence/reproduce.py
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
# Test this checkout, never another installed copy (case 01 verifies it).
sys.path.insert(0, str(CHECKOUT))

import claim_evidence  # noqa: E402
import static_helper  # noqa: E402
from claim_evidence import dumps_for_script, render_evidence, validate_bundle  # noqa: E402

FIXTURES: dict[str, Any] = json.loads((HERE / "fixtures.json").read_text(encoding="utf-8"))
MATCHED = "資料との照合済み"
UNVERIFIED = "未確認・根拠未登録"
FINGERPRINT_ERROR = "review fingerprint does not match current statement/conditions/sources"
MISQUOTED = "statement has 300億 (30000000000) but no quoted passage has that value; quotes have 30億 (3000000000)"


class Unexpected(Exception):
    """A case observed something other than what the toolkit promises."""


def expect(condition: bool, reason: str) -> None:
    if not condition:
        raise Unexpected(reason)


def fixture(name: str) -> Any:
    return copy.deepcopy(FIXTURES[name])


def expect_rejected(bundle: dict[str, Any], phrase: str, stored: str, subject: Any = None) -> None:
    """The bundle is rejected with ``phrase``, its seal untouched, and never shown as matched."""
    errors = validate_bundle(bundle, subject)
    expect(any(phrase in e for e in errors), f"expected {phrase!r}, got {errors}")
    expect(bundle["claims"][0]["verification"]["fingerprint"] == stored, "the stored fingerprint was changed")
    html = render_evidence(bundle, subject=subject)
    expect(MATCHED not in html and UNVERIFIED in html, "a rejected record was displayed as matched")


def page_text(bundle: Any) -> str:
    return FIXTURES["page_template"].replace(FIXTURES["page_placeholder"], dumps_for_script(bundle))


# --- the cases ---------------------------------------------------------------------


def core_under_test() -> str:
    for module in (claim_evidence, static_helper):
        location = Path(module.__file__ or "").resolve()
        expect(CHECKOUT in location.parents, f"{module.__name__} imported from {location}, not this checkout")
    return f"claim-evidence {claim_evidence.__version__}, this checkout"


def valid_record() -> None:
    bundle, subject = fixture("bundle"), fixture("subject")
    expect(validate_bundle(bundle, subject) == [], f"seed example rejected: {validate_bundle(bundle, subject)}")
    html = render_evidence(bundle, subject=subject)
    expect("ベンダー公称値" in html and MATCHED in html, "basis or status label missing")


def statement_change_rejected() -> None:
    bundle = fixture("bundle")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    bundle["claims"][0]["statement"] = bundle["claims"][0]["statement"].replace("72.6", "76.2")
    expect_rejected(bundle, FINGERPRINT_ERROR, stored)


def conditions_change_rejected() -> None:
    bundle = fixture("bundle")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    bundle["claims"][0]["conditions"].pop()
    expect_rejected(bundle, FINGERPRINT_ERROR, stored)


def missing_source_rejected() -> None:
    bundle = fixture("bundle")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    bundle["sources"] = []
    expect_rejected(bundle, "missing referenced source", stored)


def source_record_change_rejected() -> None:
    bundle = fixture("bundle")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    bundle["sources"][0]["url"] = "https://example.com/another-report"
    expect_rejected(bundle, FINGERPRINT_ERROR, stored)


def legacy_without_badge() -> None:
    for legacy in (None, {}):
        expect(validate_bundle(legacy) == [], f"legacy {legacy!r} reported errors")
        expect(render_evidence(legacy) == "", f"legacy {legacy!r} rendered a badge")


def provenance_not_upgraded() -> None:
    html = render_evidence(fixture("bundle"))
    expect("ベンダー公称値" in html and "AIによる資料照合" in html, "recorded provenance not shown")
    expect("第三者の測定" not in html, "a vendor claim was shown as a third-party measurement")
    expect("人による資料照合" not in html, "an AI review was shown as a human review")


def review_metadata_not_authenticated() -> None:
    bundle = fixture("bundle")
    bundle["claims"][0]["verification"].update(checked_at="2026-10-31", method="human_document_review")
    expect(validate_bundle(bundle) == [], "hand-edited review metadata was rejected; the limit changed?")
    html = render_evidence(bundle)
    expect("2026-10-31" in html and "人による資料照合" in html, "hand-edited review metadata not displayed")


def static_regeneration_identical() -> None:
    bundle = fixture("bundle")
    original = page_text(bundle)
    first, errors = static_helper.render_static_page(original)
    expect(errors == [], f"page rejected: {errors}")
    second, errors = static_helper.render_static_page(first)
    expect(errors == [] and second == first, "a second render changed the page")
    again, _ = static_helper.render_static_page(original)
    expect(again == first, "rendering the same page twice gave different bytes")
    expect(first.endswith(original[original.index("</main>") :]), "bytes after the slot changed (bundle included)")
    with tempfile.TemporaryDirectory(prefix="claim-evidence-reproduce-") as folder:
        page = Path(folder) / "page.html"
        page.write_bytes(first.encode("utf-8"))
        expect(static_helper.check_static_page(page) == [], "the checker rejected the regenerated page")


def implausible_claim_not_truth_checked() -> None:
    bundle = fixture("implausible_bundle")
    expect(validate_bundle(bundle) == [], f"a structurally valid record was rejected: {validate_bundle(bundle)}")
    expect(MATCHED in render_evidence(bundle), "the implausible claim's recorded status was not displayed")


def subject_and_body_changes_rejected() -> None:
    bundle, subject = fixture("bundle"), fixture("subject")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    subject["summary"] += "（追記）"
    expect_rejected(bundle, "article text differs from the reviewed subject", stored, subject)
    # Only the first occurrence: the body text, not the statement in the embedded bundle.
    changed = page_text(fixture("bundle")).replace("達成率72.6%", "達成率76.2%", 1)
    rendered, errors = static_helper.render_static_page(changed)
    expect(any("body text differs from reviewed statement" in e for e in errors), f"body change not caught: {errors}")
    expect(rendered == changed, "a rejected page was rewritten")


def figure_not_in_quote_rejected() -> None:
    """The error the toolkit exists for: a reviewed and sealed record whose statement says 300億
    where the passage it quotes says 30億. The seal matches; the number check does not."""
    bundle = fixture("misquoted_bundle")
    stored = bundle["claims"][0]["verification"]["fingerprint"]
    expect(not any(FINGERPRINT_ERROR in e for e in validate_bundle(bundle)), "the seal should still match")
    expect_rejected(bundle, MISQUOTED, stored)
    bundle["claims"][0]["statement"] = bundle["claims"][0]["statement"].replace("300億円", "30億円")
    errors = validate_bundle(bundle)
    expect(not any("no quoted passage" in e for e in errors), f"the quoted figure was not found: {errors}")
    expect(any(FINGERPRINT_ERROR in e for e in errors), "a corrected statement must be reviewed again")


def status_edit_after_signing_rejected() -> str | None:
    """What case 09 cannot catch, a signed review catches: the reviewer signs the review with an SSH key
    the site lists in its allowed_signers; a status edited afterwards no longer matches the signature."""
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        return "skipped: ssh-keygen (OpenSSH) is not installed"
    from claim_evidence.cli import main as command

    with tempfile.TemporaryDirectory(prefix="claim-evidence-reproduce-") as folder:
        site = Path(folder)
        key = site / "reviewer"
        subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(key)], check=True)
        public = key.with_suffix(".pub").read_text(encoding="ascii").split()
        (site / "allowed_signers").write_text(f'編集部 namespaces="claim-evidence" {public[0]} {public[1]}\n', "utf-8")
        config = site / "claim-evidence.toml"
        config.write_text('[reviews]\nallowed_signers = "allowed_signers"\nrequire_signature = "error"\n', "utf-8")
        file = site / "b.json"
        file.write_text(json.dumps(fixture("bundle"), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        claim = fixture("bundle")["claims"][0]["id"]

        def run(*argv: str) -> tuple[int, str]:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = command(list(argv))
            return code, out.getvalue() + err.getvalue()

        validate = ("validate", "--config", str(config), "--today", "2026-12-01", str(file))
        code, said = run(*validate)
        expect(code == 1 and "CE414" in said, f"an unsigned review passed where one is required: {said}")
        code, said = run("review", "sign", str(file), "--claim", claim, "--key", str(key))
        expect(code == 0 and "signed by 編集部" in said, f"the review was not signed: {said}")
        code, said = run(*validate)
        expect(code == 0, f"the signed review was rejected: {said}")
        file.write_text(file.read_text(encoding="utf-8").replace('"matched"', '"partial"', 1), encoding="utf-8")
        code, said = run(*validate)
        expect(code == 1 and "CE411" in said, f"a status edited after signing was not caught: {said}")
    return None


CASES: list[tuple[str, Callable[[], str | None]]] = [
    ("01", core_under_test),
    ("02", valid_record),
    ("03", statement_change_rejected),
    ("04", conditions_change_rejected),
    ("05", missing_source_rejected),
    ("06", source_record_change_rejected),
    ("07", legacy_without_badge),
    ("08", provenance_not_upgraded),
    ("09", review_metadata_not_authenticated),
    ("10", static_regeneration_identical),
    ("11", implausible_claim_not_truth_checked),
    ("12", subject_and_body_changes_rejected),
    ("13", figure_not_in_quote_rejected),
    ("14", status_edit_after_signing_rejected),
]


def main() -> int:
    failures = 0
    for number, case in CASES:
        try:
            detail = case()
        except Unexpected as exc:
            failures += 1
            print(f"FAIL {number} {case.__name__}: {exc}")
        except Exception as exc:  # a crash is a failure of the toolkit, reported, not raised
            failures += 1
            print(f"FAIL {number} {case.__name__}: {type(exc).__name__}: {exc}")
        else:
            print(f"PASS {number} {case.__name__}" + (f" ({detail})" if detail else ""))
    if failures:
        print(f"RESULT unexpected failures: {failures}/{len(CASES)}")
        return 1
    print(f"RESULT {len(CASES)}/{len(CASES)} checks passed; expected rejections were observed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
