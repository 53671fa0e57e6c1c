"""No JSON value crashes anything: every field of a bundle replaced by every kind of JSON value,
through the library, the page check and both command lines.

A rule or view that assumes a type the schema has not vouched for (``status in SET`` with
``status == []``) raises ``TypeError: unhashable type``; these tests catch the whole class.
"""

from __future__ import annotations

import copy
import html as html_lib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import static_helper.cli
from claim_evidence import Diagnostic, claim_fingerprint, iter_diagnostics, render_evidence, validate_bundle
from claim_evidence._record.vocabulary import LABELS
from claim_evidence.cli import main as claim_evidence_main
from static_helper import check_text, render_static_page

VALUES: list[Any] = [None, True, 0, -1.5, "", "x", [], [1], ["a", []], {}, {"a": 1}, {"": {"b": []}}, [{}], [[]]]
VERIFIED_LABELS = [LABELS[lang]["status"][s] for lang in LABELS for s in ("matched", "partial", "conflict")]
STYLESHEET = '<link rel="stylesheet" href="/assets/claim-evidence.css">'


def _full_bundle() -> dict[str, Any]:
    """A valid, sealed bundle that uses every field of the contract (two claims, two sources)."""
    sources = [
        {
            "id": "src-a",
            "publisher": "架空社",
            "title": "架空の発表",
            "url": "https://example.com/a",
            "published_at": "2026-09-01",
        },
        {
            "id": "src-b",
            "publisher": "Fictional Lab",
            "title": "Report",
            "url": "https://example.com/b",
            "published_at": "2026-09-02",
        },
    ]
    claims: list[dict[str, Any]] = [
        {
            "id": "rate",
            "label": "公表値",
            "statement": "架空社は達成率72.6%と公表した。",
            "evidence_label": "Claim",
            "basis": "operator_measurement",
            "status": "matched",
            "conditions": ["固定条件", "説明用データ"],
            "as_of": "2026-09-01",
            "uncertainty": "再測定は未実施",
            "source_refs": [
                {
                    "source_id": "src-a",
                    "section": "結果",
                    "supports": "達成率",
                    "quote": {"exact": "達成率は72.6%", "prefix": "結果:", "suffix": "。"},
                },
                {"source_id": "src-b", "section": "Table 2", "supports": "the rate"},
            ],
            "measurement": {
                "environment": "2 cores",
                "method": "fixed script",
                "results_url": "https://example.com/results",
            },
        },
        {
            "id": "other",
            "statement": "別の主張。",
            "basis": "reporting",
            "status": "partial",
            "conditions": [],
            "source_refs": [{"source_id": "src-b", "section": "p. 3", "supports": "part of it"}],
        },
    ]
    for claim in claims:
        claim["verification"] = {
            "checked_at": "2026-09-05",
            "method": "human_document_review",
            "fingerprint": claim_fingerprint(claim, sources),
            "note": "本文と表を照合",
        }
    return {"version": 1, "subject_fingerprint": None, "sources": sources, "claims": claims}


