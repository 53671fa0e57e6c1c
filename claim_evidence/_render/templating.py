"""How the evidence blocks are laid out by jinja2: the environments, the loader that compacts template
source, and the escaping that keeps blocks byte-identical to the existing renderer's (``finalize``, the
``isolate`` filter).

Kept apart from :mod:`.evidence` so that markupsafe loads only when a block is rendered: a run whose every
record comes from the record cache (a rebuild, a one-page check) validates nothing and renders nothing,
and imports neither (issue 32). :mod:`.evidence` and :mod:`.summary` reach it through
:func:`.evidence._templating` when they render. jinja2 itself loads only when a template is compiled by
it: the packaged compact templates render by functions compiled ahead (:mod:`.precompiled`, checked
against the template files they came from), a site's own templates through jinja2.
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import markupsafe

if TYPE_CHECKING:
    import jinja2

# What a compact template drops when it is loaded: every line break and the indentation after it.
COMPACT_BREAK = re.compile(r"\r?\n[ \t]*")


def compacted(source: str) -> str:
    """A template's text as a compact environment loads it (:func:`template_environment`)."""
    return COMPACT_BREAK.sub("", source)


_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def packaged_source(name: str) -> str:
    """The packaged template ``name`` as the packaged compact environment parses it: the file's text
    (UTF-8, as jinja2's package loader decodes it), compacted (:func:`compacted`)."""
    return compacted((_TEMPLATES / name).read_bytes().decode("utf-8"))


def _precompiled(name: str) -> Callable[[dict[str, Any]], str | None] | None:
    """The function :mod:`.precompiled` holds for the packaged template ``name``, when that template's text
    is still the one it was compiled from (an edited template file is compiled again, as before)."""
    from . import precompiled

    found = precompiled.TEMPLATES.get(name)
    if found is None:
        return None
    digest, function = found
    try:
        source = packaged_source(name)
    except (OSError, UnicodeDecodeError):
        return None
    return function if hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest() == digest else None


@cache
def _jinja_types() -> tuple[type[jinja2.BaseLoader], type[jinja2.Environment]]:
    """The compacting loader and the packaged environment's class: jinja2's subclasses, made (and jinja2
    imported) when an environment is first made."""
    import jinja2

    class CompactLoader(jinja2.BaseLoader):
        """Wraps a loader; drops newlines and the indentation that follows them (:func:`compacted`)."""

        def __init__(self, inner: jinja2.BaseLoader) -> None:
            self.inner = inner

        def get_source(
            self, environment: jinja2.Environment, template: str
        ) -> tuple[str, str | None, Callable[[], bool] | None]:
            source, filename, uptodate = self.inner.get_source(environment, template)
            return compacted(source), filename, uptodate

    class Packaged(jinja2.Environment):
        """The environment of the packaged compact templates. They read only attributes their views (a
        :class:`.evidence._View`, whose keys are its attributes) and jinja2's ``loop`` hold, so ``c.label`` is
        the builtin ``getattr`` instead of jinja2's Python-level one (which falls back to ``c["label"]``
        and to an undefined): sixty reads a block. A site's templates keep jinja2's."""

        getattr = staticmethod(getattr)  # type: ignore[assignment]

    return CompactLoader, Packaged


def is_packaged(environment: jinja2.Environment) -> bool:
    """Whether ``environment`` is the packaged compact templates' (:func:`template_environment` with no
    ``template_dir``)."""
    return isinstance(environment, _jinja_types()[1])


def is_undefined(value: Any) -> bool:
    """``isinstance(value, jinja2.Undefined)`` (a template's ``is defined`` test), without importing jinja2:
    no value is one before jinja2 is imported."""
    jinja2 = sys.modules.get("jinja2")
    return jinja2 is not None and isinstance(value, jinja2.Undefined)


