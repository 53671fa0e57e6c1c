"""``claim set --statement`` and ``claim set --from-page`` on every file that holds a bundle: the statement
read again from the bound element exactly as the page check reads it, the review it undoes named, and
"no change" when it already reads so. (The other ``claim set`` options: tests/unit/record/test_authoring.py.)"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.bundlefile import Rewrite
from claim_evidence._check.documents import load_document
from claim_evidence._check.page import PageOptions, check_text
from claim_evidence._check.sourcefile import OPEN_TAG, with_bundle_script
from claim_evidence._core.jsonio import dumps_for_script

from ..record.test_authoring import fingerprints

CID = "fictional-rate"
STATEMENT = "架空ベンダーは固定条件で達成率72.6%と公表した。"
EDITED = "架空ベンダーは固定条件で達成率73.1%と公表した。"
MARKED = f'<p data-claim-id="{CID}">{STATEMENT}</p>\n<div data-evidence-for="{CID}"></div>\n'
PAGE_HEAD = (
    '<!DOCTYPE html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n<title>t</title>\n'
    '<link rel="stylesheet" href="/assets/claim-evidence.css">\n</head>\n<body>\n'
)
UNDONE = (
    "note: this undoes the review of claim fictional-rate: read its sources again, then claim-evidence review record "
    "{path} --claim fictional-rate …\n"
)
KINDS = ["bundle", "article", "page", "md", "rst"]


def holder(kind: str, folder: Path, bundle: dict[str, Any], subject: dict[str, str]) -> Path:
    """A file of ``kind`` holding ``bundle``, its claim's sentence marked where the kind marks it."""
    if kind in ("bundle", "article"):
        path = folder / f"{kind}.json"
        value = bundle if kind == "bundle" else dict(subject, claim_evidence=bundle)
        path.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    elif kind == "page":
        path = folder / "page.html"
        script = f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(bundle)}\n</script>\n'
        path.write_text(PAGE_HEAD + MARKED + script + "</body>\n</html>\n", encoding="utf-8")
    elif kind == "md":
        path = folder / "page.md"
        path.write_text(with_bundle_script("# 見出し\n\n" + MARKED, "page.md", bundle), encoding="utf-8")
    else:
        path = folder / "page.rst"
        raw = "見出し\n======\n\n.. raw:: html\n\n" + "".join(f"   {line}\n" for line in MARKED.splitlines())
        path.write_text(with_bundle_script(raw, "page.rst", bundle), encoding="utf-8")
    return path


def expected_text(kind: str, before: str, bundle: dict[str, Any], subject: dict[str, str]) -> str:
    """What the file must read after an edit that leaves ``bundle``: a JSON file as it was written, a
    page or source with the bytes outside its bundle script's JSON as they were."""
    if kind == "bundle":
        return json.dumps(bundle, ensure_ascii=False, indent=2) + "\n"
    if kind == "article":
        return json.dumps(dict(subject, claim_evidence=bundle), ensure_ascii=False, indent=2) + "\n"
    head, tail = before.split(OPEN_TAG)
    margin = "   " if kind == "rst" else ""
    body = dumps_for_script(bundle).replace("\n", "\n" + margin)
    return f"{head}{OPEN_TAG}\n{margin}{body}\n{margin}</script>{tail.split('</script>', 1)[1]}"


def output(path: Path, before: str, after: str, notes: str = "") -> str:
    """A command's stdout: the diff of its edit (as :class:`Rewrite` writes it), the verdict, the notes."""
    diff = Rewrite(str(path), before, after).diff()
    return f"{diff}{path}: {'written' if after != before else 'no change'}\n{notes}"


def edited(kind: str, path: Path, old: str = STATEMENT, new: str = EDITED) -> str:
    """The editor changes the sentence where the kind marks it (not in the record); the text before the edit."""
    text = path.read_text(encoding="utf-8")
    if kind in ("page", "md", "rst"):
        at = text.index(old)  # the marked sentence comes before the bundle script
        path.write_text(text[:at] + new + text[at + len(old) :], encoding="utf-8")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["page", "md", "rst"])
