"""Write the snapshot fixtures in this folder (run by hand; commit the script and its outputs together).

    .venv/bin/python tests/data/snapshots/make_fixtures.py

Everything here is fictional. The PDF is written object by object so that no
PDF library is needed to make it, only to read it.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

_JAPANESE_BODY = """\
<h1>クモエンジン 3 の仕様</h1>
<p>クモエンジン 3 の最大入力長は 256,000 トークンです。</p>
<p>価格は 1,000～2,000 円です。</p>
<p>この文書は架空の製品についての説明であり、実在の製品とは関係ありません。</p>
"""

SHIFT_JIS = (
    """\
<!DOCTYPE html>
<html lang="ja">
<head>
<meta charset="Shift_JIS">
<title>クモエンジン 3</title>
<style>body { font-family: "架空のスタイル"; }</style>
<script>var hidden = "スクリプトの文字列";</script>
</head>
<body>
"""
    + _JAPANESE_BODY
    + """\
</body>
</html>
"""
)

# No charset anywhere: detection must recognise EUC-JP from the text alone.
EUC_JP = """\
<html>
<head>
<title>架空の製品説明</title>
</head>
<body>
<h1>クモエンジン 3 の仕様</h1>
<p>クモエンジン 3 の最大入力長は 256,000 トークンです。</p>
<p>この文書は架空の製品についての説明であり、実在の製品とは関係ありません。</p>
<p>処理速度と精度は固定条件で測定されました。測定の条件と結果は次の表のとおりです。</p>
<p>日本語の文章が十分にあれば、文字コードの判定は安定します。そのため、この段落は少し長めに書かれています。</p>
</body>
</html>
"""

# The BOM says UTF-8; the <meta> wrongly says windows-1252: the BOM wins.
UTF8_BOM = """\
<!DOCTYPE html>
<html>
<head>
<meta charset="windows-1252">
<title>Café résumé</title>
</head>
<body>
<p>Kumo Engine 3 accepts up to 256,000 tokens — “fictional” figures.</p>
<p>クモエンジン 3 の最大入力長は 256,000 トークンです。</p>
</body>
</html>
"""

PLAIN = "Kumo Engine 3 release notes (fictional)\r\n\r\nThe maximum input length is 256,000 tokens.\r\nクモエンジン 3 の最大入力長は 256,000 トークンです。\r\n"

PDF_PAGES = ["Kumo Engine 3 accepts up to 256,000 tokens.", "Second page text."]


def pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF: one Helvetica text line per page, a correct xref table."""
    count = len(pages)
    font = 3 + 2 * count
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode()]
    for index, line in enumerate(pages):
        page = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects += [page.encode(), b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)]
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    return assemble(objects, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")


def assemble(objects: list[bytes], header: bytes) -> bytes:
    """A PDF file of numbered ``objects`` (1 the catalog), with its cross-reference table and trailer."""
    out = bytearray(header)
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def fixtures() -> dict[str, bytes]:
    return {
        "shift_jis.html": SHIFT_JIS.encode("cp932"),
        "euc_jp.html": EUC_JP.encode("euc_jp"),
        "utf8_bom.html": b"\xef\xbb\xbf" + UTF8_BOM.encode("utf-8"),
        "page.pdf": pdf(PDF_PAGES),
        "plain.txt": PLAIN.encode("utf-8"),
    }


def main() -> None:
    for name, data in fixtures().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
