"""The ``claim-evidence`` command: the only user of click in the library, a thin layer that parses
options, calls the packages below and maps their errors to exit codes. ``main`` is the console script.

``main`` is imported on first use (PEP 562): ``static-helper`` uses :mod:`.errors`, the error mapping
both command lines share, without loading every ``claim-evidence`` command.
"""

from __future__ import annotations

from .._core.lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .main_command import main

__all__ = ["main"]

__getattr__, __dir__ = lazy_exports(__name__, {"main": "claim_evidence.cli.main_command"}, globals(), __all__)
