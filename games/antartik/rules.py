"""Which part of the rules (``rules.toml``) matters in a state of Antartik."""

from __future__ import annotations

from typing import Any


def section(state: Any, task: str | None = None) -> str:
    """The rules section for ``state`` (``task``, the table job on screen, is not used here):
    the parachute moment, a failed dive to go on with, the betting window, the dive itself,
    or the end."""
    if state.over:
        return "end"
    if state.chute is not None and state.chute in state.juniors:
        return "parachute"
    if state.dive and state.turned == 0:
        return "flop"
    diver = state.players[state.current]
    answered = set(state.betted) | set(state.passed)
    if any(p != diver and p not in answered for p in state.players):
        return "bets"
    return "dive"
