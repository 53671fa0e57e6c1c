"""Values JSON can carry and the toolkit cannot (issue #31, item 8): a lone surrogate ("\\ud800") and a
number past a float (a 401-digit integer, 1e400). Each is a finding (CE007, CE008) at every entry
point, never CE999 or a traceback."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import (
    EvidenceValidationError,
    InputError,
    article_fingerprint,
    claim_fingerprint,
    iter_diagnostics,
    render_evidence,
    validate_bundle,
)
from claim_evidence._core.jsonio import loads
from static_helper.cli import main as static_main

from ..conftest import ROOT

SURROGATE_MESSAGE = (
    "text is not valid Unicode: a lone surrogate \\ud800 in $.claims[0].statement (half of a UTF-16 pair, "
    "which no UTF-8 file can hold); remove it or write the whole character"
)
NUMBER_MESSAGE = (
    "number too large: an integer of 401 digits at $.claims[0].measurement.value, past the largest number "
    "a JSON reader holds (about 1.8e308); write it as a string"
)
BIG = "9" * 401


def _bundle_text(bundle: dict[str, Any], statement: str = '"a \\ud800 b"', measurement: str | None = None) -> str:
    """The fixture bundle as JSON text, the first statement (and measurement) spliced in as raw JSON."""
    bundle["claims"][0]["statement"] = "@@STATEMENT@@"
    if measurement is not None:
        bundle["claims"][0]["measurement"] = "@@MEASUREMENT@@"
    text = json.dumps(bundle, ensure_ascii=False, indent=2)
    text = text.replace('"@@STATEMENT@@"', statement)
    return text.replace('"@@MEASUREMENT@@"', measurement) if measurement is not None else text


def test_loads_lone_surrogate_is_ce007_with_position(bundle: dict[str, Any]) -> None:
    text = _bundle_text(bundle)
    with pytest.raises(InputError) as caught:
        loads(text, "b.json")
    d = caught.value.diagnostic
    line = text[: text.index('"statement"')].count("\n") + 1
    assert (d.code, d.message, d.file, d.line, caught.value.exit_code) == (
        "CE007",
        SURROGATE_MESSAGE,
        "b.json",
        line,
        1,
    )


def test_loads_surrogate_in_a_key_names_the_key() -> None:
    with pytest.raises(InputError) as caught:
        loads('{"claims": [], "\\udc00x": 1}')
    assert caught.value.diagnostic.code == "CE007"
    assert caught.value.diagnostic.message.startswith(
        'text is not valid Unicode: a lone surrogate \\udc00 in the key of $["\\udc00x"]'
    )
    assert (caught.value.diagnostic.line, caught.value.diagnostic.column) == (1, 16)


def test_loads_valid_surrogate_pair_is_accepted() -> None:
    assert loads('{"s": "\\ud83d\\ude00"}').value == {"s": "😀"}


def test_loads_401_digit_integer_is_ce008(bundle: dict[str, Any]) -> None:
    text = _bundle_text(bundle, '"ok"', '{"value": ' + BIG + "}")
    with pytest.raises(InputError) as caught:
        loads(text, "b.json")
    d = caught.value.diagnostic
    assert (d.code, d.message, d.line) == ("CE008", NUMBER_MESSAGE, text[: text.index('"value"')].count("\n") + 1)


def test_loads_integer_past_the_int_to_str_limit_is_ce008_at_the_number() -> None:
    text = '{\n  "n": ' + "7" * 5000 + "\n}"
    with pytest.raises(InputError) as caught:
        loads(text, "b.json", line_offset=10, column_offset=4)
    d = caught.value.diagnostic
    assert (d.code, d.line, d.column) == ("CE008", 12, 3)  # the key of the value, as for every CE007/CE008
    assert d.message.startswith("number too large: an integer of 5000 digits at $.n, past")


def test_loads_exponent_past_a_float_is_ce008() -> None:
    with pytest.raises(InputError) as caught:
        loads('{"n": 1e400, "m": 1e300}')
    assert caught.value.diagnostic.code == "CE008"
    assert caught.value.diagnostic.message.startswith("number too large: a number that reads as infinity at $.n,")
    assert loads('{"n": 1e300, "m": ' + "9" * 300 + "}").value["m"] == int("9" * 300)


def test_hostile_value_none_for_plain_json() -> None:
    from claim_evidence._core.jsonio import hostile_value

    assert hostile_value({"a": ["x", 1, 2.5, True, None, 10**300, "😀"]}) is None


def test_validate_bundle_lone_surrogate_is_a_finding(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = "a \ud800 b"
    assert validate_bundle(bundle) == ["claim_evidence: " + SURROGATE_MESSAGE]
    assert [(d.code, d.path) for d in iter_diagnostics(bundle)] == [("CE007", "$.claims[0].statement")]


def test_a_bundle_or_claim_that_holds_itself_is_an_answer_not_a_hang(bundle: dict[str, Any]) -> None:
    """Only a value from Python can hold itself (no JSON text does): validation says so (CE005) and the
    fingerprint raises json's own error, where the walks over the value used to go round for ever."""
    claim = bundle["claims"][0]
    claim["conditions"] = [claim]
    assert [(d.code, d.message) for d in iter_diagnostics(bundle)] == [
        ("CE005", "bundle holds itself (a list or object inside itself): it has no JSON text")
    ]
    with pytest.raises(ValueError, match="Circular reference"):
        claim_fingerprint(claim, bundle.get("sources", []))


