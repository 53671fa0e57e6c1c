"""The offline snapshot checks through every reader: the library, validate, the page check and the cache."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, render_evidence
from claim_evidence._snapshots.check import SKIPPED, snapshot_diagnostics, snapshot_store
from claim_evidence._snapshots.store import SnapshotStore

PAGE_TEXT = "表 1 処理速度\n架空ベンダーの固定条件での達成率は 72.6% でした。\n同じ達成率は付録にもあります。"


@pytest.fixture(autouse=True)
def _key_file_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """static-helper's cache key file goes to $XDG_CONFIG_HOME: never the real user's, in tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


def html_for(text: str) -> bytes:
    """A source page whose extracted text is ``text``: the checks anchor quotes in the text of the bytes."""
    return ("<html><body>" + "".join(f"<p>{line}</p>" for line in text.split("\n") if line) + "</body></html>").encode()


BYTES = html_for(PAGE_TEXT)


def snapshotted(bundle: dict[str, Any], folder: Path, text: str = PAGE_TEXT, quote: Any = None) -> dict[str, Any]:
    """The seed bundle whose source has a snapshot of a page showing ``text`` stored in ``folder``, re-sealed."""
    store = SnapshotStore(folder)
    digest = store.put(html_for(text), text)
    changed = copy.deepcopy(bundle)
    changed.pop("subject_fingerprint")
    changed["sources"][0]["snapshot"] = {
        "sha256": digest,
        "retrieved_at": "2026-09-04",
        "content_type": "text/html",
        "final_url": "https://example.com/fictional-report",
    }
    claim = changed["claims"][0]
    claim["source_refs"][0]["quote"] = quote if quote is not None else {"exact": "固定条件での達成率は 72.6% でした"}
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, changed["sources"])
    return changed


def found(bundle: Any, folder: Path | None) -> list[tuple[str, str, str, str]]:
    return [(d.code, d.path, d.severity, d.message) for d in snapshot_diagnostics(bundle, snapshot_store(folder))]


def test_snapcheck_clean_snapshot_and_quote(bundle: dict, tmp_path: Path) -> None:
    assert found(snapshotted(bundle, tmp_path), tmp_path) == []


def test_snapcheck_without_snapshots_nothing_to_say(bundle: dict, tmp_path: Path) -> None:
    assert found(bundle, tmp_path) == [] and found(bundle, None) == []
    assert found(None, tmp_path) == [] and found({"sources": "x"}, tmp_path) == []


def test_snapcheck_without_the_folder_is_a_note_never_a_pass(bundle: dict, tmp_path: Path) -> None:
    value = snapshotted(bundle, tmp_path)
    assert found(value, None) == [("CE520", "$.sources", "note", SKIPPED)]
    assert found(value, tmp_path / "absent") == [("CE520", "$.sources", "note", SKIPPED)]


def test_snapcheck_missing_and_altered_files(bundle: dict, tmp_path: Path) -> None:
    value = snapshotted(bundle, tmp_path)
    digest = value["sources"][0]["snapshot"]["sha256"]
    path = SnapshotStore(tmp_path).bin_path(digest)
    path.write_bytes(BYTES + b" ")
    assert [(c, p, s) for c, p, s, _ in found(value, tmp_path)] == [("CE522", "$.sources[0].snapshot.sha256", "error")]
    assert (
        found(value, tmp_path)[0][3]
        == f"snapshot file altered: {path} no longer hashes to its recorded sha256; restore it from version control"
    )
    path.unlink()
    assert found(value, tmp_path) == [
        (
            "CE521",
            "$.sources[0].snapshot.sha256",
            "error",
            f"snapshot file missing: {path}; restore it from version control, or take a new snapshot "
            "(claim-evidence sources snapshot FILE --source fictional-vendor-doc) and review again",
        )
    ]


