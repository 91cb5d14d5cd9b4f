"""Whether the wall clock can be believed yet.

A Raspberry Pi has no battery-backed clock: it boots with the time it last saved (systemd's
``timesyncd`` keeps a file of it) or with 1970, and jumps to the real time when NTP first answers,
possibly in the middle of a game. Durations therefore come from the monotonic clock (see
:mod:`firmware_host.core.session`); dates are kept with a mark saying whether the clock was synced
when they were taken.

:func:`clock_synced` asks, cheapest first:

1. a time before :data:`EARLIEST` has never been set: not synced;
2. ``/run/systemd/timesync/synchronized`` exists: systemd-timesyncd has synced since boot
   (the file is there since systemd 239; Raspberry Pi OS's default time service);
3. inside a seccomp sandbox (:func:`sandboxed`), nothing more is asked: not synced;
4. else the kernel's NTP status (``adjtimex``): ``STA_UNSYNC`` clear, i.e. chrony, ntpd or
   timesyncd has disciplined the clock.

Step 3 is what keeps the service alive: its unit's ``SystemCallFilter=@system-service`` leaves out
``@clock``, where ``adjtimex`` is (even read-only), and ``ProtectClock=yes`` refuses ``@clock``
too, so inside the unit ``adjtimex`` kills the service (or, with ``SystemCallErrorNumber=``, fails).
On a table with timesyncd (the default) the flag says everything; under chrony or ntpd the
service dates its games "clock unset", and ``tablemate doctor`` says so.

Not measured on a Pi here: the flag file and the kernel status are read as their manuals say;
the development machine (a container with no NTP) reports "not synced", as it should.
"""

from __future__ import annotations

import time
from pathlib import Path

EARLIEST = 1_767_225_600.0
"""2026-01-01 00:00 UTC: no clock reading before this is a real date of a game played today."""
SYNC_FLAG = Path("/run/systemd/timesync/synchronized")
"""Touched by systemd-timesyncd at each successful sync (the first after boot makes it)."""
PROC_STATUS = Path("/proc/self/status")
TIME_ERROR = 5
"""``adjtimex``'s return value when the kernel's clock is not synchronized."""
STA_UNSYNC = 0x0040


def kernel_synced() -> bool | None:
    """The kernel's NTP status (``adjtimex`` with no changes): ``None`` when it cannot be asked.

    ``ctypes`` is imported here, not with the module: the service, which never asks (its seccomp
    filter would refuse), does not pay for it at start."""
    import ctypes

    class Timex(ctypes.Structure):
        """The head of the kernel's ``struct timex``; the rest is room the call may fill."""

        _fields_ = [
            ("modes", ctypes.c_uint),
            ("offset", ctypes.c_long),
            ("freq", ctypes.c_long),
            ("maxerror", ctypes.c_long),
            ("esterror", ctypes.c_long),
            ("status", ctypes.c_int),
            ("_rest", ctypes.c_byte * 256),
        ]

    try:
        libc = ctypes.CDLL(None, use_errno=True)  # this process's own symbols: libc's among them
        timex = Timex()  # modes = 0: read only
        state = libc.adjtimex(ctypes.byref(timex))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return state != TIME_ERROR and not timex.status & STA_UNSYNC


def sandboxed(status: Path = PROC_STATUS) -> bool:
    """Whether this process runs under a seccomp filter (``Seccomp:`` not 0 in ``/proc/self/status``).

    A filter may kill the process at a call it does not list, so a call outside the service's
    needs is not tried. Where the status cannot be read (no ``/proc``) the answer is yes; a kernel
    without seccomp shows no ``Seccomp:`` line: no.
    """
    try:
        with status.open(encoding="ascii", errors="replace") as lines:
            for line in lines:
                if line.startswith("Seccomp:"):
                    return line.split()[1:2] != ["0"]
    except OSError:
        return True
    return False


def clock_synced(now: float | None = None) -> bool:
    """Whether the wall clock shows the real time (see the module's docstring)."""
    if (time.time() if now is None else now) < EARLIEST:
        return False
    try:
        if SYNC_FLAG.exists():
            return True
    except OSError:
        pass
    if sandboxed():
        return False
    return bool(kernel_synced())
