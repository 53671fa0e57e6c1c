"""One-way layering: ``static_helper`` builds on ``claim_evidence``, never the other way round."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, example_page_without_markers


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
