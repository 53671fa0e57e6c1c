from __future__ import annotations

import pytest

from claim_evidence import safe_http_url


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a?b=c#d",
        "http://example.com",
        "HTTPS://EXAMPLE.COM/x",
        "https://example.com:8443/p",
        "https://[::1]/",
        "https://例え.jp/パス",
    ],
)
def test_safe_http_url_accepts_direct_http_urls(url: str) -> None:
    assert safe_http_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//example.com/x",
        "/relative",
        "https://user:pw@example.com/",
        "https://user@example.com/",
        "https://example.com/a b",
        "https://example.com/\x00",
        "https://example.com/\x7f",
        "https://example.com/\u0085",
        " https://example.com/",
        "https://example.com\\@evil.com/",
        "https://example.com:99999/",
        "https://example.com:port/",
        "https:///path",
        "https://",
        "ftp://example.com/",
        "",
        None,
        42,
        ["https://example.com"],
    ],
)
def test_safe_http_url_rejects_everything_else(url: object) -> None:
    assert safe_http_url(url) == ""


@pytest.mark.parametrize(
    "url", ["https://example.com/!x", "https://example.com/~a", "https://example.com/%20", "https://example.com/é"]
)
def test_safe_http_url_accepts_printable_characters_above_space(url: str) -> None:
    assert safe_http_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a\x9fb",  # the last C1 control
        "https://example.com/a\x7fb",  # DEL
        "https://example.com/a\\b",  # a backslash in the path
        "https://example.com/\u2028",  # line separator alone
        "https://example.com/\u2029",  # paragraph separator alone
    ],
)
def test_safe_http_url_rejects_each_unsafe_character_alone(url: str) -> None:
    assert safe_http_url(url) == ""
