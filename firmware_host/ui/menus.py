"""The device's menus: main menu, new game, game menu, settings, history, self-test, game over.

Each reaches the table through the door its constructor names (:mod:`firmware_host.ui.table`):
the menus a :class:`~firmware_host.ui.table.MenuTable`, the self-test a
:class:`~firmware_host.ui.table.SelfTestTable`; the history and the game's end see only the
screen stack (:class:`~firmware_host.ui.table.Table`) and the entries they show.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from drivers.buttons import Press
from drivers.tower import BLINK, DARK, ON, TowerState
from firmware_host.core.config import BUTTONS, SEATS
from firmware_host.core.i18n import LANGUAGES, NAMES, _, tr
from firmware_host.timers.stats import clock_text
from firmware_host.ui.base import Confirm, Item, ListScreen, Screen, apply_confirmed, footed, is_seat
from firmware_host.ui.calibrate import CalibrateScreen
from firmware_host.ui.layout import big_row, fewest_rows, grid, names_note, text_rows, wrapped_forms
from firmware_host.ui.phone import PhoneScreen
from firmware_host.ui.render import Frame, Row, panel, text_width
from firmware_host.ui.room import Part, share
from firmware_host.ui.rules import rules_for
from firmware_host.ui.timer_menu import MODE_LABELS, timer_screen
from firmware_host.ui.voice_menu import VoiceScreen
from games import TITLES, get_engine, unit_of
from games.core import Menu, Option, T, View, join, score_places

if TYPE_CHECKING:
    from firmware_host.ui.table import MenuTable, SelfTestTable, Table


class MainMenu(ListScreen):
    """The menu the device boots into when no game is unfinished; during a game, the game menu's
    *Main menu* opens it over the game, which stays in play (``back`` returns to it)."""

    table: MenuTable

    def __init__(self, table: MenuTable, over_game: bool = False) -> None:
        if over_game:
            super().__init__(table, "tablemate", self._entries, on_back=table.back_to_game, hint=T("ok: pick  back"))
        else:
            super().__init__(table, "tablemate", self._entries, on_back=lambda: None, hint=T("ok: pick"))

    def _entries(self) -> list[Item]:
        table = self.table
        return [
            Item(_("New game"), lambda: table.push(ChooseGame(table))),
            Item(_("History"), lambda: table.push(HistoryScreen(table, table.history()))),
            Item(_("Settings"), lambda: table.push(SettingsScreen(table))),
            Item(_("Self-test"), lambda: table.push(SelfTest(table))),
            Item(_("Phone"), lambda: table.push(PhoneScreen(table))),
        ]


class ChooseGame(ListScreen):
    """Step 1 of a new game: which game."""

    def __init__(self, table: MenuTable) -> None:
        items = [Item(TITLES[g], lambda g=g: table.push(ChooseSeats(table, g))) for g in TITLES]  # type: ignore[misc]
        super().__init__(table, T("New game"), items)


class ChooseSeats(Screen):
    """Step 2: which seats play. Seat buttons toggle their seat; ok goes on."""

    table: MenuTable

    def __init__(self, table: MenuTable, game: str) -> None:
        super().__init__(table)
        self.game = game
        self.engine = get_engine(game)
        configured = table.table_seats()
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
            if self._count_ok() and self.table.session is not None:
                question = T("A game is in play. End it (as ended early) and start this one?")
                self.table.push(Confirm(self.table, T("New game"), question, self._go))
            elif self._count_ok():
                self._go()
            else:
                top = self.engine.max_players
                low = self.engine.min_players
                count = T("{low}-{high} players", low=low, high=top) if top else T("{low}+ players", low=low)
                self.table.toast(count, now=True)
        elif press.button == "back":
            self.table.pop()

    def _go(self) -> None:
        """On to who starts, unless the rules decide it (cards, a roll, the reveal)."""
        if self.engine.rules_pick_start:
            after_start(self.table, self.game, self.seats, self.seats[0])
        else:
            self.table.push(ChooseStart(self.table, self.game, self.seats))

    def frame(self) -> Frame:
        cells = [("[x] " if s in self.seats else "[ ] ") + self.table.seat_name(s) for s in SEATS]
        rows = grid([(c, "") for c in cells], 2)
        rows += [
            Row.of(_("{count} players").format(count=len(self.seats))),
            Row.of(_("seat button: in/out")),
            Row.of(_("ok: next  back")),
        ]
        return Frame(TITLES[self.game], tuple(rows), _("seats"))


class ChooseStart(ListScreen):
    """Step 3: who starts — at random, or a seat (its button picks it directly)."""

    table: MenuTable

    def __init__(self, table: MenuTable, game: str, seats: list[str]) -> None:
        self.game, self.seats = game, seats
        items = [Item(T("Random"), lambda: self._go(None))]
        items += [Item(table.seat_name(s), lambda s=s: self._go(s)) for s in seats]  # type: ignore[misc]
        super().__init__(table, T("Who starts?"), items)

    def press(self, press: Press) -> None:
        if is_seat(press):
            if press.button in self.seats:
                self._go(press.button)
            return
        super().press(press)

    def _go(self, seat: str | None) -> None:
        after_start(self.table, self.game, self.seats, seat)


def after_start(table: MenuTable, game: str, seats: list[str], start: str | None) -> None:
    """The step after who starts: the game's options if it has any, else the game itself."""
    specs = getattr(get_engine(game), "menu_options", ())
    if specs:
        table.push(ChooseOptions(table, game, seats, start, specs))
    else:
        table.start_game(game, seats, start, {})


