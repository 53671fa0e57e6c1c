"""kb.json's records and review periods: what an answer's Cited Sources are aged from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claim_evidence import InputError, load_kb
from claim_evidence.cli import main as claim_evidence_main

from ...conftest import ROOT

SITE = ROOT / "examples" / "site"


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kb") / "kb.json"
    argv = ["kb", "build", "--config", str(SITE / "claim-evidence.toml"), "--today", "2026-12-01", "--out", str(out)]
    assert claim_evidence_main(argv) == 0
    return out


def test_kb_build_stores_each_claim_record_and_the_periods(kb_path: Path) -> None:
    kb = json.loads(kb_path.read_text(encoding="utf-8"))
    assert kb["freshness"] == {
        "max_age_days": {
            "editorial": None,
            "independent_measurement": 365,
            "official_spec": 365,
            "operator_measurement": 365,
            "reporting": 90,
            "vendor_claim": 180,
        }
    }
    release = next(c for c in kb["chunks"] if c["id"] == "articles/kumo-engine-3.html#KUMO-RELEASE")
    assert release["record"]["claim"]["id"] == "KUMO-RELEASE"
    assert [s["id"] for s in release["record"]["sources"]] == [
        r["source_id"] for r in release["record"]["claim"]["source_refs"]
    ]
    assert all("record" not in c for c in kb["chunks"] if c["kind"] == "text")
    assert load_kb(kb_path).max_age_days == tuple(sorted(kb["freshness"]["max_age_days"].items()))


@pytest.mark.parametrize("freshness", [[], {"max_age_days": {"reporting": -1}}, {"max_age_days": {"reporting": True}}])
def test_kb_load_refuses_malformed_periods(kb_path: Path, tmp_path: Path, freshness: object) -> None:
    kb = json.loads(kb_path.read_text(encoding="utf-8"))
    path = tmp_path / "kb.json"
    path.write_text(json.dumps(dict(kb, freshness=freshness)), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_kb(path)
    assert str(caught.value) == (
        f"{path}:$.freshness: CE700 freshness must hold max_age_days: days (a whole number, or null) per basis;"
        " rebuild it with `claim-evidence kb build`"
    )


def test_kb_without_periods_loads_with_the_defaults(kb_path: Path, tmp_path: Path) -> None:
    kb = json.loads(kb_path.read_text(encoding="utf-8"))
    kb.pop("freshness")
    path = tmp_path / "kb.json"
    path.write_text(json.dumps(kb), encoding="utf-8")
    assert load_kb(path).max_age_days is None
