"""Text from fetched bytes: decoding order, visible text, PDF, plain text, sniffing, never raising."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence._sources.extract import Extracted, _strip_bom, extract_text

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "snapshots"

SHIFT_JIS_TEXT = (
    "クモエンジン 3 の仕様\n"
    "クモエンジン 3 の最大入力長は 256,000 トークンです。\n"
    "価格は 1,000\uff5e2,000 円です。\n"
    "この文書は架空の製品についての説明であり、実在の製品とは関係ありません。"
)
EUC_JP_TEXT = (
    "クモエンジン 3 の仕様\n"
    "クモエンジン 3 の最大入力長は 256,000 トークンです。\n"
    "この文書は架空の製品についての説明であり、実在の製品とは関係ありません。\n"
    "処理速度と精度は固定条件で測定されました。測定の条件と結果は次の表のとおりです。\n"
    "日本語の文章が十分にあれば、文字コードの判定は安定します。そのため、この段落は少し長めに書かれています。"
)
PDF_TEXT = "Kumo Engine 3 accepts up to 256,000 tokens.\nSecond page text."
OTHER = "quotes cannot be checked against it"


def _fixture(name: str) -> bytes:
    return (DATA / name).read_bytes()


def _make_fixtures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_fixtures", DATA / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _html(markup: str) -> str:
    return extract_text(markup.encode("utf-8"), "text/html; charset=utf-8").text


# --- fixtures ----------------------------------------------------------------------------------


def test_extract_fixtures_match_their_generator() -> None:
    generated = _make_fixtures().fixtures()
    assert sorted(generated) == ["euc_jp.html", "page.pdf", "plain.txt", "shift_jis.html", "utf8_bom.html"]
    assert {name: _fixture(name) for name in generated} == generated
    assert all(len(data) < 10_000 for data in generated.values())


# --- HTML decoding order -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type", [None, "text/html", "TEXT/HTML; Charset=Shift_JIS", 'text/html; charset="shift_jis"']
)
def test_extract_shift_jis_declared_in_meta_only(content_type: str | None) -> None:
    assert extract_text(_fixture("shift_jis.html"), content_type) == Extracted(SHIFT_JIS_TEXT, "html", "cp932", None)


def test_extract_shift_jis_decodes_as_a_browser_does() -> None:
    """0x8160 is U+FF5E in browsers (WHATWG Shift_JIS = cp932), U+301C in Python's shift_jis codec."""
    text = extract_text("<p>1,000～2,000 ① 髙</p>".encode("cp932"), "text/html; charset=Shift_JIS").text
    assert text == "1,000\uff5e2,000 ① 髙"


def test_extract_euc_jp_undeclared_is_detected() -> None:
    assert extract_text(_fixture("euc_jp.html"), "text/html") == Extracted(EUC_JP_TEXT, "html", "euc_jis_2004", None)


def test_extract_bom_wins_over_meta() -> None:
    expected = (
        "Kumo Engine 3 accepts up to 256,000 tokens — “fictional” figures.\n"
        "クモエンジン 3 の最大入力長は 256,000 トークンです。"
    )
    assert extract_text(_fixture("utf8_bom.html"), "text/html") == Extracted(expected, "html", "utf-8", None)
    assert extract_text(_fixture("utf8_bom.html"), None) == Extracted(expected, "html", "utf-8", None)


def test_extract_http_charset_wins_over_wrong_meta() -> None:
    data = '<meta charset="windows-1252"><p>Café “quoted”</p>'.encode()
    assert extract_text(data, "text/html; charset=UTF-8") == Extracted("Café “quoted”", "html", "utf-8", None)
    data = '<meta charset="windows-1252"><p>Café</p>'.encode()
    assert extract_text(data, "text/html") == Extracted("CafÃ©", "html", "windows-1252", None)  # the meta alone


def test_extract_bom_wins_over_http_charset() -> None:
    """As in browsers: Apache's default ``charset=ISO-8859-1`` must not garble a UTF-8 file with a BOM."""
    data = "\ufeff<p>Café クモ</p>".encode("utf-8")
    assert extract_text(data, "text/html; charset=ISO-8859-1") == Extracted("Café クモ", "html", "utf-8", None)
    assert extract_text(data, "text/plain; charset=ISO-8859-1") == Extracted("<p>Café クモ</p>", "text", "utf-8", None)