class ChooseOptions(ListScreen):
    """Step 4 (games that have options): each line cycles its choices; the last line starts."""

    table: MenuTable

    def __init__(self, table: MenuTable, game: str, seats: list[str], start: str | None, specs: Any) -> None:
        self.game, self.seats, self.start, self.specs = game, seats, start, specs
        preset = table.game_options(game)
        self.values = {key: preset.get(key, choices[0][1]) for key, _, choices in specs}
        super().__init__(table, T("Options"), self._entries)

    def _entries(self) -> list[Item]:
        items = []
        for key, label, choices in self.specs:
            current = next((name for name, value in choices if value == self.values[key]), "?")
            items.append(Item(label, lambda k=key, c=choices: self._cycle(k, c), current))  # type: ignore[misc]
        items.append(
            Item(_("Start game"), lambda: self.table.start_game(self.game, self.seats, self.start, self.values))
        )
        return items

    def _cycle(self, key: str, choices: Any) -> None:
        values = [value for _, value in choices]
        i = values.index(self.values[key]) if self.values[key] in values else -1
        self.values[key] = values[(i + 1) % len(values)]


class GameMenu(ListScreen):
    """The menu of a game in play (a short ``back`` at the top of a prompt)."""

    table: MenuTable

    def __init__(self, table: MenuTable) -> None:
        super().__init__(table, T("Game menu"), self._entries)

    def _entries(self) -> list[Item]:
        table = self.table
        items = [
            Item(_("Continue"), table.pop),
            Item(_("What happened"), lambda: table.push(EventsScreen(table, table.events))),
            Item(_("Undo last action"), table.ask_undo),
        ]
        items += [option_item(table, option) for option in table.anytime()]
        items += [
            Item(_("Settings"), lambda: table.push(SettingsScreen(table))),
            Item(_("Self-test"), lambda: table.push(SelfTest(table))),
            Item(_("Main menu"), lambda: table.push(MainMenu(table, over_game=True))),  # the game stays in play
            Item(_("End game early"), self._end),
            Item(_("Rules"), lambda: table.push(rules_for(table))),  # last: prev from the top lands here
        ]
        return items

    def _end(self) -> None:
        question = T("End this game now? It goes to the history as ended early.")
        self.table.push(Confirm(self.table, T("End game"), question, self.table.end_early))


