"""Which server a URL names, and whether a connection reached a public address.

A redirect to another origin on a loopback, link-local or private address is how a public page
makes a fetcher reach the machine it runs on, or its intranet; :mod:`.fetch` refuses such hops
unless ``allow_private``. The address judged is the connected socket's peer (httpcore's connect
trace), never a name looked up beforehand, so no later lookup of the name can differ from what
was judged (DNS rebinding). :func:`origin` is "the same server", for this rule and for "moved"
in ``sources verify``.
"""

from __future__ import annotations

import contextlib
import ipaddress
from typing import Any
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_CONNECTED = "connection.connect_tcp.complete"  # httpcore's trace event: a new connection, and where it went


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a safe http(s) URL, the default port filled in: what "the same server"
    means, for the address rule here and for "moved" in ``sources verify``."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme, 0)


def host_key(url: str) -> str:
    """``host:port`` of a URL, lowercased, the default port filled in: the key of the per-host slots."""
    _, host, port = origin(url)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class NonPublic(Exception):
    """Raised from httpcore's connect trace to abandon a connection to an address we do not reach."""

    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.address = address


class AddressCheck:
    """httpcore ``trace`` callback: refuse a new connection that reached a non-public address.

    Checked on the connected socket's peer, not on a name looked up beforehand, so what a name
    resolves to, and any later lookup of it, cannot differ from what is judged. Connections are
    not kept alive (see :func:`.httpclient.make_client`), so every request makes one and is checked.
    """

    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed

    async def __call__(self, event: str, info: dict[str, Any]) -> None:
        if self.allowed or event != _CONNECTED:
            return
        stream = info.get("return_value")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        if not is_public(address):
            if stream is not None:
                with contextlib.suppress(Exception):  # closing what we refuse; its failure changes nothing
                    await stream.aclose()
            raise NonPublic(address)


def is_public(address: str) -> bool:
    """Whether ``address`` is a global unicast address (not loopback, link-local, private, shared,
    reserved, documentation or multicast); an IPv4-mapped IPv6 address as its IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
