"""A bounded HTTP server on 127.0.0.1, for the stand-ins the toolkit talks to in tests and demos.

The chat demo's fake model (``claim_evidence.chat.fakemodel``) and the tests' loopback web server
(``tests/httpserver.py``) are both this: a stdlib ``ThreadingHTTPServer`` bound to
``127.0.0.1:0`` in a daemon thread, quiet on stderr, with a socket timeout per connection and a
lifetime after which it closes itself, so a runaway caller can never hang a run. What each one
answers is its own (a subclass, and a handler derived from :class:`QuietHandler`).
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackHTTP:
    """Start, stop and bound a server; ``closing`` is set once it stops or starts to, so a handler
    that sleeps (a slow answer) can wait on it and end early. A context manager."""

    thread_name = "loopback-http"

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, lifetime: float, socket_timeout: float) -> None:
        self.handler = handler
        self.lifetime = lifetime
        self.socket_timeout = socket_timeout
        self.closing = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), self.handler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=self.thread_name, daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(
            self.lifetime, self.shutdown_soon, args=(f"lifetime of {self.lifetime:g} s over",)
        )
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        self.closing.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def shutdown_soon(self, why: str) -> None:
        """Stop serving from a thread of its own (``shutdown`` waits for the serving loop, which may be
        the caller); the listening socket is closed too, so later connections fail at once."""
        self.stopped(why)
        self.closing.set()
        httpd = self._httpd
        if httpd is not None:

            def close() -> None:
                httpd.shutdown()
                httpd.server_close()

            threading.Thread(target=close, daemon=True).start()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    def stopped(self, why: str) -> None:
        """Told why the server stopped on its own (its lifetime, a request budget); nothing by default."""

    def failed(self, error: BaseException | None) -> None:
        """Told of an exception while serving one request (a client hanging up); nothing by default."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], owner: LoopbackHTTP) -> None:
        self.owner = owner
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        self.owner.failed(sys.exc_info()[1])  # never the stdlib's traceback on stderr


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1, the owner's socket timeout, no access log on stderr."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.owner.socket_timeout)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass
