"""The public API of both packages is what ``__all__`` lists, and every name of it is really there.

As httpx's own ``test_exported_members.py`` checks its ``__all__``; here the names are imported on
first use (PEP 562, :mod:`claim_evidence._core.lazy`), so a typo in a ``_HOMES`` table, or a name that
moved out of its module (as the layout of #24 moves them), would fail only when a user first touches it.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from types import ModuleType

import pytest

import claim_evidence
import static_helper

PACKAGES = [claim_evidence, static_helper]
# Names a package defines itself, not through its ``_HOMES`` table.
EAGER = {"claim_evidence": {"__version__"}, "static_helper": set()}


@pytest.fixture(params=PACKAGES, ids=lambda package: package.__name__)
def package(request: pytest.FixtureRequest) -> ModuleType:
    return request.param


def test_exported_members_all_resolve(package: ModuleType) -> None:
    assert len(package.__all__) == len(set(package.__all__))
    missing = [name for name in package.__all__ if getattr(package, name, None) is None]
    assert missing == []


def test_exported_members_dir_lists_all(package: ModuleType) -> None:
    assert set(package.__all__) - set(dir(package)) == set()


def test_exported_members_homes_are_the_lazy_names(package: ModuleType) -> None:
    """Every public name is in the table or defined by the package; the table holds nothing else."""
    assert set(package._HOMES) == set(package.__all__) - EAGER[package.__name__]
    assert {name for name in EAGER[package.__name__] if name not in vars(package)} == set()


def test_exported_members_homes_exist_and_define_the_name(package: ModuleType) -> None:
    """Each home is a module of the two projects that has the name, and the package hands out that object."""
    for name, home in sorted(package._HOMES.items()):
        assert home.split(".")[0] in ("claim_evidence", "static_helper"), (name, home)
        assert importlib.util.find_spec(home) is not None, (name, home)
        module = importlib.import_module(home)
        assert name in vars(module), f"{home} has no {name}"
        assert getattr(package, name) is vars(module)[name], (name, home)


def test_exported_members_unknown_name_is_an_attribute_error(package: ModuleType) -> None:
    with pytest.raises(AttributeError, match=f"module '{package.__name__}' has no attribute 'nope'"):
        package.nope  # noqa: B018


def test_exported_members_resolve_in_a_fresh_interpreter() -> None:
    """From nothing loaded (the cache of a name that resolved once cannot hide a broken home)."""
    code = (
        "import claim_evidence, static_helper\n"
        "for package in (claim_evidence, static_helper):\n"
        "    for name in package.__all__:\n"
        "        getattr(package, name)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
