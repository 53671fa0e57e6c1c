"""The page reader's patterns mean the same on every Python the package accepts.

CPython before 3.11.5 (gh-106052; Debian 12 ships 3.11.2) mis-matches a possessive
repeat (``*+``, ``++``, ``?+``, ``{m,n}+``) of a group that can backtrack inside:
there ``re.match(r'<h(?:(?:[^ >=]|(?<=[ "])=)[^ >=]*+)*+>', '<h>')`` is None, and
the tokenizer's start-tag pattern, written that way, found no element on any page.
The fix in CPython compiles such a repeat as a greedy repeat inside an atomic group;
the patterns here are written that way, and possessive quantifiers stay on single
characters and character classes, which the bug never touched.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claim_evidence._core import jsonio as _jsonio
from claim_evidence._html import fastlimits as _fastlimits
from claim_evidence._html import fastpath as _fastpath
from claim_evidence._html import fastscan as _fastscan
from claim_evidence._html import fasttext as _fasttext
from claim_evidence._html import tokenizer as _tokenizer
from claim_evidence._html import treebuilder as _treebuilder

from ...conftest import ROOT

try:  # the parser of the re module: private, but the only way to see how a pattern is built
    from re import _constants as _sre_constants
    from re import _parser as _sre_parser
except ImportError:  # pragma: no cover - Python 3.11+ has both
    pytest.skip("re._parser is not available on this Python", allow_module_level=True)

READER_MODULES = (_tokenizer, _treebuilder, _fastscan, _fastpath, _fastlimits, _fasttext, _jsonio)


def _possessive_groups(pattern: re.Pattern[str]) -> list[str]:
    """Every possessive repeat in ``pattern`` whose repeated part is more than one character test."""
    found: list[str] = []

    def simple(sub: _sre_parser.SubPattern) -> bool:
        if len(sub) != 1:
            return False
        op, av = sub[0]
        if op is _sre_constants.SUBPATTERN:
            return av[0] is None and simple(av[-1])
        return op in (_sre_constants.LITERAL, _sre_constants.NOT_LITERAL, _sre_constants.ANY, _sre_constants.IN)

    def walk(node: object) -> None:
        if isinstance(node, _sre_parser.SubPattern):
            for op, av in node.data:
                if op is _sre_constants.POSSESSIVE_REPEAT and not simple(av[2]):
                    found.append(str(av[2])[:80])
                walk(av)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(_sre_parser.parse(pattern.pattern, pattern.flags))
    return found


def _reader_patterns() -> dict[str, re.Pattern[str]]:
    patterns = {
        f"{module.__name__}.{name}": value
        for module in READER_MODULES
        for name, value in vars(module).items()
        if isinstance(value, re.Pattern)
    }
    # The bulk-skip patterns are built per stack shape: build every one.
    for key in itertools.product((False, True), repeat=6):
        patterns[f"_fastscan._pattern{key}"] = _fastscan._pattern(*key)
    patterns["_tokenizer._raw_end('script')"] = _tokenizer._raw_end("script")
    return patterns


def test_regex_no_possessive_repeat_of_a_group_in_the_reader() -> None:
    offenders = {name: found for name, pattern in _reader_patterns().items() if (found := _possessive_groups(pattern))}
    assert offenders == {}


def test_regex_detector_sees_the_broken_shape() -> None:
    """The check above would catch the pattern that broke on 3.11.2 (and passes its fixed form)."""
    broken = re.compile(r'<h(?:(?:[^ >=]|(?<=[ "])=)[^ >=]*+)*+>')
    fixed = re.compile(r'<h(?>(?:(?:[^ >=]|(?<=[ "])=)[^ >=]*+)*)>')
    assert _possessive_groups(broken) != []
    assert _possessive_groups(fixed) == []


def test_regex_no_possessive_group_in_any_package_source() -> None:
    """Patterns compiled inside functions are not reachable by import: hold every string literal of the
    packages to the same rule (a ``)`` followed by a possessive quantifier)."""
    shape = re.compile(r"\)(?:[*+?]|\{[0-9,]*\})\+")
    offenders = []
    for path in sorted([*(ROOT / "claim_evidence").rglob("*.py"), *(ROOT / "static_helper").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and shape.search(node.value):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# The shapes whose possessive form failed on 3.11.2: a tag without attributes, one-letter names,
# attributes without values, '=' right after a quote or a space, values of every quoting.
START_TAGS = [
    ("<h>", "h", ""),
    ("<p>", "p", ""),
    ("<h1>", "h1", ""),
    ("<a b>", "a", " b"),
    ("<a b c>", "a", " b c"),
    ('<a href="x">', "a", ' href="x"'),
    ("<a href='x' title=y>", "a", " href='x' title=y"),
    ('<p data-claim-id="C-1">', "p", ' data-claim-id="C-1"'),
    ('<div data-evidence-for="C-1"/>', "div", ' data-evidence-for="C-1"'),
    ('<a b="c"=d>', "a", ' b="c"=d'),
    ("<a = b>", "a", " = b"),
    ("<a\n\tb\f=\r'c'>", "a", "\n\tb\f=\r'c'"),
    ("<a b=>", "a", " b="),
    ("<x/y>", "x", "/y"),
]


@pytest.mark.parametrize(("text", "name", "attrs"), START_TAGS)
def test_regex_start_tag_shapes(text: str, name: str, attrs: str) -> None:
    match = _tokenizer.START_TAG.match(text)
    assert match is not None and match.group(0) == text
    assert (match.group(1), match.group(2)) == (name, attrs)


@pytest.mark.parametrize("text", ["</h>", "</p >", "</a b>", '</div x="y">', "</x/>"])
def test_regex_end_tag_shapes(text: str) -> None:
    match = _tokenizer.END_TAG.match(text)
    assert match is not None and match.group(0) == text


def test_regex_attribute_shapes() -> None:
    found = [(m.group(1), m.group(2)) for m in _tokenizer.ATTR.finditer(" b c=d e='f' g=\"h\" i", 0)]
    assert found[:5] == [("b", None), ("c", "d"), ("e", "'f'"), ("g", '"h"'), ("i", None)]


def test_regex_json_string_shape() -> None:
    text = json.dumps({"a": ['x"]}', "\\", "[{"], "b": {"c": "}}"}})
    assert _jsonio.text_depth(text) == 2


def _system_python() -> str | None:
    path = shutil.which("python3", path="/usr/bin")
    if path is None:
        return None
    version = subprocess.run([path, "-c", "import sys; print(sys.version_info[:3])"], capture_output=True, text=True)
    return path if version.returncode == 0 and version.stdout.strip() != str(tuple(sys.version_info[:3])) else None


_TOKEN_DUMP = """
import json, sys
from claim_evidence._html import tokenizer as _tokenizer
out = []
for name in sys.argv[1:]:
    text = open(name, encoding="utf-8", errors="replace").read()
    out.append([[m.span(), m.groups()] for m in _tokenizer.START_TAG.finditer(text)]
               + [[m.span(), m.groups()] for m in _tokenizer.END_TAG.finditer(text)])
print(json.dumps(out))
"""


def test_regex_same_tags_on_the_system_python() -> None:
    """The machine's own ``/usr/bin/python3`` (Debian 12: 3.11.2) reads the same tags as this Python."""
    system = _system_python()
    if system is None:
        pytest.skip("/usr/bin/python3 is missing or the same version as this Python")
    pages = sorted(str(p) for p in (ROOT / "examples").rglob("*.html"))
    assert pages
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # -S: the system Python's own site-packages stay out; the tokenizer needs only the standard library.
    done = subprocess.run(
        [system, "-S", "-c", _TOKEN_DUMP, *pages], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    here = [
        [
            [list(m.span()), list(m.groups())]
            for m in _tokenizer.START_TAG.finditer(Path(p).read_text(encoding="utf-8", errors="replace"))
        ]
        + [
            [list(m.span()), list(m.groups())]
            for m in _tokenizer.END_TAG.finditer(Path(p).read_text(encoding="utf-8", errors="replace"))
        ]
        for p in pages
    ]
    assert json.loads(done.stdout) == here