class EventsScreen(Screen):
    """The game menu's "What happened": the game's last outcomes, newest first, a page at a time
    (prev/next page; back leaves)."""

    def __init__(self, table: Table, events: Sequence[str]) -> None:
        """``events``: the game's outcomes, oldest first."""
        super().__init__(table)
        self.events = list(events)
        self.page = 0

    def _pages(self) -> list[list[Row]]:
        rows = [row for event in reversed(self.events) for row in text_rows(join(["-", event], " "), 2)]
        room = panel().rows - 1
        return [rows[i : i + room] for i in range(0, len(rows), room)] or [[Row.of(_("Nothing yet"))]]

    def press(self, press: Press) -> None:
        pages = len(self._pages())
        if press.button == "next" or (is_seat(press) and not press.long):
            self.page = min(pages - 1, self.page + 1)
        elif press.button == "prev":
            self.page = max(0, self.page - 1)
        elif press.button in ("back", "ok") or is_seat(press):
            self.table.pop()

    def frame(self) -> Frame:
        pages = self._pages()
        self.page = min(self.page, len(pages) - 1)
        rows = footed(pages[self.page], Row.of(_("next: older  back")))
        return Frame(_("What happened"), tuple(rows), f"{self.page + 1}/{len(pages)}")


def option_item(table: MenuTable, option: Option) -> Item:
    """A game-menu line for an engine option: its action, or a walk through its sub-menus."""
    if option.action is None:
        return Item(join([option.label, ">"], " "), lambda: table.push(OptionMenu(table, option.submenu())))  # type: ignore[arg-type]  # an anytime option opens menus only

    def pick(action: dict[str, Any] = option.action) -> None:
        table.back_to_game()
        apply_confirmed(table, action)

    return Item(option.label, pick)


class OptionMenu(ListScreen):
    """A sub-menu of an option the game offers at any time (a player, then a card…)."""

    def __init__(self, table: MenuTable, menu: Menu | None) -> None:
        options = menu.options if menu is not None else ()
        super().__init__(table, menu.title if menu else "", [option_item(table, o) for o in options])


def result_rows(
    entry: dict[str, Any], headline: Sequence[str] = (), facts: Sequence[str] = (), room: int | None = None
) -> list[Row]:
    """A finished game's result in ``room`` rows (the panel's, less the hint's, unless given): who
    won (or why it ended), what the last move brought (the game-over screen's ``headline`` after
    its first line; those of ``facts``, how the game ended, whole), then the ranking, ties
    sharing a place (the game's own places where the entry has them), or the totals alone for a
    game that ranks nobody; names are shortened so every score shows, and shortened in the
    lines before any line gives way (:func:`~firmware_host.ui.room.share`)."""
    winners = _winners(entry)
    ranks = _ranks(entry)
    if entry.get("reason") != "over":
        head = T("Ended early")
    elif headline:
        head = headline[0]  # type: ignore[assignment]  # a translatable text or the game's own line
    elif winners:
        names = ", ".join(winners)
        head = T("Winner: {names}", names=names) if len(winners) == 1 else T("Shared: {names}", names=names)
    else:
        head = T("Everyone lost") if ranks else T("Session over")
    scores = _scores(entry)
    if ranks:
        places = _places(entry, scores)
        ranking = sorted(scores, key=lambda name: (places[name], -scores[name]))
        cells = [(f"{places[name]}.{name}", str(scores[name])) for name in ranking]
    else:
        cells = [(name, str(score)) for name, score in scores.items()]
    on = panel()
    table = Part([grid(cells, 2), grid(cells, fewest_rows(cells))], rank=5)
    unit = unit_of(entry.get("game"))  # what the numbers count, where a bare number would not say (drinks)
    if unit:
        top = Part([[Row.of(head, unit, cut=True)]])
    else:  # big where there is room
        big = big_row(head)
        top = Part([*([[big]] if big.big else []), *wrapped_forms(head, bar=False, needed=False)])
    said = {tr(fact) for fact in facts}
    news = list(headline[1:]) if entry.get("reason") == "over" else []
    lines = []
    for line in news:
        whole = wrapped_forms(line, bar=False, needed=False)
        must = tr(line) in said
        lines.append(Part(whole, must, rank=1, fallback=None if must else text_rows(line, 1)))
    rows, _title = share([top, *lines, table], on, on.rows - 1 if room is None else room, title_free=False)
    return rows


def _ranks(entry: dict[str, Any]) -> bool:
    """Whether the entry's game ranks its players (an unknown game: it does)."""
    try:
        return get_engine(entry.get("game")).ranks  # type: ignore[arg-type]  # not a string: unknown
    except KeyError:
        return True


