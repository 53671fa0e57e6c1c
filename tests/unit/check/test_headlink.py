"""`claim add` links the evidence stylesheet in <head> when the page links none, with an href SH130 accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.headlink import stylesheet_link
from claim_evidence._check.options import PageOptions, SiteLayout
from claim_evidence._check.page import check_text
from claim_evidence._check.scaffold import add_page_claims
from claim_evidence._check.stylesheet import links_relatively, stylesheet_href
from claim_evidence._html.locate import locate
from claim_evidence._record.authoring import AuthoringError

PAGE = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <title>t</title>\n</head>\n<body>\n'
    '  <p data-claim-id="a">A.</p>\n  <p data-claim-id="b">B.</p>\n</body>\n</html>\n'
)
LINK = '<link rel="stylesheet" href="/assets/claim-evidence.css">'


def site(root: Path, toml: str) -> Path:
    (root / "claim-evidence.toml").write_text('pages = ["**/*.html"]\nlang = "en"\n' + toml, encoding="utf-8")
    return root


def test_headlink_default_href_exact_output(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("p.html").write_text(PAGE, encoding="utf-8")
    code, out, err = run("claim", "add", "p.html", "--id", "a", "--basis", "reporting")
    assert (code, err) == (0, "")
    assert out == (
        "--- a/p.html\n+++ b/p.html\n@@ -3,9 +3,28 @@\n"
        ' <head>\n   <meta charset="utf-8">\n   <title>t</title>\n'
        f"+  {LINK}\n"
        " </head>\n <body>\n"
        '   <p data-claim-id="a">A.</p>\n'
        '+  <div data-evidence-for="a"></div>\n'
        '   <p data-claim-id="b">B.</p>\n'
        '+<script type="application/json" id="claim-evidence-data">\n'
        "+{\n"
        '+  "version": 1,\n+  "sources": [],\n+  "claims": [\n+    {\n'
        '+      "id": "a",\n+      "statement": "A.",\n+      "basis": "reporting",\n'
        '+      "status": "unverified",\n+      "conditions": [],\n+      "source_refs": [],\n'
        '+      "verification": null\n+    }\n+  ]\n+}\n+</script>\n'
        " </body>\n </html>\n"
        "p.html: written\n"
        f"note: the evidence stylesheet is linked now, before </head>: {LINK} (the default href: set "
        'stylesheet = "…" in claim-evidence.toml for your site\'s path)\n'
        "note: the evidence slot is empty until you run: static-helper --write p.html\n"
        "note: marked elements without a record yet: b (claim-evidence claim add p.html --all)\n"
    )
    once = Path("p.html").read_text(encoding="utf-8")
    code, out, _ = run("claim", "add", "p.html", "--id", "b", "--basis", "reporting")
    assert code == 0 and "stylesheet" not in out  # linked already: no second link
    assert Path("p.html").read_text(encoding="utf-8").count("<link ") == 1
    assert once.split("<body>")[0] == Path("p.html").read_text(encoding="utf-8").split("<body>")[0]


@pytest.mark.parametrize(
    ("toml", "icon", "href"),
    [
        ('base_url = "/docs/"\n', "/docs/favicon.ico", "/docs/assets/claim-evidence.css"),  # rooted, under the base
        ('base_url = "/docs/"\n', "../favicon.ico", "../assets/claim-evidence.css"),  # the page's links are relative
        ('stylesheet = "/static/ce.css"\n', None, "/static/ce.css"),  # no other link: rooted
        ('stylesheet = "https://cdn.example/ce.css"\n', "../favicon.ico", "https://cdn.example/ce.css"),  # as written
    ],
)
def test_headlink_configured_href_passes_the_gate(
    run: Any, run_static: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, icon: str | None, href: str
) -> None:
    root = site(tmp_path, toml)
    (root / "guide").mkdir()
    page = root / "guide" / "index.html"
    head = f'  <link rel="icon" href="{icon}">\n' if icon else ""
    page.write_text(PAGE.replace("</head>", head + "</head>"), encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, err = run("claim", "add", "guide/index.html", "--all", "--basis", "reporting")
    assert (code, err) == (0, "")
    link = f'<link rel="stylesheet" href="{href}">'
    default = (
        ""
        if "stylesheet" in toml
        else ' (the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path)'
    )
    assert f"note: the evidence stylesheet is linked now, before </head>: {link}{default}\n" in out
    original = PAGE.replace("</head>", head + "</head>")
    head_part = original.split("<body>")[0].replace("</head>", f"  {link}\n</head>")
    assert page.read_text(encoding="utf-8").split("<body>")[0] == head_part  # only the link, in the head
    code, out, err = run_static("--write")
    assert (code, out, err) == (
        0,
        "PASS guide/index.html: 2 claims bound, 2 evidence slots re-rendered\n1 page: 1 passed, 0 failed\n",
        "static-helper: rewrote 1 page (exit 0: nothing left to report)\n",
    )  # no SH130: the link is one the check accepts for this page
    assert run("prepublish")[:2] == (0, "PASS guide/index.html: 2 claims bound\n1 target: 1 passed, 0 failed\n")


def test_headlink_config_found_from_the_page_folder(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `review record` finds it: the page's folder and up, not only where the command runs."""
    (tmp_path / "site").mkdir()
    root = site(tmp_path / "site", 'base_url = "/sub/"\n')
    (root / "p.html").write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run("claim", "add", "site/p.html", "--id", "a", "--basis", "reporting")[0] == 0
    assert '  <link rel="stylesheet" href="/sub/assets/claim-evidence.css">\n</head>' in (root / "p.html").read_text(
        encoding="utf-8"
    )


