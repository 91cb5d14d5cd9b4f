"""The tower service: what the tower light and buzzer show, decided in one place.

Three layers, the first that has something wins:

1. a **signal** — a short timed pattern for a moment (an explosion, a fall, a refused move);
2. the **timer** — the turn timer's state, when one is running (set by the timer service;
   :data:`TIMER`, with the remaining time as the LED bar);
3. the **mood** — the lasting light of what the table is doing (choosing, playing, rolling…),
   named by the game's view or the menu.

Every signal is distinct by colour, by blink and by beep count, so colour-blind players can
read it by sound and rhythm alone. With sound off the buzzer stays silent and the lights still show.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from drivers.tower import BLINK, DARK, OFF, ON, Tower, TowerState

Step = tuple[TowerState, float]
"""One step of a pattern: a state and how long it lasts (the last step's length ends it)."""

MOODS: dict[str, TowerState] = {
    "idle": DARK,
    "playing": TowerState(green=ON),
    "choosing": TowerState(yellow=ON),
    "rolling": TowerState(red=BLINK),
    "disturbed": TowerState(yellow=ON),
    "waiting": TowerState(yellow=BLINK),
    "over": TowerState(green=BLINK),
    "test": DARK,
}


def beeps(light: TowerState, count: int, hold: float = 1.0, beep: float = 0.12) -> list[Step]:
    """``light`` with ``count`` short beeps, then held for ``hold`` seconds."""
    steps: list[Step] = []
    for _ in range(count):
        steps += [(light.with_(buzzer=ON), beep), (light, beep)]
    if steps:
        steps[-1] = (light, hold)
    else:
        steps.append((light, hold))
    return steps


SIGNALS: dict[str, list[Step]] = {
    "success": beeps(TowerState(green=BLINK), 1, 1.5),
    "penalty": beeps(TowerState(red=ON), 2, 1.5),
    "refused": beeps(TowerState(yellow=BLINK), 3, 1.0, 0.06),
    "explosion": [(TowerState(red=BLINK, buzzer=ON), 1.5), (TowerState(red=BLINK), 1.5)],
    "fall": [(TowerState(red=ON, buzzer=ON), 1.0), (TowerState(red=ON), 2.0)],
    "turn": beeps(TowerState(green=ON), 1, 0.3, 0.05),
    "game_over": beeps(TowerState(red=BLINK, yellow=BLINK, green=BLINK), 3, 3.0, 0.2),
}


TIMER: dict[str, TowerState] = {
    "running": TowerState(green=ON),
    "warning": TowerState(yellow=BLINK, green=ON),
    "timeout": TowerState(red=BLINK, yellow=BLINK),
    "paused": TowerState(yellow=ON, green=ON),
}
"""The turn timer's lasting light per state: green steady; yellow blinking over green steady
(time still runs, hurry); red and yellow blinking; yellow and green steady — told apart by
colour, by position on the stack and by blinking, and from every mood (the table's job, yellow
blinking alone, above all)."""

TIMER_BEEPS: dict[str, tuple[int, float]] = {
    "warning": (1, 0.15),
    "timeout": (3, 0.5),
    "paused": (2, 0.1),
}
"""Beeps (count, length in seconds) when the timer enters a state: 1 short, 3 long, 2 short."""


def timer_beeps(level: str, light: TowerState) -> list[Step]:
    """The beeps the timer sounds on entering ``level`` (``light``: its lasting light)."""
    count, beep = TIMER_BEEPS.get(level, (0, 0.0))
    return beeps(light, count, 0.05, beep) if count else []


class Lights:
    """Drives a :class:`~drivers.tower.Tower` from moods, the timer and signals."""

    def __init__(self, tower: Tower | None, sound: bool = True) -> None:
        self.tower = tower
        self.sound = sound
        self.mood = "idle"
        self.timer: TowerState | None = None
        self._pattern: list[Step] = []
        self._handle: asyncio.TimerHandle | None = None
        self.showing: TowerState = DARK
        self._sent: TowerState | None = None

    def set_mood(self, mood: str) -> None:
        """The lasting light (unknown moods show as ``playing``)."""
        if mood != self.mood:
            self.mood = mood
            self._update()

    def set_timer(self, state: TowerState | None) -> None:
        """The turn timer's light, or ``None`` when no timer runs."""
        if state != self.timer:
            self.timer = state
            self._update()

    def show_timer(self, level: str | None, bar: float | None) -> None:
        """The turn timer's light for ``level`` (:data:`TIMER`) with ``bar`` left; ``None``: no timer."""
        self.set_timer(None if level is None else TIMER[level].with_(bar=bar))

    def timer_beep(self, level: str, bar: float | None) -> None:
        """The beeps of the timer entering ``level`` (:data:`TIMER_BEEPS`), over its light."""
        self.interject(timer_beeps(level, TIMER[level].with_(bar=bar)))

    def signal(self, name: str) -> None:
        """Play a named pattern now (replacing one still playing)."""
        self.play(SIGNALS.get(name, []))

    def play(self, steps: Sequence[Step]) -> None:
        """Play a timed pattern of states now (replacing one still playing)."""
        self._start(list(steps))

    def interject(self, steps: Sequence[Step]) -> None:
        """Play a timed pattern now, then go on with the one that was playing (restarting its step)."""
        self._start(list(steps) + self._pattern)

    def _start(self, pattern: list[Step]) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._pattern = pattern
        self._next_step()

    def set_sound(self, on: bool) -> None:
        """Buzzer on or off."""
        self.sound = on
        self._update()

    def _next_step(self) -> None:
        self._handle = None
        self._update()
        if self._pattern:
            self._handle = asyncio.get_running_loop().call_later(self._pattern[0][1], self._after_step)

    def _after_step(self) -> None:
        if self._pattern:
            self._pattern.pop(0)
        self._next_step()

    def _update(self) -> None:
        if self._pattern:
            state = self._pattern[0][0]
        elif self.timer is not None:
            state = self.timer
        else:
            state = MOODS.get(self.mood, MOODS["playing"])
        if not self.sound and state.buzzer != OFF:
            state = replace(state, buzzer=OFF)
        self.showing = state
        if self.tower is not None and state != self._sent:
            self.tower.show(state)
            self._sent = state

    def close(self) -> None:
        """Stop patterns and switch the tower off."""
        if self._handle is not None:
            self._handle.cancel()
        self._pattern = []
        if self.tower is not None:
            self.tower.close()
