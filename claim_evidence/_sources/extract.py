"""The text a reviewer read, recovered from the bytes of a fetched source.

Quotes are checked offline against this text, so it should be what a browser
showed: the bytes decoded as a browser decodes them, scripts, styles and other
invisible content left out, block boundaries kept as line breaks.

Decoding follows the browser (WHATWG) order: a byte-order mark, then the HTTP
charset, then ``<meta>`` (or an XML declaration), and only without any of
them, detection. A declared encoding is authoritative — bytes invalid in it
become U+FFFD, as in a browser, instead of sending the whole page to a guess
that may turn every other character into mojibake. The pieces are Beautiful
Soup's (``EncodingDetector`` finds the BOM and the ``<meta>``; ``UnicodeDammit``
with charset-normalizer detects), not re-implemented here.

Extraction never raises: a source that yields no checkable text is a value
(``text=""`` and a ``warning`` saying why), so one odd source cannot stop a
snapshot run. lxml, bs4, pypdf and charset-normalizer are imported inside the
functions that use them, so ``import claim_evidence`` stays cheap. PDFs are
read in a child process with a time and memory bound (``_pdftext``); HTML and
text are not, since their cost is linear in the (capped) size of the body.
"""

from __future__ import annotations

import codecs
import functools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .._core.textio import BOM

if TYPE_CHECKING:
    from bs4.dammit import UnicodeDammit

Kind = Literal["html", "pdf", "text", "other"]


@dataclass(frozen=True)
class Extracted:
    """Text extracted from one source body, and how it was obtained.

    ``encoding`` is the Python codec the bytes were decoded with (``None`` for
    PDF, empty and undecodable bodies); ``warning`` says why quotes may not be
    checkable against ``text`` (``None`` when nothing is amiss).
    """

    text: str
    kind: Kind
    encoding: str | None
    warning: str | None


HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
# A server that does not know what it sends: look at the bytes, as a browser would.
SNIFFED_TYPES = frozenset(
    {"", "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown"}
)

# Invisible in a rendered page (rt/rp: ruby readings, as the page check treats them). ``head``
# too: its <title> usually repeats the <h1>, and a quote found twice is ambiguous.
HIDDEN = frozenset({"head", "script", "style", "template", "noscript", "noembed", "noframes", "iframe", "rt", "rp"})
# Their boundaries are line breaks for a reader.
BLOCKS = frozenset(
    "address article aside blockquote body br caption center dd details dialog dir div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li listing main menu nav ol option "
    "p pre search section summary table tbody td tfoot th thead tr ul".split()
)

# Browsers decode these labels with a superset (WHATWG Encoding Standard); Python's
# codec of the same name maps some bytes differently (Shift_JIS 0x8160 is U+301C
# in Python, U+FF5E in a browser) or rejects them, and a quote copied from the
# browser would then not match. Keys are lowercase with '-' for '_'.
_BROWSER_CODECS = {
    **dict.fromkeys("shift-jis sjis x-sjis ms-kanji csshiftjis windows-31j ms932 cp932".split(), "cp932"),
    **dict.fromkeys(
        "iso-8859-1 iso8859-1 iso-ir-100 latin1 latin-1 l1 cp819 ibm819 csisolatin1 windows-1252 cp1252 x-cp1252".split(),
        "windows-1252",
    ),
    **dict.fromkeys("gb2312 gb-2312 gb-2312-80 csgb2312 iso-ir-58 chinese gbk x-gbk cp936 gb18030".split(), "gb18030"),
    **dict.fromkeys(
        "euc-kr ks-c-5601-1987 ks-c-5601-1989 ksc5601 ksc-5601 korean csksc56011987 iso-ir-149 windows-949 cp949".split(),
        "cp949",
    ),
    **dict.fromkeys("iso-8859-9 iso8859-9 iso-ir-148 latin5 l5 csisolatin5 windows-1254 cp1254".split(), "cp1254"),
    **dict.fromkeys("tis-620 iso-8859-11 iso8859-11 dos-874 windows-874 cp874".split(), "cp874"),
}
# Python-only codecs no browser applies to a page: a <meta charset="unicode_escape">
# must not turn ``\x41`` in the text into ``A``.
_REFUSED_CODECS = frozenset({"utf-7", "unicode-escape", "raw-unicode-escape", "punycode", "idna", "undefined"})
# A page cannot state in ASCII that it is UTF-16; browsers read such a <meta> as UTF-8.
_WIDE_CODECS = frozenset({"utf-16", "utf-16-be", "utf-16-le", "utf-32", "utf-32-be", "utf-32-le"})

