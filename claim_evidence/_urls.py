"""The one gate between recorded URLs and clickable links."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def safe_http_url(value: Any) -> str:
    """Return ``value`` if it is a direct http(s) URL with a host, else ``""``.

    Rejected: other schemes (``javascript:``, ``data:``), scheme-relative
    ``//host``, credentials, control characters, spaces, backslashes (browsers
    read them as ``/``) and ports that do not parse.
    """
    if not isinstance(value, str) or not value:
        return ""
    if any(ord(c) <= 0x20 or 0x7F <= ord(c) <= 0x9F for c in value) or "\\" in value:
        return ""
    if "\u2028" in value or "\u2029" in value:
        return ""
    try:
        parts = urlsplit(value)
        if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
            return ""
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            return ""
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return ""
    return value
