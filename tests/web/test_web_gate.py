"""Guests cannot hold what the device needs: connections are capped in total and per address
(IPv6 by its /64), below the descriptors the device keeps for itself; a request's head and body
have deadlines; refusals cost a log line a minute at most."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import resource
import select
import socket
import subprocess
import sys
import weakref
from collections.abc import Callable

import aiohttp
import pytest

from firmware_host.web.guards import gate as gate_module
from firmware_host.web.guards.gate import RESERVE, Gate, group, network, open_descriptors
from firmware_host.web.server import Companion
from tests.devicekit import run_device, screen
from tests.waits import scaled
from tests.webkit import page


@pytest.mark.parametrize(
    ("address", "key", "net"),
    [
        ("192.168.1.20", "192.168.1.20", "192.168.1.20"),
        ("::ffff:192.168.1.20", "192.168.1.20", "192.168.1.20"),
        ("fd00:1:2:3:aaaa:bbbb:cccc:dddd", "fd00:1:2:3:aaaa:bbbb:cccc:dddd", "fd00:1:2:3::/64"),
        ("fd00:1:2:3::1", "fd00:1:2:3::1", "fd00:1:2:3::/64"),
        ("fe80::1%eth0", "fe80::1", "fe80::/64"),
        ("", "", ""),
    ],
)
def test_an_ipv6_address_counts_whole_within_its_64_and_a_mapped_ipv4_as_its_address(address, key, net):
    assert (group(address), network(address)) == (key, net)


def test_the_caps_hold_per_address_per_64_and_in_total_and_a_closed_connection_frees_its_place():
    gate = Gate(max_total=6, per_address=2, per_network=3, clock=lambda: 0.0)
    assert [gate.admit("fd00::1"), gate.admit("fd00::1"), gate.admit("fd00::1")] == [("fd00::1", "fd00::/64")] * 2 + [
        None
    ]
    assert gate.admit("fd00::2") == ("fd00::2", "fd00::/64")  # the /64 holds three now
    assert gate.admit("fd00::3") is None  # nobody seated to give way: refused
    assert gate.admit("10.0.0.1") and gate.admit("10.0.0.2") and gate.admit("10.0.0.3")
    assert gate.admit("10.0.0.4") is None  # six in all
    gate.shares.give_back("fd00::1", "fd00::/64")
    assert gate.admit("10.0.0.4") == ("10.0.0.4", "10.0.0.4")


def test_a_thousand_refusals_make_one_log_line_a_minute_and_no_traceback(caplog):
    now = [0.0]
    gate = Gate(max_total=0, clock=lambda: now[0])
    with caplog.at_level(logging.INFO):
        for _ in range(1000):
            gate.admit("10.0.0.9")
        now[0] = 61.0
        gate.admit("10.0.0.9")
    assert len(caplog.records) == 2  # the first at once, the next a minute later with the count
    assert "1000 connections refused" in caplog.records[1].getMessage()
    assert not any(r.exc_info for r in caplog.records)


def test_accept_out_of_descriptors_is_one_line_not_a_traceback_and_accepting_resumes(tmp_path, caplog):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    async def body(dev):
        companion = Companion(dev, "127.0.0.1", 0, gate=Gate(header_seconds=3600.0))
        await companion.start()
        try:
            no_more = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (open_descriptors(), hard))  # noqa: E731
            guests = await _guests(companion.port, 20, before=no_more)  # not one descriptor left
            await asyncio.sleep(0.5)
            failed = companion.gate.tally.counts["accept() failures (out of descriptors)"]
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            await asyncio.sleep(2.0)  # accepting resumes a second later
            served = companion.gate.total
            guests.communicate(b"", timeout=scaled(30))
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            await companion.close()
        return failed, served

    with caplog.at_level(logging.INFO):
        failed, served = run_device(tmp_path, body)
    assert failed >= 1 and served == 20
    assert not any(r.exc_info for r in caplog.records)
    assert len([r for r in caplog.records if "accept()" in r.getMessage()]) == 1


async def _connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    with contextlib.suppress(OSError):
        return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    return None


async def _closed(reader: asyncio.StreamReader) -> bool:
    """Whether the server closed (or reset) the connection."""
    try:
        return await asyncio.wait_for(reader.read(1024), 0.5) == b""
    except (ConnectionError, OSError):
        return True
    except TimeoutError:
        return False


GUESTS = """
import socket, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
if len(sys.argv) > 3:
    sys.stdin.readline()  # told when to connect