def test_extract_latin1_label_decodes_as_windows_1252() -> None:
    """Browsers read iso-8859-1 as windows-1252: 0x93/0x94 are curly quotes, not C1 controls."""
    assert extract_text(b"<p>\x93quoted\x94 caf\xe9</p>", "text/html; charset=iso-8859-1") == Extracted(
        "“quoted” café", "html", "windows-1252", None
    )


def test_extract_python_only_codec_in_meta_is_ignored() -> None:
    data = b'<meta charset="unicode_escape"><p>\\x41 \\u3042</p>'
    assert extract_text(data, "text/html") == Extracted("\\x41 \\u3042", "html", "ascii", None)


def test_extract_utf16_meta_is_read_as_utf8() -> None:
    """An ASCII-compatible page cannot be UTF-16; read literally it would turn into CJK noise."""
    data = '<meta charset="utf-16"><p>Café</p>'.encode()
    assert extract_text(data, "text/html") == Extracted("Café", "html", "utf-8", None)


def test_extract_unknown_http_charset_falls_back_to_meta() -> None:
    data = '<meta charset="shift_jis"><p>クモ</p>'.encode("cp932")
    assert extract_text(data, "text/html; charset=no-such-charset") == Extracted(
        "クモ", "html", "cp932", "unknown charset 'no-such-charset' ignored"
    )


def test_extract_invalid_bytes_in_declared_encoding_are_replaced_not_guessed() -> None:
    """One stray byte must not send a whole UTF-8 page to detection (and mojibake)."""
    data = "<p>Café “quoted” \xff end</p>".encode().replace("\xff".encode(), b"\xff")
    warning = "the page is not valid utf-8; invalid bytes were replaced with U+FFFD"
    assert extract_text(data, "text/html; charset=utf-8") == Extracted(
        "Café “quoted” \ufffd end", "html", "utf-8", warning
    )
    meta = b'<meta charset="utf-8">' + data
    assert extract_text(meta, "text/html") == Extracted("Café “quoted” \ufffd end", "html", "utf-8", warning)


def test_extract_undeclared_invalid_bytes_warn() -> None:
    got = extract_text(bytes(range(256)), "text/html")
    assert (got.kind, got.encoding, got.warning) == (
        "html",
        "utf-8",
        "the page is not valid utf-8; invalid bytes were replaced with U+FFFD",
    )
    assert got.text.startswith("\ufffd\x01\x02")


def test_extract_detection_never_guesses_utf16() -> None:
    got = extract_text(b"<p>a\x00\x81\xff\x00\x01\x02\x03\x04</p>", "text/html")
    assert got.encoding is not None and "16" not in got.encoding and got.text.startswith("a"), got


# --- visible text ------------------------------------------------------------------------------


def test_extract_invisible_content_excluded() -> None:
    markup = (
        "<html><head><style>p { color: red }</style><script>var s = 'script';</script></head><body>"
        "<p>a<script>x()</script>b<style>.c{}</style><noscript>enable js</noscript><template><p>tpl</p></template>"
        "<!-- comment -->c<?php echo 'pi' ?>d<ruby>漢<rp>(</rp><rt>かん</rt></ruby></p></body></html>"
    )
    assert _html(markup) == "abcd漢"


def test_extract_fixture_script_and_style_excluded() -> None:
    text = extract_text(_fixture("shift_jis.html"), None).text
    assert "スクリプト" not in text and "架空のスタイル" not in text and "font-family" not in text


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<p>a</p><p>b</p>", "a\nb"),
        ("a<br>b", "a\nb"),
        ("a<br/><br/><br/>b", "a\nb"),
        ("<p>a <b>bold</b> and <i>it</i><span>alic</span></p>", "a bold and italic"),
        ("a<b>b</b>c", "abc"),
        ("<ul><li>one</li><li>two</li></ul>", "one\ntwo"),
        ("<table><tr><th>k</th><td>1</td></tr><tr><td>2</td><td>3</td></tr></table>", "k\n1\n2\n3"),
        ("<div>x<div>y</div>z</div>", "x\ny\nz"),
        ("<h1>T</h1>body<hr>end", "T\nbody\nend"),
        ("<dl><dt>term</dt><dd>def</dd></dl>", "term\ndef"),
        ("<blockquote>q</blockquote><section>s</section><article>a</article>", "q\ns\na"),
        ("<header>h</header><footer>f</footer>", "h\nf"),
    ],
)
def test_extract_block_separation(markup: str, expected: str) -> None:
    assert _html(markup) == expected


