"""``claim-evidence.toml``: registered pages (and which must carry evidence, which are left out),
the stylesheet href and where the site is served, display language, the site's policy
(``require_quotes``, the review age policy ``[freshness]``, the review signatures ``[reviews]``), the
snapshot folder, and the news outputs.

One file at the site root serves both paths: ``static-helper`` reads the
top-level keys, ``claim-evidence prepublish`` also reads the ``[news]`` table.
"""

from __future__ import annotations

import os
import posixpath
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._answer.config import ChatConfig, chat_config
from .._check.options import DEFAULT_STYLESHEET, PageOptions, SiteLayout
from .._core.diagnostics import Diagnostic, InputError
from .._core.textio import BOM
from .._core.tomltable import check_keys, config_error, table
from .._record.freshness import DEFAULT_MAX_AGE_DAYS, EXPIRED_SEVERITIES, Freshness, at_build
from .._record.policy import Policy
from .._record.vocabulary import LABELS
from .._snapshots.store import SNAPSHOT_DIR_NAME
from .reviews import reviews_table

CONFIG_NAME = "claim-evidence.toml"
# static-helper's cache of passing results, beside the config; the site walk skips it.
CACHE_DIR_NAME = ".claim-evidence-cache"
KNOWN_KEYS = (
    "pages",
    "require",
    "exclude",
    "stylesheet",
    "base_url",
    "web_root",
    "lang",
    "require_quotes",
    "snapshots",
    "search_ignore",
    "sources",
    "template_dir",
    "news",
    "freshness",
    "chat",
    "reviews",
)
FRESHNESS_KEYS = ("max_age_days", "expired", "markers")
NEWS_KEYS = ("corrections", "dayfiles", "data_json", "pages", "homepage_json", "evidence_url")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class NewsConfig:
    """The ``[news]`` table: the correction registry and the derived outputs to compare.

    Paths and globs are relative to the site root, like ``pages``.
    """

    corrections: str
    dayfiles: tuple[str, ...] = ()
    data_json: tuple[str, ...] = ()
    pages: tuple[str, ...] = ()
    homepage_json: tuple[str, ...] = ()
    evidence_url: str | None = None


@dataclass(frozen=True)
class Config:
    """The settings, and the folder page globs are relative to."""

    root: Path
    pages: tuple[str, ...] = ()
    options: PageOptions = PageOptions()
    path: Path | None = None
    news: NewsConfig | None = None
    chat: ChatConfig | None = None  # the [chat] table: kb build and the answer guard (see _answer.config)
    sources: tuple[
        str, ...
    ] = ()  # globs of the files pages are built from, where findings are placed (_site.sourcemap)
    # The top-level keys the file sets: where a generator has a setting of its own (its base URL), the
    # plugins take it only when the file leaves the key out, so that what is written here always wins.
    keys: frozenset[str] = frozenset()

    @property
    def require(self) -> tuple[str, ...]:
        """Globs of the pages that must carry evidence markup (each must be registered too)."""
        return self.options.site.require if self.options.site else ()

    @property
    def exclude(self) -> tuple[str, ...]:
        """Globs of files (or folders) that are no pages of the site: templates, partials."""
        return self.options.site.exclude if self.options.site else ()


def find_config(start: Path) -> Path | None:
    """The nearest ``claim-evidence.toml`` in ``start`` or a parent folder."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def load_config(path: str | os.PathLike[str]) -> Config:
    """Read and check a config file; any problem is an :class:`InputError` naming the file."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            # A UTF-8 BOM (some Windows editors write one) is accepted, as in pages and JSON; tomllib refuses it.
            data = tomllib.loads(handle.read().decode("utf-8").removeprefix(BOM))
    except FileNotFoundError:
        raise config_error("SH001", "config file not found", name) from None
    except OSError as exc:
        raise config_error("SH001", f"cannot read config: {exc.strerror or exc}", name) from None
    except UnicodeDecodeError:
        raise config_error("SH001", "config is not UTF-8", name) from None
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_POSITION.search(str(exc))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        reason = _TOML_POSITION.sub("", str(exc)).strip()
        raise config_error("SH001", f"invalid TOML: {reason}", name, line, column) from None
    return _from_data(data, Path(name).resolve().parent, Path(name))