held = []
for i in range(count):
    s = socket.socket()
    s.bind((f"127.0.0.{2 + i % 20}", 0))
    try:
        s.connect(("127.0.0.1", port))
        held.append(s)
    except OSError:
        s.close()
print("ready", flush=True)
sys.stdin.read()
"""


def _own_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))


async def _guests(port: int, count: int, before: Callable[[], None] | None = None) -> subprocess.Popen:
    """Another process (another machine's descriptors) holding ``count`` connections from 20
    addresses (``before``: run once it is started, before it connects)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", GUESTS, str(port), str(count), *(["wait"] if before else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=_own_limit,
    )
    if before is not None:
        before()
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
    ready = select.poll()  # not select(): a long test run has descriptors past select()'s 1,024
    ready.register(proc.stdout, select.POLLIN)
    while not ready.poll(0):
        await asyncio.sleep(0.01)  # the loop accepts meanwhile
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    return proc


def test_a_save_succeeds_while_guests_hold_every_connection_they_may(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    async def body(dev):
        dev.start_named("bomb", ["Ann", "Ben", "Cy"])
        resource.setrlimit(resource.RLIMIT_NOFILE, (open_descriptors() + RESERVE + 40, hard))
        companion = Companion(dev, "127.0.0.1", 0, gate=Gate(header_seconds=3600.0))
        try:
            await companion.start()
            budget = companion.gate.max_total
            guests = await _guests(companion.port, budget + RESERVE + 20)  # more than the descriptors left
            await asyncio.sleep(0.5)
            dev.set_names({"p1": "Zoe"})
            await asyncio.sleep(0.5)
            holding = companion.gate.total  # every place still taken while the device saved
            shown = await screen(dev)
            guests.communicate(b"", timeout=scaled(30))
            await asyncio.sleep(0.5)
            async with (
                aiohttp.ClientSession() as session,
                session.get(f"http://127.0.0.1:{companion.port}/api/state") as r,
            ):
                again = r.status  # the page answers again
        finally:
            await companion.close()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        return budget, holding, shown, again

    budget, held, shown, again = run_device(tmp_path, body)
    assert 8 <= budget <= 40 and held == budget
    assert json.loads((tmp_path / "settings.json").read_text())["names"]["p1"] == "Zoe"
    assert "Cannot save" not in shown
    assert again == 200


def test_a_connection_that_dribbles_its_head_is_closed_at_the_deadline(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, session, base):
            loop = asyncio.get_running_loop()
            reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            opened, closed_at = loop.time(), None
            for _ in range(30):  # one byte a second
                await asyncio.sleep(1.0)
                if await _closed(reader):
                    closed_at = loop.time() - opened
                    break
                with contextlib.suppress(OSError):
                    writer.write(b"X")
            writer.close()
            async with session.get(f"{base}/api/state") as r:
                return closed_at, r.status

    closed_at, status = run_device(tmp_path, body)
    assert closed_at is not None and closed_at <= gate_module.HEADER_SECONDS + 2
    assert status == 200


def test_a_body_that_does_not_come_is_refused_with_408(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, _session, base):
            reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
            writer.write(
                b"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{" % (companion.port, base.encode())
            )
            head = await asyncio.wait_for(reader.read(200), 60)
            writer.close()
            return head

    assert run_device(tmp_path, body).startswith(b"HTTP/1.1 408")


def test_the_unit_sets_a_descriptor_limit_with_room_for_the_cap_and_the_reserve():
    from pathlib import Path

    unit = (Path(__file__).resolve().parents[2] / "systemd" / "tablemate.service").read_text()
    limits = [line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("LimitNOFILE=")]
    assert len(limits) == 1
    assert int(limits[0]) >= gate_module.MAX_CONNECTIONS + RESERVE + 128  # 128: what the device opens itself


def test_an_address_that_sent_past_its_budget_is_refused_for_a_while_and_others_are_not():
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    gate.ban("fd00:1::99", 30.0)
    assert gate.admit("fd00:1::99") is None and gate.admit("fd00:1::1") == ("fd00:1::1", "fd00:1::/64")
    now[0] = 31.0
    assert gate.admit("fd00:1::99") == ("fd00:1::99", "fd00:1::/64")


def test_a_closed_connection_is_freed_at_once_not_left_for_the_garbage_collector(tmp_path):
    """Python 3.11's socket transport keeps a bound method of itself: without the gate breaking that
    cycle, every connection of a flood waited, with its socket, for a full pass of the collector,
    and those passes stopped the loop (the buttons' too) for tens of milliseconds."""

    async def body(dev):
        async with page(dev) as (companion, _session, _base):
            gc.disable()  # only reference counting frees anything now
            try:
                served = []
                for _ in range(10):
                    reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
                    mine = writer.get_extra_info("sockname")
                    writer.write(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    for _ in range(100):  # weak references only: the test must not keep it either
                        live = companion.gate.live
                        if ours := [weakref.ref(t) for t in live if t.get_extra_info("peername") == mine]:
                            served += ours
                            break
                        await asyncio.sleep(0.001)
                    answer = await reader.read()  # the page answers and closes
                    writer.close()
                    await writer.wait_closed()
                for _ in range(100):
                    await asyncio.sleep(0.01)
                    if all(ref() is None for ref in served):
                        break
                return len(served), sum(ref() is not None for ref in served), answer
            finally:
                gc.enable()

    served, left, answer = run_device(tmp_path, body)
    assert served == 10 and answer.startswith(b"HTTP/1.1 200")
    assert left == 0


def test_a_screen_that_closes_its_websocket_is_freed_at_once_too(tmp_path):
    """aiohttp's handler of a WebSocket and its frame reader hold each other: the gate breaks that
    when the connection ends, so screens coming and going leave nothing for the collector."""

    async def body(dev):
        async with page(dev) as (companion, _session, base):
            gc.disable()
            try:
                served, states = [], []
                for _ in range(5):
                    connector = aiohttp.TCPConnector(force_close=True)
                    async with (
                        aiohttp.ClientSession(connector=connector) as screen,
                        screen.ws_connect(f"{base}/ws") as ws,
                    ):
                        states.append(json.loads((await ws.receive()).data)["event_type"])
                        served += [weakref.ref(t) for t in companion.gate.live]  # the page's own session has none open
                for _ in range(100):
                    await asyncio.sleep(0.01)
                    if all(ref() is None for ref in served):
                        break
                return len(served), sum(ref() is not None for ref in served), states
            finally:
                gc.enable()

    served, left, states = run_device(tmp_path, body)
    assert served >= 5 and states == ["state"] * 5
    assert left == 0


def test_a_websocket_handshake_whose_client_went_away_logs_no_traceback(tmp_path, caplog, monkeypatch):
    """A storm's clients give up on their handshakes: writing the 101 then meets a closing
    transport. That was one aiohttp traceback per client (64 in a 30 s storm)."""
    from aiohttp import web

    async def gone(self, request):
        raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")

    async def body(dev):
        async with page(dev) as (companion, session, base):
            monkeypatch.setattr(web.WebSocketResponse, "prepare", gone)
            for _ in range(3):
                with contextlib.suppress(aiohttp.WSServerHandshakeError):
                    async with session.ws_connect(base + "/ws", headers={"Origin": base}):
                        pass
            monkeypatch.undo()
            async with session.get(base + "/api/state") as r:
                return r.status, dict(companion.gate.tally.counts)

    with caplog.at_level(logging.INFO):
        status, counts = run_device(tmp_path, body)
    assert status == 200
    assert counts["requests whose client went away before the answer"] == 3
    assert not any(r.exc_info for r in caplog.records)


def test_a_client_that_never_reads_its_answers_is_cut_when_they_stop_draining(tmp_path):
    """17 addresses x 32 connections pipelining requests and never reading held the page's places;
    now such a connection is closed once its answers have stopped leaving for DRAIN_SECONDS."""

    async def body(dev):
        async with page(dev) as (companion, session, base):
            loop = asyncio.get_running_loop()
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window, never read
            sock.setblocking(False)
            await loop.sock_connect(sock, ("127.0.0.1", companion.port))
            request = f"GET /static/app.css HTTP/1.1\r\nHost: 127.0.0.1:{companion.port}\r\n\r\n".encode()
            with contextlib.suppress(OSError):
                for _ in range(150):  # within the address's burst: every one is answered
                    await loop.sock_sendall(sock, request)
            opened = loop.time()
            cut = None
            for _ in range(60):
                await asyncio.sleep(1.0)
                if not any(t.get_extra_info("sockname") for t in companion.gate.live if not t.is_closing()):
                    cut = loop.time() - opened
                    break
            sock.close()
            async with session.get(f"{base}/api/state") as r:
                return cut, r.status, dict(companion.gate.tally.counts)

    cut, status, counts = run_device(tmp_path, body)
    assert cut is not None and cut <= gate_module.DRAIN_SECONDS + 5, counts
    assert counts.get("connections closed: their answers stopped draining") == 1, (cut, counts)
    assert status == 200
