"""Authoring without hand-written JSON: claim add / set, source add, ref add on bundle and article
files (the page side of `claim add` is in tests/unit/check/test_scaffold.py). No command ever writes a fingerprint."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, iter_diagnostics, validate_bundle
from claim_evidence._record.authoring import AuthoringError, EditRefused, add_claim, add_ref, add_source, set_claim

from ...conftest import SEED_FINGERPRINT

# What refusals say a field must be: validate's messages (see tests/unit/core/test_validation_messages.py).
ID_RULE = "an id is an ASCII letter, then up to 99 ASCII letters, digits, '_' or '-' (the schema's pattern ^[A-Za-z][A-Za-z0-9_-]{0,99}$)"
URL_RULE = "safe HTTP(S) URL required: url must be a direct http:// or https:// URL with a host (no credentials, whitespace, control characters or backslash; a valid port)"
PUBLISHED = "published_at must be an existing date as YYYY-MM-DD, or null"


def fingerprints(value: Any) -> list[str]:
    """Every stored fingerprint in a JSON value, wherever it sits."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "fingerprint" and isinstance(item, str):
                found.append(item)
            found.extend(fingerprints(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(fingerprints(item))
    return found


# --- the library ---------------------------------------------------------------------------------------------


def test_authoring_add_claim_is_unverified_without_review(bundle: dict) -> None:
    change = add_claim(bundle, "new-claim", "新しい主張。", basis="reporting", label="新", evidence_label="Fact")
    assert change.bundle["claims"][-1] == {
        "id": "new-claim",
        "label": "新",
        "statement": "新しい主張。",
        "evidence_label": "Fact",
        "basis": "reporting",
        "status": "unverified",
        "conditions": [],
        "source_refs": [],
        "verification": None,
    }
    assert change.notes == ()
    assert validate_bundle(change.bundle) == []
    assert fingerprints(change.bundle) == [SEED_FINGERPRINT]  # the existing seal only
    assert bundle["claims"][-1]["id"] == "fictional-rate"  # the input is not changed


def test_authoring_add_claim_without_basis_is_allowed_and_says_what_is_missing(bundle: dict) -> None:
    change = add_claim(bundle, "new-claim", "新しい主張。")
    assert "basis" not in change.bundle["claims"][-1]
    assert change.notes == (
        "claim new-claim has no basis yet (CE303 until you set it): claim set FILE --claim new-claim --basis "
        "official_spec|vendor_claim|independent_measurement|reporting|operator_measurement|editorial",
    )
    assert [d.code for d in iter_diagnostics(change.bundle) if d.is_error] == ["CE303"]


@pytest.mark.parametrize(
    ("claim_id", "message"),
    [
        (
            "fictional-rate",
            "$.claims[1].id: CE301 invalid or duplicate id: 'fictional-rate' is a duplicate; the first claim with this id is at $.claims[0].id",
        ),
        ("1st", f"$.claims[1].id: CE301 invalid or duplicate id: '1st' is invalid; {ID_RULE}"),
        ("has space", f"$.claims[1].id: CE301 invalid or duplicate id: 'has space' is invalid; {ID_RULE}"),
    ],
)
def test_authoring_add_claim_refuses_bad_ids_with_validation_messages(
    bundle: dict, claim_id: str, message: str
) -> None:
    with pytest.raises(EditRefused) as caught:
        add_claim(bundle, claim_id, "文。", basis="reporting")
    assert [f"{d.path}: {d.code} {d.message}" for d in caught.value.diagnostics] == [message]


def test_authoring_add_source_and_ref_with_quote(bundle: dict) -> None:
    change = add_source(bundle, "second", "https://example.com/second", "架空社", "二つ目", "2026-09-01")
    assert change.bundle["sources"][-1] == {
        "id": "second",
        "publisher": "架空社",
        "title": "二つ目",
        "url": "https://example.com/second",
        "published_at": "2026-09-01",
    }
    assert change.notes == (
        "source second is cited by no claim yet: claim-evidence ref add FILE --claim ID --source second …",
    )
    assert validate_bundle(change.bundle) == []  # an uncited source changes no seal
    cited = add_ref(change.bundle, "fictional-rate", "second", "表 2", "達成率", quote="達成率は72.6%")
    assert cited.bundle["claims"][0]["source_refs"][-1] == {
        "source_id": "second",
        "section": "表 2",
        "supports": "達成率",
        "quote": {"exact": "達成率は72.6%"},
    }
    assert cited.notes == (
        "this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review record FILE --claim fictional-rate …",
    )
    assert [d.code for d in iter_diagnostics(cited.bundle) if d.is_error] == ["CE403"]
    assert fingerprints(cited.bundle) == [SEED_FINGERPRINT]  # never refreshed


@pytest.mark.parametrize(
    ("url", "published_at", "expected"),
    [
        ("javascript:alert(1)", None, [f"$.sources[1].url: CE204 {URL_RULE}"]),
        (
            "https://user:pw@example.com/",
            None,
            [f"$.sources[1].url: CE204 {URL_RULE}"],
        ),  # the URL is not echoed: credentials
        ("//example.com/x", None, [f"$.sources[1].url: CE204 {URL_RULE}"]),
        (
            "https://example.com/",
            "2026-02-30",
            [f"$.sources[1].published_at: CE205 invalid published_at: {PUBLISHED} (found '2026-02-30'; no such date)"],
        ),
        (
            "https://example.com/",
            "2026-9-1",
            [
                f"$.sources[1].published_at: CE205 invalid published_at: {PUBLISHED} (found '2026-9-1'; did you mean '2026-09-01'?)"
            ],
        ),
    ],
)
def test_authoring_add_source_refuses_unsafe_urls_and_dates(
    bundle: dict, url: str, published_at: str | None, expected: list[str]
) -> None:
    with pytest.raises(EditRefused) as caught:
        add_source(bundle, "second", url, "P", "T", published_at)
    assert [f"{d.path}: {d.code} {d.message}" for d in caught.value.diagnostics] == expected


def test_authoring_add_source_refuses_duplicate_and_blank_fields(bundle: dict) -> None:
    with pytest.raises(EditRefused) as caught:
        add_source(bundle, "fictional-vendor-doc", "https://example.com/", " ", "")
    assert sorted(f"{d.path}: {d.code}" for d in caught.value.diagnostics) == [
        "$.sources[1].id: CE201",
        "$.sources[1].publisher: CE202",
        "$.sources[1].title: CE203",
    ]


def test_authoring_add_ref_refuses_unknown_ids_and_bad_fields(bundle: dict) -> None:
    with pytest.raises(AuthoringError, match=r"^no single claim with id 'nope' \(claims: fictional-rate\)$"):
        add_ref(bundle, "nope", "fictional-vendor-doc", "S", "T")
    with pytest.raises(
        AuthoringError,
        match=r"^no source with id 'nope' \(sources: fictional-vendor-doc\); add it with claim-evidence source add$",
    ):
        add_ref(bundle, "fictional-rate", "nope", "S", "T")
    with pytest.raises(EditRefused) as caught:
        add_ref(bundle, "fictional-rate", "fictional-vendor-doc", "", "T", quote=" ")
    assert sorted(f"{d.path}: {d.code}" for d in caught.value.diagnostics) == [
        "$.claims[0].source_refs[1].quote.exact: CE316",
        "$.claims[0].source_refs[1].section: CE310",
    ]


def test_authoring_set_claim_covered_fields_undo_the_review(bundle: dict) -> None:
    for edit in (
        {"conditions": ["別の条件"]},
        {"as_of": "2026-09-04"},
        {"uncertainty": None},
        {"basis": "reporting"},
        {"evidence_label": "Fact"},
    ):
        change = set_claim(bundle, "fictional-rate", **edit)  # type: ignore[arg-type]
        assert change.notes[0].startswith("this undoes the review of claim fictional-rate"), edit
        assert fingerprints(change.bundle) == [SEED_FINGERPRINT]


def test_authoring_set_claim_status_and_label_are_not_covered(bundle: dict) -> None:
    change = set_claim(bundle, "fictional-rate", status="partial", label="新しいラベル")
    assert change.notes == ()
    assert validate_bundle(change.bundle) == []
    assert change.bundle["claims"][0]["status"] == "partial" and change.bundle["claims"][0]["label"] == "新しいラベル"


def test_authoring_set_claim_status_needing_a_review_says_so(bundle: dict) -> None:
    unverified = set_claim(bundle, "fictional-rate", status="unverified").bundle
    unverified["claims"][0]["verification"] = None
    change = set_claim(unverified, "fictional-rate", status="matched")
    assert change.notes == (
        "status matched asserts a review: record it with claim-evidence review record FILE --claim fictional-rate … (CE311 until then)",
    )


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            {"as_of": "2026-13-01"},
            "$.claims[0].as_of: CE307 invalid as_of: as_of must be an existing date as YYYY-MM-DD, or null (found '2026-13-01'; no such date)",
        ),
        (
            {"conditions": [" "]},
            "$.claims[0].conditions[0]: CE306 conditions must be a list of nonempty strings (found ' ')",
        ),
    ],
)
def test_authoring_set_claim_refuses_invalid_values(bundle: dict, edit: dict, expected: str) -> None:
    with pytest.raises(EditRefused) as caught:
        set_claim(bundle, "fictional-rate", **edit)
    assert [f"{d.path}: {d.code} {d.message}" for d in caught.value.diagnostics] == [expected]