def _globs(value: Any, key: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str) and value:
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise config_error("SH003", f'{key} must be a list of paths or globs, e.g. {key} = ["news/*.txt"]', name)
    return tuple(value)


def _news(data: Any, name: str) -> NewsConfig:
    data = table(data, "news", NEWS_KEYS, name)
    corrections = data.get("corrections")
    if not isinstance(corrections, str) or not corrections:
        raise config_error(
            "SH003",
            'news.corrections must name the correction registry JSON, e.g. corrections = "data/corrections.json"',
            name,
        )
    pattern = data.get("evidence_url")
    if pattern is not None and (not isinstance(pattern, str) or "{claim_id}" not in pattern):
        raise config_error("SH003", "news.evidence_url must be a pattern with {yyyy} {mm} {dd} and {claim_id}", name)
    dayfiles, data_json, pages, homepage_json = (
        _globs(data.get(key, []), f"news.{key}", name) for key in ("dayfiles", "data_json", "pages", "homepage_json")
    )
    return NewsConfig(corrections, dayfiles, data_json, pages, homepage_json, pattern)


def _from_data(data: dict[str, Any], root: Path, path: Path) -> Config:
    name = os.fspath(path)
    check_keys(data, KNOWN_KEYS, name)
    pages = data.get("pages", [])
    if not isinstance(pages, list) or not all(isinstance(p, str) and p for p in pages):
        raise config_error("SH003", 'pages must be a list of glob strings, e.g. pages = ["articles/*.html"]', name)
    require, exclude = (_glob_list(data.get(key, []), key, example, name) for key, example in _PAGE_GLOBS)
    stylesheet = data.get("stylesheet", DEFAULT_STYLESHEET)
    if stylesheet is not False and (not isinstance(stylesheet, str) or not stylesheet.strip()):
        message = 'stylesheet must be the href of the shared evidence stylesheet, or false to skip SH130 (e.g. stylesheet = "/assets/claim-evidence.css")'
        raise config_error("SH003", message, name)
    lang = data.get("lang", "ja")
    if lang not in LABELS:
        raise config_error("SH003", f"lang must be one of {', '.join(sorted(LABELS))} (found {lang!r})", name)
    search_ignore = data.get("search_ignore", False)
    if not isinstance(search_ignore, bool):
        raise config_error("SH003", f"search_ignore must be true or false (found {search_ignore!r})", name)
    require_quotes = data.get("require_quotes", False)
    if not isinstance(require_quotes, bool):
        raise config_error("SH003", f"require_quotes must be true or false (found {require_quotes!r})", name)
    snapshots = data.get("snapshots", SNAPSHOT_DIR_NAME)
    if not isinstance(snapshots, str) or not snapshots.strip():
        raise config_error(
            "SH003",
            f'snapshots must be the folder of the source snapshots, e.g. snapshots = "{SNAPSHOT_DIR_NAME}"',
            name,
        )
    news = _news(data["news"], name) if "news" in data else None
    freshness = _freshness(data["freshness"], name) if "freshness" in data else None
    chat = chat_config(data["chat"], name) if "chat" in data else None
    reviews = reviews_table(data["reviews"], root, name) if "reviews" in data else None
    sources = _sources(data.get("sources", []), name)
    site = SiteLayout(
        os.fspath(root),
        _web_root(data.get("web_root"), name),
        _base_url(data.get("base_url", "/"), name),
        require,
        exclude,
    )
    options = PageOptions(
        stylesheet.strip() if stylesheet else None,
        lang,
        "stylesheet" in data,
        Policy(require_quotes, reviews),
        os.fspath(root / snapshots),
        site,
        search_ignore=search_ignore,
        freshness=freshness,
        **_templates(data.get("template_dir"), root, name),
    )
    return Config(root, tuple(pages), options, path, news, chat, sources, frozenset(data))


