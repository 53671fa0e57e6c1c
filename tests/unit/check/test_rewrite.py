"""The one rewrite rule (claim_evidence._check.rewrite): a record error never leaves a slot empty or
outdated, only a broken page structure leaves a page unwritten, and the result says which it was."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from claim_evidence._check.facts import read_page_bundle
from claim_evidence._check.page import STRUCTURE
from claim_evidence._check.rewrite import rewrite, write_findings
from claim_evidence._html.locate import locate
from claim_evidence._record.freshness import Freshness
from static_helper import PageOptions, check_text, replace_bundle

from ...conftest import ROOT
from ..static_helper.test_static_properties import assert_same_page

ABOUT = (ROOT / "examples" / "site" / "about.html").read_text(encoding="utf-8")
UNVERIFIED = '<span class="claim-evidence-status">未確認・根拠未登録</span>'
INVALID_WARNING = "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。"
# The example site's settings: markers on, counted to the build date its pages were rendered for.
SITE = PageOptions(freshness=Freshness(today="2026-12-01", source="--today", markers=True))


def slots(text: str) -> dict[str, str]:
    """Each slot's content by claim id (the page's slots are one per claim here)."""
    return {s.attrs["data-evidence-for"]: text[s.open_end : s.close_start] for s in locate(text).slots}


def edited(change: Callable[[dict[str, Any]], None]) -> str:
    """about.html with its bundle changed by ``change`` (the page's sentences as they are)."""
    records = copy.deepcopy(read_page_bundle(ABOUT).loaded.value)
    change(records)
    return replace_bundle(ABOUT, records)


def own_error(records: dict[str, Any]) -> None:
    records["claims"][1]["basis"] = "hearsay"  # CE303 in ABOUT-CORRECTIONS' own record


def cited_source_error(records: dict[str, Any]) -> None:
    records["sources"][0]["publisher"] = " "  # CE202 in about-policy, which only ABOUT-AI cites


def top_level_error(records: dict[str, Any]) -> None:
    records["version"] = 2  # CE101: no claim's record holds it


def duplicate_id(records: dict[str, Any]) -> None:
    twin = copy.deepcopy(records["claims"][0])  # CE301 at $.claims[2].id: both ABOUT-AI records
    twin["label"] = "二つ目"
    records["claims"].append(twin)


@pytest.mark.parametrize(
    ("change", "unverified"),
    [
        (own_error, {"ABOUT-CORRECTIONS"}),
        (cited_source_error, {"ABOUT-AI"}),
        (top_level_error, {"ABOUT-AI", "ABOUT-CORRECTIONS"}),
        (duplicate_id, {"ABOUT-AI"}),
    ],
)
def test_rewrite_shows_only_the_claims_an_error_concerns_as_unverified(change, unverified) -> None:
    text = edited(change)
    page = check_text(text, "about.html", SITE)
    assert page.errors and not page.blocking
    assert {d.subject.removeprefix("claim ") for d in page.stale} == unverified
    done = rewrite(text, "about.html", SITE)
    assert done.text is not None and done.rewritten == len(unverified) and not done.left_stale
    again = check_text(done.text, "about.html", SITE)
    assert not again.stale
    assert [(d.code, d.path, d.message) for d in again.errors] == [(d.code, d.path, d.message) for d in page.errors]
    before, after = slots(ABOUT), slots(done.text)
    for cid in before:
        if cid in unverified:
            assert UNVERIFIED in after[cid] and INVALID_WARNING in after[cid] and "<time" not in after[cid]
        else:
            assert after[cid] == before[cid]  # the reviewed block, byte for byte
    assert "資料との照合済み" in before["ABOUT-AI"]
    assert rewrite(done.text, "about.html", SITE).text is None  # a second run changes nothing


def test_rewrite_of_a_broken_review_writes_unverified_and_the_run_still_fails() -> None:
    """The editor's case of issue 25: a sentence and its statement edited, the review not recorded."""
    text = ABOUT.replace("公開前に編集者が資料と照合する。", "公開前に編集者が資料と照合します。")
    done = rewrite(text, "about.html", SITE)
    assert done.text is not None and not done.left_stale
    found = write_findings(done.page, "about.html", done.rewritten)
    assert [d.code for d in found if d.is_error] == ["CE403"]
    assert UNVERIFIED in slots(done.text)["ABOUT-AI"]
    assert slots(done.text)["ABOUT-CORRECTIONS"] == slots(ABOUT)["ABOUT-CORRECTIONS"]


REVIEW_COMMAND = "`claim-evidence review record about.html --claim ABOUT-AI --method … --checked-at …`"


def test_broken_review_says_what_to_type_before_and_after_the_write() -> None:
    """Before the write the stale slot's SH140 carries the command; once the slot shows 未確認 (just
    written, and on every later run) that finding is gone, and the CE403 carries it instead, once."""
    text = ABOUT.replace("公開前に編集者が資料と照合する。", "公開前に編集者が資料と照合します。")
    before = write_findings(check_text(text, "about.html", SITE), "about.html", 0, write=False)
    assert [(d.code, REVIEW_COMMAND in d.message) for d in before if d.is_error] == [("SH140", True), ("CE403", False)]
    done = rewrite(text, "about.html", SITE)
    assert done.text is not None
    for page, rewritten in ((done.page, done.rewritten), (check_text(done.text, "about.html", SITE), 0)):
        (seal,) = [d for d in write_findings(page, "about.html", rewritten) if d.is_error]
        assert seal.code == "CE403" and seal.message.count(REVIEW_COMMAND) == 1
        assert (
            "its slot shows 未確認 until the review is recorded: see what changed with `claim-evidence review diff "
            "about.html --claim ABOUT-AI`, read the sources again" in seal.message
        )


def test_rewrite_refuses_a_broken_structure_and_says_the_page_is_left_stale() -> None:
    """A second slot for ABOUT-CORRECTIONS (SH111): which slot is its cannot be told, so nothing is
    written, even the ABOUT-AI slot its broken review made stale; SH150 names the structure first."""
    text = edited(top_level_error).replace("</main>", '<div data-evidence-for="ABOUT-CORRECTIONS"></div></main>')
    assert text.count('data-evidence-for="ABOUT-CORRECTIONS"') == 2
    done = rewrite(text, "about.html", SITE)
    assert done.text is None and done.rewritten == 0 and done.left_stale
    assert [d.code for d in done.page.blocking] == ["SH111"]
    found = write_findings(done.page, "about.html", done.rewritten)
    assert found[-1].code == "SH150"
    assert found[-1].message.startswith("not rewritten: fix SH111 (exactly one evidence slot required for claim")
    assert {d.code for d in found} >= {"CE101", "SH140", "SH111"}


def test_rewrite_of_a_page_with_a_slot_for_an_unregistered_claim_is_left_stale() -> None:
    """Nothing renders into a slot whose claim the bundle does not have (SH112): what it shows stays,
    so the page is written (its other slots are fine) and still reported as left stale."""
    text = ABOUT.replace("</main>", '<div data-evidence-for="GONE"><aside>古い表示</aside></div></main>')
    done = rewrite(text, "about.html", SITE)
    assert [d.code for d in done.page.errors] == ["SH112"] and not done.page.blocking
    assert done.left_stale


def test_rewrite_of_a_clean_page_is_not_left_stale() -> None:
    done = rewrite(ABOUT, "about.html", SITE)
    assert done.text is None and not done.page.errors and not done.page.stale and not done.left_stale
    assert rewrite(ABOUT, "about.html", SITE, write=False).left_stale is False


def test_rewrite_without_write_leaves_a_stale_page_stale() -> None:
    text = edited(own_error)
    done = rewrite(text, "about.html", SITE, write=False)
    assert done.text is None and done.left_stale


def test_structure_codes_are_the_ones_schema_documents_as_blocking() -> None:
    """SCHEMA.md's SH150 paragraph lists the codes that leave a page unwritten: the same set."""
    schema = (ROOT / "SCHEMA.md").read_text(encoding="utf-8")
    start = schema.index("Only a broken page structure leaves a page unwritten")
    paragraph = schema[start : schema.index("\n\n", start)]
    listed = set(re.findall(r"\b(?:SH|CE)\d{3}\b", paragraph.split("Everything else")[0]))
    assert listed == STRUCTURE


REVIEW = "最新の照合: <time"  # a source's latest review, shown (else 記録なし（未確認）)
TITLES = (
    "クモエンジン 3 技術仕様書",
    "クモエンジン 3 性能レポート",
    "推論エンジン比較測定 2026年8月版",
    "クモエンジン 3、企業向けに提供開始",
)


def summary_of(text: str) -> str:
    slot = locate(text).summaries[0]
    return text[slot.open_end : slot.close_start]


def test_rewrite_summary_withholds_only_the_invalid_claims_reviews() -> None:
    """The sources summary shows a review where its claim's block shows it: a claim whose own record is
    invalid loses its review there too; every other source keeps its latest review, and no warning."""
    article = (ROOT / "examples" / "site" / "articles" / "kumo-engine-3.html").read_text(encoding="utf-8")
    records = read_page_bundle(article).loaded.value
    release = records["claims"][2]
    assert release["id"] == "KUMO-RELEASE" and [r["source_id"] for r in release["source_refs"]] == [
        "hoshi-news",
        "kumo-spec",
    ]
    assert [c["id"] for c in records["claims"] if "hoshi-news" in str(c["source_refs"])] == ["KUMO-RELEASE"]

    def rewritten(change: Callable[[dict[str, Any]], None]) -> str:
        changed = copy.deepcopy(records)
        change(changed)
        done = rewrite(replace_bundle(article, changed), "kumo-engine-3.html", SITE)
        assert done.text is not None and not done.left_stale
        return summary_of(done.text)

    def entries(summary: str) -> dict[str, str]:
        return {title: next(e for e in summary.split("</li>") if title in e) for title in TITLES}

    assert all(REVIEW in entry for entry in entries(summary_of(article)).values())
    one = entries(rewritten(lambda b: b["claims"][2].update(basis="hearsay")))
    assert INVALID_WARNING not in "".join(one.values())
    assert REVIEW not in one["クモエンジン 3、企業向けに提供開始"]  # hoshi-news: KUMO-RELEASE's review alone
    assert all(REVIEW in one[title] for title in TITLES if title != "クモエンジン 3、企業向けに提供開始")
    every = rewritten(top_level_error)
    assert INVALID_WARNING in every and REVIEW not in every


def test_stale_message_names_why_the_claim_is_unverified() -> None:
    tail = (
        "; --write puts the 未確認 block in this slot, and the check fails until the errors are fixed: fix them, "
        "then run --write to show the reviewed block"
    )
    shown = "evidence display is stale and must now show the claim as unverified: "
    cases = {
        own_error: {"claim ABOUT-CORRECTIONS": shown + "its record has errors (CE303)" + tail},
        cited_source_error: {  # the seal covers the source: CE403 too, and review record waits for CE202
            "claim ABOUT-AI": shown + "its review no longer covers its record (CE403); --write puts the 未確認 block "
            "in this slot, and the check fails until the review is recorded: fix CE202 first (review record "
            "refuses a record with errors), then see what changed with `claim-evidence review diff about.html "
            "--claim ABOUT-AI`, read the sources again, record the review with `claim-evidence review record "
            "about.html --claim ABOUT-AI --method … --checked-at …`, then run --write to show the reviewed block"
        },
        top_level_error: dict.fromkeys(
            ("claim ABOUT-AI", "claim ABOUT-CORRECTIONS"),
            shown + "the bundle has errors that concern every claim (CE101 in claim_evidence), so every claim of the "
            "bundle shows as unverified" + tail,
        ),
    }

    def unsealed_source_error(records: dict[str, Any]) -> None:
        source = dict(records["sources"][0], id="bad-src", publisher=" ")  # CE202; ABOUT-CORRECTIONS has no seal
        records["sources"].append(source)
        records["claims"][1]["source_refs"] = [{"source_id": "bad-src", "section": "s", "supports": "t"}]

    cases[unsealed_source_error] = {
        "claim ABOUT-CORRECTIONS": shown + "a source has errors (CE202 in source bad-src)" + tail
    }
    for change, expected in cases.items():
        page = check_text(edited(change), "about.html", SITE)
        assert {d.subject: d.message for d in page.stale} == expected, change.__name__


_SLOT = re.compile(r'(<div data-evidence-for="([^"]+)">)(.*?</aside>)(</div>)', re.S)
_PLACED = PageOptions(page="articles/p.html")  # (a page whose place is known: SH130 names a near link's line)


def _stale_pages() -> list[tuple[str, str]]:
    """The benchmark's varied page (a CE905 warning in its bundle, after every slot) made stale in ways
    that move what follows a slot in the written page: ``(what, page)``."""
    from ..static_helper.test_static_cache import _varied_page

    page = _varied_page()
    slots = list(_SLOT.finditer(page))
    first, second = slots[0], slots[1]
    shrinks = page[: first.start(3)] + "\n<p>an old block\nover\nfour lines</p>\n" + page[first.end(3) :]
    grows = page[: first.start(3)] + page[first.end(3) :]  # (not yet rendered: an empty slot)
    # A claim whose text its record does not match (SH120, placed at the claim) right after a stale slot, on
    # its line: the rewrite moves the finding along the line.
    claim = page.index("<p data-claim-id=", second.end())
    same_line = page[: second.start(3)] + "old" + page[second.end(3) : second.end()] + page[claim:]
    same_line = same_line.replace("</p>", "X</p>", 1 + same_line[: same_line.index("old</div>")].count("</p>"))
    # The evidence stylesheet linked wrongly after a stale slot (SH130 names its line): the link moves.
    link = '<link rel="stylesheet" href="/assets/claim-evidence.css">'
    wrong = '<link rel="stylesheet" href="/elsewhere/claim-evidence.css">'
    moved_link = shrinks.replace(link, "", 1).replace("</aside></div>", f"</aside></div>\n{wrong}", 1)
    crlf = shrinks.replace("\n", "\r\n")
    return [("shrinks", shrinks), ("grows", grows), ("same line", same_line), ("link", moved_link), ("crlf", crlf)]


@pytest.mark.parametrize(("what", "page"), _stale_pages(), ids=lambda value: value if len(value) < 20 else "")
def test_write_findings_are_placed_in_the_written_page(what: str, page: str) -> None:
    """What a run with --write reports (and a plugin, on the page it publishes) is placed in the page as
    written: a block of another number of lines than the stale content moves every finding after it, one
    of another length those after it on its line, and SH130 names the moved line of the link. A check of
    the written page reports exactly those findings (they were 6 lines off before)."""
    done = rewrite(page, "p.html", _PLACED)
    assert done.text is not None and done.rewritten, what
    reported = write_findings(done.page, "p.html", done.rewritten)
    checked = check_text(done.text, "p.html", _PLACED)
    again = checked.diagnostics
    assert reported == again, what
    assert_same_page(done.page.written, checked)  # (the written page as the proof has it: what the cache keeps)
    as_checked = [d for d in done.page.diagnostics if d.code != "SH140"]
    if what == "grows":
        assert reported == as_checked  # (a one-line block where there was none: nothing moves)
    else:
        assert [(d.line, d.column, d.message) for d in reported] != [(d.line, d.column, d.message) for d in as_checked]
    codes = {d.code for d in reported}
    assert "CE905" in codes and ("SH120" in codes) == (what == "same line") and ("SH130" in codes) == (what == "link")
    if what == "link":
        assert all(" at line " in d.message for d in reported if d.code == "SH130")