def test_extract_whitespace_collapsed_per_line() -> None:
    assert _html("<p>  a \n\t b\u3000c&nbsp;d  </p>\n\n<p>\n</p><p>e</p>") == "a b c d\ne"


def test_extract_pre_keeps_its_line_breaks() -> None:
    assert _html("<pre>line 1\r\n   line  2\n\nline 3</pre>after") == "line 1\nline 2\nline 3\nafter"


def test_extract_entities() -> None:
    assert _html("<p>Kumo &amp; co: 5 &lt; 6 &#x3042;&nbsp;&#12354;</p>") == "Kumo & co: 5 < 6 あ あ"


def test_extract_head_is_not_page_text() -> None:
    """The <title> usually repeats the <h1>: kept, a quote of the headline would be found twice."""
    markup = (
        "<html><head><title>Kumo 3</title><meta name=description content=x></head><body><h1>Kumo 3</h1></body></html>"
    )
    assert _html(markup) == "Kumo 3"


def test_extract_xhtml_with_xml_declaration() -> None:
    data = (
        b'<?xml version="1.0" encoding="iso-8859-1"?>\n'
        b'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>caf\xe9</p><p>two</p></body></html>'
    )
    assert extract_text(data, "application/xhtml+xml") == Extracted("café\ntwo", "html", "windows-1252", None)


def test_extract_deep_nesting_keeps_text() -> None:
    """libxml2 drops all text past depth 256 unless told otherwise (huge_tree)."""
    assert _html("<div>" * 1000 + "deep" + "</div>" * 1000 + "<p>after</p>") == "deep\nafter"


def test_extract_nesting_past_the_parser_limit_keeps_what_came_before_and_says_so() -> None:
    """libxml2 stops at 2,048 levels even with huge_tree, and everything after that point is lost:
    never silently (a quote there would read as "not in the snapshot" with no reason given)."""
    depth = 3000
    markup = "<p>before</p>" + "<div>" * depth + "deep" + "</div>" * depth + "<p>after</p>"
    result = extract_text(markup.encode("utf-8"), "text/html; charset=utf-8")
    assert result == Extracted(
        "before",
        "html",
        "utf-8",
        "the page nests elements deeper than the HTML parser goes (2,048 levels): the text from that point on was not "
        "extracted, and quotes there cannot be checked against it",
    )
    assert extract_text(("<div>" * 2040 + "deep" + "</div>" * 2040).encode(), "text/html; charset=utf-8") == Extracted(
        "deep", "html", "utf-8", None
    )


def test_extract_empty_html_warns() -> None:
    warning = "the HTML page has no visible text (is it rendered by a script?): quotes cannot be checked against it"
    assert extract_text(b"", "text/html") == Extracted("", "html", None, warning)
    assert extract_text(b"\xef\xbb\xbf", "text/html") == Extracted("", "html", "utf-8", warning)
    assert extract_text(b"<!-- only a comment -->", "text/html") == Extracted("", "html", "ascii", warning)
    assert extract_text(b"<div id=app></div><script>render()</script>", "text/html").warning == warning


# --- PDF ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/pdf", None, "application/octet-stream"])
def test_extract_pdf_fixture(content_type: str | None) -> None:
    assert extract_text(_fixture("page.pdf"), content_type) == Extracted(PDF_TEXT, "pdf", None, None)


def _encrypted(user_password: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_fixture("page.pdf"))))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_extract_pdf_encrypted_warns() -> None:
    assert extract_text(_encrypted("secret"), "application/pdf") == Extracted(
        "", "pdf", None, "the PDF is encrypted with a password: quotes cannot be checked against it"
    )


def test_extract_pdf_encrypted_with_empty_password_is_read() -> None:
    assert extract_text(_encrypted(""), "application/pdf") == Extracted(PDF_TEXT, "pdf", None, None)


@pytest.mark.parametrize("keep", [20, 400, -30])
def test_extract_pdf_truncated_warns(keep: int) -> None:
    assert extract_text(_fixture("page.pdf")[:keep], "application/pdf") == Extracted(
        "",
        "pdf",
        None,
        "the PDF could not be read (PdfStreamError: Stream has ended unexpectedly): quotes cannot be checked against it",
    )


def test_extract_pdf_not_a_pdf_warns() -> None:
    got = extract_text(b"<html>login required</html>", "application/pdf")
    assert got.text == "" and got.kind == "pdf" and got.encoding is None
    assert got.warning is not None and got.warning.startswith("the PDF could not be read (")


