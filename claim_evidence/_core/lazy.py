"""Public names imported on first use (PEP 562), for the packages' ``__init__`` modules.

``import claim_evidence`` or ``import static_helper`` then costs almost nothing: a
command line, a build hook or ``--version`` pays only for the parts it uses.
"""

from __future__ import annotations

import importlib

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost these modules avoid (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any], public: list[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name in ``homes`` is imported from its module on
    first use and then kept in ``namespace`` (the package's globals), so later lookups do not come back."""

    def getattr_(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *public})

    return getattr_, dir_
