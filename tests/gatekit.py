"""Guests of the page's gate on virtual time, for tests: connections as the gate sees them (a
transport with no socket behind it), opened by guests that behave as an attack's do — slow heads,
answers never read, screens held, each reopened when the page closes it — and a fresh client that
asks once a second from an address of its own. Nothing here parses HTTP: the gate's rule for who
holds a place is what is tried, at the scale of the attacks (thousands of addresses)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_host.web.guards.connection import Connection
from firmware_host.web.guards.gate import Gate

HEAD_SECONDS = 0.002
"""How long a fresh client's request head takes to arrive after its connection opens."""
ANSWER_SECONDS = 0.005
"""How long its answer takes (the page's budget serves a new address first: tests/web/test_web_budget.py)."""
RETRY_SECONDS = 0.2
"""How long a guest waits before opening again when the page refused or closed it."""


class Wire(asyncio.Transport):
    """A connection's transport with nothing behind it: what the gate asks of it, and closing."""

    def __init__(self, peer: str, backed_up: bool = False) -> None:
        super().__init__()
        self.peer = peer
        self.backed_up = backed_up
        """Its client reads nothing: answers wait in the buffer."""
        self.protocol: asyncio.Protocol | None = None
        self.closing = False
        self.on_lost: Callable[[], None] | None = None
        """Called once the page has seen it close."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.peer, 1) if name == "peername" else default

    def get_write_buffer_size(self) -> int:
        return 65536 if self.backed_up else 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        self.abort()

    def abort(self) -> None:
        if not self.closing:
            self.closing = True
            asyncio.get_running_loop().call_soon(self._lost)

    def _lost(self) -> None:
        if self.protocol is not None:
            self.protocol.connection_lost(None)
        if self.on_lost is not None:
            self.on_lost()


def connect(gate: Gate, peer: str, backed_up: bool = False) -> Wire | None:
    """A connection of ``peer`` as the gate accepts it (``None``: refused)."""
    place = gate.admit(peer)
    if place is None:
        return None
    wire = Wire(peer, backed_up)
    gated = Connection(gate, asyncio.Protocol, *place)
    wire.protocol = gated
    gated.connection_made(wire)
    return wire


@dataclass
class Guest:
    """An attacking connection, reopened whenever the page refuses or closes it: ``kind`` is
    ``slow`` (never a whole head), ``deaf`` (a head, then never reads its answers) or ``screen``
    (a WebSocket held open, reading)."""

    gate: Gate
    peer: str
    kind: str
    counts: Counter[str]
    until: float
    wire: Wire | None = field(default=None, init=False)

    def start(self, delay: float = 0.0) -> None:
        asyncio.get_running_loop().call_later(delay, self.open)

    def open(self) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() >= self.until:
            return
        wire = connect(self.gate, self.peer, backed_up=self.kind == "deaf")
        if wire is None:
            self.counts["refused"] += 1
            loop.call_later(RETRY_SECONDS, self.open)
            return
        self.counts["opened"] += 1
        self.wire = wire
        gated = wire.protocol
        assert isinstance(gated, Connection)
        if self.kind != "slow":
            self.gate.began(wire)  # its head came
        if self.kind == "screen":
            self.gate.watch_frames(wire)
        if self.kind == "deaf":
            gated.pause_writing()  # its answers stopped draining
        wire.on_lost = self.closed

    def closed(self) -> None:
        """The page closed it: open again a moment later."""
        self.counts["closed by the page"] += 1
        asyncio.get_running_loop().call_later(RETRY_SECONDS, self.open)


async def fresh_clients(gate: Gate, peer: str, every: float, count: int) -> list[bool]:
    """A new client of ``peer`` each ``every`` seconds, ``count`` times: whether it got a place
    and kept it until its answer (its head arriving :data:`HEAD_SECONDS` later)."""
    served = []
    for _ in range(count):
        await asyncio.sleep(every)
        wire = connect(gate, peer)
        if wire is None:
            served.append(False)
            continue
        await asyncio.sleep(HEAD_SECONDS)
        if wire.closing:
            served.append(False)
            continue
        gate.began(wire)
        await asyncio.sleep(ANSWER_SECONDS)
        served.append(not wire.closing)
        gate.answered(wire)
        wire.close()
    return served
