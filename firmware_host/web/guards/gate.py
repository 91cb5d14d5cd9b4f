"""The page's door to the network: how many connections guests may hold, and for how long.

Every TCP connection the page accepts passes :class:`Gate` before aiohttp sees a byte of it:

- **A cap in total and per address** (:func:`group`: an IPv4 address, or an IPv6 address's /64,
  since one machine has a whole /64 to itself). A connection over either cap is aborted at once
  (a reset: no parsing, no answer, no log line of its own). An address at its cap, or banned,
  is then refused by the kernel (:mod:`firmware_host.web.guards.syn_filter`: its SYNs are dropped)
  until it holds less again: its next thousand tries cost the loop nothing.
- **The cap stays below the descriptors the device needs**: it is at most the process's
  descriptor limit less those open when the page starts and :data:`RESERVE`, which the journal,
  the history, the settings and the drivers always have. So ``accept()`` never meets
  ``EMFILE`` and a save never meets "Too many open files", whatever guests hold.
- **A deadline for a request's headers**: a connection must have sent a whole request head within
  :data:`HEADER_SECONDS` of opening, or of its last answer, or it is closed (one byte every few
  seconds no longer keeps it). aiohttp's ``keepalive_timeout`` closes idle keep-alive connections;
  request bodies have their own deadline where they are read (:mod:`firmware_host.web.server`).
- **In turns**: at most :data:`ACCEPTS_PER_TURN` connections are accepted in a loop turn, and
  a few connections' bytes go to the parser per turn, the others' a turn later, their reading
  paused meanwhile (:mod:`firmware_host.web.guards.pacing`): a storm's hundreds of ready sockets cost
  short turns between the buttons' work, not one long one.
- **Freed at once**: a closed connection leaves no reference cycle for the garbage collector
  (:func:`unlink`).
- **Quiet**: refusals and closings are counted, and :class:`Tally` writes one line a minute at most
  about them. The gate accepts connections itself (:meth:`Gate.serve`), so asyncio's own
  ``accept()`` error path, which logs a traceback for each failure, is never taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import os
import resource
import socket
import struct
from collections import Counter
from collections.abc import Callable
from typing import Any

from firmware_host.web.guards.pacing import TurnShare
from firmware_host.web.guards.syn_filter import SynFilter

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 512
"""Connections held at once, from everyone (WebSocket screens included)."""
MAX_PER_GROUP = 32
"""Connections one address (one IPv6 /64) may hold: a browser uses about six, a screen one more."""
RESERVE = 64
"""Descriptors kept for the device itself (journal, history, settings, drivers, threads)."""
HEADER_SECONDS = 10.0
"""Seconds a connection has to send a request's head, from opening or from its last answer."""
ACCEPTS_PER_TURN = 16
"""Connections accepted per loop turn at most (the rest wait in the kernel's queue for the next)."""
LINGER_RESET = struct.pack("ii", 1, 0)
"""``SO_LINGER`` on with no time: a refused connection is reset at once, leaving no TIME_WAIT."""
KEEP_OUT_SECONDS = 2.0
"""How long the kernel refuses an address at least once it met its cap (a guest that closes one
connection to open the next thousand is not let in at each close)."""
BAN_SECONDS = 30.0
"""How long an address that sent past its budget is refused new connections."""
TALLY_SECONDS = 60.0
"""The least time between two log lines about refused or closed connections."""


def group(address: str) -> str:
    """The address a cap counts: IPv4 as is (also when IPv4-mapped), IPv6 by its /64."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def open_descriptors() -> int:
    """How many descriptors this process has open now."""
    with contextlib.suppress(OSError):
        return len(os.listdir("/proc/self/fd"))
    return 64  # no /proc: a guess on the safe side


def connection_budget(cap: int = MAX_CONNECTIONS, reserve: int = RESERVE) -> int:
    """The connections the page may hold: ``cap``, or fewer when the descriptor limit is lower
    than the descriptors open now plus ``reserve`` plus ``cap`` (at least 8)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return cap
    return max(8, min(cap, soft - open_descriptors() - reserve))


class Tally:
    """Events counted by kind, written as one log line at most every :data:`TALLY_SECONDS`."""

    def __init__(self, clock: Callable[[], float], every: float = TALLY_SECONDS) -> None:
        self.clock, self.every = clock, every
        self.counts: Counter[str] = Counter()
        """Everything counted since the page started."""
        self._pending: Counter[str] = Counter()
        self._last = -every

    def note(self, kind: str) -> None:
        """Count one ``kind`` (and write the line if a minute has passed since the last)."""
        self.counts[kind] += 1
        self._pending[kind] += 1
        now = self.clock()
        if now - self._last >= self.every:
            self._last = now
            text = ", ".join(f"{n} {k}" for k, n in sorted(self._pending.items()))
            self._pending.clear()
            log.warning("companion page: %s (at most one such line a minute)", text)


