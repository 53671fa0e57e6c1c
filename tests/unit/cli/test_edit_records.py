"""``ref set`` / ``ref remove``, ``source set`` / ``source remove`` and ``claim remove`` (with ``--markup`` on a
page) on every file that holds a bundle: the diff printed, formatting kept, refusals with validate's codes, the
reviews undone named, and no fingerprint ever written."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.documents import load_document
from claim_evidence._check.page import PageOptions, check_text
from claim_evidence._record.authoring import add_claim, add_ref, add_source

from ...conftest import SEED_FINGERPRINT
from ..record.test_authoring import URL_RULE, fingerprints
from .test_edit import CID, KINDS, MARKED, PAGE_HEAD, STATEMENT, UNDONE, expected_text, holder, output

SRC = "fictional-vendor-doc"
REFUSED = "claim-evidence: the edit was refused; nothing was written\n"


def _usage(command: str, message: str) -> str:
    return (
        f"Usage: claim-evidence {command} [OPTIONS] FILE\nTry 'claim-evidence {command} --help' for help.\n\n"
        f"Error: {message}\n"
    )


def _run_edit(run: Any, path: Path, *args: str) -> tuple[int, str, str, str, str]:
    before = path.read_text(encoding="utf-8")
    code, out, err = run(*args[:2], str(path), *args[2:])
    return code, out, err, before, path.read_text(encoding="utf-8")


# --- ref set / ref remove ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_edit_records_ref_set_quote_with_context_on_every_kind(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    code, out, err, before, after = _run_edit(
        run, path, "ref", "set", "--claim", CID, "--source", SRC, "--quote", "達成率72.6%", "--prefix", "固定条件で"
    )
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["source_refs"][0]["quote"] = {"exact": "達成率72.6%", "prefix": "固定条件で"}
    assert (code, err) == (0, "")
    assert after == expected_text(kind, before, changed, subject)
    assert out == output(path, before, after, UNDONE.format(path=path))
    assert fingerprints(load_document(path).value) == [SEED_FINGERPRINT]


def test_edit_records_ref_set_exact_output_and_removals(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    before = json.dumps(bundle, ensure_ascii=False)
    Path("b.json").write_text(before + "\n", encoding="utf-8")
    quote = ("--quote", "72.6%", "--prefix", "達成率", "--suffix", "と")
    code, out, _ = run("ref", "set", "b.json", "--claim", CID, "--source", SRC, *quote)
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["source_refs"][0]["quote"] = {"exact": "72.6%", "prefix": "達成率", "suffix": "と"}
    quoted = json.dumps(changed, ensure_ascii=False)
    assert (code, Path("b.json").read_text(encoding="utf-8")) == (0, quoted + "\n")
    assert out == (
        f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{before}\n+{quoted}\nb.json: written\n"
        "note: this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review "
        "record b.json --claim fictional-rate …\n"
    )
    code, out, _ = run("ref", "set", "b.json", "--claim", CID, "--source", SRC, "--suffix", "", "--supports", "値")
    changed["claims"][0]["source_refs"][0].update(supports="値", quote={"exact": "72.6%", "prefix": "達成率"})
    after = json.dumps(changed, ensure_ascii=False)
    # no note: the review was undone by the first edit already
    assert (code, out) == (0, f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{quoted}\n+{after}\nb.json: written\n")
    code, out, _ = run("ref", "set", "b.json", "--claim", CID, "--source", SRC, "--quote", "")
    del changed["claims"][0]["source_refs"][0]["quote"]
    unquoted = json.dumps(changed, ensure_ascii=False)
    assert (code, out) == (0, f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{after}\n+{unquoted}\nb.json: written\n")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("--quote", "72.6%", "--prefix", "x" * 201),
            "claim-evidence: {path}:$.claims[0].source_refs[0].quote.prefix: CE316 [fictional-rate] quote.prefix must "
            "be a string of at most 200 characters (found 201 characters): "
            '{{"exact": "the passage relied on, as the source writes it", "prefix": "text just before it", "suffix": '
            '"text just after it"}} (prefix and suffix optional)\n' + REFUSED,
        ),
        (
            ("--section", ""),
            "claim-evidence: {path}:$.claims[0].source_refs[0].section: CE310 [fictional-rate] each source needs "
            "section and supports: section must be a non-blank string (found '')\n" + REFUSED,
        ),
        (
            ("--prefix", "達成率"),
            "claim-evidence: error: claim fictional-rate's reference to fictional-vendor-doc has no quote for a "
            "prefix to stand beside: give --quote TEXT with --prefix\n",
        ),
    ],
)
def test_edit_records_ref_set_refusals(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, args: tuple[str, ...], expected: str
) -> None:
    path = holder("bundle", tmp_path, bundle, subject)
    before = path.read_bytes()
    assert run("ref", "set", str(path), "--claim", CID, "--source", SRC, *args) == (2, "", expected.format(path=path))
    assert path.read_bytes() == before and os.listdir(tmp_path) == [path.name]


def test_edit_records_ref_unknown_ids_list_the_known(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("page", tmp_path, bundle, subject)
    assert run("ref", "set", str(path), "--claim", "nope", "--source", SRC, "--section", "S") == (
        2,
        "",
        "claim-evidence: error: no single claim with id 'nope' (claims: fictional-rate)\n",
    )
    assert run("ref", "remove", str(path), "--claim", CID, "--source", "nope") == (
        2,
        "",
        "claim-evidence: error: claim fictional-rate cites no source 'nope' (it cites: fictional-vendor-doc)\n",
    )
    assert run("ref", "set", str(path), "--claim", CID, "--source", SRC) == (
        2,
        "",
        _usage("ref set", "nothing to change: give at least one of --section, --supports, --quote, --prefix, --suffix"),
    )


def test_edit_records_ref_set_on_a_record_of_the_wrong_type_names_the_file(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    broken = copy.deepcopy(bundle)
    broken["claims"][0]["source_refs"] = {"source_id": SRC}
    path = holder("article", tmp_path, broken, subject)
    assert run("ref", "set", str(path), "--claim", CID, "--source", SRC, "--section", "S") == (
        2,
        "",
        f"claim-evidence: error: claim fictional-rate's source_refs is not a list; fix it (claim-evidence validate "
        f"{path}) first\n",
    )


@pytest.mark.parametrize("kind", KINDS)
def test_edit_records_ref_remove_on_every_kind(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    code, out, err, before, after = _run_edit(run, path, "ref", "remove", "--claim", CID, "--source", SRC)
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["source_refs"] = []
    assert (code, err, after) == (0, "", expected_text(kind, before, changed, subject))
    assert out == output(
        path,
        before,
        after,
        UNDONE.format(path=path)
        + "note: claim fictional-rate cites no source now, and its status matched asserts a review (CE311 until it "
        f"cites one again, or claim-evidence claim set {path} --claim fictional-rate --status unverified)\n"
        f"note: source fictional-vendor-doc is cited by no claim now (CE902): claim-evidence source remove {path} "
        "--id fictional-vendor-doc, if it is no longer needed\n",
    )


# --- source set / source remove ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_edit_records_source_set_on_every_kind(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    archive = "https://web.archive.org/web/2026/https://example.com/fictional-report"
    code, out, err, before, after = _run_edit(
        run, path, "source", "set", "--id", SRC, "--title", "改題", "--published-at", "", "--archive-url", archive
    )
    changed = copy.deepcopy(bundle)
    source = changed["sources"][0]
    del source["published_at"]
    source.update(title="改題", archive_url=archive)
    assert (code, err, after) == (0, "", expected_text(kind, before, changed, subject))
    assert out == output(path, before, after, UNDONE.format(path=path))
    assert fingerprints(load_document(path).value) == [SEED_FINGERPRINT]


def test_edit_records_source_set_of_an_uncited_source_undoes_no_review(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    extra = add_source(bundle, "other", "https://example.com/o", "P", "T").bundle
    before = json.dumps(extra, ensure_ascii=False)
    Path("b.json").write_text(before + "\n", encoding="utf-8")
    code, out, _ = run("source", "set", "b.json", "--id", "other", "--url", "https://example.com/p")
    after = before.replace("https://example.com/o", "https://example.com/p")
    assert (code, out) == (0, f"--- a/b.json\n+++ b/b.json\n@@ -1 +1 @@\n-{before}\n+{after}\nb.json: written\n")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--url", "https://user:pw@example.com/"), f"$.sources[0].url: CE204 [source {SRC}] {URL_RULE}"),
        (
            ("--archive-url", "javascript:x"),
            f"$.sources[0].archive_url: CE207 [source {SRC}] archive_url must be a safe HTTP(S) URL",
        ),
        (
            ("--published-at", "2026-9-1"),
            f"$.sources[0].published_at: CE205 [source {SRC}] invalid published_at: published_at must be an existing "
            "date as YYYY-MM-DD, or null (found '2026-9-1'; did you mean '2026-09-01'?)",
        ),
        (
            ("--publisher", " "),
            f"$.sources[0].publisher: CE202 [source {SRC}] publisher required: publisher must be a non-blank string (found ' ')",
        ),
    ],
)
def test_edit_records_source_set_refusals(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, args: tuple[str, ...], expected: str
) -> None:
    path = holder("page", tmp_path, bundle, subject)
    before = path.read_bytes()
    assert run("source", "set", str(path), "--id", SRC, *args) == (
        2,
        "",
        f"claim-evidence: {path}:{expected}\n{REFUSED}",
    )
    assert path.read_bytes() == before


def test_edit_records_source_set_usage_and_unknown(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("rst", tmp_path, bundle, subject)
    assert run("source", "set", str(path), "--id", SRC) == (
        2,
        "",
        _usage(
            "source set",
            "nothing to change: give at least one of --url, --title, --publisher, --published-at, --archive-url",
        ),
    )
    assert run("source", "set", str(path), "--id", "nope", "--title", "T") == (
        2,
        "",
        "claim-evidence: error: no source with id 'nope' (sources: fictional-vendor-doc); add it with claim-evidence "
        "source add\n",
    )


@pytest.mark.parametrize("kind", KINDS)
def test_edit_records_source_remove_refused_while_cited_then_done(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    before = path.read_bytes()
    assert run("source", "remove", str(path), "--id", SRC) == (
        2,
        "",
        "claim-evidence: error: source fictional-vendor-doc is cited by claim fictional-rate: remove that reference "
        f"first (claim-evidence ref remove {path} --claim fictional-rate --source fictional-vendor-doc)\n",
    )
    assert path.read_bytes() == before
    assert run("ref", "remove", str(path), "--claim", CID, "--source", SRC)[0] == 0
    code, out, err, middle, after = _run_edit(run, path, "source", "remove", "--id", SRC)
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["source_refs"] = []
    changed["sources"] = []
    assert (code, err, after) == (0, "", expected_text(kind, middle, changed, subject))
    assert out == output(path, middle, after)


# --- claim remove ----------------------------------------------------------------------------------------------


def _second(bundle: dict, cites: bool = False) -> dict:
    two = add_claim(bundle, "second", "二つ目の主張。", basis="reporting").bundle
    return add_ref(two, "second", SRC, "本文", "二つ目").bundle if cites else two


@pytest.mark.parametrize("spelling", ["--id", "--claim"])
def test_edit_records_claim_set_and_remove_take_the_claim_by_either_name(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, spelling: str
) -> None:
    """claim add names its new claim --id, the other claim commands --claim: the two siblings read both."""
    path = holder("bundle", tmp_path, _second(bundle), subject)
    code, _, err, _, after = _run_edit(run, path, "claim", "set", spelling, "second", "--label", "二つ目")
    assert (code, err) == (0, "")
    assert load_document(path).value["claims"][1]["label"] == "二つ目"
    code, _, err, before, after = _run_edit(run, path, "claim", "remove", spelling, "second")
    assert (code, err, [c["id"] for c in load_document(path).value["claims"]]) == (0, "", [CID])


@pytest.mark.parametrize("kind", ["bundle", "article"])
def test_edit_records_claim_remove_on_json(run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str) -> None:
    path = holder(kind, tmp_path, _second(bundle), subject)
    code, out, err, before, after = _run_edit(run, path, "claim", "remove", "--id", "second")
    assert (code, err, after) == (0, "", expected_text(kind, before, bundle, subject))
    assert out == output(path, before, after)  # the other claim's review stands: no note


def test_edit_records_claim_remove_last_claim_is_ce103(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("bundle", tmp_path, bundle, subject)
    assert run("claim", "remove", str(path), "--id", CID) == (
        2,
        "",
        f"claim-evidence: {path}:$.claims: CE103 sources list and nonempty claims list required: claims must be a "
        f"non-empty array of claim objects (found an empty array)\n{REFUSED}",
    )
    assert run("claim", "remove", str(path), "--id", "nope") == (
        2,
        "",
        "claim-evidence: error: no single claim with id 'nope' (claims: fictional-rate)\n",
    )


@pytest.mark.parametrize("kind", ["md", "rst"])
def test_edit_records_claim_remove_on_a_source_leaves_its_markup_to_the_editor(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    two = _second(bundle)
    path = holder(kind, tmp_path, two, subject)
    code, out, err, before, after = _run_edit(run, path, "claim", "remove", "--id", CID)
    changed = copy.deepcopy(two)
    del changed["claims"][0]
    assert (code, err, after) == (0, "", expected_text(kind, before, changed, subject))
    assert out == output(
        path,
        before,
        after,
        f"note: source fictional-vendor-doc is cited by no claim now (CE902): claim-evidence source remove {path} "
        "--id fictional-vendor-doc, if it is no longer needed\n"
        f"note: claim fictional-rate's element and evidence slot stay in {path}; the page check reports them as "
        'SH112 (references unregistered claim "fictional-rate") until removed: by hand\n',
    )
    assert run("claim", "remove", str(path), "--id", "second", "--markup") == (
        2,
        "",
        _usage(
            "claim remove",
            f"--markup removes a page's markup, and {path} is no page (.html): in a Markdown or reST source remove "
            "the data-claim-id attribute and the evidence slot by hand; a JSON file has none",
        ),
    )


def _page(tmp_path: Path, bundle: dict, newline: str = "\n", bom: bytes = b"", cites: bool = False) -> Path:
    """The seed page with a second claim marked before the first (citing the seed's source: ``cites``), and a
    sources summary slot."""
    from claim_evidence._core.jsonio import dumps_for_script

    second = '<p class="x" data-claim-id="second">二つ目の主張。</p>\n  <div data-evidence-for="second"></div>\n'
    script = f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(_second(bundle, cites))}\n</script>\n'
    text = PAGE_HEAD + second + MARKED + "<div data-evidence-summary></div>\n" + script + "</body>\n</html>\n"
    path = tmp_path / "page.html"
    path.write_bytes(bom + text.replace("\n", newline).encode("utf-8"))
    return path


def test_edit_records_claim_remove_markup_exact_bytes_crlf_bom(
    run: Any, run_static: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _page(tmp_path, bundle, "\r\n", b"\xef\xbb\xbf", cites=True)
    assert run_static("--write", "page.html")[0] == 0  # slots and summary filled: the page passes
    before = path.read_bytes()
    code, out, err = run("claim", "remove", "page.html", "--id", "second", "--markup")
    after = path.read_bytes()
    text = before.decode("utf-8-sig")
    start = text.index('  <div data-evidence-for="second">')
    slot = text[start - 2 : text.index("</div>", text.index("</aside>", start)) + 6]  # its line break, indent, slot
    record = text[text.index(',\r\n    {\r\n      "id": "second"') : text.index("\r\n  ]\r\n}")]
    expected = text.replace(' data-claim-id="second"', "", 1).replace(slot, "", 1).replace(record, "", 1)
    assert (code, err) == (0, "")
    assert after == b"\xef\xbb\xbf" + expected.encode("utf-8")
    assert out == output(
        Path("page.html"),
        text,
        expected,
        "note: removed its element's data-claim-id (the element and its text stay) and its evidence slot\n"
        "note: the sources summary still lists claim second until you run: static-helper --write page.html\n",
    )
    assert out.startswith("--- a/page.html\n+++ b/page.html\n@@ -6,8 +6,7 @@\n")
    assert (
        '\r\n-<p class="x" data-claim-id="second">二つ目の主張。</p>\r\n-  <div data-evidence-for="second"><aside'
        in out
    )
    assert '</aside></div>\r\n+<p class="x">二つ目の主張。</p>\r\n' in out
    codes = [d.code for d in check_text(expected, "page.html", PageOptions()).diagnostics if d.is_error]
    assert codes == ["SH140"]  # the summary only; --write then makes the page pass
    assert run_static("--write", "page.html")[0] == 0
    assert run_static("page.html") == (
        0,
        "PASS page.html: 1 claim bound\n"
        "page.html:34:7: CE905 [fictional-rate] statement has numbers but no quoted passage to check them against "
        "(add quote.exact to a source_ref): 72.6 (warning)\n1 page: 1 passed, 0 failed\n",
        "",
    )


def test_edit_records_claim_remove_page_without_markup_then_markup(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _page(tmp_path, bundle)
    original = path.read_text(encoding="utf-8")
    code, out, err = run("claim", "remove", "page.html", "--id", "second")
    assert (code, err) == (0, "")
    assert out.endswith(
        "page.html: written\n"
        "note: claim second's element and evidence slot stay in page.html; the page check reports them as SH112 "
        '(references unregistered claim "second") until removed: claim-evidence claim remove page.html --id second '
        "--markup\n"
    )
    text = path.read_text(encoding="utf-8")
    assert text.split(STATEMENT)[0] == original.split(STATEMENT)[0]  # the body untouched
    assert "SH112" in [d.code for d in check_text(text, "page.html", PageOptions()).diagnostics]
    code, out, err = run("claim", "remove", "page.html", "--id", "second", "--markup")
    assert (code, err) == (0, "")
    after = path.read_text(encoding="utf-8")
    assert after == text.replace(' data-claim-id="second"', "").replace(
        '\n  <div data-evidence-for="second"></div>', ""
    )
    assert out == (
        "--- a/page.html\n+++ b/page.html\n@@ -6,8 +6,7 @@\n"
        ' <link rel="stylesheet" href="/assets/claim-evidence.css">\n </head>\n <body>\n'
        '-<p class="x" data-claim-id="second">二つ目の主張。</p>\n'
        '-  <div data-evidence-for="second"></div>\n'
        '+<p class="x">二つ目の主張。</p>\n'
        f' <p data-claim-id="fictional-rate">{STATEMENT}</p>\n'
        ' <div data-evidence-for="fictional-rate"></div>\n'
        " <div data-evidence-summary></div>\n"
        "page.html: written\n"
        "note: claim second has no record in page.html (any more): only its markup is removed\n"
        "note: removed its element's data-claim-id (the element and its text stay) and its evidence slot\n"
    )
    assert "SH112" not in [d.code for d in check_text(after, "page.html", PageOptions()).diagnostics]
    assert run("claim", "remove", "page.html", "--id", "second", "--markup") == (
        2,
        "",
        "claim-evidence: error: no single claim with id 'second' (claims: fictional-rate)\n",
    )


def test_edit_records_claim_remove_markup_on_json_is_a_usage_error(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    path = holder("bundle", tmp_path, _second(bundle), subject)
    assert run("claim", "remove", str(path), "--id", "second", "--markup") == (
        2,
        "",
        _usage(
            "claim remove",
            f"--markup removes a page's markup, and {path} is no page (.html): in a Markdown or reST source remove "
            "the data-claim-id attribute and the evidence slot by hand; a JSON file has none",
        ),
    )


def test_edit_records_no_command_writes_a_fingerprint(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("page", tmp_path, _second(bundle), subject)
    steps = [
        ("source", "add", "--id", "o", "--url", "https://example.com/o", "--publisher", "P", "--title", "T"),
        ("ref", "add", "--claim", "second", "--source", "o", "--section", "S", "--supports", "T"),
        ("ref", "set", "--claim", "second", "--source", "o", "--quote", "二つ目"),
        ("source", "set", "--id", "o", "--title", "U"),
        ("ref", "remove", "--claim", "second", "--source", "o"),
        ("source", "remove", "--id", "o"),
        ("claim", "set", "--claim", CID, "--from-page"),
        ("claim", "remove", "--id", "second", "--markup"),
    ]
    for step in steps:
        assert run(*step[:2], str(path), *step[2:])[0] == 0, step
        assert fingerprints(load_document(path).value) == [SEED_FINGERPRINT], step
    assert load_document(path).bundle == bundle


def test_edit_records_help(run: Any) -> None:
    for group, command, words in (
        ("claim", "remove", "--markup"),
        ("ref", "set", "--prefix TEXT"),
        ("ref", "remove", "CE311"),
        ("source", "set", "--archive-url URL"),
        ("source", "remove", "ref remove"),
    ):
        code, out, _ = run(group, command, "--help")
        assert code == 0 and words in out and "FILE" in out, (group, command)
    assert "remove" in run("source", "--help")[1] and "set" in run("ref", "--help")[1]


@pytest.mark.parametrize("kind", ["bundle", "md"])
def test_edit_records_keep_crlf_and_bom(run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    text = path.read_text(encoding="utf-8").replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert run("source", "set", str(path), "--id", SRC, "--title", "改題")[0] == 0
    assert run("ref", "set", str(path), "--claim", CID, "--source", SRC, "--quote", "72.6%")[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    changed = copy.deepcopy(bundle)
    changed["sources"][0]["title"] = "改題"
    changed["claims"][0]["source_refs"][0]["quote"] = {"exact": "72.6%"}
    plain = expected_text(kind, text.replace("\r\n", "\n"), changed, subject)
    assert data.decode("utf-8-sig") == plain.replace("\n", "\r\n")


def test_edit_records_claim_remove_markup_of_an_unmarked_claim(run: Any, tmp_path: Path, bundle: dict) -> None:
    path = _page(tmp_path, bundle)
    path.write_text(
        path.read_text(encoding="utf-8")
        .replace('<p class="x" data-claim-id="second">', "<p>", 1)
        .replace('\n  <div data-evidence-for="second"></div>', "", 1),
        encoding="utf-8",
    )
    code, out, err = run("claim", "remove", str(path), "--id", "second", "--markup")
    assert (code, err) == (0, "")
    assert out.endswith(
        f"{path}: written\nnote: {path} marks claim second nowhere (no data-claim-id or evidence slot): only its "
        "record is removed\n"
    )
    assert [c["id"] for c in load_document(path).bundle["claims"]] == [CID]
