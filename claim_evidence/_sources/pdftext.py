"""The text of a PDF, read by pypdf in a child process under a time and memory bound.

A PDF's cost is not bounded by its size: a 62 KB file of two 10 MiB content
streams (``FlateDecode`` packs a repeated ``(x) Tj`` into almost nothing) kept
pypdf busy for 92 s and 333 MB (issue #31), and a file under the fetch's size
cap could run for hours. Nothing in pypdf can be interrupted from the
outside in the same process (pure Python, no cancellation points), so the
reading happens in a child: a wall-clock deadline (``PDF_SECONDS``) kills it,
and ``RLIMIT_AS`` (``PDF_MEMORY``, where the platform has ``resource``) makes an
allocation past the cap a ``MemoryError`` there, not in the parent. Either way
the outcome is a value: no text, and a warning that the PDF was too costly.

The child is ``python -c`` importing this module, not ``multiprocessing``: its
"spawn" re-imports the caller's ``__main__``, and a user's build script without
a ``__main__`` guard would run again in every child. The bytes go on stdin, the
text comes back as JSON on stdout (never pickle: the child has read hostile
bytes), with pypdf's log records, which the parent replays to its own
``pypdf`` loggers so that logging configured by the application sees them as
before.
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import signal
import subprocess
import sys
from typing import Any

from .extract import Extracted, _lines, _quiet

# The bound: generous for any real document (a 300-page report reads in a few
# seconds and well under 100 MiB), tight enough that a hostile one costs little.
# Module constants, so a caller (or a test) can set others.
PDF_SECONDS = 20.0
PDF_MEMORY = 512 * 2**20

# A hostile file can log a line per object: the parent replays at most this many.
_MAX_LOG_RECORDS = 200
# What a handler's format can show of a record, besides the message (formatted in the child).
_RECORD_FIELDS = (
    "name",
    "levelno",
    "levelname",
    "pathname",
    "filename",
    "module",
    "lineno",
    "funcName",
    "created",
    "msecs",
)
# Run by the child (with -P: the working folder is not on its path, so a json.py or pypdf.py in a
# checked-out site cannot stand in for the real one); the package is imported from where the parent has it.
_CHILD = "import sys; sys.path.insert(0, sys.argv[1]); from claim_evidence._sources.pdftext import main; sys.exit(main(sys.argv[2:]))"
_PACKAGE_ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)  # the folder holding claim_evidence/
# Deaths that mean the bound was hit: the CPU limit (set as a backstop for an
# orphaned child) and the kernel's out-of-memory killer.
_COSTLY_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGXCPU", "SIGKILL") if hasattr(signal, name))


def pdf_text(data: bytes) -> Extracted:
    """The text of the PDF ``data``, read in a bounded child; a warning instead when the bound is hit.

    Never raises. When no child can be started at all (no interpreter at
    ``sys.executable``, as in some embedded Pythons), the PDF is read in this
    process, unbounded, as before the bound existed: losing every PDF's text
    would be worse than the hostile case there.
    """
    level = logging.getLogger("pypdf").getEffectiveLevel()
    command = [sys.executable, "-P", "-c", _CHILD, _PACKAGE_ROOT, str(PDF_MEMORY), str(PDF_SECONDS), str(level)]
    try:
        done = subprocess.run(command, input=data, capture_output=True, timeout=PDF_SECONDS, check=False)
    except subprocess.TimeoutExpired:  # run() has killed the child
        return _too_costly()
    except (OSError, ValueError):  # ValueError: an empty sys.executable on some platforms
        return _in_process(data)
    reply = _parse_reply(done.stdout) if done.returncode == 0 else None
    if reply is None:
        return _died(done.returncode, done.stderr)
    _replay(reply.get("logs"))
    if reply.get("costly"):
        return _too_costly()
    text, warning = reply.get("text"), reply.get("warning")
    if not isinstance(text, str) or not (warning is None or isinstance(warning, str)):
        return _died(done.returncode, done.stderr)
    return Extracted(text, "pdf", None, warning)


def _too_costly() -> Extracted:
    seconds = f"{PDF_SECONDS:g}"
    memory = f"{PDF_MEMORY / 2**20:g} MiB"
    return Extracted(
        "",
        "pdf",
        None,
        f"the PDF was not extracted: too costly (over {seconds} s or {memory}); quotes cannot be checked against it",
    )


def _died(returncode: int, stderr: bytes) -> Extracted:
    """The child ended without a reply: the bound if the kernel or the allocator stopped it, else a crash of the reader."""
    last = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    if -returncode in _COSTLY_SIGNALS or last[0].startswith("MemoryError"):
        return _too_costly()
    if returncode < 0:
        how = f"the reading process stopped: signal {-returncode}"
    elif returncode:
        how = f"the reading process stopped: exit status {returncode}"
    else:
        how = "the reading process gave no usable reply"
    return Extracted("", "pdf", None, f"the PDF could not be read ({how}): quotes cannot be checked against it")


def _parse_reply(stdout: bytes) -> dict[str, Any] | None:
    try:
        reply = json.loads(stdout.decode("utf-8", "surrogatepass"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError alike
        return None
    return reply if isinstance(reply, dict) else None


def _replay(records: Any) -> None:
    """Hand the child's pypdf log records to this process's loggers, as if pypdf had logged them here."""
    if not isinstance(records, list):
        return
    _quiet("pypdf")
    for fields in records[:_MAX_LOG_RECORDS]:
        if (
            not isinstance(fields, dict)
            or not isinstance(fields.get("name"), str)
            or not isinstance(fields.get("levelno"), int)
        ):
            continue
        logger = logging.getLogger(fields["name"])
        if logger.isEnabledFor(fields["levelno"]):
            logger.handle(logging.makeLogRecord(fields))


def _in_process(data: bytes) -> Extracted:
    try:
        return read_pdf(data)
    except MemoryError:
        return _too_costly()


# --- in the child ----------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    """The child: limits set first, then the PDF from stdin read, and the reply written to stdout."""
    memory, seconds, level = int(argv[0]), float(argv[1]), int(argv[2])
    _limit(memory, seconds)
    records = _Collect()
    pypdf_logger = logging.getLogger("pypdf")
    pypdf_logger.addHandler(records)
    pypdf_logger.setLevel(level)
    pypdf_logger.propagate = False  # nothing on the child's stderr: the parent decides where records go
    data = sys.stdin.buffer.read()
    try:
        got = read_pdf(data)
        reply: dict[str, Any] = {"text": got.text, "warning": got.warning}
    except MemoryError:
        reply = {"costly": True}
    reply["logs"] = records.records
    sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return 0


def _limit(memory: int, seconds: float) -> None:
    """Cap the address space, and CPU time a little past the deadline: the parent kills the child at the
    deadline, the CPU limit ends it even if the parent died first. Time bound only without ``resource``."""
    try:
        import resource
    except ImportError:  # Windows
        return
    for which, soft in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, math.ceil(seconds) + 1)):
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):  # e.g. macOS refuses RLIMIT_AS: the deadline still holds
            pass


class _Collect(logging.Handler):
    """Keeps pypdf's records (at most ``_MAX_LOG_RECORDS``) as JSON-ready fields for the parent."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) >= _MAX_LOG_RECORDS:
            return
        fields = {key: getattr(record, key) for key in _RECORD_FIELDS}
        fields["msg"] = record.getMessage()
        self.records.append(fields)


