"""Atomic file replacement: readers see the old file or the new one, never half.

A temp file in the target's own folder (so ``os.replace`` is a rename on one
file system), flushed and fsynced, given the original mode (and owner where
permitted), then renamed over the target. A symlink is resolved first so the
link stays a link and its target is what changes.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ._diagnostics import Diagnostic, InputError

TEMP_PREFIX = ".claim-evidence-tmp-"


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` with ``data``; return the real path written.

    Raises :class:`InputError` (CE010) with the original left intact when the
    folder is not writable, the disk fails or the rename fails.
    """
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _write_error(target, exc) from None
    # Mode bits first: root may write anything, but a page marked read-only was
    # marked so on purpose.
    if info is not None and (not info.st_mode & 0o222 or not os.access(target, os.W_OK)):
        raise InputError(Diagnostic("CE010", "file is read-only; nothing was written: make it writable (chmod u+w) and run the command again", file=str(path)))
    fd, temp = _mkstemp(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if info is not None:
            os.chmod(temp, stat.S_IMODE(info.st_mode))
            _keep_owner(temp, info)
        os.replace(temp, target)
    except OSError as exc:
        _discard(temp)
        raise _write_error(target, exc) from None
    except BaseException:
        _discard(temp)
        raise
    _fsync_dir(target.parent)
    return target


def _mkstemp(target: Path) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _write_error(target, exc) from None


def _keep_owner(temp: str, info: os.stat_result) -> None:
    if hasattr(os, "chown"):
        try:
            os.chown(temp, info.st_uid, info.st_gid)
        except PermissionError:
            pass  # only root may give a file away; the mode is kept regardless


def _discard(temp: str) -> None:
    try:
        os.unlink(temp)
    except FileNotFoundError:
        pass


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_error(target: Path, exc: OSError) -> InputError:
    reason = exc.strerror or str(exc)
    return InputError(Diagnostic("CE010", f"cannot write file: {reason}; the original is unchanged", file=str(target)))

