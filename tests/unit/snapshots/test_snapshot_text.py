"""The text beside a snapshot is not evidence (issue #31, item 10): only the ``.bin`` is bound to the
bundle by its digest, so an edit to the ``.txt`` alone must neither pass a changed quote (the page
check, prepublish) nor let ``review record`` seal a quote the snapshot does not hold."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._snapshots import store as _snapstore
from claim_evidence._snapshots.store import SnapshotStore

from ...conftest import ROOT

PAGE = Path("articles") / "kumo-engine-3.html"
QUOTED = "架空クモ社は 8 月 22 日"
CHANGED = "架空クモ社は 8 月 21 日"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    shutil.copytree(ROOT / "examples" / "site", folder, ignore=shutil.ignore_patterns(".claim-evidence-cache"))
    _snapstore._DERIVED.clear()  # a new process: no text extracted yet
    return folder


def hoshi_text(site: Path) -> Path:
    """The .txt of source hoshi-news's snapshot (the one KUMO-RELEASE quotes)."""
    text = (site / PAGE).read_text(encoding="utf-8")
    data = json.loads(
        re.search(r'<script type="application/json" id="claim-evidence-data">(.*?)</script>', text, re.S).group(1)
    )  # type: ignore[union-attr]
    digest = next(s["snapshot"]["sha256"] for s in data["sources"] if s["id"] == "hoshi-news")
    return SnapshotStore(site / "evidence-snapshots").text_path(digest)


def change_quote_and_text(site: Path) -> Path:
    """The quote changed in the record, and the .txt edited to hold it; the .bin the reviewer read is as it was."""
    page = site / PAGE
    head, quote, tail = page.read_text(encoding="utf-8").rpartition(f'"exact": "{QUOTED}')
    page.write_text(head + quote.replace(QUOTED, CHANGED) + tail, encoding="utf-8")
    txt = hoshi_text(site)
    assert QUOTED in txt.read_text(encoding="utf-8")
    txt.write_text(txt.read_text(encoding="utf-8").replace(QUOTED, CHANGED), encoding="utf-8")
    return txt


def test_snapshot_text_edited_txt_does_not_pass_prepublish(site: Path, run: Any) -> None:
    change_quote_and_text(site)
    code, out, _ = run("prepublish", "--config", str(site / "claim-evidence.toml"), "--jobs", "1")
    assert code == 1
    assert "CE523 [KUMO-RELEASE] quote not found in the snapshot of source hoshi-news" in out
    assert "CE527 [source hoshi-news] snapshot text differs from its bytes" in out


def test_snapshot_text_edited_txt_does_not_pass_static_helper(
    run_static: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(site)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(site.parent / "xdg-config"))
    assert run_static()[0] == 0  # cached as passes
    change_quote_and_text(site)
    code, out, _ = run_static()
    assert code == 1
    assert "CE523 [KUMO-RELEASE] quote not found in the snapshot of source hoshi-news" in out


def test_snapshot_text_edit_alone_is_a_warning_and_quotes_still_pass(site: Path, run: Any) -> None:
    """A .txt edited elsewhere (or by another extractor) changes nothing the record relies on: a warning."""
    txt = hoshi_text(site)
    txt.write_text(txt.read_text(encoding="utf-8") + "付け足し\n", encoding="utf-8")
    code, out, _ = run("prepublish", "--config", str(site / "claim-evidence.toml"), "--jobs", "1")
    assert (
        code == 0 and "CE527 [source hoshi-news] snapshot text differs from its bytes: " in out and "(warning)" in out
    )
    assert f"{txt} is not the text of {txt.with_suffix('.bin')} (edited, or extracted by another version)" in out


def test_snapshot_text_review_record_refuses_a_quote_not_in_the_snapshot(site: Path, run: Any) -> None:
    change_quote_and_text(site)
    page = site / PAGE
    before = page.read_bytes()
    code, out, err = run(
        "review",
        "record",
        str(page),
        "--claim",
        "KUMO-RELEASE",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-09-06",
    )
    assert code == 1, err
    assert "CE523 [KUMO-RELEASE] quote not found in the snapshot of source hoshi-news" in err
    assert f"review of KUMO-RELEASE not recorded: fix the errors above first; {page} is unchanged" in err
    assert page.read_bytes() == before


def test_snapshot_text_review_record_refuses_an_altered_snapshot(site: Path, run: Any) -> None:
    page = site / PAGE
    hoshi_text(site).with_suffix(".bin").write_bytes(b"tampered")
    code, _, err = run(
        "review",
        "record",
        str(page),
        "--claim",
        "KUMO-RELEASE",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-09-06",
    )
    assert code == 1 and "CE522 [source hoshi-news] snapshot file altered" in err


def test_snapshot_text_review_record_seals_a_quote_the_snapshot_holds(site: Path, run: Any) -> None:
    page = site / PAGE
    code, out, err = run(
        "review",
        "record",
        str(page),
        "--claim",
        "KUMO-RELEASE",
        "--method",
        "human_document_review",
        "--checked-at",
        "2026-09-06",
    )
    assert (
        (code, err) == (0, "")
        and out.startswith(f"--- {page}\n")
        and out.endswith(f"\n{page}: review of KUMO-RELEASE recorded\n")
    )


def test_snapshot_text_derived_text_is_of_the_verified_bytes(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.put(b"<html><body><p>one</p><p>two</p></body></html>", "forged")
    assert store.text(digest) == "forged"
    assert store.derived_text(digest, "text/html") == "one\ntwo"
    store.bin_path(digest).write_bytes(b"<html><body><p>three</p></body></html>")
    _snapstore._DERIVED.clear()
    assert store.derived_text(digest, "text/html") is None  # the bytes no longer hash to the digest
    assert store.derived_text("0" * 64, "text/html") is None and store.derived_text("../x", None) is None
