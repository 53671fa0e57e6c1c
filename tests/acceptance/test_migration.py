"""What a site moving over from the existing system uses: the public API it imports, and
``visible_text``, the page check's own reading of a claim element, which the existing site's
tests called through its script's ``visible_text``."""

from __future__ import annotations

import inspect
import json
import re
import typing
from pathlib import Path

import pytest

import claim_evidence
from claim_evidence import normalized_text, visible_text
from static_helper import check_text, locate

DATA = Path(__file__).resolve().parents[1] / "data" / "static"
CORPUS_PAGES = [
    "about.html",
    "articles/claim-evidence-design.html",
    "presentations/day_slides/day_slide_2026_09_04.html",
]


def test_public_api_every_name_resolves_and_is_listed() -> None:
    """Each name in ``__all__`` resolves through the lazy exports, and ``dir()`` shows it (as httpx's
    test_exported_members checks); ``visible_text`` is one of them."""
    assert {name: getattr(claim_evidence, name) is not None for name in claim_evidence.__all__} == dict.fromkeys(
        claim_evidence.__all__, True
    )
    assert set(claim_evidence.__all__) <= set(dir(claim_evidence))
    assert len(claim_evidence.__all__) == len(set(claim_evidence.__all__))
    assert "visible_text" in claim_evidence.__all__
    assert claim_evidence.visible_text is visible_text


def test_public_api_visible_text_is_typed_and_documented() -> None:
    hints = typing.get_type_hints(visible_text)
    assert hints["html_text"] is str and hints["return"] is str
    assert list(inspect.signature(visible_text).parameters) == ["html_text", "element"]
    assert "SH120" in (visible_text.__doc__ or "")


@pytest.mark.parametrize(
    ("fragment", "text"),
    [
        ('<p data-claim-id="sandbox"><b>Bash</b> と子プロセスを隔離。</p>', "Bash と子プロセスを隔離。"),
        ("<b>Bash</b> と子プロセスを隔離。", "Bash と子プロセスを隔離。"),
        ("one<br>two<div>three</div>four", "one two three four"),
        (
            '漢<script>var x = "</p>";</script><style>p{}</style><template><b>inert</b></template><ruby>字<rt>じ</rt></ruby>だ',
            "漢字だ",
        ),
        ("R&amp;D&#x3000;&nbsp;&lt;x&gt; <!-- not text -->end", "R&D <x> end"),
        ("<td>a</td><td>b</td>", "a b"),
        ("<textarea>&lt;b&gt;  x</textarea>", "<b> x"),
        ("", ""),
    ],
)
def test_visible_text_of_fragments(fragment: str, text: str) -> None:
    assert visible_text(fragment) == text


def _pages(shared_site: Path | None) -> list[tuple[str, str]]:
    pages = [
        (name, (DATA / name).read_text(encoding="utf-8-sig")) for name in ("basic_before.html", "tricky_before.html")
    ]
    if shared_site is not None:
        pages += [(name, (shared_site / name).read_text(encoding="utf-8")) for name in CORPUS_PAGES]
    return pages


def _same_as_the_check(pages: list[tuple[str, str]]) -> None:
    checked = 0
    for name, html in pages:
        for element in locate(html).claims:
            if element.name.startswith(("svg:", "math:")):
                continue  # a foreign element's fragment would be read as HTML
            assert visible_text(html[element.start : element.end]) == visible_text(html, element), (name, element.attrs)
            checked += 1
    assert checked > 0


def test_visible_text_of_an_element_is_what_the_check_reads() -> None:
    """The element cut out of its page reads as the check reads it in place."""
    _same_as_the_check(_pages(None))


def test_visible_text_of_the_existing_sites_claims_is_their_statement(shared: Path) -> None:
    """On the existing site's pages (which pass the check), each claim element's text is its
    normalized statement: what the check compares."""
    site = shared / "corpora" / "ai-news-site"
    pages = _pages(site)
    _same_as_the_check(pages)
    compared = 0
    for name in CORPUS_PAGES:
        html = (site / name).read_text(encoding="utf-8")
        script = re.search(r'<script type="application/json" id="claim-evidence-data">(.*?)</script>', html, re.DOTALL)
        if script is None:
            continue
        statements = {c["id"]: normalized_text(c["statement"]) for c in json.loads(script.group(1))["claims"]}
        for element in locate(html).claims:
            assert visible_text(html[element.start : element.end]) == statements[element.attrs["data-claim-id"]], (
                name,
                element.attrs,
            )
            compared += 1
    assert compared > 40


def test_visible_text_of_the_existing_about_page(shared: Path) -> None:
    """The existing site's test of its about page reads the whole page's visible text."""
    text = visible_text((shared / "corpora" / "ai-news-site" / "about.html").read_text(encoding="utf-8"))
    for phrase in (
        "情報区分であり、信頼度や真偽の保証ではありません",
        "公式仕様・公式発表",
        "ベンダー公称値",
        "第三者の測定",
        "資料との照合済み",
        "未確認・根拠未登録",
        "AIによる資料照合は人によるレビューではありません",
        "HTTP 200、ビルド、リンク確認で確認日を自動代入しません",
        "何を支えるか（support）",
    ):
        assert phrase in text


def test_visible_text_is_the_page_text_sh120_reports() -> None:
    html = (DATA / "basic_before.html").read_text(encoding="utf-8-sig")
    old = '<p data-claim-id="B-1">記事は<strong>公開前</strong>に運営者が確認する方針です。</p>'
    assert html.count(old) == 1
    edited = html.replace(
        old, '<p data-claim-id="B-1">記事は<strong>公開前</strong>に<em>編集部</em>が確認する方針です。</p>'
    )
    element = next(e for e in locate(edited).claims if e.attrs["data-claim-id"] == "B-1")
    found = [d for d in check_text(edited, "page.html").diagnostics if d.code == "SH120"]
    assert [d.message.split('page "', 1)[1].split('" / statement', 1)[0] for d in found] == [
        visible_text(edited[element.start : element.end])
    ]
    assert visible_text(edited[element.start : element.end]) == "記事は公開前に編集部が確認する方針です。"
