"""The "sources this page relies on" block: its rendering (exact bytes, ja/en, order of first use, reviews
withheld where the blocks withhold them, markers) and its slot on a page (check, write, proofs, one per page)."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, render_evidence
from claim_evidence._core.jsonio import dumps_for_script
from claim_evidence._core.splice import outside_identical
from claim_evidence._record.freshness import Freshness
from claim_evidence._render.summary import render_summary
from static_helper import PageOptions, check_text

CSS = '<link rel="stylesheet" href="/assets/claim-evidence.css">'
TODAY = "2026-12-01"

SOURCES = [
    {
        "id": "spec",
        "publisher": "Vendor",
        "title": "Spec <v3>",
        "url": "https://example.com/spec",
        "published_at": "2026-08-20",
    },
    {"id": "news", "publisher": "Paper", "title": "Launch", "url": "https://example.org/launch", "published_at": None},
    {
        "id": "lab",
        "publisher": "Lab",
        "title": "Measurement",
        "url": "https://example.net/lab",
        "published_at": "2026-08-30",
    },
]


def _claim(cid: str, refs: list[str], checked_at: str, basis: str = "official_spec", **extra: Any) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "id": cid,
        "label": f"Label {cid}",
        "statement": f"Statement {cid}.",
        "evidence_label": "Claim",
        "basis": basis,
        "status": "matched",
        "conditions": [],
        "as_of": None,
        "source_refs": [{"source_id": sid, "section": "1", "supports": "it"} for sid in refs],
        "verification": {"checked_at": checked_at, "method": "human_document_review"},
    }
    claim.update(extra)
    return claim


def _sealed(*claims: dict[str, Any]) -> dict[str, Any]:
    bundle = {"version": 1, "sources": copy.deepcopy(SOURCES), "claims": list(claims)}
    for claim in bundle["claims"]:
        if claim["status"] != "unverified":
            claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    return bundle


BUNDLE = _sealed(
    _claim("A", ["spec", "news"], "2026-09-05"),
    _claim("B", ["lab", "spec"], "2026-10-01", basis="reporting"),
)


def _li(publisher: str, title: str, published: str, claims: str, reviewed: str) -> str:
    return f"<li><p>{publisher} —{title}{published}</p><p>根拠にしている主張: {claims}</p><p>最新の照合: {reviewed}</p></li>"


SPEC = ' <a href="https://example.com/spec" target="_blank" rel="noopener noreferrer">Spec &lt;v3&gt;</a>'
LAB = ' <a href="https://example.net/lab" target="_blank" rel="noopener noreferrer">Measurement</a>'
LAUNCH = ' <a href="https://example.org/launch" target="_blank" rel="noopener noreferrer">Launch</a>'
LINK_A, LINK_B = '<a href="#evidence-A">Label A</a>', '<a href="#evidence-B">Label B</a>'
HEAD = '<section class="claim-evidence-summary" aria-labelledby="claim-evidence-summary-title"><h2 id="claim-evidence-summary-title">このページが依拠する資料</h2>'
TAIL = '<p class="claim-evidence-caveat">このページの主張が引用している資料の一覧です。資料そのものの正しさを保証するものではありません。</p></section>'


def _time(day: str) -> str:
    return f'<time datetime="{day}">{day}</time>'


def test_summary_lists_sources_in_order_of_first_use_on_the_page() -> None:
    """B is bound first on the page: its sources lead; spec (cited by both) appears once, with the later review."""
    assert render_summary(BUNDLE, ["B", "A"], invalid=False) == (
        HEAD
        + '<ol class="claim-evidence-summary-sources">'
        + _li("Lab", LAB, " / 出典公開日 2026-08-30", LINK_B, _time("2026-10-01"))
        + _li("Vendor", SPEC, " / 出典公開日 2026-08-20", f"{LINK_B}、{LINK_A}", _time("2026-10-01"))
        + _li("Paper", LAUNCH, " / 出典公開日未記録", LINK_A, _time("2026-09-05"))
        + "</ol>"
        + TAIL
    )


def test_summary_links_only_safe_urls() -> None:
    """An unsafe URL fails validation (CE204), so the page shows the record as invalid; the title is never a link."""
    unsafe = copy.deepcopy(BUNDLE)
    unsafe["sources"][1]["url"] = "javascript:alert(1)"
    out = render_summary(unsafe, ["A"], invalid=True)
    assert "<p>Paper — Launch（URL要確認） / 出典公開日未記録</p>" in out and "javascript" not in out


def test_summary_claims_the_page_does_not_bind_come_last_in_record_order() -> None:
    first = render_summary(BUNDLE, ["A"], invalid=False)
    assert first.index("Vendor") < first.index("Paper") < first.index("Measurement")
    assert render_summary(BUNDLE, [], invalid=False) == first  # no page order: record order


def test_summary_invalid_record_shows_no_review_and_warns() -> None:
    out = render_summary(BUNDLE, ["A", "B"], invalid=True)
    assert out.count("最新の照合: 照合記録なし（未確認）") == 3 and "<time" not in out
    assert (
        '<p class="claim-evidence-warning">本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。</p>'
        in out
    )


def test_summary_unbound_claim_review_is_withheld() -> None:
    """B's page sentence disagrees with its record: lab (B's alone) shows no review; spec shows A's."""
    out = render_summary(BUNDLE, ["A", "B"], invalid=False, unbound=frozenset({"B"}))
    assert _li("Lab", LAB, " / 出典公開日 2026-08-30", LINK_B, "照合記録なし（未確認）") in out
    assert _li("Vendor", SPEC, " / 出典公開日 2026-08-20", f"{LINK_A}、{LINK_B}", _time("2026-09-05")) in out


