"""Sphinx extension: after an HTML build, every page with evidence markup is checked as ``static-helper``
checks it, and its evidence slots are filled (``static-helper --write``'s rule).

Enable it in ``conf.py`` (``pip install 'claim-evidence[sphinx]'``)::

    extensions = ["claim_evidence.integrations.sphinx"]
    claim_evidence_config = "claim-evidence.toml"   # relative to conf.py; default: the one beside it, if any
    claim_evidence_write = True                     # fill the evidence slots of the built pages
    claim_evidence_strict = False                   # True: the toolkit's warnings fail too

Findings are Sphinx warnings (type ``claim_evidence``, subtype the code), placed at the source document
and the line its markup is written on, so ``sphinx-build -W`` fails on them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.config import Config
from sphinx.errors import ConfigError
from sphinx.util import logging

import claim_evidence

from .._check.page import PageOptions
from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import Diagnostic, InputError
from .._core.textio import decode_utf8
from .._html.locate import might_have_markup
from .._site.runner import html_files
from .._site.sourcemap import source_line
from ._built import CONFIG_NAME, at_page, check_built, describe, display_path, site_options

logger = logging.getLogger(__name__)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("claim_evidence_config", None, "", types=(str, os.PathLike, type(None)))
    app.add_config_value("claim_evidence_write", True, "", types=(bool,))
    app.add_config_value("claim_evidence_strict", False, "", types=(bool,))
    app.connect("config-inited", _check_config)
    app.connect("build-finished", check_build)
    return {"version": claim_evidence.__version__, "parallel_read_safe": True, "parallel_write_safe": True}


def _options(confdir: str | os.PathLike[str], config: Config) -> PageOptions:
    """The named config (relative to ``conf.py``'s folder), else ``claim-evidence.toml`` beside it, else defaults."""
    named = config.claim_evidence_config
    path = Path(confdir, named) if named else Path(confdir, CONFIG_NAME)
    if not named and not path.is_file():
        return PageOptions()
    try:
        return site_options(path)
    except InputError as exc:
        raise ConfigError(f"claim_evidence_config: {exc}") from None


def _check_config(app: Sphinx, config: Config) -> None:
    _options(app.confdir, config)  # a broken claim-evidence.toml stops the build before it starts


def check_build(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``: check (and fill) every ``*.html`` of an HTML build's output folder."""
    builder = app.builder
    if exception is not None or builder.format != "html" or not isinstance(builder, StandaloneHTMLBuilder):
        return
    config = app.config
    options = _options(app.confdir, config)
    documents = _documents(app, builder)
    outdir = Path(app.outdir)
    for path in html_files(outdir):
        data = path.read_bytes()
        try:
            text = decode_utf8(data, None, keep_bom=True)  # check_built drops the BOM and writes it back
        except InputError:
            continue  # not a page Sphinx wrote (an html_extra_path file in another encoding)
        if not might_have_markup(text):
            continue
        docnames = documents.get(os.path.realpath(path), [])
        # The name the findings' hints use: the source a page was built from, else the built page.
        shown = str(app.env.doc2path(docnames[0], False)) if docnames else display_path(path, os.getcwd())
        built = check_built(text, shown, at_page(options, display_path(path, outdir)), config.claim_evidence_write)
        if built.text != text:
            try:
                atomic_write_bytes(path, built.text.encode("utf-8"), root=outdir)
            except InputError as exc:  # CE010/CE011: the page stays as built, and the build fails
                built.findings.append(exc.diagnostic)
        for d in built.findings:
            _report(app, d, docnames, display_path(path, os.getcwd()), config.claim_evidence_strict)


def _documents(app: Sphinx, builder: StandaloneHTMLBuilder) -> dict[str, list[str]]:
    """Each output file, with the documents built into it (one, or, for ``singlehtml``, all of them, the
    root document first)."""
    single, root = builder.name == "singlehtml", app.config.root_doc
    found: dict[str, list[str]] = {}
    for docname in sorted(app.env.found_docs, key=lambda name: (name != root, name)):
        target = builder.get_outfilename(root if single else docname)
        found.setdefault(os.path.realpath(target), []).append(docname)
    return found


def _report(app: Sphinx, d: Diagnostic, docnames: list[str], shown: str, strict: bool) -> None:
    """A warning at ``(docname, line)`` (the document whose source holds the markup), else at the document,
    else, for a page no document was built into, naming the output file and its line."""
    location: str | tuple[str, int] | None = None
    for docname in docnames:
        line = source_line(_source(app, docname), d)
        if line is not None:
            location = (docname, line)
            break
    if location is None and docnames:
        location = docnames[0]
    message = describe(d) if location else describe(d, f"{shown}:{d.line}")
    if d.fails(strict):
        logger.warning(message, location=location, type="claim_evidence", subtype=d.code)
    else:
        logger.info(message, location=location)


def _source(app: Sphinx, docname: str) -> str:
    try:
        return Path(app.env.doc2path(docname)).read_text(encoding=app.config.source_encoding, errors="replace")
    except (OSError, LookupError):
        return ""
