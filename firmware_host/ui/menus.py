"""The device's menus: main menu, new game, game menu, settings, history, self-test, game over."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from drivers.tower import BLINK, DARK, ON, TowerState
from firmware_host.core.config import BUTTONS, SEATS
from firmware_host.runtime.render import ROWS, Frame, Row
from firmware_host.timers.stats import clock_text
from firmware_host.ui.base import Confirm, Item, ListScreen, Screen, footed, is_seat
from firmware_host.ui.calibrate import CalibrateScreen
from firmware_host.ui.game import GameScreen
from firmware_host.ui.timer_menu import MODE_LABELS, timer_screen
from games import ENGINES, TITLES, get_engine
from games.core import Menu, Option

if TYPE_CHECKING:
    from firmware_host.runtime.device import Device


class MainMenu(ListScreen):
    """The menu the device boots into when no game is unfinished."""

    def __init__(self, dev: Device) -> None:
        super().__init__(dev, "tablemate", self._entries, on_back=lambda: None, hint="ok: pick")

    def _entries(self) -> list[Item]:
        dev = self.dev
        return [
            Item("New game", lambda: dev.push(ChooseGame(dev))),
            Item("History", lambda: dev.push(HistoryScreen(dev))),
            Item("Settings", lambda: dev.push(SettingsScreen(dev))),
            Item("Self-test", lambda: dev.push(SelfTest(dev))),
        ]


class ChooseGame(ListScreen):
    """Step 1 of a new game: which game."""

    def __init__(self, dev: Device) -> None:
        items = [Item(TITLES[g], lambda g=g: dev.push(ChooseSeats(dev, g))) for g in TITLES if g in ENGINES]
        super().__init__(dev, "New game", items)


class ChooseSeats(Screen):
    """Step 2: which seats play. Seat buttons toggle their seat; ok goes on."""

    def __init__(self, dev: Device, game: str) -> None:
        super().__init__(dev)
        self.game = game
        self.engine = get_engine(game)
        configured = dev.config["table"]["seats"]
        self.seats: list[str] = [s for s in SEATS if s in configured]

    def _count_ok(self) -> bool:
        top = self.engine.max_players
        return self.engine.min_players <= len(self.seats) and (top is None or len(self.seats) <= top)

    def press(self, press: Press) -> None:
        if is_seat(press):
            if press.button in self.seats:
                self.seats.remove(press.button)
            else:
                self.seats = [s for s in SEATS if s in self.seats or s == press.button]
        elif press.button == "ok":
            if self._count_ok():
                if self.engine.rules_pick_start:  # the cards or a roll decide: nothing to ask
                    after_start(self.dev, self.game, self.seats, self.seats[0])
                else:
                    self.dev.push(ChooseStart(self.dev, self.game, self.seats))
            else:
                top = self.engine.max_players
                self.dev.toast(f"{self.engine.min_players}-{top or 'any'} players")
        elif press.button == "back":
            self.dev.pop()

    def frame(self) -> Frame:
        cells = [f"[{'x' if s in self.seats else ' '}] {self.dev.config.seat_name(s)}" for s in SEATS]
        rows = [Row((cells[i], cells[i + 1])) for i in range(0, 6, 2)]
        rows += [Row.of(f"{len(self.seats)} players"), Row.of("seat btn: in/out"), Row.of("ok: next  back")]
        return Frame(TITLES[self.game], tuple(rows), "seats")


class ChooseStart(ListScreen):
    """Step 3: who starts — at random, or a seat (its button picks it directly)."""

    def __init__(self, dev: Device, game: str, seats: list[str]) -> None:
        self.game, self.seats = game, seats
        items = [Item("Random", lambda: self._go(None))]
        items += [Item(dev.config.seat_name(s), lambda s=s: self._go(s)) for s in seats]
        super().__init__(dev, "Who starts?", items)

    def press(self, press: Press) -> None:
        if is_seat(press):
            if press.button in self.seats:
                self._go(press.button)
            return
        super().press(press)

    def _go(self, seat: str | None) -> None:
        after_start(self.dev, self.game, self.seats, seat)


def after_start(dev: Device, game: str, seats: list[str], start: str | None) -> None:
    """The step after who starts: the game's options if it has any, else the game itself."""
    specs = getattr(get_engine(game), "menu_options", ())
    if specs:
        dev.push(ChooseOptions(dev, game, seats, start, specs))
    else:
        dev.start_game(game, seats, start, {})


