"""Pelican plugin: every article and page Pelican writes is checked as ``static-helper`` checks it, and its
evidence slots are filled in place (``static-helper --write``'s rule); when the build has written them all,
the site-level checks of a configured run (SH007, and each glob that matched no page), and the build
stopped, even without ``--fatal``, when a page was written with slots that do not show their records.

Enable it in ``pelicanconf.py`` (``pip install '/path/to/claim-evidence[pelican]'``)::

    PLUGINS = ["claim_evidence.integrations.pelican"]
    CLAIM_EVIDENCE_CONFIG = "claim-evidence.toml"  # default: the nearest one from PATH upwards, if any
    CLAIM_EVIDENCE_WRITE = True                    # fill the evidence slots of the written pages
    CLAIM_EVIDENCE_STRICT = False                  # True: the toolkit's warnings fail too

Only the output of an article or a page (a draft, a hidden one, a translation) is checked: listing pages
(index, archives, categories, tags, authors, periods) copy several articles' content or summaries, whose
markup cannot check as one page (several bundles, a bundle cut short by the summary), so their copy of the
markup is taken out (:mod:`claim_evidence._check.listing`); feeds are never touched.
A page's failing findings are one warning of this module's logger, so ``pelican --fatal warnings`` fails,
and so are the build's own; each finding is printed on one line, whatever the terminal's width
(:class:`_Unwrapped`). Without ``base_url`` in ``claim-evidence.toml``, the site is served where
``SITEURL``'s path says.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pelican import signals  # type: ignore[import-untyped]
from pelican.contents import Content  # type: ignore[import-untyped]

from .._check.listing import strip_evidence
from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import Diagnostic, InputError
from .._core.errors import InternalError
from .._core.textio import read_text
from .._html.locate import might_have_markup
from .._site.config import find_config
from .._site.sourcemap import source_line
from ._built import Gate, Site, describe, display_path, load_site

log = logging.getLogger(__name__)


def register() -> None:
    signals.initialized.connect(_initialized)
    signals.all_generators_finalized.connect(_started)
    signals.content_written.connect(check_written)
    signals.finalized.connect(_finished)


class UnfilledSlots(Exception):
    """Stops the build (Pelican prints its message and exits 1): a page was written with evidence slots
    that do not show their records."""


@dataclass(frozen=True)
class Settings:
    """The plugin's settings, read from Pelican's (``CLAIM_EVIDENCE_*``)."""

    site: Site
    write: bool
    strict: bool


def settings_of(settings: Mapping[str, Any]) -> Settings:
    """``CLAIM_EVIDENCE_CONFIG`` (a relative path is taken from the working folder, as Pelican's own
    command-line paths are), else the nearest ``claim-evidence.toml`` from PATH upwards, else defaults."""
    flags = {}
    for key, default in (("CLAIM_EVIDENCE_WRITE", True), ("CLAIM_EVIDENCE_STRICT", False)):
        value = settings.get(key, default)
        if not isinstance(value, bool):
            raise ValueError(f"claim-evidence: {key} must be True or False (found {value!r})")
        flags[key] = value
    content = os.path.abspath(settings.get("PATH") or os.curdir)
    named = settings.get("CLAIM_EVIDENCE_CONFIG")
    found = os.path.abspath(named) if named else find_config(Path(content))
    site = _site(found, content, settings.get("SITEURL"))
    return Settings(site, flags["CLAIM_EVIDENCE_WRITE"], flags["CLAIM_EVIDENCE_STRICT"])


def _site(path: str | os.PathLike[str] | None, content: str, siteurl: str | None) -> Site:
    if path is None:
        return _loaded(None, content, siteurl, (0, 0))
    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (0, 0)  # load_config says what is wrong with it
    return _loaded(os.fspath(path), content, siteurl, stamp)


@functools.lru_cache(maxsize=8)
def _loaded(path: str | None, content: str, siteurl: str | None, stamp: tuple[int, int]) -> Site:
    """Read once per build (and again when the file changes, under ``pelican --autoreload``). Without a
    config, the build's own findings are on the content folder."""
    try:
        return load_site(path, os.path.dirname(content), siteurl, display_path(content, os.getcwd()))
    except InputError as exc:
        raise ValueError(f"claim-evidence: {exc}") from None


def _initialized(pelican: Any) -> None:
    settings_of(pelican.settings)  # a broken claim-evidence.toml or setting stops Pelican before it writes
    _log_unwrapped()


class _Unwrapped(logging.Handler):
    """Each line of a record printed whole on Pelican's console: ``LEVEL    line``.

    Pelican's rich handler lays a record out in columns as wide as the terminal (80 in most CI logs), so
    a finding (a path, a code and a Japanese sentence) came out cut into five pieces, which no one can
    grep or click. Printed on the same console (``soft_wrap``: no wrapping, no cropping), a finding
    keeps its place among Pelican's own lines and under its live status display."""

    def __init__(self, console: Any) -> None:
        super().__init__()
        self.console = console

    def emit(self, record: logging.LogRecord) -> None:
        try:
            lines = self.format(record).splitlines()
            text = "\n".join(f"{record.levelname:<8} {line}" for line in lines)
            self.console.print(text, soft_wrap=True, markup=False, highlight=False, emoji=False)
        except Exception:  # noqa: BLE001 - logging's own rule: a handler reports its failure, never raises
            self.handleError(record)


