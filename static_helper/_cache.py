"""The incremental cache: a page that passed, unchanged (or changed only after its last evidence element,
or before it only in what its head's comments, white space and meta values say and in markup of its body
that opens and closes its own elements), under the same toolkit and settings, passes.

An entry is keyed by SHA-256 over everything the result depends on: the page's
bytes, its path as shown, whether it is registered, the toolkit (its version
and the bytes of its code, templates, stylesheet and schema), the config file's
bytes and the page options. Only passing results are stored (a failing page is
always checked again); a page ``--write`` rewrote is stored as the check of the
bytes it wrote (``claim_evidence._check.page.Page.written``: what the rewrite's
proof establishes that page is), with its prefix entry. Each passing page also leaves a prefix entry, one per
page and settings: its result with what decided it (its text up to the last
evidence element, its language and newline, its head), which answers the page's
next bytes when they check as these did (``claim_evidence._check.prefix.prefix_holds``:
a build that changed only what follows the evidence; ``head_moved``: one that
changed only comments, white space or meta values in the head, or a navigation item in the body before
the evidence). Entries are JSON values
in one SQLite file, ``.claim-evidence-cache/pages.sqlite3`` (beside
claim-evidence.toml, else in the user's cache folder: see default_folder; see
``claim_evidence._core.kvstore``); an entry that does not parse, has another format, names another key or holds
anything but a pass is ignored and rebuilt, never trusted. A pass entry is a
claim ("this page passed before"): a forged one would make a failing page pass,
so every entry is sealed with an HMAC under a secret that never lives in the
cache folder (``claim_evidence._core.kvstore.cache_secret``), and one whose seal does
not verify is a miss.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import claim_evidence
import static_helper
from claim_evidence import Diagnostic
from claim_evidence._check.options import PageOptions
from claim_evidence._check.recordcache import RecordCache
from claim_evidence._core.kvstore import KeyValueStore, cache_secret
from claim_evidence._core.report import FileResult
from claim_evidence._site.config import CACHE_DIR_NAME

FORMAT = 1
PAGES_FILE_NAME = "pages.sqlite3"
RECORDS_FILE_NAME = "records.sqlite3"
RECORDS_KEEP_DAYS = 7  # record entries unused this long go (with markers, each set of marker states has its own)
# A registered page without evidence markup, or an unregistered one: nothing to report.
NOTHING = "nothing"
_TOOLKIT_SUFFIXES = (".py", ".j2", ".css", ".json")


@cache
def toolkit_fingerprint() -> str:
    """The version plus the bytes of the code, templates, stylesheet and schema that run. The version is
    the package's own (what ``--version`` says), not the installed metadata's: reading that loads
    ``importlib.metadata`` (with zipfile, email and csv), some 10 ms of every cached run's start-up."""
    return folders_fingerprint(claim_evidence.__version__, toolkit_folders())


def toolkit_folders() -> list[Path]:
    from claim_evidence._record.schema import schemas_folder

    return [Path(claim_evidence.__file__).parent, Path(static_helper.__file__).parent, Path(str(schemas_folder()))]


def folders_fingerprint(version: str, folders: list[Path]) -> str:
    digest = hashlib.sha256(version.encode() + b"\0")
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.suffix in _TOOLKIT_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def settings_fingerprint(options: PageOptions, config_bytes: bytes | None) -> str:
    """What the settings contribute to every key: the config file's bytes, the page options and the
    contents of the snapshot folder (a snapshot altered or removed must not be answered from the cache)."""
    digest = hashlib.sha256(f"format {FORMAT}\0{toolkit_fingerprint()}\0".encode())
    digest.update(b"config\0" + (config_bytes if config_bytes is not None else b"(none)") + b"\0")
    digest.update(json.dumps(dataclasses.astuple(options)).encode())
    digest.update(b"snapshots\0" + folder_state(options.snapshots).encode())
    return digest.hexdigest()


