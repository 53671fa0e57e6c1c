from __future__ import annotations

import copy
from pathlib import Path

import pytest

from claim_evidence import InputError
from claim_evidence.news import CorrectionRegistryError, apply_article_correction, load_corrections

from ...news_support import CORRECTIONS, URL, canonical_bundle, example_items, registry_value, write_registry


def test_load_corrections_example_is_valid() -> None:
    registry = load_corrections(CORRECTIONS)
    assert registry.evidence_urls() == [URL]
    assert registry.diagnostics == ()
    assert registry.corrections[URL].fields["evidence_label"] == "Fact-B"


def test_apply_article_correction_replaces_fields_and_attaches_bundle() -> None:
    registry = load_corrections(CORRECTIONS)
    item = example_items()[0]
    before = copy.deepcopy(item)
    corrected = apply_article_correction(item, registry)
    assert item == before  # the input is never mutated
    assert corrected["title"] == "ノルンベイ計算機、企業価値約300億米ドルで約30億米ドルを調達と報道"
    assert corrected["source"] == "ハーバーライン・テック（クレスト金融ニュースの報道を引用）"
    assert corrected["points"] == ["計算資源の増強に充てるとされる"]  # fields not corrected are kept
    assert corrected["claim_evidence"] == canonical_bundle()
    corrected["claim_evidence"]["claims"][0]["status"] = "conflict"
    assert registry.corrections[URL].expected_bundle() == canonical_bundle()  # handing out a copy, not the record


def test_apply_article_correction_unregistered_item_passes_untouched() -> None:
    registry = load_corrections(CORRECTIONS)
    item = example_items()[1]
    result = apply_article_correction(item, registry)
    assert result == item
    assert result is not item
    assert "claim_evidence" not in result


def test_load_corrections_invalid_bundle_names_url_and_json_path(tmp_path: Path) -> None:
    value = registry_value()
    del value[URL]["claim_evidence"]["claims"][1]["statement"]
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(write_registry(tmp_path, value))
    [first, *_] = caught.value.diagnostics
    assert first.code == "CE302"
    assert first.path == '$["https://example.com/news/nornbay-compute-funding"].claim_evidence.claims[1].statement'
    assert first.file == str(tmp_path / "corrections.json")
    assert (
        first.text
        == f"article {URL}, claim nornbay-raise: statement required: statement must be a non-blank string (the key is missing)"
    )


def test_load_corrections_subject_mismatch_is_an_error(tmp_path: Path) -> None:
    value = registry_value()
    value[URL]["summary"] += "追記。"
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(write_registry(tmp_path, value))
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [
        ("CE106", f'$["{URL}"].claim_evidence.subject_fingerprint')
    ]
    assert str(caught.value) == f"article {URL}: article text differs from the reviewed subject"


def test_load_corrections_bundle_without_subject_fields_is_an_error(tmp_path: Path) -> None:
    value = registry_value()
    del value[URL]["tldr"]
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(write_registry(tmp_path, value))
    assert [d.code for d in caught.value.diagnostics] == ["NW103"]
    assert (
        caught.value.diagnostics[0].message == "a correction with claim_evidence must give the reviewed tldr as strings"
    )


@pytest.mark.parametrize(
    ("value", "code", "path"),
    [
        ([], "NW100", "$"),
        ({"javascript:alert(1)": {"title": "x"}}, "NW101", '$["javascript:alert(1)"]'),
        ({URL: "title"}, "NW102", f'$["{URL}"]'),
        ({URL: {"title": 3}}, "NW105", f'$["{URL}"].title'),
        ({URL: {"evidence_label": "Truth"}}, "NW106", f'$["{URL}"].evidence_label'),
        ({URL: {"url": "https://example.com/other"}}, "NW107", f'$["{URL}"].url'),
    ],
)
def test_load_corrections_shape_errors(tmp_path: Path, value: object, code: str, path: str) -> None:
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(write_registry(tmp_path, value))
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [(code, path)]


def test_load_corrections_duplicate_url_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "corrections.json"
    path.write_text(f'{{"{URL}": {{"title": "a"}}, "{URL}": {{"title": "b"}}}}', encoding="utf-8")
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(path)
    assert [(d.code, d.path) for d in caught.value.diagnostics] == [("NW104", f'$["{URL}"]')]


def test_load_corrections_plain_correction_without_bundle(tmp_path: Path) -> None:
    registry = load_corrections(write_registry(tmp_path, {URL: {"title": "訂正後の見出し"}}))
    corrected = apply_article_correction(example_items()[0], registry)
    assert corrected["title"] == "訂正後の見出し"
    assert "claim_evidence" not in corrected
    assert registry.evidence_urls() == []


def test_load_corrections_unreadable_file_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "corrections.json"
    path.write_text('{"a": ', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_corrections(path)
    assert caught.value.diagnostic.code == "CE003"
    assert caught.value.diagnostic.line == 1