def _freshness(data: Any, name: str) -> Freshness:
    """``[freshness]``: present (even empty), the review age policy is on, with the defaults for what it leaves out."""
    data = table(data, "freshness", FRESHNESS_KEYS, name)
    expired = data.get("expired", "warning")
    if expired not in EXPIRED_SEVERITIES:
        raise config_error("SH003", f'freshness.expired must be "warning" or "error" (found {expired!r})', name)
    ages = data.get("max_age_days", {})
    if not isinstance(ages, dict):
        raise config_error(
            "SH003",
            "freshness.max_age_days must be a table of days per basis, e.g. [freshness.max_age_days] reporting = 60",
            name,
        )
    check_keys(ages, tuple(DEFAULT_MAX_AGE_DAYS), name, "freshness.max_age_days.")
    for basis, days in ages.items():
        if days is not False and (type(days) is not int or days < 1):
            message = f"freshness.max_age_days.{basis} must be a whole number of days (1 or more), or false for no limit (found {days!r})"
            raise config_error("SH003", message, name)
    markers = data.get("markers", False)
    if not isinstance(markers, bool):
        raise config_error("SH003", f"freshness.markers must be true or false (found {markers!r})", name)
    merged = {
        basis: (None if ages.get(basis, default) is False else ages.get(basis, default))
        for basis, default in DEFAULT_MAX_AGE_DAYS.items()
    }
    return Freshness(tuple(merged.items()), expired, markers=markers)


def at_build_date(config: Config, today: str | None) -> Config:
    """``config`` with its build date resolved (``--today``, else ``SOURCE_DATE_EPOCH``, else the clock):
    its review age policy dated, or, without ``[freshness]``, the build date alone (a review dated after
    it is CE406 on every site)."""
    return replace(config, options=replace(config.options, freshness=at_build(config.options.freshness, today)))


_PAGE_GLOBS = (("require", "articles/*.html"), ("exclude", "layouts/**"))