def test_validate_bundle_huge_integer_is_a_finding(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["measurement"] = {"value": int(BIG)}
    assert validate_bundle(bundle) == ["claim_evidence: " + NUMBER_MESSAGE]
    bundle["claims"][0]["measurement"] = {"value": 10**5000}
    assert [d.code for d in iter_diagnostics(bundle)] == ["CE008"]


def test_validate_bundle_surrogate_in_subject_is_a_finding(bundle: dict[str, Any], subject: dict[str, Any]) -> None:
    subject["title"] = "\udfff"
    assert [(d.code, d.path) for d in iter_diagnostics(bundle, subject)] == [("CE007", "$")]


def test_render_evidence_lone_surrogate_renders_unverified_and_encodable(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["statement"] = "a \ud800 b"
    html = render_evidence(bundle)
    assert "未確認" in html and "a \ufffd b" in html
    html.encode("utf-8")


def test_render_evidence_integer_past_the_str_limit_renders_unverified(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["measurement"] = {"value": 10**5000}
    assert "未確認" in render_evidence(bundle)


def test_claim_fingerprint_lone_surrogate_raises_evidence_validation_error(bundle: dict[str, Any]) -> None:
    bundle["sources"][0]["title"] = "\ud800"
    with pytest.raises(EvidenceValidationError) as caught:
        claim_fingerprint(bundle["claims"][0], bundle["sources"])
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE007", "$.sources[0].title")]


def test_claim_fingerprint_integer_past_the_str_limit_raises_evidence_validation_error(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["measurement"] = {"value": 10**5000}
    with pytest.raises(EvidenceValidationError) as caught:
        claim_fingerprint(bundle["claims"][0], bundle["sources"])
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE008", "$.claim.measurement.value")]


def test_article_fingerprint_lone_surrogate_raises_evidence_validation_error() -> None:
    with pytest.raises(EvidenceValidationError) as caught:
        article_fingerprint({"title": "t", "tldr": "\udc00"})
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("CE007", "$.tldr")]


def test_claim_fingerprint_huge_integer_with_stale_seal_validates_without_overflow(bundle: dict[str, Any]) -> None:
    """A 401-digit integer with a seal that no longer matches used to end in OverflowError (the
    number-rewrite check turned it into a float)."""
    from claim_evidence._record.fingerprint import matches_with_numbers_rewritten

    bundle["claims"][0]["measurement"] = {"value": int(BIG)}
    assert matches_with_numbers_rewritten(bundle["claims"][0], bundle["sources"], "0" * 64) is False


@pytest.mark.parametrize("kind", ["surrogate", "number"])
def test_cli_bundle_file_every_command_reports_the_finding(
    kind: str, bundle: dict[str, Any], tmp_path: Path, run: Any
) -> None:
    text = _bundle_text(bundle) if kind == "surrogate" else _bundle_text(bundle, '"ok"', '{"value": ' + BIG + "}")
    code, message = ("CE007", SURROGATE_MESSAGE) if kind == "surrogate" else ("CE008", NUMBER_MESSAGE)
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    claim_id = bundle["claims"][0]["id"]
    commands = [
        ["validate", str(path)],
        ["render", str(path)],
        ["fingerprint", str(path), "--claim", claim_id],
        [
            "review",
            "record",
            str(path),
            "--claim",
            claim_id,
            "--method",
            "human_document_review",
            "--checked-at",
            "2026-09-05",
            "--today",
            "2026-12-01",
        ],
    ]
    for argv in commands:
        status, out, err = run(*argv)
        assert status == 1, argv
        assert f"{code} {message}" in out + err, argv
        assert "CE999" not in out + err and "Traceback" not in out + err, argv
    assert path.read_text(encoding="utf-8") == text


def _hostile_page(tmp_path: Path) -> tuple[Path, str]:
    page = tmp_path / "about.html"
    shutil.copy(ROOT / "examples" / "site" / "about.html", page)
    text = page.read_text(encoding="utf-8")
    statement = re.search(r'"statement": "([^"\\]+)"', text)
    assert statement is not None
    text = text.replace(statement.group(0), '"statement": "\\ud800' + statement.group(1) + '"', 1)
    page.write_text(text, encoding="utf-8")
    return page, text


@pytest.mark.parametrize("write", [False, True])
def test_static_helper_lone_surrogate_is_a_finding(
    write: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    page, text = _hostile_page(tmp_path)
    monkeypatch.chdir(tmp_path)
    status = static_main(["about.html", "--today", "2026-12-01", "--jobs", "1", *(["--write"] if write else [])])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert re.search(
        r"^about\.html:\d+:\d+: CE007 text is not valid Unicode: a lone surrogate \\ud800 in \$\.claims\[0\]\.statement",
        out,
        re.M,
    ), out
    assert "CE999" not in out + err and "Traceback" not in out + err
    assert page.read_text(encoding="utf-8") == text


def test_cli_page_every_command_reports_the_surrogate(tmp_path: Path, run: Any) -> None:
    page, text = _hostile_page(tmp_path)
    claim_id = re.findall(r'data-claim-id="([^"]+)"', text)[0]
    for argv in (
        ["validate", str(page)],
        ["render", str(page)],
        ["fingerprint", str(page), "--claim", claim_id],
        [
            "review",
            "record",
            str(page),
            "--claim",
            claim_id,
            "--method",
            "human_document_review",
            "--checked-at",
            "2026-09-05",
            "--today",
            "2026-12-01",
        ],
    ):
        status, out, err = run(*argv)
        assert status == 1, argv
        assert "CE007 text is not valid Unicode" in out + err, argv
        assert "CE999" not in out + err, argv
    assert page.read_text(encoding="utf-8") == text


def test_static_helper_writes_a_bidi_override_label_as_an_isolate_and_then_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #31 item 12: a label (not sealed) that opens U+202E is written inside ``<bdi>`` by
    ``--write``, and the page so written is what the check expects: the next run passes."""
    page = tmp_path / "about.html"
    shutil.copy(ROOT / "examples" / "site" / "about.html", page)
    text = page.read_text(encoding="utf-8")
    label = re.search(r'"label": "([^"\\]+)"', text)
    assert label is not None
    page.write_text(text.replace(label.group(0), '"label": "\\u202e' + label.group(1) + '"', 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = ["about.html", "--today", "2026-12-01", "--jobs", "1"]
    assert static_main(argv) == 1  # the slot shows the old label: stale
    assert static_main([*argv, "--write"]) == 0
    assert f"<strong><bdi>\u202e{label.group(1)}</bdi></strong>" in page.read_text(encoding="utf-8")
    capsys.readouterr()
    assert static_main(argv) == 0, capsys.readouterr().out
