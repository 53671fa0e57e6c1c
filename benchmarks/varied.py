"""The varied benchmark site (issue 32): the shapes pages people write, in ja and en.

``bench.py --site varied`` generates its pages with :func:`page` instead of ``bench._page``. Each page
has a *shape* (:func:`shape_of`) that half of its claims take, the other half plain or
formatted sentences; every page is 30–80 KB (a ``long`` page about twice the others), every other page
is English. What each shape puts on the page:

- ``plain``: claim sentences in ``<p>``, text only;
- ``formatted``: sentences with ``<em>``, ``<strong>``, ``<b>``, ``<i>``, ``<code>``, ``<sup>``, ``<ruby>``, ``<br>``;
- ``links``: sentences holding ``<a href>`` links (some with formatting inside);
- ``scripts``: sentences holding a comment or a small inline ``<script>``;
- ``table``: claims in ``<td>``/``<th>`` cells, the slot in the row's last cell;
- ``list``: claims in ``<li>``, ``<dd>``/``<dt>``, slots in list items;
- ``quote``: claims in ``<blockquote>``, ``<figcaption>``, ``<details>``;
- ``icons``: SVG icons in the header and beside headings, a MathML formula outside the evidence markup;
- ``select``: a ``<select>`` (a language switcher) in the header;
- ``long``: twice the sections, code samples that mention the markup.

Every page also has nav, paragraphs with entities and inline markup, a data table, code samples whose
text spells evidence markup, comments and inline scripts and styles (as ``bench._page``). Statements
are the visible text of the claim elements (:func:`claim_evidence.visible_text`): the cold check passes.
Imported by ``bench.py`` and by the differential test (``tests/unit/html/test_fastpath.py``).
"""

from __future__ import annotations

import random
from typing import Any

from claim_evidence import claim_fingerprint, render_evidence, visible_text
from claim_evidence._core.jsonio import dumps_for_script

SHAPES = ("plain", "formatted", "links", "scripts", "table", "list", "quote", "icons", "select", "long")
STYLESHEET = "/assets/claim-evidence.css"

_JA = (
    "生成AI 推論 モデル データセンター 半導体 消費電力 ベンチマーク 開発者 クラウド 学習データ 評価 精度 "
    "応答速度 料金 契約 利用規約 安全性 透明性 公開 発表 検証 測定 記事 編集部 資料 出典 仕様 対応 企業 研究者"
).split()
_JA_PARTICLES = ("は", "が", "を", "に", "で", "と", "の", "から")
_JA_ENDINGS = ("した。", "している。", "と発表した。", "とみられる。", "を示した。", "と述べた。")
_EN = (
    "model inference cluster vendor benchmark latency throughput dataset license policy review report "
    "server region energy chip memory release update pricing contract audit source editor"
).split()
_EN_VERBS = ("reported", "measured", "announced", "published", "confirmed", "lowered", "raised")


class _Words:
    def __init__(self, rng: random.Random, lang: str) -> None:
        self.rng = rng
        self.lang = lang

    def word(self) -> str:
        return self.rng.choice(_JA if self.lang == "ja" else _EN)

    def sentence(self, numbers: bool = False) -> str:
        rng = self.rng
        if self.lang == "ja":
            parts = [f"{self.word()}{rng.choice(_JA_PARTICLES)}" for _ in range(rng.randint(3, 6))]
            if numbers:
                parts.insert(1, f"{rng.randint(2, 99)}%")
            return "".join(parts) + f"{self.word()}{rng.choice(_JA_ENDINGS)}"
        words = [self.word() for _ in range(rng.randint(5, 9))]
        if numbers:
            words.insert(2, f"{rng.randint(2, 99)} percent")
        return f"The {words[0]} {rng.choice(_EN_VERBS)} " + " ".join(words[1:]) + "."

    def paragraph(self, sentences: int) -> str:
        text = (" " if self.lang == "en" else "").join(self.sentence() for _ in range(sentences))
        word = self.word()
        return text.replace(word, f"<b>{word}</b>", 1) + " &amp; &#x3042; &nbsp;"


def _formatted(w: _Words) -> str:
    """A sentence holding inline formatting, as editors write it."""
    a, b, c = w.sentence(), w.word(), w.word()
    pick = w.rng.randrange(6)
    if pick == 0:
        return f"<em>{b}</em> {a}"
    if pick == 1:
        return f"{a[:-1]} <strong>{b}</strong> <code>{c}()</code>."
    if pick == 2:
        return f"<b>{b}</b>{a}<sup>1</sup>"
    if pick == 3:
        return f"<i>{b}</i> {a}<br>{c}"
    if pick == 4:
        return f"<ruby>{b}<rp>(</rp><rt>yomi</rt><rp>)</rp></ruby>{a}"
    return f"<em><code>{b}</code></em> {a}"


