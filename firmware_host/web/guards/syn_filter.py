"""Addresses the kernel refuses for the page: a classic BPF socket filter on the listening socket.

An address that holds all the connections it may, or that was banned for sending past its
budget, would otherwise cost the loop an ``accept()`` and a reset for every connection it tries
(a slow-headers attack tries thousands a second). The filter makes the kernel drop those
addresses' SYNs before the page sees them: the loop spends nothing, the sender waits out its
own retransmissions. A filter on a listening TCP socket sees each incoming SYN and handshake's
last ACK (Linux's ``tcp_filter()``); a connection already accepted keeps the filter it was born
with, which let its address in, so the addresses blocked later never touch it.

IPv4 and IPv6 sources are matched whole (as :func:`firmware_host.web.guards.shares.group` counts them),
an IPv6 /64 too when one is given; both on a dual-stack socket (an IPv4 packet reaches it as
IPv4). At most :data:`MAX_BLOCKED` addresses are held in the filter; past that the gate's own
accept-and-reset refuses them as before. Where the kernel has no socket filters (not Linux), nothing is blocked.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import logging
import socket
import struct

log = logging.getLogger(__name__)

MAX_BLOCKED = 128
"""Addresses the filter holds at most (9 instructions an IPv6 address, 2 an IPv4 one: under 10 KB)."""
SO_ATTACH_FILTER = getattr(socket, "SO_ATTACH_FILTER", 26)
SO_DETACH_FILTER = getattr(socket, "SO_DETACH_FILTER", 27)
SKF_NET_OFF = -0x100000
"""Offsets from the network (IP) header, whatever the socket's own data offset is."""

# classic BPF opcodes (linux/filter.h)
_LD_W_ABS, _LD_B_ABS = 0x20, 0x30
_RSH_K = 0x74
_JA, _JEQ_K = 0x05, 0x15
_RET_K = 0x06
_PASS, _DROP = 0xFFFFFFFF, 0

Instruction = tuple[int, int, int, int]
"""(code, jump if true, jump if false, k), as ``struct sock_filter``."""


def program(blocked: list[str]) -> list[Instruction]:
    """The filter dropping packets from the ``blocked`` keys (an IPv4 or IPv6 address as
    :func:`~firmware_host.web.guards.shares.group` writes it, or an IPv6 ``/64``); other keys are left out.
    Every jump is short (a test, then the drop right after it) but the one over the IPv4 part."""
    v4: list[Instruction] = []
    v6: list[Instruction] = []
    for key in blocked:
        try:
            net = ipaddress.ip_network(key, strict=False)
        except ValueError:
            continue
        top = int(net.network_address)
        if net.version == 4:
            v4 += [(_JEQ_K, 0, 1, top), (_RET_K, 0, 0, _DROP)]
        elif net.prefixlen in (64, 128):
            words = [(top >> shift) & 0xFFFFFFFF for shift in (96, 64, 32, 0)][: net.prefixlen // 32]
            test: list[Instruction] = []
            for n, word in enumerate(words):  # the source address's words, from byte 8 of the header
                left = len(words) - n  # past the drop on a mismatch: the rest of the tests and the drop
                test += [(_LD_W_ABS, 0, 0, SKF_NET_OFF + 8 + 4 * n), (_JEQ_K, 0, 2 * left - 1, word)]
            v6 += [*test, (_RET_K, 0, 0, _DROP)]
    ipv4 = [(_LD_W_ABS, 0, 0, SKF_NET_OFF + 12), *v4, (_RET_K, 0, 0, _PASS)]
    return [
        (_LD_B_ABS, 0, 0, SKF_NET_OFF),
        (_RSH_K, 0, 0, 4),  # the IP version
        (_JEQ_K, 1, 0, 4),
        (_JA, 0, 0, len(ipv4)),
        *ipv4,
        (_JEQ_K, 1, 0, 6),
        (_RET_K, 0, 0, _PASS),
        *v6,
        (_RET_K, 0, 0, _PASS),
    ]


def attach(sock: socket.socket, instructions: list[Instruction]) -> None:
    """Put ``instructions`` on ``sock`` (replacing its filter); ``OSError`` when the kernel refuses."""
    code = b"".join(struct.pack("HBBI", c, jt, jf, k & 0xFFFFFFFF) for c, jt, jf, k in instructions)
    buffer = ctypes.create_string_buffer(code, len(code))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HP", len(instructions), ctypes.addressof(buffer)))


class SynFilter:
    """The addresses the kernel drops for the listening ``sock``; :meth:`flush` puts changes on it."""

    def __init__(self, sock: socket.socket, limit: int = MAX_BLOCKED) -> None:
        self.sock, self.limit = sock, limit
        self.blocked: dict[str, None] = {}
        """The groups dropped (in the order they came)."""
        self.working = True
        """Whether the kernel takes the filter (False: not Linux, or refused once; nothing more is tried)."""
        self._changed = False
        with contextlib.suppress(OSError):  # a socket systemd kept from an earlier run may still carry one
            sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)

    def block(self, key: str) -> bool:
        """Drop ``key``'s new connections from the next :meth:`flush` on; whether it is blocked now
        (False: no room, or no filter)."""
        if key in self.blocked:
            return True
        if not self.working or len(self.blocked) >= self.limit:
            return False
        self.blocked[key] = None
        self._changed = True
        return True

    def unblock(self, key: str) -> None:
        """Let ``key`` connect again from the next :meth:`flush` on."""
        if key in self.blocked:
            del self.blocked[key]
            self._changed = True

    def flush(self) -> None:
        """Put the blocked addresses on the socket, if they changed."""
        if not self._changed or not self.working:
            return
        self._changed = False
        try:
            attach(self.sock, program(list(self.blocked)))
        except (OSError, OverflowError) as exc:
            self.working = False
            self.blocked.clear()
            log.warning("companion page: the kernel takes no socket filter (%s); refused addresses cost an accept", exc)

    def close(self) -> None:
        """Take the filter off the socket (it may outlive this process: systemd keeps it)."""
        self.blocked.clear()
        self._changed = False
        with contextlib.suppress(OSError):
            self.sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)
