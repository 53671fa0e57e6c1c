"""The pre-commit hook manifest (``.pre-commit-hooks.yaml``): what it publishes and what it matches."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def _scalar(value: str) -> object:
    if value.startswith("[") and value.endswith("]"):
        return [item.strip() for item in value[1:-1].split(",")]
    if value[:1] == "'" == value[-1:]:
        return value[1:-1].replace("''", "'")
    return {"true": True, "false": False}.get(value, value)


def hooks() -> dict[str, dict[str, object]]:
    """The manifest read as the flat list of maps it is (PyYAML is not a test dependency)."""
    found: list[dict[str, object]] = []
    for line in MANIFEST.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- "):
            found.append({})
            line = "  " + line[2:]
        key, _, value = line.strip().partition(": ")
        found[-1][key] = _scalar(value.strip())
    return {str(hook["id"]): hook for hook in found}


def test_hooks_manifest_reads_the_same_with_pyyaml():
    yaml = pytest.importorskip("yaml", reason="PyYAML not installed; the flat reader is checked by the other tests")
    assert {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))} == hooks()


def test_hooks_publish_page_check_write_and_validation():
    found = hooks()
    assert sorted(found) == ["claim-evidence-validate", "static-helper", "static-helper-write"]
    assert (found["static-helper"]["entry"], found["static-helper"]["types"]) == ("static-helper", ["html"])
    assert (found["static-helper-write"]["entry"], found["static-helper-write"]["types"]) == (
        "static-helper --write --exit-non-zero-on-write",
        ["html"],
    )
    assert (found["claim-evidence-validate"]["entry"], found["claim-evidence-validate"]["types"]) == (
        "claim-evidence validate",
        ["json"],
    )
    assert all(hook["language"] == "python" for hook in found.values())


def test_hooks_entries_are_console_scripts_of_the_package():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert {str(hook["entry"]).split()[0] for hook in hooks().values()} <= set(scripts)


@pytest.mark.parametrize(
    ("path", "matched"),
    [
        ("claim-evidence.json", True),
        ("data/claims.evidence.json", True),
        ("site/evidence/2026/about.json", True),
        ("package.json", False),
        ("data/corrections.json", False),
        ("evidence.html", False),
        ("noevidence/x.json", False),
    ],
)
def test_hooks_validate_default_files_pattern(path, matched):
    pattern = re.compile(str(hooks()["claim-evidence-validate"]["files"]))
    assert bool(pattern.search(path)) is matched
