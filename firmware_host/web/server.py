"""The companion page's server: aiohttp on the device's own asyncio loop.

No thread per client and no second process: aiohttp's handlers are coroutines on the loop that
runs the buttons, the journal and the panel. The listening socket is made here (no address
look-up, so no resolver thread), and the server is started and closed by whoever runs the device
(:func:`firmware_host.cli.main.cmd_run`, the simulator). It sees the table through
:class:`~firmware_host.web.door.TableDoor` only.

- **Routes** are one explicit table (:meth:`Companion.routes`), each with its role: ``read``
  (anyone on the network), ``pair`` (sends a one-time code) or ``paired`` (needs the pairing
  cookie and the page's own ``Origin``).
- **Errors** are one envelope, ``{"ok": false, "result": {"error": CLASS, "error_msg": TEXT}}``:
  400 for a validator's refusal, 401 unpaired, 403 a wrong origin or a revoked phone, 404, 405,
  413 a body over :data:`MAX_BODY`, 429 an address over its rate (:mod:`~firmware_host.web.ratelimit`:
  one machine's flood is slowed on a timer, so it cannot take the loop from the buttons). Answers
  that succeed are the data itself (the contract's ``/api/state`` has ``players`` at the top).
- **One WebSocket** ``/ws`` carries ``{"event_type": ..., "event": {...}}``: ``state`` (the whole
  snapshot) to a new client, then ``state_diff`` (the top-level keys that changed). Each client
  has a queue of one: only the newest snapshot waits, so a slow phone never holds the others,
  and one that does not take a frame within :data:`SEND_TIMEOUT` is dropped (its page
  reconnects). aiohttp's heartbeat pings every :data:`HEARTBEAT` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import math
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from firmware_host.core.config import TIMER_SOUNDS
from firmware_host.core.i18n import LANGUAGES
from firmware_host.core.limits import parse_json
from firmware_host.core.validators import (
    SEATS,
    ValidatorError,
    check_bool,
    check_choice,
    check_code,
    check_game,
    check_history_id,
    check_int,
    check_player,
    check_seat_names,
    check_token,
)
from firmware_host.web import bgstats, plays
from firmware_host.web.door import TableDoor
from firmware_host.web.gate import Gate, connection_budget, group
from firmware_host.web.ratelimit import PAIR_BURST, PAIR_RATE, Budget, RateLimit

log = logging.getLogger(__name__)

COOKIE = "tablemate_phone"
COOKIE_SECONDS = 400 * 86400
MAX_BODY = 8 * 1024
"""The largest request body read (names and settings need a few hundred bytes)."""
MAX_FRAME = 1024
"""The largest WebSocket frame read from a client (the page sends none but pings)."""
MAX_CLIENTS = 256
"""WebSocket clients served at once; one more gets a 503."""
MAX_SCREENS_PER_GROUP = 8
"""WebSocket clients one address (one IPv6 /64) may have at once; one more gets a 503."""
SEND_TIMEOUT = 5.0
"""Seconds a client may take to take one frame before it is dropped."""
HEARTBEAT = 30.0
"""Seconds between WebSocket pings (a phone that went away is noticed)."""
FAN_OUT = 16
"""Screens handed a new state per loop turn."""
BAD_FRAMES = 20
"""Malformed frames a client may send before it is closed."""
FRAME_RATE = 2.0
"""Frames a second a WebSocket client may send on average (its pings, WebSocket pings included:
a scoreboard sends almost none); one over its budget is closed (1008)."""
FRAME_BURST = 20
"""Frames a client may send at once within its budget."""
MAX_HELD = 256
KEEPALIVE = 15.0
"""Seconds an idle keep-alive connection is kept (a page's next request comes sooner)."""
BODY_SECONDS = 10.0
"""Seconds a request's body may take to arrive (8 KB at most)."""
MAX_LINE = 4096
"""The longest request line or header field read (aiohttp's default is 8190)."""
"""Requests held for their token at once (all addresses); one more over its rate is refused at once."""
READ, PAIR, PAIRED = "read", "pair", "paired"
PAGES = {"/": "board.html", "/history": "history.html", "/rules": "rules.html", "/phone": "phone.html"}
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"
ERRORS = {
    400: "ValidatorError",
    401: "UnpairedError",
    403: "ForbiddenError",
    404: "NotFoundError",
    405: "MethodNotAllowedError",
    408: "TimeoutError",
    413: "TooLargeError",
    421: "MisdirectedError",
    415: "UnsupportedMediaError",
    429: "TooManyRequestsError",
    503: "BusyError",
}


class QuietBadRequests(logging.Filter):
    """aiohttp logs every request it cannot parse (garbage, a bad chunk size, a NUL in the path)
    with a traceback at ERROR: noise any LAN client can make, filling the journal. Such a record
    becomes one line at DEBUG; aiohttp has already answered 400 and closed the connection."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep the record, quietened when it is an unparsable request."""
        from aiohttp.http_exceptions import HttpProcessingError

        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            record.msg, record.args = "bad request refused: %s", (str(exc.message).splitlines()[0][:120],)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def envelope(status: int, error: str, message: str, headers: dict[str, str] | None = None) -> web.Response:
    """The one error answer."""
    body = {"ok": False, "result": {"error": error, "error_msg": message}}
    return web.json_response(body, status=status, headers={"Cache-Control": "no-store", **(headers or {})})


class Refused(Exception):
    """A request refused with a status, a class and a sentence."""

    def __init__(
        self, status: int, message: str, error: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.error = status, error or ERRORS.get(status, "Error")
        self.headers = headers


@dataclass(frozen=True)
class Route:
    """One line of the route table."""

    method: str
    path: str
    role: str
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]]


