"""The packaged templates' compiled functions (``_render.compiled``) against jinja2 rendering the same
templates: byte for byte on random views (markup characters, right-to-left text and controls, ``Markup``,
``str`` subclasses, falsy values, lists of every length), with every name present or one missing; the
two escaping shortcuts the compiled code takes; and what the compiler leaves to jinja2."""

from __future__ import annotations

from typing import Any

import jinja2
import markupsafe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claim_evidence import render_evidence
from claim_evidence._render import compiled, evidence, precompiled, templating
from claim_evidence._render.compiled import compile_named, compile_source
from claim_evidence._render.evidence import MALFORMED_TEMPLATE, TEMPLATE, _phrases, _View
from claim_evidence._render.summary import TEMPLATE as SUMMARY_TEMPLATE

PACKAGED = (TEMPLATE, SUMMARY_TEMPLATE, MALFORMED_TEMPLATE)


class _Text(str):
    """A ``str`` that is not exactly ``str`` (the filters' own branch)."""


_ALPHABET = "&<>\"'=/ abcアイ語日本\u05d0\u0627\u0661\u202a\u202e\u2066\u2069\u200f0123"
_TEXT = st.text(alphabet=_ALPHABET, max_size=24) | st.text(max_size=12)
_VALUE = st.one_of(
    _TEXT,
    _TEXT.map(markupsafe.Markup),
    _TEXT.map(_Text),
    st.sampled_from([None, "", False, True, 0, 7, 1.5, jinja2.Undefined()]),
)


def _view(keys: tuple[str, ...], **nested: st.SearchStrategy[Any]) -> st.SearchStrategy[_View]:
    fields = {key: nested.get(key, _VALUE) for key in keys}
    return st.fixed_dictionaries(fields).map(_View)


_MARKER = st.none() | _view(("state", "symbol", "text"))
_REF = _view(("publisher", "url", "title", "archive_url", "section", "supports", "published_at", "quote"))
_CLAIM = _view(
    tuple(
        "anchor id label basis status_label checked_at method signer marker invalid warning limits statement "
        "evidence_label refs as_of note".split()
    ),
    marker=_MARKER,
    refs=st.lists(_REF, max_size=3) | st.sampled_from([None, ()]),
)
_CITED = _view(("anchor", "label"))
_SOURCE = _view(
    ("publisher", "url", "title", "published_at", "claims", "reviewed", "marker"),
    claims=st.lists(_CITED, max_size=3),
    marker=_MARKER,
)
_SUMMARY = _view(("warning", "sources"), sources=st.lists(_SOURCE, max_size=3) | st.sampled_from([None, []]))
_PHRASES = st.sampled_from([_phrases("ja"), _phrases("en")])


def _environment() -> jinja2.Environment:
    return templating.template_environment(None)


def _jinja(name: str, context: dict[str, Any]) -> str:
    template = _environment().get_template(name)
    return "".join(template.root_render_func(template.new_context(context, shared=True)))


def _both(name: str, context: dict[str, Any]) -> tuple[str | None, str]:
    """The compiled function's output (the one compiled ahead too: the same) and jinja2's."""
    function = compile_named(_environment(), name)
    assert function is not None
    compiled = function(context)
    assert precompiled.TEMPLATES[name][1](context) == compiled
    return compiled, _jinja(name, context)


def test_compiled_every_packaged_template_compiles() -> None:
    assert [name for name in PACKAGED if compile_named(_environment(), name) is None] == []
    assert all(templating.template(None, name).function is not None for name in PACKAGED)


def test_compiled_ahead_module_is_current() -> None:
    """precompiled.py is what ``python -m claim_evidence._render.compiled`` writes from the templates as
    they are (edit a packaged template or the compiler, and this fails until the command is run)."""
    assert compiled.packaged_names() == PACKAGED
    text = compiled.PRECOMPILED.read_text(encoding="utf-8")
    assert text == compiled.precompiled_module(), "run: python -m claim_evidence._render.compiled"
    assert compiled.main(["--check"]) == 0


def test_compiled_ahead_functions_are_the_ones_rendering() -> None:
    """Each packaged template renders by its function compiled ahead while its text is the one it came from."""
    for name in PACKAGED:
        digest, function = precompiled.TEMPLATES[name]
        assert templating.template(None, name).function is function
        assert templating._precompiled(name) is function