def _linked(w: _Words) -> str:
    a, b = w.sentence(), w.word()
    n = w.rng.randrange(1000)
    if w.rng.randrange(2):
        return f'<a href="/articles/{n}.html">{b}</a> {a}'
    return f'{a[:-1]} (<a href="https://example.org/r/{n}" rel="noopener"><em>{b}</em></a>).'


def _scripted(w: _Words) -> str:
    a, b = w.sentence(), w.word()
    if w.rng.randrange(2):
        return f"{a}<!-- 編集メモ: {b} を確認 -->"
    return f'<em>{b}</em> {a}<script>window.track && window.track("claim-{w.rng.randrange(99)}");</script>'


def _content(w: _Words, kind: str) -> str:
    """A claim element's content of this kind (``plain``, ``formatted``, ``links``, ``scripts``)."""
    if kind == "formatted":
        return _formatted(w)
    if kind == "links":
        return _linked(w)
    if kind == "scripts":
        return _scripted(w)
    return w.sentence(numbers=w.rng.randrange(5) == 0)


_ICON = (
    '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">'
    '<path d="M12 2L2 7l10 5 10-5-10-5z"></path><g fill="none"><circle cx="12" cy="12" r="3"></circle></g></svg>'
)
_MATH = "<math><mi>x</mi><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac></math>"
_SELECT = (
    '<select id="lang" name="lang"><option value="ja" selected>日本語</option>'
    '<option value="en">English</option><optgroup label="more"><option>Deutsch</option></optgroup></select>'
)
_SCRIPT = """
  <script>
    // inline script whose raw text mentions markup: </div> data-claim-id="x" <!-- not a comment -->
    window.dataLayer = window.dataLayer || [];
    window.track = function (name) { window.dataLayer.push({event: name}); };
  </script>"""
_STYLE = """
  <style>
    body { font-family: "Noto Sans JP", sans-serif; line-height: 1.8; }
    pre code { background: #f6f8fa; } /* </style> is only the real end */
  </style>"""
_CODE = (
    '      <pre><code class="language-html">&lt;p data-claim-id="example"&gt;例 &lt;em&gt;強調&lt;/em&gt;&lt;/p&gt;\n'
    '&lt;div data-evidence-for="example"&gt;&lt;/div&gt;\n'
    "for (let i = 0; i &lt; n; i++) { total += cost[i]; }</code></pre>\n"
)


def _bundle(rng: random.Random, page: int, statements: list[str], lang: str) -> dict[str, Any]:
    w = _Words(rng, lang)
    sources = [
        {
            "id": f"src-{page}-{s}",
            "publisher": f"{w.word()} Inc.",
            "title": f"{w.word()} {w.word()} report {s + 1}",
            "url": f"https://example.com/reports/{page}/{s}",
            "published_at": f"2026-0{rng.randint(1, 6)}-1{rng.randint(0, 9)}",
        }
        for s in range(3)
    ]
    claims = []
    for c, statement in enumerate(statements):
        claim: dict[str, Any] = {
            "id": f"V{page:05d}-C{c:02d}",
            "label": f"{w.word()} {w.word()}",
            "statement": statement,
            "evidence_label": rng.choice(("Fact", "Claim", "Fact-A")),
            "basis": rng.choice(("official_spec", "vendor_claim", "reporting")),
            "status": "matched",
            "source_refs": [
                {"source_id": sources[(c + k) % 3]["id"], "section": f"§ {k + 1}", "supports": w.sentence()}
                for k in range(2)
            ],
            "conditions": [f"{w.word()} only"],
            "as_of": "2026-07-01",
            "uncertainty": f"{w.word()} unverified",
            "verification": {"checked_at": "2026-07-20", "method": "human_document_review"},
        }
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, sources)
        claims.append(claim)
    return {"version": 1, "sources": sources, "claims": claims}


def _claim_markup(shape: str, kind: str, slot_of: int, cid: str, content: str) -> tuple[str, str, str]:
    """``(before the slot's content, the slot's start, after the slot's end)`` of one claim in ``shape``."""
    if shape == "table":
        cell = ("td", "th")[slot_of % 2]
        return (
            f'      <table class="claims"><tbody><tr><{cell} data-claim-id="{cid}">{content}</{cell}>',
            f'<td data-evidence-for="{cid}">',
            "</td></tr></tbody></table>\n",
        )
    if shape == "list":
        if slot_of % 2:
            return (
                f'      <dl><dt data-claim-id="{cid}">{content}</dt><dd>',
                f'<div data-evidence-for="{cid}">',
                "</div></dd></dl>\n",
            )
        return (
            f'      <ul class="points"><li data-claim-id="{cid}">{content}</li>',
            f'<li data-evidence-for="{cid}">',
            "</li></ul>\n",
        )
    if shape == "quote":
        pick = slot_of % 3
        if pick == 0:
            return (
                f'      <blockquote data-claim-id="{cid}">{content}</blockquote>\n',
                f'      <div data-evidence-for="{cid}">',
                "</div>\n",
            )
        if pick == 1:
            return (
                f'      <figure><img src="/img/{cid}.png" alt=""><figcaption data-claim-id="{cid}">{content}</figcaption>'
                "</figure>\n",
                f'      <div data-evidence-for="{cid}">',
                "</div>\n",
            )
        return (
            f'      <details><summary>{cid}</summary><p data-claim-id="{cid}">{content}</p>',
            f'<div data-evidence-for="{cid}">',
            "</div></details>\n",
        )
    return (
        f'      <p data-claim-id="{cid}">{content}</p>\n',
        f'      <div data-evidence-for="{cid}">',
        "</div>\n",
    )