_CHARSET_PARAM = re.compile(r";\s*charset\s*=\s*(\"?)([^\";]*)\1", re.IGNORECASE)
# WHATWG MIME sniffing: the "HTML" patterns, each ending in a space or '>'.
_HTML_START = re.compile(
    rb"<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]", re.IGNORECASE
)
# WHATWG "binary data bytes": a body with one of these near the start is not text.
_BINARY_BYTES = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
_SNIFF_LENGTH = 1445
_SPACE = re.compile(r"\s+")


def extract_text(data: bytes, content_type: str | None) -> Extracted:
    """Extract the text of ``data`` served as ``content_type`` (``None``: a local file, sniffed).

    Never raises: unusable bodies come back with ``text=""`` and a warning.
    """
    mime, charset = _parse_content_type(content_type)
    if mime in HTML_TYPES:
        return _html(data, charset)
    if mime in PDF_TYPES:
        return _pdf(data)
    if mime.startswith("text/"):
        return _plain(data, charset)
    if mime in SNIFFED_TYPES:
        return _sniffed(data, f"content type {mime}" if mime else "a file")
    return _other(f"content type {mime}")


def _parse_content_type(content_type: str | None) -> tuple[str, str | None]:
    if not content_type:
        return "", None
    mime = content_type.split(";", 1)[0].strip().lower()
    found = _CHARSET_PARAM.search(content_type)
    charset = found.group(2).strip() if found else ""
    return mime, charset or None


def _sniffed(data: bytes, what: str) -> Extracted:
    if data.startswith(b"%PDF-"):
        return _pdf(data)
    head, bom = _strip_bom(data[:_SNIFF_LENGTH])
    if bom is not None:
        # A UTF-16/32 page has its markup in wide characters: look at it decoded.
        prefix = head.decode(bom, "ignore").lstrip().encode("utf-8", "replace")
    else:
        prefix = head.lstrip(b"\t\n\x0c\r ")
    if _HTML_START.match(prefix):
        return _html(data, None)
    if bom is None and _BINARY_BYTES.search(head):
        return _other(f"{what} that is not HTML, PDF or text")
    return _plain(data, None)


def _other(what: str) -> Extracted:
    return Extracted("", "other", None, f"no text extracted from {what}: quotes cannot be checked against it")


# --- decoding --------------------------------------------------------------------------------


# The first byte of every byte-order mark ``EncodingDetector.strip_byte_order_mark`` recognises (bs4/dammit.py:
# UTF-16 FE FF and FF FE, UTF-8 EF BB BF, UTF-32 00 00 FE FF and FF FE 00 00).
_BOM_FIRST_BYTES = b"\x00\xef\xfe\xff"


def _strip_bom(data: bytes) -> tuple[bytes, str | None]:
    """``EncodingDetector.strip_byte_order_mark(data)``: ``data`` without its byte-order mark, and the
    encoding the mark names (``None``: no mark).

    bs4 is imported only when ``data`` starts with a byte some mark starts with. The precheck is sound
    because bs4 returns ``(data, None)`` unchanged for any other first byte (and for empty ``data``):
    each of its marks is compared from the first byte on. Importing bs4 costs a snapshot's first
    extraction some 50 ms (it loads soupsieve); most pages have no mark. Which marks there are, and
    what each means, stays bs4's."""
    if not data or data[0] not in _BOM_FIRST_BYTES:
        return data, None
    from bs4.dammit import EncodingDetector

    return EncodingDetector.strip_byte_order_mark(data)


def _browser_codec(label: str) -> str | None:
    """The Python codec a browser's decoder for ``label`` matches, or ``None`` when unusable."""
    name = label.strip().lower()
    name = _BROWSER_CODECS.get(name.replace("_", "-"), name)
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    if info.name in _REFUSED_CODECS or not getattr(info, "_is_text_encoding", True):
        return None
    return name


