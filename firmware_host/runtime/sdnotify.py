"""systemd's notification protocol (``sd_notify``), in the few lines it takes.

``Type=notify`` units get ``NOTIFY_SOCKET``; we send ``READY=1`` once the start can no longer
fail (:data:`STARTING`: the config file is good and the state folder is held), ``WATCHDOG=1`` from
then on (from a task on the event loop once it runs, so a stuck loop stops feeding the watchdog
and systemd restarts us), :data:`UP` when the table is up (the menu or the game resumed on the
panel, the buttons read), and ``STOPPING=1`` on the way out. Without the variable every call
does nothing, so the same code runs in a terminal.
"""

from __future__ import annotations

import _socket  # the C module alone: ``socket`` brings selectors and its enums, a start's READY need not wait for them
import os
import time

STARTING = "READY=1\nSTATUS=starting: the config is good and the state folder held"
"""Sent once nothing expected can fail the start any more: what follows (the device's modules,
the parts, the resume) degrades a part or says so on the panel, it does not fail the unit."""
UP = "READY=1\nSTATUS=ready"
"""Sent when the table is up: its menu (or the game it resumed) drawn, the buttons read. A tool
that needs the whole device waits for ``STATUS=ready`` (:func:`is_up`)."""


def is_up(datagram: bytes) -> bool:
    """Whether a notification says the table is up (:data:`UP`), not only that it started."""
    return b"STATUS=ready" in datagram


def notify(message: str) -> bool:
    """Send one notification; ``False`` when not under systemd or the send failed."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_DGRAM)
    except OSError:
        return False
    try:
        sock.connect(address)
        sock.sendall(message.encode("utf-8"))
    except OSError:
        return False
    finally:
        sock.close()
    return True


def watchdog_interval() -> float | None:
    """How often to feed the watchdog (half of ``WATCHDOG_USEC``), or ``None`` when it is off."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 2_000_000
    except ValueError:
        return None


def process_age() -> float | None:
    """Seconds since this process started (Linux's ``/proc/self/stat``), ``None`` elsewhere."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        ticks = int(fields[19])  # starttime, field 22 of the line: the fields after the name start at 3
        return time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
