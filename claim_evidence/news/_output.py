"""Writing derived outputs: atomic, UTF-8, deterministic bytes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._core.atomic import atomic_write_bytes
from .._core.jsonio import dumps_for_script


def json_text(value: Any) -> str:
    """Indented JSON with a final newline; ``<`` and U+2028/2029 escaped so a site may inline it."""
    return dumps_for_script(value, indent=2) + "\n"


def write_json(path: str | os.PathLike[str], value: Any) -> Path:
    return atomic_write_bytes(path, json_text(value).encode("utf-8"))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))