def _glob_list(value: Any, key: str, example: str, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise config_error(
            "SH003", f'{key} must be a list of glob strings, e.g. {key} = ["{example}"] (found {value!r})', name
        )
    return tuple(value)


def _sources(value: Any, name: str) -> tuple[str, ...]:
    """``sources``: globs (relative to the config's folder, ``..`` allowed) of the Markdown and templates the pages are built from."""
    patterns = _glob_list(value, "sources", "content/**/*.md", name)
    for pattern in patterns:
        parts = pattern.replace("\\", "/").split("/")
        if (
            os.path.isabs(pattern)
            or pattern.startswith(("/", "\\"))
            or any("**" in part and part != "**" for part in parts)
        ):
            message = f'sources glob {pattern!r} must be relative to the config\'s folder, with ** only as a whole folder name, e.g. "../content/**/*.md"'
            raise config_error("SH003", message, name)
    return patterns


def _base_url(value: Any, name: str) -> str:
    """``/docs`` → ``/docs/``, ``https://Example.com/docs`` → ``https://example.com/docs/``: always ending in ``/``."""
    if isinstance(value, str) and value == value.strip() and not any(c in value for c in "?#\\"):
        try:
            parts = urlsplit(value)
        except ValueError:  # e.g. an unclosed IPv6 bracket
            parts = None
        if parts is not None and parts.scheme in ("http", "https") and parts.netloc:
            return f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/')}/"
        if parts is not None and not parts.scheme and value.startswith("/") and not value.startswith("//"):
            return value.rstrip("/") + "/"
    message = (
        'base_url must be the URL path the site is served under, e.g. base_url = "/docs/" or '
        f'base_url = "https://example.com/docs/" (no query or fragment; found {value!r})'
    )
    raise config_error("SH003", message, name)


TEMPLATE_NAMES = ("evidence.html.j2", "evidence_summary.html.j2", "malformed.html.j2")


def _templates(value: Any, root: Path, name: str) -> dict[str, Any]:
    """``template_dir``: the site's own templates (any of :data:`TEMPLATE_NAMES`; the packaged ones fill in
    the rest), checked now so that a syntax error stops the run here, with its file and line, not on
    every page. The digest of their bytes goes into every cache key."""
    if value is None:
        return {}
    folder = root / value if isinstance(value, str) and value.strip() else None
    if folder is None or not folder.is_dir():
        message = f'template_dir must be a folder of templates, relative to this file, e.g. template_dir = "evidence-templates" (found {value!r})'
        raise config_error("SH003", message, name)
    import hashlib

    import jinja2

    from .._render.templating import template_environment

    digest = hashlib.sha256()
    found = sorted(p for p in folder.iterdir() if p.name in TEMPLATE_NAMES and p.is_file())
    if not found:
        message = f"template_dir {value!r} holds none of {', '.join(TEMPLATE_NAMES)}: name a template like the packaged one it replaces"
        raise config_error("SH003", message, name)
    environment = template_environment(str(folder.resolve()))
    for path in found:
        try:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
            environment.get_template(path.name)
        except (OSError, UnicodeDecodeError) as exc:
            raise config_error("SH003", f"template_dir: {path.name} cannot be read ({exc})", name) from None
        except jinja2.TemplateSyntaxError as exc:
            raise InputError(
                Diagnostic("SH003", f"template syntax error: {exc.message}", file=str(path), line=exc.lineno)
            ) from None
    return {"template_dir": str(folder.resolve()), "templates_digest": digest.hexdigest()}


def _web_root(value: Any, name: str) -> str:
    """The served folder, relative to the config's folder, as a POSIX path (``""``: the config's folder)."""
    if value is None:
        return ""
    folder = posixpath.normpath(value.replace("\\", "/")) if isinstance(value, str) and value.strip() else None
    if folder is None or folder.startswith(("/", "../")) or folder == "..":
        message = f'web_root must be a folder under the config\'s folder, e.g. web_root = "public" (found {value!r})'
        raise config_error("SH003", message, name)
    return "" if folder == "." else folder


@dataclass(frozen=True)
class SitePages:
    """The pages a config registers, those of them ``require`` names, and what ``exclude`` leaves out."""

    registered: list[Path]
    required: frozenset[Path]
    excluded: GlobMatch


class GlobMatch:
    """What globs match under a root, as paths relative to it (POSIX): the files they match, and the
    folders, which stand for everything under them (``exclude = ["layouts/**"]``, ``["_includes"]``)."""

    def __init__(self, root: Path, patterns: Iterable[str], key: str, name: str | None = None) -> None:
        self.files: set[str] = set()
        self.folders: set[str] = set()
        for pattern in patterns:
            for match in _glob(root, pattern, key, name):
                relative = site_path(root, match)
                if relative is not None:
                    (self.folders if match.is_dir() else self.files).add(relative)

    def __bool__(self) -> bool:
        return bool(self.files or self.folders)

    def __contains__(self, relative: object) -> bool:
        """A path (relative to the root) that a glob matches, or that lies in a folder a glob matches."""
        if not isinstance(relative, str) or not (self.files or self.folders):
            return False
        if relative in self.files or relative in self.folders:
            return True
        parts = relative.split("/")
        return any("/".join(parts[:i]) in self.folders for i in range(1, len(parts)))


def site_path(root: Path, path: Path) -> str | None:
    """``path`` relative to the site root, POSIX (``articles/a.html``); None when it lies outside."""
    # Globs and the walk give paths under the (resolved) root already: no system call for those (the
    # candidates are made one by one: a realpath is a system call per component of the path).
    for make in (lambda: path, lambda: Path(os.path.abspath(path)), lambda: Path(os.path.realpath(path))):
        candidate = make()
        if candidate.is_absolute():
            try:
                return candidate.relative_to(root).as_posix()
            except ValueError:
                continue
    return None


def site_pages(config: Config) -> SitePages:
    """Registered and required pages, sorted, without what ``exclude`` leaves out (exclude wins).

    A ``pages`` or ``require`` glob that matches no file, or only excluded ones, is an error (SH004),
    and so is a required page that ``pages`` does not register (SH008).
    """
    name = _name(config)
    excluded = GlobMatch(config.root, config.exclude, "exclude", name)
    registered = _kept(config, config.pages, "pages", excluded)
    required = _kept(config, config.require, "require", excluded)
    listed = set(registered)
    loose = [(page, pattern) for page, pattern in required.items() if page not in listed]
    if loose:
        page, pattern = loose[0]
        more = f" (and {len(loose) - 1} more)" if len(loose) > 1 else ""
        message = (
            f"require glob {pattern!r} matches {site_path(config.root, page) or page}{more}, which pages does not register: "
            "a page that must carry evidence must be checked as a registered page; add it to pages"
        )
        raise config_error("SH008", message, name)
    return SitePages(sorted(listed), frozenset(required), excluded)


def _kept(config: Config, patterns: tuple[str, ...], key: str, excluded: GlobMatch) -> dict[Path, str]:
    """Files each pattern matches that ``exclude`` keeps, with the first pattern that matched each."""
    found: dict[Path, str] = {}
    name = _name(config)
    for pattern in patterns:
        matches = [p for p in _glob(config.root, pattern, key, name) if p.is_file()]
        if not matches:
            raise config_error("SH004", f"{key} glob {pattern!r} matches no file under {config.root}", name)
        kept = [p for p in matches if not excluded or site_path(config.root, p) not in excluded]
        if not kept:
            message = f"{key} glob {pattern!r} matches only files that exclude leaves out, under {config.root} (exclude wins over {key})"
            raise config_error("SH004", message, name)
        for page in kept:
            found.setdefault(page, pattern)
    return found


def _glob(root: Path, pattern: str, key: str, name: str | None) -> list[Path]:
    # The site is its folder: a page outside it is no page of it (and --write never leaves it, CE011).
    # chat.extra only reads Markdown into the knowledge base; it may name notes kept beside the site.
    if not key.startswith("chat.") and ".." in pattern.replace("\\", "/").split("/"):
        message = f"{key} glob {pattern!r} leaves the config's folder ({root}); the site is that folder: move the config up, or the pages into it"
        raise config_error("SH003", message, name)
    try:
        return list(root.glob(pattern))
    except (ValueError, NotImplementedError):  # an absolute or empty pattern: pathlib refuses it
        raise config_error(
            "SH003", f'{key} glob {pattern!r} must be relative to the config\'s folder, e.g. "articles/*.html"', name
        ) from None


def registered_pages(config: Config) -> list[Path]:
    """Every file the ``pages`` globs match and ``exclude`` keeps, sorted (see :func:`site_pages`)."""
    return site_pages(config).registered


def expand(config: Config, patterns: tuple[str, ...], key: str) -> list[Path]:
    """Files under the site root that ``patterns`` match, sorted; a pattern matching nothing is an error."""
    found: set[Path] = set()
    for pattern in patterns:
        matches = [p for p in _glob(config.root, pattern, key, _name(config)) if p.is_file()]
        if not matches:
            raise config_error("SH004", f"{key} glob {pattern!r} matches no file under {config.root}", _name(config))
        found.update(matches)
    return sorted(found)


def _name(config: Config) -> str | None:
    return os.fspath(config.path) if config.path else None
