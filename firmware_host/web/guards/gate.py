"""The page's door to the network: how many connections guests may hold, for how long, and what
they may send on them.

Every TCP connection the page accepts passes :class:`Gate` before aiohttp sees a byte of it, and
each connection's bytes then go through a :class:`~firmware_host.web.guards.connection.Connection`:

- **Shared, not first come first served** (:mod:`firmware_host.web.guards.shares`): at most
  :data:`~firmware_host.web.guards.shares.PER_ADDRESS` connections an address,
  :data:`~firmware_host.web.guards.shares.PER_NETWORK` an IPv6 /64, :data:`MAX_CONNECTIONS` in all; when
  the page is full, a connection of an address holding fewer takes the place of one of the address
  holding the most (the one waiting longest for a request head, or not reading its answers,
  first). A connection refused is aborted at once (a reset: no parsing, no answer, no log
  line of its own). An address at its own cap, or banned, is then refused by the kernel
  (:mod:`firmware_host.web.guards.syn_filter`: its SYNs are dropped) until it holds less again: its next
  thousand tries cost the loop nothing.
- **The cap stays below the descriptors the device needs**: it is at most the process's
  descriptor limit less those open when the page starts and :data:`RESERVE`, which the journal,
  the history, the settings and the drivers always have. So ``accept()`` never meets
  ``EMFILE`` and a save never meets "Too many open files", whatever guests hold.
- **A deadline for a request's headers**: a connection must have sent a whole request head within
  :data:`HEADER_SECONDS` of opening, or of its last answer, or it is closed (one byte every few
  seconds no longer keeps it). aiohttp's ``keepalive_timeout`` closes idle keep-alive connections;
  request bodies have their own deadline where they are read (:mod:`firmware_host.web.routing`).
- **Answers must drain**: a connection whose answers stopped leaving (its writing paused because
  the client does not read, its kernel buffer of :data:`SEND_BUFFER` full) for
  :data:`DRAIN_SECONDS` is closed, whatever its address.
- **What is refused is not read**: a body refused on its announced length, or left unread, and a
  WebSocket client closed are muted (:meth:`Gate.mute`): their bytes no longer reach the parser.
- **One request at a time**: a connection's next request goes to the parser once the one before is
  answered (:mod:`firmware_host.web.guards.onebyone`), its reading paused meanwhile: what a client sends
  ahead waits in the kernel.
- **Every WebSocket frame counted** as its bytes reach the parser (:mod:`firmware_host.web.guards.frames`,
  from :meth:`Gate.watch_frames` on): a client over its frame budget, sending an unmasked frame
  or a message too big, in too many pieces or too slowly is closed by the gate itself.
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
import logging
import os
import resource
import socket
import struct
from collections import Counter
from collections.abc import Callable
from typing import Any

from firmware_host.web.guards.connection import Connection, unlink
from firmware_host.web.guards.pacing import TurnShare
from firmware_host.web.guards.shares import MAX_CONNECTIONS, PER_ADDRESS, PER_NETWORK, Shares, group, network, place
from firmware_host.web.guards.syn_filter import SynFilter

log = logging.getLogger(__name__)

__all__ = [
    "MAX_CONNECTIONS",
    "Connection",
    "Gate",
    "Tally",
    "connection_budget",
    "group",
    "network",
    "open_descriptors",
    "unlink",
]

RESERVE = 64
"""Descriptors kept for the device itself (journal, history, settings, drivers, threads)."""
HEADER_SECONDS = 10.0
"""Seconds a connection has to send a request's head, from opening or from its last answer."""
DRAIN_SECONDS = 10.0
"""Seconds a connection's answers may stop leaving (the client reads nothing) before it is closed."""
SEND_BUFFER = 64 * 1024
"""The kernel's send buffer of each connection (it doubles it): fixed, so the answers of a client
that reads nothing stop draining after some 200 KB (Linux would grow it towards 4 MB first, and
hold that much for it); the page's largest answers are a fraction of it."""
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


