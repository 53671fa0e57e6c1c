"""``claim-evidence.toml``: registered pages, stylesheet href, display language, the site's policy
(``require_quotes``), the snapshot folder, and the news outputs.

One file at the site root serves both paths: ``static-helper`` reads the
top-level keys, ``claim-evidence prepublish`` also reads the ``[news]`` table.
"""
from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._diagnostics import Diagnostic, InputError
from ._policy import Policy
from ._snapstore import SNAPSHOT_DIR_NAME
from ._vocabulary import LABELS

from ._page import DEFAULT_STYLESHEET, PageOptions

CONFIG_NAME = "claim-evidence.toml"
# static-helper's cache of passing results, beside the config; the site walk skips it.
CACHE_DIR_NAME = ".claim-evidence-cache"
KNOWN_KEYS = ("pages", "stylesheet", "lang", "require_quotes", "snapshots", "news")
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
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise _error("SH001", "config file not found", name) from None
    except OSError as exc:
        raise _error("SH001", f"cannot read config: {exc.strerror or exc}", name) from None
    except UnicodeDecodeError:
        raise _error("SH001", "config is not UTF-8", name) from None
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_POSITION.search(str(exc))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        reason = _TOML_POSITION.sub("", str(exc)).strip()
        raise _error("SH001", f"invalid TOML: {reason}", name, line, column) from None
    return _from_data(data, Path(name).resolve().parent, Path(name))


def _check_keys(data: dict[str, Any], known: tuple[str, ...], name: str, table: str = "") -> None:
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(known)})"
            raise _error("SH002", f"unknown key {table}{key!r}{hint}", name)


def _globs(value: Any, key: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str) and value:
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise _error("SH003", f"{key} must be a list of paths or globs, e.g. {key} = [\"news/*.txt\"]", name)
    return tuple(value)


def _news(data: Any, name: str) -> NewsConfig:
    if not isinstance(data, dict):
        raise _error("SH003", "news must be a table: [news]", name)
    _check_keys(data, NEWS_KEYS, name, "news.")
    corrections = data.get("corrections")
    if not isinstance(corrections, str) or not corrections:
        raise _error("SH003", "news.corrections must name the correction registry JSON, e.g. corrections = \"data/corrections.json\"", name)
    pattern = data.get("evidence_url")
    if pattern is not None and (not isinstance(pattern, str) or "{claim_id}" not in pattern):
        raise _error("SH003", "news.evidence_url must be a pattern with {yyyy} {mm} {dd} and {claim_id}", name)
    dayfiles, data_json, pages, homepage_json = (
        _globs(data.get(key, []), f"news.{key}", name) for key in ("dayfiles", "data_json", "pages", "homepage_json")
    )
    return NewsConfig(corrections, dayfiles, data_json, pages, homepage_json, pattern)


def _from_data(data: dict[str, Any], root: Path, path: Path) -> Config:
    name = os.fspath(path)
    _check_keys(data, KNOWN_KEYS, name)
    pages = data.get("pages", [])
    if not isinstance(pages, list) or not all(isinstance(p, str) and p for p in pages):
        raise _error("SH003", "pages must be a list of glob strings, e.g. pages = [\"articles/*.html\"]", name)
    stylesheet = data.get("stylesheet", DEFAULT_STYLESHEET)
    if stylesheet is not False and (not isinstance(stylesheet, str) or not stylesheet.strip()):
        message = 'stylesheet must be the href of the shared evidence stylesheet, or false to skip SH130 (e.g. stylesheet = "/assets/claim-evidence.css")'
        raise _error("SH003", message, name)
    lang = data.get("lang", "ja")
    if lang not in LABELS:
        raise _error("SH003", f"lang must be one of {', '.join(sorted(LABELS))} (found {lang!r})", name)
    require_quotes = data.get("require_quotes", False)
    if not isinstance(require_quotes, bool):
        raise _error("SH003", f"require_quotes must be true or false (found {require_quotes!r})", name)
    snapshots = data.get("snapshots", SNAPSHOT_DIR_NAME)
    if not isinstance(snapshots, str) or not snapshots.strip():
        raise _error("SH003", f'snapshots must be the folder of the source snapshots, e.g. snapshots = "{SNAPSHOT_DIR_NAME}"', name)
    news = _news(data["news"], name) if "news" in data else None
    options = PageOptions(
        stylesheet.strip() if stylesheet else None, lang, "stylesheet" in data, Policy(require_quotes), os.fspath(root / snapshots)
    )
    return Config(root, tuple(pages), options, path, news)


def registered_pages(config: Config) -> list[Path]:
    """Every file the ``pages`` globs match, sorted; a glob that matches nothing is an error."""
    return expand(config, config.pages, "pages")


def expand(config: Config, patterns: tuple[str, ...], key: str) -> list[Path]:
    """Files under the site root that ``patterns`` match, sorted; a pattern matching nothing is an error."""
    found: set[Path] = set()
    for pattern in patterns:
        matches = [p for p in config.root.glob(pattern) if p.is_file()]
        if not matches:
            raise _error("SH004", f"{key} glob {pattern!r} matches no file under {config.root}", _name(config))
        found.update(matches)
    return sorted(found)


def _name(config: Config) -> str | None:
    return os.fspath(config.path) if config.path else None


def _error(code: str, message: str, name: str | None, line: int | None = None, column: int | None = None) -> InputError:
    return InputError(Diagnostic(code, message, subject="config", file=name, line=line, column=column))
