"""Atomic file replacement: readers see the old file or the new one, never half, and never elsewhere.

A temp file in the target's own folder (so the rename is a rename on one file
system), flushed and fsynced, given the original mode (and owner where
permitted), then renamed over the target. A new file gets ``0666`` less the
umask, as any program's new file does: the outputs are published artifacts a
web server running as another user must be able to read.

Where the bytes go is decided once. :func:`pin` resolves the path (a symlink
stays a link and its target is what changes), opens the target's folder and
keeps that descriptor, and opens the file without following a link. Every later
step works relative to the folder descriptor: the temp file is created in it,
the file's identity (device and inode) is checked in it just before the
rename, and the rename happens within it. So a page swapped for a symlink, or a
folder swapped for one, after the check cannot send the write anywhere else:
the rename replaces a directory entry, it never writes through a link.

With ``root`` (a site's folder), the resolved target must lie inside it, and
the folders from the root down are opened one by one without following links:
``--write`` never writes outside the site (CE011).

After the rename the folder is fsynced too, so the new name survives a crash. Inside
:func:`deferred_folder_syncs` (a ``--write`` run over many pages) each folder is fsynced
once, when the block ends, instead of after every file: every replacement is just as
atomic (the file's own bytes are fsynced before its rename), and all of them are durable
when the run returns; a crash in the middle may leave a page as it was before the run,
never half written.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from .diagnostics import Diagnostic, InputError
from .textio import MAX_BYTES, too_large

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

TEMP_PREFIX = ".claim-evidence-tmp-"
_TEMP_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Relative opens and renames need the *at() calls; without them (Windows) paths are used as before.
# (os.replace takes src_dir_fd/dst_dir_fd wherever os.rename does, but supports_dir_fd lists only rename.)
_AT_CALLS = all(f in os.supports_dir_fd for f in (os.open, os.rename, os.stat, os.unlink))


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, root: str | os.PathLike[str] | None = None
) -> Path:
    """Replace ``path`` (or create it) with ``data``; return the real path written.

    Raises :class:`InputError` with the original left intact: CE010 when the
    folder is not writable, the disk fails, the rename fails or the file was
    replaced meanwhile; CE011 when ``root`` is given and the file resolves
    outside it.
    """
    with pin(path, root) as pinned:
        pinned.replace(data)
        return pinned.target


@contextlib.contextmanager
def pin(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> Iterator[PinnedFile]:
    """The file at ``path``, resolved once and held by its folder (see the module docstring)."""
    pinned = PinnedFile(path, root)
    try:
        yield pinned
    finally:
        pinned.close()


class PinnedFile:
    """One file to read and replace, held by its folder's descriptor and its own identity."""

    def __init__(self, path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> None:
        self.shown = os.fspath(path)
        try:
            self.target = Path(os.path.realpath(path))
        except OSError:  # a link replaced while it was being resolved
            raise _replaced(self.shown) from None
        self.name = self.target.name
        self.dir_fd = -1
        self.fd = -1
        self.info: os.stat_result | None = None
        try:
            self.dir_fd = self._open_folder(root)
            self._open_file()
        except BaseException:
            self.close()
            raise

    @property
    def exists(self) -> bool:
        return self.info is not None

    def read(self, max_bytes: int = MAX_BYTES) -> bytes:
        """The file's bytes as they are now, read through the descriptor opened at :func:`pin`
        (CE001 when there is none to read, CE004 past ``max_bytes``, as :func:`.textio.read_text`)."""
        if self.fd < 0:
            if self.info is not None and stat.S_ISDIR(self.info.st_mode):
                raise InputError(Diagnostic("CE001", "is a directory, expected a file", file=self.shown))
            reason = "file not found" if self.info is None else f"cannot read file: {os.strerror(errno.EACCES)}"
            raise InputError(Diagnostic("CE001", reason, file=self.shown))
        size = os.fstat(self.fd).st_size
        if size > max_bytes:
            raise InputError(Diagnostic("CE004", too_large(size, max_bytes), file=self.shown))
        chunks = []
        offset = 0
        while chunk := os.pread(self.fd, 1 << 20, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive lock on the file itself (no lock files are left in the site)."""
        if fcntl is not None and self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        yield  # the lock goes with the descriptor, at close

    def replace(self, data: bytes) -> None:
        """Write ``data`` under the file's name in its folder, atomically; only if the name still
        holds the file opened at :func:`pin` (a new file: if nothing but a link or a file appeared)."""
        info = self.info
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise InputError(Diagnostic("CE010", "is a directory; nothing was written", file=self.shown))
        # Mode bits first: root may write anything, but a page marked read-only was marked so on purpose.
        if info is not None and (not info.st_mode & 0o222 or not self._access(os.W_OK)):
            if self._mounted_read_only():  # access() fails there too, and no chmod would help
                raise InputError(
                    Diagnostic(
                        "CE010", f"{READ_ONLY_MOUNT}; nothing was written: {READ_ONLY_MOUNT_ADVICE}", file=self.shown
                    )
                )
            raise InputError(
                Diagnostic(
                    "CE010",
                    "file is read-only; nothing was written: make it writable (chmod u+w) and run the command again",
                    file=self.shown,
                )
            )
        temp = self._create_temp(0o600 if info is not None else 0o666)
        try:
            with os.fdopen(temp[0], "wb") as handle:
                handle.write(data)
                handle.flush()
                if info is not None:
                    os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
                    _keep_owner(handle.fileno(), info)
                os.fsync(handle.fileno())
            self._check_identity()
            self._rename(temp[1])
        except OSError as exc:
            self._discard(temp[1])
            raise _write_error(self.target, exc) from None
        except BaseException:
            self._discard(temp[1])
            raise
        deferred = _DEFERRED.get()
        if deferred is None:
            _fsync_dir(self.dir_fd)
        else:
            deferred.add(self.dir_fd)

    def close(self) -> None:
        for fd in (self.fd, self.dir_fd):
            if fd >= 0:
                os.close(fd)
        self.fd = self.dir_fd = -1

    # --- the steps ---------------------------------------------------------------------------

    def _open_folder(self, root: str | os.PathLike[str] | None) -> int:
        folder = self.target.parent
        if not _AT_CALLS:  # pragma: no cover - Windows: paths only
            return -1
        try:
            if root is None:
                return os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            real_root = Path(os.path.realpath(root))
            try:
                inside = folder.relative_to(real_root)
            except ValueError:
                raise _outside(self.shown, self.target, real_root) from None
            fd = os.open(real_root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            for part in inside.parts:  # down from the root, no link followed: a folder swapped meanwhile fails
                try:
                    next_fd = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
                finally:
                    os.close(fd)
                fd = next_fd
            return fd
        except OSError as exc:
            raise _write_error(self.target, exc, "its folder") from None

    def _open_file(self) -> None:
        try:
            self.info = self._lstat()
        except FileNotFoundError:
            return  # a new file
        except OSError as exc:
            raise _write_error(self.target, exc) from None
        if stat.S_ISDIR(self.info.st_mode):
            return  # read() says so; replace() refuses
        if not stat.S_ISREG(self.info.st_mode):  # a link that appeared after the name was resolved, a fifo…
            raise _replaced(self.shown)
        flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC
        try:
            if self.dir_fd >= 0:
                self.fd = os.open(self.name, flags, dir_fd=self.dir_fd)
            else:  # pragma: no cover - Windows
                self.fd = os.open(self.target, flags)
        except PermissionError:
            return  # a file we may replace but not read: its identity is what lstat saw
        except OSError as exc:
            raise _replaced(self.shown) if exc.errno == errno.ELOOP else _write_error(self.target, exc) from None
        opened = os.fstat(self.fd)
        if (opened.st_dev, opened.st_ino) != (self.info.st_dev, self.info.st_ino):
            raise _replaced(self.shown)
        self.info = opened

    def _lstat(self) -> os.stat_result:
        if self.dir_fd >= 0:
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        return os.lstat(self.target)  # pragma: no cover - Windows

    def _access(self, mode: int) -> bool:
        if self.dir_fd >= 0 and os.access in os.supports_dir_fd:
            return os.access(self.name, mode, dir_fd=self.dir_fd)
        return os.access(self.target, mode)  # pragma: no cover - Windows

    def _mounted_read_only(self) -> bool:
        """True when the file system holding the folder is mounted read-only (ST_RDONLY)."""
        try:
            found = os.fstatvfs(self.dir_fd) if self.dir_fd >= 0 else os.statvfs(self.target.parent)
        except (OSError, AttributeError):  # pragma: no cover - no statvfs (Windows)
            return False
        return bool(found.f_flag & getattr(os, "ST_RDONLY", 0))

    def _create_temp(self, mode: int) -> tuple[int, str]:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        for _ in range(100):
            name = TEMP_PREFIX + "".join(secrets.choice(_TEMP_LETTERS) for _ in range(8)) + ".tmp"
            try:
                if self.dir_fd >= 0:
                    return os.open(name, flags, mode, dir_fd=self.dir_fd), name
                return os.open(self.target.parent / name, flags, mode), name  # pragma: no cover - Windows
            except FileExistsError:
                continue
            except OSError as exc:
                raise _write_error(self.target, exc) from None
        raise _write_error(self.target, FileExistsError(17, "no free temp file name"))  # pragma: no cover

    def _check_identity(self) -> None:
        was = self.info
        if was is None:
            return  # a new file: whatever appeared under its name is replaced, never written through
        try:
            now: os.stat_result | None = self._lstat()
        except FileNotFoundError:
            now = None
        if now is None or (now.st_dev, now.st_ino) != (was.st_dev, was.st_ino) or not stat.S_ISREG(now.st_mode):
            raise _replaced(self.shown)

    def _rename(self, temp: str) -> None:
        if self.dir_fd >= 0:
            os.replace(temp, self.name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        else:  # pragma: no cover - Windows
            os.replace(self.target.parent / temp, self.target)

    def _discard(self, temp: str) -> None:
        try:
            if self.dir_fd >= 0:
                os.unlink(temp, dir_fd=self.dir_fd)
            else:  # pragma: no cover - Windows
                os.unlink(self.target.parent / temp)
        except FileNotFoundError:
            pass


def _keep_owner(fd: int, info: os.stat_result) -> None:
    if hasattr(os, "fchown"):
        try:
            os.fchown(fd, info.st_uid, info.st_gid)
        except PermissionError:
            pass  # only root may give a file away; the mode is kept regardless


class _FolderSyncs:
    """The folders a :func:`deferred_folder_syncs` block renamed files in, each held by a descriptor of its
    own (the file's is closed with the file) until it is fsynced."""

    # Folders held open at once; past this many the held ones are fsynced (a site of thousands of folders
    # must not run out of descriptors).
    LIMIT = 64

    def __init__(self) -> None:
        self.fds: dict[tuple[int, int], int] = {}

    def add(self, dir_fd: int) -> None:
        if dir_fd < 0:  # pragma: no cover - Windows
            return
        info = os.fstat(dir_fd)
        key = (info.st_dev, info.st_ino)
        if key in self.fds:
            return
        if len(self.fds) >= self.LIMIT:
            self.flush()
        self.fds[key] = os.dup(dir_fd)

    def flush(self) -> None:
        fds, self.fds = self.fds, {}
        for fd in fds.values():
            try:
                _fsync_dir(fd)
            finally:
                os.close(fd)


_DEFERRED: contextvars.ContextVar[_FolderSyncs | None] = contextvars.ContextVar("deferred_folder_syncs", default=None)


@contextlib.contextmanager
def deferred_folder_syncs() -> Iterator[None]:
    """Within the block, each folder a replacement renames in is fsynced once, at the block's end (also
    when it raises), not after each file: see the module docstring. A block inside another is the outer's."""
    if _DEFERRED.get() is not None:
        yield
        return
    syncs = _FolderSyncs()
    token = _DEFERRED.set(syncs)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
        syncs.flush()


def _fsync_dir(fd: int) -> None:
    if fd < 0:  # pragma: no cover - Windows
        return
    try:
        os.fsync(fd)
    except OSError:
        pass


REPLACED = "the file was replaced while it was being written; nothing was written: run the command again"


def _replaced(shown: str) -> InputError:
    return InputError(Diagnostic("CE010", REPLACED, file=shown))


def _outside(shown: str, target: Path, root: Path) -> InputError:
    link = (
        ""
        if os.path.abspath(shown) == os.fspath(target)
        else f" (it is a symbolic link, or lies in a linked folder, that resolves to {target})"
    )
    message = (
        f"not written: the file lies outside the site ({root}){link}; a write never leaves the site. "
        "Replace the link by the file itself, or check the file from the folder that holds it"
    )
    return InputError(Diagnostic("CE011", message, file=shown))


# A read-only mount (EROFS) is not the file's mode: "chmod u+w" would fail the same way.
READ_ONLY_MOUNT = "the file system is mounted read-only"
READ_ONLY_MOUNT_ADVICE = "work on a copy on a writable disk, or remount it read-write, and run the command again"


def _write_error(target: Path, exc: OSError, what: str = "file") -> InputError:
    if exc.errno == errno.EROFS:
        message = f"cannot write {what}: {READ_ONLY_MOUNT}; the original is unchanged: {READ_ONLY_MOUNT_ADVICE}"
        return InputError(Diagnostic("CE010", message, file=str(target)))
    reason = exc.strerror or str(exc)
    return InputError(
        Diagnostic("CE010", f"cannot write {what}: {reason}; the original is unchanged", file=str(target))
    )