class Gate:
    """The caps on connections, their deadlines and what they may send (see the module's docstring)."""

    def __init__(
        self,
        max_total: int = MAX_CONNECTIONS,
        per_address: int = PER_ADDRESS,
        header_seconds: float = HEADER_SECONDS,
        clock: Callable[[], float] | None = None,
        per_network: int = PER_NETWORK,
        drain_seconds: float = DRAIN_SECONDS,
    ) -> None:
        self.shares: Shares[Connection] = Shares(max_total, per_address, per_network)
        """Who holds the connections and who gives way (:mod:`firmware_host.web.guards.shares`)."""
        self.header_seconds, self.drain_seconds = header_seconds, drain_seconds
        self._banned: dict[str, float] = {}
        """Addresses refused until a time (the clock's), for having abused what they were given."""
        self.live: dict[asyncio.BaseTransport, Connection] = {}
        self.turns = TurnShare()
        """Connections whose bytes go to the parser in one loop turn (:mod:`firmware_host.web.guards.pacing`)."""
        self.tally = Tally(clock or (lambda: asyncio.get_running_loop().time()))
        self.kernel: SynFilter | None = None
        """The addresses the kernel refuses for the listening socket (from :meth:`serve` on)."""
        self._out: dict[str, float] = {}
        """The addresses the kernel refuses, each until a time at least (the clock's)."""
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def max_total(self) -> int:
        """Connections held at once, from everyone."""
        return self.shares.max_total

    @max_total.setter
    def max_total(self, value: int) -> None:
        self.shares.max_total = value

    @property
    def per_address(self) -> int:
        """Connections one address may hold."""
        return self.shares.per_address

    @property
    def total(self) -> int:
        """Connections held now."""
        return self.shares.total

    @property
    def held(self) -> Counter[str]:
        """Connections held per address."""
        return self.shares.held

    def admit(self, address: str) -> tuple[str, str] | None:
        """The address and network a new connection of ``address`` counts against, or ``None``
        (refused); when the page is full, the connection whose place it takes is aborted."""
        key, net = place(address)
        if self._banned and key in self._banned:
            if self.tally.clock() < self._banned[key]:
                self.tally.note("connections refused (an address sent past its budget)")
                return None
            del self._banned[key]
        verdict = self.shares.ask(key, net, self.tally.clock())
        if not verdict.admitted:
            self.tally.note(verdict.why)
            if self.shares.held[key] >= self.shares.per_address and key not in self._out:
                self._keep_out(key, KEEP_OUT_SECONDS)  # else: connections it had queued before the kernel refused it
            return None
        if verdict.victim is not None:
            self.tally.note("connections closed to make room for a lighter address")
            verdict.victim.give_way()
        self.shares.take(key, net)
        return key, net

    def ban(self, key: str, seconds: float = BAN_SECONDS) -> None:
        """Refuse every new connection of address ``key`` for ``seconds`` (it sent past its budget:
        coming back at once would cost the loop the same again)."""
        if len(self._banned) >= self.shares.max_total:
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
        early = 0.001  # a timer may wake a hair early
        if self.tally.clock() >= until - early and self.shares.held[key] < self.shares.per_address:
            del self._out[key]
            self.kernel.unblock(key)
            self.kernel.flush()

    def release(self, seat: Connection) -> None:
        """``seat``'s connection closed or gave its place away: the place is free (once)."""
        if not seat.seated:
            return
        seat.seated = False
        self.shares.give_back(seat.key, seat.net, seat)
        self._let_in(seat.key)

    def _unseated(self, key: str, net: str) -> None:
        """A place admitted whose connection never came (its socket failed)."""
        self.shares.give_back(key, net)
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
                place = self.admit(peer[0] if isinstance(peer, tuple) and peer else "")
                if place is None:
                    with contextlib.suppress(OSError):
                        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
                    conn.close()
                    continue
                conn.setblocking(False)
                with contextlib.suppress(OSError):
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
                task = loop.create_task(self._connect(loop, conn, factory, *place))
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
        self,
        loop: asyncio.AbstractEventLoop,
        conn: socket.socket,
        factory: Callable[[], asyncio.Protocol],
        key: str,
        net: str,
    ) -> None:
        try:
            await loop.connect_accepted_socket(lambda: Connection(self, factory, key, net), sock=conn)
        except OSError:
            self._unseated(key, net)
            conn.close()

    def began(self, transport: Any) -> None:
        """A request's head arrived on ``transport`` (its deadline stops)."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.disarm()

    def answered(self, transport: Any, later: float = 0.0) -> None:
        """A request on ``transport`` was answered (the next one's head has its deadline, and the
        next request it sent goes to the parser, ``later`` seconds on)."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.arm()
            loop = asyncio.get_running_loop()
            if later > 0:
                loop.call_later(later, gated.next_request)
            else:
                loop.call_soon(gated.next_request)

    def watch_frames(self, transport: Any, tail: bytes | None = b"") -> None:
        """``transport`` becomes a WebSocket: from now on every frame its client sends is counted
        (:mod:`firmware_host.web.guards.frames`); ``tail``: bytes aiohttp already took after the head
        (``None``: the handshake failed, the connection is no WebSocket)."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.watch_frames(tail)

    def mute(self, transport: Any) -> None:
        """``transport``'s bytes no longer reach the parser (its body was refused, or left unread
        and aiohttp would read it to its end): reading stops, the client's sending waits on the
        kernel's window, and the connection closes after its answer."""
        gated = self.live.get(transport)
        if gated is not None:
            gated.mute()
