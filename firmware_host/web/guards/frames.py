"""Every WebSocket frame a client sends, counted as its bytes reach the parser.

aiohttp's reader hands on whole messages: the frames of a message sent in pieces (continuation
frames), and control frames it answers or drops, never reach the handler, and a piece with no
bytes never grows the message towards ``max_msg_size`` — five clients sent 46 million empty
continuation frames in 10 s and none was closed. :class:`FrameWatch` reads every frame's head
(RFC 6455 §5.2) from the client's bytes before aiohttp does, and says when the client must go:

- **Every frame counts** (data, continuation, ping, pong, close) against one budget, a burst of
  :data:`FRAME_BURST` then :data:`FRAME_RATE` a second: a scoreboard sends almost none (the
  pongs of aiohttp's heartbeat), a phone a ping now and then. Over it: 1008.
- **Client frames are masked** (RFC 6455 §5.1: the server closes the connection on an unmasked
  one): 1002.
- **A message is whole within bounds**: at most :data:`MAX_MESSAGE` bytes (1 KB, the limit the
  page documents: 1,024 bytes go, 1,025 close with 1009), in at most :data:`MESSAGE_FRAMES`
  frames, finished within :data:`MESSAGE_SECONDS` of its first frame (:meth:`FrameWatch.late`):
  1009 or 1008.

Only frame heads are read (2 to 14 bytes each); payloads are skipped by their length. The watch
costs a client :data:`FRAME_BURST` frames' heads before it is closed, however fast it sends; the
gate then refuses its address for a while (the page's own script never meets any of these bounds).
"""

from __future__ import annotations

from collections.abc import Callable

FRAME_RATE = 2.0
"""Frames a second a client may send on average (every kind: its pings, pongs and pieces)."""
FRAME_BURST = 20
"""Frames a client may send at once within its budget."""
MAX_MESSAGE = 1024
"""The largest message a client may send, in bytes (the page's pings need 22)."""
MESSAGE_FRAMES = 8
"""Frames one message may come in."""
MESSAGE_SECONDS = 5.0
"""Seconds a message may take from its first frame to its last."""

POLICY, PROTOCOL, TOO_BIG = 1008, 1002, 1009
"""The close codes used (RFC 6455 §7.4.1)."""
TOO_MANY = "too many frames"
"""The reason given to a client over its budget."""
_CONTINUATION, _CONTROL = 0x0, 0x8


class FrameWatch:
    """The frames of one client's bytes (module docstring): :meth:`feed` returns the close code
    and reason when the client must be closed, else ``None``."""

    __slots__ = ("_head", "_parts", "_since", "_size", "_skip", "_stamp", "_tokens", "clock", "frames", "verdict")

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.frames = 0
        """Frames counted."""
        self.verdict: tuple[int, str] | None = None
        """Why the client must be closed, once it must."""
        self._tokens = float(FRAME_BURST)
        self._stamp = clock()
        self._head = b""
        """The start of a frame head that came split over two reads."""
        self._skip = 0
        """Payload bytes of the current frame still to come."""
        self._since: float | None = None
        """When the unfinished message began (``None``: none is)."""
        self._size = 0
        self._parts = 0

    @property
    def unfinished_since(self) -> float | None:
        """When the message the client has begun and not finished began (``None``: none)."""
        return self._since

    def feed(self, data: bytes) -> tuple[int, str] | None:
        """Read the heads of the frames in ``data`` (the client's next bytes)."""
        if self.verdict is not None:
            return self.verdict
        buf = self._head + data if self._head else data
        self._head = b""
        i, n = 0, len(buf)
        while i < n:
            if self._skip:
                step = min(self._skip, n - i)
                self._skip -= step
                i += step
                continue
            if n - i < 2:
                break
            first, second = buf[i], buf[i + 1]
            size = second & 0x7F
            length = 2 + (2 if size == 126 else 8 if size == 127 else 0) + (4 if second & 0x80 else 0)
            if n - i < length:
                break
            if size == 126:
                size = int.from_bytes(buf[i + 2 : i + 4], "big")
            elif size == 127:
                size = int.from_bytes(buf[i + 2 : i + 10], "big")
            self.verdict = self._frame(first, bool(second & 0x80), size)
            if self.verdict is not None:
                return self.verdict
            i += length
            self._skip = size
        if i < n:
            self._head = bytes(buf[i:])  # a head split over reads: at most 13 bytes
        return None

    def late(self) -> tuple[int, str] | None:
        """The verdict for a message begun :data:`MESSAGE_SECONDS` ago or more and not finished."""
        if self.verdict is None and self._since is not None and self.clock() - self._since >= MESSAGE_SECONDS:
            self.verdict = (POLICY, "message not finished in time")
        return self.verdict

    def _frame(self, first: int, masked: bool, size: int) -> tuple[int, str] | None:
        self.frames += 1
        now = self.clock()
        self._tokens = min(float(FRAME_BURST), self._tokens + (now - self._stamp) * FRAME_RATE)
        self._stamp = now
        if self._tokens < 1.0:
            return POLICY, TOO_MANY
        self._tokens -= 1.0
        if not masked:
            return PROTOCOL, "client frames must be masked"
        opcode = first & 0x0F
        if opcode >= _CONTROL:
            return None  # aiohttp bounds a control frame (125 bytes, never in pieces)
        if opcode == _CONTINUATION:
            if self._since is None:
                return PROTOCOL, "a continuation frame with no message begun"
            self._size += size
            self._parts += 1
        else:
            self._since, self._size, self._parts = now, size, 1
        if self._size > MAX_MESSAGE:
            return TOO_BIG, f"messages are {MAX_MESSAGE} bytes at most"
        if self._parts > MESSAGE_FRAMES:
            return POLICY, f"a message comes in {MESSAGE_FRAMES} frames at most"
        if first & 0x80:  # FIN: the message is whole
            self._since = None
        elif now - self._since >= MESSAGE_SECONDS:
            return POLICY, "message not finished in time"
        return None


def close_frame(code: int, reason: str) -> bytes:
    """A server's close frame (unmasked) with ``code`` and ``reason`` (cut to fit 125 bytes)."""
    payload = code.to_bytes(2, "big") + reason.encode()[:123]
    return bytes((0x88, len(payload))) + payload
