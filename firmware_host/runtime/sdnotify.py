"""systemd's notification protocol (``sd_notify``), in the few lines it takes.

``Type=notify`` units get ``NOTIFY_SOCKET``; we send ``READY=1`` once the hardware is up,
``WATCHDOG=1`` from a task on the event loop (so a stuck loop stops feeding the watchdog and
systemd restarts us), ``STATUS=…`` lines, and ``STOPPING=1`` on the way out. Without the
variable every call does nothing, so the same code runs in a terminal.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send one notification; ``False`` when not under systemd or the send failed."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
    except OSError:
        return False
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
