"""A whole IPv6 /64 on loopback, for the attacks on the page from a thousand IPv6 addresses.

Linux answers for every address of a prefix given to ``lo`` as a *local* route ("AnyIP"): a
connection to any of them reaches a socket listening on ``::``, with no interface address
configured; binding one as a source needs ``net.ipv6.ip_nonlocal_bind`` as well (IPv6 checks for an
assigned address where IPv4 takes the route). Where that is not so already, and the bench runs as
root, the bench moves itself into a network namespace of its own (``unshare(CLONE_NEWNET)``) and
routes the prefix and sets the switch there: nothing of the machine's own network changes, and
the device, its page and the attackers the bench starts afterwards all live in that namespace
(loopback IPv4 too). Call :func:`prepare` before any thread or process of the bench is started:
``unshare`` moves only the thread that calls it, and what it starts afterwards.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import subprocess
from pathlib import Path

PREFIX = "fd00:7ab1:e:4::"
"""The /64 of the IPv6 attack (a unique-local prefix no network uses)."""
NETWORK = PREFIX + "/64"
PAGE = PREFIX + "1"
"""The address the attack and its probes reach the page at (any address of the /64 is local)."""
CLONE_NEWNET = 0x40000000


def address(i: int) -> str:
    """The ``i``-th attacking address of the /64 (``::2`` and up; ``::ffff:*`` are the probes')."""
    return f"{PREFIX}{i + 2:x}"


def local() -> bool:
    """Whether this process may bind an address of the /64 (it is routed to ``lo``)."""
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((address(7), 0))
        except OSError:
            return False
    return True


def prepare() -> str | None:
    """Make the /64 local, in a namespace of this process's own if need be; ``None`` when it is,
    else why it cannot be."""
    if local():
        return None
    if os.geteuid() != 0:
        return f"the IPv6 attack needs root, or the route: ip -6 route add local {NETWORK} dev lo"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        return f"unshare(CLONE_NEWNET) failed: {os.strerror(ctypes.get_errno())}"
    for command in (["ip", "link", "set", "lo", "up"], ["ip", "-6", "route", "add", "local", NETWORK, "dev", "lo"]):
        with contextlib.suppress(OSError):
            subprocess.run(command, check=False, capture_output=True, timeout=10)
    with contextlib.suppress(OSError):  # this namespace's own switch
        Path("/proc/sys/net/ipv6/ip_nonlocal_bind").write_text("1\n")
    return None if local() else f"could not route {NETWORK} to lo (is iproute2's ip installed?)"