def test_snapcheck_quote_not_found_shows_the_closest_passage(bundle: dict, tmp_path: Path) -> None:
    value = snapshotted(bundle, tmp_path, quote={"exact": "固定条件での達成率は 72.6% だった"})
    assert found(value, tmp_path) == [
        (
            "CE523",
            "$.claims[0].source_refs[0].quote.exact",
            "error",
            "quote not found in the snapshot of source fictional-vendor-doc (retrieved 2026-09-04); the closest passage there: "
            "«…固定条件での達成率は 72.6% でした…»",
        )
    ]


def test_snapcheck_context_and_ambiguity(bundle: dict, tmp_path: Path) -> None:
    twice = snapshotted(bundle, tmp_path, quote={"exact": "達成率は"})
    assert [f[0] for f in found(twice, tmp_path)] == ["CE525"]
    assert found(twice, tmp_path)[0][3] == (
        "quote found 2 times in the snapshot of source fictional-vendor-doc (retrieved 2026-09-04): add quote.prefix or quote.suffix "
        "(the text just before or after it) to say which passage the review relied on"
    )
    chosen = snapshotted(bundle, tmp_path, quote={"exact": "達成率は", "prefix": "同じ"})
    assert found(chosen, tmp_path) == []
    elsewhere = snapshotted(bundle, tmp_path, quote={"exact": "達成率は 72.6%", "prefix": "付録の"})
    assert [f[0] for f in found(elsewhere, tmp_path)] == ["CE524"]


def test_snapcheck_snapshot_without_text_warns(bundle: dict, tmp_path: Path) -> None:
    value = snapshotted(bundle, tmp_path, text="")
    assert [(c, s) for c, _, s, _ in found(value, tmp_path)] == [("CE526", "warning")]


def test_snapcheck_checks_do_not_change_rendering(bundle: dict, tmp_path: Path) -> None:
    value = snapshotted(bundle, tmp_path, quote={"exact": "固定条件での達成率は 72.6% だった"})
    assert "資料との照合済み" in render_evidence(value)  # the record itself is valid; the site's gate fails


def page(bundle: dict[str, Any]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8"><title>t</title>\n'
        '<link rel="stylesheet" href="/assets/claim-evidence.css"></head>\n<body>\n'
        f'<p data-claim-id="fictional-rate">{bundle["claims"][0]["statement"]}</p>\n'
        f'<div data-evidence-for="fictional-rate">{render_evidence(bundle, ["fictional-rate"])}</div>\n'
        f'<script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n'
        "</body></html>\n"
    )


@pytest.fixture
def static_helper(run_static: Any) -> Any:
    """``static_helper(*args)`` -> ``(exit code, stdout)``."""
    return lambda *args: run_static(*args)[:2]