def folder_state(folder: str | None) -> str:
    """Every file under ``folder`` with the SHA-256 of its bytes, or ``absent``. Size and modification
    time are not enough: a byte changed with both kept (``touch -r``, a restored archive) kept the key,
    and a cached pass outlived the snapshot it rested on. Reading every snapshot costs a hash over
    them per run (a few hundred MB/s), and makes a fresh checkout, whose mtimes are all new, hit."""
    if folder is None or not os.path.isdir(folder):
        return "absent"
    entries = []
    for here, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(here, name)
            try:
                with open(path, "rb") as handle:
                    digest = hashlib.file_digest(handle, "sha256").hexdigest()
            except OSError:
                digest = "unreadable"
            entries.append(f"{os.path.relpath(path, folder)}\0{digest}")
    return "\n".join(entries)


def default_folder(config_root: Path | None, site: Path) -> Path:
    """Where the cache lives unless ``--cache-dir`` says: beside ``claim-evidence.toml`` when there is
    one, else in the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``), one folder per
    site keyed by its absolute path, so that a deploy of the checked folder never carries it."""
    if config_root is not None:
        return config_root / CACHE_DIR_NAME
    base = os.environ.get("XDG_CACHE_HOME", "")
    home = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    key = hashlib.sha256(os.fsencode(os.path.realpath(site))).hexdigest()[:16]
    return home / "claim-evidence" / "sites" / key


