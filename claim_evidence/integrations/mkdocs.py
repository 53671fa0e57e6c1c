"""MkDocs plugin: every built page with evidence markup is checked as ``static-helper`` checks it,
and its evidence slots are filled (``static-helper --write``'s rule).

Enable it in ``mkdocs.yml`` (``pip install 'claim-evidence[mkdocs]'``)::

    plugins:
      - claim-evidence:
          config: claim-evidence.toml   # default: the one beside mkdocs.yml, if any
          write: true                   # fill the evidence slots of the built pages
          strict: false                 # true: the toolkit's warnings fail too

Findings are logged as warnings of ``mkdocs.plugins.claim_evidence``, so ``mkdocs build --strict``
fails on them; each names the Markdown file and the line its markup is written on.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.pages import Page as MkDocsPage

from .._check.page import PageOptions
from .._core.diagnostics import InputError
from .._core.textio import read_text
from .._html.locate import might_have_markup
from .._site.sourcemap import source_line
from ._built import CONFIG_NAME, at_page, check_built, describe, display_path, site_options

log = logging.getLogger("mkdocs.plugins.claim_evidence")


class ClaimEvidenceConfig(base.Config):
    config = c.Optional(c.File(exists=True))  # relative to mkdocs.yml
    write = c.Type(bool, default=True)
    strict = c.Type(bool, default=False)


class ClaimEvidencePlugin(BasePlugin[ClaimEvidenceConfig]):
    """Checks each page's final HTML against its embedded records; re-renders the evidence slots."""

    def __init__(self) -> None:
        super().__init__()
        self.options = PageOptions()
        self.project = Path.cwd()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        self.project = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        path = self.config.config
        if path is None and (self.project / CONFIG_NAME).is_file():
            path = os.fspath(self.project / CONFIG_NAME)
        try:
            self.options = site_options(path)
        except InputError as exc:
            raise PluginError(f"claim-evidence: {exc}") from None
        return config

    # Last, so the check sees the HTML other plugins (minifiers, link rewriters) leave, and nothing
    # rewrites the evidence block after it.
    @event_priority(-100)
    def on_post_page(self, output: str, /, *, page: MkDocsPage, config: MkDocsConfig) -> str | None:
        if not might_have_markup(output):
            return output
        file = page.file
        source_path = file.abs_src_path
        shown = display_path(source_path, self.project) if source_path else file.src_uri
        built = check_built(output, shown, at_page(self.options, file.dest_uri), self.config.write)
        source = _source_text(source_path, file) if built.findings else ""
        for d in built.findings:
            line = source_line(source, d)
            where = f"{shown}:{line}" if line else f"{shown} (built page {file.dest_uri}:{d.line})"
            if d.fails(self.config.strict):
                log.warning(describe(d, where))
            else:
                log.info(describe(d, where))
        return built.text


def _source_text(path: str | None, file: Any) -> str:
    """The Markdown as written (front matter included, so lines count as in the editor)."""
    try:
        if path:
            return read_text(path, None, errors="replace")
        return str(file.content_string)  # a file a plugin generated (MkDocs 1.6)
    except (InputError, AttributeError, TypeError):
        return ""
