"""The wheel must carry the schema, templates and stylesheet: an installed copy,
run from another folder, must not depend on this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ..conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{done.stderr[-2000:]}")
    return next(out.glob("*.whl"))


def test_packaging_wheel_contains_data_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "claim_evidence/schemas/bundle-v1.schema.json",
        "claim_evidence/schemas/fingerprint-vectors.json",
        "claim_evidence/templates/evidence.html.j2",
        "claim_evidence/assets/claim-evidence.css",
        "static_helper/__init__.py",
        "claim_evidence/py.typed",
        "static_helper/py.typed",
        "claim_evidence/chat/static/chat.js",
        "claim_evidence/chat/static/chat.css",
        "claim_evidence/chat/__main__.py",
    ):
        assert required in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") or name.endswith(".dist-info/LICENSE") for name in names)


def test_packaging_installed_copy_finds_schema_from_another_folder(wheel: Path, tmp_path: Path, bundle: dict) -> None:
    site = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import claim_evidence, json, sys;"
        "from claim_evidence._record.schema import bundle_schema;"
        "print(claim_evidence.__file__);"
        "print(bundle_schema()['$id']);"
        "print(claim_evidence.validate_bundle(json.loads(sys.stdin.read())));"
        "print(claim_evidence.render_evidence({'version': 1, 'sources': [], 'claims': [{}]})[:6])"
    )
    import json

    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(bundle),
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(str(site)), "imported the checkout instead of the installed wheel"
    assert lines[1:] == ["urn:claim-evidence:schema:bundle:v1", "[]", "<aside"]


def test_packaging_runtime_dependencies_are_exactly_what_the_packages_import() -> None:
    """Every runtime dependency is imported by the package, and every third-party import is declared:
    by the runtime dependencies, or, for a generator plugin (``claim_evidence/integrations/NAME.py``),
    by the optional extra of that NAME, or, for the chat endpoint (``claim_evidence/chat/``), by the
    ``chat`` extra; and every such extra is what its plugin or package imports."""
    import ast
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    def names(requirements: list[str]) -> set[str]:
        return {r.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower() for r in requirements}

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = names(project["dependencies"])
    generators = ("mkdocs", "sphinx", "pelican")
    extras = {extra: names(project["optional-dependencies"][extra]) for extra in (*generators, "chat")}
    # Import names are not distribution names (bs4 is beautifulsoup4): ask the installed metadata.
    distributions = packages_distributions()

    def third_party(path: Path) -> set[str]:
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
        modules = {
            m for m in imported if m not in sys.stdlib_module_names and m not in ("claim_evidence", "static_helper")
        }
        return {distributions[m][0].lower() for m in modules}

    integrations = ROOT / "claim_evidence" / "integrations"
    chat = ROOT / "claim_evidence" / "chat"
    core: set[str] = set()
    by_plugin: dict[str, set[str]] = {"chat": set()}
    for package in ("claim_evidence", "static_helper"):
        for path in (ROOT / package).rglob("*.py"):
            if path.parent == integrations and path.stem in generators:
                by_plugin[path.stem] = third_party(path) - declared
            elif chat in path.parents:
                by_plugin["chat"] |= third_party(path) - declared
            else:
                core |= third_party(path)
    assert core == declared
    assert by_plugin == extras