def unlink(transport: asyncio.BaseTransport | None, protocol: asyncio.BaseProtocol | None = None) -> None:
    """Break the reference cycles a closed connection keeps, so it is freed at once when it ends
    instead of waiting, with its socket and its buffers, for a full pass of the garbage collector
    (a flood otherwise left thousands in the oldest generation, and the full passes walking them
    stopped the loop for 10-45 ms):

    - Python 3.11's socket transport holds a bound method of its own (``_read_ready_cb``; CPython
      gh-100348, fixed in 3.12);
    - aiohttp's handler of a connection that became a WebSocket holds its frame reader's callback
      (``_data_received_cb``), and the reader holds the handler.

    Called only once the connection is lost: neither reads anything after it."""
    if transport is not None and getattr(transport, "_read_ready_cb", None) is not None:
        transport._read_ready_cb = None  # type: ignore[attr-defined]
    if protocol is not None and getattr(protocol, "_data_received_cb", None) is not None:
        protocol._data_received_cb = None  # type: ignore[attr-defined]


class _Gated(asyncio.Protocol):
    """One accepted connection: admitted (then aiohttp's handler has it) or aborted."""

    __slots__ = ("_factory", "_held", "deadline", "gate", "inner", "key", "transport")

    def __init__(self, gate: Gate, factory: Callable[[], asyncio.Protocol], key: str) -> None:
        self.gate = gate
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.key = key
        """The group the connection was admitted under (its place is given back when it closes)."""
        self.deadline: asyncio.TimerHandle | None = None
        self._factory = factory
        self._held: list[bytes] | None = None
        """Bytes read while the loop turn had no room for them (reading pauses until they are given on)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.gate.live[transport] = self
        self.inner = self._factory()
        self.inner.connection_made(transport)
        self.arm()

    def arm(self) -> None:
        """Start the clock for the next request's head."""
        self.disarm()
        if self.transport is not None and not self.transport.is_closing():
            self.deadline = asyncio.get_running_loop().call_later(self.gate.header_seconds, self._late)

    def disarm(self) -> None:
        """A request's head has come: its handler has the connection."""
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _late(self) -> None:
        self.deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self.gate.tally.note("connections closed without a whole request in time")
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        """Give ``data`` to the parser in this turn when it has room, else in a later one (reading
        pauses meanwhile: the kernel holds the rest, and the sender waits)."""
        if self.inner is None:
            return
        if self._held is not None:
            self._held.append(data)
        elif self.gate.turns.take():
            self.inner.data_received(data)
        else:
            self._held = [data]
            assert self.transport is not None
            self.transport.pause_reading()
            self.gate.turns.later(self._give)

    def _give(self) -> bool:
        """The turn has room: reading resumes and the bytes held go to the parser."""
        held, self._held = self._held, None
        if not held or self.inner is None or self.transport is None or self.transport.is_closing():
            return False
        self.transport.resume_reading()  # first: the parser may pause reading again, and that stays
        for chunk in held:
            if self.inner is None:
                break
            self.inner.data_received(chunk)
        return True

    def eof_received(self) -> bool | None:
        if self._held is not None:
            self._give()  # the bytes before the end go first (rare: a client that half-closes)
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        unlink(self.transport)
        if self.inner is None:
            return
        inner, self.inner = self.inner, None
        self.gate.live.pop(self.transport, None)  # type: ignore[arg-type]
        self.gate.release(self.key)
        try:
            inner.connection_lost(exc)
        finally:
            unlink(None, inner)


