"""``claim-evidence kb build`` and kb.json: chunks per claim with their evidence state, extra text, loading."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import InputError, load_kb
from claim_evidence._answer.config import FACT_LABELS
from claim_evidence._answer.kb import dumps_kb
from claim_evidence._answer.mdchunks import pieces, safe_cut, sections
from claim_evidence._check.page import read_page_bundle
from claim_evidence._commands.kbbuild import build_kb, claim_text
from claim_evidence._site.config import load_config, registered_pages, site_path

from ...conftest import ROOT

EXAMPLE = ROOT / "examples" / "site"
# The example's build date (its freshness markers count to it): a build before its reviews' dates would find
# every review dated after the build (CE406) and turn each claim unverified.
EPOCH = "1796083200"  # 2026-12-01 UTC
RULE_STATES = {
    "fact": "FACT",
    "matched": "CONFIRMED",
    "partial": "ESTIMATE",
    "conflict": "HYPOTHESIS",
    "unverified": "UNVERIFIED",
}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    return folder


def _append(site: Path, text: str) -> Path:
    config = site / "claim-evidence.toml"
    with open(config, "a", encoding="utf-8") as handle:
        handle.write(text)
    return config


def _claims(site: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every (page, claim) of the registered pages, read from the bundles themselves."""
    config = load_config(site / "claim-evidence.toml")
    found = []
    for path in registered_pages(config):
        bundle = json.loads(read_page_bundle(path.read_text(encoding="utf-8")).text)
        found += [(site_path(config.root, path), claim) for claim in bundle["claims"]]
    return found


def _rule(claim: dict[str, Any]) -> str:
    if claim["status"] == "matched":
        return "fact" if claim.get("evidence_label") in FACT_LABELS else "matched"
    return claim["status"]


def _build(run: Any, config: Path, out: Path) -> tuple[int, str, str, dict[str, Any]]:
    code, stdout, stderr = run("kb", "build", "--config", str(config), "--out", str(out))
    return code, stdout, stderr, json.loads(out.read_text(encoding="utf-8")) if code == 0 else {}


def test_kb_build_one_chunk_per_claim_with_its_state(site: Path, tmp_path: Path, run: Any) -> None:
    code, stdout, stderr, kb = _build(run, site / "claim-evidence.toml", tmp_path / "kb.json")
    claims = _claims(site)
    assert (code, stderr) == (0, "")
    assert [c["id"] for c in kb["chunks"]] == [f"{page}#{claim['id']}" for page, claim in claims]
    assert [(c["state_rule"], c["state"]) for c in kb["chunks"]] == [
        (_rule(claim), RULE_STATES[_rule(claim)]) for _, claim in claims
    ]
    assert [c["url"] for c in kb["chunks"]] == [f"/{page}#evidence-{claim['id']}" for page, claim in claims]
    assert {c["kind"] for c in kb["chunks"]} == {"claim"}
    counts = {
        s: n
        for s in ("FACT", "CONFIRMED", "ESTIMATE", "HYPOTHESIS", "UNVERIFIED")
        if (n := sum(c["state"] == s for c in kb["chunks"]))
    }
    states = ", ".join(f"{s} {n}" for s, n in counts.items())
    assert (
        stdout
        == f"{tmp_path / 'kb.json'}: written ({len(claims)} chunks: {states}; built_at 2026-12-01 from SOURCE_DATE_EPOCH)\n"
    )
    assert (kb["built_at"], kb["built_at_source"], kb["format"], kb["version"], kb["lang"]) == (
        "2026-12-01",
        "SOURCE_DATE_EPOCH",
        "claim-evidence-kb",
        1,
        "ja",
    )


def test_kb_build_is_deterministic_bytes(site: Path, tmp_path: Path, run: Any) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _build(run, site / "claim-evidence.toml", first)[0] == 0
    assert _build(run, site / "claim-evidence.toml", second)[0] == 0
    data = first.read_bytes()
    assert data == second.read_bytes()
    assert data == dumps_kb(json.loads(data)) and data.endswith(b"}\n")  # sorted keys, two-space indent
    assert (
        run("kb", "build", "--config", str(site / "claim-evidence.toml"), "--today", "2026-09-01", "--out", str(first))[
            0
        ]
        == 0
    )
    assert json.loads(first.read_bytes())["built_at_source"] == "--today"


