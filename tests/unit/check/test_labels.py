"""`claim add` labels: the element's data-claim-label, else the heading above it, else the default, named in a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.labels import choose_labels, shared_labels
from claim_evidence._check.scaffold import add_page_claims
from claim_evidence._check.sourcefile import add_source_claims
from claim_evidence._html.locate import locate
from claim_evidence._record.authoring import AuthoringError

HEAD = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>t</title>\n'
    '  <link rel="stylesheet" href="/assets/claim-evidence.css">\n</head>\n<body>\n'
)
BODY = (
    '  <p data-claim-id="intro">Intro.</p>\n'
    "  <h1>Minato <em>funding</em></h1>\n"
    '  <p data-claim-id="raise" data-claim-label=" Amount\n   raised ">3 billion yen.</p>\n'
    '  <p data-claim-id="round">Series B.</p>\n'
    '  <h2><img alt="Staff" src="s.png"></h2>\n'
    '  <p data-claim-id="staff">40 staff.</p>\n'
)
SCRIPT = (
    '  <script type="application/json" id="claim-evidence-data">{"version": 1, "sources": [], "claims": []}</script>\n'
)
PAGE = HEAD + BODY + SCRIPT + "</body>\n</html>\n"
SET = "claim-evidence claim set p.html --claim ID --label TEXT"


def record_lines(claims: list[tuple[str, str | None, str]]) -> list[str]:
    """The bundle script's JSON as claim add writes it here: indented 2 from the script's line, the
    label (when one) before the statement, then the fields of a new unverified claim."""
    lines = ["{", '    "version": 1,', '    "sources": [],', '    "claims": [']
    for n, (cid, label, statement) in enumerate(claims):
        lines += ["      {", f'        "id": "{cid}",']
        if label is not None:
            lines.append(f'        "label": "{label}",')
        lines += [
            f'        "statement": "{statement}",',
            '        "basis": "reporting",',
            '        "status": "unverified",',
            '        "conditions": [],',
            '        "source_refs": [],',
            '        "verification": null',
            "      }" + ("," if n < len(claims) - 1 else ""),
        ]
    return [*lines, "    ]", "  }</script>"]


def expected_out(claims: list[tuple[str, str | None, str]], notes: list[str]) -> str:
    script = record_lines(claims)
    return (
        f"--- a/p.html\n+++ b/p.html\n@@ -6,12 +6,{12 - 1 + 4 + len(script)} @@\n"  # 4 slots in, the script line replaced
        " </head>\n <body>\n"
        '   <p data-claim-id="intro">Intro.</p>\n'
        '+  <div data-evidence-for="intro"></div>\n'
        "   <h1>Minato <em>funding</em></h1>\n"
        '   <p data-claim-id="raise" data-claim-label=" Amount\n'
        '    raised ">3 billion yen.</p>\n'
        '+  <div data-evidence-for="raise"></div>\n'
        '   <p data-claim-id="round">Series B.</p>\n'
        '+  <div data-evidence-for="round"></div>\n'
        '   <h2><img alt="Staff" src="s.png"></h2>\n'
        '   <p data-claim-id="staff">40 staff.</p>\n'
        "-" + SCRIPT + '+  <div data-evidence-for="staff"></div>\n'
        '+  <script type="application/json" id="claim-evidence-data">'
        + script[0]
        + "\n"
        + "".join(f"+{line}\n" for line in script[1:])
        + " </body>\n </html>\np.html: written\n"
        + "".join(f"note: {note}\n" for note in notes)
        + "note: the evidence slot is empty until you run: static-helper --write p.html\n"
    )


def test_labels_all_from_attributes_exact_output(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("p.html").write_text(PAGE, encoding="utf-8")
    code, out, err = run("claim", "add", "p.html", "--all", "--basis", "reporting")
    assert (code, err) == (0, "")
    claims = [
        ("intro", None, "Intro."),
        ("raise", "Amount raised", "3 billion yen."),  # the attribute's whitespace folded, as a statement's
        ("round", None, "Series B."),
        ("staff", None, "40 staff."),
    ]
    assert out == expected_out(
        claims,
        [
            "no data-claim-label on the element of claims intro, round, staff: they show the default label "
            f'"This claim"; give each its own: {SET}'
        ],
    )


def test_labels_all_from_headings_exact_output(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("p.html").write_text(PAGE, encoding="utf-8")
    code, out, err = run("claim", "add", "p.html", "--all", "--basis", "reporting", "--label-from", "heading")
    assert (code, err) == (0, "")
    claims = [
        ("intro", None, "Intro."),  # no heading above it
        ("raise", "Amount raised", "3 billion yen."),  # its own label wins over the heading
        ("round", "Minato funding", "Series B."),  # the heading's visible text, as the check reads text
        ("staff", None, "40 staff."),  # the heading above is an image: no text, and the h1 titles another section
    ]
    assert out == expected_out(
        claims,
        [
            "no heading text (h1–h6) above the element of claims intro, staff: they show the default label "
            f'"This claim"; give each its own: {SET}'
        ],
    )


def test_labels_shared_label_is_named_with_the_claims(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(
        HEAD + "  <h2>Funding</h2>\n"
        '  <p data-claim-id="a">A.</p>\n  <p data-claim-id="b">B.</p>\n'
        '  <h2>Staff</h2>\n  <p data-claim-id="c">C.</p>\n</body>\n</html>\n',
        encoding="utf-8",
    )
    code, out, _ = run("claim", "add", str(path), "--all", "--basis", "reporting", "--label-from", "heading")
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("note: ")] == [
        f'note: claims a, b share the label "Funding": the sources summary\'s "Relied on by" would repeat it; give '
        f"each its own: claim-evidence claim set {path} --claim ID --label TEXT",
        f"note: the evidence slot is empty until you run: static-helper --write {path}",
    ]
    bundle = json.loads(path.read_text(encoding="utf-8").split('id="claim-evidence-data">')[1].split("</script>")[0])
    assert [c.get("label") for c in bundle["claims"]] == ["Funding", "Funding", "Staff"]


def test_labels_one_claim_gets_the_default_quietly_unless_another_shows_it_too() -> None:
    page = HEAD + '  <p data-claim-id="a">A.</p>\n  <p data-claim-id="b">B.</p>\n</body>\n</html>\n'
    first = add_page_claims(page, "p.html", ["a"], basis="reporting")
    assert first.change.bundle["claims"][0].get("label") is None
    assert [n for n in first.change.notes if "label" in n] == []  # one claim: "This claim" names it well
    second = add_page_claims(first.text, "p.html", ["b"], basis="reporting")
    assert [n for n in second.change.notes if "label" in n] == [
        'claims a, b share the label "This claim": the sources summary\'s "Relied on by" would repeat it; give '
        "each its own: claim-evidence claim set FILE --claim ID --label TEXT"
    ]


def test_labels_default_label_is_the_page_language() -> None:
    page = HEAD.replace('lang="en"', 'lang="ja"') + '  <p data-claim-id="a">A.</p><p data-claim-id="b">B.</p>\n</body>'
    notes = add_page_claims(page, "p.html", None, basis="reporting").change.notes
    assert notes[0].startswith(
        'no data-claim-label on the element of claims a, b: they show the default label "この主張"'
    )


def test_labels_label_option_for_one_claim_and_its_agreement_with_the_attribute() -> None:
    page = HEAD + '  <p data-claim-id="a" data-claim-label="Own">A.</p>\n  <p data-claim-id="b">B.</p>\n</body>'
    assert (
        add_page_claims(page, "p.html", ["b"], label="Given", basis="reporting").change.bundle["claims"][0]["label"]
        == "Given"
    )
    same = add_page_claims(page, "p.html", ["a"], label="Own", basis="reporting")
    assert same.change.bundle["claims"][0]["label"] == "Own"
    with pytest.raises(AuthoringError) as caught:
        add_page_claims(page, "p.html", ["a"], label="Other", basis="reporting")
    assert str(caught.value) == (
        'claim a: --label "Other" and data-claim-label="Own" on its element in p.html disagree; drop one of them, '
        "then run claim add again"
    )


def test_labels_empty_attribute_is_none_and_heading_inside_the_claim_is_not_above_it() -> None:
    text = '<h2>Before</h2><h3 data-claim-id="h" data-claim-label="  ">Itself</h3><p data-claim-id="p">P</p>'
    located = locate(text)
    elements = {str(e.attrs["data-claim-id"]): e for e in located.claims}
    chosen = choose_labels(text, elements, name="p.html", label_from="heading").chosen
    assert chosen == {"h": "Before", "p": "Itself"}
    with pytest.raises(AuthoringError, match="--label-from must be one of attribute, heading"):
        choose_labels(text, elements, name="p.html", label_from="title")


def test_labels_shared_labels_ignore_what_is_not_a_claim() -> None:
    bundle = {"claims": [{"id": "a", "label": "X"}, "junk", {"label": "X"}, {"id": "b", "label": "X"}, {"id": "c"}]}
    assert shared_labels(bundle, ["c"], "en") == []
    assert shared_labels(bundle, ["b"], "en", named=["a", "b"]) == []
    assert len(shared_labels(bundle, ["b"], "en")) == 1
    assert shared_labels(None, ["b"], "en") == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--all", "--label", "X"],
            "--label gives one claim its label: with --all every claim would share it (the sources summary would "
            'repeat it); write data-claim-label="…" on each element, or use --label-from heading',
        ),
        (["--id", "a", "--label", "X", "--label-from", "heading"], "give --label TEXT or --label-from, not both"),
    ],
)
def test_labels_refused_option_combinations(run: Any, tmp_path: Path, argv: list[str], message: str) -> None:
    path = tmp_path / "p.html"
    path.write_text(PAGE, encoding="utf-8")
    code, out, err = run("claim", "add", str(path), *argv)
    assert (code, out) == (2, "")
    assert err.endswith(f"Error: {message}\n"), err
    assert path.read_text(encoding="utf-8") == PAGE


def test_labels_markdown_source_reads_the_attribute_and_refuses_headings(run: Any, tmp_path: Path) -> None:
    source = tmp_path / "index.md"
    text = (
        '# Funding\n\n<p data-claim-id="a" data-claim-label="Amount">A.</p>\n\n<p data-claim-id="b">B.</p>\n\n'
        '<div data-evidence-for="a"></div><div data-evidence-for="b"></div>\n'
    )
    source.write_text(text, encoding="utf-8")
    code, out, err = run("claim", "add", str(source), "--all", "--basis", "reporting", "--label-from", "heading")
    assert (code, out) == (2, "")
    assert err.endswith(
        "Error: --label-from heading reads the headings of a page; in a Markdown or reST source or a JSON file, "
        'write data-claim-label="…" on the element, or give --id ID --label TEXT\n'
    )
    code, out, err = run("claim", "add", str(source), "--all", "--basis", "reporting")
    assert (code, err) == (0, "")
    assert out.endswith(
        f"{source}: written\n"
        'note: no data-claim-label on the element of claim b: it shows the default label "この主張"; give it one: '
        f"claim-evidence claim set {source} --claim ID --label TEXT\n"
        f"note: the bundle script was added at the end of {source}\n"
    ), out
    change = add_source_claims(text, "index.md", None, None, lang="en", basis="reporting")
    assert [c.get("label") for c in change.bundle["claims"]] == ["Amount", None]


def test_labels_hostile_text_stays_text(run: Any, run_static: Any, tmp_path: Path) -> None:
    """A label is data in the bundle script and text in the block: `</script>` and tags in it are neither."""
    path = tmp_path / "p.html"
    path.write_text(
        "<html><head><title>t</title></head><body>\n<h2>A &lt;/script&gt; <script>x()</script>B</h2>\n"
        '<p data-claim-id="a" data-claim-label="&lt;/script&gt;&lt;b&gt;x">A.</p>\n<p data-claim-id="b">B.</p>\n'
        "</body></html>\n",
        encoding="utf-8",
    )
    code, _, err = run("claim", "add", str(path), "--all", "--label-from", "heading", "--basis", "reporting")
    assert (code, err) == (0, "")
    text = path.read_text(encoding="utf-8")
    assert '"label": "\\u003c/script>\\u003cb>x"' in text and '"label": "A \\u003c/script> B"' in text
    assert run_static("--write", str(path))[0] == 0
    written = path.read_text(encoding="utf-8")
    assert "<b>x" not in written
    assert written.count("&lt;/script&gt;&lt;b&gt;x") == 3  # the attribute, the block's label and its summary
