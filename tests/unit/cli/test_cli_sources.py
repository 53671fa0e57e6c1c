"""The authoring commands and ``review record`` on a Markdown or reST source holding the bundle script.

Each test writes a source the way a generator's guide has it (raw HTML in Markdown, ``.. raw:: html`` in
reST), runs the real commands in process, and checks that only the JSON inside the script changed, that its
lines kept their margin (every line of a reST directive indented as the directive is), and that the record
read back from the file is the one the commands were asked to make.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint

OPEN = '<script type="application/json" id="claim-evidence-data">'
STATEMENT = "架空の試験機は応答時間の中央値を12ミリ秒と記録した。"
EDITED = STATEMENT.replace("記録", "計測")
REVIEW = ("--method", "human_document_review", "--checked-at", "2026-09-02")


def sealed() -> dict[str, Any]:
    source = {
        "id": "lab",
        "publisher": "架空計測室",
        "title": "架空の計測記録",
        "url": "https://example.com/lab",
        "published_at": "2026-09-01",
    }
    claim: dict[str, Any] = {
        "id": "latency",
        "statement": STATEMENT,
        "basis": "official_spec",
        "status": "matched",
        "conditions": [],
        "source_refs": [{"source_id": "lab", "section": "結果", "supports": "中央値", "quote": {"exact": "12ミリ秒"}}],
    }
    claim["verification"] = {
        "checked_at": "2026-09-02",
        "method": "human_document_review",
        "fingerprint": claim_fingerprint(claim, [source]),
    }
    return {"version": 1, "sources": [source], "claims": [claim]}


def script(bundle: dict[str, Any], margin: str, step: int = 2) -> str:
    """The bundle script with its JSON on the lines after the tag, every line at ``margin``."""
    body = json.dumps(bundle, ensure_ascii=False, indent=step).replace("\n", "\n" + margin)
    return f"{margin}{OPEN}\n{margin}{body}\n{margin}</script>\n"


def markdown(bundle: dict[str, Any], margin: str = "", statement: str = STATEMENT) -> str:
    return (
        "---\ntitle: 計測\n---\n\n# 計測\n\n"
        f'<p data-claim-id="latency">{statement}</p>\n<div data-evidence-for="latency"></div>\n\n'
        + (f"<div>\n{script(bundle, margin)}</div>\n" if margin else script(bundle, margin))
        + "\n後の段落。\n"
    )


def rest(bundle: dict[str, Any], margin: str, statement: str = STATEMENT) -> str:
    return (
        "計測\n====\n\n.. raw:: html\n\n"
        f'{margin}<p data-claim-id="latency">{statement}</p>\n{margin}<div data-evidence-for="latency"></div>\n\n'
        f".. raw:: html\n\n{script(bundle, margin, 4 if len(margin) == 4 else 2)}\n後の段落。\n"
    )


def split(text: str) -> tuple[str, str, str]:
    """(before the JSON, the JSON, after it): the text outside the script's content and its content."""
    head, rest_ = text.split(OPEN)
    content, tail = rest_.split("</script>", 1)
    return head + OPEN, content, "</script>" + tail


def assert_only_json_changed(before: str, after: str, margin: str) -> dict[str, Any]:
    """Bytes outside the JSON identical; each line of the JSON at ``margin`` or deeper, one level the step
    the source's JSON used (4 in the 4-space reST case, else 2); the JSON read back."""
    old_head, _, old_tail = split(before)
    new_head, content, new_tail = split(after)
    assert (new_head, new_tail) == (old_head, old_tail)
    lines = content.split("\n")[1:-1]  # between the tag's line break and the margin before </script>
    assert all(line.startswith(margin) for line in lines), content
    assert (
        lines[0] == margin + "{"
        and lines[-1] == margin + "}"
        and lines[1].startswith(margin + " " * (4 if margin == "    " else 2) + '"')
    )
    value: dict[str, Any] = json.loads(content)
    return value


CASES = {
    "markdown-column-0": ("page.md", lambda b, s=STATEMENT: markdown(b, "", s), ""),
    "markdown-indented": ("page.markdown", lambda b, s=STATEMENT: markdown(b, "  ", s), "  "),
    "rest-3-spaces": ("page.rst", lambda b, s=STATEMENT: rest(b, "   ", s), "   "),
    "rest-4-spaces": ("page.txt", lambda b, s=STATEMENT: rest(b, "    ", s), "    "),
}


