from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, iter_diagnostics, render_evidence

SEED_BLOCK = (
    '<aside class="claim-evidence" id="evidence-fictional-rate" data-evidence-id="fictional-rate">'
    '<p class="claim-evidence-line"><strong>架空の公表値</strong> <span>ベンダー公称値</span> · '
    '<span class="claim-evidence-status">資料との照合済み</span> · '
    '<span>照合 <time datetime="2026-09-05">2026-09-05</time>（AIによる資料照合）</span></p>'
    '<p class="claim-evidence-limits">適用・制限: 架空の固定ベンチマーク / 対象は説明用データのみ / 独立した再測定は未実施</p>'
    "<details><summary>架空の公表値の出典と照合範囲</summary>"
    '<p class="claim-evidence-statement">照合対象: 架空ベンダーは固定条件で達成率72.6%と公表した。</p>'
    "<p>情報区分: Claim</p>"
    '<ul class="claim-evidence-sources"><li><span>架空ベンダー — '
    '<a href="https://example.com/fictional-report" target="_blank" rel="noopener noreferrer">架空の固定条件レポート</a></span>'
    '<span class="claim-evidence-support">該当箇所: 結果。裏付ける内容: 架空ベンダーが達成率を公表したという主張 / 出典公開日 2026-09-03</span></li></ul>'
    "<p>対象時点: 2026-09-03</p>"
    '<p class="claim-evidence-caveat">この表示は資料と主張の対応状況を示します。全環境での動作や独立した実証を保証しません。</p>'
    "</details></aside>"
)
WARNING = "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。"
UNVERIFIED = '<span class="claim-evidence-status">未確認・根拠未登録</span>'


def test_render_seed_block_exact(bundle: dict, subject: dict) -> None:
    assert render_evidence(bundle, subject=subject) == SEED_BLOCK


@pytest.mark.parametrize("legacy", [None, {}])
def test_render_legacy_is_empty(legacy: Any) -> None:
    assert render_evidence(legacy) == ""


@pytest.mark.parametrize("bad", [[1], "x", {"version": 1, "claims": "x"}])
def test_render_malformed_is_short_warning(bad: Any) -> None:
    assert (
        render_evidence(bad) == '<p class="claim-evidence-warning">根拠情報の形式を再確認してください（未確認）。</p>'
    )


def test_render_invalid_bundle_never_shows_matched(bundle: dict) -> None:
    bundle["claims"][0]["statement"] = "書き換えた文。"
    html = render_evidence(bundle)
    assert "資料との照合済み" not in html
    assert '<span class="claim-evidence-status">未確認・根拠未登録</span>' in html
    assert "<span>照合日未記録（確認方法未記録）</span>" in html
    assert f'<p class="claim-evidence-warning">{WARNING}</p>' in html
    assert "<time" not in html


def test_render_subject_mismatch_marks_unverified(bundle: dict, subject: dict) -> None:
    subject["summary"] = "要約を変えた。"
    assert WARNING in render_evidence(bundle, subject=subject)


def test_render_provenance_not_upgraded(bundle: dict) -> None:
    html = render_evidence(bundle)
    assert "ベンダー公称値" in html and "AIによる資料照合" in html
    assert "第三者の測定" not in html and "人による資料照合" not in html