class _Decoded:
    """Text decoded from a body, the codec used (``None``: nothing to decode) and warnings."""

    def __init__(self, text: str, encoding: str | None, warnings: list[str]) -> None:
        self.text = text.lstrip(BOM)
        self.encoding = encoding
        self.warning = "; ".join(warnings) or None


def _decode(data: bytes, charset: str | None, html: bool) -> _Decoded | None:
    """Decode by the first usable label, else detect; ``None`` when a plain body is not text at all.

    A labelled body is decoded with its label even when some bytes are invalid
    in it: a browser shows U+FFFD for them and so do we.
    """
    warnings = []
    if charset and _browser_codec(charset) is None:
        warnings.append(f"unknown charset {charset!r} ignored")
    body, bom = _strip_bom(data)
    for label in _labels(body, bom, charset, html):
        codec = _browser_codec(label) if label else None
        if codec is None:
            continue
        try:
            return _Decoded(body.decode(codec), codec, warnings)
        except UnicodeDecodeError:
            warnings.append(
                f"the {'page' if html else 'text'} is not valid {codec}; invalid bytes were replaced with U+FFFD"
            )
            return _Decoded(body.decode(codec, "replace"), codec, warnings)
    if not body:
        return _Decoded("", None, warnings)
    return _detect(body, html, warnings)


def _labels(body: bytes, bom: str | None, charset: str | None, html: bool) -> Iterator[str | None]:
    """The encoding labels in browser order; the ``<meta>`` is only looked for when needed."""
    yield bom
    yield charset
    if html:
        from bs4.dammit import EncodingDetector

        declared = EncodingDetector.find_declared_encoding(body, is_html=True)
        codec = _browser_codec(declared) if declared else None
        if codec and codecs.lookup(codec).name in _WIDE_CODECS:
            declared = "utf-8"
        yield declared


def _detect(body: bytes, html: bool, warnings: list[str]) -> _Decoded | None:
    """Guess the encoding of an unlabelled, non-empty body; ``None`` when plain text is not text at all."""
    if html:
        import charset_normalizer

        _quiet("bs4.dammit")
        # charset-normalizer's guess goes first, as bs4's own guess would: bs4 asks whichever detector is
        # installed (chardet, if anything pulled it in), and the result must not depend on that.
        guess = charset_normalizer.detect(body).get("encoding")
        dammit = _dammit_class()(body, is_html=True, user_encodings=[guess] if isinstance(guess, str) else [])
        if dammit.unicode_markup is None:  # bs4 says it cannot happen: windows-1252 with replacement always works
            return _Decoded(body.decode("utf-8", "replace"), "utf-8", [*warnings, "the page could not be decoded"])
        if dammit.contains_replacement_characters:
            warnings.append(
                f"the page is not valid {dammit.original_encoding}; invalid bytes were replaced with U+FFFD"
            )
        return _Decoded(dammit.unicode_markup, dammit.original_encoding, warnings)
    import charset_normalizer

    best = charset_normalizer.from_bytes(body).best()
    codec = best and (_browser_codec(best.encoding) or best.encoding)
    if not codec:
        return None
    try:
        return _Decoded(body.decode(codec), codec, warnings)
    except (UnicodeDecodeError, LookupError):  # a guess that does not hold after all
        warnings.append("the text encoding could not be determined; decoded as UTF-8 with invalid bytes replaced")
        return _Decoded(body.decode("utf-8", "replace"), "utf-8", warnings)


@functools.cache
def _dammit_class() -> type[UnicodeDammit]:
    """``UnicodeDammit`` with browser codecs for the encodings it tries; built on first use (lazy bs4)."""
    from bs4.dammit import UnicodeDammit

    class BrowserDammit(UnicodeDammit):
        def find_codec(self, charset: str) -> str | None:
            codec = _browser_codec(charset) if charset else None
            # Only unlabelled bodies get here, and no browser guesses UTF-16/32 without a BOM.
            if codec is None or codecs.lookup(codec).name in _WIDE_CODECS:
                return None
            return super().find_codec(codec)

    return BrowserDammit


@functools.cache
def _quiet(logger: str) -> None:
    """Keep a dependency's log records off stderr when the application configured no logging.

    pypdf logs a line per flaw it repairs and bs4 one per replaced byte; with no
    handler anywhere, Python's last-resort handler prints them. A NullHandler
    stops only that: records still propagate to any handler the application adds.
    """
    logging.getLogger(logger).addHandler(logging.NullHandler())


