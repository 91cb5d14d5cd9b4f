"""The companion page's server: aiohttp on the device's own asyncio loop.

No thread per client and no second process: aiohttp's handlers are coroutines on the loop that
runs the buttons, the journal and the panel. The listening socket is made here (no address
look-up, so no resolver thread; :mod:`firmware_host.web.guards.net`), and the server is started and
closed by whoever runs the device (:func:`firmware_host.cli.cmd_play.cmd_run`, the simulator). It
sees the table through :class:`~firmware_host.web.door.TableDoor` only.

- **Routes** are one table per area (:mod:`firmware_host.web.api`: the state and ``/ws``; the
  history, plots and downloads; the phone, pairing and settings; the pages), each line with its
  role: ``read`` (anyone on the network), ``pair`` (sends a one-time code) or ``paired`` (needs
  the pairing cookie and the page's own ``Origin``). :meth:`Companion.routes` joins them and
  enforces the roles.
- **Errors** are one envelope, ``{"ok": false, "result": {"error": CLASS, "error_msg": TEXT}}``
  (:mod:`firmware_host.web.routing`): 400 for a validator's refusal, 401 unpaired, 403 a wrong
  origin or a revoked phone, 404, 405, 413 a body over :data:`~firmware_host.web.routing.MAX_BODY`,
  429 an address over its rate (:mod:`~firmware_host.web.guards.ratelimit`: one machine's flood is
  slowed on a timer, so it cannot take the loop from the buttons). Answers that succeed are the
  data itself (the contract's ``/api/state`` has ``players`` at the top).
- **One WebSocket** ``/ws`` (:mod:`firmware_host.web.api.live`): the whole state to a new
  client, then the keys that changed; each client has a queue of one.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from firmware_host.core.validators import ValidatorError, check_token
from firmware_host.web.api.history import HistoryRoutes
from firmware_host.web.api.live import Client, LiveState
from firmware_host.web.api.pages import PageRoutes
from firmware_host.web.api.phone import PhoneRoutes
from firmware_host.web.door import TableDoor
from firmware_host.web.guards.budget import Budget
from firmware_host.web.guards.gate import Gate, connection_budget
from firmware_host.web.guards.net import (
    handed_socket,
    lan_address,
    listening_socket,
    own_names,
    plain_address,
    split_host,
)
from firmware_host.web.guards.pacing import TurnShare
from firmware_host.web.guards.ratelimit import RateLimit
from firmware_host.web.guards.shares import group
from firmware_host.web.routing import (
    COOKIE,
    ERRORS,
    MAX_BODY,
    PAIR,
    PAIRED,
    Refused,
    Route,
    check_origin,
    envelope,
)

log = logging.getLogger(__name__)

MAX_HELD = 256
"""Requests held for their token at once (all addresses); one more over its rate is refused at once."""
KEEPALIVE = 15.0
"""Seconds an idle keep-alive connection is kept (a page's next request comes sooner)."""
MAX_LINE = 4096
"""The longest request line or header field read (aiohttp's default is 8190)."""
AFTER_429 = 1.0
"""Seconds a connection's next request waits after one of its requests was refused for its rate."""
MAX_HEADERS = 32
"""Header fields a request may have (a browser sends about fifteen; aiohttp's default is 128): with
:data:`MAX_LINE`, a request's head is 128 KB at most, and aiohttp queues 32 pipelined requests of
a connection at most."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _given_twice(keys: Any) -> str | None:
    """The first key ``keys`` name twice, or ``None``."""
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            return str(key)
        seen.add(key)
    return None


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
        self.budget = Budget()
        """The page's answers a second, all addresses together, the least answered address first
        (:class:`~firmware_host.web.guards.budget.Budget`)."""
        self.gate = gate or Gate()
        """The caps on connections and the deadline for a request's head (:mod:`firmware_host.web.guards.gate`)."""
        first = getattr(door, "precedence", None)
        self.gate.turns.first = first  # the table's presses go first (accepting goes on: a paused
        # accept let the kernel's queue overflow, and a new client's SYN was sent again a second later)
        self.turns = TurnShare(first=first)
        """A few requests begin per loop turn, the rest in the next (:mod:`firmware_host.web.guards.pacing`)."""
        self._sock: socket.socket | None = None
        self._names: set[str] = own_names(bind)
        """The names ``Host`` may give (see :meth:`_own_host`)."""
        self._stop_accepting: Callable[[], None] | None = None
        self.limit = limit or RateLimit()
        """Each address's rate (a flood is slowed on a timer; see :mod:`firmware_host.web.guards.ratelimit`)."""
        self._held = 0
        self.bind, self.port = bind, port
        self._unwatch: Callable[[], None] | None = None
        self._runner: web.AppRunner | None = None
        self.live = LiveState(door, self.gate)
        """The state and ``/ws`` (:mod:`firmware_host.web.api.live`)."""
        self.areas = (PageRoutes(), self.live, HistoryRoutes(door), PhoneRoutes(door, self._too_many))
        """Every area's routes, in the order they are added."""
        self.app = web.Application(
            client_max_size=MAX_BODY, middlewares=[self._doorway, self._errors, self._limit, self._headers]
        )
        for route in self.routes():
            self.app.router.add_route(route.method, route.path, self._guard(route))

    @property
    def clients(self) -> set[Client]:
        """The WebSocket clients following the table now."""
        return self.live.clients

    def snapshot(self) -> dict[str, Any]:
        """The table's snapshot, made once per change shown whoever asks (the API, every screen)."""
        return self.live.snapshot()

    # -- the route table ----------------------------------------------------------------------------
    def routes(self) -> list[Route]:
        """Every area's routes with their roles (``read``: anyone; ``pair``: a code; ``paired``: a paired phone)."""
        return [route for area in self.areas for route in area.routes()]

    def _guard(self, route: Route) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def guarded(request: web.Request) -> web.StreamResponse:
            if route.role in (PAIR, PAIRED):
                check_origin(request)
            if route.role == PAIRED:
                token = check_token(request.cookies.get(COOKIE))
                if token is None:
                    raise Refused(401, "pair this phone first: on the table, Main menu → Phone")
                if not self.door.phone_paired(token):
                    raise Refused(403, "this phone is not paired (any more): pair it again from the table")
            return await route.handler(request)

        return guarded

    # -- middlewares ------------------------------------------------------------------------------------
    @web.middleware
    async def _doorway(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """A request's head has come: its connection's header deadline stops until it is answered.
        It begins when the loop turn has room for it (:class:`~firmware_host.web.guards.pacing.TurnShare`).
        Only the device's own names are served (a page elsewhere whose name was pointed at the
        device, DNS rebinding, gets 421 on every route). A body announced over
        :data:`~firmware_host.web.routing.MAX_BODY` is refused (413) before a byte of it is read,
        and a query naming a key twice (400); a body left unread is never read (the gate mutes its
        connection, which closes after the answer)."""
        self.gate.began(request.transport)
        answer: web.StreamResponse | None = None
        try:
            await self.turns.begin()
            if not self._own_host(request):
                return envelope(421, ERRORS[421], "this is the table's page: ask for it by the table's name or address")
            if request.content_length is not None and request.content_length > MAX_BODY:
                self.gate.mute(request.transport)
                refused = envelope(413, ERRORS[413], f"the body is larger than {MAX_BODY} bytes")
                refused.force_close()
                return refused
            twice = _given_twice(key for key, _ in request.query.items())
            if twice is not None:
                return envelope(400, "ValidatorError", f"query: {twice!r} is given twice")
            answer = await handler(request)
            return answer
        finally:
            if not request.content.is_eof():
                self.gate.mute(request.transport)  # else aiohttp reads the rest to keep the connection
            # a request refused for its rate: the next one the connection sent ahead waits as long
            # as Retry-After says (a browser sends none ahead; a pipelining flood no longer cycles)
            later = AFTER_429 if answer is not None and answer.status == 429 else 0.0
            self.gate.answered(request.transport, later)

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
        except asyncio.CancelledError:
            raise
        except ConnectionError:
            # the client went away before its answer (a WebSocket handshake a storm gave up on):
            # nothing to log but the count; aiohttp's own path would log a traceback for each
            self.gate.tally.note("requests whose client went away before the answer")
            return web.Response(status=499)
        except Exception:
            log.exception("%s %s failed", request.method, request.path[:100])
            return envelope(500, "InternalError", "the table could not answer this; it goes on")

    @web.middleware
    async def _limit(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Hold a request until its address's token is due (a timer: no work for the loop), then
        until the page's budget has room for it (the least answered address first); refuse it (429) when
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
            await self.turns.begin()  # many held requests' times come together after the loop was held up
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
            max_headers=MAX_HEADERS,
            lingering_time=2.0,
        )
        await self._runner.setup()
        assert self._runner.server is not None
        self.gate.max_total = connection_budget(self.gate.max_total)
        self._sock = sock
        self._stop_accepting = self.gate.serve(sock, self._runner.server)
        self._unwatch = self.door.watch(self.live.changed)

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
        await self.live.close()
        if self._stop_accepting is not None:
            self._stop_accepting()
            self._stop_accepting = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


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
