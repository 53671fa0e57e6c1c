"""A real HTTP server on 127.0.0.1 for the tests that fetch: the ``loopback`` fixture.

Use it from any test module::

    from .httpserver import LoopbackServer, Reply, loopback_fixture  # noqa: F401 (the ``loopback`` fixture)

    def test_something(loopback: LoopbackServer) -> None:
        loopback.route("/moved", status=301, headers={"Location": "/stable"})
        url = loopback.url("/moved")                     # http://127.0.0.1:PORT/moved
        other = loopback.url("/stable", host="localhost")  # same server, another host name
        ...
        assert loopback.hits("/moved") == 1
        assert loopback.requests[0].headers["user-agent"].startswith("claim-evidence/")

Built-in routes (a route registered with :meth:`LoopbackServer.route` wins):

- ``/stable``: :data:`STABLE_HTML`, the same bytes every time;
- ``/changing``: different bytes on each request (a counter in the body);
- ``/quote-removed``: first request has :data:`QUOTE`, later ones do not;
- ``/404``, ``/410``, ``/403``, ``/500``: that status, always;
- ``/503-then-ok``: 503 with ``Retry-After: 0`` twice, then ``/stable``'s page;
- ``/429``: always 429 with ``Retry-After: 0``;
- ``/redirect/N``: 302 to ``/redirect/N-1`` (a relative Location), ``/redirect/1`` to ``/stable``;
- ``/redirect-loop``: 302 to itself;
- ``/to-other-host``: 302 to ``http://localhost:PORT/stable``;
- ``/slow`` (``?seconds=``, default 3) and ``/slow-ish`` (default 0.3): sleep, then
  answer; the sleep ends early when the server stops;
- ``/big``: ``?size=`` bytes (default 100 000) in ``?chunk=`` pieces (default 4096),
  chunked, or with a Content-Length when ``?length=1``;
- ``/gzip``: :data:`GZIP_HTML`, sent with ``Content-Encoding: gzip``;
- ``/gzip-stacked``: ``?size=`` zero bytes (default 1 GiB) gzipped ``?layers=`` times
  (default 2) and sent as ``Content-Encoding: gzip, gzip``: a few kilobytes on the
  wire (see :func:`stacked_gzip`);
- ``/drip``: ``?bytes=`` bytes (default 100) of text, one every ``?every=`` seconds
  (default 0.1), with a Content-Length; the drip stops when the server does;
- ``/drip-headers``: the status line and ``?lines=`` header lines (default 100), one
  every ``?every=`` seconds (default 0.1), then a short body;
- ``/partial``: 206 Partial Content with a Content-Range, never asked for;
- ``/to-port``: 302 to ``http://127.0.0.1:?port=/stable`` (another server on loopback);
- ``/files/NAME``: ``tests/data/snapshots/NAME`` (or ``LoopbackServer(files=...)``),
  Content-Type by suffix (``.html`` → ``text/html`` with no charset, ``.pdf``,
  ``.txt`` → ``text/plain; charset=utf-8``, else ``application/octet-stream``), 404 if absent.

Every request is recorded (:class:`RecordedRequest`: path, Host, headers,
times, body bytes sent, whether the client hung up early);
:meth:`LoopbackServer.max_in_flight` gives the most concurrent requests seen
per host name.

Each test gets a fresh server, so per-path state (``/changing``'s counter,
``/quote-removed``'s first answer, ``/503-then-ok``) starts over; within a
test, that state is kept per request target, so ``/changing?a`` and
``/changing?b`` count separately, and :meth:`LoopbackServer.reset` starts it
over. It is bounded so a runaway test cannot hang CI: after ``max_requests``
it answers 503 and shuts down, after ``lifetime`` seconds it shuts down, and
every connection has a socket timeout.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from claim_evidence._core.loopback import LoopbackHTTP, QuietHandler

FILES = Path(__file__).resolve().parent / "data" / "snapshots"

QUOTE = "クモエンジン 3 の最大入力長は 256,000 トークンです。"
STABLE_HTML = (
    '<!doctype html>\n<html lang="ja"><head><meta charset="utf-8"><title>架空の安定ページ</title></head>\n'
    "<body><p>このページは毎回同じバイト列です。</p></body></html>\n"
).encode()
# Repetitive on purpose: compressed it is far smaller, so a size cap between the two
# sizes tells whether the cap applies to the decoded bytes.
GZIP_HTML = (
    '<!doctype html>\n<html lang="ja"><head><meta charset="utf-8"><title>圧縮された架空ページ</title></head>\n<body>'
    + "<p>gzip で送られた本文です。</p>\n" * 40
    + "</body></html>\n"
).encode()
HTML = "text/html; charset=utf-8"
_SUFFIX_TYPES = {".html": "text/html", ".pdf": "application/pdf", ".txt": "text/plain; charset=utf-8"}


def _quote_page(with_quote: bool) -> bytes:
    sentence = f"<p>{QUOTE}</p>" if with_quote else ""
    return (
        '<!doctype html>\n<html lang="ja"><head><meta charset="utf-8"><title>架空の仕様ページ</title></head>\n'
        f"<body><h1>クモエンジン 3</h1>{sentence}<p>料金は別ページを参照してください。</p></body></html>\n"
    ).encode()


@dataclass(frozen=True)
class Reply:
    """An answer. An iterable ``body`` is streamed, chunked unless headers set Content-Length.

    ``header_drip`` > 0 sends the status line and each header line on its own, that many seconds
    apart (a server dripping its headers); the wait ends early when the server stops.
    """

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""
    header_drip: float = 0.0


@functools.cache
def stacked_gzip(size: int, layers: int) -> bytes:
    """``size`` zero bytes gzipped ``layers`` times (cached: tests ask for the same bomb again).

    The innermost member is put together from one 1 MiB deflate block repeated (after a full
    flush, equal input compresses to equal bytes), so a gigabyte takes well under a second to
    build, and each further layer shrinks the repetitive result again: 1 GiB is about 2 KB.
    """
    piece = 1 << 20
    zeros = bytes(piece)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    whole, rest = divmod(size, piece)
    tail = deflate.compress(bytes(rest)) + deflate.flush()
    crc = 0
    for _ in range(whole):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(rest), crc)
    data = (
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block * whole + tail + struct.pack("<II", crc, size & 0xFFFFFFFF)
    )
    for _ in range(layers - 1):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    return data


@dataclass
class RecordedRequest:
    """One request as the server saw it. Times are ``time.monotonic()``.

    The request is *in flight* from ``started`` (headers read) to ``responded``
    (about to send the status line), so a client that waits for the answer
    before its next request can never be seen overlapping itself.
    """

    method: str
    target: str
    path: str
    host: str
    headers: dict[str, str]
    started: float
    responded: float | None = None
    finished: float | None = None
    bytes_sent: int = 0
    aborted: bool = False


RouteBody = bytes | Callable[[int], "bytes | Reply"]


class LoopbackServer(LoopbackHTTP):
    """The bounded loopback server (:class:`claim_evidence._core.loopback.LoopbackHTTP`) with the routes above."""

    def __init__(
        self, *, files: Path = FILES, max_requests: int = 500, lifetime: float = 60.0, socket_timeout: float = 10.0
    ) -> None:
        super().__init__(_Handler, lifetime=lifetime, socket_timeout=socket_timeout)
        self.files = files
        self.max_requests = max_requests
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._hits: dict[str, int] = {}
        self._in_flight: dict[str, int] = {}
        self._max_in_flight: dict[str, int] = {}
        self._custom: dict[str, Callable[[int], Reply]] = {}

    def stopped(self, why: str) -> None:
        self.errors.append(f"loopback server stopped: {why}")

    def failed(self, error: BaseException | None) -> None:
        # A client hanging up mid-answer is what several tests do on purpose; keep stderr quiet.
        self.errors.append(repr(error))

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    # --- what tests ask --------------------------------------------------
    def route(
        self, path: str, status: int = 200, headers: Mapping[str, str] | None = None, body: RouteBody = b""
    ) -> None:
        """Serve ``path`` (query ignored), overriding a built-in route.

        ``body`` is bytes, or a callable given the hit number for this request
        target (1 for the first) that returns the body bytes or a whole
        :class:`Reply` (whose status and headers then replace these).
        """
        fixed_headers = dict(headers or {})

        def respond(hit: int) -> Reply:
            produced = body(hit) if callable(body) else body
            return produced if isinstance(produced, Reply) else Reply(status, fixed_headers, produced)

        with self._lock:
            self._custom[path] = respond

    def reset(self) -> None:
        """Forget requests, counters and in-flight maxima (routes stay)."""
        with self._lock:
            self._requests.clear()
            self._hits.clear()
            self._max_in_flight.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def hits(self, path: str) -> int:
        """Requests for ``path``: the exact target when it has a query, else any query."""
        key = "target" if "?" in path else "path"
        return sum(1 for r in self.requests if getattr(r, key) == path)

    def max_in_flight(self, host: str | None = None) -> int:
        """Most requests in flight at once to ``host`` ("127.0.0.1", "localhost"), or overall."""
        with self._lock:
            return self._max_in_flight.get(host or "*", 0)

    # --- called by the handler -------------------------------------------
    def _begin(self, handler: BaseHTTPRequestHandler) -> tuple[RecordedRequest, int] | None:
        parts = urlsplit(handler.path)
        host = handler.headers.get("Host", "").rsplit(":", 1)[0].lower()
        record = RecordedRequest(
            method=handler.command,
            target=handler.path,
            path=parts.path,
            host=host,
            headers={k.lower(): v for k, v in handler.headers.items()},
            started=time.monotonic(),
        )
        with self._lock:
            self._requests.append(record)
            if len(self._requests) > self.max_requests:
                over = True
            else:
                over = False
                hit = self._hits[record.target] = self._hits.get(record.target, 0) + 1
                for key in (host, "*"):
                    self._in_flight[key] = self._in_flight.get(key, 0) + 1
                    self._max_in_flight[key] = max(self._max_in_flight.get(key, 0), self._in_flight[key])
        if over:
            self.shutdown_soon(f"more than {self.max_requests} requests")
            return None
        return record, hit

    def _responding(self, record: RecordedRequest) -> None:
        with self._lock:
            record.responded = time.monotonic()
            for key in (record.host, "*"):
                self._in_flight[key] -= 1

    def _reply(self, record: RecordedRequest, hit: int) -> Reply:
        with self._lock:
            custom = self._custom.get(record.path)
        if custom is not None:
            return custom(hit)
        query = {k: v[-1] for k, v in parse_qs(urlsplit(record.target).query).items()}
        path = record.path
        if path.startswith("/redirect/"):
            return self._redirect_n(path.removeprefix("/redirect/"))
        if path.startswith("/files/"):
            return self._file(path.removeprefix("/files/"))
        if path in _PLAIN_STATUSES:
            return Reply(
                _PLAIN_STATUSES[path], {"Content-Type": "text/plain; charset=utf-8"}, f"status {path[1:]}\n".encode()
            )
        builtin = _BUILTIN.get(path)
        if builtin is None:
            return Reply(404, {"Content-Type": "text/plain; charset=utf-8"}, b"no such route\n")
        return builtin(self, hit, query)

    # --- built-in routes --------------------------------------------------
    def _redirect_n(self, rest: str) -> Reply:
        if not rest.isdigit() or int(rest) < 1:
            return Reply(404, {}, b"")
        n = int(rest)
        return Reply(302, {"Location": f"/redirect/{n - 1}" if n > 1 else "/stable"}, b"")

    def _file(self, name: str) -> Reply:
        path = self.files / name
        if "/" in name or "\\" in name or name in {"", ".", ".."} or not path.is_file():
            return Reply(404, {"Content-Type": "text/plain; charset=utf-8"}, b"no such file\n")
        return Reply(
            200, {"Content-Type": _SUFFIX_TYPES.get(path.suffix.lower(), "application/octet-stream")}, path.read_bytes()
        )

    def _stable(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(200, {"Content-Type": HTML}, STABLE_HTML)

    def _changing(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(200, {"Content-Type": HTML}, f"<!doctype html>\n<p>request {hit}</p>\n".encode())

    def _quote_removed(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(200, {"Content-Type": HTML}, _quote_page(with_quote=hit == 1))

    def _503_then_ok(self, hit: int, query: dict[str, str]) -> Reply:
        if hit <= 2:
            return Reply(503, {"Retry-After": "0", "Content-Type": "text/plain; charset=utf-8"}, b"try again\n")
        return Reply(200, {"Content-Type": HTML}, STABLE_HTML)

    def _429(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(429, {"Retry-After": "0", "Content-Type": "text/plain; charset=utf-8"}, b"slow down\n")

    def _redirect_loop(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(302, {"Location": "/redirect-loop"}, b"")

    def _to_other_host(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(302, {"Location": self.url("/stable", host="localhost")}, b"")

    def _slow(self, hit: int, query: dict[str, str], default: float = 3.0) -> Reply:
        """Sleep (``?seconds=``, default 3) but wake when the server stops."""
        self.closing.wait(float(query.get("seconds", default)))
        return Reply(200, {"Content-Type": "text/plain; charset=utf-8"}, b"finally\n")

    def _slow_ish(self, hit: int, query: dict[str, str]) -> Reply:
        return self._slow(hit, query, default=0.3)

    def _big(self, hit: int, query: dict[str, str]) -> Reply:
        """``?size=`` bytes (default 100 000) in ``?chunk=`` pieces, chunked unless ``?length=1``."""
        size, chunk = int(query.get("size", 100_000)), int(query.get("chunk", 4096))
        headers = {"Content-Type": "application/octet-stream"}
        if query.get("length") == "1":
            headers["Content-Length"] = str(size)
        return Reply(200, headers, _pieces(size, chunk))

    def _gzip(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(200, {"Content-Type": HTML, "Content-Encoding": "gzip"}, gzip.compress(GZIP_HTML, mtime=0))

    def _gzip_stacked(self, hit: int, query: dict[str, str]) -> Reply:
        layers = int(query.get("layers", 2))
        headers = {"Content-Type": "text/plain", "Content-Encoding": ", ".join(["gzip"] * layers)}
        return Reply(200, headers, stacked_gzip(int(query.get("size", 1 << 30)), layers))

    def _drip(self, hit: int, query: dict[str, str]) -> Reply:
        size, every = int(query.get("bytes", 100)), float(query.get("every", 0.1))

        def pieces() -> Iterator[bytes]:
            for _ in range(size):
                if self.closing.wait(every):
                    return  # the server stops: the body stays short of its Content-Length
                yield b"."

        return Reply(200, {"Content-Type": "text/plain; charset=utf-8", "Content-Length": str(size)}, pieces())

    def _drip_headers(self, hit: int, query: dict[str, str]) -> Reply:
        lines, every = int(query.get("lines", 100)), float(query.get("every", 0.1))
        headers = {"Content-Type": "text/plain; charset=utf-8", **{f"X-Drip-{n}": "." for n in range(lines)}}
        return Reply(200, headers, b"dripped\n", header_drip=every)

    def _partial(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(206, {"Content-Type": HTML, "Content-Range": f"bytes 0-99/{len(STABLE_HTML)}"}, STABLE_HTML[:100])

    def _to_port(self, hit: int, query: dict[str, str]) -> Reply:
        return Reply(302, {"Location": f"http://127.0.0.1:{int(query['port'])}/stable"}, b"")


def _pieces(size: int, chunk: int) -> Iterator[bytes]:
    block = bytes(itertools.islice(itertools.cycle(b"0123456789abcdef"), chunk))
    sent = 0
    while sent < size:
        piece = block[: min(chunk, size - sent)]
        sent += len(piece)
        yield piece


_PLAIN_STATUSES = {"/404": 404, "/410": 410, "/403": 403, "/500": 500}
_BUILTIN: dict[str, Callable[[LoopbackServer, int, dict[str, str]], Reply]] = {
    "/stable": LoopbackServer._stable,
    "/changing": LoopbackServer._changing,
    "/quote-removed": LoopbackServer._quote_removed,
    "/503-then-ok": LoopbackServer._503_then_ok,
    "/429": LoopbackServer._429,
    "/redirect-loop": LoopbackServer._redirect_loop,
    "/to-other-host": LoopbackServer._to_other_host,
    "/slow": LoopbackServer._slow,
    "/slow-ish": LoopbackServer._slow_ish,
    "/big": LoopbackServer._big,
    "/gzip": LoopbackServer._gzip,
    "/gzip-stacked": LoopbackServer._gzip_stacked,
    "/drip": LoopbackServer._drip,
    "/drip-headers": LoopbackServer._drip_headers,
    "/partial": LoopbackServer._partial,
    "/to-port": LoopbackServer._to_port,
}


class _Handler(QuietHandler):
    @property
    def owner(self) -> LoopbackServer:
        owner = self.server.owner
        assert isinstance(owner, LoopbackServer)
        return owner

    def do_GET(self) -> None:
        owner = self.owner
        begun = owner._begin(self)
        if begun is None:
            self.close_connection = True
            self._send(None, Reply(503, {"Connection": "close"}, b"loopback server request budget spent\n"))
            return
        record, hit = begun
        try:
            reply = owner._reply(record, hit)
        except Exception as exc:  # noqa: BLE001 - a broken route must show up as a 500, not a hung client
            reply = Reply(500, {"Content-Type": "text/plain; charset=utf-8"}, f"route failed: {exc!r}\n".encode())
        self._send(record, reply)

    def _send(self, record: RecordedRequest | None, reply: Reply) -> None:
        if record is not None:
            self.owner._responding(record)
        headers = dict(reply.headers)
        if isinstance(reply.body, bytes):
            headers.setdefault("Content-Length", str(len(reply.body)))
        elif not any(k.lower() == "content-length" for k in headers):
            headers["Transfer-Encoding"] = "chunked"
        try:
            if reply.header_drip > 0:
                self._drip_head(reply.status, headers, reply.header_drip)
            else:
                self.send_response(reply.status)
                for name, value in headers.items():
                    # Raw UTF-8 on the wire, as real servers send it (http.server would refuse non-Latin-1).
                    self.send_header(name, value.encode("utf-8").decode("latin-1"))
                self.end_headers()
            chunked = headers.get("Transfer-Encoding") == "chunked"
            for piece in [reply.body] if isinstance(reply.body, bytes) else reply.body:
                if not piece:
                    continue
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                if record is not None:
                    record.bytes_sent += len(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:  # BrokenPipe, ConnectionReset, socket timeout: the client went away
            self.close_connection = True
            if record is not None:
                record.aborted = True
        if record is not None:
            record.finished = time.monotonic()

    def _drip_head(self, status: int, headers: Mapping[str, str], every: float) -> None:
        """The status line and the header lines one at a time, ``every`` seconds apart (bounded by the
        server's closing: a stopped server breaks the answer off)."""
        lines = [
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}",
            *(f"{k}: {v}" for k, v in headers.items()),
            "",
        ]
        for line in lines:
            self.wfile.write(line.encode("utf-8") + b"\r\n")
            if line and self.owner.closing.wait(every):
                raise ConnectionAbortedError("the server stopped while dripping headers")


@pytest.fixture(name="loopback")
def loopback_fixture() -> Iterator[LoopbackServer]:
    """A fresh loopback server for one test, stopped afterwards.

    Registered as ``loopback``; import it as ``loopback_fixture`` so the test
    arguments named ``loopback`` do not shadow the import (pyflakes F811).
    """
    with LoopbackServer() as server:
        yield server


# ``from .httpserver import loopback`` works too, at the price of F811 on every test using it.
loopback = loopback_fixture
