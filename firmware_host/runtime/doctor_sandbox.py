"""The doctor's sandbox check: the installed unit's system call filter against the calls the service makes.

The unit and its drop-ins are read as systemd reads them (:mod:`firmware_host.runtime.
syscall_filter`), their sets expanded by this machine's ``systemd-analyze`` (the systemd that will
load the filter), and every call in :data:`firmware_host.runtime.service_syscalls.CALLS` -- the
calls the service was seen making inside its filter -- must pass. A unit that would kill the
service for a call it does not list (no ``SystemCallErrorNumber=``) fails too: a call no test saw
(a driver's path on the Pi) would then kill the device instead of failing one part.

Not covered: the list was made on x86_64, where a few calls have older names than on a Pi's
aarch64 (``access``, ``mkdir``, ``rename``, ``epoll_wait`` are ``faccessat``, ``mkdirat``,
``renameat``, ``epoll_pwait`` there); both forms are in the same systemd sets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware_host.core.config import Config
from firmware_host.core.pi_layout import UNIT
from firmware_host.runtime import syscall_filter
from firmware_host.runtime.service_syscalls import CALLS

if TYPE_CHECKING:  # the doctor lists this check among its own: imported when it runs
    from firmware_host.runtime.doctor import Result, System

PART = "sandbox"
SHOWN = 6
"""Refused calls named on the line; the rest are counted."""


def unit_texts(system: System) -> list[str] | None:
    """The installed unit's text and its drop-ins' (``UNIT.d/*.conf``, in name order); None without it."""
    try:
        texts = [system.path(UNIT).read_text(encoding="utf-8")]
    except OSError:
        return None
    for drop_in in sorted(system.path(UNIT + ".d").glob("*.conf")):
        try:
            texts.append(drop_in.read_text(encoding="utf-8"))
        except OSError:
            continue
    return texts


def check_sandbox(config: Config, system: System, sets: syscall_filter.SetsSource | None = None) -> Result:
    """The unit's ``SystemCallFilter=`` lets through every call the service makes, and refuses
    the others with an error rather than a kill. ``sets`` default: this machine's systemd's."""
    from firmware_host.runtime.doctor import FAIL, OK, REINSTALL, SKIP, Result

    texts = unit_texts(system)
    if texts is None:
        return Result(PART, SKIP, f"no unit /{UNIT} (see the service line)")
    found = syscall_filter.unit_filter(texts, sets)
    if found is None:
        return Result(PART, OK, "the unit has no SystemCallFilter=: every call passes")
    lines = " ".join(found.entries)
    refused = found.refused(CALLS)
    if refused:
        named = ", ".join(refused[:SHOWN]) + (f" and {len(refused) - SHOWN} more" if len(refused) > SHOWN else "")
        return Result(
            PART,
            FAIL,
            f"SystemCallFilter={lines} ({found.origin}) refuses {len(refused)} call(s) the service makes: {named}",
            f"{REINSTALL} (installs the current unit), or add `SystemCallFilter={' '.join(refused)}` in a drop-in",
        )
    if found.error_number is None:
        return Result(
            PART,
            FAIL,
            f"SystemCallFilter={lines} with no SystemCallErrorNumber=: a call outside it kills the service (SIGSYS)",
            f"{REINSTALL} (the current unit refuses such a call with EPERM)",
        )
    return Result(
        PART,
        OK,
        f"SystemCallFilter={lines} lets all {len(CALLS)} calls the service makes through "
        f"({found.origin}); others get {found.error_number}",
    )