def test_kb_claim_text_has_statement_conditions_uncertainty_basis_and_sources() -> None:
    claim = {
        "id": "C1",
        "label": "価格",
        "statement": "料金は 300 円。",
        "conditions": ["税抜", "標準"],
        "as_of": "2026-09-03",
        "uncertainty": "個人向けは不明",
        "basis": "official_spec",
        "source_refs": [
            {"source_id": "s", "section": "料金", "supports": "300 円", "quote": {"exact": "300 円です"}},
            {"source_id": "gone"},
        ],
    }
    sources = {"s": {"id": "s", "publisher": "架空社", "title": "料金表", "url": "https://example.com/p"}}
    assert claim_text(claim, sources, "ja") == (
        "価格\n主張: 料金は 300 円。\n条件: 税抜; 標準\n時点: 2026-09-03\n不確実性: 個人向けは不明\n根拠の種類: 公式仕様・公式発表\n"
        "出典: 架空社「料金表」 https://example.com/p 該当箇所: 料金 裏付ける内容: 300 円 引用: 「300 円です」\n出典: 「」"
    )
    assert claim_text({"statement": "x", "basis": "reporting"}, {}, "en") == "Claim: x\nBasis: News reporting"


def test_kb_invalid_record_makes_unverified_the_claims_it_concerns(site: Path, tmp_path: Path, run: Any) -> None:
    """As the page's blocks show them: an edited statement (CE403) makes its own claim invalid, not its
    neighbours; an error of the bundle itself concerns every claim of the page."""
    page = site / "articles" / "kumo-engine-3.html"
    text = page.read_text(encoding="utf-8")
    page.write_text(
        text.replace(
            '"statement": "クモエンジン 3 は前版より推論が 1.8', '"statement": "クモエンジン 3 は前版より推論が 2.8', 1
        ),
        encoding="utf-8",
    )
    about = site / "about.html"
    about.write_text(about.read_text(encoding="utf-8").replace('"version": 1,', '"version": 2,', 1), encoding="utf-8")
    kb = _build(run, site / "claim-evidence.toml", tmp_path / "kb.json")[3]
    rules = {c["id"]: (c["state"], c["state_rule"]) for c in kb["chunks"] if c["kind"] == "claim"}
    kumo = {k.split("#")[1]: v for k, v in rules.items() if k.startswith("articles/kumo-engine-3.html#")}
    assert kumo["KUMO-SPEED"] == ("UNVERIFIED", "invalid")
    assert {cid: rule for cid, (_, rule) in kumo.items() if cid != "KUMO-SPEED"} == {
        "KUMO-CONTEXT": "fact",  # each neighbour keeps the rule of its own record
        "KUMO-RELEASE": "partial",
        "KUMO-MEASURED": "conflict",
        "KUMO-ADVICE": "unverified",
    }
    assert {v for k, v in rules.items() if k.startswith("about.html#")} == {("UNVERIFIED", "invalid")}
    assert "2.8 倍速い" in next(c["text"] for c in kb["chunks"] if c["id"].endswith("#KUMO-SPEED"))


def test_kb_state_mapping_overrides_and_expired_reviews(site: Path, tmp_path: Path, run: Any) -> None:
    config = _append(
        site,
        '\n[freshness.max_age_days]\neditorial = 1\n\n[chat]\nfact_labels = []\n\n[chat.states]\nmatched = "ESTIMATE"\nexpired = "HYPOTHESIS"\n',
    )
    kb = _build(run, config, tmp_path / "kb.json")[3]
    by_id = {c["id"]: (c["state_rule"], c["state"]) for c in kb["chunks"]}
    assert by_id["about.html#ABOUT-AI"] == ("expired", "HYPOTHESIS")  # editorial, reviewed 2026-07-02: older than a day
    assert by_id["articles/kumo-engine-3.html#KUMO-CONTEXT"] == ("matched", "ESTIMATE")  # no label counts as Fact now
    assert by_id["about.html#ABOUT-CORRECTIONS"] == ("unverified", "UNVERIFIED")
    assert kb["states"] == {
        "fact": "FACT",
        "matched": "ESTIMATE",
        "partial": "ESTIMATE",
        "conflict": "HYPOTHESIS",
        "expired": "HYPOTHESIS",
        "unverified": "UNVERIFIED",
        "invalid": "UNVERIFIED",
        "extra": "UNVERIFIED",
    }


def test_kb_extra_markdown_split_by_heading(site: Path, tmp_path: Path, run: Any) -> None:
    (site / "docs").mkdir()
    long = "。".join(f"段落の文その{n}" for n in range(40))
    (site / "docs" / "guide.md").write_text(
        "---\ntitle: x\n---\n前書き。\n\n# 使い方\n\n本文。\n\n```sh\n# コードの中は見出しでない\n```\n\n## 長い節 ##\n\n"
        + long
        + "\n\n#見出しでない\n",
        encoding="utf-8",
    )
    config = _append(site, '\n[chat]\nextra = ["docs/*.md"]\nmax_chunk_chars = 100\nextra_state = "HYPOTHESIS"\n')
    kb = _build(run, config, tmp_path / "kb.json")[3]
    extra = [c for c in kb["chunks"] if c["kind"] == "text"]
    assert [(c["id"], c["title"], c["state"], c["url"], c["page"]) for c in extra][:3] == [
        ("docs/guide.md#1", "guide.md", "HYPOTHESIS", "", "docs/guide.md"),
        ("docs/guide.md#2", "使い方", "HYPOTHESIS", "", "docs/guide.md"),
        ("docs/guide.md#3", "長い節", "HYPOTHESIS", "", "docs/guide.md"),
    ]
    assert [c["text"] for c in extra[:2]] == ["前書き。", "使い方\n\n本文。\n\n```sh\n# コードの中は見出しでない\n```"]
    assert all(len(c["text"]) <= 100 for c in extra) and len(extra) == 2 + len(
        pieces("長い節\n\n" + long + "\n\n#見出しでない", 100)
    )
    assert "".join(c["text"] for c in extra[2:]).replace("\n", "") == ("長い節" + long + "#見出しでない")


