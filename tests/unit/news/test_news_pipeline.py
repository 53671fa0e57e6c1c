from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ...news_support import EXAMPLE, GOLDEN, URL, registry_value, write_registry

OUTPUTS = sorted(p.relative_to(GOLDEN) for p in GOLDEN.rglob("*") if p.is_file() and p.name != "legacy_daily.html")


@pytest.fixture(scope="module")
def pipeline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("news_pipeline", EXAMPLE / "pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pipeline_writes_golden_outputs_and_passes(
    pipeline: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pipeline.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"PASS {URL}: 6 derived copies match the registry\n1 target: 1 passed, 0 failed\n"
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written == OUTPUTS
    for name in OUTPUTS:
        assert (tmp_path / name).read_bytes() == (GOLDEN / name).read_bytes(), name


def test_pipeline_is_deterministic_and_leaves_inputs_alone(pipeline: ModuleType, tmp_path: Path) -> None:
    inputs = {p: p.read_bytes() for p in EXAMPLE.iterdir() if p.suffix == ".json"}
    assert pipeline.main([str(tmp_path / "a")]) == 0
    assert pipeline.main([str(tmp_path / "b")]) == 0
    for name in OUTPUTS:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert {p: p.read_bytes() for p in inputs} == inputs


def test_pipeline_bad_registry_stops_before_any_output(
    pipeline: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    value = registry_value()
    value[URL]["claim_evidence"]["claims"][0]["statement"] = "ノルンベイ計算機の企業価値は30億ドル。"
    registry = write_registry(tmp_path, value)
    assert pipeline.main([str(tmp_path / "out"), "--corrections", str(registry)]) == 1
    # The edit is the very swap the number check exists for: caught by the quote as well as by the seal.
    assert capsys.readouterr().err == (
        f"error: article {URL}, claim nornbay-valuation: statement has 30億 (3000000000) but no quoted passage has that value; "
        f"quotes have 300億 (30000000000); article {URL}, claim nornbay-valuation: review fingerprint does not match current "
        "statement/conditions/sources\n"
    )
    assert not (tmp_path / "out").exists()


def test_pipeline_runs_as_a_script(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "pipeline.py"), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"PASS {URL}")
    homepage = json.loads((tmp_path / "homepage.json").read_text(encoding="utf-8"))
    assert (
        homepage["items"][0]["evidence_url"]
        == "/daily-news/auto_daily_report_2026_09_04.html#evidence-nornbay-valuation"
    )
