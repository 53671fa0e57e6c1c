"""claim_evidence._sources.fetch against a real server on 127.0.0.1 (tests/httpserver.py); no mocked httpx."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import __version__
from claim_evidence._sources.fetch import fetch_all
from claim_evidence._sources.fetchvalues import Fetched, FetchSettings

from ...httpserver import (
    GZIP_HTML,
    QUOTE,
    STABLE_HTML,
    LoopbackServer,
    Reply,
    loopback_fixture,  # noqa: F401 - provides the ``loopback`` fixture
)

HTML = "text/html; charset=utf-8"
BIG = 64 * 1024 * 1024  # far more than loopback socket buffers hold, so an early close shows


class Sleeps:
    """Stands in for ``time.sleep``: records each delay and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def no_sleep(seconds: float) -> None:
    raise AssertionError(f"nothing here should be retried (asked to sleep {seconds} s)")


def fetch_one(url: str, sleep: Callable[[float], None] = no_sleep, **settings: Any) -> Fetched:
    # Short timeouts unless a test sets its own: a hung server fails the test in seconds.
    settings = {"connect_timeout": 5.0, "read_timeout": 5.0, **settings}
    return fetch_all([url], FetchSettings(**settings), sleep=sleep)[url]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_fetch_ok_records_final_url_and_content_type(loopback: LoopbackServer) -> None:
    url = loopback.url("/stable")
    assert fetch_one(url) == Fetched(
        url=url,
        outcome="ok",
        final_url=url,
        status=200,
        content_type=HTML,
        body=STABLE_HTML,
        reason="HTTP 200",
        redirects=(),
    )


def test_fetch_sends_user_agent_naming_tool_and_version(loopback: LoopbackServer) -> None:
    fetch_one(loopback.url("/stable"))
    (request,) = loopback.requests
    assert request.headers["user-agent"] == f"claim-evidence/{__version__} (source snapshots)"
    assert "cookie" not in request.headers


def test_fetch_unsafe_urls_refused_without_request(loopback: LoopbackServer) -> None:
    port = loopback.port
    urls = [
        "file:///etc/passwd",
        "javascript:alert(1)",
        f"//127.0.0.1:{port}/stable",
        f"http://user:secret@127.0.0.1:{port}/stable",
        f"http://127.0.0.1:{port}/sta ble",
        f"http://127.0.0.1:{port}\\stable",
        "",
    ]
    results = fetch_all(urls, sleep=no_sleep)
    assert list(results) == urls
    assert {r.outcome for r in results.values()} == {"refused"}
    assert {r.reason for r in results.values()} == {"not a safe http(s) URL"}
    assert all(r.final_url is None and r.status is None and r.body is None for r in results.values())
    assert loopback.requests == []


def test_fetch_empty_input_is_empty() -> None:
    assert fetch_all([], sleep=no_sleep) == {}


@pytest.mark.parametrize("status", [404, 410, 403])
def test_fetch_client_errors_are_dead_without_retry(loopback: LoopbackServer, status: int) -> None:
    url = loopback.url(f"/{status}")
    assert fetch_one(url) == Fetched(
        url=url,
        outcome="dead",
        final_url=url,
        status=status,
        content_type="text/plain; charset=utf-8",
        body=None,
        reason=f"HTTP {status}",
    )
    assert loopback.hits(f"/{status}") == 1


def test_fetch_500_unreachable_after_retries_with_doubling_backoff(loopback: LoopbackServer) -> None:
    sleeps = Sleeps()
    result = fetch_one(loopback.url("/500"), sleeps)
    assert (result.outcome, result.status, result.reason, result.body) == (
        "unreachable",
        500,
        "HTTP 500 after 3 attempts",
        None,
    )
    assert loopback.hits("/500") == 3
    assert sleeps.delays == [1.0, 2.0]


def test_fetch_retries_zero_means_one_attempt(loopback: LoopbackServer) -> None:
    result = fetch_one(loopback.url("/500"), retries=0)
    assert (result.outcome, result.reason) == ("unreachable", "HTTP 500")
    assert loopback.hits("/500") == 1


