"""Attacks on the companion page for ``tablemate bench web``, run as a process of its own (loopback
only, bounded in time, at nice 19 as :mod:`bench.webload` is):

    python -m bench.webattack URL ATTACK --seconds S

Every connection the page closes or refuses is opened again (a refused connect a moment later),
as a guest that wants the page would:

- ``slow-headers``: up to 1,100 connections from one address, each sending part of a request head
  and then one byte every 10 s;
- ``slow-16x32``: the same from 16 addresses, 32 sockets each;
- ``deaf-17x32``: 17 addresses x 32 connections that pipeline requests and never read the answers;
- ``ws-storm``: 2,000 WebSocket connections from 8 addresses, held;
- ``ws-storm-2000``: a WebSocket from each of 2,000 addresses, beside 1,224 slow-header sockets
  (one from each of the first 1,224 of them);
- ``ipv6-1000``: 1,000 addresses of one IPv6 /64 (:mod:`bench.loopback6`), each
  holding a slow-header socket and a WebSocket;
- ``flood-50``, ``flood-200``: HTTP requests as fast as they are answered, a new connection each,
  from 50 or 200 addresses (127.0.x.y);
- ``ws-ping``: 20 WebSocket connections sending WebSocket pings as fast as they can;
- ``continuation-5``: 5 WebSocket clients sending empty continuation frames as fast as they can;
- ``pair-jam``: wrong pairing codes as fast as they are answered, from 50 addresses.

Prints one JSON object: what was tried and what came back.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from bench import loopback6
from bench.webload import PATHS, _loopback

ATTACKS = (
    "slow-headers",
    "slow-16x32",
    "deaf-17x32",
    "ws-storm",
    "ws-storm-2000",
    "ipv6-1000",
    "flood-50",
    "flood-200",
    "ws-ping",
    "continuation-5",
    "pair-jam",
)
CONNECT_SECONDS = 3.0
"""How long a connect may go unanswered (its SYNs dropped by the page's filter) before it is tried again."""
AGAIN_SECONDS = 0.5
"""How long a guest waits before it connects again after a refusal."""


def source(i: int) -> str:
    """The ``i``-th attacking IPv4 address: 127.0.0.2 and up (127.0.0.250 and up are the probes')."""
    return f"127.0.{i // 240}.{2 + i % 240}"


async def _connect(
    host: str, port: int, address: str, until: float, counts: Counter
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A connection from ``address``, tried until one is had or the run ends (``None``)."""
    while time.monotonic() < until:
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(host, port, local_addr=(address, 0)),
                max(0.1, min(CONNECT_SECONDS, until - time.monotonic())),
            )
        except TimeoutError:
            counts["connect unanswered"] += 1  # its SYNs dropped for now: again
        except OSError:
            counts["connect failed"] += 1
            await asyncio.sleep(AGAIN_SECONDS)
    return None


async def _slow_header(host: str, port: int, address: str, until: float, counts: Counter) -> None:
    while (conn := await _connect(host, port, address, until, counts)) is not None:
        reader, writer = conn
        counts["opened"] += 1
        try:
            writer.write(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode())
            while time.monotonic() < until:
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(reader.read(1), min(10.0, max(0.1, until - time.monotonic()))) == b"":
                        break
                writer.write(b"a")
            counts["closed by the page"] += time.monotonic() < until
        except OSError:
            counts["reset by the page"] += 1
        finally:
            writer.close()


async def _deaf(host: str, port: int, address: str, until: float, counts: Counter) -> None:
    """Requests pipelined on one connection, their answers never read."""
    request = f"GET /api/state HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode() * 32
    while (conn := await _connect(host, port, address, until, counts)) is not None:
        _reader, writer = conn
        counts["opened"] += 1
        try:
            while time.monotonic() < until and not writer.is_closing():
                writer.write(request)
                await asyncio.wait_for(writer.drain(), max(0.1, until - time.monotonic()))
                counts["requests sent"] += 32
                await asyncio.sleep(0.05)
            counts["closed by the page"] += time.monotonic() < until
        except (OSError, TimeoutError):
            counts["reset by the page"] += time.monotonic() < until
        finally:
            writer.close()


WS_HANDSHAKE = (
    "GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
EMPTY_PIECES = bytes([0x01, 0x80, 0, 0, 0, 0]) + bytes([0x00, 0x80, 0, 0, 0, 0]) * 2000
"""A text frame begun (fin clear, masked, no payload), then 2,000 empty continuation frames."""


async def _pieces(writer: asyncio.StreamWriter, counts: Counter) -> None:
    while True:
        writer.write(EMPTY_PIECES)
        counts["frames sent"] += 2001
        await writer.drain()


async def _continuation(host: str, port: int, address: str, until: float, counts: Counter, closes: list) -> None:
    """A WebSocket sending empty continuation frames as fast as it can; how long the page took to
    close it (from the first frame sent) goes to ``closes``."""
    while (conn := await _connect(host, port, address, until, counts)) is not None:
        reader, writer = conn
        try:
            writer.write(WS_HANDSHAKE.format(host=host, port=port).encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5.0)
            if not head.startswith(b"HTTP/1.1 101"):
                counts["handshakes refused"] += 1
                continue
            counts["ws opened"] += 1
            started = time.monotonic()
            sending = asyncio.ensure_future(_pieces(writer, counts))
            try:
                while await asyncio.wait_for(reader.read(65536), max(0.1, until - time.monotonic())):
                    pass  # the state, then the close frame: until the page closes the connection
            except ConnectionError:
                pass  # closed with our frames unread: a reset
            finally:
                sending.cancel()
                with contextlib.suppress(BaseException):
                    await sending
            if time.monotonic() < until:
                closes.append(time.monotonic() - started)
                counts["closed by the page"] += 1
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            counts["ws ended"] += 1
        finally:
            writer.close()


async def _ws_hold(base: str, address: str, until: float, counts: Counter, ping: bool = False) -> None:
    connector = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_SECONDS)  # a dropped SYN: again
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        while time.monotonic() < until:
            try:
                async with session.ws_connect(base + "/ws", heartbeat=None, autoping=False) as ws:
                    counts["ws opened"] += 1
                    while time.monotonic() < until and not ws.closed:
                        if ping:
                            await ws.ping()
                            counts["pings"] += 1
                            await asyncio.sleep(0)
                            continue
                        msg = await ws.receive(timeout=max(0.1, until - time.monotonic()))
                        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                            break
                    counts["ws closed by the page"] += time.monotonic() < until
            except (aiohttp.ClientError, OSError, TimeoutError, RuntimeError) as exc:
                counts[f"ws {type(exc).__name__}"] += 1
                await asyncio.sleep(0.2)


async def _flood(base: str, address: str, until: float, counts: Counter, path: str | None = None) -> None:
    connector = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
    headers = {"Origin": base}
    async with aiohttp.ClientSession(connector=connector) as session:
        while time.monotonic() < until:
            try:
                if path is None:
                    async with session.get(base + random.choice(PATHS)) as r:
                        await r.read()
                        counts[f"http {r.status}"] += 1
                else:
                    async with session.post(base + path, json={"code": "9" * 12}, headers=headers) as r:
                        await r.read()
                        counts[f"pair {r.status}"] += 1
            except (aiohttp.ClientError, OSError):
                counts["http failed"] += 1
                await asyncio.sleep(0.05)


async def attack(base: str, name: str, seconds: float) -> dict[str, Any]:
    """Run attack ``name`` on ``base`` for ``seconds``; what was tried and what came back."""
    counts: Counter = Counter()
    until = time.monotonic() + seconds
    host, port = urlsplit(base).hostname or "127.0.0.1", urlsplit(base).port or 80
    closes: list[float] = []
    if name == "slow-headers":
        tasks = [_slow_header(host, port, source(0), until, counts) for _ in range(1100)]
    elif name == "slow-16x32":
        tasks = [_slow_header(host, port, source(a), until, counts) for a in range(16) for _ in range(32)]
    elif name == "deaf-17x32":
        tasks = [_deaf(host, port, source(a), until, counts) for a in range(17) for _ in range(32)]
    elif name == "ws-storm":
        tasks = [_ws_hold(base, source(i % 8), until, counts) for i in range(2000)]
    elif name == "ws-storm-2000":
        tasks = [_ws_hold(base, source(i), until, counts) for i in range(2000)]
        tasks += [_slow_header(host, port, source(i), until, counts) for i in range(1224)]
    elif name == "ipv6-1000":
        page = f"http://[{loopback6.PAGE}]:{port}"
        tasks = [_ws_hold(page, loopback6.address(i), until, counts) for i in range(1000)]
        tasks += [_slow_header(loopback6.PAGE, port, loopback6.address(i), until, counts) for i in range(1000)]
    elif name in ("flood-50", "flood-200"):
        tasks = [_flood(base, source(i), until, counts) for i in range(int(name.split("-")[1]))]
    elif name == "ws-ping":
        tasks = [_ws_hold(base, source(i), until, counts, ping=True) for i in range(20)]
    elif name == "continuation-5":
        tasks = [_continuation(host, port, source(400 + i), until, counts, closes) for i in range(5)]
    elif name == "pair-jam":
        tasks = [_flood(base, source(i % 50), until, counts, "/api/pair") for i in range(100)]
    else:
        raise SystemExit(f"webattack: no attack {name!r} (known: {', '.join(ATTACKS)})")
    with contextlib.suppress(TimeoutError):  # a connect the page never answers ends with the run
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), seconds + CONNECT_SECONDS + 2.0)
    out: dict[str, Any] = {"attack": name, "seconds": seconds, **dict(counts)}
    if closes:
        out["closed within s"] = round(max(closes), 3)
    return out


def main() -> None:
    """Run the attack named on the command line; print its JSON summary."""
    parser = argparse.ArgumentParser(prog="webattack")
    parser.add_argument("url")
    parser.add_argument("attack", choices=ATTACKS)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    base = _loopback(args.url)
    os.nice(19)
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))  # an attacker has descriptors to spare
    sys.stdout.write(json.dumps(asyncio.run(attack(base, args.attack, args.seconds))) + "\n")


if __name__ == "__main__":
    main()
