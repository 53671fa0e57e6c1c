"""The one ``httpx.AsyncClient`` of a run, configured so that results depend on nothing but the
sources: no environment settings, no cookies, no kept connections, no redirects followed by httpx,
and ``Location`` kept out of httpx's parsing. httpx is imported when the client is made, never
when this module is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .codings import ACCEPT_ENCODING
from .fetchvalues import FetchSettings

if TYPE_CHECKING:
    from http.cookiejar import CookieJar

    import httpx

LOCATION = "claim_evidence.location"


def make_client(settings: FetchSettings) -> httpx.AsyncClient:
    """One client for all fetches of a run.

    ``trust_env=False``: no proxy, ``.netrc`` credentials or certificate
    settings from the environment, so a run means the same thing on a laptop,
    in CI and in tests. Redirects are followed by hand (see ``_Fetcher._fetch`` in :mod:`.fetch`).
    ``Accept-Encoding`` offers what :mod:`.codings` decodes, and only that.
    No connection is kept alive: each request connects anew, so each
    connection passes the address check of the source it serves (a kept one
    would carry one source's allowance over to another's redirect); sources
    are a request or two each, so little is lost.
    """
    import httpx

    return httpx.AsyncClient(
        headers={"User-Agent": settings.user_agent, "Accept-Encoding": ACCEPT_ENCODING},
        timeout=httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        ),
        limits=httpx.Limits(max_connections=settings.workers, max_keepalive_connections=0),
        follow_redirects=False,
        trust_env=False,
        cookies=_no_cookies(),
        event_hooks={"response": [_take_location]},
    )


async def _take_location(response: httpx.Response) -> None:
    """Keep ``Location`` out of httpx's hands.

    Even with redirects off, httpx parses the target of every redirect before
    returning the answer, and a target it cannot parse (``javascript:…``)
    becomes an exception with the answer lost. ``_Fetcher._fetch`` judges the raw value
    with ``safe_http_url`` instead.
    """
    location = response.headers.get("location")
    if location is not None:
        del response.headers["location"]
        response.extensions[LOCATION] = location


def _no_cookies() -> CookieJar:
    """A jar that keeps nothing.

    The client is shared: a cookie set while fetching one source would travel
    with the next request to that site, and results would depend on order.
    """
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
