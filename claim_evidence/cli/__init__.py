"""The ``claim-evidence`` command: the only user of click in the library, a thin layer that parses
options, calls the packages below and maps their errors to exit codes. ``main`` is the console script."""

from __future__ import annotations

from .main_command import main

__all__ = ["main"]
