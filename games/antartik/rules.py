"""Which part of the rules (``rules.toml``) matters in a state of Antartik."""

from __future__ import annotations

from typing import Any


def section(state: Any, task: str | None = None) -> str:
    """The rules section for ``state`` (``task``, the table job on screen, is not used here):
    the parachute moment, a failed dive to go on with, open bets, the dive itself, or the end.

    The others bet on their buttons while the diver chooses, so the betting window is open
    nearly always; the bets section is the place once a bet is open (its settling is what comes).
    """
    if state.over:
        return "end"
    if state.chute is not None and state.chute in state.juniors:
        return "parachute"
    if state.dive and state.turned == 0:
        return "flop"
    return "bets" if state.bets else "dive"
