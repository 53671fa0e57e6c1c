"""Shared data for the news-path tests: the example's fictional items and registry."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .conftest import ROOT

EXAMPLE = ROOT / "examples" / "news"
GOLDEN = ROOT / "tests" / "data" / "news"
CORRECTIONS = EXAMPLE / "corrections.json"
URL = "https://example.com/news/nornbay-compute-funding"
DATE = "2026-09-04"


def example_items() -> list[dict[str, Any]]:
    return json.loads((EXAMPLE / "items.json").read_text(encoding="utf-8"))["items"]


def registry_value() -> dict[str, Any]:
    return json.loads(CORRECTIONS.read_text(encoding="utf-8"))


def canonical_bundle() -> dict[str, Any]:
    return copy.deepcopy(registry_value()[URL]["claim_evidence"])


def write_registry(folder: Path, value: Any) -> Path:
    path = folder / "corrections.json"
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path