def test_authoring_edits_keep_existing_errors_out_of_the_way(bundle: dict) -> None:
    broken = copy.deepcopy(bundle)
    broken["claims"][0]["basis"] = "guess"  # an error the editor has not fixed yet
    change = add_source(broken, "second", "https://example.com/", "P", "T")
    assert change.bundle["sources"][-1]["id"] == "second"


@pytest.mark.parametrize("value", [[], "text", {"claims": "x", "sources": []}, {"version": 1}])
def test_authoring_refuses_a_bundle_without_lists(value: Any) -> None:
    with pytest.raises(AuthoringError, match="has no sources and claims lists"):
        add_source(value, "s", "https://example.com/", "P", "T")


# --- the commands on JSON files ------------------------------------------------------------------------------


def _write(path: Path, value: Any, indent: int | None = 2) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=indent) + "\n", encoding="utf-8")
    return path


def test_authoring_cli_source_add_prints_the_diff_and_writes(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    before = path.read_text(encoding="utf-8")
    code, out, err = run(
        "source",
        "add",
        str(path),
        "--id",
        "second",
        "--url",
        "https://example.com/2",
        "--publisher",
        "P",
        "--title",
        "T",
    )
    after = path.read_text(encoding="utf-8")
    assert (code, err) == (0, "")
    assert after == before.replace(
        '      "published_at": "2026-09-03"\n    }\n  ],',
        '      "published_at": "2026-09-03"\n    },\n    {\n      "id": "second",\n      "publisher": "P",\n'
        '      "title": "T",\n      "url": "https://example.com/2"\n    }\n  ],',
    )
    assert out == (
        f"--- {path}\n+++ {path}\n@@ -8,6 +8,12 @@\n"
        '       "title": "架空の固定条件レポート",\n'
        '       "url": "https://example.com/fictional-report",\n'
        '       "published_at": "2026-09-03"\n'
        "+    },\n"
        "+    {\n"
        '+      "id": "second",\n'
        '+      "publisher": "P",\n'
        '+      "title": "T",\n'
        '+      "url": "https://example.com/2"\n'
        "     }\n"
        "   ],\n"
        '   "claims": [\n'
        f"{path}: written\n"
        f"note: source second is cited by no claim yet: claim-evidence ref add {path} --claim ID --source second …\n"
    )


def test_authoring_cli_refusal_names_file_path_code_and_writes_nothing(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    code, out, err = run(
        "source", "add", str(path), "--id", "second", "--url", "javascript:x", "--publisher", "P", "--title", "T"
    )
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: {path}:$.sources[1].url: CE204 [source second] {URL_RULE}\n"
        "claim-evidence: the edit was refused; nothing was written\n"
    )
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp
    assert sorted(os.listdir(tmp_path)) == ["b.json"]


def test_authoring_cli_unknown_claim_is_exit_2(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    code, out, err = run(
        "ref",
        "add",
        str(path),
        "--claim",
        "nope",
        "--source",
        "fictional-vendor-doc",
        "--section",
        "S",
        "--supports",
        "T",
    )
    assert (code, out, err) == (
        2,
        "",
        "claim-evidence: error: no single claim with id 'nope' (claims: fictional-rate)\n",
    )


def test_authoring_cli_keeps_formatting_crlf_bom_and_article_wrapper(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    text = (
        json.dumps(dict(subject, claim_evidence=bundle), ensure_ascii=False, indent="\t").replace("\n", "\r\n") + "\r\n"
    )
    path = tmp_path / "article.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    code, out, _ = run("claim", "set", str(path), "--claim", "fictional-rate", "--status", "partial")
    assert code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.decode("utf-8-sig") == text.replace('"status": "matched"', '"status": "partial"')
    assert '-\t\t\t\t"status": "matched",\r\n+\t\t\t\t"status": "partial",\r\n' in out


def test_authoring_cli_article_refusal_path_is_the_files(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = _write(tmp_path / "a.json", dict(subject, claim_evidence=bundle))
    code, _, err = run("claim", "set", str(path), "--claim", "fictional-rate", "--as-of", "2026-02-30")
    assert code == 2
    assert err.splitlines()[0] == (
        f"claim-evidence: {path}:$.claim_evidence.claims[0].as_of: CE307 [fictional-rate] invalid as_of: "
        "as_of must be an existing date as YYYY-MM-DD, or null (found '2026-02-30'; no such date)"
    )


def test_authoring_cli_claim_add_creates_a_bundle_file(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    code, out, _ = run("claim", "add", str(path), "--id", "c1", "--statement", "文。", "--basis", "editorial")
    assert code == 0
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "version": 1,
        "sources": [],
        "claims": [
            {
                "id": "c1",
                "statement": "文。",
                "basis": "editorial",
                "status": "unverified",
                "conditions": [],
                "source_refs": [],
                "verification": None,
            }
        ],
    }
    assert out.startswith(f"--- {path}\n+++ {path}\n@@ -0,0 +1,15 @@\n+{{\n")
    assert validate_bundle(json.loads(path.read_text(encoding="utf-8"))) == []


def test_authoring_cli_claim_set_clears_and_replaces(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _write(tmp_path / "b.json", bundle)
    assert (
        run(
            "claim",
            "set",
            str(path),
            "--claim",
            "fictional-rate",
            "--condition",
            "一",
            "--condition",
            "二",
            "--uncertainty",
            "",
            "--as-of",
            "",
        )[0]
        == 0
    )
    claim = json.loads(path.read_text(encoding="utf-8"))["claims"][0]
    assert (claim["conditions"], claim["uncertainty"], claim["as_of"]) == (["一", "二"], None, None)
    assert run("claim", "set", str(path), "--claim", "fictional-rate", "--no-conditions")[0] == 0
    assert json.loads(path.read_text(encoding="utf-8"))["claims"][0]["conditions"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("claim", "set", "{path}", "--claim", "fictional-rate"), "nothing to change"),
        (("claim", "set", "{path}", "--claim", "fictional-rate", "--condition", "a", "--no-conditions"), "not both"),
        (("claim", "add", "{path}", "--statement", "s"), "give --id ID, or --all"),
        (("claim", "add", "{path}", "--id", "x"), "give --id ID and --statement TEXT"),
        (("claim", "add", "{path}", "--all"), "give --id ID and --statement TEXT"),
        (("claim", "set", "{path}", "--claim", "fictional-rate", "--status", "done"), "Invalid value for '--status'"),
    ],
)
def test_authoring_cli_usage_errors(
    run: Any, tmp_path: Path, bundle: dict, args: tuple[str, ...], message: str
) -> None:
    path = _write(tmp_path / "b.json", bundle)
    before = path.read_bytes()
    code, _, err = run(*(a.format(path=path) for a in args))
    assert code == 2 and message in err
    assert path.read_bytes() == before


def test_authoring_cli_no_command_writes_a_fingerprint(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    run("claim", "add", str(path), "--id", "c1", "--statement", "資金は30億円。", "--basis", "reporting")
    run("source", "add", str(path), "--id", "s1", "--url", "https://example.com/", "--publisher", "P", "--title", "T")
    run(
        "ref",
        "add",
        str(path),
        "--claim",
        "c1",
        "--source",
        "s1",
        "--section",
        "本文",
        "--supports",
        "額",
        "--quote",
        "30億円",
    )
    run("claim", "set", str(path), "--claim", "c1", "--status", "matched", "--as-of", "2026-09-01")
    value = json.loads(path.read_text(encoding="utf-8"))
    assert fingerprints(value) == [] and value["claims"][0]["verification"] is None
    assert [d.code for d in iter_diagnostics(value) if d.is_error] == ["CE311"]
    assert (
        run(
            "review",
            "record",
            str(path),
            "--claim",
            "c1",
            "--method",
            "human_document_review",
            "--checked-at",
            "2026-09-02",
        )[0]
        == 0
    )
    sealed = json.loads(path.read_text(encoding="utf-8"))
    assert validate_bundle(sealed) == []
    assert fingerprints(sealed) == [claim_fingerprint(sealed["claims"][0], sealed["sources"])]


def test_authoring_cli_page_without_bundle_needs_claim_add_first(run: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<!DOCTYPE html><html><body><p>x</p></body></html>\n", encoding="utf-8")
    code, _, err = run(
        "source", "add", str(page), "--id", "s", "--url", "https://example.com/", "--publisher", "P", "--title", "T"
    )
    assert (code, err) == (
        2,
        f"claim-evidence: error: {page} has no evidence bundle yet: add a claim first (claim-evidence claim add {page} --id ID)\n",
    )


def test_authoring_cli_help_explains(run: Any) -> None:
    for group, command in (("claim", "add"), ("claim", "set"), ("source", "add"), ("ref", "add")):
        code, out, _ = run(group, command, "--help")
        assert code == 0 and "FILE" in out, (group, command)
    assert "Never touches a review seal" in run("claim", "--help")[1]


def test_authoring_cli_ref_add_and_claim_set_exact_output(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    before = json.dumps(bundle, ensure_ascii=False)
    Path("b.json").write_text(before + "\n", encoding="utf-8")
    code, out, _ = run("claim", "set", "b.json", "--claim", "fictional-rate", "--as-of", "2026-09-04")
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["as_of"] = "2026-09-04"
    after = json.dumps(changed, ensure_ascii=False)
    assert (code, Path("b.json").read_text(encoding="utf-8")) == (0, after + "\n")
    assert out == (
        f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{before}\n+{after}\nb.json: written\n"
        "note: this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review record b.json "
        "--claim fictional-rate …\n"
    )
    code, out, _ = run(
        "ref",
        "add",
        "b.json",
        "--claim",
        "fictional-rate",
        "--source",
        "fictional-vendor-doc",
        "--section",
        "表",
        "--supports",
        "値",
        "--quote",
        "72.6%",
    )
    changed["claims"][0]["source_refs"].append(
        {"source_id": "fictional-vendor-doc", "section": "表", "supports": "値", "quote": {"exact": "72.6%"}}
    )
    cited = json.dumps(changed, ensure_ascii=False)
    # no note: its review was undone by the set already
    assert (code, out) == (0, f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{after}\n+{cited}\nb.json: written\n")


def test_authoring_cli_source_add_on_a_page_changes_only_the_bundle_script(run: Any, tmp_path: Path) -> None:
    from claim_evidence import dumps_for_script

    page = tmp_path / "p.html"
    head = '<!DOCTYPE html>\r\n<html><body>\r\n<p data-claim-id="fictional-rate">x</p><div data-evidence-for="fictional-rate"></div>\r\n'
    script = '<script type="application/json" id="claim-evidence-data">\r\n'
    page.write_bytes(
        (
            head
            + script
            + dumps_for_script({"version": 1, "sources": [], "claims": []}).replace("\n", "\r\n")
            + "\r\n</script>\r\n</body></html>\r\n"
        ).encode()
    )
    text = page.read_bytes().decode("utf-8")
    page.write_text(
        text.replace(
            '"claims": []',
            '"claims": [{"id": "fictional-rate", "statement": "x", "basis": "reporting", "status": "unverified", "conditions": [], "source_refs": []}]',
        ),
        encoding="utf-8",
        newline="",
    )
    before = page.read_bytes().decode("utf-8")
    assert (
        run(
            "source", "add", str(page), "--id", "s", "--url", "https://example.com/", "--publisher", "P", "--title", "T"
        )[0]
        == 0
    )
    after = page.read_bytes().decode("utf-8")
    assert after.startswith(head + script) and after.endswith("\r\n</script>\r\n</body></html>\r\n")
    assert before.startswith(head + script) and "\n" not in after.replace("\r\n", "")
    assert '"id": "s"' in after


def test_authoring_cli_claim_add_to_an_article_without_evidence(run: Any, tmp_path: Path, subject: dict) -> None:
    path = _write(tmp_path / "a.json", dict(subject, url="https://example.com/a"))
    code, out, _ = run("claim", "add", str(path), "--id", "c1", "--statement", "本文の主張。", "--basis", "reporting")
    assert code == 0
    value = json.loads(path.read_text(encoding="utf-8"))
    assert list(value) == ["title", "tldr", "summary", "url", "claim_evidence"]
    assert [c["id"] for c in value["claim_evidence"]["claims"]] == ["c1"]
    assert out.endswith(
        f"note: the article's title, tldr and summary are not sealed yet (CE105): claim-evidence review subject {path}\n"
    )
    assert run("review", "subject", str(path))[0] == 0
    assert run("validate", str(path))[0] == 0
    code, _, err = run("claim", "set", str(path), "--claim", "c1", "--as-of", "2026-02-30")
    assert code == 2 and f"{path}:$.claim_evidence.claims[0].as_of: CE307" in err
