"""Fetch source URLs for ``sources snapshot`` and ``sources verify``.

A link's fate is a value (:class:`Fetched`), never an exception, the way link
checkers such as lychee report it: a scheduled job over hundreds of sources has
to finish and say what happened to each one, so every network failure is
caught here and turned into one of five outcomes.

``ok``
    a 2xx answer (but 206) whose whole body, decoded, fits in ``max_bytes``.
``dead``
    a server answered, and the source, as linked, cannot be read and waiting
    will not help: 404, 410 and every other 4xx except 429 (403 included: a
    site that refuses us needs a human either way, and the status is in
    ``reason``); a 3xx that is not a redirect or has no ``Location``; a
    redirect loop or more than ``max_redirects`` hops; a failed TLS handshake
    or certificate check (not retried: a retry seconds later meets the same
    certificate).
``unreachable``
    not judged, because no server said anything about the source: 429, 5xx,
    timeouts, the deadline passed, a host name that does not resolve (DNS "no
    such name", not retried; temporary DNS failures are), a refused
    connection, connections reset or broken mid-transfer, a compressed body
    that is corrupt or cut short, and other connect errors, all after the
    retries are spent (or when a retry's wait would pass the deadline or the
    run's budget for ``Retry-After`` waits). Name lookups and connections fail
    on our side too (a resolver or a firewall of the machine running the job),
    so a scheduled job never fails on them; the warning says what happened,
    every run.
``too_large``
    the decoded body passed ``max_bytes``; the rest is never read.
``refused``
    not fetched, or not read, by our choice: the URL or a redirect target is
    not accepted by :func:`claim_evidence._core.urls.safe_http_url` (another scheme
    such as ``file:``, credentials in the URL, control characters) or holds a
    character a terminal acts on, or httpx cannot parse it; a redirect leads
    to another origin on a non-public address; the body comes in a content
    coding we do not decode, or in more than two; the answer is a 206 Partial
    Content. A server answered and we chose not to follow or not to read, and
    the reviewer should see that it was our choice. An unsafe target itself is
    never echoed, since it may carry credentials.

Limits of every fetch (curl's and httpx's per-transfer limits, the way link
checkers apply them to hostile servers):

- **one deadline per source** (``deadline``): from its first request, every
  hop, attempt and backoff wait of the source must be done within it —
  connecting, the headers and the whole body included — else the fetch is
  abandoned as ``unreachable`` and nothing of it is kept; a body dripped a byte
  at a time can no longer pass as ``ok``. Each single wait for data is bounded
  as well (``connect_timeout``, ``read_timeout``).
- **``Retry-After`` waits share one budget per run** (``retry_after_budget``):
  once the waits a server asked for add up to it, a 429 or 503 is not retried
  ("rate limited, not retried").
- **the cap is on decoded bytes, checked as they are decoded**, on every layer
  of the content codings (:mod:`.codings`): nothing past ``max_bytes`` is
  ever decompressed.
- **redirects stay out of private address space**: every connection is
  checked against the address it reached (so a name that resolves there
  counts, and no later lookup can differ); a hop to another origin (scheme,
  host, port) than the source's own on a loopback, link-local, private or
  otherwise non-public address is refused unless ``allow_private``. The source
  itself, and its own origin, may be on such an address: the reviewer chose it.
- at most ``per_host`` requests per host at once, ``retries`` retries per hop,
  ``max_redirects`` hops.

Every value taken from the network and kept or shown (Content-Type, reasons,
redirect targets) has the characters a terminal acts on escaped
(:func:`claim_evidence._core.hints.terminal_safe`), or the target is refused.

Only this module touches the network, and only when called; ``httpx`` is
imported inside functions so ``import claim_evidence`` never loads it. The
fetches of a run are asyncio tasks of one ``httpx.AsyncClient``: a deadline is
a cancellation, the one way to stop a request whose headers are still
arriving.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urljoin

from .._core.hints import terminal_safe
from .._core.urls import safe_http_url
from .addresses import AddressCheck, NonPublic, host_key, origin
from .failures import Broken, connect_failure, describe, net_text
from .fetchvalues import Fetched, FetchSettings, Outcome
from .httpclient import make_client
from .replies import Reply, read_reply

if TYPE_CHECKING:
    import httpx

# 300, 304, 305 and 306 carry no target we should follow; they are judged as answers.
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Neither a server's Retry-After nor our own doubling may stall a source for longer than this.
_MAX_DELAY = 30.0
_T = TypeVar("_T")


def fetch_all(
    urls: Sequence[str],
    settings: FetchSettings | None = None,
    *,
    sleep: Callable[[float], None] | None = None,
) -> dict[str, Fetched]:
    """Fetch every URL once; return the results keyed by URL, in input order.

    Duplicates are fetched once. Unsafe URLs are ``refused`` without any
    network. ``sleep`` waits out retry delays: by default a real wait that
    holds up no other fetch; tests pass a recorder that returns at once, so
    they never wait. Exceptions other than network failures (bugs) propagate.
    """
    settings = settings if settings is not None else FetchSettings()
    unique = list(dict.fromkeys(urls))
    results = {url: _refused(url, "not a safe http(s) URL") for url in unique if not safe_http_url(url)}
    wanted = _interleave_by_host([url for url in unique if url not in results])
    if wanted:
        results.update(zip(wanted, _run(_Fetcher(settings, sleep).fetch_many(wanted)), strict=True))
    return {url: results[url] for url in unique}


def _run(work: Coroutine[Any, Any, _T]) -> _T:
    """Run the fetches to the end: on this thread, or, when called from async code (whose loop
    must not be blocked nor re-entered), on a loop of their own in a thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="claim-evidence-fetch") as pool:
        return pool.submit(asyncio.run, work).result()


