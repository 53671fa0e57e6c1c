"""Changing a claim's statement, a reference and a source (``set_claim(statement=…)``, ``set_ref``,
``set_source``): refused with validate's codes, the reviews undone named, no fingerprint written."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from claim_evidence import iter_diagnostics
from claim_evidence._record.authoring import AuthoringError, EditRefused, add_ref, set_claim, set_ref, set_source

from ...conftest import SEED_FINGERPRINT
from .test_authoring import URL_RULE, fingerprints

UNDONE = (
    "this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review record FILE "
    "--claim fictional-rate …",
)
SRC = "fictional-vendor-doc"
STATEMENT = "架空ベンダーは固定条件で達成率72.6%と公表した。"


def refused(edit: Any) -> list[str]:
    with pytest.raises(EditRefused) as caught:
        edit()
    return [f"{d.path}: {d.code} {d.message}" for d in caught.value.diagnostics]


def test_authoring_set_statement_undoes_the_review(bundle: dict) -> None:
    change = set_claim(bundle, "fictional-rate", statement="架空ベンダーは達成率72.6%と公表した。")
    assert change.bundle["claims"][0]["statement"] == "架空ベンダーは達成率72.6%と公表した。"
    assert change.notes == UNDONE
    assert fingerprints(change.bundle) == [SEED_FINGERPRINT]


def test_authoring_set_statement_that_reads_the_same_is_left_as_written(bundle: dict) -> None:
    change = set_claim(bundle, "fictional-rate", statement=f"\n  {STATEMENT}\u3000")
    assert change.bundle == bundle
    assert change.notes == ("the statement of claim fictional-rate already reads so: it is left as it is",)


def test_authoring_set_statement_refusals_are_validations(bundle: dict) -> None:
    assert refused(lambda: set_claim(bundle, "fictional-rate", statement=" ")) == [
        "$.claims[0].statement: CE302 statement required: statement must be a non-blank string (found ' ')"
    ]


def test_authoring_set_ref_quote_prefix_suffix(bundle: dict) -> None:
    quoted = set_ref(bundle, "fictional-rate", SRC, quote="達成率72.6%", prefix="固定条件で", suffix="と")
    assert quoted.bundle["claims"][0]["source_refs"] == [
        {
            "source_id": SRC,
            "section": "結果",
            "supports": "架空ベンダーが達成率を公表したという主張",
            "quote": {"exact": "達成率72.6%", "prefix": "固定条件で", "suffix": "と"},
        }
    ]
    assert quoted.notes == UNDONE
    assert [d.code for d in iter_diagnostics(quoted.bundle) if d.is_error] == ["CE403"]
    # a new exact keeps the context; '' (None) removes one part, or the whole quote
    again = set_ref(quoted.bundle, "fictional-rate", SRC, quote="72.6%", prefix=None, section="表 1")
    assert again.bundle["claims"][0]["source_refs"][0]["quote"] == {"exact": "72.6%", "suffix": "と"}
    assert again.bundle["claims"][0]["source_refs"][0]["section"] == "表 1"
    assert again.notes == ()  # the review was undone already
    gone = set_ref(again.bundle, "fictional-rate", SRC, quote=None)
    assert "quote" not in gone.bundle["claims"][0]["source_refs"][0]


def test_authoring_set_ref_replaces_a_quote_of_the_wrong_type(bundle: dict) -> None:
    broken = copy.deepcopy(bundle)
    broken["claims"][0]["source_refs"][0]["quote"] = "72.6%"
    with pytest.raises(AuthoringError) as caught:
        set_ref(broken, "fictional-rate", SRC, suffix="と")
    assert str(caught.value) == (
        "claim fictional-rate's reference to fictional-vendor-doc has no quote for a suffix to stand beside: "
        "give --quote TEXT with --suffix"
    )
    fixed = set_ref(broken, "fictional-rate", SRC, quote="72.6%", suffix="と")
    assert fixed.bundle["claims"][0]["source_refs"][0]["quote"] == {"exact": "72.6%", "suffix": "と"}


def test_authoring_set_ref_refusals(bundle: dict) -> None:
    assert refused(lambda: set_ref(bundle, "fictional-rate", SRC, quote="72.6%", prefix="x" * 201)) == [
        "$.claims[0].source_refs[0].quote.prefix: CE316 quote.prefix must be a string of at most 200 characters "
        '(found 201 characters): {"exact": "the passage relied on, as the source writes it", "prefix": "text just '
        'before it", "suffix": "text just after it"} (prefix and suffix optional)'
    ]
    assert refused(lambda: set_ref(bundle, "fictional-rate", SRC, section=" ")) == [
        "$.claims[0].source_refs[0].section: CE310 each source needs section and supports: section must be a "
        "non-blank string (found ' ')"
    ]
    with pytest.raises(AuthoringError) as caught:
        set_ref(bundle, "fictional-rate", "nope", section="S")
    assert (
        str(caught.value)
        == "claim fictional-rate cites no source 'nope' (it cites: fictional-vendor-doc); ref add cites one"
    )
    with pytest.raises(AuthoringError) as caught:
        set_ref(bundle, "fictional-rate", SRC, prefix="x")
    assert str(caught.value).endswith("has no quote for a prefix to stand beside: give --quote TEXT with --prefix")
    twice = add_ref(bundle, "fictional-rate", SRC, "表", "値").bundle
    with pytest.raises(AuthoringError) as caught:
        set_ref(twice, "fictional-rate", SRC, section="S")
    assert str(caught.value) == (
        "claim fictional-rate cites source fictional-vendor-doc 2 times; ref set changes a claim's one reference to a "
        "source: remove them (claim-evidence ref remove FILE --claim fictional-rate --source fictional-vendor-doc) "
        "and add each again"
    )


def test_authoring_set_source_fields_and_removals(bundle: dict) -> None:
    change = set_source(
        bundle, SRC, title="新しい題", archive_url="https://web.archive.org/web/2026/https://example.com/r"
    )
    source = change.bundle["sources"][0]
    assert (source["title"], source["archive_url"]) == (
        "新しい題",
        "https://web.archive.org/web/2026/https://example.com/r",
    )
    assert change.notes == UNDONE and fingerprints(change.bundle) == [SEED_FINGERPRINT]
    cleared = set_source(change.bundle, SRC, published_at=None, archive_url=None)
    assert cleared.bundle["sources"][0] == {
        "id": SRC,
        "publisher": "架空ベンダー",
        "title": "新しい題",
        "url": "https://example.com/fictional-report",
    }


def test_authoring_set_source_url_of_a_snapshot_says_take_a_new_one(bundle: dict) -> None:
    snap = copy.deepcopy(bundle)
    snap["sources"][0]["snapshot"] = {
        "sha256": "0" * 64,
        "retrieved_at": "2026-09-04",
        "content_type": "text/html",
        "final_url": "https://example.com/fictional-report",
    }
    change = set_source(snap, SRC, url="https://example.com/moved")
    assert change.notes[-1] == (
        "source fictional-vendor-doc's snapshot is of its old URL: take a new one with claim-evidence sources snapshot "
        "FILE --source fictional-vendor-doc"
    )
    assert len(set_source(snap, SRC, url="https://example.com/fictional-report").notes) == 0


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"url": "javascript:alert(1)"}, f"$.sources[0].url: CE204 {URL_RULE}"),
        (
            {"archive_url": "ftp://example.com/"},
            "$.sources[0].archive_url: CE207 archive_url must be a safe HTTP(S) URL",
        ),
        (
            {"published_at": "2026-02-30"},
            "$.sources[0].published_at: CE205 invalid published_at: published_at must be an existing date as "
            "YYYY-MM-DD, or null (found '2026-02-30'; no such date)",
        ),
        ({"title": ""}, "$.sources[0].title: CE203 title required: title must be a non-blank string (found '')"),
    ],
)
def test_authoring_set_source_refusals(bundle: dict, fields: dict, expected: str) -> None:
    assert refused(lambda: set_source(bundle, SRC, **fields)) == [expected]


def test_authoring_set_source_unknown_id(bundle: dict) -> None:
    with pytest.raises(AuthoringError) as caught:
        set_source(bundle, "nope", title="T")
    assert str(caught.value) == (
        "no source with id 'nope' (sources: fictional-vendor-doc); add it with claim-evidence source add"
    )
