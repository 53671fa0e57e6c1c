"""A request that got no usable answer (:class:`Broken`), and its reason in words.

httpx wraps what failed (a DNS lookup, a refused connection, a TLS check) in a ``ConnectError``;
:func:`connect_failure` names it by the OS error underneath and says whether a retry may help.
The words of an exception may quote the server, so every such text goes through
:func:`net_text`: one line, the characters a terminal acts on escaped, 200 characters at most.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from .._core.hints import terminal_safe


@dataclass(frozen=True)
class Broken:
    """A request that got no usable answer; ``retry`` says whether trying again may help."""

    outcome: Literal["dead", "unreachable", "refused"]
    reason: str
    retry: bool


def connect_failure(exc: BaseException) -> Broken:
    """Name what failed by the OS error under httpx's ConnectError, and whether a retry may help; only a
    TLS failure, where a server did answer, is ``dead``."""
    cause = _os_error(exc)
    if isinstance(cause, socket.gaierror):
        if cause.errno == socket.EAI_AGAIN:
            return Broken("unreachable", f"DNS lookup failed for now: {net_text(str(cause.strerror))}", retry=True)
        return Broken(
            "unreachable",
            f"DNS lookup failed: {net_text(cause.strerror) if cause.strerror else describe(cause)}",
            retry=False,
        )
    if isinstance(cause, ssl.SSLCertVerificationError):
        # The verify message can quote the certificate's names: the server's words.
        return Broken(
            "dead",
            f"TLS certificate rejected: {net_text(cause.verify_message) if cause.verify_message else describe(cause)}",
            retry=False,
        )
    if isinstance(cause, ssl.SSLError):
        return Broken(
            "dead", f"TLS failed: {net_text(cause.strerror) if cause.strerror else describe(cause)}", retry=False
        )
    if isinstance(cause, ConnectionRefusedError):
        return Broken("unreachable", "connection refused", retry=True)
    return Broken("unreachable", f"could not connect: {describe(exc)}", retry=True)


def _os_error(exc: BaseException) -> OSError | None:
    """The OS error that says what failed. anyio reports a failed connect as a bare
    ``OSError("All connection attempts failed")`` caused by the last attempt's error: skip such
    summaries for the error under them."""
    found = None
    for link in _causes(exc):
        if isinstance(link, OSError):
            if type(link) is not OSError or link.errno is not None:
                return link
            found = found or link
    return found


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def describe(exc: BaseException) -> str:
    return net_text(str(exc)) or type(exc).__name__


def net_text(text: str) -> str:
    """Text that came from the network (an exception's words may quote the server), on one line,
    with every character a terminal acts on escaped, cut to 200 characters."""
    text = terminal_safe(" ".join(text.split()))
    return text if len(text) <= 200 else text[:199] + "…"