class Gate:
    """The caps on connections (see the module's docstring)."""

    def __init__(
        self,
        max_total: int = MAX_CONNECTIONS,
        max_per_group: int = MAX_PER_GROUP,
        header_seconds: float = HEADER_SECONDS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.max_total, self.max_per_group, self.header_seconds = max_total, max_per_group, header_seconds
        self.total = 0
        self._banned: dict[str, float] = {}
        """Groups refused until a time (the clock's), for having abused what they were given."""
        self.held: Counter[str] = Counter()
        """Connections held per group."""
        self.live: dict[asyncio.BaseTransport, _Gated] = {}
        self.turns = TurnShare()
        """Connections whose bytes go to the parser in one loop turn (:mod:`firmware_host.web.guards.pacing`)."""
        self.tally = Tally(clock or (lambda: asyncio.get_running_loop().time()))
        self.kernel: SynFilter | None = None
        """The addresses the kernel refuses for the listening socket (from :meth:`serve` on)."""
        self._out: dict[str, float] = {}
        """The groups the kernel refuses, each until a time at least (the clock's)."""
        self._tasks: set[asyncio.Task[None]] = set()

    def admit(self, address: str) -> str | None:
        """The group a new connection of ``address`` counts against, or ``None`` (refused)."""
        key = group(address)
        if self._banned and key in self._banned:
            if self.tally.clock() < self._banned[key]:
                self.tally.note("connections refused (an address sent past its budget)")
                return None
            del self._banned[key]
        if self.total >= self.max_total:
            self.tally.note("connections refused (the page holds all it may)")
            return None
        if self.held[key] >= self.max_per_group:
            self.tally.note("connections refused (one address holds all it may)")
            if key not in self._out:  # else: connections it had queued before the kernel refused it
                self._keep_out(key, KEEP_OUT_SECONDS)
            return None
        self.total += 1
        self.held[key] += 1
        return key

    def ban(self, key: str, seconds: float = BAN_SECONDS) -> None:
        """Refuse every new connection of group ``key`` for ``seconds`` (it sent past its budget:
        coming back at once would cost the loop the same again)."""
        if len(self._banned) >= self.max_total:
            now = self.tally.clock()
            self._banned = {k: t for k, t in self._banned.items() if t > now}
        self._banned[key] = self.tally.clock() + seconds
        self.keep_out(key, seconds)

    def keep_out(self, key: str, seconds: float = KEEP_OUT_SECONDS) -> None:
        """The kernel refuses ``key``'s new connections for ``seconds`` at least and until it holds
        less than its cap (it asked for more than it may have: each new try would cost the page a
        refusal)."""
        self._keep_out(key, seconds)
        if self.kernel is not None:
            self.kernel.flush()

    def _keep_out(self, key: str, seconds: float) -> None:
        """The kernel refuses ``key`` from the next flush on, for ``seconds`` at least (refusals
        of :meth:`admit` are put on the socket once per batch of accepts)."""
        if self.kernel is None:
            return
        until = self.tally.clock() + seconds
        if until > self._out.get(key, 0.0) and self.kernel.block(key):
            self._out[key] = until
            asyncio.get_running_loop().call_later(seconds, self._let_in, key)

    def _let_in(self, key: str) -> None:
        """``key`` may connect again once its time out is over and it holds less than its cap
        (called when its time is up and whenever one of its connections closes)."""
        until = self._out.get(key)
        if until is None or self.kernel is None:
            return
        if self.tally.clock() >= until - 0.001 and self.held[key] < self.max_per_group:  # a timer may wake a hair early
            del self._out[key]
            self.kernel.unblock(key)
            self.kernel.flush()

    def release(self, key: str) -> None:
        """A connection of ``key`` closed."""
        self.total -= 1
        self.held[key] -= 1
        if self.held[key] <= 0:
            del self.held[key]
        self._let_in(key)

    def serve(self, sock: socket.socket, factory: Callable[[], asyncio.Protocol]) -> Callable[[], None]:
        """Accept connections on the listening ``sock`` for ``factory``'s protocols, behind the
        gate; returns the function that stops accepting.

        The gate accepts itself rather than through ``loop.create_server``: a refused connection
        is closed (reset) as soon as it is accepted, with no transport, task or protocol made for
        it, and at most :data:`ACCEPTS_PER_TURN` are taken per loop turn, so a storm of
        connections costs the loop short turns between the buttons' work. ``accept()`` failing
        for want of descriptors (asyncio would log a traceback each time) is counted in the tally
        and accepting pauses for a second.
        """
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        fd = sock.fileno()
        paused: list[asyncio.TimerHandle] = []
        self.kernel = kernel = SynFilter(sock)

        def resume() -> None:
            paused.clear()
            loop.add_reader(fd, accept)

        def accept() -> None:
            try:
                take()
            finally:
                kernel.flush()

        def take() -> None:
            for _ in range(ACCEPTS_PER_TURN):
                try:
                    conn, peer = sock.accept()
                except (BlockingIOError, InterruptedError):
                    return
                except OSError as exc:
                    if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                        self.tally.note("accept() failures (out of descriptors)")
                        loop.remove_reader(fd)
                        paused.append(loop.call_later(1.0, resume))
                    return  # ECONNABORTED and the like: the client gave up; nothing to do
                key = self.admit(peer[0] if isinstance(peer, tuple) and peer else "")
                if key is None:
                    with contextlib.suppress(OSError):
                        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
                    conn.close()
                    continue
                conn.setblocking(False)
                task = loop.create_task(self._connect(loop, conn, factory, key))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        loop.add_reader(fd, accept)

        def stop() -> None:
            loop.remove_reader(fd)
            for handle in paused:
                handle.cancel()
            kernel.close()
            self.kernel = None
            self._out.clear()

        return stop

    async def _connect(
        self, loop: asyncio.AbstractEventLoop, conn: socket.socket, factory: Callable[[], asyncio.Protocol], key: str
    ) -> None:
        try:
            await loop.connect_accepted_socket(lambda: _Gated(self, factory, key), sock=conn)
        except OSError:
            self.release(key)
            conn.close()

    def began(self, transport: Any) -> None:
        """A request's head arrived on ``transport`` (its deadline stops)."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.disarm()

    def answered(self, transport: Any) -> None:
        """A request on ``transport`` was answered (the next one's head has its deadline)."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.arm()