@pytest.mark.parametrize("case", CASES)
def test_cli_sources_review_record_after_an_edit_seals_the_source_in_place(run: Any, tmp_path: Path, case: str) -> None:
    """The sentence and statement edited after the review: CE403 at the source's line, then `review record`
    on the source edits only its JSON and the record passes."""
    name, build, margin = CASES[case]
    bundle = sealed()
    bundle["claims"][0]["statement"] = EDITED
    path = tmp_path / name
    path.write_text(build(bundle, EDITED), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    code, out, _ = run("validate", str(path))
    line = next(n for n, text in enumerate(before.splitlines(), 1) if '"verification"' in text)
    assert code == 1 and f"{path}:{line + 3}:" in out and "CE403" in out, out
    code, out, err = run("review", "record", str(path), "--claim", "latency", *REVIEW)
    assert (
        (code, err) == (0, "")
        and out.startswith(f"--- {path}\n")
        and out.endswith(f"\n{path}: review of latency recorded\n")
    )
    after = path.read_text(encoding="utf-8")
    value = assert_only_json_changed(before, after, margin)
    claim = value["claims"][0]
    assert claim["verification"]["fingerprint"] == claim_fingerprint(claim, value["sources"])
    assert run("validate", str(path))[0] == 0
    assert (
        run("review", "record", str(path), "--claim", "latency", *REVIEW)[1]
        == f"{path}: review of latency recorded (no change)\n"
    )
    assert path.read_text(encoding="utf-8") == after


@pytest.mark.parametrize("case", CASES)
def test_cli_sources_authoring_commands_edit_only_the_json(run: Any, tmp_path: Path, case: str) -> None:
    """claim add (statement read from the marked element), source add, ref add, claim set: each prints its
    diff and writes only the JSON; the claim's statement is the element's text."""
    name, build, margin = CASES[case]
    empty = {"version": 1, "sources": [], "claims": []}
    path = tmp_path / name
    path.write_text(build(empty), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    code, out, _ = run("claim", "add", str(path), "--id", "latency", "--basis", "official_spec")
    assert code == 0 and out.startswith(f"--- {path}\n+++ {path}\n") and f"{path}: written\n" in out, out
    assert (
        run(
            "source",
            "add",
            str(path),
            "--id",
            "lab",
            "--url",
            "https://example.com/lab",
            "--publisher",
            "P",
            "--title",
            "T",
        )[0]
        == 0
    )
    assert (
        run(
            "ref",
            "add",
            str(path),
            "--claim",
            "latency",
            "--source",
            "lab",
            "--section",
            "S",
            "--supports",
            "X",
            "--quote",
            "12ミリ秒",
        )[0]
        == 0
    )
    assert run("claim", "set", str(path), "--claim", "latency", "--as-of", "2026-09-01")[0] == 0
    value = assert_only_json_changed(before, path.read_text(encoding="utf-8"), margin)
    claim = value["claims"][0]
    assert (claim["id"], claim["statement"], claim["as_of"]) == ("latency", STATEMENT, "2026-09-01")
    assert value["sources"][0]["id"] == "lab" and claim["source_refs"][0]["quote"] == {"exact": "12ミリ秒"}


def test_cli_sources_rest_directive_keeps_every_line_indented(run: Any, tmp_path: Path) -> None:
    """A one-line JSON inside the directive, on the script tag's line: the rewritten JSON spans lines, each
    at the directive's indentation, so the directive still holds all of it."""
    bundle = sealed()
    bundle["claims"][0]["statement"] = EDITED
    one_line = json.dumps(bundle, ensure_ascii=False)
    path = tmp_path / "page.rst"
    text = f'.. raw:: html\n\n   <p data-claim-id="latency">{EDITED}</p>\n\n.. raw:: html\n\n   {OPEN}{one_line}</script>\n\nAfter.\n'
    path.write_text(text, encoding="utf-8")
    assert run("review", "record", str(path), "--claim", "latency", *REVIEW)[0] == 0
    after = path.read_text(encoding="utf-8")
    head, content, tail = split(after)
    assert (head, tail) == split(text)[0::2]
    assert content.count("\n") > 10 and all(line.startswith("   ") for line in content.split("\n")[1:])


def test_cli_sources_two_scripts_are_refused(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(markdown(sealed()) + script(sealed(), ""), encoding="utf-8")
    before = path.read_bytes()
    for command in (
        ("review", "record", str(path), "--claim", "latency", *REVIEW),
        ("claim", "set", str(path), "--claim", "latency", "--label", "x"),
    ):
        code, out, err = run(*command)
        assert code == 1 and out == "", (out, err)
        assert f"{path}: SH101 exactly one script#claim-evidence-data is required (found 2)" in err
    assert path.read_bytes() == before


def test_cli_sources_not_utf8_is_a_clear_error(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(
        markdown(sealed())
        .replace("後の段落", "caf\xe9")
        .encode("utf-8")
        .replace("caf\xc3\xa9".encode("latin-1"), b"caf\xe9")
    )
    before = path.read_bytes()
    code, out, err = run("review", "record", str(path), "--claim", "latency", *REVIEW)
    assert code == 2 and out == ""
    assert f"{path}:" in err and "CE002 not UTF-8: byte 0xe9" in err and "re-save the file as UTF-8" in err
    assert "Traceback" not in err and path.read_bytes() == before


@pytest.mark.parametrize("name", ["page.md", "page.rst"])
def test_cli_sources_claim_add_without_a_script_adds_one_at_the_end(run: Any, tmp_path: Path, name: str) -> None:
    """A source marking its sentence, with no bundle yet: the script is added after every byte of it (reST:
    in a raw directive, each of its lines indented), holding the claim read from the element."""
    path = tmp_path / name
    element = f'<p data-claim-id="latency">{STATEMENT}</p>'
    text = f"# 計測\n\n{element}\n" if name.endswith(".md") else f"計測\n====\n\n.. raw:: html\n\n   {element}\n"
    path.write_text(text, encoding="utf-8")
    code, out, err = run("claim", "add", str(path), "--id", "latency")
    assert (code, err) == (0, "") and f"{path}: written\n" in out
    assert (
        'note: write its evidence slot after the sentence, in raw HTML: <div data-evidence-for="latency"></div>' in out
    )
    after = path.read_text(encoding="utf-8")
    assert after.startswith(text + "\n")
    added = after[len(text) + 1 :]
    if name.endswith(".rst"):
        assert added.startswith(".. raw:: html\n\n")
        assert all(line.startswith("   ") for line in added.split("\n")[2:-1]), added
    value = json.loads(split(after)[1])
    assert [(c["id"], c["statement"]) for c in value["claims"]] == [("latency", STATEMENT)]
    assert run("claim", "add", str(path), "--all")[1].endswith(
        "note: every element with data-claim-id already has a record\n"
    )


def test_cli_sources_claim_add_without_a_script_elsewhere_says_what_to_write(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "page.mdx"
    path.write_text(f'<p data-claim-id="latency">{STATEMENT}</p>\n', encoding="utf-8")
    code, out, err = run("claim", "add", str(path), "--id", "latency")
    assert code == 2 and out == ""
    assert f"{path} holds no evidence bundle, and claim add writes one only into Markdown (.md) or reST (.rst)" in err
    assert OPEN in err and path.read_text(encoding="utf-8") == f'<p data-claim-id="latency">{STATEMENT}</p>\n'


def test_cli_sources_claim_add_without_its_element_asks_for_the_statement(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(markdown({"version": 1, "sources": [], "claims": []}), encoding="utf-8")
    code, _, err = run("claim", "add", str(path), "--id", "other")
    assert code == 2 and "no element with data-claim-id='other' in this file" in err and "--statement" in err
    code, out, _ = run("claim", "add", str(path), "--id", "other", "--statement", "別の文。")
    assert code == 0 and '"statement": "別の文。"' in out


def test_cli_sources_crlf_and_bom_are_kept(run: Any, tmp_path: Path) -> None:
    """A reST source saved with CRLF line ends and a BOM: the rewritten JSON uses CRLF too, the BOM stays."""
    bundle = sealed()
    bundle["claims"][0]["statement"] = EDITED
    path = tmp_path / "page.rst"
    text = rest(bundle, "   ", EDITED).replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert run("review", "record", str(path), "--claim", "latency", *REVIEW)[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    after = data[3:].decode("utf-8")
    value = assert_only_json_changed(text.replace("\r\n", "\n"), after.replace("\r\n", "\n"), "   ")
    claim = value["claims"][0]
    assert claim["verification"]["fingerprint"] == claim_fingerprint(claim, value["sources"])


@pytest.mark.parametrize("opening", ["[架空計測室](https://example.com/lab) の記録。\n\n", "{{< note >}}\n\n"])
def test_cli_sources_markdown_opening_like_json_is_still_a_source(run: Any, tmp_path: Path, opening: str) -> None:
    """A Markdown page may open with a link or a shortcode; its suffix, not its first character, says
    that the bundle is in a script (read as JSON, it was CE003 at 1:1)."""
    path = tmp_path / "page.md"
    path.write_text(opening + markdown(sealed()), encoding="utf-8")
    assert run("validate", str(path)) == (0, f"PASS {path}\n1 file: 1 passed, 0 failed\n", "")


def test_cli_sources_claim_add_on_a_missing_or_empty_markdown_file(run: Any, tmp_path: Path) -> None:
    """A typo'd path is named as missing (it was told to give --statement "for a bundle or article JSON"),
    and an empty Markdown file is a source: the sentence to read is asked for, or --statement adds it."""
    missing = tmp_path / "nope.md"
    code, out, err = run("claim", "add", str(missing), "--id", "latency")
    assert (code, out) == (2, "") and f"{missing}: no such file" in err and "JSON" not in err.split("(")[0]
    assert not missing.exists()
    empty = tmp_path / "empty.md"
    empty.write_text("", encoding="utf-8")
    code, out, err = run("claim", "add", str(empty), "--id", "latency")
    assert code == 2 and "no element with data-claim-id='latency'" in err and empty.read_text(encoding="utf-8") == ""
    code, out, err = run("claim", "add", str(empty), "--id", "latency", "--statement", STATEMENT)
    assert code == 0, err
    _, content, _ = split(empty.read_text(encoding="utf-8"))
    assert json.loads(content)["claims"][0]["statement"] == STATEMENT