def page(index: int, claims: int, seed: int, markup: bool, share: int = 1) -> tuple[str, str]:
    """``(fresh page, the same page with every slot stale)`` of the varied site (``bench._page``'s
    signature: ``share`` consecutive pages carry the same record)."""
    shape, lang = shape_of(index).split("/")
    rng = random.Random(seed * 1_000_003 + index)
    w = _Words(rng, lang)
    record = index // share
    rec = random.Random(seed * 7_919 + record)
    rw = _Words(rec, lang)
    kinds = []
    for c in range(claims):
        own = shape if shape in ("formatted", "links", "scripts") else rec.choice(("formatted", "links", "scripts"))
        kinds.append(own if c % 2 == 0 else rec.choice(("plain", "plain", "formatted")))
    contents = [_content(rw, kind) for kind in kinds]
    statements = [visible_text(content) for content in contents]
    bundle = _bundle(rec, record, statements, lang) if markup else {"claims": []}
    icons = shape == "icons"
    nav = "".join(
        f'<li><a href="/articles/{n}.html">{_ICON if icons and n % 8 == 0 else ""}{w.word()}</a></li>'
        for n in range(40)
    )
    head = (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n  <meta charset="utf-8">\n'
        f"  <title>{w.word()} &mdash; Varied Notes</title>\n"
        f'  <link rel="stylesheet" href="/assets/site.css">\n'
        + (f'  <link rel="stylesheet" href="{STYLESHEET}">\n' if markup else "")
        + _STYLE
        + _SCRIPT
        + "\n</head>\n<body>\n  <!-- site header -->\n"
        + f'  <header>{_ICON if icons else ""}<nav class="site"><ul>{nav}</ul></nav>'
        + (_SELECT if shape == "select" else "")
        + f"</header>\n  <main>\n    <article>\n      <h1>{w.sentence()}</h1>\n"
    )
    fresh, stale = [head], [head]
    sections = max(claims, 8) * (2 if shape == "long" else 1)
    for s in range(sections):
        heading = f"{_ICON} " if icons and s % 3 == 0 else ""
        chunk = [f"      <h2>{heading}{w.word()} {w.word()}</h2>\n"]
        chunk += [f"      <p>{w.paragraph(rng.randint(4, 8))}</p>\n" for _ in range(3)]
        if icons and s == 1:
            chunk.append(f"      <p>The ratio {_MATH} holds.</p>\n")
        if s % 3 == 0:
            rows = "".join(
                f"<tr><td>{w.word()}</td><td>{rng.randint(1, 999)} ms</td><td>{w.sentence()}</td></tr>\n"
                for _ in range(8)
            )
            chunk.append(
                f'      <table class="data">\n<thead><tr><th>k</th><th>v</th><th>note</th></tr></thead>\n<tbody>\n{rows}</tbody></table>\n'
            )
        if s % 4 == 1 or shape == "long":
            chunk.append(_CODE)
        if s % 5 == 2:
            chunk.append(f'      <!-- 編集メモ: {w.sentence()} <p data-evidence-for="old"> -->\n')
        fresh += chunk
        stale += chunk
        c = s // (2 if shape == "long" else 1)
        if markup and c < claims and (shape != "long" or s % 2 == 0):
            cid = bundle["claims"][c]["id"]
            before, slot, after = _claim_markup(shape, kinds[c], c, cid, contents[c])
            fresh += [before, slot, render_evidence(bundle, [cid], lang=lang), after]
            stale += [before, slot, after]
    tail = "    </article>\n  </main>\n"
    if markup:
        tail += f'  <script type="application/json" id="claim-evidence-data">{dumps_for_script(bundle)}</script>\n'
    tail += f"  <footer><p>&copy; 2026 Varied Notes &middot; {w.sentence()}</p></footer>\n</body>\n</html>\n"
    fresh.append(tail)
    stale.append(tail)
    return "".join(fresh), "".join(stale)


def shape_of(index: int) -> str:
    """The shape of page ``index``, with its language (``"table/en"``): every shape in turn, shifted by
    one in each run of ``len(SHAPES)`` pages (so that no shape falls only on bench.py's pages without
    markup, every tenth), the language alternating by run."""
    lang = "en" if (index // len(SHAPES)) % 2 else "ja"
    return f"{SHAPES[(index + index // len(SHAPES)) % len(SHAPES)]}/{lang}"