def test_fetch_503_then_ok_honours_retry_after(loopback: LoopbackServer) -> None:
    sleeps = Sleeps()
    url = loopback.url("/503-then-ok")
    result = fetch_one(url, sleeps)
    assert (result.outcome, result.status, result.reason, result.body) == ("ok", 200, "HTTP 200", STABLE_HTML)
    assert loopback.hits("/503-then-ok") == 3
    assert sleeps.delays == [0.0, 0.0]


def test_fetch_429_unreachable_after_retries(loopback: LoopbackServer) -> None:
    sleeps = Sleeps()
    result = fetch_one(loopback.url("/429"), sleeps)
    assert (result.outcome, result.status, result.reason) == ("unreachable", 429, "HTTP 429 after 3 attempts")
    assert loopback.hits("/429") == 3
    assert sleeps.delays == [0.0, 0.0]


@pytest.mark.parametrize(
    ("retry_after", "delays"),
    [("3600", [30.0, 30.0]), ("7", [7.0, 7.0]), ("Wed, 21 Oct 2037 07:28:00 GMT", [0.5, 1.0]), ("-1", [0.5, 1.0])],
)
def test_fetch_retry_after_seconds_capped_date_ignored(
    loopback: LoopbackServer, retry_after: str, delays: list[float]
) -> None:
    loopback.route("/busy", status=503, headers={"Retry-After": retry_after})
    sleeps = Sleeps()
    assert fetch_one(loopback.url("/busy"), sleeps, backoff=0.5).reason == "HTTP 503 after 3 attempts"
    assert sleeps.delays == delays


def test_fetch_slow_is_unreachable_timed_out(loopback: LoopbackServer) -> None:
    sleeps = Sleeps()
    started = time.monotonic()
    result = fetch_one(loopback.url("/slow"), sleeps, read_timeout=0.5, retries=1)
    assert time.monotonic() - started < 2.5
    assert result == Fetched(
        url=loopback.url("/slow"),
        outcome="unreachable",
        final_url=None,
        status=None,
        content_type=None,
        body=None,
        reason="timed out after 0.5 s (read), 2 attempts",
    )
    assert loopback.hits("/slow") == 2
    assert sleeps.delays == [1.0]


@pytest.mark.parametrize("framing", ["chunk=65536", "chunk=65536&length=1"], ids=["chunked", "content-length"])
def test_fetch_big_is_too_large_and_closes_early(loopback: LoopbackServer, framing: str) -> None:
    url = loopback.url(f"/big?size={BIG}&{framing}")
    assert fetch_one(url, max_bytes=1000) == Fetched(
        url=url,
        outcome="too_large",
        final_url=url,
        status=200,
        content_type="application/octet-stream",
        body=None,
        reason="body over 1000 bytes",
    )
    (request,) = loopback.requests
    wait_until(lambda: request.finished is not None)
    # The client hung up: the server could not send the rest.
    assert request.aborted
    assert request.bytes_sent < BIG // 4


def test_fetch_body_exactly_at_cap_is_ok(loopback: LoopbackServer) -> None:
    result = fetch_one(loopback.url("/big?size=1000&chunk=300"), max_bytes=1000)
    assert (result.outcome, len(result.body or b"")) == ("ok", 1000)


def test_fetch_gzip_decoded_and_cap_applies_to_decoded_size(loopback: LoopbackServer) -> None:
    url = loopback.url("/gzip")
    result = fetch_one(url)
    assert (result.outcome, result.content_type, result.body) == ("ok", HTML, GZIP_HTML)
    # Compressed, the page is a few hundred bytes; decoded it is over the cap.
    assert fetch_one(url, max_bytes=len(GZIP_HTML) - 1).outcome == "too_large"