def test_kb_markdown_pieces_never_split_a_number() -> None:
    assert sections("# A\n\n\n# B\ntext\n", "f.md") == [("B", "B\n\ntext")]
    assert pieces("あ" * 8 + "300億円", 10) == ["あ" * 8, "300億円"]
    assert safe_cut("https://example.com/a", 5) == 5  # a span that starts at 0 cannot be kept whole
    assert pieces("一行目\n二行目\n\n三", 8) == ["一行目\n二行目", "三"]


def test_kb_news_registry_and_served_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    news = build_kb(load_config(ROOT / "examples" / "news" / "claim-evidence.toml"))
    assert {c["page"] for c in news["chunks"]} == {"https://example.com/news/nornbay-compute-funding"}
    assert news["chunks"][0]["url"] == f"{news['chunks'][0]['page']}#evidence-{news['chunks'][0]['id'].split('#')[1]}"
    folder = tmp_path / "hosted"
    shutil.copytree(EXAMPLE, folder / "public")
    (folder / "claim-evidence.toml").write_text(
        'pages = ["public/about.html"]\nweb_root = "public"\nbase_url = "https://example.com/docs"\nsnapshots = "public/evidence-snapshots"\n',
        encoding="utf-8",
    )
    hosted = build_kb(load_config(folder / "claim-evidence.toml"))
    assert [c["url"] for c in hosted["chunks"]] == [
        "https://example.com/docs/about.html#evidence-ABOUT-AI",
        "https://example.com/docs/about.html#evidence-ABOUT-CORRECTIONS",
    ]
    assert hosted["chunks"][0]["id"] == "public/about.html#ABOUT-AI"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            "[chat]\nmax_chunk_chars = 10\n",
            "SH003 chat.max_chunk_chars must be a whole number of characters, 100 or more (found 10)",
        ),
        ("[chat]\nextras = []\n", "SH002 unknown key chat.'extras' (did you mean 'extra'?)"),
        (
            '[chat.states]\nunverified = "FACT"\n',
            "SH002 unknown key chat.states.'unverified' (known keys: fact, matched, partial, conflict, expired)",
        ),
        (
            '[chat.states]\nmatched = "SURE"\n',
            "SH003 chat.states.matched must be one of FACT, CONFIRMED, ESTIMATE, HYPOTHESIS, UNVERIFIED (found 'SURE')",
        ),
        (
            '[chat]\ncopy_prefix = "AI"\n',
            "SH003 chat.copy_prefix must be text with a {state} placeholder, e.g. copy_prefix = \"【AI生成・未検証】証拠状態: {state}（会則第14条）\" (found 'AI')",
        ),
        (
            '[chat]\nbanned = [""]\n',
            'SH003 chat.banned must be a list of phrases, e.g. banned = ["おすすめ", "recommended"] (found [\'\'])',
        ),
        ('[chat]\nextra = ["docs/*.md"]\n', "SH004 chat.extra glob 'docs/*.md' matches no file under {root}"),
    ],
)
def test_kb_bad_config_exits_2_with_the_file_and_the_fix(
    site: Path, tmp_path: Path, run: Any, table: str, message: str
) -> None:
    config = _append(site, "\n" + table)
    code, stdout, stderr = run("kb", "build", "--config", str(config), "--out", str(tmp_path / "kb.json"))
    assert (code, stdout, stderr) == (
        2,
        "",
        f"claim-evidence: error: {config}: {message.replace('{root}', str(site.resolve()))}\n",
    )
    assert not (tmp_path / "kb.json").exists()


def test_kb_unreadable_page_exits_2(site: Path, tmp_path: Path, run: Any) -> None:
    (site / "about.html").write_bytes(b"\xff\xfe")
    code, _, stderr = run(
        "kb", "build", "--config", str(site / "claim-evidence.toml"), "--out", str(tmp_path / "kb.json")
    )
    assert (code, stderr) == (
        2,
        f"claim-evidence: error: {site / 'about.html'}:1:1: CE002 not UTF-8: byte 0xff at offset 0; re-save the file as UTF-8\n",
    )


