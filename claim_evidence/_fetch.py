"""Fetch source URLs for ``sources snapshot`` and ``sources verify``.

A link's fate is a value (:class:`Fetched`), never an exception, the way link
checkers such as lychee report it: a scheduled job over hundreds of sources has
to finish and say what happened to each one, so every network failure is
caught here and turned into one of five outcomes.

``ok``
    a 2xx answer whose body (decoded, see below) fits in ``max_bytes``.
``dead``
    the source, as linked, cannot be read and waiting will not help: 404, 410
    and every other 4xx except 429 (403 included: a site that refuses us
    needs a human either way, and the status is in ``reason``); a 3xx that is
    not a redirect or has no ``Location``; a redirect loop or more than
    ``max_redirects`` hops; a host name that does not exist (DNS "no such
    name", not retried); a failed TLS handshake or certificate check (not
    retried: a retry seconds later meets the same certificate); a refused
    connection once the retries are spent (a server mid-restart refuses for
    a moment, a gone host refuses for ever).
``unreachable``
    not judged: 429, 5xx, timeouts, temporary DNS failures, connections reset
    or broken mid-transfer, and other connect errors (``network unreachable``
    is usually our side), all after the retries are spent.
``too_large``
    the decoded body passed ``max_bytes``; the rest is never read.
``refused``
    not fetched because the URL, or a redirect target, is not accepted by
    :func:`claim_evidence._urls.safe_http_url` (another scheme such as
    ``file:``, credentials in the URL, control characters), or httpx cannot
    parse it. A redirect to such a URL is ``refused`` rather than ``dead``:
    the server answered, we chose not to follow, and the reviewer should see
    that it was our choice. The unsafe target itself is never echoed, since
    it may carry credentials.

Only this module touches the network, and only when called; ``httpx`` is
imported inside functions so ``import claim_evidence`` never loads it.
"""
from __future__ import annotations

import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Self
from urllib.parse import urljoin, urlsplit

from ._urls import safe_http_url

if TYPE_CHECKING:
    from http.cookiejar import CookieJar

    import httpx

Outcome = Literal["ok", "dead", "unreachable", "too_large", "refused"]

# 300, 304, 305 and 306 carry no target we should follow; they are judged as answers.
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Neither a server's Retry-After nor our own doubling may stall a run for longer than this.
_MAX_DELAY = 30.0
_DELAY_SECONDS = re.compile(r"[0-9]+")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOCATION = "claim_evidence.location"


def _default_user_agent() -> str:
    # Looked up when a FetchSettings is made, not when this module is imported: the
    # package __init__ defines __version__ after its own imports.
    try:
        from . import __version__ as version
    except ImportError:  # a FetchSettings() made while the package __init__ is still running
        from importlib.metadata import version as installed

        version = installed("claim-evidence")
    return f"claim-evidence/{version} (source snapshots)"


@dataclass(frozen=True)
class Fetched:
    """What happened to one URL.

    ``final_url`` is the last URL the fetch reached (the URL itself when there
    was no redirect); it is ``None`` only when the very first request got no
    answer. ``status`` and ``content_type`` belong to the last answer received,
    ``body`` is set for ``ok`` alone, and ``redirects`` lists the URLs that
    answered with a redirect, in order, before ``final_url``.
    """

    url: str
    outcome: Outcome
    final_url: str | None
    status: int | None
    content_type: str | None
    body: bytes | None
    reason: str
    redirects: tuple[str, ...] = ()


