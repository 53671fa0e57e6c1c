"""The one gate between recorded URLs and clickable links."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

# Controls, space, DEL and C1 controls, the backslash, and the line/paragraph separators.
_REFUSED = re.compile("[\x00-\x20\x7f-\x9f\\\\\u2028\u2029]")


def safe_http_url(value: Any) -> str:
    """Return ``value`` if it is a direct http(s) URL with a host, else ``""``.

    Rejected: other schemes (``javascript:``, ``data:``), scheme-relative
    ``//host``, credentials, control characters, spaces, backslashes (browsers
    read them as ``/``) and ports that do not parse.
    """
    if not isinstance(value, str) or not value:
        return ""
    return value if _is_safe(value) else ""


# The same addresses recur in every bundle that cites a source, and urlsplit is the cost: the
# answer for a string is remembered, per process.
@lru_cache(maxsize=4096)
def _is_safe(value: str) -> bool:
    if _REFUSED.search(value):
        return False
    try:
        parts = urlsplit(value)
        if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
            return False
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            return False
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return False
    return True
