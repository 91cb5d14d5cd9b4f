"""The Trottelmütze board as data: field kinds, the default board, the Spielothek payouts.

The source names the fields but not their order, their number nor the Spielothek's winnings
(``docs/trottel.md``): the board and the payout table are configuration. The defaults here
are assumptions, and ``docs/trottel.md`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DRINKS = ("beer", "shot", "water")
LETTERS = {"beer": "B", "shot": "S", "water": "W"}

KINDS: dict[str, str] = {
    "schuettelbude": "Schuettelbude",
    "trottelmuetze": "Trottelmuetze",
    "stehtisch": "Stehtisch",
    "jail": "Jail",
    "kneipe": "Kneipe",
    "brennerei": "Brennerei",
    "parkbank": "Parkbank",
    "bier": "Sauf! 1 Bier",
    "kurzer": "Sauf! 1 Kurzen",
    "waa": "Willk. am Arsch",
    "arschloch": "Arschloch-Karte",
    "taxi": "Taxi",
    "daemmerschoppen": "Daemmerschoppen",
    "fruehschoppen": "Fruehschoppen",
    "teich": "Teich",
    "spielothek": "Spielothek",
    "pinkeln": "Pinkeln",
}
"""Field kind → how it reads on the screen (ASCII: the OLED font has no umlauts)."""

SHORT: dict[str, str] = {
    "schuettelbude": "Schuettelbude",
    "trottelmuetze": "Muetze",
    "stehtisch": "Stehtisch",
    "jail": "Jail",
    "kneipe": "Kneipe",
    "brennerei": "Brennerei",
    "parkbank": "Parkbank",
    "bier": "Bier",
    "kurzer": "Kurzer",
    "waa": "WaA",
    "arschloch": "Arschloch",
    "taxi": "Taxi",
    "daemmerschoppen": "Daemmer",
    "fruehschoppen": "Frueh",
    "teich": "Teich",
    "spielothek": "Spielothek",
    "pinkeln": "Pinkeln",
}
"""Field kind → a short name for the one-line account of a move."""

DEFAULT_BOARD: tuple[str, ...] = (
    "schuettelbude",
    "bier",
    "waa",
    "teich",
    "arschloch",
    "kneipe",
    "kurzer",
    "trottelmuetze",
    "parkbank",
    "waa",
    "jail",
    "bier",
    "spielothek",
    "arschloch",
    "fruehschoppen",
    "taxi",
    "stehtisch",
    "kurzer",
    "waa",
    "pinkeln",
    "brennerei",
    "bier",
    "arschloch",
    "daemmerschoppen",
    "trottelmuetze",
    "teich",
    "waa",
    "kneipe",
    "kurzer",
    "pinkeln",
    "arschloch",
    "bier",
)
"""An assumed board of 32 fields holding every kind at least once (index 0 the Schüttelbude)."""

DEFAULT_CASINO: dict[str, dict[str, Any]] = {
    "2": {"kind": "cap"},
    "3": {"kind": "drink", "drink": "shot"},
    "4": {"kind": "drink", "drink": "beer"},
    "5": {"kind": "drink", "drink": "water"},
    "6": {"kind": "drink", "drink": "shot"},
    "7": {"kind": "pee_pass"},
    "8": {"kind": "drink", "drink": "beer"},
    "9": {"kind": "drink", "drink": "water"},
    "10": {"kind": "drink", "drink": "beer"},
    "11": {"kind": "field_drink", "field": 0, "drink": "shot"},
    "12": {"kind": "drink", "drink": "shot"},
}
"""An assumed Spielothek payout table: dice total → effect on the roller (unless it names a player)."""

MIN_FIELDS, MAX_FIELDS = 2, 100

EFFECT_FIELDS: dict[str, tuple[str, ...]] = {
    "drink": ("drink",),
    "cap": (),
    "move": ("to",),
    "pee_pass": (),
    "field_drink": ("field", "drink"),
}
"""Effect kind → the fields it needs besides ``kind`` (``player`` is optional everywhere but
``field_drink``, which names no player)."""


def board_error(board: Any) -> str | None:
    """Why ``board`` is not a usable board, or ``None``."""
    if not isinstance(board, list) or not all(isinstance(k, str) for k in board):
        return "board must be a list of field kinds"
    if not MIN_FIELDS <= len(board) <= MAX_FIELDS:
        return f"board must have {MIN_FIELDS}–{MAX_FIELDS} fields, not {len(board)}"
    for i, kind in enumerate(board):
        if kind not in KINDS:
            return f"board field {i}: unknown kind {kind!r} (known: {', '.join(KINDS)})"
    if board[0] != "schuettelbude":
        return f"board field 0 must be the schuettelbude, not {board[0]!r}"
    return None


def _index_error(value: Any, name: str, fields: int) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{name!r} must be a field number"
    if not 0 <= value < fields:
        return f"{name!r} must be a field 0–{fields - 1}, not {value}"
    return None


def effect_error(effect: Mapping[str, Any], players: Sequence[str], fields: int, strict: bool) -> str | None:
    """Why ``effect`` (an ``effect`` action or a payout) is malformed, or ``None``.

    ``strict`` also refuses fields the kind does not use (for options, where a typo would
    otherwise pass unnoticed).
    """
    kind = effect.get("kind")
    if not isinstance(kind, str) or kind not in EFFECT_FIELDS:
        return f"effect kind must be one of {', '.join(EFFECT_FIELDS)}, not {kind!r}"
    needed = EFFECT_FIELDS[kind]
    for name in needed:
        if name not in effect:
            return f"a {kind} effect needs {name!r}"
    if strict:
        allowed = {"kind", *needed} | (set() if kind == "field_drink" else {"player"})
        extra = sorted(set(effect) - allowed - {"type"})
        if extra:
            return f"a {kind} effect has no field {extra[0]!r}"
    if "player" in effect and kind != "field_drink":
        player = effect["player"]
        if not isinstance(player, str) or player not in players:
            return f"unknown player {player!r}"
    if "drink" in needed and (not isinstance(effect["drink"], str) or effect["drink"] not in DRINKS):
        return f"drink must be beer, shot or water, not {effect['drink']!r}"
    for name in ("to", "field"):
        if name in needed:
            problem = _index_error(effect[name], name, fields)
            if problem:
                return problem
    return None


def casino_error(casino: Any, players: Sequence[str], fields: int) -> str | None:
    """Why ``casino`` is not a usable payout table, or ``None``."""
    if not isinstance(casino, dict):
        return "casino must be an object: dice total → effect"
    for total, effect in casino.items():
        if not (isinstance(total, str) and total.isdigit() and 2 <= int(total) <= 12 and str(int(total)) == total):
            return f"casino: {total!r} is not a dice total '2'..'12'"
        if not isinstance(effect, dict):
            return f"casino {total}: an effect is an object like {{'kind': 'drink', 'drink': 'beer'}}"
        problem = effect_error(effect, players, fields, strict=True)
        if problem:
            return f"casino {total}: {problem}"
    return None


def counts(drinks: Mapping[str, int]) -> str:
    """Drink counts written short: ``2B+S``, ``W``; empty when there are none."""
    parts = []
    for drink in DRINKS:
        n = drinks.get(drink, 0)
        if n:
            parts.append(f"{n if n > 1 else ''}{LETTERS[drink]}")
    return "+".join(parts)


def field_label(board: Sequence[str], index: int) -> str:
    """``12 Spielothek``: a field's number and name."""
    return f"{index} {KINDS[board[index]]}"