def test_fetch_redirect_chain_recorded(loopback: LoopbackServer) -> None:
    url = loopback.url("/redirect/3")
    assert fetch_one(url) == Fetched(
        url=url,
        outcome="ok",
        final_url=loopback.url("/stable"),
        status=200,
        content_type=HTML,
        body=STABLE_HTML,
        reason="HTTP 200",
        redirects=(url, loopback.url("/redirect/2"), loopback.url("/redirect/1")),
    )


def test_fetch_more_redirects_than_allowed_is_dead(loopback: LoopbackServer) -> None:
    url = loopback.url("/redirect/3")
    result = fetch_one(url, max_redirects=2)
    assert (result.outcome, result.reason, result.status) == ("dead", "more than 2 redirects", 302)
    assert result.final_url == loopback.url("/redirect/1")
    assert result.redirects == (url, loopback.url("/redirect/2"))
    assert loopback.hits("/stable") == 0


def test_fetch_redirect_loop_is_dead(loopback: LoopbackServer) -> None:
    url = loopback.url("/redirect-loop")
    result = fetch_one(url)
    assert (result.outcome, result.reason, result.final_url, result.redirects) == (
        "dead",
        f"redirect loop back to {url}",
        url,
        (),
    )
    assert loopback.hits("/redirect-loop") == 1


def test_fetch_redirect_to_localhost_keeps_final_url(loopback: LoopbackServer) -> None:
    """Another host name (resolving to loopback): followed only with the allowance (see the #31 tests)."""
    url = loopback.url("/to-other-host")
    result = fetch_one(url, allow_private=True)
    assert (result.outcome, result.final_url, result.redirects) == (
        "ok",
        loopback.url("/stable", host="localhost"),
        (url,),
    )
    assert [(r.path, r.host) for r in loopback.requests] == [("/to-other-host", "127.0.0.1"), ("/stable", "localhost")]


@pytest.mark.parametrize(
    "location", ["file:///etc/passwd", "http://user:secret@127.0.0.1:1/stable", "javascript:alert(1)"]
)
def test_fetch_redirect_to_unsafe_url_refused(loopback: LoopbackServer, location: str) -> None:
    loopback.route("/sneaky", status=302, headers={"Location": location})
    url = loopback.url("/sneaky")
    assert fetch_one(url) == Fetched(
        url=url,
        outcome="refused",
        final_url=url,
        status=302,
        content_type=None,
        body=None,
        reason="redirected to a URL that is not a safe http(s) URL",
    )
    assert loopback.hits("/sneaky") == 1 and len(loopback.requests) == 1


def test_fetch_url_httpx_cannot_parse_is_refused(loopback: LoopbackServer) -> None:
    # A full-width "ａ" passes safe_http_url but is not a valid IDNA host name.
    odd = "http://ａ.invalid/page"
    loopback.route("/to-odd", status=301, headers={"Location": odd})
    results = fetch_all([odd, loopback.url("/to-odd")], sleep=no_sleep)
    reason = "not a URL httpx can request: Invalid IDNA hostname: 'ａ.invalid'"
    assert [(r.outcome, r.reason, r.final_url) for r in results.values()] == [
        ("refused", reason, None),
        ("refused", reason, odd),
    ]
    assert results[loopback.url("/to-odd")].redirects == (loopback.url("/to-odd"),)


def test_fetch_redirect_without_location_is_dead(loopback: LoopbackServer) -> None:
    loopback.route("/nowhere", status=302)
    result = fetch_one(loopback.url("/nowhere"))
    assert (result.outcome, result.reason) == ("dead", "HTTP 302 without a Location header")


def test_fetch_cookies_are_not_kept(loopback: LoopbackServer) -> None:
    loopback.route("/cookie", status=302, headers={"Set-Cookie": "session=abc; Path=/", "Location": "/stable"})
    assert fetch_one(loopback.url("/cookie")).outcome == "ok"
    assert [r.headers.get("cookie") for r in loopback.requests] == [None, None]