def _places(entry: dict[str, Any], scores: dict[str, float]) -> dict[str, int]:
    """Name → place: the entry's own places when every player has a whole one, else by score."""
    places = entry.get("places")
    if isinstance(places, dict) and all(
        isinstance(places.get(name), int) and not isinstance(places.get(name), bool) for name in scores
    ):
        return {name: places[name] for name in scores}
    return score_places(scores)


def final_words(final: View, said: Sequence[str]) -> list[str]:
    """The game-over screen's headline: the game's last word (its final view's first line), then
    what the last move brought: the view's own lines of it, else what the engine said of it."""
    lines = list(final.lines[: max(1, final.news)])
    if len(lines) <= 1:
        lines += [line for line in said if str(line) not in {str(x) for x in lines}]
    return lines


class GameOver(Screen):
    """The final ranking of a finished game, then (next) the time each player used.

    It stays until a long ``ok`` (or ``back``): a short press cannot lose a table its result.
    """

    mood = "over"

    def __init__(
        self,
        table: Table,
        entry: dict[str, Any],
        headline: Sequence[str] = (),
        undo: Callable[[], None] | None = None,
        facts: Sequence[str] | None = None,
    ) -> None:
        super().__init__(table)
        self.entry = entry
        self.headline = list(headline)
        """The game's own last word (its final view), shown first when it has one."""
        self.facts = list(headline[:2] if facts is None else facts)
        """How the game ended, as the table must read it (its final view's needed lines)."""
        self.page = 0
        self.undo = undo
        """Takes the move that ended the game back (a long ``back``), when it still can be."""
        self.nudged = False
        """A short press came: the hint line (``hold ok…``) shows inverted, as a message would,
        on its own row (a message would cover the ranking)."""

    @property
    def times(self) -> dict[str, Any] | None:
        """The turn timer's statistics of the game, if a timer ran."""
        timer = self.entry.get("timer")
        return timer.get("players") if isinstance(timer, dict) else None

    def must_read(self) -> list[str]:
        """How the game ended (the winner, the move that ended it), on the ranking's page."""
        return self.facts if self.page == 0 or not self.times else []

    def press(self, press: Press) -> None:
        if press.button == "back" and press.long and self.undo is not None:
            self.undo()
        elif press.button in ("ok", "back") and press.long:
            self.table.home()
        elif press.button in ("next", "prev") and self.times:
            self.page = 1 - self.page
        else:
            self.nudged = True  # on the hint's own line, inverted: the ranking keeps its rows
            self.table.signal("refused")

    def frame(self) -> Frame:
        if self.page == 1 and self.times:
            return self._times_frame(self.times)
        e = self.entry
        if self.undo is not None:
            hint = _("hold ok menu, back undo")
        else:
            hint = _("hold ok: menu  next") if self.times else _("hold ok: menu")
        title = TITLES.get(e["game"], e["game"])
        foot = Row.of(hint, invert=self.nudged)  # a short press lights the hint up: hold
        return Frame(title, tuple(footed(result_rows(e, self.headline, self.facts), foot)), _("over"))

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
            rows.extend(grid([(name, total)], 1, width=panel().content_w - text_width(spread) - 4))
            rows[-1] = Row(rows[-1].cells, spread)
        if len(rows) < panel().rows:
            rows = footed(rows, Row.of(_("fast/avg/slow")))
        return Frame(_("Time used"), tuple(rows[: panel().rows]), "2/2")


