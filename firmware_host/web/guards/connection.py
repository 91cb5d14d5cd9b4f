"""One connection the page accepted, between its socket and aiohttp's handler.

:class:`Connection` is the protocol asyncio gives a connection's bytes to; it hands them on to
aiohttp's handler as the gate (:class:`firmware_host.web.guards.gate.Gate`) allows:

- **in turns** (:class:`~firmware_host.web.guards.pacing.TurnShare`): a few connections' bytes reach the
  parser in one loop turn, the others' in the next, their reading paused meanwhile;
- **one request at a time** (:mod:`firmware_host.web.guards.onebyone`): what a client sends ahead of its
  answer waits in the kernel, its reading paused until the answer;
- **every WebSocket frame counted** (:mod:`firmware_host.web.guards.frames`), once it became a WebSocket:
  a client over its bounds gets the close frame from here and the connection closes;
- **muted** once what it sends is refused (a body too large or left unread): nothing more is read.

It keeps the deadlines — a request's head, answers that stop draining, a message left unfinished
— and says whether it is slow (:meth:`Connection.slow`) when the page is full and a connection must
give way (:mod:`firmware_host.web.guards.shares`). When it is lost it gives its place back and breaks the
reference cycles that would keep it for the garbage collector (:func:`unlink`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from firmware_host.web.guards.frames import MESSAGE_SECONDS, TOO_MANY, FrameWatch, close_frame
from firmware_host.web.guards.onebyone import OneAtATime
from firmware_host.web.guards.pacing import TurnShare
from firmware_host.web.guards.shares import GRACE, Shares


class Keeper(Protocol):
    """What a connection needs of the gate that seated it (:class:`firmware_host.web.guards.gate.Gate`)."""

    shares: Shares[Any]
    turns: TurnShare
    tally: Any
    live: dict[asyncio.BaseTransport, Connection]
    header_seconds: float
    drain_seconds: float

    def release(self, seat: Connection) -> None:
        """Its place is free."""
        ...

    def ban(self, key: str) -> None:
        """Its address is refused for a while."""
        ...


WRITE_HIGH = 16 * 1024
"""Answer bytes a connection's transport holds past the kernel's buffer before its writing pauses
(asyncio's default, 64 KB, is 19 MB for 300 connections that never read)."""
READ_SIZE = 16 * 1024
"""The most one read of a connection takes from the kernel (asyncio's selector transport reads
256 KB at a time, its ``max_size``; a request of the page is a few hundred bytes, a body 8 KB at
most). Each read is a buffer of that size first: under 17 x 32 connections pipelining requests the
process grew 17 MB during the attack; with reads of 16 KB, 4.5 MB."""
UNDRAINED = "connections closed: their answers stopped draining"
CLOSE_SECONDS = 1.0
"""How long a WebSocket closed for its frames has to read the close frame before it is cut."""


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


class Connection(asyncio.Protocol):
    """One accepted connection between the socket and aiohttp's handler (module docstring)."""

    __slots__ = (
        "_ahead",
        "_drain",
        "_factory",
        "_held",
        "_message_timer",
        "_order",
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

    def __init__(self, gate: Keeper, factory: Callable[[], asyncio.Protocol], key: str, net: str) -> None:
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
        self._order = OneAtATime()
        """Its requests to the parser one at a time (:mod:`firmware_host.web.guards.onebyone`)."""
        self._ahead = False
        """Its reading paused while a request of it is in hand, whole."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Seated: aiohttp's handler is made, and the clock for the first request's head starts."""
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.set_write_buffer_limits(high=WRITE_HIGH)
        if isinstance(getattr(transport, "max_size", None), int):
            transport.max_size = READ_SIZE  # type: ignore[attr-defined]
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
        :data:`~firmware_host.web.guards.shares.GRACE` seconds or more."""
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
            self.gate.shares.turn_away(self.key, self.gate.tally.clock())
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
        else:
            data = self._order.feed(data)
            if self._order.whole and self.transport is not None:
                self._ahead = True  # (again: the turns may have resumed its reading to hand on what they held)
                self.transport.pause_reading()  # until it is answered: what it sends ahead waits in the kernel
            if not data:
                return
        if self.inner is not None and not self.muted:
            self.inner.data_received(data)

    def next_request(self) -> None:
        """Its request was answered: the next one it sent, held meanwhile, goes to the parser."""
        if self.inner is None or self.muted or self.frames is not None:
            return
        data = self._order.answered()
        if data:
            self.inner.data_received(data)
        if self._ahead and not self._order.whole and self.transport is not None:
            self._ahead = False
            if self._held is None and not self.muted and not self.transport.is_closing():
                self.transport.resume_reading()
        elif self._order.whole and not self._ahead and self.transport is not None:
            self._ahead = True  # the next request, held, is whole too: its answer first
            self.transport.pause_reading()

    def watch_frames(self, tail: bytes | None) -> None:
        """From now on, count its WebSocket frames; ``tail``: the bytes aiohttp already took
        after the handshake's head (a client need not wait for the answer to send frames);
        ``None``: stop (the handshake failed)."""
        if tail is None:
            self.frames = None
            return
        self.frames = FrameWatch(self.gate.tally.clock)
        self._order.off = True
        ahead = self._order.take()  # frames the client sent before the handshake's answer
        if (tail or ahead) and self.frames.feed(tail + ahead) is not None:
            self.refuse_frames()
        elif ahead and self.inner is not None:
            self.inner.data_received(ahead)  # aiohttp keeps them for the WebSocket's reader
        if self._ahead and self.transport is not None:
            self._ahead = False
            if self._held is None and not self.transport.is_closing():
                self.transport.resume_reading()

    def refuse_frames(self) -> None:
        """The frame watch's verdict: a close frame with its code and the end of what the page
        sends, the connection cut :data:`CLOSE_SECONDS` later; its address is refused for a while
        (coming back at once would cost the loop the same)."""
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
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(close_frame(code, reason))
            # the end of what the page sends, not a close: closing with the client's bytes unread
            # makes the kernel reset the connection, and the client loses the close frame
            transport.write_eof()
            asyncio.get_running_loop().call_later(CLOSE_SECONDS, transport.abort)

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
        """The client closed its side: what it sent before goes on first."""
        if self._held is not None:
            self._give()  # the bytes before the end go first (rare: a client that half-closes)
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        """Its answers stopped leaving: the drain deadline starts."""
        if self._drain is None:
            self._drain = asyncio.get_running_loop().call_later(self.gate.drain_seconds, self._undrained)
            self.gate.shares.mark(self)
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        """Its answers leave again: the drain deadline stops."""
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
            self.gate.shares.turn_away(self.key, self.gate.tally.clock())
            self.transport.abort()

    def give_way(self) -> None:
        """Give this connection's place to another address's (the page is full): it is aborted."""
        self.gate.release(self)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        """Gone: its place is given back, its timers stop, its cycles are broken."""
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
