"""The page's door to the network: how many connections guests may hold, for how long, and what
they may send on them.

Every TCP connection the page accepts passes :class:`Gate` before aiohttp sees a byte of it:

- **Shared, not first come first served** (:mod:`firmware_host.web.shares`): at most
  :data:`~firmware_host.web.shares.PER_ADDRESS` connections an address,
  :data:`~firmware_host.web.shares.PER_NETWORK` an IPv6 /64, :data:`MAX_CONNECTIONS` in all; when
  the page is full, a connection of an address holding fewer takes the place of one of the address
  holding the most (its oldest that has not sent a whole request head or is not reading its
  answers first). A connection refused is aborted at once (a reset: no parsing, no answer, no log
  line of its own). An address at its own cap, or banned, is then refused by the kernel
  (:mod:`firmware_host.web.syn_filter`: its SYNs are dropped) until it holds less again: its next
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
- **Every WebSocket frame counted** as its bytes reach the parser (:mod:`firmware_host.web.frames`,
  from :meth:`Gate.watch_frames` on): a client over its frame budget, sending an unmasked frame
  or a message too big, in too many pieces or too slowly is closed by the gate itself.
- **In turns**: at most :data:`ACCEPTS_PER_TURN` connections are accepted in a loop turn, and
  a few connections' bytes go to the parser per turn, the others' a turn later, their reading
  paused meanwhile (:mod:`firmware_host.web.pacing`): a storm's hundreds of ready sockets cost
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

from firmware_host.web.frames import MESSAGE_SECONDS, TOO_MANY, FrameWatch, close_frame
from firmware_host.web.pacing import TurnShare
from firmware_host.web.shares import GRACE, MAX_CONNECTIONS, PER_ADDRESS, PER_NETWORK, Shares, group, network, place
from firmware_host.web.syn_filter import SynFilter

log = logging.getLogger(__name__)

__all__ = ["MAX_CONNECTIONS", "Gate", "Tally", "connection_budget", "group", "network", "open_descriptors", "unlink"]

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
UNDRAINED = "connections closed: their answers stopped draining"


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
    """One accepted connection: seated (then aiohttp's handler has it), or aborted."""

    __slots__ = (
        "_drain",
        "_factory",
        "_held",
        "_message_timer",
        "deadline",
        "frames",
        "gate",
        "inner",
        "key",
        "muted",
        "net",
        "seated",
        "since",
        "transport",
    )

    def __init__(self, gate: Gate, factory: Callable[[], asyncio.Protocol], key: str, net: str) -> None:
        self.gate = gate
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.key, self.net = key, net
        """The address and the network its place counts against (given back when it closes)."""
        self.seated = True
        """Whether it still holds its place (``False`` once it gave it to another or closed)."""
        self.deadline: asyncio.TimerHandle | None = None
        """The header deadline, while a request's head is awaited."""
        self.since = 0.0
        """When it began to wait for the request head it waits for (the loop's clock)."""
        self.frames: FrameWatch | None = None
        """The WebSocket frame watch, once the connection became a WebSocket."""
        self.muted = False
        """Its bytes no longer reach the parser (a refused body, a closed WebSocket)."""
        self._drain: asyncio.TimerHandle | None = None
        self._message_timer: asyncio.TimerHandle | None = None
        self._factory = factory
        self._held: list[bytes] | None = None
        """Bytes read while the loop turn had no room for them (reading pauses until they are given on)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.gate.live[transport] = self
        self.gate.shares.sit(self)
        self.inner = self._factory()
        self.inner.connection_made(transport)
        self.arm()

    def waiting(self) -> bool:
        """Whether it waits for a request's head (opened and sent none whole, or idle after an
        answer), or its answers stopped leaving (its client reads nothing)."""
        return self.deadline is not None or self._drain is not None

    def slow(self, now: float) -> bool:
        """Whether its answers stopped leaving, or it has waited for a request's head
        :data:`~firmware_host.web.shares.GRACE` seconds or more."""
        return self._drain is not None or (self.deadline is not None and now - self.since >= GRACE)

    def screen(self) -> bool:
        """Whether it became a WebSocket (its frames are watched)."""
        return self.frames is not None

    def arm(self) -> None:
        """Start the clock for the next request's head."""
        if self.deadline is not None:
            self.deadline.cancel()
        if self.transport is not None and not self.transport.is_closing():
            loop = asyncio.get_running_loop()
            self.since = loop.time()
            self.deadline = loop.call_later(self.gate.header_seconds, self._late)
            self.gate.shares.mark(self)

    def disarm(self) -> None:
        """A request's head has come: its handler has the connection."""
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
            self.gate.shares.mark(self)

    def _late(self) -> None:
        self.deadline = None
        if self.transport is not None and not self.transport.is_closing():
            if self._drain is not None:  # its next request waits behind an answer it does not read
                self.gate.tally.note(UNDRAINED)
            else:
                self.gate.tally.note("connections closed without a whole request in time")
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        """Give ``data`` to the parser in this turn when it has room, else in a later one (reading
        pauses meanwhile: the kernel holds the rest, and the sender waits)."""
        if self.inner is None:
            return
        if self.muted:
            self.mute()
        elif self._held is not None:
            self._held.append(data)
        elif self.gate.turns.take():
            self._feed(data)
        else:
            self._held = [data]
            assert self.transport is not None
            self.transport.pause_reading()
            self.gate.turns.later(self._give)

    def _feed(self, data: bytes) -> None:
        """``data`` to the parser, its WebSocket frames counted first (when it is one)."""
        frames = self.frames
        if frames is not None:
            if frames.feed(data) is not None:
                self.refuse_frames()
                return
            if frames.unfinished_since is not None and self._message_timer is None:
                self._time_message()
        if self.inner is not None and not self.muted:
            self.inner.data_received(data)

    def watch_frames(self, tail: bytes | None) -> None:
        """From now on, count its WebSocket frames; ``tail``: the bytes aiohttp already took
        after the handshake's head (a client need not wait for the answer to send frames);
        ``None``: stop (the handshake failed)."""
        if tail is None:
            self.frames = None
            return
        self.frames = FrameWatch(self.gate.tally.clock)
        if tail and self.frames.feed(tail) is not None:
            self.refuse_frames()

    def refuse_frames(self) -> None:
        """The frame watch's verdict: a close frame with its code, then the connection closes, and
        its address is refused for a while (coming back at once would cost the loop the same)."""
        assert self.frames is not None and self.frames.verdict is not None
        code, reason = self.frames.verdict
        self.mute()
        if self._message_timer is not None:
            self._message_timer.cancel()
            self._message_timer = None
        if reason == TOO_MANY:
            self.gate.tally.note("WebSocket clients closed over their frame budget")
        else:
            self.gate.tally.note("WebSocket clients closed for a frame out of bounds")
        self.gate.ban(self.key)  # the page's own script sends one ping now and then, whole
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(close_frame(code, reason))
            self.transport.close()

    def mute(self) -> None:
        """Its bytes no longer reach the parser, and its reading stops."""
        self.muted = True
        self._held = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()

    def _give(self) -> bool:
        """The turn has room: reading resumes and the bytes held go to the parser."""
        held, self._held = self._held, None
        if not held or self.inner is None or self.transport is None or self.transport.is_closing():
            return False
        self.transport.resume_reading()  # first: the parser may pause reading again, and that stays
        for chunk in held:
            if self.inner is None or self.muted:
                break
            self._feed(chunk)
        return True

    def _time_message(self) -> None:
        """A message begun and not finished: a timer for its end (:data:`MESSAGE_SECONDS` from its start)."""
        frames = self.frames
        if frames is None or frames.unfinished_since is None:
            return
        wait = frames.unfinished_since + MESSAGE_SECONDS - frames.clock()
        self._message_timer = asyncio.get_running_loop().call_later(max(0.0, wait), self._message_late)

    def _message_late(self) -> None:
        self._message_timer = None
        if self.frames is None or self.muted:
            return
        if self.frames.late() is not None:
            self.refuse_frames()
        else:
            self._time_message()  # that message ended; a later one may be under way

    def eof_received(self) -> bool | None:
        if self._held is not None:
            self._give()  # the bytes before the end go first (rare: a client that half-closes)
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self._drain is None:
            self._drain = asyncio.get_running_loop().call_later(self.gate.drain_seconds, self._undrained)
            self.gate.shares.mark(self)
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self._drain is not None:
            self._drain.cancel()
            self._drain = None
            self.gate.shares.mark(self)
        if self.inner is not None:
            self.inner.resume_writing()

    def _undrained(self) -> None:
        self._drain = None
        if self.transport is not None and not self.transport.is_closing():
            self.gate.tally.note(UNDRAINED)
            self.transport.abort()

    def give_way(self) -> None:
        """Give this connection's place to another address's (the page is full): it is aborted."""
        self.gate.release(self)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        for timer in (self._drain, self._message_timer):
            if timer is not None:
                timer.cancel()
        self._drain = self._message_timer = None
        unlink(self.transport)
        self.frames = None
        if self.inner is None:
            return
        inner, self.inner = self.inner, None
        self.gate.live.pop(self.transport, None)  # type: ignore[arg-type]
        self.gate.release(self)
        try:
            inner.connection_lost(exc)
        finally:
            unlink(None, inner)


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
        self.shares: Shares[_Gated] = Shares(max_total, per_address, per_network)
        """Who holds the connections and who gives way (:mod:`firmware_host.web.shares`)."""
        self.header_seconds, self.drain_seconds = header_seconds, drain_seconds
        self._banned: dict[str, float] = {}
        """Addresses refused until a time (the clock's), for having abused what they were given."""
        self.live: dict[asyncio.BaseTransport, _Gated] = {}
        self.turns = TurnShare()
        """Connections whose bytes go to the parser in one loop turn (:mod:`firmware_host.web.pacing`)."""
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

    def release(self, seat: _Gated) -> None:
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
            await loop.connect_accepted_socket(lambda: _Gated(self, factory, key, net), sock=conn)
        except OSError:
            self._unseated(key, net)
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

    def watch_frames(self, transport: Any, tail: bytes | None = b"") -> None:
        """``transport`` becomes a WebSocket: from now on every frame its client sends is counted
        (:mod:`firmware_host.web.frames`); ``tail``: bytes aiohttp already took after the head
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
