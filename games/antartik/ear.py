"""Antartik said aloud: cards by their names (``10R`` → "ten with a referee"), a turned card, a
belly flop, the bets won and lost, a parachute."""

from __future__ import annotations

from collections.abc import Callable

from games.antartik.cards import is_code, marks, number
from games.core import T, Text


def card(code: object) -> Text | object:
    """A card code said as words: its number and what it carries (``10R`` → "a 10 with a referee")."""
    if not is_code(code):
        return code
    n, extra = number(str(code)), marks(str(code))
    plain = T("a {n}", n=n) if n != 8 else T("an {n}", n=n)
    if "R" in extra:
        return T("{card} with a referee", card=plain)
    if "P" in extra:
        return T("{card} with a parachute", card=plain)
    if "S" in extra:
        return T("{card} with two stars", card=plain)
    return plain


def _cards(n: int) -> Text:
    return T("one card") if n == 1 else T("{n} cards", n=n)


def _bets(n: int) -> Text:
    return T("one bet") if n == 1 else T("{n} bets", n=n)


EAR: dict[str, Callable[[Text], Text]] = {
    "Time: {players} pass": lambda t: (
        T("Time is up: {players} pass.", players=t.values["players"])
        if len(getattr(t.values["players"], "values", ())) > 1
        else T("Time is up: {players} passes.", players=t.values["players"])
    ),
    "{player} bets {card}": lambda t: T(
        "{player} bets {card}.", player=t.values["player"], card=card(t.values["card"])
    ),
    "Flop! {diver} keeps {card}": lambda t: T(
        "Belly flop! {diver} turns {card} and keeps it. The bets are won.",
        diver=t.values["diver"],
        card=card(t.values["card"]),
    ),
    "{diver} turns {card} +{bets} bet": lambda t: T(
        "{diver} turns {card} and wins {bets}.",
        diver=t.values["diver"],
        card=card(t.values["card"]),
        bets=_bets(t.values["bets"]),
    ),
    "{diver} turns {card}": lambda t: T("{diver} turns {card}.", diver=t.values["diver"], card=card(t.values["card"])),
    "{diver}: new dive": lambda t: T("{diver} starts a new dive.", diver=t.values["diver"]),
    "Parachute! {player} +{cards}": lambda t: T(
        "Parachute! {player} gains {cards}.", player=t.values["player"], cards=_cards(t.values["cards"])
    ),
    "{player}: {card} up, +{drawn}": lambda t: T(
        "{player} lays {card} face up and draws {drawn}.",
        player=t.values["player"],
        card=card(t.values["card"]),
        drawn=card(t.values["drawn"]),
    ),
    "Winner: {players}": lambda t: T("The winner: {players}.", players=t.values["players"]),
}
"""The panel's short lines, said in full."""
