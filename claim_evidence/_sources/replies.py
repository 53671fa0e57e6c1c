"""One HTTP answer as the fetcher reads it (:class:`Reply`): its status and the few headers it
acts on, and, for a 2xx (but a 206), the body with its content codings undone under the cap.

Every other body is left unread: a 404 page or a redirect's body is never stored, so it is not
read either. The cap is checked on the decoded bytes as they are decoded (:mod:`.codings`),
and a ``Content-Length`` past it, without a coding, stops the read before it starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core.hints import terminal_safe
from .codings import NotDecodable, OverCap, codings_to_undo, decoded
from .failures import Broken
from .httpclient import LOCATION

if TYPE_CHECKING:
    import httpx

_DELAY_SECONDS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Reply:
    """One HTTP answer, as far as the fetcher reads it."""

    status: int
    content_type: str | None
    location: str | None
    retry_after: float | None
    body: bytes | None = None
    too_large: bool = False
    refused: str | None = None  # why the body was not read (a content coding we do not decode)


async def read_reply(response: httpx.Response, limit: int) -> Reply | Broken:
    """Read a 2xx body (but a 206) up to the cap, undoing its content codings; leave every other body unread."""
    headers = response.headers
    location = response.extensions.get(LOCATION)
    content_type = headers.get("content-type")
    answer = Reply(
        response.status_code,
        None if content_type is None else terminal_safe(content_type),
        location,
        _retry_after(headers.get("retry-after")),
    )
    if not 200 <= response.status_code < 300 or response.status_code == 206:
        return answer
    codings = codings_to_undo(headers.get_list("content-encoding", split_commas=True))
    if isinstance(codings, str):
        return _with(answer, refused=codings)
    declared = headers.get("content-length", "")
    # Without a content coding the declared length is the decoded length: no need to start.
    if not codings and declared.isdigit() and int(declared) > limit:
        return _with(answer, too_large=True)
    body = bytearray()
    try:
        async for piece in decoded(response.aiter_raw(), codings, limit):
            body += piece
    except OverCap:
        # Closing an unfinished response closes its connection: the rest is never read.
        return _with(answer, too_large=True)
    except NotDecodable as exc:
        return Broken("unreachable", str(exc), retry=True)
    return _with(answer, body=bytes(body))


def _with(answer: Reply, *, body: bytes | None = None, too_large: bool = False, refused: str | None = None) -> Reply:
    return Reply(answer.status, answer.content_type, answer.location, answer.retry_after, body, too_large, refused)


def _retry_after(value: str | None) -> float | None:
    if value is None or not _DELAY_SECONDS.fullmatch(value.strip()):
        return None
    return float(value.strip())