@dataclass(frozen=True)
class FetchSettings:
    """Limits for one run; the defaults suit a nightly job over public pages.

    ``max_bytes`` caps the *decoded* body (httpx undoes ``Content-Encoding:
    gzip``), since the decoded bytes are what gets stored. ``read_timeout``
    bounds each wait for data, not a whole download. ``backoff`` is the first
    retry's delay and doubles for each further retry; a ``Retry-After`` in
    seconds replaces it (the HTTP-date form is ignored); both stop at 30 s.
    ``per_host`` applies to the lowercased ``host:port``, so two names for
    one machine count as two hosts.
    """

    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    max_bytes: int = 20_000_000
    per_host: int = 2
    workers: int = 8
    retries: int = 2
    backoff: float = 1.0
    max_redirects: int = 10
    user_agent: str = field(default_factory=_default_user_agent)

    def __post_init__(self) -> None:
        if min(self.per_host, self.workers) < 1 or min(self.retries, self.max_redirects, self.max_bytes) < 0:
            raise ValueError("per_host and workers must be at least 1; retries, max_redirects and max_bytes at least 0")
        if min(self.connect_timeout, self.read_timeout) <= 0 or self.backoff < 0:
            raise ValueError("timeouts must be positive and backoff not negative")


def fetch_all(
    urls: Sequence[str],
    settings: FetchSettings | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Fetched]:
    """Fetch every URL once; return the results keyed by URL, in input order.

    Duplicates are fetched once. Unsafe URLs are ``refused`` without any
    network. ``sleep`` waits out retry delays; tests pass a recorder so they
    never wait. Exceptions other than network failures (bugs) propagate.
    """
    settings = settings if settings is not None else FetchSettings()
    unique = list(dict.fromkeys(urls))
    results = {url: _refused(url, "not a safe http(s) URL") for url in unique if not safe_http_url(url)}
    wanted = _interleave_by_host([url for url in unique if url not in results])
    if wanted:
        with _Fetcher(settings, sleep) as fetcher, ThreadPoolExecutor(
            max_workers=min(settings.workers, len(wanted)), thread_name_prefix="claim-evidence-fetch"
        ) as pool:
            try:
                results.update(zip(wanted, pool.map(fetcher.fetch, wanted)))
            except BaseException:
                # On Ctrl-C or a bug, do not go on to fetch the queued URLs.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    return {url: results[url] for url in unique}


def _refused(url: str, reason: str) -> Fetched:
    return Fetched(url=url, outcome="refused", final_url=None, status=None, content_type=None, body=None, reason=reason)


def _host_key(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 0)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _interleave_by_host(urls: list[str]) -> list[str]:
    """Order work round-robin over hosts.

    Workers take URLs in submission order; fifty URLs of one host in a row
    would park every worker on that host's semaphore while other hosts wait.
    """
    queues: dict[str, list[str]] = {}
    for url in urls:
        queues.setdefault(_host_key(url), []).append(url)
    ordered: list[str] = []
    for rank in range(max((len(q) for q in queues.values()), default=0)):
        ordered.extend(q[rank] for q in queues.values() if rank < len(q))
    return ordered


@dataclass(frozen=True)
class _Reply:
    """One HTTP answer, as far as this module reads it."""

    status: int
    content_type: str | None
    location: str | None
    retry_after: float | None
    body: bytes | None = None
    too_large: bool = False


@dataclass(frozen=True)
class _Broken:
    """A request that got no answer; ``retry`` says whether trying again may help."""

    outcome: Literal["dead", "unreachable", "refused"]
    reason: str
    retry: bool