# --- HTML ------------------------------------------------------------------------------------


def _html(data: bytes, charset: str | None) -> Extracted:
    decoded = _decode(data, charset, html=True)
    assert decoded is not None  # HTML detection always ends in windows-1252
    import lxml.etree  # type: ignore[import-untyped]  # no stubs in the dev dependencies
    import lxml.html  # type: ignore[import-untyped]

    # Parsed from UTF-8 bytes with the encoding forced: a str with an XML
    # declaration is refused by lxml, and a <meta> must not re-decode it.
    # huge_tree: without it libxml2 drops every text node of a page nested
    # deeper than 256 elements or with a text node over 10 MB, silently. Even
    # with it libxml2 stops at 2,048 levels of nesting and keeps nothing after
    # that point; that loss is found in the parser's log and said (below).
    parser = lxml.html.HTMLParser(encoding="utf-8", huge_tree=True)
    try:
        root = lxml.html.document_fromstring(decoded.text.encode("utf-8", "replace"), parser=parser)
    except (lxml.etree.ParserError, ValueError):
        lines: list[str] = []  # "Document is empty": nothing but whitespace, comments or declarations
    else:
        lines = _visible_lines(root)
    text = "\n".join(lines)
    warnings = [decoded.warning] if decoded.warning else []
    stopped = _parser_stopped(parser)
    if stopped:
        warnings.append(stopped)
    if not text and not warnings:
        warnings.append(
            "the HTML page has no visible text (is it rendered by a script?): quotes cannot be checked against it"
        )
    return Extracted(text, "html", decoded.encoding, "; ".join(warnings) or None)


def _parser_stopped(parser: Any) -> str | None:
    """Why libxml2 gave up on the rest of the page (a resource limit it keeps even with huge_tree), or None.

    The parser recovers from errors of markup, so only its resource limits lose text; they are
    logged, never raised.
    """
    for entry in parser.error_log:
        if entry.type_name != "ERR_RESOURCE_LIMIT":
            continue
        if "depth" in entry.message.lower():
            return (
                "the page nests elements deeper than the HTML parser goes (2,048 levels): the text from that point on "
                "was not extracted, and quotes there cannot be checked against it"
            )
        return (
            f"the HTML parser stopped early ({' '.join(entry.message.split())}): the text from that point on was not "
            "extracted, and quotes there cannot be checked against it"
        )
    return None


def _visible_lines(root: Any) -> list[str]:
    """The rendered text of ``root``, one line per block, whitespace folded as CSS does.

    An explicit stack, not recursion: libxml2 with ``huge_tree`` keeps up to 2,048 levels, twice
    Python's recursion limit.
    """
    parts: list[str] = []
    pre = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        element, closing = stack.pop()
        tag = element.tag.lower() if isinstance(element.tag, str) else ""  # "": comment or processing instruction
        if closing:
            if tag in BLOCKS:
                parts.append("\n")
            if tag == "pre":
                pre -= 1
            if element.tail and element is not root:
                parts.append(_flow(element.tail, pre))
            continue
        if tag in BLOCKS:
            parts.append("\n")
        stack.append((element, True))
        if not tag or tag in HIDDEN:
            continue
        if tag == "pre":
            pre += 1
        if element.text:
            parts.append(_flow(element.text, pre))
        stack.extend((child, False) for child in reversed(element))
    return _lines("".join(parts))


def _flow(text: str, pre: int) -> str:
    # Outside <pre>, a newline in the source is just a space; inside, a line break.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if pre else text.replace("\n", " ")


def _lines(text: str) -> list[str]:
    folded = (_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return [line for line in folded if line]


# --- PDF -------------------------------------------------------------------------------------


def _pdf(data: bytes) -> Extracted:
    # Read in a child process under a time and memory bound: a PDF's cost is not bounded by its size.
    from .pdftext import pdf_text

    return pdf_text(data)


# --- plain text ------------------------------------------------------------------------------


def _plain(data: bytes, charset: str | None) -> Extracted:
    decoded = _decode(data, charset, html=False)
    if decoded is None:
        return _other("a body that is not text in any known encoding")
    text = decoded.text.replace("\r\n", "\n").replace("\r", "\n")
    return Extracted(text, "text", decoded.encoding, decoded.warning)
