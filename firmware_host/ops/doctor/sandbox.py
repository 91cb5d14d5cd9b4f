"""The doctor's sandbox check: the installed unit's system call filter against the calls the service makes.

The unit and its drop-ins are read as systemd reads them (:mod:`firmware_host.runtime.
syscall_filter`), their sets expanded by this machine's ``systemd-analyze`` (the systemd that will
load the filter), and every call in :func:`firmware_host.ops.service_syscalls.calls` -- the
calls the service was seen making inside its filter -- must pass. A unit that would kill the
service for a call it does not list (no ``SystemCallErrorNumber=``) fails too: a call no test saw
(a driver's path on the Pi) would then kill the device instead of failing one part. A clock
synced by chrony or ntpd rather than systemd-timesyncd is noted: the sandboxed service cannot see
it (:mod:`firmware_host.core.wallclock`).

The list is the one recorded on the machine the doctor runs on (:func:`firmware_host.runtime.
service_syscalls.calls`: x86-64's and aarch64's, whose names differ); on a machine with none the
line says so and checks nothing, rather than passing on another architecture's names.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from firmware_host.core import wallclock
from firmware_host.core.pi_layout import UNIT
from firmware_host.ops import service_syscalls, syscall_filter

PART = "sandbox"
OK, FAIL, SKIP = "ok", "FAIL", "skip"
"""The doctor's statuses (:mod:`firmware_host.ops.doctor`, which turns a verdict into its line)."""
SHOWN = 6
"""Refused calls named on the line; the rest are counted."""


class Verdict(NamedTuple):
    """The doctor's line for the sandbox: part, status, what was found, the fix."""

    part: str
    status: str
    found: str
    fix: str = ""


def unit_texts(root: Path) -> list[str] | None:
    """The installed unit's text and its drop-ins' (``UNIT.d/*.conf``, in name order); None without it."""
    try:
        texts = [(root / UNIT).read_text(encoding="utf-8")]
    except OSError:
        return None
    for drop_in in sorted((root / f"{UNIT}.d").glob("*.conf")):
        try:
            texts.append(drop_in.read_text(encoding="utf-8"))
        except OSError:
            continue
    return texts


def sandbox_verdict(
    root: Path, reinstall: str, sets: syscall_filter.SetsSource | None = None, machine: str | None = None
) -> Verdict:
    """Whether the unit under ``root`` lets through every call the service makes on ``machine``
    (default: this one), and refuses the others with an error rather than a kill; ``reinstall``
    is the fix that installs the current unit. ``sets`` default: this machine's systemd's."""
    texts = unit_texts(root)
    if texts is None:
        return Verdict(PART, SKIP, f"no unit /{UNIT} (see the service line)")
    import platform

    machine = machine or platform.machine()
    recorded = service_syscalls.calls(machine)
    if recorded is None:
        known = ", ".join(sorted(service_syscalls.CALLS_BY_MACHINE))
        return Verdict(PART, SKIP, f"no list of the service's calls was recorded on {machine} (only on {known})")
    found = syscall_filter.unit_filter(texts, sets)
    if found is None:
        return Verdict(PART, OK, "the unit has no SystemCallFilter=: every call passes")
    lines = " ".join(found.entries)
    refused = found.refused(recorded)
    if refused:
        named = ", ".join(refused[:SHOWN]) + (f" and {len(refused) - SHOWN} more" if len(refused) > SHOWN else "")
        return Verdict(
            PART,
            FAIL,
            f"SystemCallFilter={lines} ({found.origin}) refuses {len(refused)} call(s) the service makes: {named}",
            f"{reinstall} (installs the current unit), or add `SystemCallFilter={' '.join(refused)}` in a drop-in",
        )
    if found.error_number is None:
        return Verdict(
            PART,
            FAIL,
            f"SystemCallFilter={lines} with no SystemCallErrorNumber=: a call outside it kills the service (SIGSYS)",
            f"{reinstall} (the current unit refuses such a call with EPERM)",
        )
    return Verdict(
        PART,
        OK,
        f"SystemCallFilter={lines} lets all {len(recorded)} calls the service makes on {machine} through "
        f"({found.origin}); others get {found.error_number}{clock_note(root)}",
    )


def clock_note(root: Path, kernel_synced: Callable[[], bool | None] = wallclock.kernel_synced) -> str:
    """A note when the kernel's clock is synced but not by systemd-timesyncd: inside its sandbox
    the service sees only timesyncd's flag file, so it dates its games "clock unset"."""
    if (root / str(wallclock.SYNC_FLAG).lstrip("/")).exists() or kernel_synced() is not True:
        return ""
    return (
        "; note: the clock is synced, but not by systemd-timesyncd, whose flag is all the sandboxed"
        " service can see: games are dated 'clock unset' (sudo apt install systemd-timesyncd)"
    )
