"""Only the device's own names are served: a page elsewhere whose name points at the device (DNS
rebinding) reads nothing, pairs nothing and opens no WebSocket."""

from __future__ import annotations

import socket

import aiohttp
import pytest

from firmware_host.web.guards.net import split_host
from tests.devicekit import run_device
from tests.webkit import page

FOREIGN = ("evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}", "[::2]:{port}", "", "a:b:c")


def _paths(companion) -> list[tuple[str, str]]:
    fill = {"{code}": "123456789012", "{name}": "board.js", "{id}": "1", "{kind}": "scores"}
    out = []
    for route in companion.routes():
        path = route.path
        for key, value in fill.items():
            path = path.replace(key, value)
        out.append((route.method, path))
    return [*out, ("GET", "/no/such/page"), ("DELETE", "/api/state")]


def test_every_route_refuses_a_host_that_is_not_the_devices_and_serves_its_own_names(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, session, base):
            port = companion.port
            refused, served = {}, {}
            for method, path in _paths(companion):
                for host in FOREIGN:
                    headers = {"Host": host.format(port=port), "Origin": f"http://{host.format(port=port)}"}
                    async with session.request(method, base + path, headers=headers, json={}) as r:
                        refused[(method, path, host)] = r.status
                own = (f"127.0.0.1:{port}", f"localhost:{port}", f"{socket.gethostname()}.local:{port}", "LOCALHOST")
                for host in own:
                    async with session.request(method, base + path, headers={"Host": host}) as r:
                        served[(method, path, host)] = r.status
        return refused, served

    refused, served = run_device(tmp_path, body)
    assert {status for status in refused.values()} == {421}, refused
    assert 421 not in served.values()
    assert len({path for _, path, _ in refused}) >= 20


def test_the_websocket_refuses_a_foreign_host_and_a_foreign_origin(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            statuses = []
            for headers in ({"Host": "evil.example"}, {"Origin": "http://evil.example"}):
                try:
                    async with session.ws_connect(f"{base}/ws", headers=headers):
                        statuses.append(101)
                except aiohttp.WSServerHandshakeError as exc:
                    statuses.append(exc.status)
            async with session.ws_connect(f"{base}/ws", headers={"Origin": base}) as ws:
                first = await ws.receive_json()
        return statuses, first

    statuses, first = run_device(tmp_path, body)
    assert statuses == [421, 403]
    assert first["event_type"] == "state"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("192.168.1.20:8080", ("192.168.1.20", 8080)),
        ("tablemate.local.", ("tablemate.local", None)),
        ("[fe80::1]", ("fe80::1", None)),
        ("[FD00::1]:80", ("fd00::1", 80)),
        ("[::1]x", (None, None)),
        ("host:port", (None, None)),
        ("", (None, None)),
    ],
)
def test_a_host_header_is_read_as_a_browser_writes_it(value, expected):
    assert split_host(value) == expected