def test_kb_load_refuses_what_kb_build_did_not_write(tmp_path: Path) -> None:
    path = tmp_path / "kb.json"
    fixture = json.loads((ROOT / "tests" / "data" / "answer_kb.json").read_text(encoding="utf-8"))
    cases = [
        ("{", f"{path}:1:2: CE003 invalid JSON: Expecting property name enclosed in double quotes"),
        (
            "[]",
            f'{path}: CE700 not a knowledge base: expected an object with "format": "claim-evidence-kb" and "version": 1; rebuild it with `claim-evidence kb build`',
        ),
        (
            json.dumps(dict(fixture, chunks=[dict(fixture["chunks"][0], state="SURE")])),
            f"{path}:$.chunks[0].state: CE700 state must be one of FACT, CONFIRMED, ESTIMATE, HYPOTHESIS, UNVERIFIED; rebuild it with `claim-evidence kb build`",
        ),
        (
            json.dumps(dict(fixture, chunks=fixture["chunks"][:1] * 2)),
            f"{path}:$.chunks[1].id: CE700 duplicate chunk id 'about.html#ABOUT-AI'; rebuild it with `claim-evidence kb build`",
        ),
        (
            json.dumps(dict(fixture, guard={})),
            f"{path}:$.guard: CE700 guard must hold banned (a list of phrases) and copy_prefix (text); rebuild it with `claim-evidence kb build`",
        ),
        (
            json.dumps(dict(fixture, guard=dict(fixture["guard"], system_prompt="no variable"))),
            f"{path}:$.guard.system_prompt: CE700 guard.system_prompt must be text holding {{lang}}; rebuild it with `claim-evidence kb build`",
        ),
    ]
    for text, message in cases:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as caught:
            load_kb(path)
        assert str(caught.value) == message
    with pytest.raises(InputError, match="CE001 file not found"):
        load_kb(tmp_path / "missing.json")
    kb = load_kb(ROOT / "tests" / "data" / "answer_kb.json")
    assert (len(kb.chunks), kb.built_at, kb.built_at_source, kb.copy_prefix) == (
        17,
        "2026-08-29",
        "SOURCE_DATE_EPOCH",
        "【AI生成・未検証】証拠状態: {state}（会則第14条）",
    )


def test_kb_page_whose_records_cannot_be_read_is_named_not_dropped_quietly(
    site: Path, tmp_path: Path, run: Any
) -> None:
    page = site / "about.html"
    page.write_text(page.read_text(encoding="utf-8").replace('"version": 1', '"version": 1,,', 1), encoding="utf-8")
    code, _, stderr, kb = _build(run, site / "claim-evidence.toml", tmp_path / "kb.json")
    assert code == 0 and not [c for c in kb["chunks"] if c["page"] == "about.html"]
    assert stderr.startswith("claim-evidence: kb build: no chunks from about.html: CE003 invalid JSON: ")
    assert stderr.rstrip().endswith("(its records cannot be read; fix the page)")


def test_kb_stores_the_site_system_prompt_read_relative_to_the_config(site: Path, tmp_path: Path, run: Any) -> None:
    prompt = 'Site rules. Answer in {lang}. JSON like {"answer": "…"} stays as written.\n'
    (site / "chat").mkdir()
    (site / "chat" / "prompt.txt").write_text(prompt, encoding="utf-8")
    config = _append(site, '\n[chat]\nsystem_prompt = "chat/prompt.txt"\n')
    code, _, stderr, kb = _build(run, config, tmp_path / "kb.json")
    assert (code, stderr, kb["guard"]["system_prompt"]) == (0, "", prompt)
    assert load_kb(tmp_path / "kb.json").system_prompt == prompt


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "No variable here.",
            "{file}: SH003 chat.system_prompt file has no {lang} variable: write it where the answer's language goes, "
            'e.g. "Write the answer in the language {lang}." (it becomes ja or en)',
        ),
        ("{lang}" + "x" * 20_000, "{file}: SH003 chat.system_prompt file is 20006 characters, over the limit of 20000"),
        (None, "{file}: CE001 file not found"),
    ],
)
def test_kb_bad_system_prompt_exits_2_naming_the_file(
    site: Path, tmp_path: Path, run: Any, text: str | None, message: str
) -> None:
    if text is not None:
        (site / "prompt.txt").write_text(text, encoding="utf-8")
    config = _append(site, '\n[chat]\nsystem_prompt = "prompt.txt"\n')
    code, stdout, stderr = run("kb", "build", "--config", str(config), "--out", str(tmp_path / "kb.json"))
    assert (code, stdout) == (2, "")
    assert stderr == f"claim-evidence: error: {message.replace('{file}', str(site / 'prompt.txt'))}\n"
    assert not (tmp_path / "kb.json").exists()
