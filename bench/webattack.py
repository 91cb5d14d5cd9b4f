"""Attacks on the companion page for ``tablemate bench web``, run as a process of its own (loopback
only, bounded in time, at nice 19 as :mod:`bench.webload` is):

    python -m bench.webattack URL ATTACK --seconds S

- ``slow-headers``: up to 1,100 connections from one address, each sending part of a request head
  and then one byte every 10 s (a new one for each that is closed);
- ``ws-storm``: 2,000 WebSocket connections from 8 addresses, held (a new one for each closed);
- ``flood-50``, ``flood-200``: HTTP requests as fast as they are answered, a new connection each,
  from 50 or 200 addresses (127.0.0.x);
- ``ws-ping``: 20 WebSocket connections sending WebSocket pings as fast as they can;
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

from bench.webload import PATHS, _loopback

ATTACKS = ("slow-headers", "ws-storm", "flood-50", "flood-200", "ws-ping", "pair-jam")


def source(i: int) -> str:
    """The ``i``-th attacking address: 127.0.0.2 and up (127.0.0.250 and up are the probes')."""
    return f"127.0.{i // 240}.{2 + i % 240}"


async def _slow_header(host: str, port: int, address: str, until: float, counts: Counter) -> None:
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(host, port, local_addr=(address, 0)), max(0.1, until - time.monotonic())
            )
        except TimeoutError:
            counts["connect unanswered"] += 1  # its SYNs dropped until the run ended
            break
        except OSError:
            counts["connect failed"] += 1
            await asyncio.sleep(0.5)
            continue
        counts["opened"] += 1
        try:
            writer.write(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode())
            while time.monotonic() < until:
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(reader.read(1), 10.0) == b"":
                        break
                writer.write(b"a")
            counts["closed by the page"] += time.monotonic() < until
        except OSError:
            counts["reset by the page"] += 1
        finally:
            writer.close()


async def _ws_hold(base: str, address: str, until: float, counts: Counter, ping: bool = False) -> None:
    connector = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
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
    if name == "slow-headers":
        tasks = [_slow_header(host, port, source(0), until, counts) for _ in range(1100)]
    elif name == "ws-storm":
        tasks = [_ws_hold(base, source(i % 8), until, counts) for i in range(2000)]
    elif name in ("flood-50", "flood-200"):
        tasks = [_flood(base, source(i), until, counts) for i in range(int(name.split("-")[1]))]
    elif name == "ws-ping":
        tasks = [_ws_hold(base, source(i), until, counts, ping=True) for i in range(20)]
    elif name == "pair-jam":
        tasks = [_flood(base, source(i % 50), until, counts, "/api/pair") for i in range(100)]
    else:
        raise SystemExit(f"webattack: no attack {name!r} (known: {', '.join(ATTACKS)})")
    with contextlib.suppress(TimeoutError):  # a connect the page never answers ends with the run
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), seconds + 2.0)
    return {"attack": name, "seconds": seconds, **dict(counts)}


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