def test_edit_claim_set_from_page_reads_the_element_again(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    before = edited(kind, path)
    code, out, err = run("claim", "set", str(path), "--claim", CID, "--from-page")
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["statement"] = EDITED
    after = path.read_text(encoding="utf-8")
    assert (code, err) == (0, "")
    assert after == expected_text(kind, before, changed, subject)
    assert out == output(path, before, after, UNDONE.format(path=path))
    assert load_document(path).bundle == changed and fingerprints(changed) == fingerprints(bundle)
    again = run("claim", "set", str(path), "--claim", CID, "--from-page")
    assert again == (
        0,
        f"{path}: no change\nnote: the statement of claim fictional-rate already reads so: it is left as it is\n",
        "",
    )
    assert path.read_text(encoding="utf-8") == after


def test_edit_claim_set_from_page_page_check_passes_the_statement(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    """Markup inside the element, entities and line breaks: the statement is what SH120 compares."""
    path = holder("page", tmp_path, bundle, subject)
    edited("page", path, STATEMENT, "架空ベンダーは<b>固定条件</b>で\n  達成率&nbsp;72.6%と公表した。")
    assert "SH120" in [d.code for d in check_text(path.read_text(encoding="utf-8"), "p.html").diagnostics]
    assert run("claim", "set", str(path), "--claim", CID, "--from-page")[0] == 0
    record = load_document(path).bundle["claims"][0]["statement"]
    assert record == "架空ベンダーは固定条件で 達成率 72.6%と公表した。"
    codes = [d.code for d in check_text(path.read_text(encoding="utf-8"), "p.html", PageOptions()).diagnostics]
    assert "SH120" not in codes and "CE403" in codes


def test_edit_claim_set_from_page_on_json_reads_the_named_page(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    path = holder("bundle", tmp_path, bundle, subject)
    page = tmp_path / "index.html"
    page.write_text(PAGE_HEAD + MARKED.replace(STATEMENT, EDITED) + "</body>\n</html>\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    code, out, err = run("claim", "set", str(path), "--claim", CID, "--from-page", "--page", str(page))
    changed = copy.deepcopy(bundle)
    changed["claims"][0]["statement"] = EDITED
    after = path.read_text(encoding="utf-8")
    assert (code, err, after) == (0, "", expected_text("bundle", before, changed, subject))
    assert out == (
        f"--- {path}\n+++ {path}\n@@ -14,7 +14,7 @@\n"
        "     {\n"
        '       "id": "fictional-rate",\n'
        '       "label": "架空の公表値",\n'
        f'-      "statement": "{STATEMENT}",\n'
        f'+      "statement": "{EDITED}",\n'
        '       "evidence_label": "Claim",\n'
        '       "basis": "vendor_claim",\n'
        '       "status": "matched",\n'
        f"{path}: written\n" + UNDONE.format(path=path)
    )


@pytest.mark.parametrize("kind", ["bundle", "article", "md", "rst"])
def test_edit_claim_set_statement_on_json_and_sources(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    before = path.read_text(encoding="utf-8")
    code, out, err = run("claim", "set", str(path), "--claim", CID, "--statement", EDITED, "--label", "新")
    changed = copy.deepcopy(bundle)
    changed["claims"][0].update(statement=EDITED, label="新")
    after = path.read_text(encoding="utf-8")
    assert (code, err, after) == (0, "", expected_text(kind, before, changed, subject))
    assert out == output(path, before, after, UNDONE.format(path=path))  # the seed's subject is sealed: no CE105


def test_edit_claim_set_statement_unchanged_is_no_change(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("bundle", tmp_path, bundle, subject)
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    assert run("claim", "set", str(path), "--claim", CID, "--statement", f" {STATEMENT}\n") == (
        0,
        f"{path}: no change\nnote: the statement of claim fictional-rate already reads so: it is left as it is\n",
        "",
    )
    assert (path.read_bytes(), path.stat().st_mtime_ns) == (before, stamp)


def test_edit_claim_set_statement_keeps_crlf_and_bom(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("page", tmp_path, bundle, subject)
    text = path.read_text(encoding="utf-8").replace("\n", "\r\n").replace(STATEMENT, EDITED, 1)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert run("claim", "set", str(path), "--claim", CID, "--from-page")[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    assert data.decode("utf-8-sig") == text.replace(f'"statement": "{STATEMENT}"', f'"statement": "{EDITED}"')


@pytest.mark.parametrize(
    ("kind", "args", "message"),
    [
        ("page", ("--statement", "x", "--from-page"), "give --statement TEXT or --from-page, not both"),
        (
            "page",
            ("--statement", "x"),
            "--statement is for bundle and article JSON files and Markdown/reST sources; a page's statement is read "
            "from its element: edit the sentence, then claim set {path} --claim fictional-rate --from-page",
        ),
        (
            "bundle",
            ("--from-page",),
            '{path} is a JSON file: give --page PAGE.html, the page whose element with data-claim-id="fictional-rate" '
            "holds the sentence, with --from-page (or give --statement TEXT)",
        ),
        (
            "article",
            ("--page", "x.html"),
            "--page PAGE names where --from-page reads the statement: give --from-page with it",
        ),
        (
            "md",
            ("--from-page", "--page", "x.html"),
            "--page is for a bundle or article JSON; {path} holds its bundle script, and --from-page reads its own "
            "element",
        ),
    ],
)
def test_edit_claim_set_statement_usage_errors(
    run: Any, tmp_path: Path, bundle: dict, subject: dict, kind: str, args: tuple[str, ...], message: str
) -> None:
    path = holder(kind, tmp_path, bundle, subject)
    before = path.read_bytes()
    code, out, err = run("claim", "set", str(path), "--claim", CID, *args)
    assert (code, out) == (2, "")
    assert err == (
        "Usage: claim-evidence claim set [OPTIONS] FILE\nTry 'claim-evidence claim set --help' for help.\n\n"
        f"Error: {message.format(path=path)}\n"
    )
    assert path.read_bytes() == before


def test_edit_claim_set_from_page_without_the_element(run: Any, tmp_path: Path, bundle: dict, subject: dict) -> None:
    path = holder("md", tmp_path, bundle, subject)
    path.write_text(path.read_text(encoding="utf-8").replace(f'<p data-claim-id="{CID}">', "<p>"), encoding="utf-8")
    assert run("claim", "set", str(path), "--claim", CID, "--from-page") == (
        2,
        "",
        f'claim-evidence: error: {path} has no element with data-claim-id="fictional-rate" to read the statement '
        'from; a claim binds exactly one (<p data-claim-id="fictional-rate">…</p>)\n',
    )
    code, _, err = run("claim", "set", str(path), "--claim", "nope", "--statement", "x")
    assert (code, err) == (2, "claim-evidence: error: no single claim with id 'nope' (claims: fictional-rate)\n")


def test_edit_claim_set_statement_refused_with_validations_code(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    path = holder("article", tmp_path, bundle, subject)
    assert run("claim", "set", str(path), "--claim", CID, "--statement", " ") == (
        2,
        "",
        f"claim-evidence: {path}:$.claim_evidence.claims[0].statement: CE302 [fictional-rate] statement required: "
        "statement must be a non-blank string (found ' ')\nclaim-evidence: the edit was refused; nothing was written\n",
    )


def test_edit_claim_add_on_a_recorded_claim_names_the_claim_set_command(
    run: Any, tmp_path: Path, bundle: dict, subject: dict
) -> None:
    path = holder("page", tmp_path, bundle, subject)
    assert run("claim", "add", str(path), "--id", CID) == (
        2,
        "",
        f"claim-evidence: error: claim 'fictional-rate' already has a record in {path}; change it with claim-evidence "
        f"claim set {path} --claim fictional-rate --from-page (its statement read from the element again), or "
        "--label, --basis …\n",
    )


def test_edit_claim_set_help_names_the_statement_options(run: Any) -> None:
    code, out, _ = run("claim", "set", "--help")
    assert code == 0
    for option in ("--statement TEXT", "--from-page", "--page PAGE"):
        assert option in out
    assert "A statement that already" in out
