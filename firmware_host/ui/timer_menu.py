"""Settings screens of the turn timer: which game, then that game's preset, line by line.

Each line cycles its values with ``ok`` (or a long seat press); ``back`` leaves and saves. A preset
saved here wins over the config file (``Use config file`` drops it). Leaving the preset of the
game in play with changes restarts that game's clocks once, with the new preset.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from firmware_host.timers.clocks import MODES
from firmware_host.timers.presets import DEFAULT_SECONDS, allows_hard
from firmware_host.timers.stats import clock_text
from firmware_host.ui.base import Item, ListScreen
from games import TITLES
from games.core import T

if TYPE_CHECKING:
    from firmware_host.ui.table import Table, TimerPresets

MODE_LABELS = {
    "off": T("off"),
    "turn": T("per turn"),
    "hourglass": T("hourglass"),
    "bank": T("bank"),
    "countup": T("count-up"),
}
TIME_LABELS = {"turn": T("Turn time"), "hourglass": T("Sand each"), "bank": T("Bank each"), "countup": T("Par time")}
TIMEOUT_LABELS = {"soft": T("soft"), "hard": T("hard")}
SECONDS = (10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600)
BONUS = (0, 1, 2, 3, 5, 10, 15, 30)
WARN = ("10%", "20%", "30%", 5, 10, 20, 30)
PHASE = (0, 10, 15, 20, 30, 45, 60, 90, 120)


def duration(seconds: float, zero: str = T("none")) -> str:
    """Seconds as ``m:ss`` (or ``zero`` for 0)."""
    return clock_text(round(seconds * 1000)) if seconds else zero


def next_value(choices: tuple[Any, ...], value: Any) -> Any:
    """The choice after ``value`` (a value not among them goes to the next larger one)."""
    if value in choices:
        return choices[(choices.index(value) + 1) % len(choices)]
    numbers = [c for c in choices if isinstance(c, int | float) and isinstance(value, int | float) and c > value]
    return numbers[0] if numbers else choices[0]


class TimerGames(ListScreen):
    """Which game's timer to set (outside a game)."""

    def __init__(self, table: Table, timers: TimerPresets) -> None:
        self.timers = timers
        super().__init__(table, T("Turn timer"), self._entries)

    def _entries(self) -> list[Item]:
        table, timers = self.table, self.timers
        return [
            Item(
                TITLES[g],
                lambda g=g: table.push(TimerPreset(table, timers, g)),  # type: ignore[misc]
                MODE_LABELS[timers.preset_for(g).mode],
            )
            for g in TITLES
        ]


class TimerPreset(ListScreen):
    """One game's timer: mode, time, bonus, warning, simultaneous choices, timeout."""

    def __init__(self, table: Table, timers: TimerPresets, game: str) -> None:
        self.game = game
        self.timers = timers
        in_play = timers.session is not None and timers.session.base.game == game
        # the game in play runs the preset in its journal, which the config may since have changed
        self.preset = self.saved = timers.preset if in_play else timers.preset_for(game)
        super().__init__(table, T("Timer {game}", game=TITLES.get(game, game)), self._entries, on_back=self._leave)

    def _entries(self) -> list[Item]:
        p = self.preset
        items = [Item(T("Mode"), self._mode, MODE_LABELS[p.mode])]
        if p.on:
            items.append(Item(TIME_LABELS[p.mode], self._seconds, duration(p.seconds)))
            if p.mode == "bank":
                items.append(Item(T("Increment"), lambda: self._bonus("increment"), duration(p.increment)))
                items.append(Item(T("Delay"), lambda: self._bonus("delay"), duration(p.delay)))
            warn = p.warn if isinstance(p.warn, str) else f"{p.warn:g}s"
            items.append(Item(T("Yellow at"), self._warn, warn))
            items.append(Item(T("Together"), self._phase, duration(p.phase, T("untimed"))))
            items.append(Item(T("Timeout"), self._timeout, TIMEOUT_LABELS.get(p.timeout, p.timeout)))
        items.append(Item(T("Use config file"), self._forget))
        return items

    def _set(self, **changes: Any) -> None:
        self.preset = replace(self.preset, **changes)

    def _mode(self) -> None:
        mode = next_value(MODES, self.preset.mode)
        seconds = self.preset.seconds
        if self.preset.mode == "off" or (seconds == 0 and mode != "countup"):
            seconds = DEFAULT_SECONDS[mode] or DEFAULT_SECONDS["turn"]
        if mode == "countup" and self.preset.mode != "countup":
            seconds = 0.0
        self._set(mode=mode, seconds=seconds, increment=0.0, delay=0.0)

    def _seconds(self) -> None:
        choices = (0, *SECONDS) if self.preset.mode == "countup" else SECONDS
        self._set(seconds=float(next_value(choices, self.preset.seconds)))

    def _bonus(self, key: str) -> None:
        """Cycle the increment or the delay (both may be set, as on Shared Game Timer)."""
        self._set(**{key: float(next_value(BONUS, getattr(self.preset, key)))})

    def _warn(self) -> None:
        self._set(warn=next_value(WARN, self.preset.warn))

    def _phase(self) -> None:
        self._set(phase=float(next_value(PHASE, self.preset.phase)))

    def _timeout(self) -> None:
        if self.preset.timeout == "soft" and allows_hard(self.game) is False:
            self.table.toast(T("{game}: soft only", game=TITLES.get(self.game, self.game)))
            return
        self._set(timeout="hard" if self.preset.timeout == "soft" else "soft")

    def _forget(self) -> None:
        self.preset = self.saved = self.timers.forget_preset(self.game)
        self.table.toast(T("Config file's timer"))

    def _leave(self) -> None:
        if self.preset != self.saved:
            self.timers.set_preset(self.game, self.preset)
            self.table.toast(T("Timer saved"))
        self.table.pop()


def timer_screen(table: Table, timers: TimerPresets, game: str | None) -> ListScreen:
    """The screen of the settings' ``Turn timer`` line: ``game`` in play's preset, else the list."""
    if game is not None:
        return TimerPreset(table, timers, game)
    return TimerGames(table, timers)