def test_snapcheck_page_check_uses_the_configured_folder_and_the_cache_sees_changes(
    static_helper: Any, bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    value = snapshotted(bundle, tmp_path / "evidence-snapshots")
    Path("p.html").write_text(page(value), encoding="utf-8")
    Path("claim-evidence.toml").write_text('pages = ["p.html"]\n', encoding="utf-8")
    assert static_helper() == (0, "PASS p.html: 1 claim bound\n1 page: 1 passed, 0 failed\n")
    digest = value["sources"][0]["snapshot"]["sha256"]
    SnapshotStore(tmp_path / "evidence-snapshots").bin_path(digest).write_bytes(b"tampered")
    code, out = static_helper()  # cached as a pass a moment ago: the altered snapshot must still be seen
    assert code == 1 and "CE522 [source fictional-vendor-doc] snapshot file altered" in out
    Path("claim-evidence.toml").write_text('pages = ["p.html"]\nsnapshots = "elsewhere"\n', encoding="utf-8")
    code, out = static_helper()
    assert code == 0 and "CE520 snapshot checks skipped" in out and "(note)" in out


def test_snapcheck_validate_takes_snapshot_dir_and_strict_does_not_fail_a_note(
    bundle: dict, tmp_path: Path, run: Any
) -> None:
    value = snapshotted(bundle, tmp_path / "snaps", quote={"exact": "固定条件での達成率は 72.6% だった"})
    path = tmp_path / "b.json"
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    code, out, _ = run("validate", "--strict", str(path))
    assert code == 0 and "CE520" in out
    code, out, _ = run("validate", "--snapshot-dir", str(tmp_path / "snaps"), str(path))
    assert code == 1 and "CE523 [fictional-rate] quote not found" in out


def test_snapcheck_archive_url_is_shown_and_checked(bundle: dict) -> None:
    from claim_evidence import iter_diagnostics

    archived = copy.deepcopy(bundle)
    archived["sources"][0]["archive_url"] = "https://web.archive.org/web/2026/https://example.com/fictional-report"
    html = render_evidence(archived)
    assert (
        '架空の固定条件レポート</a>（<a class="claim-evidence-archive" href="https://web.archive.org/web/2026/https://example.com/'
        'fictional-report" target="_blank" rel="noopener noreferrer">アーカイブ</a>）</span>'
    ) in html
    assert "archived copy</a>)" in render_evidence(archived, lang="en")
    archived["sources"][0]["archive_url"] = "javascript:alert(1)"
    assert [(d.code, d.path) for d in iter_diagnostics(archived) if d.code == "CE207"] == [
        ("CE207", "$.sources[0].archive_url")
    ]
    assert "claim-evidence-archive" not in render_evidence(archived)


def test_snapcheck_config_snapshots_must_be_a_folder_name(tmp_path: Path) -> None:
    from claim_evidence._core.diagnostics import InputError
    from claim_evidence._site.config import load_config

    path = tmp_path / "claim-evidence.toml"
    for bad in ("snapshots = 3", 'snapshots = ""', "snapshots = false"):
        path.write_text(bad + "\n", encoding="utf-8")
        with pytest.raises(
            InputError,
            match='SH003|snapshots must be the folder of the source snapshots, e.g. snapshots = "evidence-snapshots"',
        ):
            load_config(path)


def test_snapcheck_news_registry_quotes_are_checked_too(bundle: dict, subject: dict, tmp_path: Path) -> None:
    from claim_evidence._record.fingerprint import article_fingerprint
    from claim_evidence.news import load_corrections
    from claim_evidence.news._corrections import CorrectionRegistryError

    value = snapshotted(bundle, tmp_path / "snaps", quote={"exact": "固定条件での達成率は 72.6% だった"})
    value["subject_fingerprint"] = article_fingerprint(subject)
    registry = tmp_path / "corrections.json"
    registry.write_text(
        json.dumps({"https://example.com/a": dict(subject, claim_evidence=value)}, ensure_ascii=False, indent=2),
        encoding="utf-8",
    )
    load_corrections(registry)  # no folder given: the registry is valid (its notes say the checks were skipped)
    with pytest.raises(CorrectionRegistryError) as caught:
        load_corrections(registry, snapshots=tmp_path / "snaps")
    assert [d.code for d in caught.value.diagnostics] == ["CE523"]


def test_snapcheck_example_site_passes_with_its_quotes_checked_and_fails_when_one_is_changed(
    run: Any, tmp_path: Path
) -> None:
    import shutil

    from ...conftest import ROOT

    site = tmp_path / "site"
    shutil.copytree(ROOT / "examples" / "site", site, ignore=shutil.ignore_patterns(".claim-evidence-cache"))
    code, out, _ = run("prepublish", "--config", str(site / "claim-evidence.toml"), "--jobs", "1")
    assert (code, "CE520" in out, out.splitlines()[-1]) == (0, False, "4 targets: 4 passed, 0 failed")
    page = site / "articles" / "kumo-engine-3.html"
    head, quote, tail = page.read_text(encoding="utf-8").rpartition(
        '"exact": "架空クモ社は 8 月 22 日'
    )  # the record's quote
    page.write_text(head + quote.replace("22", "21") + tail, encoding="utf-8")
    code, out, _ = run("prepublish", "--config", str(site / "claim-evidence.toml"), "--jobs", "1")
    assert code == 1
    assert (
        "CE523 [KUMO-RELEASE] quote not found in the snapshot of source hoshi-news (retrieved 2026-09-05); the closest passage "
        "there: «…架空クモ社は 8 月 22 日、クモエンジン 3 の企業向け提供を始めた…»"
    ) in out