class Cache:
    """Page entries in ``folder`` (``pages.sqlite3``); ``salt`` is :func:`settings_fingerprint` of the run."""

    def __init__(self, folder: str | os.PathLike[str], salt: str, secret: bytes | None = None) -> None:
        self.folder = Path(folder)
        self.salt = salt
        self.secret = secret if secret is not None else cache_secret(self.folder)
        self.store = KeyValueStore(self.folder / PAGES_FILE_NAME, self.secret)

    def records(self) -> RecordCache:
        """The record cache beside the page entries (``records.sqlite3``): keyed by the toolkit alone, so
        it survives the config edits and page rebuilds that miss here (see :mod:`claim_evidence._check.recordcache`);
        sealed with the same secret."""
        return RecordCache(self.folder / RECORDS_FILE_NAME, toolkit_fingerprint(), self.secret)

    def key(self, display: str, registered: bool, data: bytes) -> str:
        digest = hashlib.sha256(f"{self.salt}\0{display}\0{int(registered)}\0".encode())
        digest.update(hashlib.sha256(data).digest())
        return digest.hexdigest()

    def get(self, key: str, display: str) -> tuple[bool, FileResult | None]:
        """``(True, cached result)`` (None: nothing to report), or ``(False, None)`` without a usable entry."""
        raw = self.store.get(key)
        if raw is None:
            return False, None
        try:
            return _decode(json.loads(raw), key, display)
        except (ValueError, TypeError, KeyError, AttributeError):
            return False, None

    def close(self) -> None:
        self.store.close()

    def prune(self, before: float) -> None:
        """After a run over the whole site: drop the page entries it neither wrote nor used (pages
        rebuilt since), and record entries no run has used for :data:`RECORDS_KEEP_DAYS` (they outlive
        the page entries: an edit of the config misses every page entry, and the records answer the
        checks it makes). A page answered by its entry keeps its record entry in use (the entry names
        it: ``_site.runner._keep_record``): a record entry goes when no page has named it for that long."""
        self.store.prune(before)
        records = self.records().store
        records.prune(before - RECORDS_KEEP_DAYS * 86400)
        records.close()

    def put(self, key: str, result: FileResult | None) -> None:
        """Store a passing result (or nothing to report); anything else is not cached."""
        if result is not None and (result.outcome() != "pass" or result.status):
            return
        self.store.put(key, json.dumps(_entry(key, result), ensure_ascii=False).encode("utf-8"))

    def prefix_key(self, display: str, registered: bool) -> str:
        """The key of the page's prefix entry: one per page (its path as shown and whether it is registered)
        and settings, replaced by each passing check of the page."""
        return hashlib.sha256(f"{self.salt}\0prefix\0{display}\0{int(registered)}\0".encode()).hexdigest()

    def put_prefix(self, key: str, result: FileResult) -> None:
        """Keep a passing result with its page's prefix (``result.prefix``: ``claim_evidence._check.page.Prefix``),
        so that the page's next text, when the prefix holds for it, is answered with it (:meth:`get_prefix`)."""
        prefix = result.prefix
        if prefix is None or result.outcome() != "pass" or result.status:
            return
        entry = _entry(key, result)
        entry["prefix"] = [prefix.end, prefix.size, prefix.digest, prefix.newline, prefix.lang]
        entry["head"] = None if prefix.head is None else list(prefix.head)
        self.store.put(key, json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    def keep_prefix(self, key: str) -> None:
        """Keep the page's prefix entry through this run's :meth:`prune` without reading it: a run answered by
        the pages' own entries still needs their prefix entries, for the next build (a new stamp after the
        evidence is answered by them); pruned, every page of that build would be checked."""
        self.store.touch(key)

    def get_prefix(self, key: str, display: str) -> tuple[Any, FileResult] | None:
        """``(prefix, result)`` of the page's prefix entry, or None without a usable one. The caller asks
        ``claim_evidence._check.prefix.prefix_holds`` whether the page's new text checks as that one did."""
        raw = self.store.get(key)
        if raw is None:
            return None
        try:
            entry = json.loads(raw)
            hit, result = _decode(entry, key, display)
            end, size, digest, newline, lang = entry["prefix"]
            head = entry["head"]
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        if (
            not hit
            or result is None
            or type(end) is not int
            or type(size) is not int
            or not all(isinstance(v, str) for v in (digest, newline, lang))
            or not (head is None or _is_head(head))
        ):
            return None
        if head is not None and (
            head[0] + head[4] != end
            or head[1] + head[5] != size
            or not (0 <= head[7] <= head[0] and 0 <= head[8] <= head[1])
        ):
            return (
                None  # (a head must end where its middle starts, that end where the prefix does, its body part in it)
            )
        from claim_evidence._check.prefix import Prefix  # (a run reaches here only to check or answer a changed page)
        from claim_evidence._html.relocate import Head

        return Prefix(end, size, digest, newline, lang, None if head is None else Head(*head)), result


# A prefix entry's head (``claim_evidence._html.relocate.Head``): its fields' types in order.
_HEAD_TYPES = (int, int, int, str, int, int, str, int, int, str, str, str)


def _is_head(value: Any) -> bool:
    return (
        type(value) is list
        and len(value) == len(_HEAD_TYPES)
        and all(type(v) is t for v, t in zip(value, _HEAD_TYPES, strict=True))
    )


def _entry(key: str, result: FileResult | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"format": FORMAT, "key": key}
    if result is None:
        entry["outcome"] = NOTHING
    else:
        entry["outcome"] = "pass"
        entry["path"] = result.path
        entry["detail"] = result.detail
        entry["diagnostics"] = [_encode_diagnostic(d) for d in result.diagnostics]
        if result.record is not None:
            entry["record"] = result.record  # (kept in use while the entry answers: runner._keep_record)
    return entry


_FIELDS = ("code", "message", "path", "severity", "subject", "file", "line", "column")


def _encode_diagnostic(d: Diagnostic) -> dict[str, Any]:
    return {name: getattr(d, name) for name in _FIELDS}


def _decode(raw: Any, key: str, display: str) -> tuple[bool, FileResult | None]:
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("key") != key:
        return False, None
    if raw.get("outcome") == NOTHING:
        return True, None
    if raw.get("outcome") != "pass" or raw.get("path") != display or not isinstance(raw.get("detail"), str):
        return False, None
    diagnostics = []
    for item in raw["diagnostics"]:
        values = {name: item[name] for name in _FIELDS}
        if values["severity"] not in ("warning", "note") or not all(isinstance(values[n], str) for n in _FIELDS[:5]):
            return False, None  # only warnings and notes can come with a pass
        if not all(values[n] is None or isinstance(values[n], str if n == "file" else int) for n in _FIELDS[5:]):
            return False, None
        diagnostics.append(Diagnostic(**values))
    record = raw.get("record")
    if not (record is None or isinstance(record, str)):
        return False, None
    result = FileResult(display, diagnostics, detail=raw["detail"])
    result.record = record
    return (True, result) if result.outcome() == "pass" else (False, None)
