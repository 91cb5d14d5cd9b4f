"""The Trottelmütze board as data: field kinds, the default board, the Spielothek payouts.

The source names the fields but not their order, their number nor the Spielothek's winnings
(``docs/trottel.md``): the board and the payout table are configuration. The defaults here
are assumptions, and ``docs/trottel.md`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core import T, Text, join

DRINKS = ("beer", "shot", "water")

DRINK_NAMES: dict[str, Text] = {"beer": T("Beer"), "shot": T("Shot"), "water": T("Water")}
"""Drink → its name on a menu line."""
DRINK_WORDS: dict[str, Text] = {"beer": T("beer"), "shot": T("shot"), "water": T("water")}
"""Drink → its name inside a sentence (``beer card on field 0``)."""

KINDS: dict[str, Text] = {
    "schuettelbude": T("Schuettelbude"),
    "trottelmuetze": T("Trottelmuetze"),
    "stehtisch": T("Stehtisch"),
    "jail": T("Jail"),
    "kneipe": T("Kneipe"),
    "brennerei": T("Brennerei"),
    "parkbank": T("Parkbank"),
    "bier": T("Sauf! 1 Bier"),
    "kurzer": T("Sauf! 1 Kurzen"),
    "waa": T("Willk. am Arsch"),
    "arschloch": T("Arschloch-Karte"),
    "taxi": T("Taxi"),
    "daemmerschoppen": T("Daemmerschoppen"),
    "fruehschoppen": T("Fruehschoppen"),
    "teich": T("Teich"),
    "spielothek": T("Spielothek"),
    "pinkeln": T("Pinkeln"),
}
"""Field kind → how it reads on the screen. The msgid spells umlauts out; both catalogues write
the board's own words (Schüttelbude, Dämmerschoppen…)."""

SHORT: dict[str, Text] = {
    "schuettelbude": T("Schuettelbude"),
    "trottelmuetze": T("Muetze"),
    "stehtisch": T("Stehtisch"),
    "jail": T("Jail"),
    "kneipe": T("Kneipe"),
    "brennerei": T("Brennerei"),
    "parkbank": T("Parkbank"),
    "bier": T("Bier"),
    "kurzer": T("Kurzer"),
    "waa": T("WaA"),
    "arschloch": T("Arschloch"),
    "taxi": T("Taxi"),
    "daemmerschoppen": T("Daemmer"),
    "fruehschoppen": T("Frueh"),
    "teich": T("Teich"),
    "spielothek": T("Spielothek"),
    "pinkeln": T("Pinkeln"),
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


def board_error(board: Any) -> Text | None:
    """Why ``board`` is not a usable board, or ``None``."""
    if not isinstance(board, list) or not all(isinstance(k, str) for k in board):
        return T("board must be a list of field kinds")
    if not MIN_FIELDS <= len(board) <= MAX_FIELDS:
        return T("board must have {low}–{high} fields, not {count}", low=MIN_FIELDS, high=MAX_FIELDS, count=len(board))
    for i, kind in enumerate(board):
        if kind not in KINDS:
            known = ", ".join(KINDS)
            return T("board field {field}: unknown kind {kind} (known: {known})", field=i, kind=repr(kind), known=known)
    if board[0] != "schuettelbude":
        return T("board field 0 must be the schuettelbude, not {kind}", kind=repr(board[0]))
    return None


def _index_error(value: Any, name: str, fields: int) -> Text | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return T("{name} must be a field number", name=repr(name))
    if not 0 <= value < fields:
        return T("{name} must be a field 0–{last}, not {value}", name=repr(name), last=fields - 1, value=value)
    return None


def effect_error(effect: Mapping[str, Any], players: Sequence[str], fields: int, strict: bool) -> Text | None:
    """Why ``effect`` (an ``effect`` action or a payout) is malformed, or ``None``.

    ``strict`` also refuses fields the kind does not use (for options, where a typo would
    otherwise pass unnoticed).
    """
    kind = effect.get("kind")
    if not isinstance(kind, str) or kind not in EFFECT_FIELDS:
        return T("effect kind must be one of {kinds}, not {kind}", kinds=", ".join(EFFECT_FIELDS), kind=repr(kind))
    needed = EFFECT_FIELDS[kind]
    for name in needed:
        if name not in effect:
            return T("a {kind} effect needs {name}", kind=kind, name=repr(name))
    if strict:
        allowed = {"kind", *needed} | (set() if kind == "field_drink" else {"player"})
        extra = sorted(set(effect) - allowed - {"type"})
        if extra:
            return T("a {kind} effect has no field {name}", kind=kind, name=repr(extra[0]))
    if "player" in effect and kind != "field_drink":
        player = effect["player"]
        if not isinstance(player, str) or player not in players:
            return T("unknown player {player}", player=repr(player))
    if "drink" in needed and (not isinstance(effect["drink"], str) or effect["drink"] not in DRINKS):
        return T("drink must be beer, shot or water, not {drink}", drink=repr(effect["drink"]))
    for name in ("to", "field"):
        if name in needed:
            problem = _index_error(effect[name], name, fields)
            if problem:
                return problem
    return None


def casino_error(casino: Any, players: Sequence[str], fields: int) -> Text | None:
    """Why ``casino`` is not a usable payout table, or ``None``."""
    if not isinstance(casino, dict):
        return T("casino must be an object: dice total → effect")
    for total, effect in casino.items():
        if not (isinstance(total, str) and total.isdigit() and 2 <= int(total) <= 12 and str(int(total)) == total):
            return T("casino: {total} is not a dice total '2'..'12'", total=repr(total))
        if not isinstance(effect, dict):
            return T("casino {total}: an effect is an object like {{'kind': 'drink', 'drink': 'beer'}}", total=total)
        problem = effect_error(effect, players, fields, strict=True)
        if problem:
            return T("casino {total}: {problem}", total=total, problem=problem)
    return None


def count(drink: str, n: int) -> Text:
    """``n`` of ``drink`` written short: ``2B``, ``S`` (one is the letter alone); German writes
    ``K`` for a Kurzer."""
    shown = str(n) if n > 1 else ""
    if drink == "beer":
        return T("{n}B", n=shown)
    if drink == "shot":
        return T("{n}S", n=shown)
    return T("{n}W", n=shown)


def counts(drinks: Mapping[str, int]) -> Text:
    """Drink counts written short: ``2B+S``, ``W``; empty when there are none."""
    return join([count(drink, drinks[drink]) for drink in DRINKS if drinks.get(drink, 0)], "+")


def field_label(board: Sequence[str], index: int) -> Text:
    """``12 Spielothek``: a field's number and name."""
    return join([str(index), KINDS[board[index]]], " ")