def test_summary_english_and_no_sources() -> None:
    empty = {
        "version": 1,
        "sources": [],
        "claims": [_claim("A", [], "2026-09-05", status="unverified", verification=None)],
    }
    assert render_summary(empty, ["A"], invalid=False, lang="en") == (
        '<section class="claim-evidence-summary" aria-labelledby="claim-evidence-summary-title">'
        '<h2 id="claim-evidence-summary-title">Sources this page relies on</h2>'
        "<p>No source is recorded for the claims on this page.</p>"
        '<p class="claim-evidence-caveat">This lists the sources the claims on this page cite. It does not vouch for the sources themselves.</p></section>'
    )
    out = render_summary(BUNDLE, ["A"], invalid=False, lang="en", search_ignore=True)
    assert out.startswith(
        '<section class="claim-evidence-summary" aria-labelledby="claim-evidence-summary-title" data-pagefind-ignore data-search-exclude>'
    )
    assert '<p>Relied on by: <a href="#evidence-A">Label A</a>, <a href="#evidence-B">Label B</a></p>' in out
    assert f"<p>Latest review: {_time('2026-10-01')}</p>" in out


def test_summary_markers_of_the_latest_review_and_the_less_fresh_on_a_tie() -> None:
    """spec: B (reporting, 2026-10-01) is its latest review: due 2026-12-30, so fresh on 2026-12-01
    ... and on 2026-12-20 due soon (from 2026-12-17). With A and B reviewed the same day, the due-soon one decides."""
    fresh = Freshness(today=TODAY, source="--today", markers=True)
    out = render_summary(BUNDLE, ["A", "B"], invalid=False, freshness=fresh)
    marker = (
        ' · <span class="claim-evidence-freshness" data-freshness="{}"><span aria-hidden="true">{}</span> {}</span>'
    )
    assert (
        f"最新の照合: {_time('2026-10-01')}{marker.format('fresh', '🟢', '[90日] 照合 2026-10-01 · 次回確認 2026-12-30まで')}</p>"
        in out
    )
    later = render_summary(BUNDLE, ["A", "B"], invalid=False, freshness=dataclasses.replace(fresh, today="2026-12-20"))
    assert (
        f"最新の照合: {_time('2026-10-01')}{marker.format('due-soon', '🟡', '[90日] 照合 2026-10-01 · まもなく再確認（2026-12-30まで）')}</p>"
        in later
    )
    tie = _sealed(_claim("A", ["spec"], "2026-10-01"), _claim("B", ["spec"], "2026-10-01", basis="reporting"))
    out = render_summary(tie, ["A", "B"], invalid=False, freshness=dataclasses.replace(fresh, today="2026-12-20"))
    assert marker.format("due-soon", "🟡", "[90日] 照合 2026-10-01 · まもなく再確認（2026-12-30まで）") in out
    assert render_summary(
        BUNDLE, ["A"], invalid=False, freshness=dataclasses.replace(fresh, markers=False)
    ) == render_summary(BUNDLE, ["A"], invalid=False)


