"""Storing a changed bundle back into the file it came from, touching only what changed.

The one writer behind every command that edits a record (``review record``,
``claim add``/``set``/``remove``, ``source add``/``set``/``remove``, ``ref add``/``set``/``remove``): an edit is first
computed as a :class:`Rewrite` (the text before and after, so a command can
show the diff it is about to make), then written atomically, or not at all
when nothing changed.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from typing import Any

from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import Diagnostic, InputError, PathParts
from .._core.jsonio import loads
from .._core.textio import bom_of, decode_utf8
from .documents import ARTICLE_KEY, holds_script
from .page import replace_bundle


@dataclass(frozen=True)
class Rewrite:
    """A file's text before and after an edit; nothing is written until :meth:`write`."""

    path: str
    before: str
    after: str
    bom: bytes = b""

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def diff(self) -> str:
        """The edit as a unified diff (``--- a/FILE`` / ``+++ b/FILE`` as git writes them, for a relative
        path), empty when nothing changed."""
        old, new = (self.path, self.path) if os.path.isabs(self.path) else (f"a/{self.path}", f"b/{self.path}")
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True), self.after.splitlines(keepends=True), old, new
        )
        return "".join(
            line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines
        )

    def write(self) -> bool:
        """Write atomically (the original's BOM kept); return whether the file changed."""
        if not self.changed:
            return False
        atomic_write_bytes(self.path, self.bom + self.after.encode("utf-8"))
        return True


def read_source(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """The file's text and its BOM (``b""`` without one); unreadable input is an :class:`InputError`."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(Diagnostic("CE001", f"cannot read file: {exc.strerror or exc}", file=name)) from None
    return decode_utf8(data, name), bom_of(data)


def rewrite(
    path: str | os.PathLike[str], bundle: dict[str, Any], *, article: bool | None = None, at: PathParts = ()
) -> Rewrite:
    """``bundle`` stored back into the file it came from.

    A JSON file keeps its style: key order (dicts are ordered), indentation,
    line endings, the trailing newline, ASCII escaping and a BOM. A static page,
    or a Markdown or reST source holding the bundle script (:func:`.documents.holds_script`),
    changes only inside script#claim-evidence-data (re-serialized with ``<``
    escaped, its indentation kept: :func:`.page.replace_bundle`); its body and
    slots are untouched, so ``static-helper --write`` (or the next build)
    re-renders the slot afterwards. ``article``: store ``bundle`` under
    ``claim_evidence`` of the file's object (default: when it has that key).
    ``at``: ``(URL,)``, store it under ``claim_evidence`` of that article of a
    correction registry (:meth:`.documents.BundleDocument.with_article_of`).
    """
    name = os.fspath(path)
    original, bom = read_source(name)
    if holds_script(name, original):
        text = replace_bundle(original, bundle)
    else:
        value = loads(original, name).value
        if at:  # one article of a correction registry: the rest of the file as it was
            (url,) = at
            return Rewrite(
                name, original, dumps_like({**value, url: {**value[url], ARTICLE_KEY: bundle}}, original), bom
            )
        wrapped = isinstance(value, dict) and (ARTICLE_KEY in value if article is None else article)
        text = dumps_like({**value, ARTICLE_KEY: bundle} if wrapped else bundle, original)
    return Rewrite(name, original, text, bom)


def write_bundle_file(path: str | os.PathLike[str], bundle: dict[str, Any]) -> bool:
    """Store ``bundle`` back into the file it came from (see :func:`rewrite`); return whether it changed.
    An unchanged file is not rewritten."""
    return rewrite(path, bundle).write()


_INDENT = re.compile(r"^[{\[][ \t]*\r?\n([ \t]+)\S")


def dumps_like(value: Any, original: str) -> str:
    """Serialize ``value`` the way ``original`` looks (as far as JSON allows)."""
    newline = "\r\n" if "\r\n" in original else "\n"
    match = _INDENT.match(original.lstrip())
    indent: str | int | None = match.group(1) if match else (None if "\n" not in original.strip() else 2)
    ascii_only = original.isascii() and "\\u" in original
    if indent is not None:
        separators = (",", ": ")
    else:  # one line: as json.dumps writes by default (", " and ": "), or compact
        separators = (", " if ', "' in original or ", {" in original else ",", ": " if '": ' in original else ":")
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, separators=separators)
    if newline != "\n":
        text = text.replace("\n", newline)
    trailing = original[len(original.rstrip("\r\n")) :]
    return text + trailing
