"""Files that carry a bundle: a bundle JSON, or an article JSON with ``claim_evidence``."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from ._diagnostics import Diagnostic, InputError, PathParts
from ._jsonio import MAX_BYTES, load_file, read_text
from ._page import read_page_bundle
from ._report import FileResult
from ._validation import iter_diagnostics

ARTICLE_KEY = "claim_evidence"
PAGE_SUFFIXES = (".html", ".htm")


def is_page(path: str | os.PathLike[str]) -> bool:
    """A static page carries its bundle in script#claim-evidence-data."""
    return os.fspath(path).lower().endswith(PAGE_SUFFIXES)


@dataclass
class BundleDocument:
    """A parsed file and where its bundle sits inside it."""

    path: str
    value: Any
    duplicate_keys: list[PathParts]

    @property
    def is_article(self) -> bool:
        """An article item carries its bundle under ``claim_evidence`` and is its own subject."""
        return isinstance(self.value, dict) and ARTICLE_KEY in self.value

    @property
    def bundle(self) -> Any:
        return self.value[ARTICLE_KEY] if self.is_article else self.value

    @property
    def subject(self) -> dict[str, Any] | None:
        return self.value if self.is_article else None

    @property
    def prefix(self) -> PathParts:
        return (ARTICLE_KEY,) if self.is_article else ()

    def diagnostics(self) -> list[Diagnostic]:
        length = len(self.prefix)
        inner = [p[length:] for p in self.duplicate_keys if p[:length] == self.prefix]
        found = iter_diagnostics(self.bundle, self.subject, duplicate_keys=inner)
        return [replace(d, path=_prefixed(d.path, self.prefix), file=self.path) for d in found]


def _prefixed(path: str, prefix: PathParts) -> str:
    return "$" + "".join(f".{p}" for p in prefix) + path[1:]


def load_document(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> BundleDocument:
    """A bundle or article JSON file, or the bundle embedded in a static page."""
    name = os.fspath(path)
    if is_page(name):
        return _page_document(name, max_bytes)
    loaded = load_file(name, max_bytes)
    return BundleDocument(name, loaded.value, loaded.duplicate_keys)


def _page_document(name: str, max_bytes: int) -> BundleDocument:
    loaded = read_page_bundle(read_text(name, max_bytes), name)
    return BundleDocument(name, loaded.value, loaded.duplicate_keys)


def check_file(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> FileResult:
    """Validate one file; unreadable input becomes an ``unreadable`` result, not an exception."""
    name = os.fspath(path)
    try:
        document = load_document(name, max_bytes)
    except InputError as exc:
        return FileResult(name, [exc.diagnostic], status="unreadable")
    return FileResult(name, document.diagnostics())
