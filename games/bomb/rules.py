"""Which part of the rules (``rules.toml``) matters in a state of ぼむ！ (Bomb)."""

from __future__ import annotations

from typing import Any


def section(state: Any, task: str | None = None) -> str:
    """The rules section for ``state`` (``task``, the table job on screen, is not used here):
    the cards, a defusal, a claim, or the end."""
    if state.over:
        return "end"
    if state.claim is not None:
        return "claim"
    return "defuse" if state.defusers else "cards"
