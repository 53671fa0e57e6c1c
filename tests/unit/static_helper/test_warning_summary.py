"""A page's many CE905 warnings (numbers without a quoted passage) are one line of static-helper's text
report by default, every one of them with ``--all-warnings`` (issue 32: 10,000 lines on a 1,000-page site)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]


def _varied() -> Any:
    spec = importlib.util.spec_from_file_location("_varied", ROOT / "benchmarks" / "varied.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(tmp_path: Path, monkeypatch: Any) -> None:
    varied = _varied()
    (tmp_path / "many.html").write_text(varied.page(5, 10, 1, True)[0], encoding="utf-8")  # three CE905
    (tmp_path / "one.html").write_text(varied.page(0, 10, 1, True)[0], encoding="utf-8")  # one CE905
    monkeypatch.chdir(tmp_path)


def test_ce905_warnings_are_one_line_per_page(run_static: Any, tmp_path: Path, monkeypatch) -> None:
    _site(tmp_path, monkeypatch)
    code, every, _ = run_static("many.html", "one.html", "--no-cache", "--all-warnings")
    assert code == 0
    listed = [line for line in every.splitlines() if " CE905 " in line]
    assert len(listed) == 4 and sum(line.startswith("many.html:") for line in listed) == 3
    code, out, _ = run_static("many.html", "one.html", "--no-cache")
    assert code == 0
    first = listed[0]
    where = first.split(" CE905 ")[0]
    ids = [re.search(r"CE905 \[([^]]+)\]", line).group(1) for line in listed[:3]]  # type: ignore[union-attr]
    summary = (
        f"{where} CE905 3 claims' statements have numbers but no quoted passage to check them against "
        f"({', '.join(ids)}): add quote.exact to a source_ref of each (--all-warnings lists each claim) (warning)"
    )
    assert [line for line in out.splitlines() if " CE905 " in line] == [summary, listed[3]]
    assert out.replace(summary + "\n", "") == every.replace("\n".join(listed[:3]) + "\n", "")


def test_ce905_summary_leaves_machine_formats_whole(run_static: Any, tmp_path: Path, monkeypatch) -> None:
    _site(tmp_path, monkeypatch)
    code, out, _ = run_static("many.html", "--no-cache", "--format", "json")
    assert code == 0 and out.count('"CE905"') == 3