# --- the slot on a page ---------------------------------------------------------------


def _page(
    bundle: dict[str, Any],
    summary: str = "<div data-evidence-summary></div>",
    order: tuple[str, ...] = ("A", "B"),
    newline: str = "\n",
) -> str:
    body = "".join(
        f'<p data-claim-id="{cid}">Statement {cid}.</p>{newline}<div data-evidence-for="{cid}">{render_evidence(bundle, [cid])}</div>{newline}'
        for cid in order
    )
    script = f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>'
    return newline.join(
        ["<!DOCTYPE html>", f"<html><head>{CSS}", f"{script}</head>", "<body>", body + summary, "</body></html>", ""]
    )


def _codes(text: str, options: PageOptions | None = None) -> list[tuple[str, int | None, str]]:
    return [(d.code, d.line, d.message) for d in check_text(text, None, options).diagnostics]


def test_summary_slot_empty_is_stale_and_write_fills_only_it() -> None:
    text = _page(BUNDLE)
    page = check_text(text)
    assert [(d.code, d.subject, d.message) for d in page.diagnostics] == [
        (
            "SH140",
            "page",
            "sources summary is stale: it no longer lists what the claims on this page cite, or their latest reviews (run --write)",
        )
    ]
    new = page.rendered_text()
    slot = page.located.summaries[0]
    assert outside_identical(
        text, new, [(slot.open_end, slot.close_start, render_summary(BUNDLE, ["A", "B"], invalid=False))]
    )
    assert new == text.replace(
        "<div data-evidence-summary></div>",
        f"<div data-evidence-summary>{render_summary(BUNDLE, ['A', 'B'], invalid=False)}</div>",
    )
    again = check_text(new)
    assert again.diagnostics == [] and again.rendered_text() == new  # a second run changes nothing


def test_summary_follows_record_edits_and_crlf_pages() -> None:
    text = check_text(_page(BUNDLE, newline="\r\n")).rendered_text()
    assert check_text(text).diagnostics == []
    edited = copy.deepcopy(BUNDLE)
    edited["sources"][2]["title"] = "Measurement, second edition"  # B's record changes: its review no longer covers it
    from static_helper import replace_bundle

    changed = check_text(replace_bundle(text, edited))
    assert "sources summary is stale" in " ".join(d.message for d in changed.diagnostics)
    assert "\r\n" in changed.text and "\n" not in changed.text.replace("\r\n", "")


def test_summary_markers_turn_with_the_build_date() -> None:
    options = PageOptions(freshness=Freshness(today=TODAY, source="--today", markers=True))
    text = check_text(_page(BUNDLE), None, options).rendered_text()
    assert check_text(text, None, options).diagnostics == []
    later = dataclasses.replace(options, freshness=dataclasses.replace(options.freshness, today="2026-12-20"))  # type: ignore[arg-type]
    found = check_text(text, None, later)
    stale = [d for d in found.diagnostics if d.code == "SH140"]
    assert [d.subject for d in stale] == ["claim B", "page"]  # B's is due soon now; A's is fresh on both days
    assert [d.code for d in found.diagnostics if d.code != "SH140"] == ["CE602"]
    assert stale[0].message == (
        "evidence display is stale: only its freshness marker differs: fresh → due soon on 2026-12-17 "
        "(reviewed 2026-10-01, due 2026-12-30); run --write to show the current marker"
    )
    assert stale[1].message == (
        "sources summary is stale: only a freshness marker differs (a review it shows turned due soon or expired, "
        "or markers were switched on or off; the evidence blocks' SH140 say which and when); run --write to show "
        "the current markers"
    )
    assert [d.code for d in check_text(found.rendered_text(), None, later).diagnostics] == ["CE602"]