def test_compiled_ahead_function_of_another_text_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template file edited after the module was written (its digest differs) is compiled as before."""
    digest, function = precompiled.TEMPLATES[TEMPLATE]
    monkeypatch.setitem(precompiled.TEMPLATES, TEMPLATE, ("0" * 64, function))
    assert templating._precompiled(TEMPLATE) is None
    fresh = templating.PackagedTemplate(TEMPLATE)
    assert fresh.function is not None and fresh.function is not function
    monkeypatch.setattr(templating, "_TEMPLATES", templating._TEMPLATES / "missing")
    monkeypatch.setitem(precompiled.TEMPLATES, TEMPLATE, (digest, function))
    assert templating._precompiled(TEMPLATE) is None  # (no file to compare: compiled from the loader's)


def test_compiled_ahead_check_says_when_out_of_date(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: Any
) -> None:
    monkeypatch.setattr(compiled, "PRECOMPILED", tmp_path / "precompiled.py")
    assert compiled.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert compiled.main([]) == 0
    assert compiled.main(["--check"]) == 0
    assert (tmp_path / "precompiled.py").read_text(encoding="utf-8") == compiled.precompiled_module()
    assert compiled.main(["--bogus"]) == 2


@settings(max_examples=400, deadline=None)
@given(_CLAIM, _PHRASES, st.sampled_from([False, True, 0, "", "yes", jinja2.Undefined()]))
def test_compiled_evidence_block_as_jinja2(claim: _View, phrases: _View, search_ignore: Any) -> None:
    compiled, rendered = _both(TEMPLATE, {"c": claim, "t": phrases, "search_ignore": search_ignore})
    assert compiled == rendered


@settings(max_examples=300, deadline=None)
@given(_SUMMARY, _PHRASES, st.booleans())
def test_compiled_summary_as_jinja2(summary: _View, phrases: _View, search_ignore: bool) -> None:
    compiled, rendered = _both(SUMMARY_TEMPLATE, {"s": summary, "t": phrases, "search_ignore": search_ignore})
    assert compiled == rendered


@settings(max_examples=200, deadline=None)
@given(_view(tuple(_phrases("ja"))))
def test_compiled_phrases_of_any_type_as_jinja2(phrases: _View) -> None:
    claim = _View({key: "x" for key in ("id", "label", "basis", "status_label", "statement")})
    claim.update(anchor=None, checked_at=None, method=None, signer=None, marker=None, invalid=False, warning="")
    claim.update(limits="", evidence_label="", refs=[], as_of=None, note="")
    compiled, rendered = _both(TEMPLATE, {"c": claim, "t": phrases, "search_ignore": False})
    assert compiled == rendered
    compiled, rendered = _both(MALFORMED_TEMPLATE, {"t": phrases})
    assert compiled == rendered


def test_compiled_missing_name_left_to_jinja2() -> None:
    """A name the context lacks: no compiled output, and jinja2's ``StrictUndefined`` says which one."""
    function = compile_named(_environment(), TEMPLATE)
    assert function is not None
    assert function({"t": _phrases("ja"), "search_ignore": False}) is None
    with pytest.raises(jinja2.UndefinedError, match="'c' is undefined"):
        templating._render(templating.template(None, TEMPLATE), t=_phrases("ja"), search_ignore=False)
    # search_ignore is tested with "is defined": jinja2 renders without it, and so does _render.
    claim = _View(id="x", anchor=None, label="L", basis="b", status_label="s", checked_at=None, method=None)
    claim.update(signer=None, marker=None, invalid=False, warning="", limits="", statement="S", evidence_label="")
    claim.update(refs=[], as_of=None, note="")
    assert function({"c": claim, "t": _phrases("ja")}) is None
    assert templating._render(templating.template(None, TEMPLATE), c=claim, t=_phrases("ja")) == _jinja(
        TEMPLATE, {"c": claim, "t": _phrases("ja")}
    )


@settings(max_examples=500, deadline=None)
@given(_TEXT)
def test_compiled_shortcuts_hold_for_the_escaping_functions(text: str) -> None:
    """The two facts the compiled code relies on instead of calling the functions."""
    if templating._HTML_SPECIAL.search(text) is None:
        assert str(templating._escape_output(text)) == text
    if templating._ESCAPE_OR_BIDI.search(text) is None:
        assert str(templating._escape_output(templating.isolate(text))) == text
    markup = markupsafe.Markup(text)
    assert templating._escape_output(markup) is markup