def _paths(value: Any, here: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every place in ``value``: the whole, each key's value, each list item."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*here, index))


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    if not path:
        return copy.deepcopy(new)
    out = copy.deepcopy(value)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = copy.deepcopy(new)
    return out


BASE = _full_bundle()
BASE.pop("subject_fingerprint")  # (a static page's bundle has no subject; the key is tested below on its own)
CASES = [(path, value) for path in _paths(BASE) for value in VALUES]
CASES += [(("subject_fingerprint",), value) for value in VALUES]


def _case_id(path: tuple[str | int, ...], value: Any) -> str:
    return ".".join(map(str, path)) + "=" + json.dumps(value)


def _page(bundle: Any) -> str:
    body = "".join(
        f'<p data-claim-id="{cid}">{statement}</p>\n<div data-evidence-for="{cid}"></div>\n'
        for cid, statement in (("rate", "架空社は達成率72.6%と公表した。"), ("other", "別の主張。"))
    )
    data = json.dumps(bundle, ensure_ascii=False).replace("<", "\\u003c")
    return (
        f'<!DOCTYPE html>\n<html lang="ja"><head>{STYLESHEET}</head><body>\n{body}'
        f'<script type="application/json" id="claim-evidence-data">{data}</script>\n</body></html>\n'
    )


def _assert_survives(bundle: Any) -> list[Diagnostic]:
    """The library never raises; a claim shown with a verified status is one whose own record, with the
    sources it cites and the bundle's other fields, passes validation on its own (an error elsewhere in
    the bundle leaves it as reviewed; an error of its own, of a source it cites or of the whole bundle
    never does)."""
    messages = validate_bundle(bundle)
    diagnostics = list(iter_diagnostics(bundle))
    assert all(isinstance(m, str) for m in messages)
    assert [d.text for d in diagnostics if d.is_error] == messages
    html = render_evidence(bundle) + render_evidence(bundle, lang="en")
    page = check_text(_page(bundle), "case.html")
    rendered, errors = render_static_page(_page(bundle))
    if messages:
        assert errors and rendered == _page(bundle)
        blocks = [*html.split("<aside")[1:], *(content for _, content in page.rendered)]
        for block in blocks:
            if _verified(block):  # a claim's block that shows it reviewed: its own record must check alone
                cid = html_lib.unescape(block.split('data-evidence-id="', 1)[1].split('"', 1)[0])
                assert validate_bundle(_alone(bundle, cid)) == [], (cid, messages)
    return diagnostics


def _verified(html: str) -> bool:
    return any(label in html for label in VERIFIED_LABELS)


def _alone(bundle: dict[str, Any], cid: str) -> dict[str, Any]:
    """The bundle cut down to the claim ``cid`` and the sources it cites (every source with a cited id)."""
    alone = copy.deepcopy(bundle)
    alone["claims"] = [c for c in bundle["claims"] if isinstance(c, dict) and c.get("id") == cid]
    refs = [
        r for c in alone["claims"] for r in (c.get("source_refs") if isinstance(c.get("source_refs"), list) else [])
    ]
    cited = {json.dumps(r.get("source_id")) for r in refs if isinstance(r, dict)}
    if isinstance(bundle.get("sources"), list):
        alone["sources"] = [s for s in bundle["sources"] if not isinstance(s, dict) or json.dumps(s.get("id")) in cited]
    return alone


def test_json_types_base_bundle_is_valid_and_verified() -> None:
    """The matrix starts from a record that passes and shows "matched": every failure below is the edit's."""
    assert validate_bundle(BASE) == []
    assert "資料との照合済み" in render_evidence(BASE)
    assert render_static_page(_page(BASE))[1] == []


@pytest.mark.parametrize("path, value", CASES, ids=[_case_id(p, v) for p, v in CASES])
def test_json_types_every_field_every_value_never_crashes(path: tuple[str | int, ...], value: Any) -> None:
    bundle = _replaced(BASE, path, value)
    diagnostics = _assert_survives(bundle)
    # A value of another JSON type than the contract's is always an error, somewhere.
    if path == ("subject_fingerprint",):
        original: Any = "0" * 64  # a string of 64 hex digits, or null
    else:
        original = BASE if not path else _at(BASE, path)
    if path and _json_type(value) != _json_type(original) and not _optional_null(path, value):
        assert any(d.is_error for d in diagnostics), f"{_case_id(path, value)} was accepted"


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def _optional_null(path: tuple[str | int, ...], value: Any) -> bool:
    """Optional fields the contract allows to be null (SCHEMA.md's field tables)."""
    return value is None and path[-1] in (
        "label",
        "as_of",
        "uncertainty",
        "published_at",
        "measurement",
        "note",
        "subject_fingerprint",
    )


@pytest.mark.parametrize("value", VALUES, ids=json.dumps)
def test_json_types_statuses_and_source_ids_are_ordinary_findings(value: Any) -> None:
    """The two fields that used to crash (unhashable status / source_id) give their own codes."""
    codes_status = {d.code for d in iter_diagnostics(_replaced(BASE, ("claims", 0, "status"), value))}
    codes_source = {
        d.code for d in iter_diagnostics(_replaced(BASE, ("claims", 0, "source_refs", 0, "source_id"), value))
    }
    assert "CE305" in codes_status
    assert "CE309" in codes_source


def test_json_types_cli_validate_reports_every_case_on_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    for number, (path, value) in enumerate(CASES):
        target = tmp_path / f"case-{number:04d}.json"
        target.write_text(json.dumps(_replaced(BASE, path, value), ensure_ascii=False), encoding="utf-8")
        files.append(str(target))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE, ensure_ascii=False), encoding="utf-8")
    code = claim_evidence_main(["validate", "--format", "json", str(good), *files])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (code, err) == (1, "")
    statuses = {entry["path"]: entry["status"] for entry in report["files"]}
    assert statuses[str(good)] == "pass"
    assert set(statuses) == {str(good), *files}
    assert "internal error" not in out and "CE999" not in out


def test_json_types_static_helper_run_over_a_folder_of_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One page per case beside good pages: every case page is reported on itself, the good ones pass."""
    site = tmp_path / "site"
    site.mkdir()
    good = [site / f"good-{n}.html" for n in range(3)]
    rendered, errors = render_static_page(_page(BASE))
    assert errors == []
    for page in good:  # rendered, so they pass
        page.write_text(rendered, encoding="utf-8")
    for number, (path, value) in enumerate(CASES):
        (site / f"case-{number:04d}.html").write_text(_page(_replaced(BASE, path, value)), encoding="utf-8")
    code = static_helper.cli.main([str(site), "--no-cache", "--jobs", "2", "--format", "json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    statuses = {Path(entry["path"]).name: entry["status"] for entry in report["files"]}
    assert code == 1, err
    assert [statuses[p.name] for p in good] == ["pass"] * 3
    assert len(statuses) == len(CASES) + 3
    assert "internal error" not in out + err and "CE999" not in out


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)
PLACES = [path for path in _paths(BASE)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(PLACES), value=JSON)
def test_json_types_arbitrary_json_anywhere_never_crashes(place: tuple[str | int, ...], value: Any) -> None:
    _assert_survives(_replaced(BASE, place, value))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON)
def test_json_types_arbitrary_json_as_the_whole_bundle_never_crashes(value: Any) -> None:
    _assert_survives(value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(["status", "source_refs", "verification", "basis", "conditions", "measurement", "id"]),
    value=JSON,
)
def test_json_types_arbitrary_json_in_risky_claim_fields_never_crashes(key: str, value: Any) -> None:
    _assert_survives(_replaced(BASE, ("claims", 0, key), value))