def test_summary_at_most_one_slot_per_page() -> None:
    text = _page(BUNDLE, summary="<div data-evidence-summary></div>\n<div data-evidence-summary></div>")
    page = check_text(text)
    line = text[: text.rindex("<div data-evidence-summary>")].count("\n") + 1
    assert [(d.code, d.line, d.message) for d in page.diagnostics] == [
        ("SH170", line, "at most one data-evidence-summary slot per page (found 2); keep one and remove the others")
    ]
    assert page.blocking  # --write leaves such a page alone


@pytest.mark.parametrize(
    "summary, why",
    [
        ("<p data-evidence-summary></p>", "is a <p>"),
        ("<div data-evidence-summary/>", "is written <div …/>, which HTML does not close"),
        ("<img data-evidence-summary>", "is a <img>"),
        (
            '<div data-evidence-summary data-evidence-for="A"></div>',
            "also carries data-evidence-for; give the summary an element of its own",
        ),
    ],
)
def test_summary_slot_must_be_a_container_of_its_own(summary: str, why: str) -> None:
    messages = [(c, m) for c, _, m in _codes(_page(BUNDLE, summary=summary)) if c == "SH171"]
    assert messages == [
        (
            "SH171",
            f"the data-evidence-summary slot must be a container element with an explicit end tag, e.g. <div data-evidence-summary></div> (it {why})",
        )
    ]


def test_summary_slot_nesting_with_claims_and_evidence_slots() -> None:
    inside = _page(BUNDLE).replace(
        '<p data-claim-id="A">Statement A.</p>',
        '<div data-claim-id="A">Statement A.<div data-evidence-summary></div></div>',
    )
    inside = inside.replace("<div data-evidence-summary></div>\n</body>", "</body>")
    assert ("SH172", 'the data-evidence-summary slot must not be inside the claim element of "A": move it out') in [
        (c, m) for c, _, m in _codes(inside)
    ]
    holding = _page(
        BUNDLE,
        order=("A",),
        summary='<div data-evidence-summary><p data-claim-id="B">Statement B.</p><div data-evidence-for="B"></div></div>',
    )
    assert (
        "SH172",
        'the data-evidence-summary slot holds the claim element of "B", which --write would replace: move it out of the slot',
    ) in [(c, m) for c, _, m in _codes(holding)]


def test_summary_slot_inside_a_link_and_alone_without_a_bundle() -> None:
    linked = _page(BUNDLE, summary='<a href="/x"><div data-evidence-summary></div></a>')
    line = linked[: linked.index('<a href="/x">')].count("\n") + 1
    assert (
        "SH116",
        f"the data-evidence-summary slot would be inside a link: the <a> opened at line {line} is still open where the slot starts; close it with </a> before the slot",
    ) in [(c, m) for c, _, m in _codes(linked)]
    alone = f"<!DOCTYPE html><html><head>{CSS}</head><body><DIV DATA-EVIDENCE-SUMMARY></DIV></body></html>"
    assert [c for c, _, _ in _codes(alone)] == ["SH101"]
    hidden = f"<!DOCTYPE html><html><head>{CSS}</head><body><!-- <div data-evidence-summary></div> --></body></html>"
    assert [c for c, _, _ in _codes(hidden)] == ["SH104"]


def test_summary_minified_block_is_not_stale() -> None:
    text = check_text(_page(BUNDLE)).rendered_text()
    minified = text.replace('class="claim-evidence-summary"', "class=claim-evidence-summary").replace(
        ' target="_blank"', " target=_blank"
    )
    assert minified != text
    assert check_text(minified).diagnostics == []


# --- a site's own templates (template_dir) ------------------------------------------------------------


def _site_with_templates(tmp_path: Path, summary_template: str) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text(_page(BUNDLE), encoding="utf-8")
    (site / "templates").mkdir()
    (site / "templates" / "evidence_summary.html.j2").write_text(summary_template, encoding="utf-8")
    (site / "claim-evidence.toml").write_text('pages = ["page.html"]\ntemplate_dir = "templates"\n', encoding="utf-8")
    return site


@pytest.fixture
def _static(run_static: Any) -> Any:
    """``_static(site, *args)`` -> ``(exit code, stdout + stderr)`` of static-helper with the site's config."""

    def static(site: Path, *args: str) -> tuple[int, str]:
        code, out, err = run_static("--config", str(site / "claim-evidence.toml"), *args)
        return code, out + err

    return static


