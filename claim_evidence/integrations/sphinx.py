"""Sphinx extension: after an HTML build, every page is checked as ``static-helper`` checks it, and its
evidence slots are filled (``static-helper --write``'s rule); then the site-level checks of a configured
run (SH007, and each glob that matched no page), and the build fails, even without ``-W``, when a page
would be published with slots that do not show their records.

Enable it in ``conf.py`` (``pip install '/path/to/claim-evidence[sphinx]'``)::

    extensions = ["claim_evidence.integrations.sphinx"]
    claim_evidence_config = "claim-evidence.toml"   # relative to conf.py; default: the one beside it, if any
    claim_evidence_write = True                     # fill the evidence slots of the built pages
    claim_evidence_strict = False                   # True: the toolkit's warnings fail too

Findings are Sphinx warnings (type ``claim_evidence``, subtype the code), placed at the source document
and the line its markup is written on, so ``sphinx-build -W`` fails on them. Without ``base_url`` in
``claim-evidence.toml``, the site is served where ``html_baseurl``'s path says.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.config import Config
from sphinx.errors import ConfigError
from sphinx.util import logging

import claim_evidence

from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import Diagnostic, InputError
from .._core.textio import decode_utf8
from .._site.runner import html_files
from .._site.sourcemap import source_line
from ._built import CONFIG_NAME, Gate, Site, describe, display_path, load_site

logger = logging.getLogger(__name__)
# Each build's site, read once when its config is (config-inited) and used when the build finishes.
_SITES: weakref.WeakKeyDictionary[Sphinx, Site] = weakref.WeakKeyDictionary()


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("claim_evidence_config", None, "", types=(str, os.PathLike, type(None)))
    app.add_config_value("claim_evidence_write", True, "", types=(bool,))
    app.add_config_value("claim_evidence_strict", False, "", types=(bool,))
    app.connect("config-inited", _check_config)
    app.connect("build-finished", check_build)
    return {"version": claim_evidence.__version__, "parallel_read_safe": True, "parallel_write_safe": True}


def _site(app: Sphinx, config: Config) -> Site:
    """The named config (relative to ``conf.py``'s folder), else ``claim-evidence.toml`` beside it, else
    defaults; served where ``html_baseurl``'s path says unless the file sets ``base_url``."""
    named = config.claim_evidence_config
    path: Path | None = Path(app.confdir, named) if named else Path(app.confdir, CONFIG_NAME)
    if not named and path is not None and not path.is_file():
        path = None
    conf = display_path(Path(app.confdir, "conf.py"), os.getcwd())
    try:
        return load_site(path, app.confdir, config.html_baseurl, conf)
    except InputError as exc:
        raise ConfigError(f"claim_evidence_config: {exc}") from None


def _check_config(app: Sphinx, config: Config) -> None:
    _SITES[app] = _site(app, config)  # a broken claim-evidence.toml stops the build before it starts


def check_build(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``: check (and fill) every ``*.html`` of an HTML build's output folder, then the
    site-level checks; a page left with stale slots ends the build with problems, even without ``-W``."""
    builder = app.builder
    if exception is not None or builder.format != "html" or not isinstance(builder, StandaloneHTMLBuilder):
        return
    config = app.config
    site = _SITES.get(app) or _site(app, config)
    gate = Gate(site, config.claim_evidence_write)
    strict = config.claim_evidence_strict
    documents = _documents(app, builder)
    outdir = Path(app.outdir)
    cwd = os.getcwd()
    for path in html_files(outdir):
        data = path.read_bytes()
        try:
            text = decode_utf8(data, None, keep_bom=True)  # check_built drops the BOM and writes it back
        except InputError:
            continue  # not a page Sphinx wrote (an html_extra_path file in another encoding)
        docnames = documents.get(os.path.realpath(path), [])
        sources = [Path(app.env.doc2path(docname)) for docname in docnames]
        # The name the findings' hints use, as the editor types it in the shell the build ran in: the
        # source a page was built from, else the built page.
        shown = display_path(sources[0] if sources else path, cwd)
        built = gate.check(text, shown, display_path(path, outdir), [path, *sources])
        if built.text != text:
            try:
                atomic_write_bytes(path, built.text.encode("utf-8"), root=outdir)
            except InputError as exc:  # CE010/CE011: the page stays as built, and the build fails
                built.findings.append(exc.diagnostic)
        texts: dict[str, str] = {}  # each source read once, and only for a page with findings
        for d in built.findings:
            _report(app, d, docnames, texts, display_path(path, cwd), strict)
    for d in gate.findings():
        _log(d, describe(d, d.file), None, strict)
    refusal = gate.refusal()
    if refusal is not None:  # one paragraph and a failed build, not a traceback Sphinx asks to report
        logger.error(refusal)
        app.statuscode = 1


def _documents(app: Sphinx, builder: StandaloneHTMLBuilder) -> dict[str, list[str]]:
    """Each output file, with the documents built into it (one, or, for ``singlehtml``, all of them, the
    root document first)."""
    single, root = builder.name == "singlehtml", app.config.root_doc
    found: dict[str, list[str]] = {}
    for docname in sorted(app.env.found_docs, key=lambda name: (name != root, name)):
        target = builder.get_outfilename(root if single else docname)
        found.setdefault(os.path.realpath(target), []).append(docname)
    return found


def _report(app: Sphinx, d: Diagnostic, docnames: list[str], texts: dict[str, str], shown: str, strict: bool) -> None:
    """A warning at ``(docname, line)`` (the document whose source holds the markup), else at the document,
    else, for a page no document was built into, naming the output file and its line."""
    location: str | tuple[str, int] | None = None
    for docname in docnames:
        if docname not in texts:
            texts[docname] = _source(app, docname)
        line = source_line(texts[docname], d)
        if line is not None:
            location = (docname, line)
            break
    if location is None and docnames:
        location = docnames[0]
    _log(d, describe(d) if location else describe(d, f"{shown}:{d.line}" if d.line else shown), location, strict)


def _log(d: Diagnostic, message: str, location: str | tuple[str, int] | None, strict: bool) -> None:
    if d.fails(strict):
        logger.warning(message, location=location, type="claim_evidence", subtype=d.code)
    else:
        logger.info(message, location=location)


def _source(app: Sphinx, docname: str) -> str:
    try:
        return Path(app.env.doc2path(docname)).read_text(encoding=app.config.source_encoding, errors="replace")
    except (OSError, LookupError):
        return ""
