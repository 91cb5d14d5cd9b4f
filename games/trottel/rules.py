"""Which part of the rules (``rules.toml``) matters in a state of Trottelmütze."""

from __future__ import annotations

from typing import Any

PENDING = {"invite": "schuettelbude", "taxi": "taxi", "casino": "spielothek"}
"""A field's choice still open → its section."""


def section(state: Any, task: str | None = None) -> str:
    """The rules section for ``state`` (``task``, the table job on screen, is not used here):
    the cap roll, an open field choice, a turn, or the end."""
    if state.over:
        return "end"
    if not state.started:
        return "cap"
    return PENDING.get(state.pending or "", "turn")
