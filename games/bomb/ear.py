"""Bomb said aloud: each line of the panel as a sentence (``Ben: B3 F2 C0 boom -2`` → "Ben rolls
three bombs, two fuses and no card. Boom! Ben loses two lives.")."""

from __future__ import annotations

from collections.abc import Callable

from games.core import T, Text


def _count(n: int, none: Text, one: Text, many: Callable[[int], Text]) -> Text:
    return none if n == 0 else one if n == 1 else many(n)


def _roll(t: Text) -> Text:
    v = t.values
    return T(
        "{player} rolls {bombs}, {fuses} and {cards}.",
        player=v["player"],
        bombs=_count(v["bomb"], T("no bomb"), T("one bomb"), lambda n: T("{n} bombs", n=n)),
        fuses=_count(v["fuse"], T("no fuse"), T("one fuse"), lambda n: T("{n} fuses", n=n)),
        cards=_count(v["card"], T("no card"), T("one card"), lambda n: T("{n} cards", n=n)),
    )


def _lives(n: int) -> Text:
    return T("one life") if n == 1 else T("{n} lives", n=n)


EAR: dict[str, Callable[[Text], Text]] = {
    "{player}: SAFE": lambda t: T("{player} is safe.", player=t.values["player"]),
    "{player}: B{bomb} F{fuse} C{card} ok": lambda t: T("{roll} Nothing happens.", roll=_roll(t)),
    "{player}: B{bomb} F{fuse} C{card} boom -{lost}": lambda t: T(
        "{roll} Boom! {player} loses {lives}.", roll=_roll(t), player=t.values["player"], lives=_lives(t.values["lost"])
    ),
    "{player}: B{bomb} F{fuse} C{card} -{lost}, out!": lambda t: T(
        "{roll} Boom! {player} loses {lives} and is out.",
        roll=_roll(t),
        player=t.values["player"],
        lives=_lives(t.values["lost"]),
    ),
    "{player}: B{bomb} F{fuse} C{card} +1 life": lambda t: T(
        "{roll} Defused! {player} gains a life.", roll=_roll(t), player=t.values["player"]
    ),
    "{player}: B{bomb} F{fuse} C{card} +1 card": lambda t: T(
        "{roll} Defused! {player} draws a card.", roll=_roll(t), player=t.values["player"]
    ),
    "{player}: B{bomb} F{fuse} C{card} +{drawn} cards": lambda t: T(
        "{roll} Defused! {player} draws {drawn} cards.",
        roll=_roll(t),
        player=t.values["player"],
        drawn=t.values["drawn"],
    ),
}
"""The panel's roll lines, said in full (the other lines read well aloud as they are)."""