def _escape_like_legacy(value: Any) -> Any:
    """Escape text as the existing system did (``html.escape``: ``&quot;``, ``&#x27;``).

    Autoescape stays on as the safety net; this only picks the entity spelling,
    so pages rendered by the existing system are byte-identical and not stale.
    """
    return _markup(_legacy_text(value)) if _is_text(value) else value


def _is_text(value: Any) -> bool:
    """Text still to escape: a ``str`` that is not ``Markup`` (tested for exactly ``str`` first, the
    common case, without two ``isinstance`` calls)."""
    return type(value) is str or (isinstance(value, str) and not isinstance(value, markupsafe.Markup))


# The characters ``html.escape`` replaces: most text of a block holds none, and one C-level search
# answers that instead of five ``str.replace`` passes (a fifth of a block's escaping).
_HTML_SPECIAL = re.compile("[&<>\"']")


def _markup(text: str) -> markupsafe.Markup:
    """``Markup(text)`` for a plain ``str`` already escaped: what its constructor makes, built in C."""
    return str.__new__(markupsafe.Markup, text)


def _legacy_text(text: str) -> str:
    """``html.escape(text, quote=True)``, answered without replacing for text that needs none."""
    return html.escape(text, quote=True) if _HTML_SPECIAL.search(text) is not None else text


