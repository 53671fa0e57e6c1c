"""The shared evidence stylesheet link (SH130): the evidence blocks are unstyled without it.

``stylesheet`` names the file by its path from the web root, so a link passes when its href, resolved
against where the page is served, points to that file, whatever way it is written (relative, rooted
or a full URL of the site's own).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urljoin, urlsplit

from .._core.diagnostics import Diagnostic
from .options import PageOptions

if TYPE_CHECKING:
    from .._html.locate import Element, Located
    from .page import Finding, Page


def _stylesheet(page: Page, at: int) -> Iterator[Finding]:
    options = page.options
    wanted = options.stylesheet
    linked, near = _linked(page.located.links, options)
    if linked or wanted is None:
        return
    target = _stylesheet_target(options)
    href = wanted if target is None else target[1]
    message = f'shared evidence stylesheet is missing: add <link rel="stylesheet" href="{href}">'
    if target is not None and options.page is not None:
        here = posixpath.dirname(_base_path(options) + options.page)
        message += f' (or, relative to this page, href="{posixpath.relpath(target[1], here)}")'
    if near is not None:
        link, written, served_path = near
        line = page.located.position(link.start)[0]
        message += f'; the stylesheet <link> at line {line} (href="{written}") points to {served_path}'
        if target is not None:
            message += _base_hint(written, served_path, target[1], options)
    if not options.stylesheet_configured:
        message += (
            ' (the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path, or '
            "stylesheet = false when the site ships the evidence CSS in its own stylesheet)"
        )
    yield at, Diagnostic("SH130", message, subject="page")


def links_stylesheet(links: Iterable[Element], options: PageOptions) -> bool:
    """Whether one of a page's ``links`` (:attr:`.._html.locate.Located.links`, or some of them) is the
    shared stylesheet's the way SH130 asks (True where the site checks no link: ``stylesheet = false``);
    ``claim add`` asks this before it adds one, and the page cache (``prefix.head_moved``) of a page whose
    head links point elsewhere since its check."""
    return _linked(links, options)[0]


def misplaced_stylesheet(located: Located, options: PageOptions) -> tuple[Element, str, str] | None:
    """On a page that does not link the stylesheet, the first ``<link rel="stylesheet">`` to a file of its
    name elsewhere: ``(link, href as written, path it points to)`` (what SH130's message names)."""
    return _linked(located.links, options)[1]


def _linked(links: Iterable[Element], options: PageOptions) -> tuple[bool, tuple[Element, str, str] | None]:
    """Whether a ``<link rel="stylesheet">`` points to the configured stylesheet; else the first that
    points to a file of that name elsewhere, ``(link, href as written, path it is served at)``."""
    wanted = options.stylesheet
    if wanted is None:
        return True, None
    target = _stylesheet_target(options)
    near: tuple[Element, str, str] | None = None
    for link in links:
        if "stylesheet" not in link.attrs.get("rel", "").lower().split():
            continue
        href = link.attrs.get("href", "").strip()
        bare = href.split("#")[0].split("?")[0]
        if target is None:
            if bare == wanted:
                return True, None
            continue
        served = _served_at(bare, options)
        if served is not None and served[1] == target[1] and (not served[0] or not target[0] or served[0] == target[0]):
            return True, None
        if near is None and served is not None and posixpath.basename(served[1]) == posixpath.basename(target[1]):
            near = (link, href, served[1])
    return False, near


def stylesheet_href(options: PageOptions, relative: bool) -> str | None:
    """The href ``claim add`` writes in a page's new stylesheet link, one SH130 accepts for that page:
    ``stylesheet`` as written where hrefs must equal it (no config and no place known, or a full URL);
    else the path it is served at (``base_url`` before it), or, with ``relative`` and the page's place
    known, that path relative to the page. None: the site links no stylesheet (``stylesheet = false``)."""
    wanted = options.stylesheet
    target = _stylesheet_target(options)
    if wanted is None or target is None:
        return wanted
    if relative and options.page is not None:
        here = posixpath.dirname(_base_path(options) + options.page)
        return quote(posixpath.relpath(target[1], here))
    return quote(target[1])


def links_relatively(located: Located) -> bool:
    """Whether the page's own ``<link>`` hrefs to its site are all relative (``css/site.css``,
    ``../favicon.ico``), and there is one: a page written that way (to open from disk, or to move with
    its folder) gets a relative stylesheet link too; any rooted one, or none, means rooted."""
    local = [
        href
        for link in located.links
        if (href := link.attrs.get("href", "").strip()) and not href.startswith(("#", "//")) and not _SCHEME.match(href)
    ]
    return bool(local) and not any(href.startswith("/") for href in local)


def _base_hint(href: str, served: str, target: str, options: PageOptions) -> str:
    """What a link to the stylesheet's file under another base says about ``base_url``: a rooted href
    is written by a generator that adds its base (Jekyll ``relative_url``, Hugo ``relURL``, Eleventy's
    ``url`` filter, Astro ``BASE_URL``), so the folder it puts before the stylesheet's path is where the site is served.
    A relative href says nothing about the base (only about the page's depth): no hint."""
    base = _base_path(options)
    below = target[len(base) :]  # the stylesheet's path under the base: "assets/claim-evidence.css"
    rooted = _SCHEME.match(href) or href.startswith("/")
    if not rooted or not target.startswith(base) or not served.endswith("/" + below):
        return ""
    prefix = served[: len(served) - len(below)]
    if prefix == base:
        return ""
    if base.startswith(prefix):
        return (
            f', outside base_url "{_base_url(options)}" (claim-evidence.toml: where the site is served): '
            "let the site generator put its base before the href"
        )
    return f'; a site served under {prefix} sets base_url = "{prefix}" in claim-evidence.toml'


# The site's own origin while hrefs are resolved: a name that can never be a real host (RFC 2606).
_OWN_HOST = "site.invalid"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _base_url(options: PageOptions) -> str:
    return options.site.base_url if options.site else "/"


def _base_path(options: PageOptions) -> str:
    return urlsplit(_base_url(options)).path


def _stylesheet_target(options: PageOptions) -> tuple[str, str] | None:
    """``(host, path)`` where the configured stylesheet is served (host ``""``: any, or the site's own);
    None when hrefs must equal ``stylesheet`` as written: a page checked without a config or a known
    place (``static-helper PATHS`` without one), or a stylesheet given as a full URL (a CDN)."""
    wanted = options.stylesheet
    if (
        (options.site is None and options.page is None)
        or wanted is None
        or _SCHEME.match(wanted)
        or wanted.startswith("//")
    ):
        return None
    base = urlsplit(_base_url(options))
    # stylesheet names the file by its path from the web root ("/assets/x.css"; "assets/x.css" means the same).
    path = posixpath.normpath(base.path + unquote(wanted.split("#")[0].split("?")[0]).lstrip("/"))
    return base.netloc, path


def _served_at(href: str, options: PageOptions) -> tuple[str, str] | None:
    """``(host, path)`` an href (query and fragment removed) points to when the page is served: host ``""``
    for the site's own; None for another scheme, or a relative href on a page whose place is unknown."""
    relative = not (_SCHEME.match(href) or href.startswith("/"))
    if relative and options.page is None:
        return None
    here = f"https://{_OWN_HOST}{quote(_base_path(options) + (options.page or ''))}"
    try:
        parts = urlsplit(urljoin(here, href))
    except ValueError:  # an href urllib cannot read (an unclosed IPv6 bracket): points nowhere we know
        return None
    if parts.scheme.lower() not in ("http", "https"):
        return None
    host = "" if parts.netloc == _OWN_HOST else parts.netloc.lower()
    path = posixpath.normpath(unquote(parts.path) or "/")
    return host, "/" + path.lstrip("/")
