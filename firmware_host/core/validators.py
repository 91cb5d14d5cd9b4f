"""Pure validators of what comes from the network (and the ``[web]`` config keys).

Each takes raw input and returns a typed value or raises :class:`ValidatorError`, whose message
is one line fit for the error envelope. Raw text is capped before it is looked at
(:data:`MAX_RAW`), so no validator takes long on a hostile input. The config file's ``[web]``
keys use the same functions as the API (:mod:`firmware_host.core.config`).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from firmware_host.core.limits import MAX_NAME_CHARS, InputError, check_name, quote

MAX_RAW = 256
"""The longest raw string any validator looks at."""
SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")
CODE_DIGITS = 12
"""Digits of a one-time pairing code (shown in three groups of four; see :mod:`firmware_host.core.pairing`)."""
TOKEN_CHARS = 64
"""Hex characters of a pairing token (32 random bytes)."""
_HISTORY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_GAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class ValidatorError(ValueError):
    """A refused input; the message names what was expected."""


def _raw(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValidatorError(f"{what}: expected a string")
    if len(value) > MAX_RAW:
        raise ValidatorError(f"{what}: longer than {MAX_RAW} characters")
    return value


def check_bool(value: Any, what: str = "value") -> bool:
    """``true``/``false`` (JSON booleans only)."""
    if not isinstance(value, bool):
        raise ValidatorError(f"{what}: expected true or false")
    return value


def check_int(value: Any, lo: int, hi: int, what: str = "value") -> int:
    """An integer from ``lo`` to ``hi`` (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValidatorError(f"{what}: expected an integer from {lo} to {hi}")
    return value


def check_port(value: Any) -> int:
    """A TCP port, 0 (any free port: tests) to 65535."""
    return check_int(value, 0, 65535, "port")


def check_address(value: Any) -> str:
    """An IPv4 or IPv6 address to listen on (``0.0.0.0``: every interface)."""
    raw = _raw(value, "address").strip()
    try:
        return str(ipaddress.ip_address(raw))
    except ValueError:
        raise ValidatorError(f"address: expected an IP address like 0.0.0.0 or 127.0.0.1, got {quote(raw)}") from None


def check_choice(value: Any, choices: tuple[str, ...], what: str = "value") -> str:
    """One of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValidatorError(f"{what}: expected one of " + ", ".join(choices))
    return value


def check_code(value: Any) -> str:
    """A pairing code: :data:`CODE_DIGITS` ASCII digits (spaces and dashes ignored)."""
    raw = _raw(value, "code").replace(" ", "").replace("-", "")
    if len(raw) != CODE_DIGITS or not raw.isascii() or not raw.isdigit():
        raise ValidatorError(f"code: expected {CODE_DIGITS} digits")
    return raw


def check_token(value: Any) -> str | None:
    """A pairing token from a cookie, or ``None`` when it is not one (never an error: it only fails)."""
    if not isinstance(value, str) or len(value) != TOKEN_CHARS:
        return None
    return value if all(c in "0123456789abcdef" for c in value) else None


def check_history_id(value: Any) -> str:
    """A finished game's id (letters, digits, ``-``, ``_``, ``.``; at most 64)."""
    raw = _raw(value, "id")
    if not _HISTORY_ID.match(raw) or ".." in raw:
        raise ValidatorError(f"id: expected a game id like 20260101T200000-a1b2c3, got {quote(raw)}")
    return raw


def check_game(value: Any, games: tuple[str, ...]) -> str:
    """A game id the device knows."""
    raw = _raw(value, "game")
    if not _GAME.match(raw) or raw not in games:
        raise ValidatorError("game: expected one of " + ", ".join(games))
    return raw


def check_player(value: Any) -> str:
    """A player name to filter by (the rules of a name)."""
    try:
        return check_name(_raw(value, "player"))
    except InputError as exc:
        raise ValidatorError(f"player: {exc}") from None


def check_seat_names(value: Any, current: dict[str, str]) -> dict[str, str]:
    """Seat names to set, ``{"p1": "Ann", ...}`` (the config file's rules: 1 to 20 printable
    characters, a known seat each, different names for different seats, counting the seats not
    named here at their ``current`` names). Returns the names stripped."""
    if not isinstance(value, dict) or not value:
        raise ValidatorError('names: expected an object of seat names, like {"p1": "Ann"}')
    if len(value) > len(SEATS):
        raise ValidatorError(f"names: at most {len(SEATS)} seats")
    names: dict[str, str] = {}
    for seat, name in value.items():
        if seat not in SEATS:
            raise ValidatorError(f"names: unknown seat {quote(seat, 10)} (known: {', '.join(SEATS)})")
        try:
            names[seat] = check_name(_raw(name, seat))
        except (InputError, ValidatorError):
            raise ValidatorError(f"names: {seat}: expected 1 to {MAX_NAME_CHARS} printable characters") from None
    merged = {**current, **names}
    seen: dict[str, str] = {}
    for seat in SEATS:
        if seat not in merged:
            continue
        key = merged[seat].casefold()
        if key in seen:
            raise ValidatorError(f"names: {seen[key]} and {seat} would both be {quote(merged[seat], 20)}")
        seen[key] = seat
    return names
