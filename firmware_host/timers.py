"""The turn-timer service: the runtime's clock feeds the game, the game never reads a clock.

This first version runs no timer (every game's default is "off"); the modes plug in here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware_host.device import Device


class TimerService:
    """Turn timers for the game in play."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def changed(self) -> None:
        """The game in play changed (an action, undo, a new or resumed game)."""

    def time_bar(self) -> float | None:
        """Remaining fraction of the active timer, for the bar beside the scores."""
        return None

    def history_extra(self) -> dict[str, Any]:
        """What the timer adds to a finished game's history entry (time per player)."""
        return {}
