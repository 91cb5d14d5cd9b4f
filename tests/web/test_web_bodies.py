"""What a request carries is judged before it is read: a body announced over 8 KB is refused
(413) before a byte of it comes, and a body or a query naming a key twice is refused (400) on
every route, instead of the last one winning."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.devicekit import run_device
from tests.webkit import page, pair


def test_a_body_announced_over_8_kb_is_refused_before_a_byte_of_it_is_sent(tmp_path):
    """Before, a 1 GB body was read to its end before its 413 (3.3 s of the loop's reading)."""

    async def body(dev):
        async with page(dev) as (companion, _session, base):
            answers = []
            for path in ("/api/names", "/api/state", "/nowhere"):
                reader, writer = await asyncio.open_connection("127.0.0.1", companion.port)
                writer.write(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{companion.port}\r\nOrigin: {base}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n".encode()
                )
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)  # no body sent at all
                size = int(next(h for h in head.split(b"\r\n") if h.startswith(b"Content-Length:")).split()[1])
                envelope = await reader.readexactly(size)
                writer.write(b"x" * 65536)  # what a client sends on is never read, and the page closes
                try:
                    ended = await asyncio.wait_for(reader.read(), 10) == b""
                except ConnectionError:
                    ended = True
                answers.append((head.split(b"\r\n")[0], b"Connection: close" in head, b"TooLargeError" in envelope))
                answers[-1] += (ended,)
                writer.close()
            return answers

    for status, closing, envelope, ended in run_device(tmp_path, body):
        assert status == b"HTTP/1.1 413 Request Entity Too Large" and closing and envelope and ended


@pytest.mark.parametrize(
    ("path", "sent"),
    [
        ("/api/names", b'{"p1": "Ann", "p1": "Bob"}'),
        ("/api/settings", b'{"sound": true, "sound": false}'),
        ("/api/timers", b'{"game": "bomb", "game": "tonne", "preset": {"mode": "off"}}'),
        ("/api/timers", b'{"game": "bomb", "preset": {"mode": "turn", "mode": "off"}}'),
        ("/api/clock", b'{"now_ms": 1767297600000, "now_ms": 1}'),
    ],
)
def test_a_body_naming_a_key_twice_is_refused_and_changes_nothing(tmp_path, path, sent):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await pair(dev, session, base)
            async with session.post(base + path, data=sent, headers={"Origin": base}) as r:
                answer = (r.status, await r.json())
            return answer, dev.seat_name("p1"), dict(dev.settings)

    before = run_device(tmp_path / "before", lambda dev: _settings(dev))
    (status, answer), name, settings = run_device(tmp_path / "after", body)
    assert status == 400 and "given twice" in answer["result"]["error_msg"]
    assert name == "P1" and settings == before


async def _settings(dev):
    return dict(dev.settings)


def test_a_pairing_code_given_twice_is_refused(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            offer = dev.phone_offer()
            sent = json.dumps({"code": "0" * 12})[:-1] + f', "code": "{offer[1]}"}}'
            async with session.post(f"{base}/api/pair", data=sent, headers={"Origin": base}) as r:
                return r.status, await r.json(), dev.phones.count

    status, answer, phones = run_device(tmp_path, body)
    assert status == 400 and "given twice" in answer["result"]["error_msg"] and phones == 0


@pytest.mark.parametrize("query", ["?game=bomb&game=tonne", "?player=Ann&game=bomb&player=Ben", "?lang=de&lang=en"])
def test_a_query_naming_a_key_twice_is_refused_on_every_route(tmp_path, query):
    async def body(dev):
        async with page(dev) as (_, session, base):
            answers = []
            for path in ("/api/history", "/api/stats", "/api/rules", "/api/state", "/"):
                async with session.get(base + path + query) as r:
                    answers.append((r.status, (await r.json())["result"]["error_msg"]))
            return answers

    for status, message in run_device(tmp_path, body):
        assert status == 400 and "given twice" in message
