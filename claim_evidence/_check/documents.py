"""Files that carry a bundle: a bundle JSON, an article JSON with ``claim_evidence``, or a text that
holds it in script#claim-evidence-data: a static page, or the Markdown or reST source of one (raw HTML,
``.. raw:: html``), where the record of an MkDocs, Sphinx, Pelican or Astro site lives."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from .._core.diagnostics import Diagnostic, InputError, PathParts, internal_error, json_path
from .._core.errors import ReviewError
from .._core.jsonio import loads
from .._core.jsonpos import placed
from .._core.report import FileResult, input_error_result
from .._core.textio import MAX_BYTES, read_text
from .._record.freshness import Freshness
from .._record.policy import DEFAULT_POLICY, Policy
from .._record.validation import iter_diagnostics
from .._snapshots.check import snapshot_store
from .page import read_page_bundle
from .sitechecks import site_diagnostics

ARTICLE_KEY = "claim_evidence"
PAGE_SUFFIXES = (".html", ".htm")
# Sources whose bundle is always in a script, whatever their first character (Markdown, MDX, reST).
MARKDOWN_SUFFIXES = (".md", ".markdown")
REST_SUFFIXES = (".rst", ".rest")
SOURCE_SUFFIXES = (*MARKDOWN_SUFFIXES, ".mdx", *REST_SUFFIXES)


def is_page(path: str | os.PathLike[str]) -> bool:
    """A static page carries its bundle in script#claim-evidence-data."""
    return os.fspath(path).lower().endswith(PAGE_SUFFIXES)


def holds_script(path: str | os.PathLike[str], text: str) -> bool:
    """The bundle sits in script#claim-evidence-data inside ``text``: a static page (by its suffix), or
    a Markdown, MDX or reST source (by its suffix), or any other file but a ``.json`` whose content is
    not JSON (does not start with ``{`` or ``[``). Beyond those suffixes the content decides: a ``.txt``
    source is read and edited the same way, and a JSON bundle saved as ``.txt`` is still JSON."""
    name = os.fspath(path)
    if is_page(name) or name.lower().endswith(SOURCE_SUFFIXES):
        return True  # a Markdown page may well open with "[a link](…)"
    return not name.lower().endswith(".json") and text.lstrip(" \t\r\n")[:1] not in ("{", "[")


