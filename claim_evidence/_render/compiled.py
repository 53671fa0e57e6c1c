"""The packaged templates compiled into one plain Python function each (issue 32), written out ahead.

jinja2 compiles a template into a generator that resolves every name through the context, tests it
against ``missing``, reads each attribute through ``environment.getattr`` and wraps each output in
``str(environment.finalize(…))``: some eighty such steps an evidence block, more than half of the
time jinja2 spends on one. The packaged compact templates (:func:`.templating.template_environment` with no ``template_dir``)
use a small part of the language: text, ``{{ expression }}``, ``if``/``elif``/``else``, ``for``
(with ``loop.first``), attribute reads, ``and``/``or``/``not``, ``is defined`` and the ``isolate``
filter. :func:`compile_named` turns jinja2's own parse of such a template into a function that does the
same steps without the machinery, and returns None for any template using anything else, which then
renders through jinja2 as before. The template file stays the one definition of a block's layout.

The functions are also written out ahead, into :mod:`.precompiled` (``python -m claim_evidence._render.compiled``
writes it; :func:`precompiled_module`), each with the digest of the template text it came from: while a
template file has that text, a process renders it by that function and neither imports jinja2 nor
compiles it (some 20 ms of a one-page check's start-up); an edited template is compiled here once per
process, as before, until the module is written anew (a test fails until then).

Two shortcuts keep the common output free of calls, each a fact about :mod:`.templating`'s escaping
that ``tests/unit/render/test_compiled.py`` holds: ``finalize`` (:func:`.templating._escape_output`)
gives back ``Markup`` (the fixed phrases) and a ``str`` without ``&<>"'`` unchanged, and
``finalize(isolate(x))`` gives back a ``str`` without those characters and without a character that
could reorder text (:data:`.templating._ESCAPE_OR_BIDI`) unchanged. Any other value goes through the
same functions jinja2 calls. The same test renders every packaged template both ways, on random
views with markup, right-to-left text, ``Markup``, falsy values and missing names, byte for byte.
"""

from __future__ import annotations

import hashlib
import keyword
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import jinja2.nodes as nodes
import markupsafe

from . import templating

Compiled = Callable[[dict[str, Any]], "str | None"]


class _Unsupported(Exception):
    """The template uses something this compiler does not translate: jinja2 renders it."""


def compile_named(environment: jinja2.Environment, name: str) -> Compiled | None:
    """The function of the template ``name`` (``context -> str``, or None when a name it reads is not in
    the context: jinja2 then renders, with its undefined values); None when ``environment`` is not the
    packaged compact one or the template uses what :func:`compile_source` does not translate.
    :class:`.templating.PackagedTemplate` asks once per template and process."""
    if not templating.is_packaged(environment) or environment.loader is None:
        return None
    return compile_source(environment, environment.loader.get_source(environment, name)[0])


def compile_source(environment: jinja2.Environment, source: str) -> Compiled | None:
    """The function rendering ``source`` (a template's text as the environment's loader gives it) as
    ``environment`` renders it with :func:`.templating._render`; None when it cannot be translated."""
    if environment.finalize is not templating._escape_output or environment.autoescape:
        return None
    try:
        code = _Generator(environment).template(environment.parse(source))
    except _Unsupported:
        return None
    namespace: dict[str, Any] = {
        "Markup": markupsafe.Markup,
        "is_undefined": templating.is_undefined,
        "finalize": templating._escape_output,
        "plain": templating._HTML_SPECIAL.search,
        "settled": templating._ESCAPE_OR_BIDI.search,
        **{f"filter_{name}": function for name, function in environment.filters.items() if name.isidentifier()},
    }
    exec(compile(code, "<claim_evidence compiled template>", "exec"), namespace)
    function: Compiled = namespace["render"]
    return function


# Filters whose call is ``filter(value)``: plain functions of one value (no context, no environment).
_PLAIN_FILTERS = frozenset({"isolate"})


