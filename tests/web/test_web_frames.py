"""Every WebSocket frame a client sends is counted as it reaches the parser — continuation and
control frames too — and bounded: unmasked frames close the socket (RFC 6455), a message is 1,024
bytes at most (1,024 go, as the page documents), in a few pieces, within a few seconds."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct

import pytest

from firmware_host.web.guards import frames
from firmware_host.web.guards.frames import FrameWatch
from tests.devicekit import run_device
from tests.webkit import page


def frame(opcode: int, payload: bytes = b"", fin: bool = True, mask: bool = True) -> bytes:
    """One client frame as it goes on the wire."""
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    bit = 0x80 if mask else 0
    if size < 126:
        head += bytes([bit | size])
    elif size < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", size)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", size)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


TEXT, CONT, CLOSE, PING = 0x1, 0x0, 0x8, 0x9
PING_TEXT = json.dumps({"event_type": "ping"}).encode()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("sent", "verdict"),
    [
        ([frame(TEXT, PING_TEXT)], None),
        ([frame(PING, b"hi"), frame(0xA, b"hi")], None),  # control frames count, and go
        ([frame(TEXT, PING_TEXT, mask=False)], 1002),  # RFC 6455 5.1: the server closes
        ([frame(TEXT, b"x" * 1024)], None),  # "over 1 KB" closes: 1,024 bytes do not
        ([frame(TEXT, b"x" * 1025)], 1009),
        ([frame(TEXT, b"x" * 600, fin=False), frame(CONT, b"x" * 425)], 1009),  # the message, not the frame
        ([frame(TEXT, b"x", fin=False)] + [frame(CONT, fin=False)] * 7 + [frame(CONT)], 1008),  # 9 pieces
        ([frame(CONT, b"x")], 1002),  # a piece of no message
        ([frame(TEXT, fin=False)] + [frame(CONT, fin=False)] * 30, 1008),  # empty pieces count: the budget
        ([frame(PING)] * 21, 1008),
        ([frame(PING)] * 20, None),
    ],
)
def test_each_frame_is_read_by_its_head_and_judged(sent, verdict):
    watch = FrameWatch(Clock())
    got = [watch.feed(data) for data in sent]
    assert (got[-1] or (None,))[0] == verdict
    assert watch.frames == next((i + 1 for i, v in enumerate(got) if v), len(sent))


def test_heads_and_payloads_split_anywhere_over_reads_are_followed():
    stream = b"".join([frame(TEXT, PING_TEXT), frame(TEXT, b"y" * 300), frame(PING, b"p"), frame(TEXT, b"z" * 1024)])
    for size in (1, 2, 3, 7, 13, 64, 1000):
        watch = FrameWatch(Clock())
        for i in range(0, len(stream), size):
            assert watch.feed(stream[i : i + size]) is None
        assert watch.frames == 4 and watch.unfinished_since is None
    watch = FrameWatch(Clock())
    assert watch.feed(frame(TEXT, b"x" * 70000)[:10]) is None  # a 64-bit length: 1009 from its head on
    assert watch.verdict is None or watch.verdict[0] == 1009
    assert watch.feed(b"\0" * 10)[0] == 1009


def test_a_message_begun_and_not_finished_in_time_is_refused_and_the_budget_refills():
    clock = Clock()
    watch = FrameWatch(clock)
    assert watch.feed(frame(TEXT, b"{", fin=False)) is None
    clock.now = frames.MESSAGE_SECONDS - 0.1
    assert watch.late() is None
    clock.now = frames.MESSAGE_SECONDS
    assert watch.late() == (1008, "message not finished in time")
    steady = FrameWatch(clock)
    for _ in range(100):  # a ping a second for a while: within the budget
        clock.now += 1.0
        assert steady.feed(frame(TEXT, PING_TEXT)) is None


async def _open(port: int, source: str = "127.0.0.1") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket to the page by hand (its frames made here, not by a library that masks them)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


async def _next(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The page's next frame: its opcode and payload (``(-1, b"")``: the connection ended)."""
    try:
        first, second = await asyncio.wait_for(reader.readexactly(2), 10)
        size = second & 0x7F
        if size == 126:
            size = struct.unpack("!H", await reader.readexactly(2))[0]
        elif size == 127:
            size = struct.unpack("!Q", await reader.readexactly(8))[0]
        return first & 0x0F, await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError):
        return -1, b""


async def _close_code(reader: asyncio.StreamReader) -> int | None:
    """The code of the page's close frame, the frames before it skipped."""
    while True:
        opcode, payload = await _next(reader)
        if opcode == CLOSE:
            return struct.unpack("!H", payload[:2])[0]
        if opcode == -1:
            return None


def test_five_empty_continuation_floods_are_closed_at_once_and_the_page_answers_meanwhile(tmp_path):
    """Before, the frame budget counted whole messages: 5 clients sent 46 million empty
    continuation frames in 10 s and none was closed (a third of a core, the loop's turns 44 ms)."""

    async def body(dev):
        async with page(dev) as (companion, session, base):
            loop = asyncio.get_running_loop()
            sockets = [await _open(companion.port, f"127.0.0.{10 + i}") for i in range(5)]
            started = loop.time()
            for _reader, writer in sockets:
                writer.write(frame(TEXT, fin=False) + frame(CONT, fin=False) * 5000)
            codes = await asyncio.gather(*(_close_code(reader) for reader, _ in sockets))
            took = loop.time() - started
            for _, writer in sockets:
                writer.close()
            async with session.get(f"{base}/api/state") as r:
                return codes, took, r.status, dict(companion.gate.tally.counts)

    codes, took, status, counts = run_device(tmp_path, body)
    assert codes == [1008] * 5 and took < 1.0
    assert status == 200
    assert counts["WebSocket clients closed for a frame out of bounds"] == 5  # a message in nine pieces


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        (frame(TEXT, PING_TEXT, mask=False), 1002),
        (frame(TEXT, b"x" * 1025), 1009),
        (frame(TEXT, b"{", fin=False), 1008),  # and nothing more: not finished in time
    ],
)
def test_a_frame_out_of_bounds_closes_the_socket(tmp_path, sent, code):
    async def body(dev):
        async with page(dev) as (companion, _session, _base):
            loop = asyncio.get_running_loop()
            reader, writer = await _open(companion.port)
            state = await _next(reader)
            started = loop.time()
            writer.write(sent)
            got = await _close_code(reader)
            writer.close()
            return state[0], got, loop.time() - started

    state, got, took = run_device(tmp_path, body)
    assert state == TEXT and got == code
    assert took <= frames.MESSAGE_SECONDS + 1


def test_a_message_of_1024_bytes_is_read_and_answered_and_duplicate_keys_are_refused(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, _session, _base):
            reader, writer = await _open(companion.port)
            await _next(reader)  # the state
            answers = []
            padded = b'{"event_type": "ping", "pad": "' + b"x" * (1024 - 33) + b'"}'
            assert len(padded) == 1024
            for sent in (padded, b'{"event_type": "ping", "event_type": "ping"}', PING_TEXT):
                writer.write(frame(TEXT, sent))
                opcode, payload = await _next(reader)
                answers.append(json.loads(payload)["event_type"] if opcode == TEXT else opcode)
            writer.close()
            return answers

    # 1,024 bytes are read (a ping); a key given twice is an error event, and the socket stays open
    assert run_device(tmp_path, body) == ["pong", "error", "pong"]