def test_fetch_connection_refused_is_unreachable_after_retries() -> None:
    """No server said anything about the source (a firewall of ours refuses the same way): not judged."""
    url = f"http://127.0.0.1:{closed_port()}/stable"
    sleeps = Sleeps()
    assert fetch_one(url, sleeps) == Fetched(
        url=url,
        outcome="unreachable",
        final_url=None,
        status=None,
        content_type=None,
        body=None,
        reason="connection refused, 3 attempts",
    )
    assert sleeps.delays == [1.0, 2.0]


def resolver_failing_for(monkeypatch: pytest.MonkeyPatch, host: str, error: socket.gaierror) -> None:
    """Fail name lookups of one host the way the system resolver does, without any DNS traffic.

    The name may come as ``str`` or as IDNA ``bytes`` (anyio, under httpx's async client, passes
    bytes). Only loopback names reach the real resolver; any other lookup fails the test, so no
    query can leave this machine.
    """
    real = socket.getaddrinfo

    def getaddrinfo(name: Any, *args: Any, **kwargs: Any) -> Any:
        text = name.decode("ascii") if isinstance(name, bytes) else name
        if text == host:
            raise error
        if text not in ("localhost", "127.0.0.1", "::1"):
            raise AssertionError(f"a test tried to look up {text!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_fetch_dns_no_such_name_is_unreachable_without_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    resolver_failing_for(monkeypatch, "gone.invalid", socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    result = fetch_one("http://gone.invalid/page")
    assert (result.outcome, result.reason, result.final_url) == (
        "unreachable",
        "DNS lookup failed: Name or service not known",
        None,
    )


def test_fetch_dns_temporary_failure_is_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    resolver_failing_for(
        monkeypatch, "flaky.invalid", socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    )
    sleeps = Sleeps()
    result = fetch_one("http://flaky.invalid/page", sleeps)
    assert (result.outcome, result.reason) == (
        "unreachable",
        "DNS lookup failed for now: Temporary failure in name resolution, 3 attempts",
    )
    assert sleeps.delays == [1.0, 2.0]


def test_fetch_tls_failure_is_dead_without_retry(loopback: LoopbackServer) -> None:
    # https to a server that speaks plain HTTP: the handshake fails.
    result = fetch_one(loopback.url("/stable").replace("http:", "https:", 1))
    assert result.outcome == "dead"
    assert result.reason.startswith("TLS failed: ")


def test_fetch_per_host_concurrency_is_bounded(loopback: LoopbackServer) -> None:
    urls = [loopback.url(f"/slow-ish?i={i}", host=host) for host in ("127.0.0.1", "localhost") for i in range(8)]
    started = time.monotonic()
    results = fetch_all(urls, FetchSettings(per_host=2, workers=8), sleep=no_sleep)
    elapsed = time.monotonic() - started
    assert {r.outcome for r in results.values()} == {"ok"}
    assert loopback.max_in_flight("127.0.0.1") == 2
    assert loopback.max_in_flight("localhost") == 2
    # The other host name ran alongside: 16 requests of 0.3 s, two at a time per host.
    assert loopback.max_in_flight() > 2
    assert elapsed < 2.4 * 0.3 * 4


def test_fetch_per_host_one_is_sequential(loopback: LoopbackServer) -> None:
    urls = [loopback.url(f"/slow-ish?seconds=0.05&i={i}") for i in range(4)]
    fetch_all(urls, FetchSettings(per_host=1, workers=4), sleep=no_sleep)
    assert loopback.max_in_flight("127.0.0.1") == 1
    assert loopback.hits("/slow-ish") == 4


def test_fetch_duplicates_fetched_once(loopback: LoopbackServer) -> None:
    stable, changing = loopback.url("/stable"), loopback.url("/changing")
    results = fetch_all([stable, changing, stable, changing, stable], sleep=no_sleep)
    assert list(results) == [stable, changing]
    assert (loopback.hits("/stable"), loopback.hits("/changing")) == (1, 1)


def test_fetch_result_order_is_input_order(loopback: LoopbackServer) -> None:
    urls = [
        loopback.url("/slow-ish?i=1"),
        "mailto:someone@example.com",
        loopback.url("/404"),
        loopback.url("/stable", host="localhost"),
        loopback.url("/slow-ish?seconds=0.1"),
        loopback.url("/stable"),
    ]
    first = fetch_all(urls, sleep=no_sleep)
    assert list(first) == urls
    assert [r.url for r in first.values()] == urls
    assert [r.outcome for r in first.values()] == ["ok", "refused", "dead", "ok", "ok", "ok"]
    assert list(fetch_all(list(reversed(urls)), sleep=no_sleep).items()) == list(reversed(first.items()))


def test_fetch_settings_reject_nonsense() -> None:
    for bad in ({"workers": 0}, {"per_host": 0}, {"retries": -1}, {"read_timeout": 0}, {"backoff": -1.0}):
        with pytest.raises(ValueError):
            FetchSettings(**bad)  # type: ignore[arg-type]


# --- the loopback server's own routes, which later tests rely on ---------------


def test_fetch_changing_and_quote_removed_routes(loopback: LoopbackServer) -> None:
    changing, quoted = loopback.url("/changing"), loopback.url("/quote-removed?case=a")
    first = fetch_all([changing, quoted], sleep=no_sleep)
    second = fetch_all([changing, quoted], sleep=no_sleep)
    assert first[changing].body != second[changing].body
    assert QUOTE in (first[quoted].body or b"").decode()
    assert QUOTE not in (second[quoted].body or b"").decode()
    # Another key starts over, and so does reset().
    assert QUOTE in (fetch_one(loopback.url("/quote-removed?case=b")).body or b"").decode()
    loopback.reset()
    assert QUOTE in (fetch_one(quoted).body or b"").decode()


def test_fetch_route_callable_gets_hit_number(loopback: LoopbackServer) -> None:
    loopback.route("/flaky", body=lambda hit: Reply(500, {}, b"") if hit == 1 else b"second time")
    sleeps = Sleeps()
    result = fetch_one(loopback.url("/flaky"), sleeps)
    assert (result.outcome, result.body) == ("ok", b"second time")
    assert sleeps.delays == [1.0]


def test_fetch_files_route_content_type_by_suffix(tmp_path: Path) -> None:
    for name, data in {"a.html": b"<p>x</p>", "b.pdf": b"%PDF-1.4", "c.txt": b"text", "d.bin": b"\x00"}.items():
        (tmp_path / name).write_bytes(data)
    with LoopbackServer(files=tmp_path) as server:
        names = ["a.html", "b.pdf", "c.txt", "d.bin", "missing.html", "..%2Fa.html"]
        results = fetch_all([server.url(f"/files/{n}") for n in names], sleep=no_sleep)
    assert [(r.status, r.content_type, r.body) for r in results.values()] == [
        (200, "text/html", b"<p>x</p>"),
        (200, "application/pdf", b"%PDF-1.4"),
        (200, "text/plain; charset=utf-8", b"text"),
        (200, "application/octet-stream", b"\x00"),
        (404, "text/plain; charset=utf-8", None),
        (404, "text/plain; charset=utf-8", None),
    ]


def test_fetch_loopback_server_stops_after_request_budget() -> None:
    with LoopbackServer(max_requests=2) as server:
        urls = [server.url(f"/stable?n={n}") for n in range(3)]
        results = [fetch_one(url, retries=0) for url in urls]
        wait_until(lambda: server.errors != [])
        assert [r.reason for r in results] == ["HTTP 200", "HTTP 200", "HTTP 503"]
        assert server.errors == ["loopback server stopped: more than 2 requests"]
        wait_until(lambda: fetch_one(server.url("/stable"), Sleeps(), retries=0).reason == "connection refused")


@pytest.fixture
def short_lived() -> Iterator[LoopbackServer]:
    with LoopbackServer(lifetime=0.3) as server:
        yield server


def test_fetch_loopback_server_stops_after_lifetime(short_lived: LoopbackServer) -> None:
    wait_until(lambda: short_lived.errors != [])
    assert short_lived.errors == ["loopback server stopped: lifetime of 0.3 s over"]


# --- hostile servers: decoded size, codings, deadlines, waits, addresses, escapes (#31) ----------------

_RSS_PROBE = """
import json, resource, sys, time
from claim_evidence._sources.fetch import fetch_all
from claim_evidence._sources.fetchvalues import FetchSettings
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
result = fetch_all([sys.argv[1]], FetchSettings(read_timeout=20.0, deadline=60.0), sleep=lambda s: None)[sys.argv[1]]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"outcome": result.outcome, "reason": result.reason, "growth_kib": peak - baseline, "seconds": time.monotonic() - started}))
"""


def fetch_in_subprocess(url: str) -> dict[str, Any]:
    """Fetch ``url`` in a fresh interpreter and report the outcome, the growth of its peak RSS
    (``ru_maxrss``, KiB on Linux) over the fetch, and the seconds it took."""
    import json
    import os
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parents[3])  # this tree's package, whatever is installed
    done = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": root},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_fetch_stacked_gzip_bomb_stops_at_the_cap_in_bounded_memory(loopback: LoopbackServer) -> None:
    """1 GiB of zeros gzipped twice is about 2.5 KB on the wire; decoded layer by layer with the cap
    applied to every layer's output as it comes, the fetch stops at 20 MB."""
    url = loopback.url(f"/gzip-stacked?size={1 << 30}")
    measured = fetch_in_subprocess(url)
    assert (measured["outcome"], measured["reason"]) == ("too_large", "body over 20000000 bytes"), measured
    assert measured["growth_kib"] < 200 * 1024, measured
    assert measured["seconds"] < 30, measured
    (request,) = loopback.requests
    assert request.headers["accept-encoding"] == "gzip, deflate"


