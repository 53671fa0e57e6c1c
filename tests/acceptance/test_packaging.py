"""The wheel must carry the schema, templates and stylesheet: an installed copy,
run from another folder, must not depend on this checkout."""

from __future__ import annotations

import os
import re
import shlex
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
    ``chat`` extra (so is ``extract run``'s model client); and every such extra is what its plugin or package imports."""
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
    # ``extract run --model M`` asks the Messages API with the chat extra's SDK (imported when asked)
    extract_run = ROOT / "claim_evidence" / "_commands" / "extract.py"
    core: set[str] = set()
    by_plugin: dict[str, set[str]] = {"chat": set()}
    for package in ("claim_evidence", "static_helper"):
        for path in (ROOT / package).rglob("*.py"):
            if path.parent == integrations and path.stem in generators:
                by_plugin[path.stem] = third_party(path) - declared
            elif chat in path.parents or path == extract_run:
                by_plugin["chat"] |= third_party(path) - declared
            else:
                core |= third_party(path)
    assert core == declared
    assert by_plugin == extras


# --- Install lines ------------------------------------------------------------------------------

# claim-evidence is not on the package index: every line that installs it names a checkout or a wheel.
INSTALL_DOCS = ("README.md", "docs/generators/*.md")
_OURS = re.compile(r"claim[-_]evidence", re.I)


def _install_lines() -> list[tuple[str, str]]:
    """``(file:line, arguments)`` of every ``pip install`` in README.md and the generator guides."""
    found = []
    for pattern in INSTALL_DOCS:
        for path in sorted(ROOT.glob(pattern)):
            lines = path.read_text(encoding="utf-8").splitlines()
            for n, line in enumerate(lines, 1):
                # README's prose wraps an inline `pip install …` over two lines: join them.
                text = line + " " + lines[n] if line.rstrip().endswith("pip install") and n < len(lines) else line
                for match in re.finditer(r"pip install ([^`#&|]*)", text):
                    found.append((f"{path.relative_to(ROOT)}:{n}", match.group(1)))
    return found


def _is_local(argument: str) -> bool:
    """A path to a checkout (``/path/to/claim-evidence[mkdocs]``, ``.``, ``'.[test]'``) or a wheel file."""
    bare = argument.split("[", 1)[0]
    return bare.startswith(("/", "./", "../", "~")) or bare == "." or bare.endswith(".whl")


def test_packaging_install_lines_name_a_checkout_or_a_wheel() -> None:
    lines = _install_lines()
    assert len(lines) >= 8, lines  # the guides' and README's lines were all found
    bad = []
    for where, arguments in lines:
        names = [a for a in shlex.split(arguments) if not a.startswith("-")]
        assert names, f"{where}: pip install without a package: {arguments!r}"
        # Another project's tool (mutmut) comes from the index; this package only from a path.
        bad += [f"{where}: {a}" for a in names if (_OURS.search(a) or a.startswith(".")) and not _is_local(a)]
    assert bad == [], "claim-evidence is not on the package index; install it from a checkout:\n" + "\n".join(bad)


def test_packaging_install_line_check_refuses_an_index_name() -> None:
    assert not _is_local("claim-evidence[mkdocs]")
    assert not _is_local("claim_evidence")
    assert _is_local("/path/to/claim-evidence[mkdocs]")
    assert _is_local("dist/claim_evidence-0.1.0-py3-none-any.whl[mkdocs]")


def _offline_venv(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh venv that sees this environment's third-party packages (by a .pth to a folder of links
    to them) but not claim-evidence: an extra's requirements are then already satisfied, offline,
    and pip must install claim-evidence itself into the venv, touching nothing outside ``tmp_path``."""
    import sysconfig
    import venv

    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(fresh)
    python = fresh / "bin" / "python"
    farm = tmp_path / "deps"
    farm.mkdir()
    ours = ("claim_evidence", "static_helper", "__editable__", "__editable___claim_evidence")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(ours) and entry.suffix != ".pth":
            (farm / entry.name).symlink_to(entry)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "offline-deps.pth").write_text(f"{farm}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    return python, env


def _pip_install(tmp_path: Path, *requirement: str) -> tuple[Path, dict[str, str]]:
    python, env = _offline_venv(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index", *requirement],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python, env


def _installed_plugin(python: Path, env: dict[str, str]) -> list[str]:
    """Where the fresh venv imports claim_evidence from, and the MkDocs plugin its entry point loads."""
    code = (
        "import claim_evidence, importlib.metadata as m;"
        "print(claim_evidence.__file__);"
        "(ep,) = [e for e in m.entry_points(group='mkdocs.plugins') if e.name == 'claim-evidence'];"
        "print(ep.load().__module__)"
    )
    done = subprocess.run([python, "-c", code], cwd=python.parent, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_packaging_wheel_with_an_extra_installs_into_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    """``pip install 'WHEEL[mkdocs]'``: the extra resolves (its requirements met from this environment,
    offline) and the plugin loads from the fresh venv. The guides' checkout form builds this same wheel
    first; that build needs setuptools and wheel from the index, so it is not run here."""
    python, env = _pip_install(tmp_path, f"{wheel}[mkdocs]")
    where, plugin = _installed_plugin(python, env)
    assert where.startswith(str(tmp_path / "venv")), where
    assert plugin == "claim_evidence.integrations.mkdocs"
