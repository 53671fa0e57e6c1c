"""PDF text under a bound: a hostile PDF costs at most the deadline and the memory cap, and says so."""

from __future__ import annotations

import functools
import json
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._snapshots.store import SnapshotStore
from claim_evidence._sources import pdftext as _pdftext
from claim_evidence._sources.extract import Extracted, extract_text

from ...conftest import ROOT
from .test_extract import _make_fixtures

PDF_TEXT = "Kumo Engine 3 accepts up to 256,000 tokens.\nSecond page text."
OTHER = "quotes cannot be checked against it"


def _hostile(content: bytes, pages: int = 1) -> bytes:
    """A small, valid PDF whose pages each run ``content``, packed with FlateDecode (it shrinks ~1,000 to 1)."""
    packed = zlib.compress(b"BT /F1 12 Tf 72 720 Td\n" + content + b"\nET\n", 9)
    font = 3 + 2 * pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    for index in range(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _make_fixtures().assemble(objects, b"%PDF-1.4\n")


@functools.cache
def _slow() -> bytes:
    """Unbounded, pypdf takes ~13 s on this 4 KB file (two 1 MiB content streams of ``(x) Tj``) and returns text."""
    return _hostile(b"(x) Tj\n" * (2**20 // 7), pages=2)


def _large() -> bytes:
    """Unbounded, ~19 s and ~160 MB for 68 KB: a 70 MB content stream of spaces (pypdf's own cap on a stream is 75 MB)."""
    return _hostile(b"(x) Tj" + b" " * 70_000_000)


def _too_costly(seconds: str, memory: str) -> Extracted:
    return Extracted(
        "", "pdf", None, f"the PDF was not extracted: too costly (over {seconds} s or {memory} MiB); {OTHER}"
    )


def test_pdftext_over_the_deadline_is_too_costly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdftext, "PDF_SECONDS", 2.0)
    started = time.monotonic()
    got = extract_text(_slow(), "application/pdf")
    elapsed = time.monotonic() - started
    assert got == _too_costly("2", "512")
    assert elapsed < 30, elapsed


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux; elsewhere the deadline alone bounds"
)
def test_pdftext_over_the_memory_cap_is_too_costly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdftext, "PDF_MEMORY", 96 * 2**20)
    monkeypatch.setattr(_pdftext, "PDF_SECONDS", 60.0)  # the memory cap, not the deadline, must stop it
    started = time.monotonic()
    got = extract_text(_large(), None)
    elapsed = time.monotonic() - started
    assert got == _too_costly("60", "96")
    assert elapsed < 30, elapsed


def test_pdftext_default_bound_is_20_s_and_512_mib() -> None:
    assert (_pdftext.PDF_SECONDS, _pdftext.PDF_MEMORY) == (20.0, 512 * 2**20)
    assert _pdftext._too_costly().warning == f"the PDF was not extracted: too costly (over 20 s or 512 MiB); {OTHER}"


def test_pdftext_child_reads_the_same_text_as_the_reader_in_process() -> None:
    data = (ROOT / "tests" / "data" / "snapshots" / "page.pdf").read_bytes()
    assert _pdftext.pdf_text(data) == _pdftext.read_pdf(data) == Extracted(PDF_TEXT, "pdf", None, None)


def test_pdftext_text_outside_utf8_survives_the_pipe() -> None:
    """A lone surrogate (a broken ToUnicode map can give one) comes back as pypdf gave it, not mangled."""
    reply = json.dumps({"text": "a\udc80b", "warning": None, "logs": []}, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )
    assert _pdftext._parse_reply(reply) == {"text": "a\udc80b", "warning": None, "logs": []}


def test_pdftext_child_that_dies_is_a_reason_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdftext, "_CHILD", "import sys; sys.exit(3)")
    assert _pdftext.pdf_text(b"%PDF-1.4\n") == Extracted(
        "", "pdf", None, f"the PDF could not be read (the reading process stopped: exit status 3): {OTHER}"
    )


def test_pdftext_child_out_of_memory_outside_pypdf_is_too_costly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdftext, "_CHILD", "raise MemoryError")
    assert _pdftext.pdf_text(b"%PDF-1.4\n") == _too_costly("20", "512")


def test_pdftext_child_reply_garbled_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pdftext, "_CHILD", "import sys; sys.stdout.write('[1]')")
    got = _pdftext.pdf_text(b"%PDF-1.4\n")
    assert got == Extracted(
        "", "pdf", None, f"the PDF could not be read (the reading process gave no usable reply): {OTHER}"
    )


def test_pdftext_without_an_interpreter_reads_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(ROOT / "no-such-python"))
    data = (ROOT / "tests" / "data" / "snapshots" / "page.pdf").read_bytes()
    assert _pdftext.pdf_text(data) == Extracted(PDF_TEXT, "pdf", None, None)


def test_pdftext_snapshot_of_a_costly_pdf_is_stored_without_text(
    monkeypatch: pytest.MonkeyPatch, run: Any, tmp_path: Path
) -> None:
    """The bytes are what the reviewer read, so they are stored; the output says why there is no text."""
    monkeypatch.setattr(_pdftext, "PDF_SECONDS", 2.0)
    copy = tmp_path / "report.pdf"
    copy.write_bytes(_slow())
    bundle = {
        "version": 1,
        "sources": [{"id": "s", "publisher": "架空社", "title": "s", "url": "https://example.com/report"}],
        "claims": [],
    }
    path = tmp_path / "b.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    code, out, err = run(
        "sources",
        "snapshot",
        str(path),
        "--source",
        "s",
        "--file",
        str(copy),
        "--snapshot-dir",
        str(tmp_path / "snaps"),
        "--retrieved-at",
        "2026-10-02",
    )
    assert (code, err) == (0, "")
    snapshot = json.loads(path.read_text(encoding="utf-8"))["sources"][0]["snapshot"]
    assert snapshot["content_type"] == "application/pdf"
    store = SnapshotStore(tmp_path / "snaps")
    assert store.check(snapshot["sha256"]) == "ok"
    assert store.bin_path(snapshot["sha256"]).read_bytes() == _slow()
    assert store.text(snapshot["sha256"]) == ""
    assert out.splitlines()[0] == (
        f"SNAPSHOT source s (https://example.com/report): stored {snapshot['sha256'][:12]}… (application/pdf, {len(_slow()):,} bytes, "
        f"0 characters of text); warning: the PDF was not extracted: too costly (over 2 s or 512 MiB); {OTHER}"
    )


def test_pdftext_child_ignores_modules_in_the_working_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A site checkout with a ``json.py`` must not run it: the child's path does not start with the working folder."""
    (tmp_path / "json.py").write_text("raise SystemExit('imported the working folder')\n", encoding="utf-8")
    (tmp_path / "pypdf.py").write_text("raise SystemExit('imported the working folder')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    data = (ROOT / "tests" / "data" / "snapshots" / "page.pdf").read_bytes()
    assert _pdftext.pdf_text(data) == Extracted(PDF_TEXT, "pdf", None, None)
