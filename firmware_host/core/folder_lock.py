"""One writer per state folder: an exclusive ``flock`` on ``lock`` in the folder, held while a
command that writes the folder runs (the service, ``sim``, ``calibrate``).

Two writers on one folder would each append at their own idea of the journal's end and overwrite
each other's actions, or one would file the game the other goes on writing. The lock is taken
before anything is read or written and released only when the process ends (or the command
returns, for the tests that run commands in-process); the kernel drops it with the process, so a
``kill -9`` or a power cut leaves no stale lock. The file holds the holder's PID, so a second
writer can say who has the folder. Commands that only read (``state``, ``history``, ``doctor``)
take no lock.

Once it holds the folder, a writer removes the temporaries a killed writer left behind
(``NAME.tmp-PID-N``, see :func:`firmware_host.core.fsio.write_atomic`), in the folder and the
folders in it: only those whose process is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "lock"
_TEMPORARY = re.compile(r".\.tmp-([0-9]+)-[0-9]+$")
"""A temporary's name as :func:`~firmware_host.core.fsio.write_atomic` makes it: the PID that made it."""

log = logging.getLogger(__name__)


class FolderBusy(Exception):
    """Another process writes the state folder: names it."""


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"process {text}" if text.isdigit() else "another process"


@contextlib.contextmanager
def writing(root: Path) -> Iterator[None]:
    """Hold the state folder ``root`` for writing while inside; FolderBusy when another process does.

    A folder where the lock file cannot be made (read-only) is used without it: nobody can write
    there, and the writer says so when it tries.
    """
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderBusy(f"state folder {root} is in use by {_holder(fd)}") from None
        with contextlib.suppress(OSError):  # (a full disk: the lock holds all the same)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        sweep(root)
        yield
    finally:
        os.close(fd)  # the lock goes with the descriptor


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: alive)
        return True
    return True


def sweep(root: Path) -> list[Path]:
    """Remove the temporaries of writers that are gone from ``root`` and the folders in it (the
    caller holds the folder); the ones removed. Nothing here is ever the only copy: a temporary
    becomes the file only by its rename."""
    removed = []
    with contextlib.suppress(OSError):
        folders = [root, *(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())]
        for folder in folders:
            with contextlib.suppress(OSError):
                for path in folder.iterdir():
                    found = _TEMPORARY.search(path.name)
                    if found is None or _alive(int(found.group(1))) or not path.is_file():
                        continue
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed.append(path)
    if removed:
        log.info("removed %d temporary file(s) a stopped writer left", len(removed))
    return removed