class Client:
    """One WebSocket client and its queue of one (the newest snapshot)."""

    def __init__(self, ws: web.WebSocketResponse, key: str = "") -> None:
        self.ws = ws
        self.key = key
        """The address (IPv6: the /64) it came from."""
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


def _static(name: str) -> bytes:
    return (resources.files("firmware_host.web") / "static" / name).read_bytes()


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening, non-blocking TCP socket (no name look-up: ``host`` is an address)."""
    family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


LISTEN_FDS_START = 3
"""The first file descriptor systemd hands a socket-activated service (``sd_listen_fds``)."""


def handed_socket() -> socket.socket | None:
    """The listening socket systemd opened for the page (``tablemate.socket``: port 80, so the
    service needs no capability), or ``None``. Taken once: the variables are removed, as
    ``sd_listen_fds(1)`` does, so nothing started later takes them for its own."""
    import os

    fds, pid = os.environ.get("LISTEN_FDS"), os.environ.get("LISTEN_PID")
    if not fds or pid != str(os.getpid()) or not fds.isdigit() or int(fds) < 1:
        return None
    for name in ("LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)
    try:
        sock = socket.socket(fileno=LISTEN_FDS_START)
    except OSError:
        return None
    if sock.type != socket.SOCK_STREAM:
        sock.detach()
        return None
    sock.setblocking(False)
    return sock


def lan_address(bind: str) -> str:
    """The address a phone on the LAN reaches the device at (its IP, not ``.local``)."""
    if bind not in ("0.0.0.0", "::"):
        return bind
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 9))  # a UDP "connect" sends nothing: it only picks the route
        return probe.getsockname()[0]
    return "127.0.0.1"


def plain_address(text: str) -> str:
    """An address as ``Host`` gives it: no zone, IPv4-mapped IPv6 as IPv4, compressed, lower case."""
    text = text.split("%", 1)[0].lower()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text.rstrip(".")
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def split_host(value: str) -> tuple[str | None, int | None]:
    """``Host``'s name (see :func:`plain_address`) and port; ``(None, None)`` when it is not one."""
    value = value.strip()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            return None, None
    else:
        name, _, port = value.partition(":") if value.count(":") <= 1 else (value, "", "")
        port = port or None
    if not name or len(value) > 300 or (port is not None and not (port.isdigit() and len(port) <= 5)):
        return None, None
    return plain_address(name), int(port) if port is not None else None


