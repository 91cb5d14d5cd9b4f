"""The turn timer's moments as the hub's events: the warning, each second of it, time out."""

from __future__ import annotations

from firmware_host.runtime.events import TimerCountdown, TimerExpired, TimerWarning
from firmware_host.runtime.hub import Hub

MOMENTS = {"warning": TimerWarning, "countdown": TimerCountdown}


class TimerNews:
    """Listens to the ``timers`` part, publishes its moments with the seat of the player whose
    clock it is (the ``game`` part's seats)."""

    def setup(self, hub: Hub) -> None:
        """Listen to the timers; name seats from the game in play."""
        self._publish = hub.publish
        self._game = hub.lookup("game")
        hub.lookup("timers").listen(self._told)

    def _told(self, moment: str, player: str | None, seconds_left: float, hard: bool) -> None:
        seats = self._game.seats
        seat = next((s for s, name in seats.items() if name == player), None) if player else None
        if moment == "expired":
            self._publish(TimerExpired(seat, player, seconds_left, hard))
        else:
            self._publish(MOMENTS[moment](seat, player, seconds_left))
