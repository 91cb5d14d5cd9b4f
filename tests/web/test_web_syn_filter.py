"""An address at its cap or banned is refused by the kernel, not by an accept and a reset each
time: its SYNs are dropped until it holds less again, and no other address is touched."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys

import pytest

from firmware_host.web.guards import gate as gate_module
from firmware_host.web.guards.gate import Gate, group
from firmware_host.web.guards.syn_filter import SynFilter, attach, program

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="socket filters are Linux's")

DROPPED = 0.4
"""Seconds a connect whose SYN was dropped stays unanswered for sure (the first retransmission is at 1 s)."""


async def _connect(port: int, source: str, family: int = socket.AF_INET) -> socket.socket | str | None:
    """A connection from ``source``; ``None`` when no answer came (the SYN was dropped), ``"reset"``
    when the page reset it before the connect was through."""
    loop = asyncio.get_running_loop()
    s = socket.socket(family)
    s.setblocking(False)
    s.bind((source, 0))
    server = "::1" if family == socket.AF_INET6 else "127.0.0.1"
    try:
        await asyncio.wait_for(loop.sock_connect(s, (server, port)), DROPPED)
    except TimeoutError:
        s.close()
        return None
    except ConnectionResetError:
        s.close()
        return "reset"
    return s


async def _alive(s: socket.socket) -> bool:
    """Whether the server kept ``s`` (it was not reset)."""
    await asyncio.sleep(0.05)
    try:
        return s.recv(1) != b""
    except BlockingIOError:
        return True  # open, nothing to read
    except OSError:
        return False  # reset


def _listening(family: int = socket.AF_INET) -> socket.socket:
    sock = socket.socket(family)
    sock.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
    sock.listen(64)
    return sock


def test_an_address_at_its_cap_is_dropped_by_the_kernel_until_one_of_its_connections_closes(monkeypatch):
    monkeypatch.setattr(gate_module, "KEEP_OUT_SECONDS", 1.2)

    async def body():
        gate = Gate(per_address=2, header_seconds=3600.0)
        sock = _listening()
        port = sock.getsockname()[1]
        stop = gate.serve(sock, asyncio.Protocol)
        try:
            held = [await _connect(port, "127.0.0.5") for _ in range(2)]
            third = await _connect(port, "127.0.0.5")  # accepted and reset: the address is at its cap
            assert third == "reset" or (third is not None and not await _alive(third))
            accepts = gate.tally.counts["connections refused (one address holds all it may)"]
            fourth = await _connect(port, "127.0.0.5")  # the kernel drops it: no accept at all
            other = await _connect(port, "127.0.0.6")
            still = gate.tally.counts["connections refused (one address holds all it may)"]
            for s in held:
                assert s is not None
            held[0].close()
            await asyncio.sleep(0.1)  # the page sees it close, but the address is kept out a while
            early = await _connect(port, "127.0.0.5")  # ~0.9 s after it was kept out
            await asyncio.sleep(0.5)  # its time is over
            again = await _connect(port, "127.0.0.5")
            assert again is not None and await _alive(again)
            assert gate.kernel is not None
            return accepts, fourth, other is not None and await _alive(other), still, early, gate.kernel.blocked
        finally:
            stop()
            sock.close()

    accepts, fourth, other, still, early, blocked = asyncio.run(body())
    assert accepts == 1 and fourth is None and still == accepts  # the loop never saw the fourth
    assert early is None  # one closed, but its time was not over
    assert other  # another address connects as ever
    assert not blocked


def test_a_banned_address_is_dropped_for_its_ban_and_let_in_after_it():
    async def body():
        gate = Gate(header_seconds=3600.0)
        sock = _listening(socket.AF_INET6)
        port = sock.getsockname()[1]
        stop = gate.serve(sock, asyncio.Protocol)
        try:
            gate.ban(group("::1"), 0.3)  # an IPv6 address counts whole
            assert gate.kernel is not None and list(gate.kernel.blocked) == ["::1"]
            during = await _connect(port, "::1", socket.AF_INET6)
            await asyncio.sleep(0.3)
            after = await _connect(port, "::1", socket.AF_INET6)
            return during, after is not None and await _alive(after)
        finally:
            stop()
            sock.close()

    during, after = asyncio.run(body())
    assert during is None and after


@pytest.mark.parametrize(
    ("blocked", "dropped"),
    [
        (["127.0.0.7", "::/64", "not an address", ""], [True, False, True]),
        (["127.0.0.7", "::1"], [True, False, True]),  # an IPv6 address whole
        (["::2", "fd00::/64", "::1:0:0:1"], [False, False, False]),  # neither is ::1
    ],
)
def test_the_filter_matches_ipv4_and_ipv6_whole_or_ipv6_by_its_64_on_a_dual_stack_socket(blocked, dropped):
    async def body():
        sock = socket.socket(socket.AF_INET6)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(("::", 0))
        sock.listen(16)
        sock.setblocking(False)
        port = sock.getsockname()[1]
        attach(sock, program(blocked))
        try:
            return [
                await _connect(port, "127.0.0.7") is None,
                await _connect(port, "127.0.0.8") is None,
                await _connect(port, "::1", socket.AF_INET6) is None,
            ]
        finally:
            sock.close()

    assert asyncio.run(body()) == dropped


def test_a_filter_left_on_a_socket_by_an_earlier_run_is_taken_off():
    """systemd keeps the listening socket across restarts: the addresses one run blocked must not
    stay blocked for the next."""

    async def body():
        sock = _listening()
        sock.setblocking(False)
        port = sock.getsockname()[1]
        attach(sock, program(["127.0.0.9"]))
        SynFilter(sock)
        try:
            return await _connect(port, "127.0.0.9")
        finally:
            sock.close()

    s = asyncio.run(body())
    assert s is not None
    with contextlib.suppress(OSError):
        s.close()


def test_the_filter_holds_only_so_many_addresses_and_a_kernel_without_filters_changes_nothing():
    sock = _listening()
    kernel = SynFilter(sock, limit=3)
    for i in range(5):
        kernel.block(f"10.0.0.{i}")
    kernel.flush()
    assert list(kernel.blocked) == ["10.0.0.0", "10.0.0.1", "10.0.0.2"]
    sock.close()
    kernel.block("10.0.0.9")
    kernel.unblock("10.0.0.0")
    kernel.flush()  # the socket is gone: the kernel refuses, the filter gives up quietly
    assert not kernel.working and not kernel.blocked