def _log_unwrapped() -> None:
    """Route this module's records to :class:`_Unwrapped` when Pelican logs through rich (its default
    ``--log-handler``); its plain handler already prints lines whole. The level and Pelican's
    ``--fatal`` stay the logger's, so ``-q`` and ``--fatal warnings`` work as before."""
    try:
        from rich.logging import RichHandler
    except ImportError:  # Pelican without rich: nothing wraps
        return
    rich = next((h for h in logging.getLogger().handlers if isinstance(h, RichHandler)), None)
    if rich is None or any(isinstance(h, _Unwrapped) for h in log.handlers):
        return
    log.addHandler(_Unwrapped(rich.console))
    log.propagate = False


# The run being written: its settings and gate, set when the generators have read the content (each run,
# --autoreload's too) and taken when Pelican has written everything. Pelican's signals are process-wide,
# and so is this one slot; a run never overlaps another in one process.
_RUN: list[tuple[Settings, Gate]] = []


def _started(generators: Any) -> None:
    _begin(generators[0].settings)


def _begin(settings: Mapping[str, Any]) -> None:
    found = settings_of(settings)
    _RUN[:] = [(found, Gate(found.site, found.write))]


def check_written(path: str, context: Mapping[str, Any]) -> None:
    """``content_written``: check (and fill in place) the file Pelican just wrote for an article or page."""
    content = next((context[k] for k in ("article", "page") if isinstance(context.get(k), Content)), None)
    try:
        text = read_text(path, None, keep_bom=True)  # check_built drops the BOM and writes it back
    except InputError:
        return  # not a page Pelican wrote as UTF-8 HTML
    if content is None and not might_have_markup(text):
        return
    if not _RUN:  # written outside a run's generators (a plugin's own writer): a gate of its own
        _begin(context)
    settings, gate = _RUN[0]
    if content is None:
        _strip_listing(path, text, context, settings)
        return
    source = content.source_path
    # As the editor types it in the shell the build ran in: the hints name it in commands to run.
    shown = display_path(source, os.getcwd()) if source else path
    output = context.get("OUTPUT_PATH") or os.path.dirname(path)
    served = context.get("output_file") or display_path(path, output)
    built = gate.check(text, shown, served, [path, *([source] if source else [])])
    if built.text != text:
        try:
            atomic_write_bytes(path, built.text.encode("utf-8"), root=output)
        except InputError as exc:  # CE010/CE011: the page stays as Pelican wrote it, and the build fails
            built.findings.append(exc.diagnostic)
    if not built.findings:
        return
    written = _source_text(source)
    failing = []
    for d in built.findings:
        line = source_line(written, d)
        where = f"{shown}:{line}" if line else (f"{shown} (written page {path}:{d.line})" if d.line else shown)
        if d.fails(settings.strict):
            failing.append(describe(d, where))
        else:
            log.info(describe(d, where))
    if failing:
        # One warning for the page: under --fatal warnings Pelican stops at the first one, and every
        # finding of the page should be in it.
        log.warning("\n".join(failing))


def _finished(pelican: Any) -> None:
    """``finalized``: the build's own findings, one warning (``--fatal warnings`` stops here), then the build
    stopped if a page was written with slots that do not show their records."""
    if not _RUN:
        return
    settings, gate = _RUN.pop()
    failing = []
    for d in gate.findings():
        if d.fails(settings.strict):
            failing.append(describe(d, d.file))
        else:
            log.info(describe(d, d.file))
    if failing:
        log.warning("\n".join(failing))
    refusal = gate.refusal()
    if refusal is not None:  # even without --fatal: never publish a claim without its evidence
        raise UnfilledSlots(refusal)


def _strip_listing(path: str, text: str, context: Mapping[str, Any], settings: Settings) -> None:
    """A page Pelican wrote from several articles (index, archives, a category, tag, author or period
    page) copies their markup: it is made inert (:mod:`claim_evidence._check.listing` says why), so the
    site passes a gate run over the output folder. Each article's own page keeps its evidence."""
    if not settings.write:
        log.info(
            "claim-evidence: %s: a listing page with evidence markup, left as written (CLAIM_EVIDENCE_WRITE = False)",
            path,
        )
        return
    try:
        stripped = strip_evidence(text)
        if stripped.text is not None:
            atomic_write_bytes(
                path, stripped.text.encode("utf-8"), root=context.get("OUTPUT_PATH") or os.path.dirname(path)
            )
    except InternalError as exc:  # left as Pelican wrote it, and the build fails: a gate would fail on it
        log.warning(describe(Diagnostic("SH009", str(exc)), display_path(path, os.getcwd())))
    except InputError as exc:  # CE010/CE011
        log.warning(describe(exc.diagnostic, display_path(path, os.getcwd())))
    else:
        if stripped.text is not None:
            log.info(
                "claim-evidence: %s: evidence markup copied from articles taken out of this listing page "
                "(%d elements removed, %d kept as plain text)",
                path,
                stripped.removed,
                stripped.unmarked,
            )


def _source_text(path: str | None) -> str:
    try:
        return read_text(path, None, errors="replace") if path else ""
    except InputError:
        return ""