@dataclass
class BundleDocument:
    """A parsed file and where its bundle sits inside it."""

    path: str
    value: Any
    duplicate_keys: list[PathParts]
    text: str | None = None  # the JSON text, to place each finding at its line and column
    origin: tuple[int, int] = (1, 1)  # where that text starts in the file (a page's script)
    in_script: bool = False  # the bundle is the JSON of script#claim-evidence-data (a page or its source)
    at: PathParts = ()  # where the article sits in ``value``: ``(URL,)`` in a correction registry

    @property
    def item(self) -> Any:
        """The object holding the bundle: the file's value, or the registry's article at ``at``."""
        return self.value[self.at[0]] if self.at else self.value

    @property
    def is_article(self) -> bool:
        """An article item carries its bundle under ``claim_evidence`` and is its own subject."""
        return isinstance(self.item, dict) and ARTICLE_KEY in self.item

    @property
    def bundle(self) -> Any:
        return self.item[ARTICLE_KEY] if self.is_article else self.item

    @property
    def subject(self) -> dict[str, Any] | None:
        return self.item if self.is_article else None

    @property
    def prefix(self) -> PathParts:
        return (*self.at, ARTICLE_KEY) if self.is_article else self.at

    def prefixed(self, path: str) -> str:
        """A path inside the bundle as a path in the file (an article's is under ``claim_evidence``)."""
        return _prefixed(path, self.prefix)

    def with_article_of(self, claim_id: str) -> BundleDocument:
        """In a correction registry (an object of article items keyed by URL), the document of the one
        article whose bundle has the claim ``claim_id``; any other file as it is. Refuses (ReviewError) a
        claim id that several of its articles have: the registry names no one claim by it."""
        if not is_registry(self.value):
            return self
        urls = [url for url, entry in self.value.items() if claim_id in _claim_ids(entry)]
        if len(urls) > 1:
            raise ReviewError(
                f"{self.path}: the articles {', '.join(urls)} each have a claim {claim_id!r}; give each its own id"
            )
        return replace(self, at=(urls[0],)) if urls else self

    def claim_ids(self) -> list[str]:
        """The claim ids of the bundle, or of every article of a correction registry."""
        if not self.at and is_registry(self.value):
            return list(dict.fromkeys(cid for entry in self.value.values() for cid in _claim_ids(entry)))
        return _claim_ids({ARTICLE_KEY: self.bundle})

    def diagnostics(
        self,
        policy: Policy = DEFAULT_POLICY,
        snapshots: str | os.PathLike[str] | None = None,
        freshness: Freshness | None = None,
    ) -> list[Diagnostic]:
        """Validation under the site's ``policy``, the offline snapshot checks when ``snapshots``
        names the site's snapshot folder, and the review ages under ``freshness`` (dated)."""
        length = len(self.prefix)
        inner = [p[length:] for p in self.duplicate_keys if p[:length] == self.prefix]
        found = [
            replace(d, path=self.prefixed(d.path), file=self.path)
            for d in (
                *iter_diagnostics(self.bundle, self.subject, duplicate_keys=inner, policy=policy),
                *site_diagnostics(self.bundle, snapshot_store(snapshots), freshness, policy, self.path),
            )
        ]
        return found if self.text is None else placed(found, self.text, self.origin)


def is_registry(value: Any) -> bool:
    """A news correction registry: an object of article items keyed by URL, some carrying a bundle (a
    bundle or an article has its own keys: ``claims``, ``claim_evidence``)."""
    return (
        isinstance(value, dict)
        and not {"claims", ARTICLE_KEY} & value.keys()
        and any(isinstance(entry, dict) and isinstance(entry.get(ARTICLE_KEY), dict) for entry in value.values())
    )


def _claim_ids(entry: Any) -> list[str]:
    bundle = entry.get(ARTICLE_KEY) if isinstance(entry, dict) else None
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    ids = [c.get("id") for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
    return [i for i in ids if isinstance(i, str)]


def _prefixed(path: str, prefix: PathParts) -> str:
    return json_path(prefix) + path[1:]


def load_document(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> BundleDocument:
    """A bundle or article JSON file, or the bundle embedded in a static page or its Markdown or reST
    source (:func:`holds_script`); a finding's line and column are the file's."""
    name = os.fspath(path)
    text = read_text(name, max_bytes)
    if holds_script(name, text):
        return _script_document(name, text)
    loaded = loads(text, name)
    return BundleDocument(name, loaded.value, loaded.duplicate_keys, text)


def _script_document(name: str, text: str) -> BundleDocument:
    found = read_page_bundle(text, name)
    return BundleDocument(
        name, found.loaded.value, found.loaded.duplicate_keys, found.text, (found.line, found.column), True
    )


def check_file(
    path: str | os.PathLike[str],
    max_bytes: int = MAX_BYTES,
    *,
    policy: Policy = DEFAULT_POLICY,
    snapshots: str | os.PathLike[str] | None = None,
    freshness: Freshness | None = None,
) -> FileResult:
    """Validate one file; never raises: unreadable input, malformed content and even a bug
    become this file's result."""
    name = os.fspath(path)
    try:
        document = load_document(name, max_bytes)
        return FileResult(name, document.diagnostics(policy, snapshots, freshness))
    except InputError as exc:
        return input_error_result(name, exc)
    except Exception as exc:  # a bug: this file's result; the other files are still checked
        return FileResult(name, [internal_error(exc, name)], status="error")