def _refused(url: str, reason: str) -> Fetched:
    return Fetched(url=url, outcome="refused", final_url=None, status=None, content_type=None, body=None, reason=reason)


def _interleave_by_host(urls: list[str]) -> list[str]:
    """Order work round-robin over hosts.

    Fetches take a worker slot in submission order; fifty URLs of one host in
    a row would park every worker on that host's slots while other hosts wait.
    """
    queues: dict[str, list[str]] = {}
    for url in urls:
        queues.setdefault(host_key(url), []).append(url)
    ordered: list[str] = []
    for rank in range(max((len(q) for q in queues.values()), default=0)):
        ordered.extend(q[rank] for q in queues.values() if rank < len(q))
    return ordered


class _Clock:
    """The deadline of one source's fetch, running from its first request (not from when it was
    queued: waiting for a busy host's slot is other sources' time)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end: float | None = None

    def start(self) -> None:
        if self._end is None:
            self._end = time.monotonic() + self.seconds

    def remaining(self) -> float:
        return self.seconds if self._end is None else self._end - time.monotonic()

    def passed(self) -> str:
        return f"timed out: not finished within the {self.seconds:g} s deadline"


class _Fetcher:
    """The run's state: the settings, the per-host slots and what is left of the wait budget.
    One instance serves one event loop (``fetch_many``)."""

    def __init__(self, settings: FetchSettings, sleep: Callable[[float], None] | None) -> None:
        self._settings = settings
        self._sleep = sleep
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._waits_left = settings.retry_after_budget

    async def fetch_many(self, urls: Sequence[str]) -> list[Fetched]:
        """Fetch ``urls`` concurrently (``workers`` at once, ``per_host`` per host); results in order.
        A task group: on Ctrl-C or a bug the fetches still running are cancelled, none is left behind."""
        workers = asyncio.Semaphore(self._settings.workers)

        async with make_client(self._settings) as client:

            async def one(url: str) -> Fetched:
                async with workers:
                    return await self._fetch(client, url)

            try:
                async with asyncio.TaskGroup() as group:
                    tasks = [group.create_task(one(url)) for url in urls]
            except* Exception as failed:  # a bug: raised as itself, not wrapped in a group only asyncio needs
                raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _fetch(self, client: httpx.AsyncClient, url: str) -> Fetched:
        """Follow redirects by hand so each hop passes the safe-URL gate."""
        clock = _Clock(self._settings.deadline)
        chain: list[str] = []
        current = url
        while True:
            answer, attempts, why_not = await self._hop(client, url, current, clock)
            reached = current if chain else None
            if isinstance(answer, Broken):
                reason = _with_why(_after_attempts(answer.reason, attempts), why_not)
                return Fetched(url, answer.outcome, reached, None, None, None, reason, tuple(chain))
            if answer.status not in _REDIRECT_STATUSES or answer.location is None:
                return self._judge(
                    url, current, answer, _with_why(_after_attempts("", attempts), why_not), tuple(chain)
                )
            target = safe_http_url(urljoin(current, answer.location))
            if terminal_safe(target) != target:  # a bidi override or a control a terminal would act on
                target = ""
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

    def _judge(self, url: str, final: str, answer: Reply, retried: str, chain: tuple[str, ...]) -> Fetched:
        """The outcome of the last answer; ``retried`` is what to say of the attempts (" after 3
        attempts", "; not retried: …"), which only a retryable status needs."""
        outcome: Outcome
        if answer.refused is not None:
            outcome, reason = "refused", answer.refused
        elif answer.too_large:
            outcome, reason = "too_large", f"body over {self._settings.max_bytes} bytes"
        elif answer.status == 206:
            # We never ask for a range: a part stored as the snapshot would pass for the whole.
            outcome, reason = "refused", "HTTP 206 Partial Content: not the whole document (no range was asked for)"
        elif 200 <= answer.status < 300:
            outcome, reason = "ok", f"HTTP {answer.status}"
        elif _retryable_status(answer.status):
            outcome, reason = "unreachable", f"HTTP {answer.status}{retried}"
        elif answer.status in _REDIRECT_STATUSES:
            outcome, reason = "dead", f"HTTP {answer.status} without a Location header"
        else:
            outcome, reason = "dead", f"HTTP {answer.status}"
        return Fetched(url, outcome, final, answer.status, answer.content_type, answer.body, reason, chain)

    async def _hop(
        self, client: httpx.AsyncClient, source: str, url: str, clock: _Clock
    ) -> tuple[Reply | Broken, int, str]:
        """One request with its retries, holding the host's slot throughout: the answer, the
        attempts made, and why no further attempt was made when one was due ("" otherwise).

        The slot stays held while backing off: a host that says 429 or 503 is
        asking for less traffic, not for our other requests instead.
        """
        async with self._slot(url):
            clock.start()
            attempt = 1
            while True:
                answer = await self._attempt(client, source, url, clock)
                delay, why_not = self._retry_delay(answer, attempt, clock)
                if delay is None:
                    return answer, attempt, why_not
                await self._wait(delay)
                attempt += 1

    def _slot(self, url: str) -> asyncio.Semaphore:
        key = host_key(url)
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = asyncio.BoundedSemaphore(self._settings.per_host)
        return slot

    def _retry_delay(self, answer: Reply | Broken, attempt: int, clock: _Clock) -> tuple[float | None, str]:
        """The wait before the next attempt, or ``None`` and why not when one was due but not made."""
        if attempt > self._settings.retries:
            return None, ""
        if isinstance(answer, Broken):
            retry, hinted, lead = answer.retry, None, ""
        else:
            retry, hinted = _retryable_status(answer.status), answer.retry_after
            lead = "rate limited, " if answer.status == 429 else ""
        if not retry:
            return None, ""
        delay = min(hinted if hinted is not None else self._settings.backoff * 2 ** (attempt - 1), _MAX_DELAY)
        if delay >= clock.remaining():
            return None, f"{lead}not retried: waiting {delay:g} s would pass the {self._settings.deadline:g} s deadline"
        if hinted:
            # The server asked for this wait; a run of many sources on one rate-limited host must not
            # add such waits up without end (the fetches wait in parallel, the budget counts them all).
            if delay > self._waits_left:
                return (
                    None,
                    f"{lead}not retried: the run's {self._settings.retry_after_budget:g} s for Retry-After waits are spent",
                )
            self._waits_left -= delay
        return delay, ""

    async def _wait(self, seconds: float) -> None:
        if self._sleep is None:
            await asyncio.sleep(seconds)
        else:
            self._sleep(seconds)

    async def _attempt(self, client: httpx.AsyncClient, source: str, url: str, clock: _Clock) -> Reply | Broken:
        """One request within what is left of the deadline: past it, the request is cancelled
        wherever it is (connecting, a header line still arriving, the body), and nothing is kept."""
        remaining = clock.remaining()
        if remaining <= 0:
            return Broken("unreachable", clock.passed(), retry=False)
        try:
            async with asyncio.timeout(remaining):
                return await self._request(client, source, url)
        except TimeoutError:
            return Broken("unreachable", clock.passed(), retry=False)

    async def _request(self, client: httpx.AsyncClient, source: str, url: str) -> Reply | Broken:
        import httpx

        # The source's own origin may be private (the reviewer chose it); another origin only when allowed.
        check = AddressCheck(self._settings.allow_private or origin(url) == origin(source))
        try:
            async with client.stream("GET", url, extensions={"trace": check}) as response:
                return await read_reply(response, self._settings.max_bytes)
        except NonPublic as exc:
            return Broken(
                "refused",
                f"redirected to {url}, a non-public address ({net_text(exc.address)}): not followed",
                retry=False,
            )
        except httpx.TimeoutException as exc:
            return Broken("unreachable", self._timed_out(exc), retry=True)
        except httpx.ConnectError as exc:
            return connect_failure(exc)
        except (httpx.ReadError, httpx.WriteError, httpx.CloseError, httpx.RemoteProtocolError) as exc:
            return Broken("unreachable", f"connection broken: {describe(exc)}", retry=True)
        except httpx.InvalidURL as exc:
            return Broken("refused", f"not a URL httpx can request: {describe(exc)}", retry=False)
        except httpx.HTTPError as exc:
            return Broken("unreachable", f"request failed: {describe(exc)}", retry=False)

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


def _retryable_status(status: int) -> bool:
    return status == 429 or 500 <= status < 600


def _after_attempts(reason: str, attempts: int) -> str:
    if attempts == 1:
        return reason
    if not reason or reason.startswith("HTTP "):
        return f"{reason} after {attempts} attempts"
    return f"{reason}, {attempts} attempts"


def _with_why(reason: str, why_not: str) -> str:
    return f"{reason}; {why_not}" if why_not else reason
