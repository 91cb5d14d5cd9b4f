"""The table now: ``/api/state`` and the one WebSocket ``/ws``.

``/ws`` carries ``{"event_type": ..., "event": {...}}``: ``state`` (the whole snapshot) to a new
client, then ``state_diff`` (the top-level keys that changed). Each client has a queue of one:
only the newest snapshot waits, so a slow phone never holds the others, and one that does not take
a frame within :data:`SEND_TIMEOUT` is dropped (its page reconnects). aiohttp's heartbeat pings
every :data:`HEARTBEAT` seconds.

=====  ==============  =====  =====================================
GET    /api/state      read   the snapshot, serialised once per change
GET    /ws             read   the live state, whole then changes
=====  ==============  =====  =====================================
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from aiohttp import WSMsgType, web

from firmware_host.core.limits import parse_json
from firmware_host.web.door import TableDoor
from firmware_host.web.guards.frames import MAX_MESSAGE
from firmware_host.web.guards.gate import Gate
from firmware_host.web.guards.shares import group
from firmware_host.web.routing import READ, Refused, Route, check_origin, no_store

MAX_FRAME = MAX_MESSAGE
"""The largest WebSocket message read from a client, in bytes (the page sends none but pings);
every frame is counted and bounded by the gate (:mod:`firmware_host.web.guards.frames`)."""
MAX_CLIENTS = 256
"""WebSocket clients served at once; one more gets a 503."""
MAX_SCREENS_PER_GROUP = 8
"""WebSocket clients one address (an IPv6 address whole) may have at once; one more gets a 503."""
SEND_TIMEOUT = 5.0
"""Seconds a client may take to take one frame before it is dropped."""
HEARTBEAT = 30.0
"""Seconds between WebSocket pings (a phone that went away is noticed)."""
FAN_OUT = 16
"""Screens handed a new state per loop turn."""
BAD_FRAMES = 20
"""Malformed frames a client may send before it is closed."""


class Client:
    """One WebSocket client and its queue of one (the newest snapshot)."""

    def __init__(self, ws: web.WebSocketResponse, key: str = "") -> None:
        self.ws = ws
        self.key = key
        """The address it came from (:func:`~firmware_host.web.guards.shares.group`)."""
        self.latest: dict[str, Any] | None = None
        self.sent: dict[str, Any] | None = None
        self.ready = asyncio.Event()

    def offer(self, snapshot: dict[str, Any]) -> None:
        """Replace what waits to be sent by ``snapshot``."""
        self.latest = snapshot
        self.ready.set()

    def next_message(self, made: dict[tuple[int, int], str | None] | None = None) -> str | None:
        """The next frame: the whole state first, then the keys that changed (``None``: nothing).

        ``made``: frames already made for other clients, by (what they had, what they get): the
        clients that are up to date share one diff, so 200 screens cost one ``json.dumps``.
        """
        snap, self.latest = self.latest, None
        if snap is None:
            return None
        key = (id(self.sent), id(snap))
        if made is not None and self.sent is not None and key in made:
            self.sent = snap
            return made[key]
        text = self._make(snap)
        if made is not None and key[0] != id(None):
            made[key] = text
        return text

    def _make(self, snap: dict[str, Any]) -> str | None:
        if self.sent is None:
            message = {"event_type": "state", "event": snap}
        else:
            diff = {k: v for k, v in snap.items() if self.sent.get(k) != v}
            if not diff:
                return None
            message = {"event_type": "state_diff", "event": diff}
        self.sent = snap
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class LiveState:
    """The snapshot, made once per change whoever asks, and the screens that follow it."""

    def __init__(self, door: TableDoor, gate: Gate) -> None:
        self.door = door
        self.gate = gate
        """The server's gate: its tally counts dropped screens, it bans a frame flood's address."""
        self.clients: set[Client] = set()
        self._last: dict[str, Any] | None = None
        self._queued = False
        self._made: dict[tuple[int, int], str | None] = {}
        """Frames made since the last snapshot, shared by the clients (see :meth:`Client.next_message`)."""
        self._snapshot: dict[str, Any] | None = None
        """The snapshot since the last change shown (``None``: ask the device again)."""
        self._state_body: tuple[dict[str, Any], bytes] | None = None
        """``/api/state``'s body and the snapshot it was made of."""

    def routes(self) -> list[Route]:
        """This area's routes."""
        return [
            Route("GET", "/ws", READ, self.websocket),
            Route("GET", "/api/state", READ, self.api_state),
        ]

    def snapshot(self) -> dict[str, Any]:
        """The table's snapshot, made once per change shown whoever asks (the API, every screen)."""
        if self._snapshot is None:
            self._snapshot = self.door.snapshot()
        return self._snapshot

    def changed(self) -> None:
        """The device drew a frame: publish a snapshot soon, once per loop turn, if anyone listens."""
        self._snapshot = None
        if self.clients and not self._queued:
            self._queued = True
            asyncio.get_running_loop().call_soon(self._publish)

    async def close(self) -> None:
        """Close every client's socket."""
        for client in list(self.clients):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.ws.close(), 1.0)

    async def api_state(self, request: web.Request) -> web.StreamResponse:
        """The table now: the snapshot (``players`` with ``name`` and ``score``…)."""
        snap = self.snapshot()
        if self._state_body is None or self._state_body[0] is not snap:  # serialised once per change, not per ask
            self._state_body = (snap, json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode())
        return no_store(self._state_body[1])

    def _publish(self) -> None:
        self._queued = False
        if not self.clients:
            return
        snap = self.snapshot()
        if snap == self._last:
            return
        self._last = snap
        self._made = {}
        self._offer(snap, list(self.clients))

    def _offer(self, snap: dict[str, Any], clients: list[Client]) -> None:
        """Hand ``snap`` to the clients :data:`FAN_OUT` at a time, one loop turn each, so a
        button's press never waits behind two hundred screens' frames in one long turn."""
        for client in clients[:FAN_OUT]:
            if snap is self._last:
                client.offer(snap)
        if len(clients) > FAN_OUT and snap is self._last:
            asyncio.get_running_loop().call_soon(self._offer, snap, clients[FAN_OUT:])

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """``/ws``: the live state, whole then changes; the client's frames are only pings."""
        check_origin(request, required=False)  # a browser always sends it; another site's page is refused
        if len(self.clients) >= MAX_CLIENTS:
            raise Refused(503, f"already {MAX_CLIENTS} screens follow the table")
        key = group(request.remote or "")
        if sum(1 for c in self.clients if c.key == key) >= MAX_SCREENS_PER_GROUP:
            self.gate.keep_out(key)
            raise Refused(503, f"already {MAX_SCREENS_PER_GROUP} screens at this address follow the table")
        # every frame the client sends from now on is counted by the gate (1008 over the budget,
        # 1002 unmasked, 1009 over MAX_FRAME); aiohttp's own bound is exclusive, hence the + 1
        self.gate.watch_frames(request.transport, getattr(request.protocol, "_message_tail", b""))
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_FRAME + 1, compress=False, autoping=False)
        try:
            await ws.prepare(request)
        except BaseException:
            self.gate.watch_frames(request.transport, None)  # no WebSocket after all
            raise
        client = Client(ws, key)
        self.clients.add(client)
        client.offer(self.snapshot())
        sender = asyncio.create_task(self._send(client), name="ws-send")
        bad = 0
        try:
            async for msg in ws:
                if msg.type == WSMsgType.PING:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.pong(msg.data), SEND_TIMEOUT)
                elif msg.type == WSMsgType.PONG:
                    continue
                elif msg.type != WSMsgType.TEXT or not self._frame_ok(msg.data):
                    bad += 1
                    error = {
                        "event_type": "error",
                        "event": {"error": "ValidatorError", "error_msg": 'frames are {"event_type": "ping"}'},
                    }
                    if bad >= BAD_FRAMES or ws.closed:
                        break
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.send_str(json.dumps(error)), SEND_TIMEOUT)
                elif not ws.closed:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.send_str('{"event_type":"pong","event":{}}'), SEND_TIMEOUT)
        finally:
            self.clients.discard(client)
            sender.cancel()
            with contextlib.suppress(BaseException):
                await sender
            if not ws.closed:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 1.0)
        return ws

    @staticmethod
    def _frame_ok(data: Any) -> bool:
        try:
            frame = parse_json(data, unique_keys=True)
        except ValueError:
            return False
        return isinstance(frame, dict) and frame.get("event_type") == "ping"

    async def _send(self, client: Client) -> None:
        while not client.ws.closed:
            await client.ready.wait()
            client.ready.clear()
            message = client.next_message(self._made)
            if message is None:
                continue
            try:
                async with asyncio.timeout(SEND_TIMEOUT):  # a timer, not a task per frame
                    await client.ws.send_str(message)
            except (TimeoutError, ConnectionError, RuntimeError):
                self.gate.tally.note("slow or gone screens dropped")
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.ws.close(), 1.0)
                return