class _Fetcher:
    """One shared client and the per-host semaphores, used by every worker thread."""

    def __init__(self, settings: FetchSettings, sleep: Callable[[float], None]) -> None:
        self._settings = settings
        self._sleep = sleep
        self._client = _make_client(settings)
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._client.close()

    def fetch(self, url: str) -> Fetched:
        """Follow redirects by hand so each hop passes the safe-URL gate."""
        chain: list[str] = []
        current = url
        while True:
            answer, attempts = self._hop(current)
            reached = current if chain else None
            if isinstance(answer, _Broken):
                reason = _after_attempts(answer.reason, attempts)
                return Fetched(url, answer.outcome, reached, None, None, None, reason, tuple(chain))
            if answer.status not in _REDIRECT_STATUSES or answer.location is None:
                return self._judge(url, current, answer, attempts, tuple(chain))
            target = safe_http_url(urljoin(current, answer.location))
            problem = self._redirect_problem(current, target, chain)
            if problem is not None:
                outcome, reason = problem
                return Fetched(url, outcome, current, answer.status, answer.content_type, None, reason, tuple(chain))
            chain.append(current)
            current = target

    def _redirect_problem(self, current: str, target: str, chain: list[str]) -> tuple[Outcome, str] | None:
        if not target:
            return "refused", "redirected to a URL that is not a safe http(s) URL"
        # Without cookies a GET that comes back to a visited URL will go round again.
        if target == current or target in chain:
            return "dead", f"redirect loop back to {target}"
        if len(chain) >= self._settings.max_redirects:
            return "dead", f"more than {self._settings.max_redirects} redirects"
        return None

    def _judge(self, url: str, final: str, answer: _Reply, attempts: int, chain: tuple[str, ...]) -> Fetched:
        outcome: Outcome
        if answer.too_large:
            outcome, reason = "too_large", f"body over {self._settings.max_bytes} bytes"
        elif 200 <= answer.status < 300:
            outcome, reason = "ok", f"HTTP {answer.status}"
        elif _retryable_status(answer.status):
            outcome, reason = "unreachable", _after_attempts(f"HTTP {answer.status}", attempts)
        elif answer.status in _REDIRECT_STATUSES:
            outcome, reason = "dead", f"HTTP {answer.status} without a Location header"
        else:
            outcome, reason = "dead", f"HTTP {answer.status}"
        return Fetched(url, outcome, final, answer.status, answer.content_type, answer.body, reason, chain)

    def _hop(self, url: str) -> tuple[_Reply | _Broken, int]:
        """One request with its retries, holding the host's slot throughout.

        The slot stays held while backing off: a host that says 429 or 503 is
        asking for less traffic, not for our other requests instead.
        """
        with self._slot(url):
            attempt = 1
            while True:
                answer = self._request(url)
                delay = self._retry_delay(answer, attempt)
                if delay is None:
                    return answer, attempt
                self._sleep(delay)
                attempt += 1

    def _slot(self, url: str) -> threading.BoundedSemaphore:
        key = _host_key(url)
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = threading.BoundedSemaphore(self._settings.per_host)
        return slot

    def _retry_delay(self, answer: _Reply | _Broken, attempt: int) -> float | None:
        if attempt > self._settings.retries:
            return None
        if isinstance(answer, _Broken):
            retry, hinted = answer.retry, None
        else:
            retry, hinted = _retryable_status(answer.status), answer.retry_after
        if not retry:
            return None
        delay = hinted if hinted is not None else self._settings.backoff * 2 ** (attempt - 1)
        return min(delay, _MAX_DELAY)

    def _request(self, url: str) -> _Reply | _Broken:
        import httpx

        try:
            with self._client.stream("GET", url) as response:
                return self._read(response)
        except httpx.TimeoutException as exc:
            return _Broken("unreachable", self._timed_out(exc), retry=True)
        except httpx.ConnectError as exc:
            return _connect_failure(exc)
        except (httpx.ReadError, httpx.WriteError, httpx.CloseError, httpx.RemoteProtocolError, httpx.DecodingError) as exc:
            return _Broken("unreachable", f"connection broken: {_describe(exc)}", retry=True)
        except httpx.InvalidURL as exc:
            return _Broken("refused", f"not a URL httpx can request: {_describe(exc)}", retry=False)
        except httpx.HTTPError as exc:
            return _Broken("unreachable", f"request failed: {_describe(exc)}", retry=False)

    def _read(self, response: httpx.Response) -> _Reply:
        """Read a 2xx body up to the cap; leave every other body unread."""
        headers = response.headers
        location = response.extensions.get(_LOCATION)
        answer = _Reply(response.status_code, headers.get("content-type"), location, _retry_after(headers.get("retry-after")))
        if not 200 <= response.status_code < 300:
            return answer
        limit = self._settings.max_bytes
        declared = headers.get("content-length", "")
        # Without Content-Encoding the declared length is the decoded length: no need to start.
        if "content-encoding" not in headers and declared.isdigit() and int(declared) > limit:
            return _with(answer, too_large=True)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                # Closing an unfinished response closes its connection: the rest is never read.
                return _with(answer, too_large=True)
            chunks.append(chunk)
        return _with(answer, body=b"".join(chunks))

    def _timed_out(self, exc: httpx.TimeoutException) -> str:
        import httpx

        phase, seconds = "read", self._settings.read_timeout
        if isinstance(exc, httpx.ConnectTimeout):
            phase, seconds = "connect", self._settings.connect_timeout
        elif isinstance(exc, httpx.PoolTimeout):
            phase, seconds = "pool", self._settings.connect_timeout
        elif isinstance(exc, httpx.WriteTimeout):
            phase = "write"
        return f"timed out after {seconds:g} s ({phase})"


