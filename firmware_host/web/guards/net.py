"""The page's sockets and names: the listening socket (made here, or handed over by systemd), the
LAN address a phone reaches, and the names ``Host`` may give (no name look-up anywhere, so no
resolver thread)."""

from __future__ import annotations

import contextlib
import ipaddress
import socket

BACKLOG = 4096
"""Connections the kernel completes and queues before the page accepts them: systemd's own for
``tablemate.socket`` (``Backlog=`` unset: ``SOMAXCONN``), so the simulator and the benches meet a
storm as the device does. A queue of 128 overflowed under the storm from 2,000 addresses (1,167
SYNs dropped in 12 s) and a new client's connect took 1.03 s (its SYN dropped, sent again a second
later); with 4,096, none. The kernel caps it at ``net.core.somaxconn``. Queued connections cost the
kernel's memory, not the page's descriptors."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening, non-blocking TCP socket (no name look-up: ``host`` is an address)."""
    family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


LISTEN_FDS_START = 3
"""The first file descriptor systemd hands a socket-activated service (``sd_listen_fds``)."""


def handed_socket() -> socket.socket | None:
    """The listening socket systemd opened for the page (``tablemate.socket``: port 80, so the
    service needs no capability), or ``None``. Taken once: the variables are removed, as
    ``sd_listen_fds(1)`` does, so nothing started later takes them for its own."""
    import os

    fds, pid = os.environ.get("LISTEN_FDS"), os.environ.get("LISTEN_PID")
    if not fds or pid != str(os.getpid()) or not fds.isdigit() or int(fds) < 1:
        return None
    for name in ("LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)
    try:
        sock = socket.socket(fileno=LISTEN_FDS_START)
    except OSError:
        return None
    if sock.type != socket.SOCK_STREAM:
        sock.detach()
        return None
    sock.setblocking(False)
    return sock


def lan_address(bind: str) -> str:
    """The address a phone on the LAN reaches the device at (its IP, not ``.local``)."""
    if bind not in ("0.0.0.0", "::"):
        return bind
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 9))  # a UDP "connect" sends nothing: it only picks the route
        return probe.getsockname()[0]
    return "127.0.0.1"


def plain_address(text: str) -> str:
    """An address as ``Host`` gives it: no zone, IPv4-mapped IPv6 as IPv4, compressed, lower case."""
    text = text.split("%", 1)[0].lower()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text.rstrip(".")
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def split_host(value: str) -> tuple[str | None, int | None]:
    """``Host``'s name (see :func:`plain_address`) and port; ``(None, None)`` when it is not one."""
    value = value.strip()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            return None, None
    else:
        name, _, port = value.partition(":") if value.count(":") <= 1 else (value, "", "")
        port = port or None
    if not name or len(value) > 300 or (port is not None and not (port.isdigit() and len(port) <= 5)):
        return None, None
    return plain_address(name), int(port) if port is not None else None


def own_names(bind: str) -> set[str]:
    """The names of this device that need no look-up: ``localhost``, its host name and
    ``NAME.local``, loopback, the bind and LAN addresses (the address each request came to is
    added per request)."""
    host = socket.gethostname().lower().rstrip(".")
    names = {"localhost", "127.0.0.1", "::1", host, f"{host.split('.')[0]}.local", f"{host}.local"}
    for address in (bind, lan_address(bind)):
        if address not in ("0.0.0.0", "::"):
            names.add(plain_address(address))
    return names