def test_extract_pdf_without_text_layer_warns() -> None:
    data = _make_fixtures().pdf([""])
    assert extract_text(data, "application/pdf") == Extracted(
        "", "pdf", None, "the PDF has no text layer (a scan?): quotes cannot be checked against it"
    )


# --- plain text --------------------------------------------------------------------------------

PLAIN_TEXT = (
    "Kumo Engine 3 release notes (fictional)\n\nThe maximum input length is 256,000 tokens.\n"
    "クモエンジン 3 の最大入力長は 256,000 トークンです。\n"
)


def test_extract_plain_fixture() -> None:
    assert extract_text(_fixture("plain.txt"), "text/plain; charset=utf-8") == Extracted(
        PLAIN_TEXT, "text", "utf-8", None
    )
    assert extract_text(_fixture("plain.txt"), "text/plain") == Extracted(PLAIN_TEXT, "text", "utf_8", None)
    assert extract_text(_fixture("plain.txt"), None) == Extracted(PLAIN_TEXT, "text", "utf_8", None)


def test_extract_plain_charset_parameter() -> None:
    data = "クモ\r\n～\rend".encode("cp932")
    assert extract_text(data, "text/plain; charset=Shift_JIS") == Extracted("クモ\n\uff5e\nend", "text", "cp932", None)


def test_extract_plain_bom() -> None:
    data = b"\xff\xfe" + "héllo\r\nクモ".encode("utf-16-le")
    assert extract_text(data, "text/plain") == Extracted("héllo\nクモ", "text", "utf-16le", None)
    assert extract_text(b"\xef\xbb\xbfabc", "text/csv") == Extracted("abc", "text", "utf-8", None)
    assert extract_text(b"\xef\xbb\xbfabc", "text/plain; charset=utf-8") == Extracted("abc", "text", "utf-8", None)


def test_extract_plain_invalid_bytes_for_charset() -> None:
    assert extract_text(b"a\xffb", "text/plain; charset=utf-8") == Extracted(
        "a\ufffdb", "text", "utf-8", "the text is not valid utf-8; invalid bytes were replaced with U+FFFD"
    )


def test_extract_plain_unknown_charset_is_detected() -> None:
    assert extract_text(b"plain ascii", "text/plain; charset=bogus") == Extracted(
        "plain ascii", "text", "ascii", "unknown charset 'bogus' ignored"
    )


# --- other content and sniffing ----------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


@pytest.mark.parametrize(
    "content_type", ["image/png", "application/zip", "application/json; charset=utf-8", "video/mp4"]
)
def test_extract_other_content_type_warns(content_type: str) -> None:
    mime = content_type.split(";")[0]
    assert extract_text(b"<html><p>not looked at</p></html>", content_type) == Extracted(
        "", "other", None, f"no text extracted from content type {mime}: {OTHER}"
    )


def test_extract_binary_without_a_usable_type_warns() -> None:
    assert extract_text(PNG, "application/octet-stream") == Extracted(
        "",
        "other",
        None,
        f"no text extracted from content type application/octet-stream that is not HTML, PDF or text: {OTHER}",
    )
    assert extract_text(PNG, None) == Extracted(
        "", "other", None, f"no text extracted from a file that is not HTML, PDF or text: {OTHER}"
    )


@pytest.mark.parametrize(
    "data",
    [
        b"  \n<!DOCTYPE html><p>sniffed</p>",
        b"\xef\xbb\xbf<html><p>sniffed</p></html>",
        b"<!-- saved from url=(0014)about:internet -->\n<p>sniffed</p>",
        b"<HTML>\n<p>sniffed</p>",
        b"\xff\xfe" + "<html><p>sniffed</p>".encode("utf-16-le"),
    ],
)
def test_extract_sniffs_html(data: bytes) -> None:
    for content_type in (None, "", "application/octet-stream"):
        got = extract_text(data, content_type)
        assert (got.text, got.kind) == ("sniffed", "html")


def test_extract_sniffs_text_when_not_markup() -> None:
    assert extract_text(b"<htmlx> is not a tag we know\n", None) == Extracted(
        "<htmlx> is not a tag we know\n", "text", "ascii", None
    )
    assert extract_text(b"", None) == Extracted("", "text", None, None)


# --- import cost and robustness ----------------------------------------------------------------