class _Generator:
    """Python source for a template's nodes; raises :class:`_Unsupported` on any other node."""

    def __init__(self, environment: jinja2.Environment) -> None:
        self.environment = environment
        self.lines: list[str] = []
        self.free: dict[str, str] = {}  # context names read, as locals
        self.scopes: list[dict[str, str]] = []  # loop targets (and their loop counters) by name
        self.counter = 0

    def template(self, node: nodes.Template, function: str = "render", typed: bool = False) -> str:
        """The source of a function named ``function`` rendering the template (annotated when ``typed``)."""
        self.lines = []
        self._body(node.body, 1)
        loads = [
            f"    try:\n        {local} = context[{name!r}]\n    except KeyError:\n        return None"
            for name, local in self.free.items()
        ]
        signature = f"def {function}(context: dict[str, Any]) -> str | None:" if typed else f"def {function}(context):"
        out = "    out: list[str] = []" if typed else "    out = []"
        head = [signature, *loads, out, "    add = out.append"]
        return "\n".join([*head, *self.lines, "    return ''.join(out)", ""])

    def _fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def _emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def _body(self, body: list[nodes.Node], depth: int) -> None:
        before = len(self.lines)
        for node in body:
            if isinstance(node, nodes.Output):
                self._output(node, depth)
            elif isinstance(node, nodes.If):
                self._if(node, depth)
            elif isinstance(node, nodes.For):
                self._for(node, depth)
            else:
                raise _Unsupported(type(node).__name__)
        if len(self.lines) == before:
            self._emit(depth, "pass")

    def _output(self, node: nodes.Output, depth: int) -> None:
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if child.data:
                    self._emit(depth, f"add({child.data!r})")
                continue
            self._print(child, depth)

    def _print(self, node: nodes.Expr, depth: int) -> None:
        """``str(finalize(value))``, as jinja2 writes an expression, with the shortcuts of the module's
        docstring for a value that needs no escaping."""
        value = self._fresh("value")
        if isinstance(node, nodes.Filter) and node.name == "isolate" and self._plain_filter(node):
            inner = self._expr(node.node)  # type: ignore[arg-type]
            self._emit(depth, f"{value} = {inner}")
            self._emit(
                depth,
                f"add({value} if type({value}) is str and settled({value}) is None "
                f"else str(finalize(filter_isolate({value}))))",
            )
            return
        self._emit(depth, f"{value} = {self._expr(node)}")
        self._emit(
            depth,
            f"add({value} if type({value}) is Markup or (type({value}) is str and plain({value}) is None) "
            f"else str(finalize({value})))",
        )

    def _if(self, node: nodes.If, depth: int) -> None:
        self._emit(depth, f"if {self._expr(node.test)}:")
        self._body(node.body, depth + 1)
        for branch in node.elif_:
            self._emit(depth, f"elif {self._expr(branch.test)}:")
            self._body(branch.body, depth + 1)
        if node.else_:
            self._emit(depth, "else:")
            self._body(node.else_, depth + 1)

    def _for(self, node: nodes.For, depth: int) -> None:
        if node.else_ or node.test is not None or node.recursive or not isinstance(node.target, nodes.Name):
            raise _Unsupported("for with else, a filter, recursion or several targets")
        iterable = self._expr(node.iter)
        target = self._fresh(f"loop_{node.target.name}")
        index = self._fresh("index")
        scope = {node.target.name: target, "loop": index}
        if node.target.name == "loop":
            raise _Unsupported("a loop target named loop")
        self._emit(depth, f"for {index}, {target} in enumerate({iterable}):")
        self.scopes.append(scope)
        self._body(node.body, depth + 1)
        self.scopes.pop()

    def _expr(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Name) and node.ctx == "load":
            return self._name(node.name)
        if isinstance(node, nodes.Getattr) and node.ctx == "load":
            if isinstance(node.node, nodes.Name) and node.node.name == "loop" and self._loop() is not None:
                if node.attr != "first":
                    raise _Unsupported(f"loop.{node.attr}")
                return f"({self._loop()} == 0)"
            if not node.attr.isidentifier() or keyword.iskeyword(node.attr):
                raise _Unsupported("an attribute that is no identifier")
            return f"{self._expr(node.node)}.{node.attr}"  # (the packaged environment's getattr is the builtin)
        if isinstance(node, nodes.Filter) and self._plain_filter(node):
            return f"filter_{node.name}({self._expr(node.node)})"  # type: ignore[arg-type]
        if isinstance(node, nodes.And):
            return f"({self._expr(node.left)} and {self._expr(node.right)})"
        if isinstance(node, nodes.Or):
            return f"({self._expr(node.left)} or {self._expr(node.right)})"
        if isinstance(node, nodes.Not):
            return f"(not {self._expr(node.node)})"
        if isinstance(node, nodes.Test) and node.name == "defined" and not self._arguments(node):
            return f"(not is_undefined({self._expr(node.node)}))"
        raise _Unsupported(type(node).__name__)

    @staticmethod
    def _arguments(node: nodes.Filter | nodes.Test) -> bool:
        return bool(node.args or node.kwargs or node.dyn_args or node.dyn_kwargs)

    def _plain_filter(self, node: nodes.Filter) -> bool:
        if node.name not in _PLAIN_FILTERS or self._arguments(node):
            raise _Unsupported(f"filter {node.name} with arguments or unknown")
        if node.node is None or self.environment.filters.get(node.name) is not getattr(templating, node.name, None):
            raise _Unsupported(f"filter {node.name} replaced")
        return True

    def _loop(self) -> str | None:
        return self.scopes[-1]["loop"] if self.scopes else None

    def _name(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope and name != "loop":
                return scope[name]
        if name == "loop":
            raise _Unsupported("loop outside a for")
        if not name.isidentifier():
            raise _Unsupported("a name that is no identifier")
        return self.free.setdefault(name, f"context_{name}")


# --- compiled ahead: the module precompiled.py ----------------------------------------------------------

PRECOMPILED = Path(__file__).with_name("precompiled.py")
_HEADER = '''"""The packaged compact templates compiled ahead: what :func:`.compiled.compile_named` makes of each at run
time, written out, so that a process rendering blocks neither imports jinja2 nor compiles a template.

Generated by ``python -m claim_evidence._render.compiled`` from ``claim_evidence/templates``: do not edit.
Each function is used only while its template's text has the digest beside it
(:func:`.templating._precompiled`); ``tests/unit/render/test_compiled.py`` fails when this file is not
what the command writes.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from .templating import _ESCAPE_OR_BIDI, _HTML_SPECIAL, is_undefined
from .templating import _escape_output as finalize
from .templating import isolate as filter_isolate

plain = _HTML_SPECIAL.search
settled = _ESCAPE_OR_BIDI.search
'''


def packaged_names() -> tuple[str, ...]:
    """The packaged compact templates, rendered by name with no ``template_dir``: the evidence block, the
    summary, the malformed-bundle warning."""
    from .evidence import MALFORMED_TEMPLATE, TEMPLATE
    from .summary import TEMPLATE as SUMMARY_TEMPLATE

    return TEMPLATE, SUMMARY_TEMPLATE, MALFORMED_TEMPLATE


def precompiled_module() -> str:
    """The text of :mod:`.precompiled`: each packaged compact template's function as :func:`compile_named`
    makes it, with the SHA-256 of the template text it was compiled from (:func:`.templating.packaged_source`).
    The names the functions use are those :func:`compile_source` gives them."""
    environment = templating.template_environment(None)
    assert environment.loader is not None
    functions, entries = [], []
    for index, name in enumerate(packaged_names()):
        source = templating.packaged_source(name)
        if environment.loader.get_source(environment, name)[0] != source:
            raise RuntimeError(f"{name}: the packaged loader reads another text than packaged_source")
        try:
            code = _Generator(environment).template(environment.parse(source), f"render_{index}", typed=True)
        except _Unsupported as exc:
            raise RuntimeError(f"{name} cannot be compiled ahead: {exc}") from exc
        functions.append(code)
        digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        entries.append(f"    {name!r}: ({digest!r}, render_{index}),")
    table = ["TEMPLATES = {", *entries, "}", ""]
    return "\n\n".join([_HEADER, *functions, "\n".join(table)])


def main(argv: list[str] | None = None) -> int:
    """``python -m claim_evidence._render.compiled [--check]``: write :mod:`.precompiled` anew (after editing
    a packaged template or this compiler), or with ``--check`` say whether it is current (exit 1 if not)."""
    args = sys.argv[1:] if argv is None else argv
    text = precompiled_module()
    if args == ["--check"]:
        current = PRECOMPILED.read_text(encoding="utf-8") == text if PRECOMPILED.exists() else False
        print(
            f"{PRECOMPILED}: {'current' if current else 'out of date: run python -m claim_evidence._render.compiled'}"
        )
        return 0 if current else 1
    if args:
        print("usage: python -m claim_evidence._render.compiled [--check]", file=sys.stderr)
        return 2
    PRECOMPILED.write_text(text, encoding="utf-8")
    print(f"wrote {PRECOMPILED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
