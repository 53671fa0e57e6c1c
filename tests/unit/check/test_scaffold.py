"""`claim add` on a page: the statement read as the checker reads it, and only the markup it announces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import validate_bundle
from claim_evidence._check.page import PageOptions, check_text, read_page_bundle
from claim_evidence._check.scaffold import add_page_claims
from claim_evidence._record.authoring import AuthoringError

CSS = '<link rel="stylesheet" href="/assets/claim-evidence.css">'
PAGE = (
    '<!DOCTYPE html>\n<html lang="ja">\n<head>\n  <meta charset="utf-8">\n  <title>t</title>\n  '
    + CSS
    + "\n</head>\n<body>\n"
    "  <main>\n"
    '    <p data-claim-id="raise">架空ミナト量子は、<b>30&nbsp;億円</b>を\n      調達した。</p>\n'
    "    <p>ほかの文。</p>\n"
    "  </main>\n</body>\n</html>\n"
)


def codes(text: str) -> list[str]:
    return [d.code for d in check_text(text, "p.html", PageOptions()).diagnostics]


def test_scaffold_fresh_page_gets_record_slot_and_script(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("p.html").write_text(PAGE, encoding="utf-8")
    code, out, err = run("claim", "add", "p.html", "--id", "raise", "--basis", "reporting")
    assert (code, err) == (0, "")
    record = (
        "{\n"
        '  "version": 1,\n  "sources": [],\n  "claims": [\n    {\n'
        '      "id": "raise",\n'
        '      "statement": "架空ミナト量子は、30 億円を 調達した。",\n'
        '      "basis": "reporting",\n      "status": "unverified",\n      "conditions": [],\n'
        '      "source_refs": [],\n      "verification": null\n    }\n  ]\n}'
    )
    expected = PAGE.replace("調達した。</p>\n", '調達した。</p>\n    <div data-evidence-for="raise"></div>\n').replace(
        "</body>", f'<script type="application/json" id="claim-evidence-data">\n{record}\n</script>\n</body>'
    )
    assert Path("p.html").read_text(encoding="utf-8") == expected
    assert out == (
        "--- a/p.html\n+++ b/p.html\n@@ -9,7 +9,25 @@\n"
        "   <main>\n"
        '     <p data-claim-id="raise">架空ミナト量子は、<b>30&nbsp;億円</b>を\n'
        "       調達した。</p>\n"
        '+    <div data-evidence-for="raise"></div>\n'
        "     <p>ほかの文。</p>\n"
        "   </main>\n"
        + "".join(
            f"+{line}\n"
            for line in f'<script type="application/json" id="claim-evidence-data">\n{record}\n</script>'.split("\n")
        )
        + " </body>\n"
        " </html>\n"
        "p.html: written\n"
        "note: the evidence slot is empty until you run: static-helper --write p.html\n"
    )
    assert codes(expected) == ["SH140"]  # the empty slot, nothing else: no SH120 on a fresh claim


def test_scaffold_statement_is_what_the_checker_reads() -> None:
    inner = "A&amp;B <ruby>漢<rt>かん</rt></ruby>字<br>次の行 <span hidden>x</span>&#x2003;end <script>no()</script>"
    page = f'<!DOCTYPE html><html><head>{CSS}</head><body><div data-claim-id="c">{inner}</div></body></html>'
    added = add_page_claims(page, "p.html", ["c"], basis="reporting")
    assert (
        added.change.bundle["claims"][0]["statement"] == "A&B 漢字 次の行 x end"
    )  # entities decoded, <rt> and <script> hidden, whitespace folded
    assert "SH120" not in codes(added.text)


def test_scaffold_existing_bundle_and_slot_change_only_the_script(tmp_path: Path) -> None:
    first = add_page_claims(
        PAGE.replace("<p>ほかの文。</p>", '<p data-claim-id="other">ほかの文。</p>'),
        "p.html",
        ["raise"],
        basis="reporting",
    )
    second = add_page_claims(first.text, "p.html", ["other"], basis="editorial")
    head = '<script type="application/json"'
    assert second.text[: second.text.index(head)] == first.text[: first.text.index(head)].replace(
        '<p data-claim-id="other">ほかの文。</p>\n',
        '<p data-claim-id="other">ほかの文。</p>\n    <div data-evidence-for="other"></div>\n',
    )
    assert [c["id"] for c in read_page_bundle(second.text).loaded.value["claims"]] == ["raise", "other"]
    slotted = second.text.replace("</main>", '<p data-claim-id="x">X。</p><div data-evidence-for="x"></div>\n  </main>')
    third = add_page_claims(slotted, "p.html", ["x"], basis="editorial")
    assert (
        third.text[: third.text.index(head)] == slotted[: slotted.index(head)]
    )  # the slot existed: only the script changed


def test_scaffold_all_adds_every_marked_element_in_order() -> None:
    page = PAGE.replace("<p>ほかの文。</p>", '<p data-claim-id="b">B。</p>\n    <h2 data-claim-id="a">A。</h2>')
    added = add_page_claims(page, "p.html", None, basis="reporting")
    assert added.added == ("raise", "b", "a")
    assert [c["statement"] for c in added.change.bundle["claims"]] == [
        "架空ミナト量子は、30 億円を 調達した。",
        "B。",
        "A。",
    ]
    assert codes(added.text) == ["SH140", "SH140", "SH140"]
    nothing = add_page_claims(added.text, "p.html", None, basis="reporting")
    assert nothing.text == added.text and nothing.change.notes == (
        "every element with data-claim-id already has a record",
    )


def test_scaffold_crlf_and_bom_are_kept(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_bytes(b"\xef\xbb\xbf" + PAGE.replace("\n", "\r\n").encode("utf-8"))
    assert run("claim", "add", str(path), "--id", "raise", "--basis", "reporting")[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b'\r\n    <div data-evidence-for="raise"></div>\r\n' in data


@pytest.mark.parametrize(
    ("page", "ids", "message"),
    [
        (
            PAGE,
            ["nope"],
            'p.html has no element with data-claim-id="nope": mark the sentence first, e.g. <p data-claim-id="nope">…</p>, then run claim add again',
        ),
        (
            PAGE.replace("<p>ほかの文。</p>", '<p data-claim-id="raise">二つ目</p>'),
            ["raise"],
            'p.html has 2 elements with data-claim-id="raise"; a claim binds exactly one: give the others their own ids',
        ),
        (
            PAGE.replace("<p>ほかの文。</p>", '<p data-claim-id="e"> <!-- x --> </p>'),
            ["e"],
            'the element with data-claim-id="e" in p.html has no visible text to record as the statement',
        ),
        (
            PAGE.replace("<p>ほかの文。</p>", '<p>文 <span data-claim-id="s">S</span> 続き</p>'),
            ["s"],
            "is a <span>: a slot right after it would change the page's structure",
        ),
        (
            PAGE.replace("<p>ほかの文。</p>", '<ul><li data-claim-id="l">L</li></ul>'),
            ["l"],
            "is a <li>: a slot right after it",
        ),
        (
            PAGE.replace("</body>", "<!-- </body> -->").replace("</html>", "<!-- </html> -->"),
            ["raise"],
            "could not place the bundle script in p.html",
        ),
        (
            PAGE.replace("<p>ほかの文。</p>", '<a href="/x"><div data-claim-id="k">K</div></a>'),
            ["k"],
            "adding the markup would make the page fail the check (SH116",
        ),
    ],
)
def test_scaffold_refusals(page: str, ids: list[str], message: str) -> None:
    with pytest.raises(AuthoringError) as caught:
        add_page_claims(page, "p.html", ids, basis="reporting")
    assert message in str(caught.value)


def test_scaffold_refusal_leaves_the_file_and_exit_2(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(PAGE, encoding="utf-8")
    stamp = path.stat().st_mtime_ns
    code, out, err = run("claim", "add", str(path), "--id", "nope", "--basis", "reporting")
    assert (code, out) == (2, "")
    assert (
        err.startswith("claim-evidence: error: ")
        and path.read_text(encoding="utf-8") == PAGE
        and path.stat().st_mtime_ns == stamp
    )
    assert [p.name for p in tmp_path.iterdir()] == ["p.html"]


def test_scaffold_existing_record_is_refused() -> None:
    added = add_page_claims(PAGE, "p.html", ["raise"], basis="reporting")
    with pytest.raises(AuthoringError, match="already has a record in p.html; change it with claim-evidence claim set"):
        add_page_claims(added.text, "p.html", ["raise"], basis="reporting")


def test_scaffold_statement_option_is_not_for_pages(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(PAGE, encoding="utf-8")
    code, _, err = run("claim", "add", str(path), "--id", "raise", "--statement", "x")
    assert code == 2 and "a page's statement is read from its element" in err


def test_scaffold_notes_for_missing_basis_stylesheet_and_waiting_elements(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(
        PAGE.replace("  " + CSS + "\n", "").replace("<p>ほかの文。</p>", '<p data-claim-id="later">後で。</p>'),
        encoding="utf-8",
    )
    code, out, _ = run("claim", "add", str(path), "--id", "raise")
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: claim raise has no basis yet (CE303 until you set it): claim set {path} --claim raise --basis "
        "official_spec|vendor_claim|independent_measurement|reporting|operator_measurement|editorial",
        'note: the evidence stylesheet is linked now, before </head>: <link rel="stylesheet" href="/assets/claim-evidence.css"> '
        '(the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path)',
        f"note: the evidence slot is empty until you run: static-helper --write {path}",
        f"note: marked elements without a record yet: later (claim-evidence claim add {path} --all)",
    ]
    bundle = json.loads(path.read_text(encoding="utf-8").split('id="claim-evidence-data">')[1].split("</script>")[0])
    assert [d for d in validate_bundle(bundle)] == [
        "claim raise: unknown basis: basis must be one of official_spec, vendor_claim, independent_measurement, reporting, "
        "operator_measurement, editorial (the key is missing)"
    ]