def test_render_escapes_all_text(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["label"] = '<script>alert("x")</script>'
    claim["uncertainty"] = "a & b ' \""
    html = render_evidence(bundle)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "a &amp; b &#x27; &quot;" in html


def test_render_unsafe_url_is_not_a_link(bundle: dict) -> None:
    bundle["sources"][0]["url"] = "javascript:alert(1)"
    html = render_evidence(bundle)
    assert "javascript:" not in html and "<a " not in html
    assert "架空ベンダー — 架空の固定条件レポート（URL要確認）" in html


def test_render_no_sources_message(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim.update(status="unverified", source_refs=[], verification=None)
    html = render_evidence(bundle)
    assert "<p>対応する出典情報は未登録です。未登録は虚偽の判定ではありません。</p>" in html
    assert "未確認・根拠未登録" in html


def test_render_note_and_missing_dates(bundle: dict) -> None:
    claim = bundle["claims"][0]
    claim["verification"]["note"] = "該当表だけを照合。"
    claim["as_of"] = None
    bundle["sources"][0]["published_at"] = None
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    html = render_evidence(bundle)
    assert "<p>照合範囲: 該当表だけを照合。</p>" in html
    assert "<p>対象時点: 未記録</p>" in html
    assert " / 出典公開日未記録</span>" in html


def test_render_limits_outside_details(bundle: dict) -> None:
    html = render_evidence(bundle)
    assert html.index("claim-evidence-limits") < html.index("<details>")
    assert html.index("claim-evidence-status") < html.index("<details>")


def test_render_claim_ids_filter_and_join(bundle: dict) -> None:
    second = copy.deepcopy(bundle["claims"][0])
    second["id"] = "second"
    bundle["claims"].append(second)
    both = render_evidence(bundle)
    assert both.count("<aside") == 2 and both.count("\n") == 1
    assert render_evidence(bundle, ["second"]).count('data-evidence-id="second"') == 1
    assert render_evidence(bundle, ["nope"]) == ""


def test_render_deterministic_and_does_not_mutate(bundle: dict) -> None:
    before = json.dumps(bundle, sort_keys=True)
    assert render_evidence(bundle) == render_evidence(copy.deepcopy(bundle))
    assert json.dumps(bundle, sort_keys=True) == before


def test_render_english_locale(bundle: dict) -> None:
    html = render_evidence(bundle, lang="en")
    assert "<span>Vendor&#x27;s stated figure</span>" in html
    assert '<span class="claim-evidence-status">Matched against sources</span>' in html
    assert '<span>Checked <time datetime="2026-09-05">2026-09-05</time> (AI review of documents)</span>' in html
    with pytest.raises(ValueError, match="unknown lang 'xx'"):
        render_evidence(bundle, lang="xx")


def test_render_site_template_override(bundle: dict, tmp_path: Path) -> None:
    (tmp_path / "evidence.html.j2").write_text(
        '<div class="mine">\n  {{ c.statement }}|{{ c.status_label }}\n</div>', encoding="utf-8"
    )
    assert (
        render_evidence(bundle, template_dir=tmp_path)
        == '<div class="mine">架空ベンダーは固定条件で達成率72.6%と公表した。|資料との照合済み</div>'
    )
    (tmp_path / "evidence.html.j2").write_text("{{ c.label }}", encoding="utf-8")
    bundle["claims"][0]["label"] = "<b>"
    assert render_evidence(bundle, template_dir=tmp_path) == "&lt;b&gt;"  # autoescape still applies


def test_render_corpus_slots_are_byte_identical(shared: Path) -> None:
    """The existing site's renderer produced these slots; ours must reproduce them."""
    checked = 0
    for page in sorted((shared / "corpora" / "ai-news-site").rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        match = re.search(r'<script type="application/json" id="claim-evidence-data">(.*?)</script>', text, re.S)
        if not match:
            continue
        data = json.loads(match.group(1))
        for claim in data["claims"]:
            slot = re.search(rf'<div data-evidence-for="{claim["id"]}">(.*?</aside>)</div>', text, re.S)
            assert slot, claim["id"]
            assert render_evidence(data, [claim["id"]]) == slot.group(1), (page.name, claim["id"])
            checked += 1
    assert checked == 57


# --- shapes a broken record may take: never a crash, never a verified look ------------------


def test_render_unknown_lang_lists_the_choices(bundle: dict) -> None:
    with pytest.raises(ValueError) as caught:
        render_evidence(bundle, lang="fr")
    assert str(caught.value) == "unknown lang 'fr'; expected one of en, ja"


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("sources", None),
        ("sources", "abc"),
        ("sources", ["junk", {"id": 7}]),
        ("source_refs", None),
        ("source_refs", "abc"),
        ("conditions", None),
        ("conditions", "abc"),
    ],
)
def test_render_malformed_lists_render_unverified(bundle: dict, where: str, value: Any) -> None:
    target = bundle if where == "sources" else bundle["claims"][0]
    target[where] = value
    html = render_evidence(bundle)
    assert f'<p class="claim-evidence-warning">{WARNING}</p>' in html
    assert "資料との照合済み" not in html
    assert "<p>対応する出典情報は未登録です。未登録は虚偽の判定ではありません。</p>" in html or where == "conditions"
    if where == "conditions":
        # only the uncertainty remains as a limit; a string is not split into characters
        assert '<p class="claim-evidence-limits">適用・制限: 独立した再測定は未実施</p>' in html


def test_render_missing_statement_and_basis_are_shown_missing(bundle: dict) -> None:
    claim = bundle["claims"][0]
    del claim["statement"], claim["basis"]
    html = render_evidence(bundle)
    assert '<p class="claim-evidence-statement">照合対象: </p>' in html
    assert "<strong>架空の公表値</strong> <span>根拠の種類未登録</span>" in html


def test_render_invalid_id_gets_no_anchor(bundle: dict) -> None:
    bundle["claims"][0]["id"] = "two words"
    html = render_evidence(bundle)
    assert html.startswith('<aside class="claim-evidence" data-evidence-id="two words">')


def test_render_impossible_as_of_is_shown_unrecorded(bundle: dict) -> None:
    bundle["claims"][0]["as_of"] = "2026-02-30"
    html = render_evidence(bundle)
    assert "<p>対象時点: 未記録</p>" in html
    assert "2026-02-30" not in html


def test_render_site_template_sees_status_and_anchor(bundle: dict, tmp_path: Path) -> None:
    (tmp_path / "evidence.html.j2").write_text("{{ c.status }}|{{ c.anchor }}|{{ c.invalid }}", encoding="utf-8")
    assert render_evidence(bundle, template_dir=tmp_path) == "matched|fictional-rate|False"
    bundle["claims"][0]["statement"] = "書き換えた文。"
    assert render_evidence(bundle, template_dir=tmp_path) == "unverified|fictional-rate|True"


# --- the in-process memo never serves one record's verdict for another ------------------------


class _Record(dict):  # a dict subclass: validates like a dict, but gets no memo key
    pass


def test_render_memo_tampered_copy_of_unkeyable_bundle_is_unverified(bundle: dict) -> None:
    assert "資料との照合済み" in render_evidence(_Record(bundle))
    tampered = _Record(copy.deepcopy(bundle))
    tampered["claims"][0]["statement"] = "書き換えた文。"
    assert "資料との照合済み" not in render_evidence(_Record(tampered))


def test_render_memo_unkeyable_subjects_are_not_confused(bundle: dict, subject: dict) -> None:
    from types import MappingProxyType

    assert WARNING not in render_evidence(bundle, subject=MappingProxyType(subject))
    changed = dict(subject, summary="要約を変えた。")
    assert WARNING in render_evidence(bundle, subject=MappingProxyType(changed))


def test_render_memo_sees_in_place_edits(bundle: dict) -> None:
    assert "資料との照合済み" in render_evidence(bundle)
    bundle["claims"][0]["statement"] = "書き換えた文。"
    assert "資料との照合済み" not in render_evidence(bundle)


def test_render_memo_renders_each_distinct_bundle_once(bundle: dict, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The memo is what makes a site whose pages share records fast: a second render of equal content
    builds no view, one with other content, a subject or a site template does."""
    from claim_evidence._render import evidence as _render

    built: list[str] = []
    real = _render._claim_view

    def counting(claim: dict, *args: object, **kwargs: object) -> object:
        built.append(claim["id"])
        return real(claim, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_render, "_claim_view", counting)
    _render._MEMO.items.clear()
    first = render_evidence(bundle)
    assert len(built) == len(bundle["claims"])
    assert render_evidence(copy.deepcopy(bundle)) == first and len(built) == len(bundle["claims"])
    ids = [c["id"] for c in bundle["claims"]]
    assert render_evidence(bundle, [ids[0]]) == first.split("\n")[0] and len(built) == len(ids)
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["label"] = "別のラベル"
    render_evidence(changed)
    assert len(built) == 2 * len(ids)
    (tmp_path / "evidence.html.j2").write_text("{{ c.id }}", encoding="utf-8")
    assert render_evidence(bundle, template_dir=tmp_path) == "\n".join(ids)
    assert render_evidence(bundle, template_dir=tmp_path) == "\n".join(ids)
    assert len(built) == 4 * len(ids)  # a site's templates may change on disk: never memoized


def test_render_blocks_equals_render_evidence_per_id(bundle: dict) -> None:
    from claim_evidence._render.evidence import claim_errors, render_blocks

    twin = copy.deepcopy(bundle["claims"][0])
    twin["label"] = "同じIDの二つ目"
    bundle["claims"].append(twin)
    bundle["claims"].append({"id": ["not", "a", "string"]})
    invalid = claim_errors(bundle, [d for d in iter_diagnostics(bundle) if d.is_error]).keys()
    assert 0 in invalid and len(bundle["claims"]) - 1 in invalid  # the twin's duplicate id, the object id
    blocks = render_blocks(bundle, invalid=invalid)
    ids = [c["id"] for c in bundle["claims"] if isinstance(c.get("id"), str)]
    assert list(blocks) == list(dict.fromkeys(ids))
    for cid in blocks:
        assert blocks[cid] == render_evidence(bundle, [cid])
    assert blocks[ids[0]].count("<aside") == 2
    assert render_blocks(bundle, invalid=invalid, lang="en")[ids[0]] == render_evidence(bundle, [ids[0]], lang="en")


def test_render_search_ignore_marks_the_block_for_site_search(bundle: dict) -> None:
    marked = render_evidence(bundle, search_ignore=True)
    assert marked == SEED_BLOCK.replace(
        'data-evidence-id="fictional-rate">',
        'data-evidence-id="fictional-rate" data-pagefind-ignore data-search-exclude>',
        1,
    )
    assert render_evidence(bundle) == SEED_BLOCK  # off by default: existing pages stay byte-identical


def test_render_search_ignore_from_the_site_config(
    run_static: Any, bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claim_evidence import dumps_for_script

    monkeypatch.chdir(tmp_path)
    page = tmp_path / "p.html"
    page.write_text(
        '<!DOCTYPE html><html lang="ja"><head><link rel="stylesheet" href="/assets/claim-evidence.css"></head><body>'
        f'<p data-claim-id="fictional-rate">{bundle["claims"][0]["statement"]}</p>'
        f'<div data-evidence-for="fictional-rate">{render_evidence(bundle)}</div>'
        f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script></body></html>\n',
        encoding="utf-8",
    )
    config = tmp_path / "claim-evidence.toml"

    def check(*args: str) -> tuple[int, str]:
        code, out, _ = run_static("--no-cache", *args)
        return code, out

    config.write_text('pages = ["p.html"]\n', encoding="utf-8")
    assert check()[0] == 0
    config.write_text('pages = ["p.html"]\nsearch_ignore = true\n', encoding="utf-8")
    code, out = check()
    assert code == 1 and "SH140" in out
    assert check("--write")[0] == 0
    assert 'data-evidence-id="fictional-rate" data-pagefind-ignore data-search-exclude>' in page.read_text(
        encoding="utf-8"
    )
    assert check()[0] == 0
    config.write_text('pages = ["p.html"]\nsearch_ignore = "yes"\n', encoding="utf-8")
    assert check()[0] == 2


# --- records migrated from the existing system: wrong-typed values render as it rendered them --------

UNVERIFIED_LINE = (
    '<span class="claim-evidence-status">未確認・根拠未登録</span> · <span>照合日未記録（確認方法未記録）</span></p>'
    f'<p class="claim-evidence-warning">{WARNING}</p>'
)


def unverified_seed(**replace: str) -> str:
    """SEED_BLOCK as an invalid bundle shows it (未確認, no review date or method, the warning),
    with its texts replaced (``old=new`` pairs given as ``{"old": "new"}``)."""
    block = SEED_BLOCK.replace(
        '<span class="claim-evidence-status">資料との照合済み</span> · '
        '<span>照合 <time datetime="2026-09-05">2026-09-05</time>（AIによる資料照合）</span></p>',
        UNVERIFIED_LINE,
    )
    for old, new in replace.items():
        assert old in block
        block = block.replace(old, new)
    return block


def test_render_falsy_non_string_fields_print_nothing(bundle: dict) -> None:
    """``statement: 0``, ``title: []`` and the like printed nothing in the existing renderer
    (``str(value or "")``); a migrated page keeps its bytes, and the bundle is still invalid."""
    claim, source, ref = bundle["claims"][0], bundle["sources"][0], bundle["claims"][0]["source_refs"][0]
    claim["statement"], claim["evidence_label"] = 0, []
    source["title"], source["publisher"] = [], {}
    ref["section"], ref["supports"] = False, 0.0
    # still invalid: validation names each wrong type (publisher, title, statement, evidence_label, section/supports)
    assert {"CE202", "CE203", "CE302", "CE304", "CE310"} <= {d.code for d in iter_diagnostics(bundle) if d.is_error}
    assert render_evidence(bundle) == unverified_seed(
        **{
            "照合対象: 架空ベンダーは固定条件で達成率72.6%と公表した。": "照合対象: ",
            "<p>情報区分: Claim</p>": "<p>情報区分: 未登録</p>",
            "<span>架空ベンダー — ": "<span> — ",
            'noreferrer">架空の固定条件レポート</a>': 'noreferrer"></a>',
            "該当箇所: 結果。裏付ける内容: 架空ベンダーが達成率を公表したという主張 /": "該当箇所: 。裏付ける内容:  /",
        }
    )


@pytest.mark.parametrize("value", [0, 0.0, False, [], {}, ""])
def test_render_falsy_label_and_id_show_the_defaults(bundle: dict, value: Any) -> None:
    bundle["claims"][0]["label"] = value
    bundle["claims"][0]["id"] = value
    html = render_evidence(bundle)
    assert html.startswith(
        '<aside class="claim-evidence" data-evidence-id=""><p class="claim-evidence-line"><strong>この主張</strong> '
    )
    assert "<summary>この主張の出典と照合範囲</summary>" in html


def test_render_truthy_non_string_fields_print_with_str(bundle: dict) -> None:
    bundle["claims"][0]["statement"] = 1
    bundle["sources"][0]["title"] = ["a", "<b>"]
    html = render_evidence(bundle)
    assert '<p class="claim-evidence-statement">照合対象: 1</p>' in html
    assert 'noreferrer">[&#x27;a&#x27;, &#x27;&lt;b&gt;&#x27;]</a>' in html


def test_render_conditions_are_joined_as_the_existing_renderer_joined_them(bundle: dict) -> None:
    """Conditions went through ``str()`` (a null condition shows ``None``) and the uncertainty
    was appended to their joined text, so a lone empty condition adds no separator."""
    claim = bundle["claims"][0]
    claim["conditions"] = [None, 0]
    assert '<p class="claim-evidence-limits">適用・制限: None / 0 / 独立した再測定は未実施</p>' in render_evidence(
        bundle
    )
    claim["conditions"] = [""]
    assert '<p class="claim-evidence-limits">適用・制限: 独立した再測定は未実施</p>' in render_evidence(bundle)
    claim["conditions"], claim["uncertainty"] = ["", ""], 0
    assert '<p class="claim-evidence-limits">適用・制限:  / </p>' in render_evidence(bundle)
    claim["conditions"] = [""]
    assert "claim-evidence-limits" not in render_evidence(bundle)


@pytest.mark.parametrize(
    ("text", "isolated"),
    [
        ("架空の公表値", False),
        ("ASCII <b> & 'quotes'", False),
        ("全角（括弧）と記号・—", False),
        ("\u202eラベル", True),  # RIGHT-TO-LEFT OVERRIDE, never closed
        ("a\u2067b", True),  # RIGHT-TO-LEFT ISOLATE
        ("\u202aembedded", True),  # LEFT-TO-RIGHT EMBEDDING is a control too
        ("שלום", True),  # Hebrew letters (R)
        ("مرحبا", True),  # Arabic letters (AL)
        ("\u0661\u0662", True),  # Arabic-Indic digits (AN)
    ],
)
def test_render_isolates_a_field_only_when_it_can_reorder_text_around_it(
    bundle: dict, text: str, isolated: bool
) -> None:
    """Issue #31 item 12: every field a record supplies is a bidi isolate when it holds right-to-left
    text or a bidi control, and is escaped exactly as before otherwise (blocks of ordinary records stay
    byte-identical to the existing renderer's). Escaping is kept inside the isolate."""
    import html

    claim, source = bundle["claims"][0], bundle["sources"][0]
    claim["label"] = text + "<i>"
    source["publisher"] = text
    claim["conditions"] = [text, "固定"]
    html_text = render_evidence(bundle)
    label = html.escape(text + "<i>", quote=True)
    wrapped = f"<bdi>{label}</bdi>" if isolated else label
    assert f"<strong>{wrapped}</strong>" in html_text
    assert f"<summary>{wrapped}の出典と照合範囲</summary>" in html_text
    conditions = f"<bdi>{html.escape(text)}</bdi> / 固定" if isolated else f"{html.escape(text, quote=True)} / 固定"
    assert f"適用・制限: {conditions} / " in html_text
    assert ("<bdi>" in html_text) is isolated
    assert "<i>" not in html_text


# --- which claims an error shows as unverified (claim_errors) ------------------------------------------


@pytest.fixture
def pair(bundle: dict) -> dict:
    """Two sealed claims, each citing its own source: A cites fictional-vendor-doc, B cites other-doc."""
    source = dict(bundle["sources"][0], id="other-doc", title="別の資料", url="https://example.com/other")
    second = copy.deepcopy(bundle["claims"][0])
    second.update(id="B", label="二つ目の主張", statement="別の資料は達成率を公表していない。")
    second["source_refs"] = [dict(second["source_refs"][0], source_id="other-doc")]
    bundle["sources"].append(source)
    bundle["claims"].append(second)
    bundle.pop("subject_fingerprint")
    for claim in bundle["claims"]:
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    assert not [d for d in iter_diagnostics(bundle) if d.is_error]
    return bundle


def scope(bundle: dict) -> dict[int, list[str]]:
    from claim_evidence._render.evidence import claim_errors

    found = claim_errors(bundle, [d for d in iter_diagnostics(bundle) if d.is_error])
    return {index: [d.code for d in errors] for index, errors in found.items()}


def test_claim_errors_of_a_claims_own_record_are_that_claims(pair: dict) -> None:
    valid = {cid: render_evidence(pair, [cid]) for cid in ("fictional-rate", "B")}
    pair["claims"][1]["basis"] = "hearsay"
    assert scope(pair) == {1: ["CE303", "CE403"]}
    assert render_evidence(pair, ["fictional-rate"]) == valid["fictional-rate"] == SEED_BLOCK
    broken = render_evidence(pair, ["B"])
    assert UNVERIFIED in broken and WARNING in broken and "<time" not in broken
    assert render_evidence(pair) == SEED_BLOCK + "\n" + broken


def test_claim_errors_of_a_cited_source_are_the_citing_claims(pair: dict) -> None:
    from claim_evidence._core.diagnostics import Diagnostic
    from claim_evidence._render.evidence import claim_errors

    pair["sources"][1]["publisher"] = " "
    assert scope(pair) == {1: ["CE403", "CE202"]}  # (by path) CE202 at $.sources[1]; CE403: the seal covers it
    assert render_evidence(pair, ["fictional-rate"]) == SEED_BLOCK
    alone = Diagnostic("CE204", "safe HTTP(S) URL required", "$.sources[0].url")
    assert claim_errors(pair, [alone]) == {0: [alone]}  # the source alone, without the seal's CE403


def test_claim_errors_of_an_uncited_source_concern_no_claim(pair: dict) -> None:
    pair["sources"].append({"id": "unused", "publisher": " ", "title": "t", "url": "https://example.com/u"})
    assert scope(pair) == {}  # (CE902, a warning, says no claim cites it)
    assert render_evidence(pair).startswith(SEED_BLOCK + "\n")


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b.update(version=2),  # the bundle itself
        lambda b: b["sources"][1].update(id=b["sources"][0]["id"]),  # a duplicate source id: who cites which?
        lambda b: b["sources"][1].update(id="1bad"),  # an invalid source id
        lambda b: b["claims"][1].update(statement="孤立したサロゲート\ud800"),  # validation stopped at CE007
    ],
    ids=["top-level", "duplicate-source-id", "invalid-source-id", "halted"],
)
def test_claim_errors_nothing_narrower_holds_concern_every_claim(pair: dict, change: Any) -> None:
    change(pair)
    assert list(scope(pair)) == [0, 1]
    html = render_evidence(pair)
    assert html.count(UNVERIFIED) == 2 and "資料との照合済み" not in html


def test_claim_errors_of_a_duplicate_claim_id_are_both_claims_of_that_id(pair: dict) -> None:
    twin = copy.deepcopy(pair["claims"][0])
    pair["claims"].append(twin)
    assert scope(pair) == {0: ["CE301"], 2: ["CE301"]}  # $.claims[2].id, and the first claim with that id
    assert render_evidence(pair, ["fictional-rate"]).count(UNVERIFIED) == 2
    assert "資料との照合済み" in render_evidence(pair, ["B"])
