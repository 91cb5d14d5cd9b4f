"""A phone and the table's settings: pairing, and what a paired phone may change.

Every change is a call the device's own menus make too, through the door, and is checked in full
before any of it is made. A wrong pairing code voids nothing (see :mod:`firmware_host.core.pairing`);
an address sending codes faster than a person types them is refused (429) on its own.

=====  ===============  ======  ==========================================
GET    /api/me          read    whether this phone is paired
POST   /api/pair        pair    the code the table shows → the cookie
POST   /api/names       paired  seat names
POST   /api/settings    paired  language, brightness, sound, timer beeps, the voice
POST   /api/timers      paired  a game's turn-timer preset
POST   /api/clock       paired  the phone's time, for an unsynced clock
=====  ===============  ======  ==========================================
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiohttp import web

from firmware_host.core.config import TIMER_SOUNDS, VOICE_CALLS
from firmware_host.core.i18n import LANGUAGES
from firmware_host.core.validators import (
    SEATS,
    ValidatorError,
    check_bool,
    check_choice,
    check_code,
    check_game,
    check_int,
    check_seat_names,
    check_token,
)
from firmware_host.web.door import TableDoor
from firmware_host.web.guards.ratelimit import PAIR_BURST, PAIR_RATE, RateLimit
from firmware_host.web.guards.shares import group
from firmware_host.web.routing import COOKIE, COOKIE_SECONDS, PAIR, PAIRED, READ, Refused, Route, read_json


class PhoneRoutes:
    """Pairing and the paired phone's changes, over the door."""

    def __init__(self, door: TableDoor, too_many: Callable[[str], Refused]) -> None:
        self.door = door
        self.too_many = too_many
        """The server's 429 (counted in its tally, with its ``Retry-After``)."""
        self.pair_limit = RateLimit(PAIR_RATE, PAIR_BURST, max_wait=0.0)
        """Each address's pairing tries (one address's guessing slows only itself)."""

    def routes(self) -> list[Route]:
        """This area's routes."""
        return [
            Route("GET", "/api/me", READ, self.api_me),
            Route("POST", "/api/pair", PAIR, self.api_pair),
            Route("POST", "/api/names", PAIRED, self.api_names),
            Route("POST", "/api/settings", PAIRED, self.api_settings),
            Route("POST", "/api/timers", PAIRED, self.api_timers),
            Route("POST", "/api/clock", PAIRED, self.api_clock),
        ]

    async def api_me(self, request: web.Request) -> web.StreamResponse:
        """Whether this phone is paired."""
        token = check_token(request.cookies.get(COOKIE))
        return web.json_response({"paired": self.door.phone_paired(token)}, headers={"Cache-Control": "no-store"})

    async def api_pair(self, request: web.Request) -> web.StreamResponse:
        """Pair this phone with the code the table shows: sets the HttpOnly, SameSite=Strict cookie.
        A wrong code voids nothing (see :mod:`firmware_host.core.pairing`); an address sending
        codes faster than a person types them is refused (429) on its own."""
        if self.pair_limit.reserve(group(request.remote or ""), asyncio.get_running_loop().time()) is None:
            raise self.too_many("too many pairing codes from this address: wait a second and type it again")
        body = await read_json(request)
        code = check_code(body.get("code") if isinstance(body, dict) else None)
        token = self.door.pair_phone(code)
        if token is None:
            raise Refused(403, "wrong or expired code: open Main menu → Phone on the table for a new one")
        response = web.json_response({"ok": True, "result": {"paired": True}})
        response.set_cookie(COOKIE, token, max_age=COOKIE_SECONDS, path="/", httponly=True, samesite="Strict")
        return response

    async def api_names(self, request: web.Request) -> web.StreamResponse:
        """Seat names, ``{"p1": "Ann", ...}``: kept, and shown on the table at once."""
        body = await read_json(request)
        current = {seat: self.door.seat_name(seat) for seat in SEATS}
        names = check_seat_names(body, current)
        self.door.set_names(names)
        return web.json_response({"ok": True, "result": {"names": {s: self.door.seat_name(s) for s in SEATS}}})

    async def api_settings(self, request: web.Request) -> web.StreamResponse:
        """Language, brightness, sound and timer beeps: all checked before any is changed."""
        body = await read_json(request)
        if not isinstance(body, dict) or not body:
            raise ValidatorError('settings: expected an object like {"language": "de"}')
        checks: dict[str, Callable[[Any], Any]] = {
            "language": lambda v: check_choice(v, LANGUAGES, "language"),
            "brightness": lambda v: check_int(v, 1, 255, "brightness"),
            "sound": lambda v: check_bool(v, "sound"),
            "timer_sound": lambda v: check_choice(v, TIMER_SOUNDS, "timer_sound"),
            "voice": lambda v: check_bool(v, "voice"),
            "voice_volume": lambda v: check_int(v, 0, 200, "voice_volume"),
            "voice_calls": lambda v: check_choice(v, VOICE_CALLS, "voice_calls"),
            "voice_game_calls": self._game_calls,
            "say_as": self._say_as,
        }
        changes = {}
        for key, value in body.items():
            if key not in checks:
                raise ValidatorError(f"settings: unknown key (known: {', '.join(checks)})")
            changes[key] = checks[key](value)
        for key, value in changes.items():
            self.door.change_setting(key, value)
        return web.json_response({"ok": True, "result": changes})

    def _game_calls(self, value: Any) -> dict[str, str]:
        """Each game's own voice calls, ``{"trottel": "results"}``, over the ones set before."""
        from games import ENGINES

        if not isinstance(value, dict) or len(value) > len(ENGINES):
            raise ValidatorError('voice_game_calls: expected an object like {"trottel": "results"}')
        calls = dict(self.door.snapshot()["settings"].get("voice_game_calls", {}))
        for game, chosen in value.items():
            calls[check_game(game, tuple(ENGINES))] = check_choice(chosen, VOICE_CALLS, "voice_game_calls")
        return calls

    def _say_as(self, value: Any) -> dict[str, str]:
        """How names are said, ``{"Siobhan": "Shivawn"}`` (``null`` or ``""``: as written), over
        the spellings set before."""
        from drivers.voice.names import Pronunciations, check_say_as

        if not isinstance(value, dict) or len(value) > 2 * len(SEATS):
            raise ValidatorError('say_as: expected an object of names like {"Siobhan": "Shivawn"}')
        said = Pronunciations(dict(self.door.snapshot()["settings"].get("say_as", {})))
        for name, spelling in value.items():
            if not isinstance(name, str) or not name.strip() or len(name) > 40:
                raise ValidatorError("say_as: expected names of 1 to 40 characters")
            try:
                said = said.with_spelling(name, check_say_as(spelling) if spelling else None)
            except ValueError as exc:
                raise ValidatorError(f"say_as: {name}: expected {exc}") from None
        return dict(said.say_as)

    async def api_clock(self, request: web.Request) -> web.StreamResponse:
        """The phone's time, ``{"now_ms": Date.now()}``: a table whose clock never synced dates
        this boot's games by it (kept as an offset to the monotonic clock; the system clock is
        never set)."""
        from firmware_host.core.phone_clock import LATEST
        from firmware_host.core.wallclock import EARLIEST

        body = await read_json(request)
        now_ms = check_int(
            body.get("now_ms") if isinstance(body, dict) else None, int(EARLIEST * 1000), int(LATEST * 1000), "now_ms"
        )
        self.door.set_phone_time(now_ms / 1000)
        return web.json_response({"ok": True, "result": {"now_ms": now_ms}})

    async def api_timers(self, request: web.Request) -> web.StreamResponse:
        """A game's turn-timer preset, ``{"game": ..., "preset": {"mode": "turn", "seconds": 60}}``."""
        from firmware_host.timers.presets import PresetError, parse_preset, to_table
        from games import ENGINES

        body = await read_json(request)
        if not isinstance(body, dict):
            raise ValidatorError('timers: expected {"game": ..., "preset": {...}}')
        game = check_game(body.get("game"), tuple(ENGINES))
        try:
            preset = parse_preset(game, body.get("preset"))
        except PresetError as exc:
            raise ValidatorError(f"timers: {exc}") from None
        self.door.set_timer_preset(game, preset)
        return web.json_response({"ok": True, "result": {"game": game, "preset": to_table(preset)}})
