"""Which part of the rules (``rules.toml``) matters in a state of Ab in die Tonne."""

from __future__ import annotations

from typing import Any


def section(state: Any, task: str | None = None) -> str:
    """The key of the rules section for ``state``, ``task`` the table job on screen if any: the
    bin (setting it up, emptying it), the cards, the placing, or the end."""
    if state.over:
        return "end"
    if task is not None and task.startswith("bin"):
        return "bin"
    return "placing" if state.phase == "place" else "cards"