def test_extract_imports_are_lazy() -> None:
    code = (
        "import sys, claim_evidence, claim_evidence._sources.extract, claim_evidence._snapshots.store; "
        "print([m for m in ('lxml', 'bs4', 'pypdf', 'charset_normalizer') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.stdout == "[]\n", done.stderr


def test_extract_labelled_page_without_bom_never_imports_bs4() -> None:
    """A page whose charset is known and whose first byte starts no byte-order mark is decoded without
    bs4 (its BOM lookup is skipped, its ``<meta>`` search never reached); a page with a mark still asks bs4."""
    code = (
        "import sys; from claim_evidence._sources.extract import extract_text; "
        "html = extract_text(b'<p>\\xe6\\x97\\xa5</p>', 'text/html; charset=utf-8'); "
        "plain = extract_text(b'plain', 'text/plain; charset=utf-8'); "
        "before = 'bs4' in sys.modules; "
        "marked = extract_text(b'\\xef\\xbb\\xbf<p>x</p>', 'text/html'); "
        "print(html.text, plain.text, before, marked.encoding, 'bs4' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert (done.stdout, done.stderr) == ("日 plain False utf-8 True\n", "")


def test_extract_strip_bom_answers_as_bs4_for_every_first_byte() -> None:
    """The precheck before bs4's BOM lookup (``_strip_bom``) gives bs4's own answer whatever the bytes."""
    from bs4.dammit import EncodingDetector

    tails = [b"", b"\x00", b"\x00\x00", b"\xbb", b"\xbb\xbf<p>", b"\xfe<p>", b"\xff<p>", b"\xfe\x00\x00x"]
    tails += [b"\x00\xfe\xff<", b"\xfe", b"\xfe\x00", b"<p>x</p>"]
    samples = [b"", *(bytes([first]) + tail for first in range(256) for tail in tails)]
    assert [_strip_bom(data) for data in samples] == [EncodingDetector.strip_byte_order_mark(data) for data in samples]


CONTENT_TYPES = [
    None,
    "",
    "text/html",
    "text/html; charset=utf-8",
    "text/html; charset=shift_jis",
    "text/html; charset=utf-16",
    "text/html; charset=unicode_escape",
    "text/html; charset=",
    "application/xhtml+xml",
    "application/pdf",
    "text/plain",
    "text/plain; charset=utf-7",
    "text/plain; charset=euc-jp",
    "text/plain; charset=base64",
    "application/octet-stream",
    "image/png",
    ";",
    "text/",
    'text/plain; charset="',
    "TEXT/HTML;CHARSET=X",
]
PREFIXES = [
    b"",
    b"%PDF-1.4\n",
    b"<!doctype html>",
    b"<html>",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xfe\xff\x00<",
    b"<meta charset=utf-16>",
]


@settings(max_examples=400, deadline=None)
@given(
    prefix=st.sampled_from(PREFIXES),
    body=st.binary(max_size=600) | st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    content_type=st.sampled_from(CONTENT_TYPES) | st.text(max_size=40),
)
def test_extract_never_raises(prefix: bytes, body: bytes, content_type: str | None) -> None:
    got = extract_text(prefix + body, content_type)
    assert isinstance(got, Extracted)
    assert got.kind in ("html", "pdf", "text", "other")
    assert "\r" not in got.text
    if got.kind in ("html", "pdf"):
        assert "" not in got.text.split("\n") or got.text == ""
    if got.kind == "other":
        assert got.text == "" and got.warning is not None


_NOISY = (
    "import sys; from pathlib import Path; from claim_evidence._sources.extract import extract_text; {setup}"
    "pdf = Path('tests/data/snapshots/page.pdf').read_bytes(); "
    "print(extract_text(pdf[:-30], 'application/pdf').kind, extract_text(bytes(range(256)), 'text/html').kind)"
)


def test_extract_dependency_logs_stay_off_stderr_unless_configured() -> None:
    quiet = subprocess.run(
        [sys.executable, "-c", _NOISY.format(setup="")], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert (quiet.stdout, quiet.stderr) == ("pdf html\n", "")
    setup = "import logging; logging.basicConfig(format='%(name)s: %(message)s'); "
    logged = subprocess.run(
        [sys.executable, "-c", _NOISY.format(setup=setup)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert logged.stdout == "pdf html\n"
    assert "pypdf._reader: EOF marker not found" in logged.stderr.splitlines()
    assert (
        "bs4.dammit: Some characters could not be decoded, and were replaced with REPLACEMENT CHARACTER."
        in logged.stderr.splitlines()
    )
