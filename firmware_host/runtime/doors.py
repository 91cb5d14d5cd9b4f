"""The doors: what the screens, the services, the page, the game's life and the saving part are
built with — an object of the parts' own bound methods and their live state, opened here, the one
module that looks parts up on the hub (:mod:`firmware_host.runtime.hub`).

Each client sees the door through the protocol it declares (:mod:`firmware_host.ui.table`'s
``Table``, ``GameTable``, ``MenuTable``, ``SelfTestTable``; the scale's ``ScaleHost``, the timers'
``TimerHost``, the page's ``TableDoor``); the type checker (``dev.py test``) checks that the door
has every member each protocol asks for. No client holds the device.
"""

from __future__ import annotations

from typing import Any

from firmware_host.core.session import Session
from firmware_host.runtime.display_service import DisplayService
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.lights import Lights
from firmware_host.runtime.parts.game import GameLife
from firmware_host.runtime.parts.health import Health
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.phones import Phones
from firmware_host.runtime.parts.presses import Presses
from firmware_host.runtime.parts.resume import Resume
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.settings import TableSettings
from firmware_host.runtime.parts.signals import Signals
from firmware_host.runtime.precedence import Precedence
from firmware_host.scale.service import ScaleService
from firmware_host.timers.service import TimerService


class Door:
    """The table's door. Made empty (the parts are built with it), opened once every part is on
    the hub (:meth:`open`); its members are the parts' own."""

    def open(self, hub: Hub) -> None:
        """Each member from the part that keeps it (a table a reader can grep)."""
        drawing: Screens = hub.lookup("screens")
        message: MessageLine = hub.lookup("message")
        game: GameLife = hub.lookup("game")
        health: Health = hub.lookup("health")
        prefs: TableSettings = hub.lookup("prefs")
        pairing: Phones = hub.lookup("phones")
        signals: Signals = hub.lookup("signals")
        timers: TimerService = hub.lookup("timers")
        scale: ScaleService = hub.lookup("scale")
        presses: Presses = hub.lookup("presses")
        resume: Resume = hub.lookup("resume")
        self._game, self._drawing, self._signals, self._saving = game, drawing, signals, hub.lookup("saving")
        self._dimmer, self._health, self._pairing = hub.lookup("dimmer"), health, pairing
        self.precedence: Precedence = hub.lookup("precedence")
        """The table's work goes first (the page defers its own while it is busy)."""
        self.timers = timers
        """The turn timers (the timer menus' presets)."""
        self.scale = scale
        """The scale (the calibration screen's)."""
        self.voice: Any = hub.get("voice")
        """The table's voice, when it has one (its state for the page, the simulator's status line)."""
        # Table: every screen (the screens part, the message line, the tower's signals)
        self.panel_size = drawing.panel_size
        self.panel = drawing.panel
        self.push = drawing.push
        self.pop = drawing.pop
        self.on_top = drawing.on_top
        self.redraw = drawing.redraw
        self.call_later = drawing.call_later
        self.now = drawing.now
        self.update_mood = drawing.update_mood
        self.frame = drawing.frame
        self.flush = drawing.flush
        self.watch = drawing.watch
        self.back_to_game = drawing.back_to_game
        self.game_screen = drawing.game_screen
        self.lines = drawing.lines
        self.toast = message.toast
        self.clear_message = message.clear_message
        self.toast_text = message.toast_text
        self.showing = message.showing
        self.message_lasts = message.message_lasts
        self.refuse = message.refuse
        self.signal = signals.signal
        self.tower_test = signals.tower_test
        self.show_timer = signals.show_timer
        self.timer_beep = signals.timer_beep
        # GameTable: the game screen, the scale's and the timers' hosts (the game's life, presses)
        self.home = game.home
        self.apply = game.apply
        self.undo = game.undo
        self.ask_undo = game.ask_undo
        self.confirm_task = game.confirm_task
        self.player_of = game.player_of
        self.confirm_question = game.confirm_question
        self.open_game_menu = game.open_game_menu
        self.has_timer = game.has_timer
        self.anytime = game.anytime
        self.end_early = game.end_early
        self.start_game = game.start_game
        self.start_named = game.start_named
        self.history = game.history
        self.answered = timers.answered
        self.time_bar = timers.time_bar
        self.tint = scale.tint
        self.task_line = scale.task_line
        self.held_for = presses.held_for
        self.handle = presses.handle
        # SelfTestTable: the parts' health
        self.parts = health.parts
        self.checks = health.checks
        self.title_note = health.title_note
        self.scale_line = health.scale_line
        # MenuTable and the page's TableDoor: settings, names, phones
        self.settings = prefs.settings
        self.saved_settings = prefs.saved
        self.names = prefs.names
        self.change_setting = prefs.change_setting
        self.save_settings = prefs.save_settings
        self.seat_name = prefs.seat_name
        self.table_seats = prefs.table_seats
        self.game_options = prefs.game_options
        self.set_names = prefs.set_names
        self.set_timer_preset = prefs.set_timer_preset
        self.phones = pairing.pairings
        self.phone_clock = pairing.clock
        self.phone_offer = pairing.phone_offer
        self.phone_code_void = pairing.phone_code_void
        self.withdraw_offer = pairing.withdraw_offer
        self.pair_phone = pairing.pair_phone
        self.phone_paired = pairing.phone_paired
        self.forget_phones = pairing.forget_phones
        self.set_phone_time = pairing.set_phone_time
        self.checked = resume.checked

    @property
    def session(self) -> Session | None:
        """The game in play, if any."""
        return self._game.session

    @property
    def events(self) -> list[str]:
        """The game in play's outcomes, oldest first."""
        return self._game.events

    @property
    def seats(self) -> dict[str, str]:
        """Seat button → player name of the game in play."""
        return self._game.seats

    @property
    def last_result(self) -> dict[str, Any] | None:
        """The history entry of the game that ended last while running."""
        return self._game.last_result

    @property
    def result_on_screen(self) -> Session | None:
        """The game over whose result is on screen, not filed yet."""
        return self._game.result_on_screen

    @property
    def screens(self) -> list[Any]:
        """The screen stack, the one showing last."""
        return self._drawing.stack

    @property
    def display(self) -> DisplayService:
        """The panel's service."""
        return self._drawing.display

    @property
    def lights(self) -> Lights:
        """The tower's light."""
        return self._signals.lights

    @property
    def dimmed(self) -> bool:
        """Whether the screen is dimmed for being idle."""
        return self._dimmer.dimmed

    @property
    def tower_status(self) -> str:
        """The tower's link: ``ok`` or ``lost``."""
        return self._health.tower_status

    @property
    def storage_fault(self) -> str | None:
        """Why the last save failed, until one succeeds again."""
        return self._saving.storage_fault

    @property
    def storage_faults(self) -> int:
        """How many saves failed while running."""
        return self._saving.storage_faults

    @property
    def last_storage_fault(self) -> str | None:
        """The last failed save's message."""
        return self._saving.last_storage_fault

    @property
    def companion(self) -> Any:
        """The companion page, when it serves (the page part sets it; a test may)."""
        return self._pairing.companion

    @companion.setter
    def companion(self, page: Any) -> None:
        self._pairing.companion = page

    def snapshot(self) -> dict[str, Any]:
        """The table as plain data, for views other than the OLED (:mod:`firmware_host.runtime.snapshot`)."""
        from firmware_host.runtime.snapshot import table_snapshot  # the page's alone: not at start

        return table_snapshot(self)