def test_fetch_two_gzip_layers_within_the_cap_are_decoded(loopback: LoopbackServer) -> None:
    result = fetch_one(loopback.url("/gzip-stacked?size=5000"))
    assert (result.outcome, result.body) == ("ok", bytes(5000))
    assert fetch_one(loopback.url("/gzip-stacked?size=5000"), max_bytes=4999).outcome == "too_large"


def test_fetch_more_than_two_codings_are_refused_unread(loopback: LoopbackServer) -> None:
    url = loopback.url("/gzip-stacked?size=5000&layers=3")
    result = fetch_one(url)
    assert (result.outcome, result.status, result.body, result.final_url) == ("refused", 200, None, url)
    assert result.reason == "Content-Encoding 'gzip, gzip, gzip': more than 2 content codings are not decoded"


@pytest.mark.parametrize(
    ("header", "outcome", "reason"),
    [
        (
            "br",
            "refused",
            "Content-Encoding 'br': the content coding 'br' is not one this tool decodes (gzip, deflate)",
        ),
        (
            "gzip, compress",
            "refused",
            "Content-Encoding 'gzip, compress': the content coding 'compress' is not one this tool decodes (gzip, deflate)",
        ),
        ("identity", "ok", "HTTP 200"),
        ("Identity, , identity", "ok", "HTTP 200"),
    ],
)
def test_fetch_unknown_coding_refused_identity_ignored(
    loopback: LoopbackServer, header: str, outcome: str, reason: str
) -> None:
    loopback.route("/coded", headers={"Content-Type": "text/plain", "Content-Encoding": header}, body=b"plain bytes")
    result = fetch_one(loopback.url("/coded"))
    assert (result.outcome, result.reason) == (outcome, reason)
    assert result.body == (b"plain bytes" if outcome == "ok" else None)


