"""What every route of the page shares: the roles, the one error envelope, a route's line in its
area's table, and reading a request's JSON body.

- **Roles**: ``read`` (anyone on the network), ``pair`` (sends a one-time code) or ``paired``
  (needs the pairing cookie and the page's own ``Origin``); the server enforces them
  (:class:`firmware_host.web.server.Companion`), each area's table names them
  (:mod:`firmware_host.web.api`).
- **Errors** are one envelope, ``{"ok": false, "result": {"error": CLASS, "error_msg": TEXT}}``;
  a handler raises :class:`Refused` (or a :class:`~firmware_host.core.validators.ValidatorError`,
  400) and the server's middleware answers it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from firmware_host.core.limits import InputError, parse_json
from firmware_host.core.validators import ValidatorError

READ, PAIR, PAIRED = "read", "pair", "paired"
COOKIE = "tablemate_phone"
COOKIE_SECONDS = 400 * 86400
MAX_BODY = 8 * 1024
"""The largest request body read (names and settings need a few hundred bytes)."""
BODY_SECONDS = 10.0
"""Seconds a request's body may take to arrive (8 KB at most)."""
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

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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
    """One line of a route table."""

    method: str
    path: str
    role: str
    handler: Handler


def check_origin(request: web.Request, required: bool = True) -> None:
    """Refuse (403) a request whose ``Origin`` is not the page's own (absent: refused when ``required``)."""
    origin, host = request.headers.get("Origin"), request.headers.get("Host")
    if origin is None and not required:
        return
    if not origin or not host or origin not in (f"http://{host}", f"https://{host}"):
        raise Refused(403, "a change must come from the table's own page (Origin does not match)")


async def read_json(request: web.Request) -> Any:
    """The request's body as JSON (408 when it is slower than :data:`BODY_SECONDS`, 400 when not
    JSON or when an object names a key twice)."""
    try:
        async with asyncio.timeout(BODY_SECONDS):
            raw = await request.read()
    except TimeoutError:
        raise Refused(408, f"the body did not arrive within {BODY_SECONDS:g} s") from None
    try:
        return parse_json(raw.decode("utf-8"), unique_keys=True)
    except InputError as exc:
        raise ValidatorError(f"body: {exc}") from None
    except (UnicodeDecodeError, ValueError):
        raise ValidatorError("body: expected a JSON object") from None


def no_store(body: bytes, kind: str = "application/json") -> web.Response:
    """A body made once and served as it is, never cached by the browser."""
    return web.Response(body=body, content_type=kind, charset="utf-8", headers={"Cache-Control": "no-store"})
