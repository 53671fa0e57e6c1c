from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint
from claim_evidence._snapshots.check import SKIPPED

from ...conftest import ROOT, SEED_FINGERPRINT, SEED_SUBJECT_FINGERPRINT


def _write(path: Path, value: Any, **kwargs: Any) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, **kwargs), encoding="utf-8")
    return path


def _at(path: Path, key: str, nth: int = 1) -> str:
    """``line:column`` of the ``nth`` occurrence of the JSON key ``key`` in the file (1-based, as findings count)."""
    needle = f'"{key}"'
    text = path.read_text(encoding="utf-8")
    offset = -1
    for _ in range(nth):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def test_cli_validate_clean_bundle(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    # The seed was reviewed before quotes existed: its 72.6 cannot be checked, a warning that passes.
    unquoted = (
        f"{path}:{_at(path, 'source_refs')}: CE905 [fictional-rate] statement has numbers but no quoted passage to check "
        "them against (add quote.exact to a source_ref): 72.6 (warning)\n"
    )
    assert run("validate", str(path)) == (0, f"PASS {path}\n{unquoted}1 file: 1 passed, 0 failed\n", "")
    bundle["claims"][0]["source_refs"][0]["quote"] = {"exact": "達成率は72.6%"}
    bundle["claims"][0]["verification"]["fingerprint"] = claim_fingerprint(bundle["claims"][0], bundle["sources"])
    path = _write(tmp_path / "quoted.json", bundle)
    assert run("validate", str(path)) == (0, f"PASS {path}\n1 file: 1 passed, 0 failed\n", "")


def test_cli_validate_article_checks_subject(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    good = _write(tmp_path / "a.json", dict(subject, claim_evidence=bundle))
    assert run("validate", str(good))[0] == 0
    bad = _write(tmp_path / "bad.json", dict(subject, summary="変えた", claim_evidence=bundle), indent=2)
    code, out, _ = run("validate", str(bad))
    assert code == 1
    assert out == (  # in the order of the file's lines: the subject fingerprint comes before the claims
        f"{bad}:{_at(bad, 'subject_fingerprint')}: CE106 article text differs from the reviewed subject\n"
        f"{bad}:{_at(bad, 'source_refs')}: CE905 [fictional-rate] statement has numbers but no quoted passage to check "
        "them against (add quote.exact to a source_ref): 72.6 (warning)\n"
        "1 file: 0 passed, 1 failed\n"
    )


def test_cli_validate_text_lines_name_file_path_and_code(run: Any, tmp_path: Path, bundle: dict) -> None:
    """``FILE:LINE:COL: CODE [claim] message``, the line and column of the JSON value, as static-helper prints."""
    bundle["claims"][0]["statement"] = "変更した文。"
    path = _write(tmp_path / "b.json", bundle, indent=2)
    code, out, _ = run("validate", str(path))
    assert code == 1
    assert out.splitlines()[0] == (
        f"{path}:{_at(path, 'fingerprint')}: CE403 [fictional-rate] review fingerprint does not match current statement/conditions/sources"
    )


def test_cli_validate_json_format_fixed_keys(run: Any, tmp_path: Path, bundle: dict) -> None:
    bundle["claims"][0]["basis"] = "vibes"
    path = _write(tmp_path / "b.json", bundle)
    code, out, _ = run("validate", "--format", "json", str(path))
    data = json.loads(out)
    assert code == 1
    assert list(data) == ["summary", "files"]
    first = data["files"][0]["diagnostics"][0]
    assert list(first) == ["code", "severity", "message", "path", "subject", "file", "line", "column"]
    assert first["code"] == "CE303" and first["path"] == "$.claims[0].basis"


def test_cli_validate_github_format_escapes(run: Any, tmp_path: Path, bundle: dict) -> None:
    bundle["claims"][0]["basis"] = "vibes"
    path = _write(tmp_path / "a,b:c%.json", bundle, indent=2)
    code, out, _ = run("validate", "--format", "github", str(path))
    assert code == 1
    escaped = str(path).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    line, column = _at(path, "basis").split(":")
    bases = "official_spec, vendor_claim, independent_measurement, reporting, operator_measurement, editorial"
    message = f"unknown basis: basis must be one of {bases} (found 'vibes')"
    assert (
        f"::error file={escaped},line={line},col={column},title=CE303::$.claims[0].basis: {message}" in out.splitlines()
    )


def test_cli_validate_strict_turns_warnings_into_failures(run: Any, tmp_path: Path, bundle: dict) -> None:
    bundle["claims"][0]["uncertanity"] = "typo"
    path = _write(tmp_path / "b.json", bundle, indent=2)
    code, out, _ = run("validate", str(path))
    assert code == 0
    where = _at(path, "uncertanity")
    assert (
        f"{path}:{where}: CE900 [fictional-rate] unknown key 'uncertanity'; did you mean 'uncertainty'? (warning)"
        in out
    )
    assert run("validate", "--strict", str(path))[0] == 1


def test_cli_validate_duplicate_key_in_text_is_reported(run: Any, tmp_path: Path, bundle: dict) -> None:
    text = json.dumps(bundle, ensure_ascii=False, indent=2).replace(
        '"status": "matched"', '"status": "unverified",\n      "status": "matched"'
    )
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run("validate", str(path))
    assert code == 0
    where = _at(path, "status")  # the first of the two
    assert (
        f"{path}:{where}: CE901 [fictional-rate] duplicate key in the JSON text: only the last value is kept (warning)"
        in out
    )


@pytest.mark.parametrize(
    "content, exit_code, expected",
    [
        (b'{"version": 1,\n  "claims": [}', 1, ":2:14: CE003 invalid JSON: Expecting value"),
        (b'{"a": "\xff"}', 2, ":1:8: CE002 not UTF-8: byte 0xff at offset 7; re-save the file as UTF-8"),
        (b"[" * 10_000 + b"]" * 10_000, 1, ": CE005 JSON nested"),
        (b'{"a": NaN}', 1, ": CE003 invalid JSON: NaN is not valid JSON"),
        (
            b"",
            1,
            ': CE003 empty file: no JSON value (a bundle is an object: {"version": 1, "sources": [], "claims": []})',
        ),
        (b" \r\n", 1, ": CE003 empty file: no JSON value"),
    ],
)
def test_cli_validate_malformed_is_a_finding_unreadable_is_exit_2(
    run: Any, tmp_path: Path, content: bytes, exit_code: int, expected: str
) -> None:
    """One policy (SCHEMA.md "Exit codes"): JSON that was read but is malformed is a finding (1), in a
    bundle file as in a page's script; a file that cannot be read as UTF-8 text is exit 2."""
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    code, out, err = run("validate", str(path))
    assert code == exit_code
    assert f"{path}{expected}" in out
    assert "Traceback" not in out + err


def test_cli_validate_missing_file_and_size_limit(run: Any, tmp_path: Path, bundle: dict) -> None:
    code, out, _ = run("validate", str(tmp_path / "nope.json"))
    assert (code, out.splitlines()[0]) == (2, f"{tmp_path / 'nope.json'}: CE001 file not found")
    path = _write(tmp_path / "b.json", bundle)
    code, out, _ = run("validate", "--max-bytes", "100", str(path))
    assert code == 2 and "CE004 file is" in out and "over the 100-byte limit" in out


def test_cli_validate_bom_is_accepted(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(bundle).encode())
    assert run("validate", str(path))[0] == 0


def test_cli_usage_errors_exit_2(run: Any) -> None:
    code, _, err = run("validate")
    assert code == 2 and "Missing argument" in err
    code, _, err = run("frobnicate")
    assert code == 2 and "No such command" in err


def test_cli_help_explains(run: Any) -> None:
    code, out, _ = run("--help")
    assert code == 0
    assert "does not judge truth" in out
    for command in ("validate", "fingerprint", "render", "review", "schema", "assets"):
        assert command in out


def test_cli_fingerprint_prints_digest(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = _write(tmp_path / "a.json", dict(subject, claim_evidence=bundle))
    assert run("fingerprint", str(path), "--claim", "fictional-rate") == (0, SEED_FINGERPRINT + "\n", "")
    assert run("fingerprint", str(path), "--subject") == (0, SEED_SUBJECT_FINGERPRINT + "\n", "")
    code, _, err = run("fingerprint", str(path), "--claim", "nope")
    assert (
        code == 2
        and f"Error: Invalid value for '--claim': {path} has no claim with id 'nope'; its claims: fictional-rate\n"
        in err
    )


def test_cli_fingerprint_unknown_claim_suggests_the_close_one(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    code, out, err = run("fingerprint", str(path), "--claim", "fictional-rat")
    assert (code, out) == (2, "")
    assert err.endswith(
        f"{path} has no claim with id 'fictional-rat' (did you mean 'fictional-rate'?); its claims: fictional-rate\n"
    )


FINGERPRINT_TAIL = "no fingerprint printed; fix it first (claim-evidence validate {path} lists every problem)"


@pytest.mark.parametrize(
    ("change", "at", "expected"),
    [
        (lambda b: b.update(claims=123), "claims", "$.claims must be an array (found the number 123)"),
        (lambda b: b.update(claims="fictional-rate"), "claims", "$.claims must be an array (found 'fictional-rate')"),
        (lambda b: b.update(claims={"id": "fictional-rate"}), "claims", "$.claims must be an array (found an object)"),
        (lambda b: b.update(sources=True), "sources", "$.sources must be an array (found the boolean true)"),
        (lambda b: b.update(sources=None), "sources", "$.sources must be an array (found null)"),
        (
            lambda b: b["claims"][0].update(statement=5),
            "statement",
            "$.claims[0].statement must be a string (found the number 5)",
        ),
        (
            lambda b: b["claims"][0].update(statement=["x"]),
            "statement",
            "$.claims[0].statement must be a string (found an array)",
        ),
        (
            lambda b: b["claims"][0].update(source_refs={}),
            "source_refs",
            "$.claims[0].source_refs must be an array (found an empty object)",
        ),
        (
            lambda b: b["claims"][0].update(source_refs=["fictional-vendor-doc"]),
            "",
            "$.claims[0].source_refs[0] must be an object (found 'fictional-vendor-doc')",
        ),
        (
            lambda b: b["claims"][0]["source_refs"][0].update(source_id=["fictional-vendor-doc"]),
            "source_id",
            "$.claims[0].source_refs[0].source_id must be a string (found an array)",
        ),
    ],
)
def test_cli_fingerprint_wrong_json_type_is_ce006(
    run: Any, tmp_path: Path, bundle: dict, change: Any, at: str, expected: str
) -> None:
    """A value read as another type (5 as "5", an object of sources as none) would hash to the fingerprint of
    another record: refused like malformed JSON (exit 1), at the value's line and column, never a traceback."""
    change(bundle)
    path = _write(tmp_path / "b.json", bundle, indent=2)
    where = _at(path, *((at,) if at else ("fictional-vendor-doc", 2)))  # (no key: the list's element, a source id)
    code, out, err = run("fingerprint", str(path), "--claim", "fictional-rate")
    assert (code, out) == (1, "")
    assert err == f"claim-evidence: error: {path}:{where}: CE006 {expected}: {FINGERPRINT_TAIL.format(path=path)}\n"


def test_cli_fingerprint_wrong_type_in_a_page_and_an_article(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    bundle["claims"] = 123
    article = _write(tmp_path / "a.json", dict(subject, claim_evidence=bundle))
    code, _, err = run("fingerprint", str(article), "--claim", "fictional-rate")
    assert code == 1 and ": CE006 $.claim_evidence.claims must be an array (found the number 123)" in err
    page = tmp_path / "p.html"
    page.write_text(
        f'<body>\n<script type="application/json" id="claim-evidence-data">{json.dumps(bundle)}</script>\n</body>',
        encoding="utf-8",
    )
    code, _, err = run("fingerprint", str(page), "--claim", "fictional-rate")
    column = len('<script type="application/json" id="claim-evidence-data">') + json.dumps(bundle).index('"claims"') + 1
    assert (code, err.split(" CE006 ")[0]) == (1, f"claim-evidence: error: {page}:2:{column}:")
    code, _, err = run("fingerprint", str(_write(tmp_path / "list.json", [bundle])), "--claim", "fictional-rate")
    assert code == 1 and ": CE006 the bundle ($) must be an object (found an array)" in err


def test_cli_fingerprint_subject_fields_must_be_text(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = _write(tmp_path / "a.json", dict(subject, tldr=["a", "b"], claim_evidence=bundle))
    code, _, err = run("fingerprint", str(path), "--subject")
    assert code == 1 and f"{path}:1:" in err and ": CE006 $.tldr must be a string (found an array)" in err
    _write(path, dict(subject, tldr=None, claim_evidence=bundle))  # null, like a missing field, is read as ""
    assert run("fingerprint", str(path), "--subject")[0] == 0


def test_cli_fingerprint_subject_of_a_page_or_bundle_is_refused(run: Any, tmp_path: Path, bundle: dict) -> None:
    """A static page and a bare bundle have no subject: --subject used to hash three empty fields."""
    page = tmp_path / "p.html"
    page.write_text(
        f'<script type="application/json" id="claim-evidence-data">{json.dumps(bundle)}</script>', encoding="utf-8"
    )
    for path, kind in ((page, "a static page"), (_write(tmp_path / "b.json", bundle), "a bundle, not an article")):
        code, out, err = run("fingerprint", str(path), "--subject")
        assert (code, out) == (2, "")
        assert err.endswith(
            "Error: --subject prints the subject fingerprint of a news item: an article JSON whose claim_evidence bundle "
            f"seals its title, tldr and summary. {path} is {kind}, which has no subject: give --claim ID\n"
        )


def test_cli_schema_prints_the_shipped_schema(run: Any) -> None:
    code, out, _ = run("schema")
    assert code == 0 and out == (ROOT / "schemas" / "bundle-v1.schema.json").read_text(encoding="utf-8")


def test_cli_assets_copies_stylesheet(run: Any, tmp_path: Path) -> None:
    out_dir = tmp_path / "site" / "assets"
    assert run("assets", "--out", str(out_dir))[0] == 0
    css = (out_dir / "claim-evidence.css").read_text(encoding="utf-8")
    assert css == (ROOT / "claim_evidence" / "assets" / "claim-evidence.css").read_text(encoding="utf-8")
    assert "currentColor" in css and "@media print" in css  # theme-adaptive: mixed from the text colour
    code, out, _ = run("assets", "--out", str(out_dir))
    assert (code, out) == (0, f"{out_dir / 'claim-evidence.css'}: up to date\n")


def test_cli_render_prints_block_and_flags_invalid(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    code, out, _ = run("render", str(path))
    assert code == 0 and out.startswith('<aside class="claim-evidence" id="evidence-fictional-rate"')
    bundle["claims"][0]["statement"] = "変更"
    _write(path, bundle)
    code, out, _ = run("render", str(path))
    assert code == 1 and "資料との照合済み" not in out


def test_cli_render_unknown_claim_is_exit_2_naming_the_known_ones(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    code, out, err = run("render", str(path), "--claim", "nosuch")
    assert (code, out) == (2, "")
    assert err.endswith(
        f"Error: Invalid value for '--claim': {path} has no claim with id 'nosuch'; its claims: fictional-rate\n"
    )
    code, out, err = run(
        "render", str(path), "--claim", "fictional-rate", "--claim", "fictional_rate", "--claim", "zzz"
    )
    assert (code, out) == (2, "")
    assert err.endswith(
        "has no claim with id 'fictional_rate' (did you mean 'fictional-rate'?) or 'zzz'; its claims: fictional-rate\n"
    )
    assert run("render", str(path), "--claim", "fictional-rate")[0] == 0


def test_cli_render_unknown_claim_of_a_page_without_claims(run: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<script type="application/json" id="claim-evidence-data">{"version": 1, "sources": [], "claims": 3}</script>',
        encoding="utf-8",
    )
    code, _, err = run("render", str(page), "--claim", "a")
    assert code == 2 and err.endswith("has no claim with id 'a'; its claims: none\n")


def test_cli_review_record_seals_and_keeps_style(run: Any, tmp_path: Path, bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["statement"] = "架空ベンダーは固定条件で達成率72.7%と公表した。"
    text = json.dumps(bundle, ensure_ascii=False, indent=4).replace("\n", "\r\n") + "\r\n"
    path = tmp_path / "b.json"
    path.write_bytes(text.encode("utf-8"))
    os.chmod(path, 0o640)
    assert run("validate", str(path))[0] == 1
    code, out, _ = run(
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-10-01",
        "--note",
        "表3を確認",
    )
    assert code == 0 and out.startswith(f"--- {path}\n+++ {path}\n@@ ")  # the diff of what it wrote
    assert out.endswith(
        f"\n{path}: review of fictional-rate recorded\n{path}:$.claims[0].source_refs: CE905 [fictional-rate] "
        "statement has numbers but no quoted passage to check them against (add quote.exact to a source_ref): 72.7 "
        "(warning)\n"
    )
    assert run("validate", str(path))[0] == 0
    raw = path.read_bytes().decode("utf-8")
    assert raw.endswith("}\r\n") and "\n" not in raw.replace("\r\n", "")
    assert '\r\n    "version": 1,' in raw
    stored = json.loads(raw)
    assert list(stored) == list(bundle)
    assert stored["claims"][0]["verification"] == {
        "checked_at": "2026-10-01",
        "method": "human_document_review",
        "note": "表3を確認",
        "fingerprint": stored["claims"][0]["verification"]["fingerprint"],
    }
    assert stored["claims"][0]["verification"]["fingerprint"] != SEED_FINGERPRINT
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--claim", "nope", "--method", "ai_document_review", "--checked-at", "2026-10-01"],
            "no single claim with id 'nope'",
        ),
        (
            ["--claim", "fictional-rate", "--method", "ai_document_review", "--checked-at", "2026-02-30"],
            "--checked-at must be an existing date",
        ),
        (
            ["--claim", "fictional-rate", "--method", "ai_document_review", "--checked-at", "today"],
            "--checked-at must be an existing date",
        ),
        (
            ["--claim", "fictional-rate", "--method", "vibes", "--checked-at", "2026-10-01"],
            "Invalid value for '--method'",
        ),
    ],
)
def test_cli_review_record_refuses_bad_requests(
    run: Any, tmp_path: Path, bundle: dict, args: list[str], message: str
) -> None:
    path = _write(tmp_path / "b.json", bundle)
    before = path.read_bytes()
    code, _, err = run("review", "record", str(path), *args)
    assert code == 2 and message in err
    assert path.read_bytes() == before


def test_cli_review_record_refuses_to_seal_a_broken_claim(run: Any, tmp_path: Path, bundle: dict) -> None:
    bundle["claims"][0]["source_refs"][0]["source_id"] = "missing"
    path = _write(tmp_path / "b.json", bundle)
    before = path.read_bytes()
    code, _, err = run(
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "ai_document_review",
        "--checked-at",
        "2026-10-01",
    )
    assert (
        code == 1
        and "CE309 [fictional-rate] missing referenced source" in err
        and "review of fictional-rate not recorded" in err
    )
    assert path.read_bytes() == before


def test_cli_review_record_article_and_subject(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = _write(tmp_path / "a.json", dict(subject, summary="新しい要約。", claim_evidence=bundle), indent=2)
    assert run("validate", str(path))[0] == 1
    code, out, _ = run("review", "subject", str(path))
    assert (code, out) == (0, f"{path}: subject fingerprint recorded\n")
    assert run("validate", str(path))[0] == 0
    assert list(json.loads(path.read_text(encoding="utf-8"))) == ["title", "tldr", "summary", "claim_evidence"]
    code, out, _ = run("review", "subject", str(path))
    assert out.endswith("(no change)\n")


def test_cli_review_record_read_only_file_is_clear_error(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    os.chmod(path, 0o444)
    code, _, err = run(
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "ai_document_review",
        "--checked-at",
        "2026-10-01",
    )
    assert (code, err) == (
        2,
        f"claim-evidence: error: {path}: CE010 file is read-only; nothing was written: make it writable (chmod u+w) and run the command again\n",
    )
    assert "--write" not in err  # review record has no --write to skip


def test_cli_validate_a_folder_explains_what_it_takes(run: Any, tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path))
    assert code == 2
    assert err.splitlines()[-1] == (
        f"Error: {tmp_path} is a folder; validate takes files: bundle JSON, article JSON (with claim_evidence) or static "
        "pages (.html), e.g. `claim-evidence validate site/*.html`. For a whole site use `static-helper DIR` or "
        "`claim-evidence prepublish`"
    )


def test_cli_prepublish_with_nothing_registered_is_exit_2(run: Any, tmp_path: Path) -> None:
    config = tmp_path / "claim-evidence.toml"
    config.write_text("pages = []\n", encoding="utf-8")
    code, out, err = run("prepublish", "--config", str(config))
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: error: {config}: SH006 registers nothing to check: list static pages "
        '(pages = ["**/*.html"]) or add a [news] table\n'
    )


def test_cli_python_dash_m_runs(tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    done = subprocess.run(
        [sys.executable, "-m", "claim_evidence", "validate", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["summary"] == "1 file: 1 passed, 0 failed"


def test_cli_review_record_on_page_changes_only_the_bundle_script(run: Any, tmp_path: Path) -> None:
    import shutil

    import static_helper

    page = tmp_path / "about.html"
    shutil.copy(ROOT / "examples" / "site" / "about.html", page)
    original = page.read_text(encoding="utf-8")
    edited = original.replace("公開前に編集者が", "公開の前に編集者が")  # body and statement both
    page.write_text(edited, encoding="utf-8")
    assert "CE403" in run("validate", str(page))[1]
    code, out, _ = run(
        "review",
        "record",
        str(page),
        "--claim",
        "ABOUT-AI",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-10-01",
    )
    assert code == 0 and out.startswith(f"--- {page}\n")  # the diff of the bundle script, then what is pending
    assert out.endswith(f"\n{page}: review of ABOUT-AI recorded\n{page}:$.sources: CE520 {SKIPPED} (note)\n")
    after = page.read_text(encoding="utf-8")
    script = '<script type="application/json" id="claim-evidence-data">'
    head, tail = edited.split(script)
    assert after.startswith(head + script)  # body and slots untouched
    assert after.endswith("</script>" + tail.split("</script>", 1)[1])
    changed = [(a, b) for a, b in zip(edited.splitlines(), after.splitlines(), strict=False) if a != b]
    assert [b.strip() for _, b in changed][0] == '"checked_at": "2026-10-01",'
    assert len(changed) == 2 and '"fingerprint": "' in changed[1][1]
    assert run("validate", str(page))[0] == 0
    assert [e for e in static_helper.check_static_page(page) if "stale" not in e] == []


def test_cli_validate_page_reports_missing_bundle_script(run: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<p>no bundle</p>", encoding="utf-8")
    code, out, _ = run("validate", str(page))
    assert code == 1 and f"{page}: SH101 exactly one script#claim-evidence-data is required (found 0)" in out


def test_cli_validate_marked_page_without_bundle_names_claim_add(run: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text('<p data-claim-id="minato-raise">x</p>', encoding="utf-8")
    code, out, _ = run("validate", str(page))
    assert code == 1 and out.splitlines()[0] == (
        f"{page}: SH101 exactly one script#claim-evidence-data is required (found 0): the page marks claims with data-claim-id "
        f"but has no evidence bundle yet; add their records with claim-evidence claim add {page} --id minato-raise"
    )


def test_cli_validate_page_json_error_has_page_line(run: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<html>\n<body>\n<script type="application/json" id="claim-evidence-data">{\n "version": 1,,\n}</script>',
        encoding="utf-8",
    )
    code, out, _ = run("validate", str(page))
    assert code == 1 and f"{page}:4:15: CE003 invalid JSON: Expecting property name enclosed in double quotes" in out


def test_cli_validate_and_static_helper_agree_on_malformed_page_json(
    run: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same broken or empty script: the same finding and exit 1 from both tools."""
    import static_helper.cli

    for content, message in (
        ("{,}", "CE003 invalid JSON: Expecting property name enclosed in double quotes"),
        (" ", "CE003 empty bundle script: no JSON value"),
    ):
        page = tmp_path / "p.html"
        page.write_text(
            f'<p data-claim-id="a">x</p><div data-evidence-for="a"></div>\n<script type="application/json" id="claim-evidence-data">{content}</script>',
            encoding="utf-8",
        )
        code, out, _ = run("validate", str(page))
        assert code == 1 and f"{page}:2:{58 + (content == '{,}')}: {message}" in out
        assert static_helper.cli.main([str(page), "--no-cache"]) == 1
        assert f"{page}:2:{58 + (content == '{,}')}: {message}" in capsys.readouterr().out


def test_cli_validate_page_findings_have_page_lines(run: Any, tmp_path: Path) -> None:
    source = (ROOT / "examples" / "site" / "about.html").read_text(encoding="utf-8")
    page = tmp_path / "about.html"
    page.write_text(source.replace('"basis": "editorial"', '"basis": "vibes"', 1), encoding="utf-8")
    code, out, _ = run("validate", str(page))
    text = page.read_text(encoding="utf-8")
    offset = text.index('"basis": "vibes"')
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    assert code == 1
    assert [line_ for line_ in out.splitlines() if " CE303 " in line_][0].startswith(f"{page}:{line}:{column}: CE303 [")


def test_cli_validate_refuses_50_mb_file_before_reading_it(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: costs no disk, refused from its size alone
    code, out, _ = run("validate", str(path))
    assert code == 2
    assert (
        out.splitlines()[0]
        == f"{path}: CE004 file is 52428800 bytes, over the 33554432-byte limit; split it or raise --max-bytes"
    )


def test_cli_size_limit_advice_names_max_bytes_only_where_it_exists(run: Any, tmp_path: Path) -> None:
    """Only validate has --max-bytes: render, fingerprint and the others say only "split it"."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    limit = f"{path}: CE004 file is 52428800 bytes, over the 33554432-byte limit; split it"
    assert run("validate", str(path))[1].splitlines()[0] == limit + " or raise --max-bytes"
    for command in (["render", str(path)], ["fingerprint", str(path), "--claim", "x"]):
        assert run(*command) == (2, "", f"claim-evidence: error: {limit}\n")


def test_cli_example_site_stylesheet_is_the_packaged_one() -> None:
    """examples/site carries a copy made by `claim-evidence assets`; it must not drift."""
    packaged = (ROOT / "claim_evidence" / "assets" / "claim-evidence.css").read_bytes()
    assert (ROOT / "examples" / "site" / "assets" / "claim-evidence.css").read_bytes() == packaged


def test_cli_unexpected_error_is_reported_without_traceback(
    run: Any, tmp_path: Path, bundle: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    import claim_evidence.cli.main_command as cli_module

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli_module, "check_file", broken)
    monkeypatch.delenv("CLAIM_EVIDENCE_DEBUG", raising=False)
    path = _write(tmp_path / "b.json", bundle)
    assert run("validate", str(path)) == (
        2,
        "",
        "claim-evidence: internal error: RuntimeError: simulated bug (set CLAIM_EVIDENCE_DEBUG=1 for details)\n",
    )


def test_cli_render_page_labels_follow_its_html_lang(run: Any, tmp_path: Path, bundle: dict) -> None:
    """A page's bundle renders in the page's own language, as the page check renders its slots."""
    from claim_evidence import render_evidence
    from claim_evidence._core.jsonio import dumps_for_script

    script = f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>'
    for lang, html_lang in (("en", "en-GB"), ("ja", "ja"), ("ja", "fr")):  # fr: no labels in it, the default
        page = tmp_path / f"{html_lang}.html"
        page.write_text(f'<!DOCTYPE html><html lang="{html_lang}"><body>{script}</body></html>', encoding="utf-8")
        assert run("render", str(page)) == (0, render_evidence(bundle, lang=lang) + "\n", "")
    assert run("render", str(tmp_path / "en-GB.html"), "--lang", "ja")[1] == render_evidence(bundle, lang="ja") + "\n"
