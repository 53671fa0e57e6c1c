"""Layering: which package may import which (the table below, by AST over every module), no private
name across packages, and one way only: ``static_helper``, the chat endpoint and the plugins build on
``claim_evidence``, never the other way round. docs/architecture.md shows the same table; this test holds it."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..conftest import ROOT, example_page_without_markers

# The library's packages, bottom up; each may import only what its row lists (and itself).
_BELOW_CHECK = {"_core", "_html", "_record", "_render", "_snapshots", "_answer"}
LIBRARY: dict[str, set[str]] = {
    "_core": set(),  # stdlib only (third-party libraries: see OWNERS)
    "_html": {"_core"},
    "_record": {"_core"},
    "_render": {"_core", "_record"},
    "_snapshots": {"_core", "_record"},
    "_answer": {"_core", "_record"},
    "_check": _BELOW_CHECK,
    "_site": _BELOW_CHECK | {"_check"},
    "_sources": {"_core", "_record", "_snapshots"},
    "_extract": {"_core", "_record"},
    "_commands": _BELOW_CHECK | {"_check", "_site", "_sources", "_extract"},  # anything above; no click (OWNERS)
}
# ``claim_evidence`` itself (its ``__init__``, the public API) names the library's public names lazily;
# the front ends build on the library and on that public API. ``cli`` (with ``__main__``) may import
# everything but the two the one-way tests below keep out (``chat`` and ``static_helper``).
FRONTS = {"news", "chat", "integrations", "static_helper"}
MAY_IMPORT: dict[str, set[str]] = {
    **LIBRARY,
    "claim_evidence": set(LIBRARY),
    "cli": {*LIBRARY, "claim_evidence", "news", "integrations"},
    **{front: {*LIBRARY, "claim_evidence"} for front in FRONTS},
    # static-helper maps its errors with the one click-side adapter both command lines share (cli.errors).
    "static_helper": {*LIBRARY, "claim_evidence", "cli"},
}
# What any module may import from ``claim_evidence`` itself: a constant (the root imports nothing for it).
FROM_THE_ROOT = {"__version__"}

# Imports that break the table on purpose, for good: (importer, imported module) -> why. Each must be lazy.
ALLOWED = {
    ("claim_evidence._snapshots.store", "claim_evidence._sources.extract"): (
        "re-deriving a stored snapshot's text needs the extractor; imported lazily so offline checks of sites "
        "without snapshots never load lxml"
    ),
    ("claim_evidence._commands.prepublish", "claim_evidence.news"): (
        "the gate also compares the news path's derived copies with the registry; imported lazily, so a site "
        "without [news] never loads it"
    ),
}
# Today's violations, being fixed (#24): (importer, imported module) -> why it is there. A fixed one must
# leave this set (the test fails while an entry is no longer a violation).
KNOWN = {}
# Today's private names imported across packages: (importer, imported module, name) -> why.
KNOWN_PRIVATE: dict[tuple[str, str, str], str] = {}
# Third-party libraries kept to one package: everything else (``_core`` above all) does without them.
OWNERS = {
    "click": {"cli", "static_helper"},
    **dict.fromkeys(("httpx", "lxml", "bs4", "charset_normalizer", "pypdf"), {"_sources"}),
}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_layering_claim_evidence_never_imports_static_helper() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(m for m in _imported_modules(path) if m.split(".")[0] == "static_helper")
        for path in sorted((ROOT / "claim_evidence").rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_layering_claim_evidence_never_imports_the_chat_endpoint() -> None:
    """The chat endpoint (an optional extra) builds on the library; no other module of it imports the endpoint."""
    chat = ROOT / "claim_evidence" / "chat"
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            m for m in _imported_modules(path) if m == "claim_evidence.chat" or m.startswith("claim_evidence.chat.")
        )
        for path in sorted((ROOT / "claim_evidence").rglob("*.py"))
        if chat not in path.parents
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_layering_importing_the_package_loads_no_chat_extra(tmp_path: Path) -> None:
    """``import claim_evidence`` (and its CLI, the helper, the answer guard) loads neither the endpoint
    nor what its extra installs; ``claim_evidence.chat`` itself loads them only in ``create_app``."""
    code = (
        "import sys, claim_evidence, claim_evidence.cli, static_helper, claim_evidence.chat, claim_evidence.chat.fakemodel\n"
        "from claim_evidence import guard_answer, retrieve, load_kb, copy_text, trim_history\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('anthropic', 'starlette', 'uvicorn')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")
    bare = "import sys, claim_evidence, claim_evidence.cli, static_helper; print(sorted(m for m in sys.modules if m.startswith('claim_evidence.chat')))"
    done = subprocess.run([sys.executable, "-c", bare], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")


def test_layering_prepublish_runs_without_static_helper(tmp_path: Path) -> None:
    """The gate over the example site (static pages included) loads no module of the helper."""
    code = (
        "import sys; from claim_evidence.cli import main; "
        f"code = main(['prepublish', '--config', {str(ROOT / 'examples/site/claim-evidence.toml')!r}, '--jobs', '1']); "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'static_helper'); "
        "print('LOADED', loaded, 'EXIT', code)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.stdout.splitlines()[-1] == "LOADED [] EXIT 0", done.stdout + done.stderr


def test_layering_examples_use_only_the_public_api() -> None:
    """The examples are what users copy: no ``_``-module of either package."""
    private = {
        str(path.relative_to(ROOT)): sorted(
            m
            for m in _imported_modules(path)
            if m.split(".")[0] in ("claim_evidence", "static_helper")
            and any(p.startswith("_") for p in m.split(".")[1:])
        )
        for path in sorted((ROOT / "examples").rglob("*.py"))
    }
    assert {k: v for k, v in private.items() if v} == {}


def test_layering_network_and_extraction_libraries_load_only_for_the_sources_commands(tmp_path: Path) -> None:
    """httpx serves `sources snapshot`/`verify` alone; the text extractors (lxml, bs4, charset-normalizer)
    load only where a page cites a stored snapshot, whose text is extracted again from its verified bytes
    (the ``.txt`` beside them is not trusted, CE527); pypdf only ever runs in the extraction's child
    process. Importing the package and checking a page without snapshots load none of them."""
    import subprocess
    import sys

    page = ROOT / "examples" / "site" / "articles" / "kumo-engine-3.html"
    modules = "('httpx', 'lxml', 'bs4', 'charset_normalizer', 'pypdf')"

    def loaded(snapshots: bool) -> tuple[int, str, str]:
        code = (
            "import dataclasses, sys, claim_evidence, static_helper\n"
            "from claim_evidence._site.config import at_build_date, load_config\n"
            f"options = at_build_date(load_config({str(ROOT / 'examples' / 'site' / 'claim-evidence.toml')!r}), None).options\n"
            + ("" if snapshots else "options = dataclasses.replace(options, snapshots=None)\n")
            + f"page = static_helper.load_page({str(page)!r}, options)\n"
            "assert not [d for d in page.diagnostics if d.is_error], page.diagnostics\n"
            f"print(sorted(m for m in {modules} if m in sys.modules))\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
        return done.returncode, done.stdout, done.stderr

    assert loaded(snapshots=False) == (0, "[]\n", "")
    assert loaded(snapshots=True) == (0, "['bs4', 'charset_normalizer', 'lxml']\n", "")


def test_layering_the_readme_build_hook_runs_on_the_public_api(tmp_path: Path) -> None:
    """README's build-hook snippet, run as written in a built copy of the example site's page."""
    import re
    import shutil

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = re.search(r"A build hook .*?```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    (tmp_path / "public").mkdir()
    page = example_page_without_markers("about.html").decode("utf-8")
    start = page.index('data-evidence-for="ABOUT-AI"')
    start = page.index(">", start) + 1
    end = page.index("</aside>", start) + len("</aside>")
    (tmp_path / "public" / "index.html").write_text(page[:start] + page[end:], encoding="utf-8")  # a fresh build
    (tmp_path / "claim-evidence.toml").write_text('pages = ["public/*.html"]\nsnapshots = "snaps"\n', encoding="utf-8")
    shutil.copytree(ROOT / "examples" / "site" / "evidence-snapshots", tmp_path / "snaps")
    done = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "PASS public/index.html\n1 page: 1 passed, 0 failed\n",
        "",
    )
    assert (tmp_path / "public" / "index.html").read_text(encoding="utf-8") == page


class _Import(NamedTuple):
    importer: str  # the importing module, dotted
    module: str  # the imported module, dotted (a name imported ``from`` a package that is a module: that module)
    name: str | None  # the name imported from it (``from module import name``), None for ``import module``
    line: int
    lazy: bool  # inside a function


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for top in ("claim_evidence", "static_helper")
        for path in sorted((ROOT / top).rglob("*.py"))
    }


def _imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[_Import]:
    """Every import of ``module``, relative ones resolved, in any block (``TYPE_CHECKING``, functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lazy_lines = {
        node.lineno
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        lazy = node.lineno in lazy_lines if isinstance(node, ast.Import | ast.ImportFrom) else False
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _Import(module, alias.name, None, node.lineno, lazy)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    yield _Import(module, submodule, None, node.lineno, lazy)
                else:
                    yield _Import(module, source, alias.name, node.lineno, lazy)


def _package(module: str) -> str | None:
    """The row of the table a module belongs to; None outside both projects."""
    parts = module.split(".")
    if parts[0] == "static_helper":
        return "static_helper"
    if parts[0] != "claim_evidence":
        return None
    if len(parts) == 1:
        return "claim_evidence"
    return "cli" if parts[1] == "__main__" else parts[1]


def _all_imports() -> list[_Import]:
    known = _modules()
    return [found for module, path in known.items() for found in _imports(module, path, known)]


def _crossings() -> dict[tuple[str, str], list[_Import]]:
    """Imports from one package of the table into another that its row does not allow."""
    found: dict[tuple[str, str], list[_Import]] = {}
    for imp in _all_imports():
        source, target = _package(imp.importer), _package(imp.module)
        if source is None or target is None or source == target:
            continue
        if target == "claim_evidence" and imp.name in FROM_THE_ROOT:
            continue
        if target not in MAY_IMPORT[source]:
            found.setdefault((imp.importer, imp.module), []).append(imp)
    return found


def test_layering_every_module_is_in_a_package_of_the_table() -> None:
    """A new package gets its row (and its line in docs/architecture.md) before it gets code."""
    rows = {_package(module) for module in _modules()}
    assert rows == set(MAY_IMPORT)
    assert {p.name for p in (ROOT / "claim_evidence").iterdir() if (p / "__init__.py").is_file()} == set(MAY_IMPORT) - {
        "claim_evidence",
        "static_helper",
    }


def test_layering_each_package_imports_only_what_its_row_allows() -> None:
    crossings = _crossings()
    unexpected = {
        edge: sorted({imp.line for imp in imports})
        for edge, imports in crossings.items()
        if edge not in KNOWN and edge not in ALLOWED
    }
    assert unexpected == {}
    assert {edge for edge in KNOWN if edge not in crossings} == set(), "fixed: remove these from KNOWN"
    assert {edge for edge in ALLOWED if edge not in crossings} == set(), "gone: remove these from ALLOWED"
    eager = {edge for edge in ALLOWED for imp in crossings[edge] if not imp.lazy}
    assert eager == set(), "an allowed crossing is imported where it is used, inside the function"


def _private(imp: _Import) -> bool:
    """``_x`` imported from a module, or a module below its package whose path has a ``_`` part."""
    below = imp.module.split(".")[1 if imp.module.startswith("static_helper") else 2 :]
    name = imp.name or ""
    return any(part.startswith("_") for part in below) or (name.startswith("_") and not name.startswith("__"))


def test_layering_no_private_name_is_imported_from_another_package() -> None:
    """Inside a package its modules share ``_`` names; across packages only the names without one."""
    found = {
        (imp.importer, imp.module, imp.name or ""): imp.line
        for imp in _all_imports()
        if _package(imp.module) not in (None, _package(imp.importer)) and _private(imp)
    }
    assert {key: line for key, line in found.items() if key not in KNOWN_PRIVATE} == {}
    assert set(KNOWN_PRIVATE) - set(found) == set(), "fixed: remove these from KNOWN_PRIVATE"


def test_layering_third_party_libraries_stay_with_their_package() -> None:
    """``_core`` needs the standard library alone; click, the network and the extractors have one home each."""
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    outside = {}
    for imp in _all_imports():
        top, package = imp.module.split(".")[0], _package(imp.importer)
        if _package(imp.module) is not None or top in stdlib:
            continue
        if package == "_core" or package not in OWNERS.get(top, {package}):
            outside.setdefault(top, set()).add(imp.importer)
    assert outside == {}


def test_layering_docs_show_the_table() -> None:
    """docs/architecture.md has a row for each package of the library (the rules are this file's)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [package for package in LIBRARY if f"\n| `{package}` |" not in text] == []
    assert "tests/acceptance/test_layering.py" in text