def own_names(bind: str) -> set[str]:
    """The names of this device that need no look-up: ``localhost``, its host name and
    ``NAME.local``, loopback, the bind and LAN addresses (the address each request came to is
    added per request)."""
    host = socket.gethostname().lower().rstrip(".")
    names = {"localhost", "127.0.0.1", "::1", host, f"{host.split('.')[0]}.local", f"{host}.local"}
    for address in (bind, lan_address(bind)):
        if address not in ("0.0.0.0", "::"):
            names.add(plain_address(address))
    return names


class Companion:
    """The page's server on the running loop: :meth:`start`, :meth:`url`, :meth:`close`."""

    def __init__(
        self,
        door: TableDoor,
        bind: str = "0.0.0.0",
        port: int = 8080,
        limit: RateLimit | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.door = door
        self.pair_limit = RateLimit(PAIR_RATE, PAIR_BURST, max_wait=0.0)
        """Each address's pairing tries (one address's guessing slows only itself)."""
        self.budget = Budget()
        """The page's answers a second, all addresses together (:class:`~firmware_host.web.ratelimit.Budget`)."""
        self.gate = gate or Gate()
        """The caps on connections and the deadline for a request's head (:mod:`firmware_host.web.gate`)."""
        self._sock: socket.socket | None = None
        self._names: set[str] = own_names(bind)
        """The names ``Host`` may give (see :meth:`_own_host`)."""
        self._stop_accepting: Callable[[], None] | None = None
        self.limit = limit or RateLimit()
        """Each address's rate (a flood is slowed on a timer; see :mod:`firmware_host.web.ratelimit`)."""
        self._held = 0
        self.bind, self.port = bind, port
        self.clients: set[Client] = set()
        self._tasks: set[asyncio.Task] = set()
        self._last: dict[str, Any] | None = None
        self._queued = False
        self._unwatch: Callable[[], None] | None = None
        self._runner: web.AppRunner | None = None
        self._files: dict[str, bytes] = {}
        self._plots: dict[tuple[Any, ...], str] = {}
        self._history_plays: tuple[list[dict[str, Any]], list[plays.Play]] | None = None
        """The door's history and its plays (kept while the door hands the same list)."""
        self._history_bodies: dict[tuple[str | None, str | None], tuple[list[plays.Play], bytes]] = {}
        """``/api/history``'s bodies by filter, with the plays they were made of."""
        self._made: dict[tuple[int, int], str | None] = {}
        """Frames made since the last snapshot, shared by the clients (see :meth:`Client.next_message`)."""
        self._snapshot: dict[str, Any] | None = None
        """The snapshot since the last change shown (``None``: ask the device again)."""
        self._state_body: tuple[dict[str, Any], bytes] | None = None
        """``/api/state``'s body and the snapshot it was made of."""
        self.app = web.Application(
            client_max_size=MAX_BODY, middlewares=[self._doorway, self._errors, self._limit, self._headers]
        )
        for route in self.routes():
            self.app.router.add_route(route.method, route.path, self._guard(route))

    # -- the route table ----------------------------------------------------------------------------
    def routes(self) -> list[Route]:
        """Every route with its role (``read``: anyone; ``pair``: a code; ``paired``: a paired phone)."""
        return [
            *(Route("GET", path, READ, self.page) for path in PAGES),
            Route("GET", "/pair", READ, self.page),
            Route("GET", "/P/{code}", READ, self.page),  # the QR code's form of /pair?code= (alphanumeric mode)
            Route("GET", "/static/{name}", READ, self.static),
            Route("GET", "/favicon.ico", READ, self.no_icon),
            Route("GET", "/ws", READ, self.websocket),
            Route("GET", "/api/state", READ, self.api_state),
            Route("GET", "/api/me", READ, self.api_me),
            Route("GET", "/api/games", READ, self.api_games),
            Route("GET", "/api/history", READ, self.api_history),
            Route("GET", "/api/history.json", READ, self.api_history_json),
            Route("GET", "/api/history.csv", READ, self.api_history_csv),
            Route("GET", "/api/history.bgsplay", READ, self.api_bgsplay),
            Route("GET", "/api/history/{id}/bgstats", READ, self.api_bgstats),
            Route("GET", "/api/stats", READ, self.api_stats),
            Route("GET", "/api/plots/{kind}.svg", READ, self.api_plot),
            Route("GET", "/api/rules", READ, self.api_rules),
            Route("POST", "/api/pair", PAIR, self.api_pair),
            Route("POST", "/api/names", PAIRED, self.api_names),
            Route("POST", "/api/settings", PAIRED, self.api_settings),
            Route("POST", "/api/timers", PAIRED, self.api_timers),
            Route("POST", "/api/clock", PAIRED, self.api_clock),
        ]

    def _guard(self, route: Route) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def guarded(request: web.Request) -> web.StreamResponse:
            if route.role in (PAIR, PAIRED):
                self._check_origin(request)
            if route.role == PAIRED:
                token = check_token(request.cookies.get(COOKIE))
                if token is None:
                    raise Refused(401, "pair this phone first: on the table, Main menu → Phone")
                if not self.door.phone_paired(token):
                    raise Refused(403, "this phone is not paired (any more): pair it again from the table")
            return await route.handler(request)

        return guarded

    @staticmethod
    def _check_origin(request: web.Request, required: bool = True) -> None:
        origin, host = request.headers.get("Origin"), request.headers.get("Host")
        if origin is None and not required:
            return
        if not origin or not host or origin not in (f"http://{host}", f"https://{host}"):
            raise Refused(403, "a change must come from the table's own page (Origin does not match)")

    # -- middlewares ------------------------------------------------------------------------------------
    @web.middleware
    async def _doorway(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """A request's head has come: its connection's header deadline stops until it is answered.
        Only the device's own names are served (a page elsewhere whose name was pointed at the
        device, DNS rebinding, gets 421 on every route)."""
        self.gate.began(request.transport)
        try:
            if not self._own_host(request):
                return envelope(421, ERRORS[421], "this is the table's page: ask for it by the table's name or address")
            return await handler(request)
        finally:
            self.gate.answered(request.transport)

    def _own_host(self, request: web.Request) -> bool:
        """Whether ``Host`` names this device: the address the request came to, the page's own
        address, ``localhost``, the host name or the host name with ``.local`` (any case, a
        trailing dot allowed), with this page's port or none."""
        name, port = split_host(request.headers.get("Host", ""))
        if name is None or (port is not None and port != self.port):
            return False
        if name in self._names:
            return True
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        return bool(sockname) and name == plain_address(str(sockname[0]))

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            return await handler(request)
        except ValidatorError as exc:
            return envelope(400, "ValidatorError", str(exc))
        except Refused as exc:
            return envelope(exc.status, exc.error, str(exc), exc.headers)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            text = exc.reason if exc.status != 413 else f"the body is larger than {MAX_BODY} bytes"
            return envelope(exc.status, ERRORS.get(exc.status, "HTTPError"), text)
        except (asyncio.CancelledError, ConnectionError):
            raise
        except Exception:
            log.exception("%s %s failed", request.method, request.path[:100])
            return envelope(500, "InternalError", "the table could not answer this; it goes on")

    @web.middleware
    async def _limit(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Hold a request until its address's token is due (a timer: no work for the loop), then
        until the page's budget has room for it (addresses served in turn); refuse it (429) when
        it would wait longer than the limit's ``max_wait`` or its address has too many waiting."""
        key = group(request.remote or "")
        wait = self.limit.reserve(key, asyncio.get_running_loop().time())
        if wait is None or (wait > 0 and self._held >= MAX_HELD):
            raise self._too_many("too many requests from this address: the table answers them more slowly, try again")
        if wait > 0:
            self._held += 1
            try:
                await asyncio.sleep(wait)
            finally:
                self._held -= 1
        turn = self.budget.ask(key)
        if turn is not True and (turn is None or not await turn):
            raise self._too_many("the table is answering many requests: try again in a moment")
        return await handler(request)

    def _too_many(self, message: str) -> Refused:
        self.gate.tally.note("requests refused (429)")
        return Refused(429, message, headers={"Retry-After": str(max(1, math.ceil(self.limit.max_wait)))})

    @web.middleware
    async def _headers(self, request: web.Request, handler: Any) -> web.StreamResponse:
        response = await handler(request)
        if not response.prepared:
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("Referrer-Policy", "no-referrer")
            response.headers.setdefault("Content-Security-Policy", CSP)
        return response

    # -- life -------------------------------------------------------------------------------------------
    async def start(self, sock: socket.socket | None = None) -> None:
        """Listen on ``sock`` (handed over by systemd) or on ``bind``:``port`` (raises OSError when
        the port cannot be had), and follow the table's changes."""
        bad = logging.getLogger("aiohttp.server")
        if not any(isinstance(f, QuietBadRequests) for f in bad.filters):
            bad.addFilter(QuietBadRequests())
        if sock is None:
            sock = listening_socket(self.bind, self.port)
        self.port = sock.getsockname()[1]
        self._runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=1.0,
            keepalive_timeout=KEEPALIVE,
            max_line_size=MAX_LINE,
            max_field_size=MAX_LINE,
            lingering_time=2.0,
        )
        await self._runner.setup()
        assert self._runner.server is not None
        self.gate.max_total = connection_budget(self.gate.max_total)
        self._sock = sock
        self._stop_accepting = self.gate.serve(sock, self._runner.server)
        self._unwatch = self.door.watch(self._changed)

    def url(self) -> str:
        """The page's address on the LAN, ending in ``/``."""
        host = lan_address(self.bind)
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}/" if self.port == 80 else f"http://{host}:{self.port}/"

    async def close(self) -> None:
        """Drop every client and stop listening."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        for client in list(self.clients):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.ws.close(), 1.0)
        if self._stop_accepting is not None:
            self._stop_accepting()
            self._stop_accepting = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- live updates -------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The table's snapshot, made once per change shown whoever asks (the API, every screen)."""
        if self._snapshot is None:
            self._snapshot = self.door.snapshot()
        return self._snapshot

    def _changed(self) -> None:
        """The device drew a frame: publish a snapshot soon, once per loop turn, if anyone listens."""
        self._snapshot = None
        if self.clients and not self._queued:
            self._queued = True
            asyncio.get_running_loop().call_soon(self._publish)

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
        self._check_origin(request, required=False)  # a browser always sends it; another site's page is refused
        if len(self.clients) >= MAX_CLIENTS:
            raise Refused(503, f"already {MAX_CLIENTS} screens follow the table")
        key = group(request.remote or "")
        if sum(1 for c in self.clients if c.key == key) >= MAX_SCREENS_PER_GROUP:
            raise Refused(503, f"already {MAX_SCREENS_PER_GROUP} screens at this address follow the table")
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_FRAME, compress=False, autoping=False)
        await ws.prepare(request)
        client = Client(ws, key)
        self.clients.add(client)
        client.offer(self.snapshot())
        sender = asyncio.create_task(self._send(client), name="ws-send")
        frames = RateLimit(FRAME_RATE, FRAME_BURST, max_wait=0.0, max_addresses=1)
        loop = asyncio.get_running_loop()
        bad = 0
        try:
            async for msg in ws:
                if frames.reserve("", loop.time()) is None:
                    self.gate.tally.note("WebSocket clients closed over their frame budget")
                    self.gate.ban(key)
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(code=1008, message=b"too many frames"), 1.0)
                    break
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
            frame = parse_json(data)
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

    # -- pages --------------------------------------------------------------------------------------------
    def _file(self, name: str) -> bytes:
        if name not in self._files:
            self._files[name] = _static(name)
        return self._files[name]

    async def page(self, request: web.Request) -> web.StreamResponse:
        """An HTML page (scoreboard, history, rules, phone, pairing)."""
        name = PAGES.get(request.path, "phone.html")
        return web.Response(
            body=self._file(name), content_type="text/html", charset="utf-8", headers={"Cache-Control": "no-cache"}
        )

    async def no_icon(self, request: web.Request) -> web.StreamResponse:
        """No icon (a browser asks for one on every first load)."""
        return web.Response(status=204, headers={"Cache-Control": "max-age=86400"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        """A script or style of the page (served from the package, never from the internet)."""
        name = request.match_info["name"]
        kind = next((t for ext, t in STATIC_TYPES.items() if name.endswith(ext)), None)
        if kind is None or "/" in name or name.startswith(".") or len(name) > 40:
            raise Refused(404, "no such file")
        try:
            body = self._file(name)
        except (OSError, ValueError):
            raise Refused(404, "no such file") from None
        return web.Response(body=body, content_type=kind, headers={"Cache-Control": "no-cache"})

    # -- reading ----------------------------------------------------------------------------------------
    async def api_state(self, request: web.Request) -> web.StreamResponse:
        """The table now: the snapshot (``players`` with ``name`` and ``score``…)."""
        snap = self.snapshot()
        if self._state_body is None or self._state_body[0] is not snap:  # serialised once per change, not per ask
            self._state_body = (snap, json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode())
        return web.Response(
            body=self._state_body[1],
            content_type="application/json",
            charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )

    async def api_me(self, request: web.Request) -> web.StreamResponse:
        """Whether this phone is paired."""
        token = check_token(request.cookies.get(COOKIE))
        return web.json_response({"paired": self.door.phone_paired(token)}, headers={"Cache-Control": "no-store"})

    async def api_games(self, request: web.Request) -> web.StreamResponse:
        """The games the table keeps the books of (id and title)."""
        from games import ENGINES, TITLES

        return web.json_response({"games": [{"id": g, "title": TITLES[g]} for g in ENGINES]})

    @staticmethod
    def _filters(request: web.Request) -> tuple[str | None, str | None]:
        from games import ENGINES

        query = request.query
        game = check_game(query["game"], tuple(ENGINES)) if query.get("game") else None
        player = check_player(query["player"]) if query.get("player") else None
        return game, player

    def _plays(self, request: web.Request) -> list[plays.Play]:
        return plays.select(self._all_plays(), *self._filters(request))

    def _all_plays(self) -> list[plays.Play]:
        """The history as plays, made again only when the door hands a new history."""
        history = self.door.history()
        if self._history_plays is None or self._history_plays[0] is not history:
            self._history_plays = (history, plays.plays(history))
        return self._history_plays[1]

    async def api_history(self, request: web.Request) -> web.StreamResponse:
        """Finished games, newest first, filtered by ``game`` and ``player``; each with its BG Stats
        link. Made off the loop (thousands of games take a good part of a second on a Pi) and kept
        until the history changes."""
        filters = self._filters(request)
        all_plays = self._all_plays()
        kept = self._history_bodies.get(filters)
        if kept is None or kept[0] is not all_plays:
            chosen = plays.select(all_plays, *filters)
            body = await asyncio.get_running_loop().run_in_executor(None, _history_body, chosen)
            if len(self._history_bodies) > 64:
                self._history_bodies.clear()
            kept = self._history_bodies[filters] = (all_plays, body)
        return web.Response(
            body=kept[1], content_type="application/json", charset="utf-8", headers={"Cache-Control": "no-store"}
        )

    async def api_history_json(self, request: web.Request) -> web.StreamResponse:
        """The whole (filtered) history as a JSON download."""
        body = json.dumps([p.to_json() for p in self._plays(request)], ensure_ascii=False, indent=1)
        return self._download(body, "tablemate-history.json", "application/json")

    async def api_history_csv(self, request: web.Request) -> web.StreamResponse:
        """The whole (filtered) history as a CSV download, one line per player of each game."""
        return self._download(plays.to_csv(self._plays(request)), "tablemate-history.csv", "text/csv")

    async def api_bgsplay(self, request: web.Request) -> web.StreamResponse:
        """The whole history as a BG Stats play file."""
        now = time.strftime("%Y-%m-%d %H:%M:%S")
        body = json.dumps(bgstats.play_file(self._plays(request), now), ensure_ascii=False)
        return self._download(body, "tablemate.bgsplay", "application/json")

    @staticmethod
    def _download(body: str, name: str, kind: str) -> web.Response:
        headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
        return web.Response(text=body, content_type=kind, charset="utf-8", headers=headers)

    async def api_bgstats(self, request: web.Request) -> web.StreamResponse:
        """One finished game's BG Stats deep link."""
        ident = check_history_id(request.match_info["id"])
        play = next((p for p in self._all_plays() if p.id == ident), None)
        if play is None:
            raise Refused(404, f"no finished game {ident}")
        return web.json_response({"url": bgstats.deep_link(play), "play": bgstats.play_data(play)})

    async def api_stats(self, request: web.Request) -> web.StreamResponse:
        """Per player and game: plays, wins, win rate, average and best score, turn times; and
        ``plots``, the plots that have something to draw (the page says why for the others)."""
        from firmware_host.web.plots import drawable

        chosen = self._plays(request)
        return web.json_response({"players": plays.player_stats(chosen), "plots": drawable(chosen)})

    async def api_plot(self, request: web.Request) -> web.StreamResponse:
        """A plot of the (filtered) history as SVG, drawn off the loop and kept until the history changes."""
        from firmware_host.web.plots import KINDS, draw

        kind = check_choice(request.match_info["kind"], KINDS, "plot")
        chosen = self._plays(request)
        key = (
            kind,
            request.query.get("game"),
            request.query.get("player"),
            len(chosen),
            chosen[-1].id if chosen else None,
            request.query.get("lang"),
        )
        svg = self._plots.get(key)
        if svg is None:
            titles = {"scores": "Scores", "wins": "Wins", "turns": "Average turn (s)", "places": "Places (all games)"}
            if request.query.get("lang") == "de":
                titles = {
                    "scores": "Punkte",
                    "wins": "Siege",
                    "turns": "Zug im Schnitt (s)",
                    "places": "Plätze (alle Spiele)",
                }
            loop = asyncio.get_running_loop()
            svg = await loop.run_in_executor(None, draw, kind, chosen, titles[kind], titles["places"])
            if len(self._plots) > 64:
                self._plots.clear()
            self._plots[key] = svg
        return web.Response(
            text=svg,
            content_type="image/svg+xml",
            charset="utf-8",
            headers={"Content-Security-Policy": SVG_CSP, "Cache-Control": "no-cache"},
        )

    async def api_rules(self, request: web.Request) -> web.StreamResponse:
        """A game's rules (the Rules screen's sections) in ``lang`` (default: the table's)."""
        from firmware_host.core.i18n import language
        from firmware_host.ui.rules import RulesError, load_rules
        from games import ENGINES

        game = check_game(request.query.get("game", ""), tuple(ENGINES))
        lang = check_choice(request.query.get("lang", language()), LANGUAGES, "lang")
        try:
            sections = load_rules(game, lang)
        except RulesError:
            sections = ()
        body = {
            "game": game,
            "lang": lang,
            "sections": [{"key": s.key, "title": s.title, "text": s.text} for s in sections],
        }
        return web.json_response(body)

    # -- writing ----------------------------------------------------------------------------------------
    @staticmethod
    async def _json(request: web.Request) -> Any:
        try:
            async with asyncio.timeout(BODY_SECONDS):
                raw = await request.read()
        except TimeoutError:
            raise Refused(408, f"the body did not arrive within {BODY_SECONDS:g} s") from None
        try:
            return parse_json(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ValidatorError("body: expected a JSON object") from None

    async def api_pair(self, request: web.Request) -> web.StreamResponse:
        """Pair this phone with the code the table shows: sets the HttpOnly, SameSite=Strict cookie.
        A wrong code voids nothing (see :mod:`firmware_host.core.pairing`); an address sending
        codes faster than a person types them is refused (429) on its own."""
        if self.pair_limit.reserve(group(request.remote or ""), asyncio.get_running_loop().time()) is None:
            raise self._too_many("too many pairing codes from this address: wait a second and type it again")
        body = await self._json(request)
        code = check_code(body.get("code") if isinstance(body, dict) else None)
        token = self.door.pair_phone(code)
        if token is None:
            raise Refused(403, "wrong or expired code: open Main menu → Phone on the table for a new one")
        response = web.json_response({"ok": True, "result": {"paired": True}})
        response.set_cookie(COOKIE, token, max_age=COOKIE_SECONDS, path="/", httponly=True, samesite="Strict")
        return response

    async def api_names(self, request: web.Request) -> web.StreamResponse:
        """Seat names, ``{"p1": "Ann", ...}``: kept, and shown on the table at once."""
        body = await self._json(request)
        current = {seat: self.door.seat_name(seat) for seat in SEATS}
        names = check_seat_names(body, current)
        self.door.set_names(names)
        return web.json_response({"ok": True, "result": {"names": {s: self.door.seat_name(s) for s in SEATS}}})

    async def api_settings(self, request: web.Request) -> web.StreamResponse:
        """Language, brightness, sound and timer beeps: all checked before any is changed."""
        body = await self._json(request)
        if not isinstance(body, dict) or not body:
            raise ValidatorError('settings: expected an object like {"language": "de"}')
        checks: dict[str, Callable[[Any], Any]] = {
            "language": lambda v: check_choice(v, LANGUAGES, "language"),
            "brightness": lambda v: check_int(v, 1, 255, "brightness"),
            "sound": lambda v: check_bool(v, "sound"),
            "timer_sound": lambda v: check_choice(v, TIMER_SOUNDS, "timer_sound"),
        }
        changes = {}
        for key, value in body.items():
            if key not in checks:
                raise ValidatorError(f"settings: unknown key (known: {', '.join(checks)})")
            changes[key] = checks[key](value)
        for key, value in changes.items():
            self.door.change_setting(key, value)
        return web.json_response({"ok": True, "result": changes})

    async def api_clock(self, request: web.Request) -> web.StreamResponse:
        """The phone's time, ``{"now_ms": Date.now()}``: a table whose clock never synced dates
        this boot's games by it (kept as an offset to the monotonic clock; the system clock is
        never set)."""
        from firmware_host.core.phone_clock import LATEST
        from firmware_host.core.wallclock import EARLIEST

        body = await self._json(request)
        now_ms = check_int(
            body.get("now_ms") if isinstance(body, dict) else None, int(EARLIEST * 1000), int(LATEST * 1000), "now_ms"
        )
        self.door.set_phone_time(now_ms / 1000)
        return web.json_response({"ok": True, "result": {"now_ms": now_ms}})

    async def api_timers(self, request: web.Request) -> web.StreamResponse:
        """A game's turn-timer preset, ``{"game": ..., "preset": {"mode": "turn", "seconds": 60}}``."""
        from firmware_host.timers.presets import PresetError, parse_preset, to_table
        from games import ENGINES

        body = await self._json(request)
        if not isinstance(body, dict):
            raise ValidatorError('timers: expected {"game": ..., "preset": {...}}')
        game = check_game(body.get("game"), tuple(ENGINES))
        try:
            preset = parse_preset(game, body.get("preset"))
        except PresetError as exc:
            raise ValidatorError(f"timers: {exc}") from None
        self.door.set_timer_preset(game, preset)
        return web.json_response({"ok": True, "result": {"game": game, "preset": to_table(preset)}})


def _history_body(chosen: list[plays.Play]) -> bytes:
    """``/api/history``'s body: the plays newest first, each with its BG Stats link."""
    games = [{**play.to_json(), "bgstats": bgstats.deep_link(play)} for play in reversed(chosen)]
    return json.dumps({"games": games, "count": len(games)}).encode()


async def start_page(door: TableDoor, settings: dict[str, Any]) -> Companion | None:
    """Start the page as the checked ``[web]`` section says (its port unset: the device's; the
    simulator's config sets its own), or ``None`` when it cannot listen: the table goes on."""
    from firmware_host.core.config import WEB_PORT

    port = settings["port"]
    companion = Companion(door, settings["bind"], port if port is not None else WEB_PORT)
    try:
        await companion.start(handed_socket())
    except OSError as exc:
        log.error(
            "companion page: cannot listen on %s port %s: %s", companion.bind, companion.port, exc.strerror or exc
        )
        return None
    log.info("companion page at %s", companion.url())
    return companion