@pytest.mark.parametrize(
    "source",
    [
        "{% set x = 1 %}{{ x }}",
        "{{ c|upper }}",
        "{{ c|isolate(1) }}",
        "{{ c ~ 'x' }}",
        "{{ c['k'] }}",
        "{{ c.k() }}",
        "{{ 'x' }}",
        "{% if c == 1 %}y{% endif %}",
        "{% for a, b in c %}{{ a }}{% endfor %}",
        "{% for a in c %}{{ loop.index }}{% endfor %}",
        "{% for a in c %}{{ a }}{% else %}none{% endfor %}",
        "{% for a in c if a %}{{ a }}{% endfor %}",
        "{{ loop }}",
        "{% macro m() %}x{% endmacro %}{{ m() }}",
        "{% include 'evidence.html.j2' %}",
        "{{ c is string }}",
        "{% raw %}{{ x }}{% endraw %}{{ c if c else 'y' }}",
        "{{ c.class }}",
    ],
)
def test_compiled_unsupported_left_to_jinja2(source: str) -> None:
    assert compile_source(_environment(), source) is None


def test_compiled_only_for_the_packaged_escaping() -> None:
    """A site's environment (autoescape, its own finalize) is never compiled: jinja2 renders it."""
    site = templating.template_environment("/nonexistent-site-templates")
    assert compile_source(site, "{{ c }}") is None
    assert compile_named(site, TEMPLATE) is None
    assert isinstance(templating.template("/nonexistent-site-templates", TEMPLATE), jinja2.Template)


def test_compiled_loop_scope_and_first() -> None:
    """A loop's target hides a context name of the same name only inside the loop; ``loop.first`` is the
    innermost loop's."""
    source = "{% for c in c.items %}[{% for x in c %}{% if not loop.first %},{% endif %}{{ x }}{% endfor %}]{% endfor %}{{ c.tail }}"
    function = compile_source(_environment(), source)
    assert function is not None
    context = {"c": _View(items=[["a", "<b>"], [], ["d"]], tail="T&")}
    template = _environment().from_string(source)
    want = "".join(template.root_render_func(template.new_context(context, shared=True)))
    assert function(context) == want == "[a,&lt;b&gt;][][d]T&amp;"


def test_compiled_used_by_render_and_as_render_evidence_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page check and the library render through the compiled function, to the same bytes, and jinja2
    compiles none of the packaged templates for it."""
    templating._packaged.cache_clear()  # (a test before may have rendered it with a name missing: by jinja2)
    evidence._MEMO.items.clear()
    packaged = templating.template(None, TEMPLATE)
    assert isinstance(packaged, templating.PackagedTemplate) and packaged.function is not None
    bundle = {
        "version": 1,
        "sources": [{"id": "s1", "publisher": "P & Co", "title": "\u05d0 title", "url": "https://example.com/a"}],
        "claims": [
            {
                "id": "C-1",
                "statement": "A < B",
                "basis": "official_spec",
                "status": "matched",
                "source_refs": [{"source_id": "s1", "section": "§1", "supports": "it's so"}],
            }
        ],
    }
    compiled = {lang: render_evidence(bundle, lang=lang) for lang in ("ja", "en")}
    evidence._MEMO.items.clear()  # (blocks are memoized per bundle: render them again)
    assert packaged._template is None
    monkeypatch.setattr(packaged, "function", None)
    for lang in ("ja", "en"):
        assert compiled[lang] == render_evidence(bundle, lang=lang)
        assert "<bdi>\u05d0 title</bdi>" in compiled[lang] and "A &lt; B" in compiled[lang]


def test_compiled_defined_as_jinja2() -> None:
    """``is defined`` is jinja2's test: a value that is an ``Undefined`` (a view may hold one) is not."""
    cases = [
        ("{% if c is defined %}a{% endif %}{% if c %}b{% endif %}", {"c": jinja2.Undefined()}, ""),
        ("{% if c.k is defined %}a{% endif %}{% if not c.k %}b{% endif %}", {"c": _View(k=jinja2.Undefined())}, "b"),
        ("{% if c.k is defined %}a{% endif %}{% if not c.k %}b{% endif %}", {"c": _View(k="x")}, "a"),
    ]
    for source, context, want in cases:
        function = compile_source(_environment(), source)
        assert function is not None
        template = _environment().from_string(source)
        assert function(context) == "".join(template.root_render_func(template.new_context(context, shared=True)))
        assert function(context) == want