class SettingsScreen(ListScreen):
    """Brightness, sound, the turn timer and its beeps, and the scale's calibration."""

    LEVELS = (40, 100, 170, 255)

    table: MenuTable

    def __init__(self, table: MenuTable) -> None:
        super().__init__(table, T("Settings"), self._entries)

    def _entries(self) -> list[Item]:
        table = self.table
        level = table.settings["brightness"]
        percent = f"{round(level / 255 * 100)}%"
        game = table.session.base.game if table.session is not None else None
        scale = table.scale
        calibrated = _("ok") if scale.calibration else _("no")
        beeps = {"all": _("all"), "timeout": _("timeout"), "off": _("off")}
        voice = table.settings.get("voice")
        return [
            Item(_("Brightness"), self._brighter, percent),
            Item(_("Sound"), self._toggle_sound, _("on") if table.settings["sound"] else _("off")),
            Item(_("Turn timer"), lambda: table.push(timer_screen(table, table.timers, game)), self._timer_note()),
            Item(_("Timer beeps"), self._timer_sound, beeps.get(table.settings["timer_sound"], "?")),
            Item(_("Phones"), self._forget_phones, str(table.phones.count)),  # ok: forget all
            Item(_("Voice"), lambda: table.push(VoiceScreen(table, game)), _("on") if voice else _("off")),
            Item(_("Language"), self._language, NAMES.get(table.settings.get("language", "en"), "?")),
            Item(_("Calibrate scale"), lambda: table.push(CalibrateScreen(table, scale)), calibrated),
        ]

    def _forget_phones(self) -> None:
        """Settings → Phones: forget every paired phone (after a question)."""
        question = T("Forget all paired phones? They can then only read the page.")
        self.table.push(Confirm(self.table, T("Phones"), question, self._forgotten))

    def _forgotten(self) -> None:
        self.table.forget_phones()
        self.table.toast(T("Phones forgotten"))

    def _language(self) -> None:
        """The next language; the device speaks it at once."""
        now = self.table.settings.get("language", "en")
        following = LANGUAGES[(LANGUAGES.index(now) + 1) % len(LANGUAGES)] if now in LANGUAGES else LANGUAGES[0]
        self.table.change_setting("language", following)

    def _timer_note(self) -> str:
        session = self.table.session
        return MODE_LABELS[self.table.timers.preset.mode] if session is not None else _("per game")

    def _timer_sound(self) -> None:
        """All beeps, only the timeout's, or none (the buzzer is on/off only: no volume to set)."""
        choices = ("all", "timeout", "off")
        now = self.table.settings["timer_sound"]
        self.table.change_setting("timer_sound", choices[(choices.index(now) + 1) % 3] if now in choices else "all")

    def _toggle_sound(self) -> None:
        self.table.change_setting("sound", not self.table.settings["sound"])

    def _brighter(self) -> None:
        level = self.table.settings["brightness"]
        higher = [v for v in self.LEVELS if v > level]
        self.table.change_setting("brightness", higher[0] if higher else self.LEVELS[0])


def note_width() -> int:
    """Pixels a history line's winners may take beside the day and the game (which may be cut)."""
    return panel().content_w // 2 - 4


class HistoryScreen(ListScreen):
    """Finished games, newest first: the day, the game and who won; ok opens its result."""

    def __init__(self, table: Table, history: Sequence[dict[str, Any]]) -> None:
        """``history``: the finished games, oldest first (read once, not on every press)."""
        super().__init__(table, T("History"), self._entries(history))

    def _entries(self, history: Sequence[dict[str, Any]]) -> list[Item]:
        items = [
            history_item(e, lambda e=e: self.table.push(HistoryEntry(self.table, e)))  # type: ignore[misc]
            for e in reversed(history[-50:])
        ]
        return items or [Item(T("No games yet"), lambda: None)]


class HistoryEntry(Screen):
    """One finished game of the history: its result, as the game-over screen showed it."""

    def __init__(self, table: Table, entry: dict[str, Any]) -> None:
        super().__init__(table)
        self.entry = entry

    def press(self, press: Press) -> None:
        if press.button in ("ok", "back") or (is_seat(press) and press.long):
            self.table.pop()

    def frame(self) -> Frame:
        e = self.entry
        rows = [*result_rows(e, room=panel().rows - 2), Row.of(_day(e, "%m-%d %H:%M"))]
        return Frame(_title(e), tuple(footed(rows, Row.of(_("back")))))


def history_item(entry: dict[str, Any], pick: Callable[[], None] = lambda: None) -> Item:
    """One finished game as a line of the History list: the day and the game's name whole, and
    who won in the room beside them (``Ann,Ben``, ``Ann+1``, or ``early``); where that does not
    fit beside them, the winners are left to the entry (every line keeps its day: ``12-01 Ab in
    die Tonne``). A wrongly typed field shows as ``?`` (the history file is read, not trusted)."""
    dated = join([_day(entry, "%m-%d"), _title(entry)], " ")
    room = min(note_width(), panel().content_w - NOTE_GAP - text_width(dated))
    who = names_note(_winners(entry), room) or (T("early") if entry.get("reason") != "over" else "-")
    return Item(dated, pick, who if text_width(who) <= room else "", whole=True)


