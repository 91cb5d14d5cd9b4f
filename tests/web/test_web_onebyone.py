"""A connection's requests reach the parser one at a time: what a client sends ahead of its
answers waits at the gate (its reading paused past 16 KB) instead of as parsed requests in
aiohttp's queue, and every request is still answered, in order, its body with it."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from firmware_host.web.guards.onebyone import OneAtATime
from tests.devicekit import run_device
from tests.webkit import page

GET = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
POST = b"POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"


@pytest.mark.parametrize(
    ("reads", "now", "after_answer"),
    [
        ([GET + GET], GET, GET),  # the second waits for the first's answer
        ([POST + GET], POST, GET),  # a body goes with its head
        ([POST[:40], POST[40:] + GET], POST, GET),  # split anywhere
        ([GET[:-2], GET[-2:] + GET], GET, GET),  # the blank line split over two reads
        (
            [b"POST /c HTTP/1.1\r\ncontent-length :3\r\n\r\nab", b"c" + GET],
            b"POST /c HTTP/1.1\r\ncontent-length :3\r\n\r\nabc",
            GET,
        ),
        (
            [b"POST /d HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + GET],
            b"POST /d HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + GET,  # chunks: handed on
            b"",
        ),
    ],
)
def test_a_request_and_its_body_go_on_and_the_next_waits_for_its_answer(reads, now, after_answer):
    order = OneAtATime()
    given = b"".join(order.feed(r) for r in reads)
    assert given == now
    assert order.answered() == after_answer


def test_a_head_that_never_ends_is_handed_on_for_the_parser_to_refuse():
    order = OneAtATime()
    sent = b"GET / HTTP/1.1\r\n" + b"X: " + b"a" * 200_000
    assert order.feed(sent) == sent and order.off


def test_pipelined_requests_are_all_answered_in_order_and_a_body_goes_with_its_head(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, _session, base):
            reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
            host = f"Host: 127.0.0.1:{companion.port}\r\n".encode()
            pair = json.dumps({"code": "0" * 12}).encode()
            sent = b"".join(
                [
                    b"GET /api/state HTTP/1.1\r\n" + host + b"\r\n",
                    b"POST /api/pair HTTP/1.1\r\n"
                    + host
                    + f"Origin: {base}\r\n".encode()
                    + b"Content-Type: application/json\r\n"
                    + f"Content-Length: {len(pair)}\r\n\r\n".encode()
                    + pair,
                ]
                + [b"GET /api/games HTTP/1.1\r\n" + host + b"\r\n"] * 40
                + [b"GET /nowhere HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"]
            )
            writer.write(sent)  # all at once, before reading anything
            answers = await asyncio.wait_for(reader.read(), 30)
            writer.close()
            return re.findall(rb"HTTP/1\.1 (\d{3}) ", answers)

    statuses = run_device(tmp_path, body)
    assert statuses == [b"200", b"403"] + [b"200"] * 40 + [b"404"]


def test_a_client_that_sends_a_websocket_frame_with_its_handshake_is_answered(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, _session, _base):
            reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
            ping = json.dumps({"event_type": "ping"}).encode()
            frame = bytes([0x81, 0x80 | len(ping)]) + b"\0\0\0\0" + ping  # masked with zeros
            writer.write(
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{companion.port}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
                + frame
            )
            seen = b""
            while b"pong" not in seen:
                chunk = await asyncio.wait_for(reader.read(4096), 10)
                if not chunk:
                    break
                seen += chunk
            writer.close()
            return seen

    seen = run_device(tmp_path, body)
    assert seen.startswith(b"HTTP/1.1 101") and b'"event_type":"pong"' in seen
