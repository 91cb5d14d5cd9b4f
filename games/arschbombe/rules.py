"""Which part of the rules (``rules.toml``) matters in a state of Arschbombe."""

from __future__ import annotations

from typing import Any


def section(state: Any, task: str | None = None) -> str:
    """The rules section for ``state`` (``task``, the table job on screen, is not used here):
    a jump, or the end."""
    return "end" if state.over else "turn"