def test_headlink_stylesheet_false_links_nothing(run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site(tmp_path, "stylesheet = false\n")
    (tmp_path / "p.html").write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("claim", "add", "p.html", "--all", "--basis", "reporting")
    assert code == 0 and "<link" not in (tmp_path / "p.html").read_text(encoding="utf-8") and "stylesheet" not in out


def test_headlink_crlf_and_bom_page(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_bytes(b"\xef\xbb\xbf" + PAGE.replace("\n", "\r\n").encode("utf-8"))
    assert run("claim", "add", str(path), "--id", "a", "--basis", "reporting")[0] == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf<!DOCTYPE html>\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"  <title>t</title>\r\n  " + LINK.encode() + b"\r\n</head>\r\n" in data


def test_headlink_placement_follows_the_head() -> None:
    options = PageOptions()
    inline = "<html><head><title>t</title></head><body><p data-claim-id='a'>A</p></body></html>"
    assert add_page_claims(inline, "p.html", ["a"], basis="reporting").text.startswith(
        f"<html><head><title>t</title>{LINK}</head><body>"
    )
    deeper = "<html>\n  <head>\n    <title>t</title>\n\n  </head>\n<body><p data-claim-id='a'>A</p></body></html>"
    (edit, _) = stylesheet_link(deeper, locate(deeper), options, "p.html") or ((0, 0, ""), "")
    assert edit == (deeper.index("  </head>"), deeper.index("  </head>"), f"    {LINK}\n")  # the blank line skipped
    commented = "<head><!-- </head> --><title>t</title>\n</head><body><p data-claim-id='a'>A</p></body>"
    done = add_page_claims(commented, "p.html", ["a"], basis="reporting").text
    assert done.startswith(f"<head><!-- </head> --><title>t</title>\n{LINK}\n</head>")
    assert "SH130" not in [d.code for d in check_text(done, "p.html").diagnostics]


@pytest.mark.parametrize(
    ("page", "where"),
    [
        ("<p data-claim-id='a'>A</p>\n", "the page has no </head>"),
        ("<html><head><title>t</title><body><p data-claim-id='a'>A</p></body></html>", "the page has no </head>"),
        ("<!-- </head> --><p data-claim-id='a'>A</p>", "the </head> found is inside a comment or a script"),
    ],
)
def test_headlink_refused_without_a_head_end(page: str, where: str) -> None:
    with pytest.raises(AuthoringError) as caught:
        add_page_claims(page, "p.html", ["a"], basis="reporting")
    assert str(caught.value) == (
        f"p.html links no evidence stylesheet and {where}, so claim add cannot place the link; nothing was written. "
        f"Write {LINK} inside the page's <head> (or set stylesheet = false in claim-evidence.toml when the site "
        "ships the evidence CSS in its own stylesheet), then run claim add again"
    )


def test_headlink_refusal_writes_nothing(run: Any, tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text("<p data-claim-id='a'>A</p>\n", encoding="utf-8")
    code, out, err = run("claim", "add", str(path), "--id", "a", "--basis", "reporting")
    assert (code, out) == (2, "")
    assert err.startswith(f"claim-evidence: error: {path} links no evidence stylesheet and the page has no </head>")
    assert path.read_text(encoding="utf-8") == "<p data-claim-id='a'>A</p>\n"


def test_headlink_a_page_that_links_it_is_untouched_there() -> None:
    relative = PAGE.replace("</head>", '<link rel="stylesheet" href="../assets/claim-evidence.css?v=2">\n</head>')
    options = PageOptions(site=SiteLayout("/site", base_url="/"), page="guide/p.html")
    assert stylesheet_link(relative, locate(relative), options, "p.html") is None
    added = add_page_claims(relative, "p.html", ["a"], basis="reporting", options=options)
    assert added.text.split("<body>")[0] == relative.split("<body>")[0]
    assert not [n for n in added.change.notes if "stylesheet" in n]


def test_headlink_href_and_link_style() -> None:
    placed = PageOptions(site=SiteLayout("/site", base_url="https://example.com/docs/"), page="a/b/c.html")
    assert stylesheet_href(placed, relative=False) == "/docs/assets/claim-evidence.css"
    assert stylesheet_href(placed, relative=True) == "../../assets/claim-evidence.css"
    unplaced = PageOptions(site=SiteLayout("/site"), page=None)  # outside the web root: no place to be relative to
    assert stylesheet_href(unplaced, relative=True) == "/assets/claim-evidence.css"
    spaced = PageOptions(stylesheet="/my assets/ce.css", site=SiteLayout("/site"), page="p.html")
    assert stylesheet_href(spaced, relative=False) == "/my%20assets/ce.css"
    assert stylesheet_href(PageOptions(stylesheet=None), relative=False) is None
    claim = "<p data-claim-id=a>A</p>"  # (a page without evidence markup is not even tokenized)
    assert not links_relatively(locate(f"<link rel=icon href='/f.ico'><link rel=stylesheet href='s.css'>{claim}"))
    assert links_relatively(
        locate(f"<link rel=icon href='f.ico'><link href='https://cdn/x.css'><link href='#x'>{claim}")
    )
    assert not links_relatively(locate(f"<link rel=icon href='https://cdn/f.ico'>{claim}"))  # none of its own: rooted


def test_headlink_a_link_to_the_file_elsewhere_is_refused_not_doubled() -> None:
    """A second link would leave the broken one on the page, or hide a base_url that is wrong."""
    wrong = PAGE.replace("</head>", f"  {LINK}\n</head>")  # served under /docs/, this link leaves the base
    options = PageOptions(site=SiteLayout("/site", base_url="/docs/"), page="p.html")
    with pytest.raises(AuthoringError) as caught:
        add_page_claims(wrong, "p.html", ["a"], basis="reporting", options=options)
    assert str(caught.value) == (
        'p.html links the evidence stylesheet at line 6 as href="/assets/claim-evidence.css", which points to '
        "/assets/claim-evidence.css, not to /docs/assets/claim-evidence.css; nothing was written. Fix that href "
        "(or base_url in claim-evidence.toml, if the site is served elsewhere), then run claim add again"
    )