def _with(answer: _Reply, *, body: bytes | None = None, too_large: bool = False) -> _Reply:
    return _Reply(answer.status, answer.content_type, answer.location, answer.retry_after, body, too_large)


def _make_client(settings: FetchSettings) -> httpx.Client:
    """One client for all workers (httpx clients are thread-safe).

    ``trust_env=False``: no proxy, ``.netrc`` credentials or certificate
    settings from the environment, so a run means the same thing on a laptop,
    in CI and in tests. Redirects are followed by hand (see ``fetch``).
    As many pooled connections as workers, so no worker waits for the pool.
    """
    import httpx

    return httpx.Client(
        headers={"User-Agent": settings.user_agent},
        timeout=httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        ),
        limits=httpx.Limits(max_connections=settings.workers, max_keepalive_connections=settings.workers),
        follow_redirects=False,
        trust_env=False,
        cookies=_no_cookies(),
        event_hooks={"response": [_take_location]},
    )


def _take_location(response: httpx.Response) -> None:
    """Keep ``Location`` out of httpx's hands.

    Even with redirects off, httpx parses the target of every redirect before
    returning the answer, and a target it cannot parse (``javascript:…``)
    becomes an exception with the answer lost. ``fetch`` judges the raw value
    with ``safe_http_url`` instead.
    """
    location = response.headers.get("location")
    if location is not None:
        del response.headers["location"]
        response.extensions[_LOCATION] = location


def _no_cookies() -> CookieJar:
    """A jar that keeps nothing.

    The client is shared: a cookie set while fetching one source would travel
    with the next request to that site, and results would depend on order.
    """
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


def _connect_failure(exc: BaseException) -> _Broken:
    """Tell a dead host from a bad moment by the OS error under httpx's ConnectError."""
    cause = _os_error(exc)
    if isinstance(cause, socket.gaierror):
        if cause.errno == socket.EAI_AGAIN:
            return _Broken("unreachable", f"DNS lookup failed for now: {cause.strerror}", retry=True)
        return _Broken("dead", f"DNS lookup failed: {cause.strerror or _describe(cause)}", retry=False)
    if isinstance(cause, ssl.SSLCertVerificationError):
        return _Broken("dead", f"TLS certificate rejected: {cause.verify_message or _describe(cause)}", retry=False)
    if isinstance(cause, ssl.SSLError):
        return _Broken("dead", f"TLS failed: {cause.strerror or _describe(cause)}", retry=False)
    if isinstance(cause, ConnectionRefusedError):
        return _Broken("dead", "connection refused", retry=True)
    return _Broken("unreachable", f"could not connect: {_describe(exc)}", retry=True)


def _os_error(exc: BaseException) -> OSError | None:
    for link in _causes(exc):
        if isinstance(link, OSError):
            return link
    return None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _retryable_status(status: int) -> bool:
    return status == 429 or 500 <= status < 600


def _retry_after(value: str | None) -> float | None:
    if value is None or not _DELAY_SECONDS.fullmatch(value.strip()):
        return None
    return float(value.strip())


def _after_attempts(reason: str, attempts: int) -> str:
    if attempts == 1:
        return reason
    if reason.startswith("HTTP "):
        return f"{reason} after {attempts} attempts"
    return f"{reason}, {attempts} attempts"


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"