def test_summary_template_dir_overrides_the_block_and_an_edit_makes_it_stale(_static: Any, tmp_path: Path) -> None:
    template = (
        '<section class="my-sources">\n  <h3>Our sources</h3>\n  <ul>{% for r in s.sources %}<li>{{ r.publisher }}: {{ r.title }}'
        "{% if r.reviewed %} ({{ r.reviewed }}){% endif %}</li>{% endfor %}</ul>\n</section>\n"
    )
    site = _site_with_templates(tmp_path, template)
    assert _static(site, "--write")[0] == 0
    text = (site / "page.html").read_text(encoding="utf-8")
    assert (
        '<div data-evidence-summary><section class="my-sources"><h3>Our sources</h3><ul><li>Vendor: Spec &lt;v3&gt; (2026-10-01)</li>'
        "<li>Paper: Launch (2026-09-05)</li><li>Lab: Measurement (2026-10-01)</li></ul></section></div>"
    ) in text
    assert render_evidence(BUNDLE, ["A"]) in text  # evidence blocks keep the packaged template
    assert _static(site)[0] == 0  # cached pass
    (site / "templates" / "evidence_summary.html.j2").write_text(
        template.replace("Our sources", "Sources"), encoding="utf-8"
    )
    code, out = _static(site)
    assert code == 1 and "SH140 sources summary is stale" in out  # the template's bytes are in every cache key
    assert _static(site, "--write")[0] == 0 and "<h3>Sources</h3>" in (site / "page.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "setting, files, message",
    [
        (
            'template_dir = "missing"',
            {},
            "SH003 template_dir must be a folder of templates, relative to this file, e.g. template_dir = \"evidence-templates\" (found 'missing')",
        ),
        (
            "template_dir = 3",
            {},
            'SH003 template_dir must be a folder of templates, relative to this file, e.g. template_dir = "evidence-templates" (found 3)',
        ),
        (
            'template_dir = "t"',
            {"other.j2": "x"},
            "SH003 template_dir 't' holds none of evidence.html.j2, evidence_summary.html.j2, malformed.html.j2: name a template like the packaged one it replaces",
        ),
        (
            'template_dir = "t"',
            {"evidence.html.j2": "{% if %}"},
            "t/evidence.html.j2:1:1: SH003 template syntax error: Expected an expression, got 'end of statement block'",
        ),
    ],
)
def test_summary_template_dir_errors_stop_the_run(
    _static: Any, tmp_path: Path, setting: str, files: dict[str, str], message: str
) -> None:
    site = tmp_path / "site"
    (site / "t").mkdir(parents=True)
    for name, text in files.items():
        (site / "t" / name).write_text(text, encoding="utf-8")
    (site / "page.html").write_text(_page(BUNDLE), encoding="utf-8")
    (site / "claim-evidence.toml").write_text(f'pages = ["page.html"]\n{setting}\n', encoding="utf-8")
    code, out = _static(site)
    assert code == 2 and message in out, out


def test_summary_template_dir_failing_at_render_is_the_sites_error(_static: Any, tmp_path: Path) -> None:
    """A site's template that fails while rendering (an undefined name) stops with the template named, exit 2,
    never an internal error; so does claim-evidence render --template-dir."""
    site = _site_with_templates(tmp_path, "<section>{{ s.nope.deeper }}</section>")
    code, out = _static(site)
    assert (
        code == 2
        and (
            f"{site / 'templates' / 'evidence_summary.html.j2'}: SH003 template evidence_summary.html.j2 failed while rendering: "
            "UndefinedError: 'claim_evidence._render.evidence._View object' has no attribute 'nope'; fix the template (template_dir)"
        )
        in out
    )
    assert "internal error" not in out
    own = tmp_path / "own"
    own.mkdir()
    (own / "evidence.html.j2").write_text("{{ c.nope.deeper }}", encoding="utf-8")
    from claim_evidence import InputError

    with pytest.raises(InputError, match="template evidence.html.j2 failed while rendering"):
        render_evidence(BUNDLE, template_dir=own)