def read_pdf(data: bytes) -> Extracted:
    """pypdf's text of ``data``, one line per text line, whitespace folded; unbounded (the child's work).

    pypdf raises many exception types on damaged files (and its dependencies
    more): any failure means "no text", reported with its reason, except
    ``MemoryError``, which is the memory bound and is the caller's to report.
    """
    _quiet("pypdf")
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _decrypt(reader):
            return Extracted(
                "", "pdf", None, "the PDF is encrypted with a password: quotes cannot be checked against it"
            )
        pages = list(reader.pages)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - see above
        return Extracted(
            "", "pdf", None, f"the PDF could not be read ({_reason(exc)}): quotes cannot be checked against it"
        )
    texts: list[str] = []
    failed = 0
    for page in pages:
        try:
            texts.extend(_lines(page.extract_text()))
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 - one bad page should not lose the others
            failed += 1
    text = "\n".join(texts)
    warning = None
    if failed:
        warning = f"{failed} of {len(pages)} PDF pages could not be read: quotes on them cannot be checked"
    elif not text:
        warning = "the PDF has no text layer (a scan?): quotes cannot be checked against it"
    return Extracted(text, "pdf", None, warning)


def _decrypt(reader: Any) -> bool:
    """Open a PDF encrypted with an empty user password, as every viewer does without asking."""
    try:
        return bool(reader.decrypt(""))
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - e.g. AES without the optional crypto package
        return False


def _reason(exc: Exception) -> str:
    message = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {message[0]}" if message else type(exc).__name__
