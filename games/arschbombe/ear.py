"""Arschbombe said aloud: who jumped, how they landed and the jump's points."""

from __future__ import annotations

from collections.abc import Callable

from games.core import T, Text


def _points(n: int) -> Text:
    if n == 1:
        return T("scores one point")
    if n == -1:
        return T("loses one point")
    if n < 0:
        return T("loses {n} points", n=-n)
    return T("scores {n} points", n=n)


def _values(t: Text) -> dict[str, object]:
    """The jump line's values, its points said in words."""
    return {**t.values, "points": _points(t.values["points"])}


EAR: dict[str, Callable[[Text], Text]] = {
    "{player}: {jumper} special, {result} {points:+d}": lambda t: T(
        "{player}'s {jumper} special: {result}. {player} {points}.", **_values(t)
    ),
    "{player}: {jumper}, {result} {points:+d}": lambda t: T(
        "{player}'s {jumper}: {result}. {player} {points}.", **_values(t)
    ),
    "A on target": lambda t: T("on the target"),
    "B part cover": lambda t: T("partly covering a card"),
    "C full cover": lambda t: T("fully covering a card"),
    "D missed": lambda t: T("missed"),
    "Out/edge": lambda t: T("out or on the edge"),
    "Under + edge": lambda t: T("under a card and on the edge"),
}
"""The jump's line, said in full, and the landings whose labels are written short."""
