"""The tower's signals: the lasting light of the screen on top, the short patterns, the timer's
light and beeps, the self-test's pattern (:class:`~firmware_host.runtime.lights.Lights` on the
tower the hardware gave)."""

from __future__ import annotations

from collections.abc import Sequence

from drivers.tower import Tower, TowerState
from firmware_host.runtime.events import ActionDurable, ActionRefused
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.lights import Lights


class Signals:
    """The tower as the table uses it; :meth:`attach` gives it the real (or simulated) tower."""

    def __init__(self) -> None:
        self.lights = Lights(None)
        """The light in use (none until the hardware is up)."""

    def setup(self, hub: Hub) -> None:
        """Play each durable action's signals, and ``refused`` for each refusal."""
        hub.subscribe(ActionDurable, self._durable)
        hub.subscribe(ActionRefused, lambda event: self.signal("refused"))

    def _durable(self, event: ActionDurable) -> None:
        for name in event.signals():
            self.signal(name)

    def attach(self, tower: Tower | None, sound: bool) -> None:
        """Use ``tower`` from now on (the hardware is up)."""
        self.lights = Lights(tower, sound)

    def signal(self, name: str) -> None:
        """Play one of the tower's signals (``refused``, ``success``…)."""
        self.lights.signal(name)

    def set_mood(self, mood: str) -> None:
        """The lasting light (the screen on top's mood)."""
        self.lights.set_mood(mood)

    def show_timer(self, level: str | None, bar: float | None) -> None:
        """The tower's timer light (the timer service's door)."""
        self.lights.show_timer(level, bar)

    def timer_beep(self, level: str, bar: float | None) -> None:
        """The tower's timer beeps (the timer service's door)."""
        self.lights.timer_beep(level, bar)

    def tower_test(self, steps: Sequence[tuple[TowerState, float]]) -> None:
        """Play a pattern of tower states (the self-test)."""
        self.lights.play(list(steps))

    def set_sound(self, on: bool) -> None:
        """The buzzer on or off (the settings menu)."""
        self.lights.set_sound(on)

    def close(self) -> None:
        """Leave the tower dark."""
        self.lights.close()