class ChooseOptions(ListScreen):
    """Step 4 (games that have options): each line cycles its choices; the last line starts."""

    def __init__(self, dev: Device, game: str, seats: list[str], start: str | None, specs: Any) -> None:
        self.game, self.seats, self.start, self.specs = game, seats, start, specs
        preset = dev.config.games.get(game, {})
        self.values = {key: preset.get(key, choices[0][1]) for key, _, choices in specs}
        super().__init__(dev, "Options", self._entries)

    def _entries(self) -> list[Item]:
        items = []
        for key, label, choices in self.specs:
            current = next((name for name, value in choices if value == self.values[key]), "?")
            items.append(Item(label, lambda k=key, c=choices: self._cycle(k, c), current))
        items.append(Item("Start game", lambda: self.dev.start_game(self.game, self.seats, self.start, self.values)))
        return items

    def _cycle(self, key: str, choices: Any) -> None:
        values = [value for _, value in choices]
        i = values.index(self.values[key]) if self.values[key] in values else -1
        self.values[key] = values[(i + 1) % len(values)]


class GameMenu(ListScreen):
    """The menu of a game in play (a short ``back`` at the top of a prompt)."""

    def __init__(self, dev: Device) -> None:
        super().__init__(dev, "Game menu", self._entries)

    def _entries(self) -> list[Item]:
        dev = self.dev
        items = [Item("Continue", dev.pop), Item("Undo last action", dev.ask_undo)]
        session = dev.session
        if session is not None:
            items += [option_item(dev, option) for option in session.engine.anytime(session.state)]
        items += [
            Item("Settings", lambda: dev.push(SettingsScreen(dev))),
            Item("Self-test", lambda: dev.push(SelfTest(dev))),
            Item("End game early", self._end),
        ]
        return items

    def _end(self) -> None:
        question = "End this game now? It goes to the history as ended early."
        self.dev.push(Confirm(self.dev, "End game", question, self.dev.end_early))


def option_item(dev: Device, option: Option) -> Item:
    """A game-menu line for an engine option: its action, or a walk through its sub-menus."""
    if option.action is None:
        return Item(option.label + " >", lambda: dev.push(OptionMenu(dev, option.submenu())))

    def pick(action: dict[str, Any] = option.action) -> None:
        while len(dev.screens) > 1 and not isinstance(dev.screens[-1], GameScreen):
            dev.pop()
        dev.apply(action)

    return Item(option.label, pick)


class OptionMenu(ListScreen):
    """A sub-menu of an option the game offers at any time (a player, then a card…)."""

    def __init__(self, dev: Device, menu: Menu | None) -> None:
        options = menu.options if menu is not None else ()
        super().__init__(dev, menu.title if menu else "", [option_item(dev, o) for o in options])


class GameOver(Screen):
    """The final ranking of a finished game, then (next) the time each player used; ok: main menu."""

    mood = "over"

    def __init__(self, dev: Device, entry: dict[str, Any], headline: Sequence[str] = ()) -> None:
        super().__init__(dev)
        self.entry = entry
        self.headline = list(headline)
        """The game's own last word (its final view), shown first when it has one."""
        self.page = 0

    @property
    def times(self) -> dict[str, Any] | None:
        """The turn timer's statistics of the game, if a timer ran."""
        timer = self.entry.get("timer")
        return timer.get("players") if isinstance(timer, dict) else None

    def press(self, press: Press) -> None:
        if press.button in ("ok", "back"):
            self.dev.home()
        elif press.button in ("next", "prev") and self.times:
            self.page = 1 - self.page

    def frame(self) -> Frame:
        if self.page == 1 and self.times:
            return self._times_frame(self.times)
        e = self.entry
        winners = e.get("winners") or []
        if e.get("reason") != "over":
            head = "Ended early"
        elif self.headline:
            head = self.headline[0]
        elif winners:
            head = ("Winner: " if len(winners) == 1 else "Shared: ") + ", ".join(winners)
        else:
            head = "Everyone lost"
        ranking = sorted(e["scores"].items(), key=lambda kv: -kv[1])
        scores = [score for _, score in ranking]
        cells = [f"{scores.index(score) + 1}.{name} {score}" for name, score in ranking]  # ties share a place
        rows = [Row.of(head)] + [Row(tuple(cells[i : i + 2])) for i in range(0, len(cells), 2)]
        hint = "ok: menu  next: times" if self.times else "ok: menu"
        return Frame(TITLES.get(e["game"], e["game"]), tuple(footed(rows, Row.of(hint))), "over")

    def _times_frame(self, times: dict[str, Any]) -> Frame:
        def short(s: float | None) -> str:
            if s is None:
                return "-"
            return f"{s:.1f}".removesuffix(".0") if s < 10 else f"{s:.0f}"

        rows = []
        for name in self.entry.get("players", list(times)):
            t = times.get(name)
            if t is None:
                continue
            total = clock_text(round(t["total_s"] * 1000))
            spread = f"{short(t['fastest_s'])}/{short(t['average_s'])}/{short(t['slowest_s'])}s"
            rows.append(Row.of(f"{name} {total}", spread))
        if len(rows) < ROWS:
            rows = footed(rows, Row.of("fast/avg/slow  ok: menu"))
        return Frame("Time used", tuple(rows[:ROWS]), "2/2")