def test_fetch_deflate_with_and_without_the_zlib_wrapper(loopback: LoopbackServer) -> None:
    import zlib

    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    loopback.route("/zlib", headers={"Content-Encoding": "deflate"}, body=zlib.compress(GZIP_HTML))
    loopback.route("/raw-deflate", headers={"Content-Encoding": "deflate"}, body=raw.compress(GZIP_HTML) + raw.flush())
    results = fetch_all([loopback.url("/zlib"), loopback.url("/raw-deflate")], sleep=no_sleep)
    assert [(r.outcome, r.body) for r in results.values()] == [("ok", GZIP_HTML), ("ok", GZIP_HTML)]


def test_fetch_gzip_cut_short_or_corrupt_is_never_ok(loopback: LoopbackServer) -> None:
    import gzip

    whole = gzip.compress(GZIP_HTML, mtime=0)
    loopback.route("/cut", headers={"Content-Encoding": "gzip"}, body=whole[: len(whole) // 2])
    loopback.route("/corrupt", headers={"Content-Encoding": "gzip"}, body=b"\x1f\x8b" + bytes(50))
    results = fetch_all([loopback.url("/cut"), loopback.url("/corrupt")], FetchSettings(retries=0), sleep=no_sleep)
    assert [(r.outcome, r.body) for r in results.values()] == [("unreachable", None), ("unreachable", None)]
    assert results[loopback.url("/cut")].reason == "the gzip body ends before its compressed data does"
    assert results[loopback.url("/corrupt")].reason.startswith("the gzip body is not valid gzip: ")


def test_fetch_dripped_body_hits_the_deadline_and_is_never_ok(loopback: LoopbackServer) -> None:
    """One byte every 0.1 s, 100 bytes: every read comes well within the read timeout, yet the whole
    exchange passes the deadline; it is abandoned, never stored."""
    url = loopback.url("/drip?bytes=100&every=0.1")
    started = time.monotonic()
    result = fetch_one(url, Sleeps(), deadline=1.0)
    elapsed = time.monotonic() - started
    assert result == Fetched(
        url=url,
        outcome="unreachable",
        final_url=None,
        status=None,
        content_type=None,
        body=None,
        reason="timed out: not finished within the 1 s deadline",
    )
    assert 0.9 < elapsed < 4.0, elapsed
    assert loopback.hits("/drip") == 1  # no time left for a retry


def test_fetch_dripped_headers_hit_the_deadline(loopback: LoopbackServer) -> None:
    started = time.monotonic()
    result = fetch_one(loopback.url("/drip-headers?lines=100&every=0.1"), Sleeps(), deadline=1.0)
    assert (result.outcome, result.reason, result.status) == (
        "unreachable",
        "timed out: not finished within the 1 s deadline",
        None,
    )
    assert time.monotonic() - started < 4.0


def test_fetch_deadline_covers_every_retry_of_a_source(loopback: LoopbackServer) -> None:
    """Each attempt times out on its own read timeout; the retries stop once the source's deadline is spent."""
    sleeps = Sleeps()
    started = time.monotonic()
    result = fetch_one(loopback.url("/slow?seconds=5"), sleeps, read_timeout=0.4, deadline=1.0, retries=10)
    elapsed = time.monotonic() - started
    assert result.outcome == "unreachable" and result.reason.startswith("timed out"), result
    assert loopback.hits("/slow") <= 3 and elapsed < 3.0, (loopback.hits("/slow"), elapsed)


def test_fetch_retry_after_waits_share_one_budget_per_run(loopback: LoopbackServer) -> None:
    """Four sources of one host answer 429 with Retry-After 7; a run waits 10 s at most in all."""
    loopback.route("/busy", status=429, headers={"Retry-After": "7"})
    urls = [loopback.url(f"/busy?i={i}") for i in range(4)]
    sleeps = Sleeps()
    results = fetch_all(urls, FetchSettings(retry_after_budget=10.0), sleep=sleeps)
    assert sleeps.delays == [7.0]
    assert {r.outcome for r in results.values()} == {"unreachable"}
    reasons = sorted(r.reason for r in results.values())
    assert reasons == sorted(
        ["HTTP 429 after 2 attempts; rate limited, not retried: the run's 10 s for Retry-After waits are spent"]
        + ["HTTP 429; rate limited, not retried: the run's 10 s for Retry-After waits are spent"] * 3
    )
    assert loopback.hits("/busy") == 5


def test_fetch_retry_after_budget_bounds_real_waiting(loopback: LoopbackServer) -> None:
    loopback.route("/busy", status=429, headers={"Retry-After": "1"})
    started = time.monotonic()
    results = fetch_all(
        [loopback.url(f"/busy?i={i}") for i in range(4)], FetchSettings(retry_after_budget=1.0, per_host=2)
    )
    elapsed = time.monotonic() - started
    assert {r.outcome for r in results.values()} == {"unreachable"}
    assert elapsed < 5.0, elapsed


def test_fetch_retry_after_past_the_deadline_is_not_waited(loopback: LoopbackServer) -> None:
    loopback.route("/busy", status=503, headers={"Retry-After": "30"})
    result = fetch_one(loopback.url("/busy"), no_sleep, deadline=5.0)
    assert (result.outcome, result.reason) == (
        "unreachable",
        "HTTP 503; not retried: waiting 30 s would pass the 5 s deadline",
    )


@pytest.fixture
def other_service() -> Iterator[LoopbackServer]:
    """Another service on loopback, the kind a redirect must not reach."""
    with LoopbackServer() as server:
        server.route("/stable", body=b"INTERNAL SERVICE SECRET")
        yield server


def test_fetch_redirect_to_another_loopback_port_is_refused(
    loopback: LoopbackServer, other_service: LoopbackServer
) -> None:
    url = loopback.url(f"/to-port?port={other_service.port}")
    target = other_service.url("/stable")
    result = fetch_one(url)
    assert result == Fetched(
        url=url,
        outcome="refused",
        final_url=target,
        status=None,
        content_type=None,
        body=None,
        reason=f"redirected to {target}, a non-public address (127.0.0.1): not followed",
        redirects=(url,),
    )
    assert other_service.requests == []  # connected to, never asked
    allowed = fetch_one(url, allow_private=True)
    assert (allowed.outcome, allowed.final_url, allowed.body) == ("ok", target, b"INTERNAL SERVICE SECRET")


def test_fetch_redirect_to_a_name_resolving_to_loopback_is_refused(loopback: LoopbackServer) -> None:
    url = loopback.url("/to-other-host")
    result = fetch_one(url)
    assert (result.outcome, result.reason) == (
        "refused",
        f"redirected to {loopback.url('/stable', host='localhost')}, a non-public address (127.0.0.1): not followed",
    )
    assert [r.path for r in loopback.requests] == ["/to-other-host"]


def test_fetch_source_on_a_private_address_and_its_own_redirects_are_fetched(loopback: LoopbackServer) -> None:
    """The source itself may be on loopback or a private network (the reviewer chose it), and so may
    its redirects within its own origin."""
    result = fetch_one(loopback.url("/redirect/2"))
    assert (result.outcome, result.final_url) == ("ok", loopback.url("/stable"))


def test_fetch_partial_content_is_refused(loopback: LoopbackServer) -> None:
    url = loopback.url("/partial")
    result = fetch_one(url)
    assert (result.outcome, result.status, result.body) == ("refused", 206, None)
    assert result.reason == "HTTP 206 Partial Content: not the whole document (no range was asked for)"


def test_fetch_terminal_controls_from_the_network_are_escaped(loopback: LoopbackServer) -> None:
    loopback.route("/escapes", headers={"Content-Type": "text/html\x1b[2J\x1b]0;owned\x07\u202e"}, body=b"<p>x</p>")
    loopback.route("/bidi", status=302, headers={"Location": "/stable\u202egnp.exe"})
    results = fetch_all([loopback.url("/escapes"), loopback.url("/bidi")], sleep=no_sleep)
    escaped = results[loopback.url("/escapes")]
    assert (escaped.outcome, escaped.content_type) == ("ok", "text/html\\x1b[2J\\x1b]0;owned\\x07\\u202e")
    bidi = results[loopback.url("/bidi")]
    assert (bidi.outcome, bidi.reason) == ("refused", "redirected to a URL that is not a safe http(s) URL")
    assert all("\x1b" not in repr(r) and "\u202e" not in str(r) for r in results.values())
