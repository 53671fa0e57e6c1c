"""Quotes in the record and the number check, through every path that reads a record.

The unit of the number rule is the pair (statement, quoted passages); the
parsing of written numbers is tested on its own in tests/unit/record/test_numerals.py.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import (
    EvidenceValidationError,
    Policy,
    claim_fingerprint,
    dumps_for_script,
    iter_diagnostics,
    render_evidence,
    validate_bundle,
)
from claim_evidence._check.review import ReviewRequest, record_review
from claim_evidence.cli import main as ce_main

from ...conftest import ROOT, SEED_FINGERPRINT

MISQUOTED = "statement has 300億 (30000000000) but no quoted passage has that value; quotes have 30億 (3000000000)"
UNQUOTED = "statement has numbers but no quoted passage to check them against"
MATCHED, UNVERIFIED = "資料との照合済み", "未確認・根拠未登録"
REF = "$.claims[0].source_refs[0]"


def sealed(bundle: dict[str, Any], statement: str | None = None, quote: Any = "absent", **claim: Any) -> dict[str, Any]:
    """The seed bundle with claim 0's statement and first ref's quote set, and the review re-recorded
    (what `review record` does), so that only the rule under test can fail."""
    changed = copy.deepcopy(bundle)
    changed.pop("subject_fingerprint", None)
    target = changed["claims"][0]
    if statement is not None:
        target["statement"] = statement
    if quote != "absent":
        target["source_refs"][0]["quote"] = quote
    target.update(claim)
    target["verification"]["fingerprint"] = claim_fingerprint(target, changed["sources"])
    return changed


def findings(bundle: Any, policy: Policy = Policy()) -> list[tuple[str, str, str, str]]:
    return [(d.code, d.path, d.severity, d.message) for d in iter_diagnostics(bundle, policy=policy)]


# --- the shape of a quote ---------------------------------------------------------------------------------

SHAPE = '{"exact": "the passage relied on, as the source writes it", "prefix": "text just before it", "suffix": "text just after it"} (prefix and suffix optional)'


@pytest.mark.parametrize(
    "quote",
    [
        None,
        {"exact": "達成率72.6%"},
        {"exact": "達成率72.6%", "prefix": "", "suffix": ""},
        {"exact": "x" * 1999 + "72.6%"[:1], "prefix": "p" * 200, "suffix": "s" * 200},
        {"exact": " 72.6 ", "prefix": "  ", "suffix": "\n"},
    ],
)
def test_quotes_valid_shapes_have_no_shape_finding(bundle: dict, quote: Any) -> None:
    assert not [f for f in findings(sealed(bundle, quote=quote)) if f[0] == "CE316"]


@pytest.mark.parametrize(
    ("quote", "path", "message"),
    [
        ("達成率72.6%", REF + ".quote", "quote must be an object (found the string '達成率72.6%'): " + SHAPE),
        (["達成率72.6%"], REF + ".quote", "quote must be an object (found an array): " + SHAPE),
        (7, REF + ".quote", "quote must be an object (found the number 7): " + SHAPE),
        (
            {},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (the key is missing): " + SHAPE,
        ),
        (
            {"prefix": "a"},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (the key is missing): " + SHAPE,
        ),
        (
            {"exact": ""},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (found ''): " + SHAPE,
        ),
        (
            {"exact": " \u3000\n"},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (found ' \\u3000\\n'): " + SHAPE,
        ),
        (
            {"exact": "72.6" + "x" * 1997},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (found 2001 characters): " + SHAPE,
        ),
        (
            {"exact": None},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (found null): " + SHAPE,
        ),
        (
            {"exact": ["a"]},
            REF + ".quote.exact",
            "quote.exact must be a non-blank string of at most 2000 characters (found an array): " + SHAPE,
        ),
        (
            {"exact": "72.6", "prefix": 1},
            REF + ".quote.prefix",
            "quote.prefix must be a string of at most 200 characters (found the number 1): " + SHAPE,
        ),
        (
            {"exact": "72.6", "prefix": "p" * 201},
            REF + ".quote.prefix",
            "quote.prefix must be a string of at most 200 characters (found 201 characters): " + SHAPE,
        ),
        (
            {"exact": "72.6", "suffix": None},
            REF + ".quote.suffix",
            "quote.suffix must be a string of at most 200 characters (found null): " + SHAPE,
        ),
        (
            {"exact": "72.6", "suffix": "s" * 201},
            REF + ".quote.suffix",
            "quote.suffix must be a string of at most 200 characters (found 201 characters): " + SHAPE,
        ),
        (
            {"exact": "72.6", "text": "b"},
            REF + ".quote.text",
            "unexpected key 'text' (did you mean 'exact'?); quote must be an object: " + SHAPE,
        ),
        (
            {"exact": "72.6", "type": "TextQuoteSelector"},
            REF + ".quote.type",
            "unexpected key 'type'; quote must be an object: " + SHAPE,
        ),
    ],
)
def test_quotes_wrong_shapes_are_ce316_with_the_expected_shape(
    bundle: dict, quote: Any, path: str, message: str
) -> None:
    found = findings(sealed(bundle, quote=quote))
    assert ("CE316", path, "error", message) in found
    assert [f for f in found if f[2] == "error"] == [("CE316", path, "error", message)]  # no CE905 on top of it
    assert validate_bundle(sealed(bundle, quote=quote)) == [f"claim fictional-rate: {message}"]


def test_quotes_shape_error_shows_the_claim_unverified(bundle: dict) -> None:
    html = render_evidence(sealed(bundle, quote={"exact": ""}))
    assert UNVERIFIED in html and MATCHED not in html


# --- fingerprints -------------------------------------------------------------------------------------------


def test_quotes_records_without_quotes_keep_their_fingerprints(bundle: dict) -> None:
    assert claim_fingerprint(bundle["claims"][0], bundle["sources"]) == SEED_FINGERPRINT
    vectors = json.loads((ROOT / "schemas" / "fingerprint-vectors.json").read_text(encoding="utf-8"))
    assert len(vectors["claims"]) >= 10
    for vector in vectors["claims"]:
        assert claim_fingerprint(vector["claim"], vector["sources"]) == vector["fingerprint"]


def test_quotes_existing_site_seals_all_still_match(shared: Path) -> None:
    """The 46 seals of the existing site were recorded before quotes existed: all still match, none has a
    number error, and the numbers in them are warnings (CE905) only."""
    seals = 0
    for page in sorted((shared / "corpora" / "ai-news-site").rglob("*.html")):
        match = re.search(
            r'<script type="application/json" id="claim-evidence-data">(.*?)</script>',
            page.read_text(encoding="utf-8"),
            re.S,
        )
        if not match:
            continue
        bundle = json.loads(match.group(1))
        for claim in bundle["claims"]:
            if isinstance(claim.get("verification"), dict) and claim["verification"].get("fingerprint"):
                seals += 1
                assert claim_fingerprint(claim, bundle["sources"]) == claim["verification"]["fingerprint"], claim["id"]
        codes = {d.code for d in iter_diagnostics(bundle) if d.is_error}
        assert codes == set(), page.name
    assert seals == 46


def test_quotes_adding_or_changing_a_quote_needs_a_new_review(bundle: dict) -> None:
    quoted = copy.deepcopy(bundle)
    quoted.pop("subject_fingerprint")
    quoted["claims"][0]["source_refs"][0]["quote"] = {"exact": "達成率72.6%"}
    assert [d.code for d in iter_diagnostics(quoted) if d.is_error] == ["CE403"]
    reviewed = record_review(quoted, ReviewRequest("fictional-rate", "human_document_review", "2026-09-06"))
    assert validate_bundle(reviewed) == []
    reviewed["claims"][0]["source_refs"][0]["quote"]["exact"] = "達成率72.6％"
    assert [d.code for d in iter_diagnostics(reviewed) if d.is_error] == ["CE403"]
    reviewed["claims"][0]["source_refs"][0]["quote"]["exact"] = "達成率72.6%"
    reviewed["claims"][0]["source_refs"][0]["quote"]["prefix"] = "結果:"
    assert [d.code for d in iter_diagnostics(reviewed) if d.is_error] == ["CE403"]


# --- rendering ----------------------------------------------------------------------------------------------

QUOTED_REF_JA = (
    '<li><span>架空ベンダー — <a href="https://example.com/fictional-report" target="_blank" rel="noopener noreferrer">架空の固定条件レポート</a></span>'
    '<span class="claim-evidence-support">該当箇所: 結果。裏付ける内容: 架空ベンダーが達成率を公表したという主張 / 出典公開日 2026-09-03</span>'
    '<span class="claim-evidence-quote">引用「固定条件での達成率は72.6%でした」</span></li>'
)
QUOTED_REF_EN = (
    '<li><span>架空ベンダー — <a href="https://example.com/fictional-report" target="_blank" rel="noopener noreferrer">架空の固定条件レポート</a></span>'
    '<span class="claim-evidence-support">Section: 結果. Supports: 架空ベンダーが達成率を公表したという主張 / published 2026-09-03</span>'
    '<span class="claim-evidence-quote">Quote &quot;固定条件での達成率は72.6%でした&quot;</span></li>'
)


def test_quotes_rendered_after_their_source_ja_and_en(bundle: dict) -> None:
    quoted = sealed(
        bundle, quote={"exact": "固定条件での達成率は72.6%でした", "prefix": "結果として、", "suffix": "。"}
    )
    ja, en = render_evidence(quoted), render_evidence(quoted, lang="en")
    assert QUOTED_REF_JA in ja and QUOTED_REF_EN in en
    assert "結果として" not in ja and "結果として" not in en  # prefix/suffix are context, never shown
    without = render_evidence(bundle)
    assert ja == without.replace(
        QUOTED_REF_JA.replace('<span class="claim-evidence-quote">引用「固定条件での達成率は72.6%でした」</span>', ""),
        QUOTED_REF_JA,
    )


def test_quotes_rendered_escaped(bundle: dict) -> None:
    quoted = sealed(bundle, quote={"exact": "<script>alert(\"72.6%\")</script> & 'x'"})
    html = render_evidence(quoted)
    assert (
        '<span class="claim-evidence-quote">引用「&lt;script&gt;alert(&quot;72.6%&quot;)&lt;/script&gt; &amp; &#x27;x&#x27;」</span>'
        in html
    )
    assert "<script>" not in html


@pytest.mark.parametrize("quote", [None, {"exact": ""}, {"exact": 5}, "72.6%"])
def test_quotes_null_or_malformed_quote_shows_no_quote(bundle: dict, quote: Any) -> None:
    assert "claim-evidence-quote" not in render_evidence(sealed(bundle, quote=quote))


def test_quotes_claims_without_quotes_render_as_before(bundle: dict) -> None:
    from ..render.test_render import SEED_BLOCK

    assert render_evidence(bundle) == SEED_BLOCK
    assert render_evidence(sealed(bundle, quote=None)) == SEED_BLOCK


# --- the number check ---------------------------------------------------------------------------------------

RAISED = "架空ミナト量子は、シリーズBラウンドで{}を調達したと発表した。"


def test_quotes_300_oku_against_30_oku_is_an_error_with_both_values(bundle: dict) -> None:
    misquoted = sealed(
        bundle, RAISED.format("300億円"), {"exact": "シリーズBラウンドにおいて総額30億円の資金調達を完了しました"}
    )
    assert findings(misquoted) == [("CE317", "$.claims[0].statement", "error", MISQUOTED)]
    assert validate_bundle(misquoted) == [f"claim fictional-rate: {MISQUOTED}"]
    html = render_evidence(misquoted)
    assert UNVERIFIED in html and MATCHED not in html


@pytest.mark.parametrize(
    ("statement", "exact"),
    [
        ("300億円", "総額300億円"),
        ("三百億円", "総額30,000,000,000円"),
        ("30,000,000,000円", "総額三百億円"),
        ("１０億円", "10億円"),
        ("2.50倍", "2.5倍"),
        ("3.0%", "３％"),
        ("5千万円", "5,000万円"),
        ("1億2000万ドル", "120,000,000ドル"),
    ],
)
def test_quotes_same_value_written_differently_is_found(bundle: dict, statement: str, exact: str) -> None:
    assert findings(sealed(bundle, RAISED.format(statement), {"exact": exact})) == []


def test_quotes_bare_number_missing_is_a_warning(bundle: dict) -> None:
    statement = "架空ベンダーは2026年版の固定条件で達成率72.6%と公表した。"
    found = findings(sealed(bundle, statement, {"exact": "達成率は72.6%"}))
    assert found == [
        (
            "CE904",
            "$.claims[0].statement",
            "warning",
            "statement has 2026 but no quoted passage has that value; quotes have 72.6",
        )
    ]
    assert validate_bundle(sealed(bundle, statement, {"exact": "達成率は72.6%"})) == []


def test_quotes_several_missing_values_and_long_quote_lists(bundle: dict) -> None:
    statement = "売上は300億円、利益は12%増、従業員は1,200人。"
    exact = "売上30億円、利益1.2%増、1年2月3日4時5分6秒7"
    found = findings(sealed(bundle, statement, {"exact": exact}))
    assert found == [
        (
            "CE317",
            "$.claims[0].statement",
            "error",
            "statement has 300億 (30000000000), 12 but no quoted passage has those values; quotes have 30億 (3000000000), 1.2",
        ),
        (
            "CE904",
            "$.claims[0].statement",
            "warning",
            "statement has 1,200 (1200) but no quoted passage has that value; quotes have 30億 (3000000000), 1.2, 1, 2, 3, 4, …",
        ),
    ]


def test_quotes_numbers_are_looked_up_in_every_ref_and_never_in_prefix_or_suffix(bundle: dict) -> None:
    two = copy.deepcopy(bundle)
    two["claims"][0]["source_refs"].append(
        {"source_id": "fictional-vendor-doc", "section": "付録", "supports": "数字", "quote": {"exact": "72.6%"}}
    )
    assert findings(sealed(two, quote={"exact": "固定条件"})) == []
    context_only = sealed(bundle, quote={"exact": "達成率は次の通り", "prefix": "72.6%", "suffix": "72.6%"})
    assert [f[:3] for f in findings(context_only)] == [("CE317", "$.claims[0].statement", "error")]


def test_quotes_statement_without_numbers_or_quotes_has_no_finding(bundle: dict) -> None:
    assert findings(sealed(bundle, "架空ベンダーは固定条件で高い達成率を公表した。")) == []
    assert findings(sealed(bundle, "架空ベンダーは固定条件で高い達成率を公表した。", {"exact": "高い"})) == []


@pytest.mark.parametrize("status", ["conflict", "unverified"])
def test_quotes_only_supporting_statuses_are_number_checked(bundle: dict, status: str) -> None:
    claim: dict[str, Any] = {"status": status}
    if status == "unverified":
        claim["verification"] = None
    misquoted = (
        sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"}, **claim) if status != "unverified" else None
    )
    if misquoted is None:
        misquoted = copy.deepcopy(bundle)
        misquoted.pop("subject_fingerprint")
        misquoted["claims"][0].update(statement=RAISED.format("300億円"), status="unverified", verification=None)
        misquoted["claims"][0]["source_refs"][0]["quote"] = {"exact": "30億円"}
    assert findings(misquoted) == []


def test_quotes_partial_is_number_checked(bundle: dict) -> None:
    misquoted = sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"}, status="partial")
    assert [f[0] for f in findings(misquoted)] == ["CE317"]


def test_quotes_numbers_without_any_quote_warn_and_require_quotes_makes_it_an_error(bundle: dict) -> None:
    unquoted = sealed(bundle)
    message = UNQUOTED + " (add quote.exact to a source_ref): 72.6"
    assert findings(unquoted) == [("CE905", "$.claims[0].source_refs", "warning", message)]
    assert findings(unquoted, Policy(require_quotes=True)) == [("CE905", "$.claims[0].source_refs", "error", message)]
    assert validate_bundle(unquoted) == []
    assert validate_bundle(unquoted, policy=Policy(require_quotes=True)) == [f"claim fictional-rate: {message}"]
    # A site policy decides what a publish accepts, not how a record renders.
    assert MATCHED in render_evidence(unquoted)


def test_quotes_policy_is_applied_after_the_memo(bundle: dict) -> None:
    unquoted = sealed(bundle)
    for _ in range(2):
        assert [d.severity for d in iter_diagnostics(unquoted)] == ["warning"]
        assert [d.severity for d in iter_diagnostics(unquoted, policy=Policy(require_quotes=True))] == ["error"]


def test_quotes_policy_escalates_only_ce905() -> None:
    assert Policy().escalated() == frozenset()
    assert Policy(require_quotes=True).escalated() == frozenset({"CE905"})


# --- review record refuses ----------------------------------------------------------------------------------


def test_quotes_review_record_refuses_a_number_error(bundle: dict) -> None:
    misquoted = sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"})
    misquoted["claims"][0]["statement"] = RAISED.format("300億ドル")  # edited after the review: CE403 too
    with pytest.raises(EvidenceValidationError) as caught:
        record_review(misquoted, ReviewRequest("fictional-rate", "human_document_review", "2026-09-06"))
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [("CE317", MISQUOTED)]


def test_quotes_review_record_cli_refuses_and_leaves_the_file(
    bundle: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bundle.json"
    path.write_text(
        json.dumps(sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"}), ensure_ascii=False, indent=2),
        encoding="utf-8",
    )
    before = path.read_bytes()
    code = ce_main(
        [
            "review",
            "record",
            str(path),
            "--claim",
            "fictional-rate",
            "--method",
            "human_document_review",
            "--checked-at",
            "2026-09-06",
        ]
    )
    assert code == 1
    assert capsys.readouterr().err == (
        f"claim-evidence: {path}:$.claims[0].statement: CE317 [fictional-rate] {MISQUOTED}\n"
        f"claim-evidence: review of fictional-rate not recorded: fix the errors above first; {path} is unchanged\n"
    )
    assert path.read_bytes() == before


def test_quotes_review_record_require_quotes(bundle: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(sealed(bundle), ensure_ascii=False), encoding="utf-8")
    args = [
        "review",
        "record",
        str(path),
        "--claim",
        "fictional-rate",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-09-06",
    ]
    assert ce_main([*args, "--require-quotes"]) == 1
    assert "CE905 [fictional-rate] " + UNQUOTED in capsys.readouterr().err
    assert ce_main(args) == 0


# --- validate, static-helper, prepublish -----------------------------------------------------------------


def test_quotes_validate_cli_positions_and_require_quotes(
    bundle: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    misquoted, unquoted = tmp_path / "misquoted.json", tmp_path / "unquoted.json"
    misquoted.write_text(
        json.dumps(sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"}), ensure_ascii=False, indent=2),
        encoding="utf-8",
    )
    unquoted.write_text(json.dumps(sealed(bundle), ensure_ascii=False, indent=2), encoding="utf-8")
    assert ce_main(["validate", str(misquoted)]) == 1
    line, column = position(misquoted, '"statement"')
    assert f"{misquoted}:{line}:{column}: CE317 [fictional-rate] {MISQUOTED}\n" in capsys.readouterr().out
    assert ce_main(["validate", str(unquoted)]) == 0
    assert f"CE905 [fictional-rate] {UNQUOTED}" in capsys.readouterr().out
    assert ce_main(["validate", "--require-quotes", str(unquoted)]) == 1
    assert ce_main(["validate", "--strict", str(unquoted)]) == 1


def position(path: Path, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in the file."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(f"{needle} not in {path}")


def page(bundle: dict[str, Any]) -> str:
    statement = bundle["claims"][0]["statement"]
    block = render_evidence(bundle, ["fictional-rate"])
    return (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8"><title>t</title>\n'
        '<link rel="stylesheet" href="/assets/claim-evidence.css"></head>\n<body><main>\n'
        f'<p data-claim-id="fictional-rate">{statement}</p>\n'
        f'<div data-evidence-for="fictional-rate">{block}</div>\n'
        f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n'
        "</main></body></html>\n"
    )


@pytest.fixture
def static_helper(run_static: Any) -> Any:
    """``static_helper(*args)`` -> ``(exit code, stdout)`` of a run without the cache."""
    return lambda *args: run_static(*args, "--no-cache")[:2]


def test_quotes_static_page_reports_the_number_error_at_the_bundle(
    static_helper: Any, bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    misquoted = sealed(bundle, RAISED.format("300億円"), {"exact": "30億円"})
    Path("bad.html").write_text(page(misquoted), encoding="utf-8")
    code, out = static_helper("bad.html")
    line, column = position(Path("bad.html"), '"statement"')
    assert (code, out) == (
        1,
        f"bad.html:{line}:{column}: CE317 [fictional-rate] {MISQUOTED}\n1 page: 0 passed, 1 failed\n",
    )
    assert UNVERIFIED in render_evidence(misquoted) and MATCHED not in render_evidence(misquoted)


def test_quotes_static_page_require_quotes_from_config(
    static_helper: Any, run_static: Any, bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("page.html").write_text(page(sealed(bundle)), encoding="utf-8")
    Path("claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    code, out = static_helper()
    assert code == 0 and "CE905" in out and "warning" in out.lower()
    Path("claim-evidence.toml").write_text('pages = ["page.html"]\nrequire_quotes = true\n', encoding="utf-8")
    code, out = static_helper()
    line, column = position(Path("page.html"), '"source_refs"')
    assert code == 1 and out.startswith(f"page.html:{line}:{column}: CE905 [fictional-rate] {UNQUOTED}"), out
    assert "SH140" not in out  # a site's policy does not change how the block renders
    Path("claim-evidence.toml").write_text('pages = ["page.html"]\nrequire_quotes = "yes"\n', encoding="utf-8")
    code, out, err = run_static("--no-cache")
    assert code == 2 and "SH003 require_quotes must be true or false (found 'yes')" in out + err


def test_quotes_cache_key_follows_the_policy(
    run_static: Any, bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("page.html").write_text(page(sealed(bundle)), encoding="utf-8")
    Path("claim-evidence.toml").write_text('pages = ["page.html"]\n', encoding="utf-8")
    assert run_static()[0] == 0  # cached as a pass
    Path("claim-evidence.toml").write_text('pages = ["page.html"]\nrequire_quotes = true\n', encoding="utf-8")
    assert run_static()[0] == 1


def test_quotes_news_example_caught_by_prepublish(tmp_path: Path) -> None:
    config = ROOT / "examples" / "news" / "caught" / "claim-evidence.toml"
    done = subprocess.run(
        [sys.executable, "-m", "claim_evidence", "prepublish", "--config", str(config), "--jobs", "1"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"CE317 [nornbay-raise] {MISQUOTED}" in done.stdout, done.stdout


def test_quotes_news_example_quotes_carried_into_every_copy(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "news" / "pipeline.py"), str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    registry = json.loads((ROOT / "examples" / "news" / "corrections.json").read_text(encoding="utf-8"))
    quotes = [
        ref["quote"]
        for entry in registry.values()
        for claim in entry["claim_evidence"]["claims"]
        for ref in claim["source_refs"]
    ]
    assert len(quotes) == 3
    for path in (out / "top15" / "data.json", out / "daily-news" / "data.json"):
        items = json.loads(path.read_text(encoding="utf-8"))["items"]
        carried = [
            ref["quote"]
            for i in items
            if i.get("claim_evidence")
            for c in i["claim_evidence"]["claims"]
            for ref in c["source_refs"]
        ]
        assert carried == quotes
    daily = next((out / "daily-news").glob("*.html")).read_text(encoding="utf-8")
    for quote in quotes:
        assert f'<span class="claim-evidence-quote">引用「{quote["exact"]}」</span>' in daily
