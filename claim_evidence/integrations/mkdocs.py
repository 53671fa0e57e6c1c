"""MkDocs plugin: every page MkDocs renders from Markdown is checked as ``static-helper`` checks it, and
its evidence slots are filled (``static-helper --write``'s rule); at the end of the build, the site-level
checks of a configured run (SH007, and each glob that matched no page), and the build stopped, even without
``--strict``, when a page would be published with slots that do not show their records.

Enable it in ``mkdocs.yml`` (``pip install '/path/to/claim-evidence[mkdocs]'``)::

    plugins:
      - claim-evidence:
          config: claim-evidence.toml   # default: the one beside mkdocs.yml, if any
          write: true                   # fill the evidence slots of the built pages
          strict: false                 # true: the toolkit's warnings fail too

Findings are logged as warnings of ``mkdocs.plugins.claim_evidence``, so ``mkdocs build --strict``
fails on them; each names the Markdown file and the line its markup is written on. Without ``base_url``
in ``claim-evidence.toml``, the site is served where ``site_url``'s path says.

``<!-- claim-evidence: cited-sources -->`` in a page's Markdown becomes the Cited Sources block (its HTML
form) of that page's own records, aged to the build's date; it is filled after the page check, outside
every slot the check owns.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Literal

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.pages import Page as MkDocsPage

from .._check.lang import page_lang
from .._core.diagnostics import Diagnostic, InputError
from .._core.textio import read_text
from .._record.freshness import at_build
from .._render.cited import cited_sources
from .._render.citedforms import PLACEHOLDER, fill_placeholder
from .._site.sourcemap import source_line
from ._built import CONFIG_NAME, Gate, Site, describe, display_path, load_site

log = logging.getLogger("mkdocs.plugins.claim_evidence")


class ClaimEvidenceConfig(base.Config):
    config = c.Optional(c.File(exists=True))  # relative to mkdocs.yml
    write = c.Type(bool, default=True)
    strict = c.Type(bool, default=False)


class ClaimEvidencePlugin(BasePlugin[ClaimEvidenceConfig]):
    """Checks each page's final HTML against its embedded records; re-renders the evidence slots; at the
    end of the build, the site-level checks, and the build stopped if a page kept a stale slot."""

    def __init__(self) -> None:
        super().__init__()
        self.project = Path.cwd()
        self.site: Site | None = None
        self.gate: Gate | None = None
        self.dirty = False

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        # A --dirty build renders only the pages that changed: what the whole site carries is unknown.
        self.dirty = dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        self.project = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        path = self.config.config
        if path is None and (self.project / CONFIG_NAME).is_file():
            path = os.fspath(self.project / CONFIG_NAME)
        shown = display_path(config.config_file_path or "mkdocs.yml", os.getcwd())
        try:
            self.site = load_site(path, self.project, config.site_url, shown)
        except InputError as exc:
            raise PluginError(f"claim-evidence: {exc}") from None
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        assert self.site is not None
        self.gate = Gate(self.site, self.config.write)  # each build (mkdocs serve rebuilds) starts afresh

    # Last, so the check sees the HTML other plugins (minifiers, link rewriters) leave, and nothing
    # rewrites the evidence block after it.
    @event_priority(-100)
    def on_post_page(self, output: str, /, *, page: MkDocsPage, config: MkDocsConfig) -> str | None:
        assert self.gate is not None
        file = page.file
        source_path = file.abs_src_path
        # As the editor types it in the shell the build ran in: the hints name it in commands to run.
        shown = display_path(source_path, os.getcwd()) if source_path else file.src_uri
        files = [os.path.join(config.site_dir, file.dest_uri), *([source_path] if source_path else [])]
        built = self.gate.check(output, shown, file.dest_uri, files)
        source = _source_text(source_path, file) if built.findings else ""
        for d in built.findings:
            line = source_line(source, d)
            if line is None and d.line is not None:
                self._log(d, f"{shown} (built page {file.dest_uri}:{d.line})")
            else:  # at its line in the source, or a finding on the whole page (SH160)
                self._log(d, f"{shown}:{line}" if line else shown)
        return self._cited(built.text, built.page.bundle)

    def _cited(self, text: str, bundle: Any) -> str:
        """The page with its placeholder filled from its own records (the page check has passed over it)."""
        if PLACEHOLDER.search(text) is None:
            return text
        assert self.site is not None
        options = self.site.options
        freshness = options.freshness or at_build(None, None)
        block = cited_sources(
            [bundle] if bundle is not None else [],
            freshness=freshness,
            lang=page_lang(text, options.lang),
            policy=options.policy,
        )
        return fill_placeholder(text, block)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        gate, self.gate = self.gate, None
        if gate is None:
            return
        if not self.dirty:
            for d in gate.findings():
                self._log(d, d.file)
        refusal = gate.refusal()
        if refusal is not None:  # even without --strict: never publish a claim without its evidence
            raise PluginError(refusal)

    def _log(self, d: Diagnostic, where: str | None) -> None:
        if d.fails(self.config.strict):
            log.warning(describe(d, where))
        else:
            log.info(describe(d, where))


def _source_text(path: str | None, file: Any) -> str:
    """The Markdown as written (front matter included, so lines count as in the editor)."""
    try:
        if path:
            return read_text(path, None, errors="replace")
        return str(file.content_string)  # a file a plugin generated (MkDocs 1.6)
    except (InputError, AttributeError, TypeError):
        return ""
