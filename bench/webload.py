"""Load for ``tablemate bench web``, run as a process of its own so its work is not the device's:
WebSocket clients, a flood of HTTP connections, or malformed requests and frames (loopback only).

    python -m bench.webload URL --ws N [--http M] --seconds S
    python -m bench.webload URL --malformed K

Prints one JSON object: what was sent and the answers' status codes. The load runs at the lowest
CPU priority (nice 19): on a LAN it is other machines, not a rival for the device's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import aiohttp

PATHS = ("/", "/api/state", "/api/history", "/static/board.js", "/api/stats")


def _loopback(url: str) -> str:
    host = urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("webload: loopback only (127.0.0.1)")
    return url.rstrip("/")


async def _ws_client(session: aiohttp.ClientSession, base: str, until: float, counts: Counter) -> None:
    try:
        async with session.ws_connect(base + "/ws", heartbeat=None) as ws:
            counts["ws_connected"] += 1
            while time.monotonic() < until:
                try:
                    msg = await asyncio.wait_for(ws.receive(), max(0.1, until - time.monotonic()))
                except TimeoutError:
                    break
                if msg.type == aiohttp.WSMsgType.TEXT:
                    counts["ws_messages"] += 1
                elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    counts["ws_dropped"] += 1
                    return
    except aiohttp.ClientError:
        counts["ws_failed"] += 1


async def _http_flood(base: str, until: float, counts: Counter) -> None:
    connector = aiohttp.TCPConnector(force_close=True)  # a new connection for every request
    async with aiohttp.ClientSession(connector=connector) as session:
        while time.monotonic() < until:
            try:
                async with session.get(base + random.choice(PATHS)) as r:
                    await r.read()
                    counts[f"http_{r.status}"] += 1
            except aiohttp.ClientError:
                counts["http_failed"] += 1


async def load(base: str, ws: int, http: int, seconds: float) -> dict[str, Any]:
    """Hold ``ws`` WebSocket clients and ``http`` flooding connections for ``seconds``."""
    counts: Counter = Counter()
    ready = time.monotonic()
    until = ready + seconds
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = [asyncio.create_task(_ws_client(session, base, until, counts)) for _ in range(ws)]
        tasks += [asyncio.create_task(_http_flood(base, until, counts)) for _ in range(http)]
        await asyncio.gather(*tasks)
    return dict(counts)


def _bad_requests(base: str, token: str) -> list[tuple[str, str, dict[str, str], bytes | None]]:
    origin = {"Origin": base}
    forged = {"Origin": base, "Cookie": f"tablemate_phone={token}"}
    return [
        ("POST", "/api/names", origin, b'{"p1": "Mallory"'),
        ("POST", "/api/names", forged, b'{"p1": "Mallory"}'),
        ("POST", "/api/names", {"Origin": "http://evil.example", "Cookie": f"tablemate_phone={token}"}, b'{"p1":"M"}'),
        ("POST", "/api/names", {}, b'{"p1": "Mallory"}'),
        ("POST", "/api/names", forged, b"x" * 100_000),
        ("POST", "/api/settings", forged, b'{"language": "de"}'),
        ("POST", "/api/timers", forged, b'{"game": "bomb", "preset": {"mode": "turn"}}'),
        ("POST", "/api/pair", origin, b'{"code": "12345x"}'),
        ("POST", "/api/pair", {}, b'{"code": "123456"}'),
        ("POST", "/api/pair", origin, b"\xff\xfe\x00"),
        ("GET", "/api/history/..%2F..%2Fetc%2Fpasswd/bgstats", {}, None),
        ("GET", "/api/history?game=" + "x" * 5000, {}, None),
        ("GET", "/api/history?player=%00%01", {}, None),
        ("GET", "/static/../../etc/passwd", {}, None),
        ("GET", "/static/%2e%2e%2fconfig.py", {}, None),
        ("GET", "/api/plots/nope.svg", {}, None),
        ("GET", "/api/rules?game=bomb&lang=xx", {}, None),
        ("GET", "/" + "a" * 3000, {}, None),
        ("DELETE", "/api/state", {}, None),
        ("PUT", "/api/names", forged, b"{}"),
        ("GET", "/ws", {}, None),  # not an upgrade
    ]


RAW = (
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"GET /api/state HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"POST /api/names HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\n" + b"X: " + b"a" * 20_000 + b"\r\n\r\n",
)
FRAMES = ("{nope", "[]", '{"event_type": 5}', "x" * 5000, '{"event_type": "set", "event": {"p1": "M"}}')


async def malformed(base: str, count: int) -> dict[str, Any]:
    """Send ``count`` malformed requests and frames; the answers' statuses, WebSocket closes and errors."""
    statuses: Counter = Counter()
    token = "ab" * 32
    requests = _bad_requests(base, token)
    host, port = urlsplit(base).hostname, urlsplit(base).port
    sent = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=20)) as session:
        sem = asyncio.Semaphore(20)

        async def one(i: int) -> None:
            async with sem:
                kind = i % 10
                if kind < 7:
                    method, path, headers, body = requests[i % len(requests)]
                    try:
                        async with session.request(method, base + path, headers=headers, data=body) as r:
                            text = await r.read()
                            ok = r.status >= 400 and r.status < 500
                            statuses[str(r.status) if ok else f"BAD {r.status} {path}"] += 1
                            if r.content_type == "application/json" and b'"error_msg"' not in text:
                                statuses["no envelope"] += 1
                    except aiohttp.ClientError as exc:
                        statuses[f"client error {type(exc).__name__}"] += 1
                elif kind < 9:
                    raw = RAW[i % len(RAW)]
                    reader, writer = await asyncio.open_connection(host, port)
                    writer.write(raw)
                    await writer.drain()
                    line = await reader.readline()
                    writer.close()
                    code = line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "closed"
                    ok = code == "closed" or code.startswith("4")
                    statuses[f"raw {code}" if ok else f"BAD raw {code}"] += 1
                else:
                    async with session.ws_connect(base + "/ws") as ws:
                        await ws.receive()  # the state
                        frame = FRAMES[(i // 10) % len(FRAMES)]
                        await ws.send_str(frame)
                        msg = await ws.receive()
                        if msg.type == aiohttp.WSMsgType.TEXT and json.loads(msg.data)["event_type"] == "error":
                            statuses["ws error event"] += 1
                        elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                            statuses[f"ws close {ws.close_code}"] += 1
                        else:
                            statuses[f"BAD ws {msg.type}"] += 1

        tasks = []
        for i in range(count):
            tasks.append(asyncio.create_task(one(i)))
            sent += 1
        await asyncio.gather(*tasks, return_exceptions=False)
    return {"sent": sent, "statuses": dict(statuses)}


def main() -> None:
    """Run the load named on the command line; print its JSON summary."""
    parser = argparse.ArgumentParser(prog="webload")
    parser.add_argument("url")
    parser.add_argument("--ws", type=int, default=0)
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--malformed", type=int, default=0)
    args = parser.parse_args()
    base = _loopback(args.url)
    # On a LAN the clients are other machines: here they share the device's CPUs, so they take the
    # lowest priority and the device's loop is not kept waiting for a CPU by its own load.
    os.nice(19)
    if args.malformed:
        result = asyncio.run(malformed(base, args.malformed))
    else:
        result = asyncio.run(load(base, args.ws, args.http, args.seconds))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
