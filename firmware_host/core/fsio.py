"""The few file-system calls the state folder is written with, in one place.

Every byte the device keeps goes through these functions: the journal, the history, the small
JSON documents and the filing of finished games. Keeping them here gives the crash and storage
tests one seam to inject a kill, a full disk or a read-only remount at each write, fsync, rename
and truncate (``tests/crashkit.py``), and gives the players one wording for storage errors
(:func:`storage_message`).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import time
from pathlib import Path

from games.core.text import T


def open_append(path: Path) -> int:
    """A descriptor to write ``path`` at chosen offsets (created if missing)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)


def write(fd: int, data: bytes, offset: int) -> None:
    """Write all of ``data`` at ``offset`` (a short write is continued, never dropped)."""
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, offset)
        if done <= 0:
            raise OSError(errno.EIO, "short write")
        view, offset = view[done:], offset + done


def fsync(fd: int) -> None:
    """Make what was written to ``fd`` durable."""
    os.fsync(fd)


def truncate(fd: int, size: int) -> None:
    """Cut the file of ``fd`` to ``size`` bytes (a torn tail left by a power cut)."""
    os.ftruncate(fd, size)


def rename(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst`` atomically (replacing ``dst``)."""
    os.replace(src, dst)


def mkdir(path: Path) -> bool:
    """Make the folder ``path``; ``True`` when it was made now (its parent then needs an fsync)."""
    try:
        os.mkdir(path)
    except FileExistsError:
        return False
    return True


def close(fd: int) -> None:
    """Close a descriptor."""
    os.close(fd)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in the folder ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fsync(fd)
    finally:
        os.close(fd)


def write_new(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write a whole new file at ``path`` and fsync it (not its folder). ``mode``: its permissions
    whatever the umask; without it 0644 less the umask (the service's unit narrows that)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644 if mode is None else mode)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        write(fd, data, 0)
        fsync(fd)
    finally:
        os.close(fd)


_TEMPS = itertools.count(1)
"""Numbers temporary files: with the PID, a name no other writer (a second boot) shares."""


def write_atomic(path: Path, data: bytes, mode: int | None = None, folder_sync: bool = True) -> None:
    """Replace ``path`` with ``data`` durably: temp file, fsync, rename, fsync the folder.

    Readers (and a Pi booting after a power cut) see the old content or the new, never a mix.
    ``mode`` defaults to the old file's permissions (for a new file, as :func:`write_new`).
    ``folder_sync=False`` lets a folder that cannot be fsynced (the Pi's FAT boot partition) pass;
    the store's own folders must sync or fail.
    """
    if mode is None and path.exists():
        mode = path.stat().st_mode & 0o7777
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{next(_TEMPS)}")
    try:
        write_new(tmp, data, mode)
        rename(tmp, path)
    except Exception:  # an error, not a kill: a kill leaves the temp file as a power cut would
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:
        fsync_dir(path.parent)
    except OSError:
        if folder_sync:
            raise


def stamp() -> str:
    """A name part saying when (UTC), for files moved aside."""
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime())


def move_aside(path: Path, why: str = "damaged") -> Path:
    """Rename a damaged file to ``NAME.damaged-STAMP`` beside it (never over another); the new name."""
    base = path.with_name(f"{path.name}.{why}-{stamp()}")
    target, n = base, 1
    while target.exists():
        n += 1
        target = base.with_name(f"{base.name}.{n}")
    rename(path, target)
    fsync_dir(path.parent)
    return target


READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def storage_message(exc: BaseException) -> str:
    """What a failed save means for the table, in a few words for the panel."""
    code = getattr(exc, "errno", None)
    if code in FULL:
        return T("Cannot save: disk full")
    if code in READ_ONLY:
        return T("State folder is read-only")
    if code == errno.EIO:
        return T("Cannot save: storage I/O error")
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return T("Cannot save: {reason}", reason=reason)
