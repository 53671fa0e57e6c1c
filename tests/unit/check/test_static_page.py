"""Page checks: every diagnostic code with its message and position, rendering, bundle replacement."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claim_evidence import InputError, render_evidence
from claim_evidence._core.jsonio import dumps_for_script
from claim_evidence._core.splice import outside_identical
from static_helper import PageOptions, check_static_page, check_text, render_static_page, replace_bundle

from ...conftest import ROOT

DEFAULT_HREF_NOTE = (
    ' (the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path, or '
    "stylesheet = false when the site ships the evidence CSS in its own stylesheet)"
)

DATA = Path(__file__).resolve().parents[2] / "data" / "static"
CSS = '<link rel="stylesheet" href="/assets/claim-evidence.css">'


def claim(cid: str, statement: str, **extra: object) -> dict[str, object]:
    record = {
        "id": cid,
        "label": f"label {cid}",
        "statement": statement,
        "evidence_label": "Opinion",
        "basis": "editorial",
        "status": "unverified",
        "source_refs": [],
        "conditions": [],
        "as_of": None,
        "verification": None,
    }
    record.update(extra)
    return record


def bundle(*claims: dict[str, object]) -> dict[str, object]:
    return {"version": 1, "sources": [], "claims": list(claims)}


def page(body: str, data: object = None, head: str = CSS, script: str | None = None) -> str:
    if script is None:
        script = f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(data)}</script>'
    return f"<!DOCTYPE html>\n<html><head>{head}\n{script}</head>\n<body>\n{body}\n</body></html>\n"


ONE = bundle(claim("C-1", "The sky is blue."))


def slot(cid: str, data: object = ONE) -> str:
    return f'<div data-evidence-for="{cid}">{render_evidence(data, [cid])}</div>'


def codes(text: str) -> list[tuple[str, int | None, int | None, str]]:
    return [(d.code, d.line, d.column, d.message) for d in check_text(text).diagnostics]


def test_check_clean_page_has_no_diagnostics():
    text = page(f'<p data-claim-id="C-1">The sky is <em>blue</em>.</p>\n{slot("C-1")}', ONE)
    assert codes(text) == []


def test_check_page_without_markup_has_nothing_to_check():
    result = check_text("<p>no evidence here</p>")
    assert (result.has_markup, result.diagnostics) == (False, [])


def test_check_missing_bundle_script():
    assert codes('<p data-claim-id="C-1">x</p>') == [
        (
            "SH101",
            1,
            1,
            "exactly one script#claim-evidence-data is required (found 0): the page marks claims with "
            "data-claim-id but has no evidence bundle yet; add their records with claim-evidence claim add PAGE --id C-1",
        ),
        (
            "SH130",
            1,
            1,
            'shared evidence stylesheet is missing: add <link rel="stylesheet" href="/assets/claim-evidence.css">'
            + DEFAULT_HREF_NOTE,
        ),
    ]


def test_check_two_bundle_scripts():
    script = '<script type="application/json" id="claim-evidence-data">{}</script>'
    assert codes(page("", script=script + "\n" + script))[0] == (
        "SH101",
        4,
        1,
        "exactly one script#claim-evidence-data is required (found 2)",
    )


def test_check_bundle_script_type():
    script = f'<script id="claim-evidence-data">{dumps_for_script(ONE)}</script>'
    text = page(f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}', script=script)
    assert codes(text) == [("SH102", 3, 1, 'script#claim-evidence-data must have type="application/json" (found "")')]


def test_check_invalid_json_reports_page_line_and_column():
    script = '<script type="application/json" id="claim-evidence-data">{\n  "version": 1,\n  "claims": [}\n</script>'
    assert codes(page("", script=script))[0][:3] == ("CE003", 5, 14)


def test_check_raw_less_than_in_json_is_a_warning():
    data = bundle(claim("C-1", "a < b"))
    script = (
        '<script type="application/json" id="claim-evidence-data">'
        + dumps_for_script(data).replace("\\u003c", "<")
        + "</script>"
    )
    text = page(f'<p data-claim-id="C-1">a &lt; b</p>{slot("C-1", data)}', script=script)
    result = check_text(text)
    assert [(d.code, d.severity, d.line) for d in result.diagnostics] == [("SH103", "warning", 10)]
    assert result.diagnostics[0].message == "raw < inside the embedded JSON; the contract escapes it as \\u003c"


def test_check_core_diagnostics_are_mapped_to_page_lines():
    data = bundle(claim("C-1", "x"))
    del data["claims"][0]["source_refs"]
    text = page(f'<p data-claim-id="C-1">x</p>{slot("C-1", data)}', data)
    found = [(d.code, d.line, d.path) for d in check_text(text).diagnostics]
    assert found == [("CE308", 7, "$.claims[0].source_refs")]


def test_check_missing_body_and_slot():
    text = page("<p>nothing bound</p>", ONE)
    assert codes(text) == [
        ("SH110", 7, 5, 'exactly one bound body element required for claim "C-1" (found 0)'),
        ("SH111", 7, 5, 'exactly one evidence slot required for claim "C-1" (found 0)'),
    ]


def test_check_duplicate_body_and_slot():
    body = (
        f'<p data-claim-id="C-1">The sky is blue.</p>\n<p data-claim-id="C-1">again</p>\n{slot("C-1")}\n{slot("C-1")}'
    )
    assert [c[:3] for c in codes(page(body, ONE))] == [("SH110", 23, 1), ("SH111", 25, 1)]


def test_check_unregistered_ids():
    body = f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}<span data-claim-id="C-9">x</span><div data-evidence-for="C-8"></div>'
    assert [c[0] for c in codes(page(body, ONE))] == ["SH112", "SH112"]
    assert (
        codes(page(body, ONE))[0][3]
        == 'body/slot references unregistered claim "C-9" (data-claim-id); the bundle has no such claim'
    )


def test_check_slot_nested_in_claim_text():
    body = f'<div data-claim-id="C-1">The sky is blue.{slot("C-1")}</div>'
    found = codes(page(body, ONE))
    assert [c[0] for c in found] == ["SH120", "SH113", "SH140"]  # the block's text also shows up in the claim's text
    assert (
        found[1][3]
        == 'evidence slot must not be nested in claim text (the slot for "C-1" is inside the claim element of "C-1")'
    )


def test_check_slot_nested_in_slot_and_claim_in_slot():
    data = bundle(claim("C-1", "a"), claim("C-2", "b"))
    body = '<p data-claim-id="C-1">a</p><div data-evidence-for="C-1"><div data-evidence-for="C-2"></div><span data-claim-id="C-2">b</span></div>'
    assert [c[0] for c in codes(page(body, data))] == ["SH140", "SH113", "SH140", "SH115"]


@pytest.mark.parametrize(
    ("markup", "why"),
    [
        ('<p data-evidence-for="C-1"></p>', "is a <p>"),
        ('<div data-evidence-for="C-1"/>', "is written <div …/>, which HTML does not close"),
        ('<section><div data-evidence-for="C-1"></section>', "has no end tag"),
        ('<img data-evidence-for="C-1">', "is a <img>"),
    ],
)
def test_check_slot_that_cannot_hold_the_block(markup, why):
    text = page(f'<p data-claim-id="C-1">The sky is blue.</p>{markup}', ONE)
    sh114 = [c for c in codes(text) if c[0] == "SH114"]
    assert [c[3] for c in sh114] == [
        f'evidence slot for "C-1" must be a container element with an explicit end tag, '
        f'e.g. <div data-evidence-for="C-1"></div> (it {why})'
    ]
    assert render_static_page(text)[0] == text


def test_check_static_page_returns_messages_for_a_file(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(
        page('<p data-claim-id="C-1">The sky is blue.</p><div data-evidence-for="C-1">old</div>', ONE), encoding="utf-8"
    )
    assert check_static_page(path) == ["claim C-1: evidence display is stale (run --write after reviewing source data)"]
    path.write_text(page(f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}', ONE), encoding="utf-8")
    assert check_static_page(path) == []


def test_check_body_text_differs_shows_both_and_position():
    text = page(f'<p data-claim-id="C-1">The sky is green.</p>{slot("C-1")}', ONE)
    found = codes(text)
    assert found[0] == (
        "SH120",
        22,
        1,
        'body text differs from reviewed statement at character 12: page "The sky is green." / statement "The sky is blue."',
    )
    assert [c[0] for c in found[1:]] == ["SH140"]  # its slot must now show the safe 未確認 block


def test_check_correction_note_quoting_old_wording_is_not_checked():
    body = f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}<p class="correction">Earlier we wrote "The sky is green."</p>'
    assert codes(page(body, ONE)) == []


def test_check_stylesheet_missing_and_configurable():
    body = f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}'
    assert [c[0] for c in codes(page(body, ONE, head=""))] == ["SH130"]
    custom = page(body, ONE, head='<link rel="preload stylesheet" href="/css/ev.css?v=3">')
    assert check_text(custom, options=PageOptions(stylesheet="/css/ev.css")).diagnostics == []


def test_check_stale_slot():
    text = page('<p data-claim-id="C-1">The sky is blue.</p><div data-evidence-for="C-1">old</div>', ONE)
    assert codes(text) == [("SH140", 22, 44, "evidence display is stale (run --write after reviewing source data)")]


def test_render_static_page_fills_only_slots_and_is_idempotent():
    text = page('<p data-claim-id="C-1">The sky is blue.</p><div data-evidence-for="C-1">old</div>', ONE)
    rendered, errors = render_static_page(text)
    assert errors == []
    assert rendered == text.replace(">old<", ">" + render_evidence(ONE, ["C-1"]) + "<")
    assert render_static_page(rendered) == (rendered, [])


def test_render_static_page_returns_text_unchanged_on_errors():
    text = page('<p data-claim-id="C-1">changed</p><div data-evidence-for="C-1">old</div>', ONE)
    rendered, errors = render_static_page(text)
    assert (rendered, errors) == (
        text,
        [
            'claim C-1: body text differs from reviewed statement at character 1: page "changed" / statement "The sky is blue."'
        ],
    )


def test_render_static_page_uses_the_page_newline_style():
    data = bundle(claim("C-1", "x", label="two\nlines"))
    text = page('<p data-claim-id="C-1">x</p><div data-evidence-for="C-1"></div>', data).replace("\n", "\r\n")
    rendered, errors = render_static_page(text)
    block = render_evidence(data, ["C-1"])
    assert "\n" in block and errors == []
    assert rendered == text.replace('"C-1"></div>', '"C-1">' + block.replace("\n", "\r\n") + "</div>")


def test_render_static_page_uses_configured_lang():
    text = page('<p data-claim-id="C-1">The sky is blue.</p><div data-evidence-for="C-1"></div>', ONE)
    rendered, _ = render_static_page(text, PageOptions(lang="en"))
    assert render_evidence(ONE, ["C-1"], lang="en") in rendered


@pytest.mark.parametrize("name", ["basic", "tricky"])
def test_render_static_page_golden(name):
    before = (DATA / f"{name}_before.html").read_bytes()
    after = (DATA / f"{name}_after.html").read_bytes()
    bom = before.startswith(b"\xef\xbb\xbf")
    text = before.decode("utf-8-sig")
    rendered, errors = render_static_page(text)
    assert errors == []
    assert (b"\xef\xbb\xbf" if bom else b"") + rendered.encode() == after
    edits = [(s.open_end, s.close_start, c) for s, c in check_text(text).rendered]
    assert outside_identical(text, rendered, edits)


def test_replace_bundle_changes_only_the_json():
    """Only the JSON changes; its lines keep the margin its first line sits at (two spaces here)."""
    text = page(
        f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}',
        ONE,
        script=('<script type="application/json" id="claim-evidence-data">\n  {"version": 1}\n  </script>'),
    ).replace("\n", "\r\n")
    new_bundle = copy.deepcopy(ONE)
    new_bundle["claims"][0]["label"] = "</script><b>"
    new = replace_bundle(text, new_bundle)
    json_text = dumps_for_script(new_bundle).replace("\n", "\r\n  ")
    assert new == text.replace('{"version": 1}', json_text)
    assert "</script><b>" not in new


def test_replace_bundle_requires_exactly_one_script():
    with pytest.raises(InputError, match="SH101 exactly one script#claim-evidence-data is required"):
        replace_bundle("<p>x</p>", ONE)


def test_check_markup_swallowed_by_an_unclosed_comment_is_an_error():
    text = "<p>intro <!-- draft\n" + page(f'<p data-claim-id="C-1">The sky is blue.</p>{slot("C-1")}', ONE)
    assert codes(text) == [
        (
            "SH104",
            4,
            1,
            (
                "evidence markup is written here but is not an element: it lies inside a comment, raw text (<script>, "
                "<textarea>, …), a <template> or <select>, or after <plaintext>; an earlier unclosed tag or comment swallowed it"
            ),
        )
    ]
    assert render_static_page(text)[0] == text


@given(
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 5), st.integers(0, 40), st.integers(0, 5)), max_size=25),
    st.data(),
)
def test_containment_index_finds_a_container_exactly_when_one_exists(spans, data):
    from claim_evidence._check.markup import _Containment
    from claim_evidence._html.locate import Element

    elements = [Element("div", {}, a, a + tag, a + tag + inner, a + tag + inner + end) for a, tag, inner, end in spans]
    probe = data.draw(st.sampled_from(elements)) if elements else Element("p", {}, 3, 4, 5, 6)
    expected = [e for e in elements if e is not probe and e.contains(probe)]
    found = [e for e in _Containment(elements).candidates(probe) if e is not probe and e.contains(probe)]
    assert found == expected


def test_nesting_checks_on_a_page_with_many_claims():
    claims = [claim(f"C-{i}", f"statement {i}") for i in range(150)]
    data = bundle(*claims)
    parts = [f'<p data-claim-id="C-{i}">statement {i}</p><div data-evidence-for="C-{i}"></div>' for i in range(150)]
    parts[70] = '<div data-claim-id="C-70">statement 70<div data-evidence-for="C-70"></div></div>'
    parts[120] = '<div data-evidence-for="C-120"><span data-claim-id="C-120">statement 120</span></div>'
    found = [c[0] for c in codes(page("".join(parts), data)) if c[0] in ("SH113", "SH115")]
    assert found == ["SH113", "SH115"]


# --- what the browser's parser does to markup whose spans look right (issue #7) -------------------------------

CLAIM_AND_SLOT = f'<p data-claim-id="C-1">The sky is blue.</p>\n{slot("C-1")}'
FRAMESET = '<frameset><frame src="nav.html"></frameset>'
IN_MATH = (
    "is inside the <math> opened at line 2, so HTML parsers read it as MathML, not as HTML; close the <math> "
    'before it (inside <math>, only <annotation-xml encoding="text/html"> holds HTML)'
)


def test_check_frameset_that_drops_the_body_is_an_error():
    text = page(CLAIM_AND_SLOT, ONE, head=f"{CSS}\n{FRAMESET}")
    assert codes(text) == [
        (
            "SH104",
            4,
            1,
            (
                "evidence markup is written here but is not an element: the <frameset> at line 3 makes this a frameset "
                "document, and HTML parsers drop the whole body with it, claim, evidence slot and bundle included; remove "
                "the <frameset>"
            ),
        )
    ]
    assert render_static_page(text)[0] == text


def test_check_frameset_after_body_text_is_ignored_by_parsers():
    assert codes(page(f"{CLAIM_AND_SLOT}\n{FRAMESET}", ONE)) == []


def test_check_slot_after_a_link_closed_only_implicitly_is_an_error():
    text = page(f'<p data-claim-id="C-1">The sky is blue.</p>\n<div><a href="/more">more</div>\n{slot("C-1")}', ONE)
    assert codes(text) == [
        (
            "SH116",
            24,
            1,
            (
                'evidence slot for "C-1" would be inside a link: the <a> opened at line 23 is still open where the slot '
                "starts (browsers re-open a link closed only implicitly, without its own </a>); close it with </a> before "
                "the slot"
            ),
        )
    ]
    assert render_static_page(text)[0] == text


def test_check_slot_after_a_closed_link_is_clean():
    text = page(f'<p data-claim-id="C-1">The sky is blue.</p>\n<div><a href="/more">more</a></div>\n{slot("C-1")}', ONE)
    assert codes(text) == []


def test_check_stylesheet_link_in_annotation_xml_without_html_encoding_is_mathml():
    text = page(CLAIM_AND_SLOT, ONE, head=f"<math><annotation-xml>\n{CSS}</annotation-xml></math>")
    assert codes(text) == [
        ("SH104", 3, 1, f"evidence markup is written here but is not an element: the stylesheet <link> {IN_MATH}"),
        (
            "SH130",
            4,
            1,
            'shared evidence stylesheet is missing: add <link rel="stylesheet" href="/assets/claim-evidence.css">'
            + DEFAULT_HREF_NOTE,
        ),
    ]


def test_check_stylesheet_link_in_annotation_xml_with_html_encoding_is_html():
    head = f'<math><annotation-xml encoding="text/html">\n{CSS}</annotation-xml></math>'
    assert codes(page(CLAIM_AND_SLOT, ONE, head=head)) == []


def test_check_bundle_script_in_mathml_is_explained():
    text = page(CLAIM_AND_SLOT, ONE, head=f"{CSS}<math>\n<mi>x</mi>")
    assert codes(text) == [
        ("SH104", 4, 1, f"evidence markup is written here but is not an element: script#claim-evidence-data {IN_MATH}"),
        ("SH101", 23, 1, "exactly one script#claim-evidence-data is required (found 0)"),
    ]


def test_check_stale_slot_of_an_unsealed_claim_points_to_review_record_first() -> None:
    """A slot stale because the record's review no longer matches: --write shows the claim as 未確認 now,
    and the message sends the editor to `review record`; the untouched claim of the same bundle is not
    stale (its own record is fine, so it keeps its reviewed block)."""
    text = (ROOT / "examples" / "site" / "about.html").read_text(encoding="utf-8")
    edited = text.replace("公開前に編集者が資料と照合する。", "公開前に編集者が資料と照合します。")
    assert edited.count("照合します。") == 3  # sentence, slot and statement: the review no longer covers it
    page = check_text(edited, "about.html")
    stale = {d.subject: d.message for d in page.diagnostics if d.code == "SH140"}
    assert stale == {
        "claim ABOUT-AI": (
            "evidence display is stale and must now show the claim as unverified: its review no longer covers its "
            "record (CE403); --write puts the 未確認 block in this slot, and the check fails until the review is "
            "recorded: see what changed with `claim-evidence review diff about.html --claim ABOUT-AI`, read the "
            "sources again, record the review with `claim-evidence review record about.html --claim ABOUT-AI "
            "--method … --checked-at …`, then run --write to show the reviewed block"
        ),
    }
    assert [d.code for d in page.errors] == ["CE403"]


def test_check_stale_slot_of_a_valid_record_says_run_write() -> None:
    text = (ROOT / "examples" / "site" / "about.html").read_text(encoding="utf-8")
    start = text.index('data-evidence-for="ABOUT-AI"')
    start = text.index(">", start) + 1
    end = text.index("</aside>", start) + len("</aside>")
    page = check_text(text[:start] + text[end:], "about.html")
    assert [
        (d.code, d.message) for d in page.diagnostics if d.code != "CE520"
    ] == [  # (no snapshot folder given: a note)
        ("SH140", "evidence display is stale (run --write after reviewing source data)")
    ]
