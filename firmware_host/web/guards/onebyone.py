"""A connection's requests handed to the parser one at a time.

HTTP/1.1 lets a client send its next requests before it has read the answer to the first
(pipelining); no browser does, and aiohttp queues 32 such requests a connection, parsed, each with
its head. :class:`OneAtATime` sits between the socket and the parser: it hands on a request's head
and its body (``Content-Length``), then holds whatever came after it until that request is
answered; the gate pauses the connection's reading meanwhile (:attr:`OneAtATime.whole`), so the
kernel's window holds the rest and the sender waits.

It reads no more of HTTP than it needs to find where a request ends: the blank line after the
head, and the head's ``Content-Length``. A body in chunks (``Transfer-Encoding``), a head it cannot
read, or a connection that became a WebSocket is handed on as it comes (:attr:`OneAtATime.off`);
the parser judges all that as before.
"""

from __future__ import annotations

import re

MAX_HEAD = 160 * 1024
"""A head longer than this is not followed (the parser refuses it: 32 fields of 4 KB)."""

_LENGTH = re.compile(rb"\r\ncontent-length[ \t]*:[ \t]*([0-9]+)[ \t]*\r\n", re.IGNORECASE)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding[ \t]*:", re.IGNORECASE)


class OneAtATime:
    """One connection's bytes, one request at a time (module docstring)."""

    __slots__ = ("_at", "_body", "_busy", "_head", "_held", "off")

    def __init__(self) -> None:
        self._head = bytearray()
        """The start of a head that came split over reads."""
        self._body = 0
        """Bytes of the body of the request in hand still to come."""
        self._busy = False
        """A request was handed on and is not answered yet."""
        self._held = b""
        self._at = 0
        """What came after it (the next requests): ``_held[_at:]``, held."""
        self.off = False
        """Everything is handed on as it comes from now on."""

    @property
    def held(self) -> int:
        """Bytes held now."""
        return len(self._held) - self._at

    @property
    def whole(self) -> bool:
        """A request was handed on whole (its head and body) and is not answered yet: nothing
        more of this connection is needed until it is."""
        return self._busy and not self._body and not self.off

    def feed(self, data: bytes) -> bytes:
        """The bytes of ``data`` (after those held) the parser may have now."""
        if self.off:
            return self.take() + data
        if self.held:
            buf, i = (self._held[self._at :] + data, 0) if data else (self._held, self._at)
        else:
            buf, i = data, 0
        self._held, self._at = b"", 0
        out: list[bytes] = []
        n = len(buf)
        while i < n:
            if self._body:
                step = min(self._body, n - i)
                out.append(buf[i : i + step])
                self._body -= step
                i += step
            elif self._busy:
                self._held, self._at = buf, i  # kept as it is: no copy per request
                break
            else:
                end = self._blank_line(buf, i)
                if end < 0:
                    self._head += buf[i:]
                    out.append(buf[i:])
                    self.off = len(self._head) > MAX_HEAD
                    break
                head = bytes(self._head) + buf[i:end] if self._head else buf[i:end]
                self._head = bytearray()
                out.append(buf[i:end])
                i = end
                self._busy = True
                if _CHUNKED.search(head) is not None or len(_LENGTH.findall(head)) > 1:
                    self.off = True
                    out.append(buf[i:])
                    break
                length = _LENGTH.search(head)
                self._body = int(length.group(1)) if length is not None else 0
        return b"".join(out)

    def _blank_line(self, buf: bytes, i: int) -> int:
        """Where in ``buf`` the head under way ends (just past its blank line), or -1."""
        if self._head:  # the blank line may have begun in the part that came before
            edge = bytes(self._head[-3:])
            k = (edge + buf[i : i + 3]).find(b"\r\n\r\n")
            if k >= 0:
                return i + k + 4 - len(edge)
        found = buf.find(b"\r\n\r\n", i)
        return found + 4 if found >= 0 else -1

    def answered(self) -> bytes:
        """The request in hand was answered: the bytes the parser may have now (the next request)."""
        self._busy = False
        return self.feed(b"")

    def take(self) -> bytes:
        """Everything held (:attr:`off` goes on: a WebSocket's frames, the parser's to judge)."""
        held = self._held[self._at :]
        self._held, self._at = b"", 0
        return held
