"""``claim-evidence report`` on a site with signed reviews: the signer column and the unsigned count."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

from claim_evidence import dumps_for_script
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._site.config import load_config

from ...conftest import ROOT
from ...signing_support import Keys, keys, site

__all__ = ["keys"]
FIXTURES = json.loads((ROOT / "examples" / "claim-evidence" / "fixtures.json").read_text(encoding="utf-8"))


def _page(folder: Path, name: str, bundle: dict[str, Any]) -> None:
    text = FIXTURES["page_template"].replace(FIXTURES["page_placeholder"], dumps_for_script(bundle))
    (folder / name).write_text(text, encoding="utf-8")


def test_sitereport_signer_column_and_unsigned_count(
    run: Any, keys: Keys, tmp_path: Path, bundle: dict[str, Any]
) -> None:
    key = keys.make("reviewer")
    folder = tmp_path / "site"
    config = site(folder, keys.line("編集部", key))
    config.write_text('pages = ["*.html"]\nstylesheet = false\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    signed = sign_claim(bundle, 0, str(key), "編集部", load_config(config).options.policy.reviews, "a.html")
    _page(folder, "a.html", signed)
    _page(folder, "b.html", copy.deepcopy(bundle))
    argv = ["report", "--config", str(config), "--today", "2026-12-01", "--out", "-"]
    code, out, _ = run(*argv, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert [(c["page"], c["signer"]) for c in report["claims"]] == [("a.html", "編集部"), ("b.html", None)]
    assert report["summary"]["unsigned"] == [{"page": "b.html", "claim_id": "fictional-rate", "due": None}]
    code, out, _ = run(*argv, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert [row[-1] for row in rows] == ["signer", "編集部", ""]
    code, out, _ = run(*argv, "--format", "html")
    assert "<li><strong>1</strong> 署名のない照合</li>" in out
    assert '<th scope="col">署名者</th>' in out and "<td>編集部</td>" in out
