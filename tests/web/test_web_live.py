"""The live scoreboard's WebSocket: the whole state to a new client, then what changed; each
client keeps only the newest state; bad frames get the error event."""

from __future__ import annotations

import asyncio
import json

from firmware_host.web.api.live import Client
from firmware_host.web.guards.connection import CLOSE_SECONDS
from tests.devicekit import presses, run_device
from tests.webkit import page


async def _next(ws) -> dict:
    msg = await asyncio.wait_for(ws.receive(), 30)
    return json.loads(msg.data)


def test_a_new_client_gets_the_whole_state_then_the_changes_of_a_press(tmp_path):
    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        async with page(dev) as (_, session, base), session.ws_connect(f"{base}/ws") as ws:
            first = await _next(ws)
            await presses(dev, "ok", "ok")  # Ann jumps: rascal, normal, A
            diff = await _next(ws)
            while "players" not in diff["event"]:
                diff = await _next(ws)
            return first, diff

    first, diff = run_device(tmp_path, body)
    assert first["event_type"] == "state" and [p["name"] for p in first["event"]["players"]] == ["Ann", "Ben"]
    assert diff["event_type"] == "state_diff" and "language" not in diff["event"]
    assert diff["event"]["players"] != first["event"]["players"]


def test_a_client_keeps_only_the_newest_state_and_sends_only_what_changed():
    client = Client(ws=None)  # type: ignore[arg-type]
    client.offer({"a": 1, "b": 1})
    client.offer({"a": 2, "b": 1})  # replaces the first: the queue holds one
    assert json.loads(client.next_message()) == {"event_type": "state", "event": {"a": 2, "b": 1}}
    assert client.next_message() is None
    client.offer({"a": 2, "b": 1})
    assert client.next_message() is None  # nothing changed: nothing sent
    client.offer({"a": 2, "b": 3})
    assert json.loads(client.next_message()) == {"event_type": "state_diff", "event": {"b": 3}}


def test_bad_frames_get_an_error_event_and_a_flood_of_them_closes_the_socket(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, session, base), session.ws_connect(f"{base}/ws") as ws:
            await _next(ws)
            await ws.send_str('{"event_type": "ping"}')
            pong = await _next(ws)
            await ws.send_str("{nope")
            error = await _next(ws)
            for _ in range(30):
                if ws.closed:
                    break
                await ws.send_str("[]")
            while not ws.closed:
                msg = await asyncio.wait_for(ws.receive(), 30)
                if msg.type.name in ("CLOSE", "CLOSED", "CLOSING"):
                    break
            await asyncio.sleep(CLOSE_SECONDS + 0.1)  # the page gives it a second to read the close frame
            return pong, error, len(companion.clients)

    pong, error, clients = run_device(tmp_path, body)
    assert pong["event_type"] == "pong"
    assert error["event_type"] == "error" and error["event"]["error"] == "ValidatorError"
    assert clients == 0