NOTE_GAP = 4
"""Pixels a list line keeps between its label and its note (the cell's margins)."""


def _day(entry: dict[str, Any], form: str) -> str:
    started = entry.get("started")
    try:
        return time.strftime(form, time.localtime(started)) if isinstance(started, int | float) else "?"
    except (OverflowError, OSError, ValueError):
        return "?"


def _title(entry: dict[str, Any]) -> str:
    game = entry.get("game")
    title = TITLES.get(game, game) if isinstance(game, str) else "?"
    return title if title.isprintable() else "?"


def _winners(entry: dict[str, Any]) -> list[str]:
    winners = entry.get("winners")
    return [w for w in winners if isinstance(w, str) and w.isprintable()] if isinstance(winners, list) else []


def _scores(entry: dict[str, Any]) -> dict[str, float]:
    scores = entry.get("scores")
    if not isinstance(scores, dict):
        return {}
    return {
        str(name): value
        for name, value in scores.items()
        if str(name).isprintable() and isinstance(value, int | float) and not isinstance(value, bool)
    }


TEST_STEPS = (
    TowerState(red=ON),
    TowerState(yellow=ON),
    TowerState(green=ON),
    TowerState(buzzer=ON),
    TowerState(red=BLINK, yellow=BLINK, green=BLINK),
    DARK,
)


HINT_TURN = 2.0
"""Seconds each of the self-test's two hints shows where the panel has one row for them."""


def check_rows() -> int:
    """Check lines on the self-test's second page at once, above its hint (5 on a 128×64)."""
    return panel().rows - 1


class SelfTest(Screen):
    """Every button (shown when pressed), the scale reading, a tower test; hold back to leave."""

    mood = "test"
    raw_buttons = True
    """Every press comes here, a long ``ok`` too (it does not pause a game's timer)."""
    reads_scale = True
    """The scale is read while this screen is open (it shows the reading)."""

    REFRESH = 0.5
    """Seconds between redraws while shown: the scale and the tower change without a press."""

    table: SelfTestTable

    def __init__(self, table: SelfTestTable) -> None:
        super().__init__(table)
        self.seen: dict[str, str] = {}
        self.checking = False
        """The second page: the doctor's checks of the device instead of the live parts."""
        self.first = 0
        """The first check line shown on that page."""

    def shown(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        if self.table.on_top(self):
            self.table.redraw()  # sent only if the picture changed
            self.table.call_later(self.REFRESH, self._refresh)

    def press(self, press: Press) -> None:
        if press.button == "back" and press.long:
            self.table.pop()
            return
        self.seen[press.button] = "!" if press.long else "."  # ! long, . short
        if press.button == "next" and press.long:
            self.checking, self.first = not self.checking, 0
        elif press.button == "next" and self.checking:  # the next lines, round to the first
            lines = self.table.checks() or ()
            self.first = self.first + check_rows() if self.first + check_rows() < len(lines) else 0
        elif press.button == "ok" and not self.checking:
            self.table.tower_test([(s, 0.6) for s in TEST_STEPS])

    def frame(self) -> Frame:
        if self.checking:
            lines = list(self.table.checks() or [_("checking...")])
            shown = lines[self.first : self.first + check_rows()]
            title = _("Self-test 2/2")
            if len(lines) > check_rows():  # which lines, of how many: next shows the others
                title = _("Checks {first}-{last}/{count}").format(
                    first=self.first + 1, last=self.first + len(shown), count=len(lines)
                )
            return Frame(title, (*(Row.of(line) for line in shown), Row.of(_("next: more  hold: back"))))
        cells = [f"{b}{self.seen.get(b, '')}" for b in BUTTONS]
        rows = [
            Row(tuple(cells[:6])),
            Row(tuple(cells[6:])),
            *(row for line in self.table.parts() for row in text_rows(line, 1)),
        ]
        hints = [Row.of(_("ok: tower  hold back")), Row.of(_("hold next: checks 2/2"))]
        if len(rows) + len(hints) > panel().rows:  # one hint row: the two take turns
            hints = [hints[int(self.table.now() / HINT_TURN) % len(hints)]]
        return Frame(_("Self-test 1/2"), tuple([*rows, *hints]))