class SettingsScreen(ListScreen):
    """Brightness, sound, the turn timer and its beeps, and the scale's calibration."""

    LEVELS = (40, 100, 170, 255)

    def __init__(self, dev: Device) -> None:
        super().__init__(dev, "Settings", self._entries)

    def _entries(self) -> list[Item]:
        dev = self.dev
        level = dev.settings["brightness"]
        percent = f"{round(level / 255 * 100)}%"
        return [
            Item("Brightness", self._brighter, percent),
            Item("Sound", self._toggle_sound, "on" if dev.settings["sound"] else "off"),
            Item("Turn timer", lambda: dev.push(timer_screen(dev)), self._timer_note()),
            Item("Timer beeps", self._timer_sound, dev.settings["timer_sound"]),
            Item("Calibrate scale", lambda: dev.push(CalibrateScreen(dev)), "ok" if dev.scale.calibration else "no"),
        ]

    def _timer_note(self) -> str:
        session = self.dev.session
        return MODE_LABELS[self.dev.timers.preset.mode] if session is not None else ""

    def _timer_sound(self) -> None:
        """All beeps, only the timeout's, or none (the buzzer is on/off only: no volume to set)."""
        choices = ("all", "timeout", "off")
        now = self.dev.settings["timer_sound"]
        self.dev.change_setting("timer_sound", choices[(choices.index(now) + 1) % 3] if now in choices else "all")

    def _toggle_sound(self) -> None:
        self.dev.change_setting("sound", not self.dev.settings["sound"])

    def _brighter(self) -> None:
        level = self.dev.settings["brightness"]
        higher = [v for v in self.LEVELS if v > level]
        self.dev.change_setting("brightness", higher[0] if higher else self.LEVELS[0])


class HistoryScreen(ListScreen):
    """Finished games, newest first."""

    def __init__(self, dev: Device) -> None:
        self.dev = dev  # _entries reads the store before the base class keeps dev
        super().__init__(dev, "History", self._entries())  # read once, not on every press

    def _entries(self) -> list[Item]:
        items = [history_item(e) for e in reversed(self.dev.store.history()[-50:])]
        return items or [Item("No games yet", lambda: None)]


def history_item(entry: dict[str, Any]) -> Item:
    """One finished game as a line of the History list; a wrongly typed field shows as ``?``
    (the history file is read, not trusted)."""
    started = entry.get("started")
    try:
        day = time.strftime("%m-%d", time.localtime(started)) if isinstance(started, int | float) else "?"
    except (OverflowError, OSError, ValueError):
        day = "?"
    game = entry.get("game")
    title = TITLES.get(game, game) if isinstance(game, str) else "?"
    winners = entry.get("winners")
    names = [w for w in winners if isinstance(w, str)] if isinstance(winners, list) else []
    who = ",".join(names) or ("early" if entry.get("reason") != "over" else "-")
    return Item(f"{day} {title[:9]}", lambda: None, who[:8])


TEST_STEPS = (
    TowerState(red=ON),
    TowerState(yellow=ON),
    TowerState(green=ON),
    TowerState(buzzer=ON),
    TowerState(red=BLINK, yellow=BLINK, green=BLINK),
    DARK,
)


class SelfTest(Screen):
    """Every button (shown when pressed), the scale reading, a tower test; hold back to leave."""

    mood = "test"
    raw_buttons = True
    """Every press comes here, a long ``ok`` too (it does not pause a game's timer)."""

    REFRESH = 0.5
    """Seconds between redraws while shown: the scale and the tower change without a press."""

    def __init__(self, dev: Device) -> None:
        super().__init__(dev)
        self.seen: dict[str, str] = {}

    def shown(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        if self.dev.screens and self.dev.screens[-1] is self:
            self.dev.redraw()  # sent only if the picture changed
            self.dev.loop.call_later(self.REFRESH, self._refresh)

    def press(self, press: Press) -> None:
        if press.button == "back" and press.long:
            self.dev.pop()
            return
        self.seen[press.button] = "L" if press.long else "s"
        if press.button == "ok":
            self.dev.lights.play([(s, 0.6) for s in TEST_STEPS])

    def frame(self) -> Frame:
        cells = [f"{b}{self.seen.get(b, '')}" for b in BUTTONS]
        pressed = " ".join(cells[:6])
        nav = " ".join(cells[6:])
        rows = [
            Row.of(pressed),
            Row.of(nav),
            Row.of(self.dev.scale_line()),
            Row.of(f"Tower {self.dev.lights.showing.describe()}"),
            Row.of(f"Display {self.dev.display.status}"),
            Row.of("ok: tower test  hold back"),
        ]
        return Frame("Self-test", tuple(rows))