# Characters that make the bidi algorithm reorder text around them: strong right-to-left letters,
# Arabic digits and the explicit embeddings, overrides and isolates (UAX #9 classes R, AL, AN, LRE,
# RLE, LRO, RLO, PDF, LRI, RLI, FSI, PDI). Text without any of them lays out left to right as it is.
_BIDI_CLASSES = frozenset({"R", "AL", "AN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


# Where every character of those classes lies (Hebrew to Arabic Extended-A, RLM, the explicit controls,
# the presentation forms, the right-to-left SMP blocks): text without any is answered in C, without a
# Python loop over its characters (Japanese text). tests/unit/render/test_isolate_ranges.py holds it to
# the running unicodedata.
_MAYBE_BIDI = re.compile(
    "[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


# Text with no character of either: nothing to escape, nothing that could reorder.
_ESCAPE_OR_BIDI = re.compile(_HTML_SPECIAL.pattern[:-1] + _MAYBE_BIDI.pattern[1:])


def _needs_isolate(text: str) -> bool:
    return (
        not text.isascii()
        and _MAYBE_BIDI.search(text) is not None
        and any(unicodedata.bidirectional(ch) in _BIDI_CLASSES for ch in text)
    )


def isolate(value: Any) -> Any:
    """The ``isolate`` template filter: a field a record supplies, as a bidi isolate (``<bdi>``) when
    it holds right-to-left text or a bidi control, so a label that opens U+202E and never closes it
    cannot reverse the phrases, dates and links after it. Other text is escaped exactly as without
    the filter, so blocks of ordinary records stay byte-identical to the existing renderer's and a
    migrated page is not stale because of it. ``Markup`` is wrapped as it is; other values pass."""
    if _is_text(value):
        if _ESCAPE_OR_BIDI.search(value) is None:  # most text of a block: one C search answers it
            return _markup(value)
        text = _legacy_text(value)
    elif isinstance(value, markupsafe.Markup):
        text = value
    else:
        return value
    return _markup(f"<bdi>{text}</bdi>" if _needs_isolate(text) else text)


def _escape_output(value: Any) -> Any:
    """What ``escape(_escape_like_legacy(value))`` gives, autoescape's output of an expression, in one
    step: the packaged evidence templates' ``finalize`` (see :func:`template_environment`). ``Markup``
    (the phrases, the filters' results) is tested first: it is half of what a block prints."""
    if type(value) is markupsafe.Markup:
        return value
    if _is_text(value):
        return _legacy_text(value)
    return value if isinstance(value, markupsafe.Markup) else markupsafe.escape(value)


def _render(template: jinja2.Template | PackagedTemplate, **context: Any) -> str:
    """``template.render(**context)``; a packaged template's by its compiled function (:mod:`.compiled`),
    else without jinja2's globals (``range``, ``cycler``…, which it never uses), so its context is
    ``context`` itself instead of a merged copy."""
    if isinstance(template, PackagedTemplate):
        rendered = template.function(context) if template.function is not None else None
        if rendered is not None:
            return rendered
        compiled = template.jinja()
        return "".join(compiled.root_render_func(compiled.new_context(context, shared=True)))
    return template.render(**context)


class PackagedTemplate:
    """A packaged compact template by name (:func:`template`): rendered by its compiled function, the one
    compiled ahead (:mod:`.precompiled`) while the template file is the one it was compiled from, else
    made once per process; and compiled by jinja2 only if a render needs that (a template the compiler
    leaves to jinja2, a name the context lacks). A process that renders blocks neither imports jinja2
    (some 15 ms) nor compiles a template (the compiler parses it with jinja2: some 8 ms for the block and
    the summary), where jinja2's compile of the block template alone was some 16 ms."""

    __slots__ = ("name", "function", "_environment", "_template")

    def __init__(self, name: str) -> None:
        self.name = name
        self._environment: jinja2.Environment | None = None
        self._template: jinja2.Template | None = None
        self.function = _precompiled(name)
        if self.function is None:
            from .compiled import compile_named  # (jinja2's parse: it imports jinja2, and this module)

            self.function = compile_named(self.environment, name)

    @property
    def environment(self) -> jinja2.Environment:
        """The packaged environment (:func:`template_environment`), made when first asked for."""
        if self._environment is None:
            self._environment = template_environment(None)
        return self._environment

    def jinja(self) -> jinja2.Template:
        """The template as jinja2 compiles it."""
        if self._template is None:
            self._template = self.environment.get_template(self.name)
        return self._template


def template(template_dir: str | None, name: str) -> jinja2.Template | PackagedTemplate:
    """The template ``name`` as a site with ``template_dir`` (None: none) renders it with :func:`_render`:
    the site's own (or, for a file it lacks, the packaged one) through jinja2, else the packaged one."""
    if template_dir is not None:
        return template_environment(template_dir).get_template(name)
    return _packaged(name)


@cache
def _packaged(name: str) -> PackagedTemplate:
    return PackagedTemplate(name)


@cache
def template_environment(template_dir: str | None, *, compact: bool = True) -> jinja2.Environment:
    """Templates of the package, overridden by a site's ``template_dir``.

    ``compact`` (evidence blocks) drops template line breaks; whole pages keep
    them (with jinja2's block trimming instead).

    The package's own compact templates (the evidence block, the summary, the malformed-bundle warning:
    ``template_dir`` None) escape every expression in ``finalize`` (:func:`_escape_output`) instead of
    through autoescape, which escaped each expression twice over (a third of a block's rendering): the
    same bytes, since those templates only print expressions (no ``~``, ``|join``, macros or ``set``
    blocks, whose results autoescape would mark safe). A site's templates keep autoescape as the
    safety net, whatever they do.

    The packaged ones are also never reloaded (``auto_reload`` off: no ``stat`` of the template file
    on each lookup; they change only with the package) and read attributes in C (:func:`_jinja_types`).
    """
    import jinja2

    compact_loader, packaged_environment = _jinja_types()
    loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("claim_evidence", "templates")]
    if template_dir is not None:
        loaders.insert(0, jinja2.FileSystemLoader(template_dir))
    loader: jinja2.BaseLoader = jinja2.ChoiceLoader(loaders)
    packaged = template_dir is None and compact
    environment = (packaged_environment if packaged else jinja2.Environment)(
        loader=compact_loader(loader) if compact else loader,  # type: ignore[call-arg]
        auto_reload=not packaged,
        autoescape=not packaged,
        undefined=jinja2.StrictUndefined,
        trim_blocks=not compact,
        lstrip_blocks=not compact,
        keep_trailing_newline=not compact,
        finalize=_escape_output if packaged else _escape_like_legacy,
    )
    environment.filters["isolate"] = isolate
    return environment
