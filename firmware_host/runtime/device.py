"""The device: one asyncio loop that owns the game, the screen, the tower, timers and input.

This is the composition root: it builds the parts (:mod:`firmware_host.runtime.parts`) and the
services (scale, timers), wires them, and runs the loop; each part does one job. The device is
the door the screens, the services and the page are built with (:mod:`firmware_host.ui.table`,
:class:`~firmware_host.scale.service.ScaleHost`, :class:`~firmware_host.timers.service.TimerHost`,
:class:`~firmware_host.web.door.TableDoor`): each member of a door is the part's own method,
handed out in :meth:`Device._open_doors` (a table a reader can grep). None of them holds the
device itself. Driver threads and gpiozero callbacks cross into the loop at one place,
:meth:`Device.post` (``loop.call_soon_threadsafe``); everything else runs on the loop. Every
action, whatever brought it, goes through ``apply`` (:meth:`GameLife.apply
<firmware_host.runtime.parts.game.GameLife.apply>`), which hands it to the session (engine
check, durable journal) before its effects show. ``docs/architecture.md`` traces one press.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal as signals
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.session import Session
from firmware_host.core.store import Store
from firmware_host.core.writer import ThreadWriter
from firmware_host.runtime import sdnotify
from firmware_host.runtime.display_service import DisplayService
from firmware_host.runtime.hardware import Hardware, build, panel_size
from firmware_host.runtime.lights import Lights
from firmware_host.runtime.parts.dimmer import Dimmer
from firmware_host.runtime.parts.game import GameLife
from firmware_host.runtime.parts.health import DISPLAY_STATES, Health
from firmware_host.runtime.parts.message import TOAST_CHARS, MessageLine
from firmware_host.runtime.parts.phones import Phones
from firmware_host.runtime.parts.presses import Presses
from firmware_host.runtime.parts.resume import Resume
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.settings import TableSettings
from firmware_host.runtime.parts.signals import Signals
from firmware_host.runtime.parts.voice import VoicePart, options_from, until_hub
from firmware_host.runtime.precedence import Precedence
from firmware_host.scale.service import ScaleService
from firmware_host.timers.service import TimerService
from firmware_host.ui.base import Message
from firmware_host.ui.menus import MainMenu
from games.core import T

__all__ = ["DISPLAY_STATES", "TOAST_CHARS", "Device"]

log = logging.getLogger(__name__)


class Device:
    """The running device. Build it, then ``await run()``; :meth:`stop` ends it.

    Its parts: ``prefs`` (settings and names), ``signals`` (the tower), ``message`` (the message
    line), ``drawing`` (the screen stack and the panel), ``saving`` (writes in flight, faults,
    documents), ``pairing`` (phones), ``dimmer``, ``health`` (faults, self-test, checks),
    ``game`` (the game's life), ``resumer`` and ``presses``.
    """

    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        seed: int | None = None,
        wall: Callable[[], float] = time.time,
        signals_on: bool = False,
    ) -> None:
        self.config = config
        self.store = store
        self.seed = seed
        self.wall = wall
        self.signals_on = signals_on
        self.stop_reason: str | None = None
        self._stopped = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self.ready = asyncio.Event()
        self.hw: Hardware | None = None
        # the state folder's documents are read in this order: their problems are named in it
        self.prefs = TableSettings(config, store)
        self.signals = Signals()
        self.message = MessageLine(self.signals.signal)
        self.drawing = Screens(panel_size(config), self.message, self.signals)
        self.precedence = Precedence()
        """Held from a button's edge until its frame is handed to the display: the page waits meanwhile."""
        self.drawing.frame_handed = self.precedence.release
        self.saving = Saving(store, self.post, self.message, self.drawing, self)
        self.pairing = Phones(store, self.saving, self.message, self.drawing, wall)
        store.read_doc("scale", repair=True)  # a damaged calibration is kept aside and named
        self.scale = ScaleService(self, store, self._scale_driver, self._scale_held)
        self.timers = TimerService(self, config.timers, config["timers"]["save_every"])
        self.dimmer = Dimmer(self.drawing, config["display"], self.prefs.settings)
        self.prefs.wire(self.saving, self.message, self.drawing, self.dimmer, self.signals, self.timers)
        self.health = Health(
            config, store, self.saving, self.message, self.drawing, self.signals, self.scale, self.timers,
            self._scale_driver,
        )  # fmt: skip
        parts = (self.message, self.signals, self.drawing, self.saving, self.pairing)
        self.game = GameLife(config, store, self, parts, self.timers, self.scale, seed, wall)
        self.resumer = Resume(store, self.game, wall, self._stopped.is_set)
        self.presses = Presses(config, self.game, self.dimmer)
        self.voice = VoicePart(options_from(config["voice"], self.prefs.saved), self.game.in_play)
        self.prefs.voice = until_hub(self.voice, self.game, self.timers)  # the hub subscribes it instead
        # the hooks by which a lower part tells a higher one
        self.message.redraw = self.drawing.redraw
        self.drawing.want_scale = self.scale.want
        self.drawing.writing = lambda: bool(self.saving.inflight)
        self.drawing.players = self.game.names_at_table
        self.saving.handle = self.presses.handle
        self.saving.on_failure = self.game.on_save_failed
        self._open_doors()

    def _open_doors(self) -> None:
        """Each door's members, from the part that keeps them (see :mod:`firmware_host.ui.table`)."""
        drawing, message, game, health, prefs, pairing = (
            self.drawing, self.message, self.game, self.health, self.prefs, self.pairing,
        )  # fmt: skip
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
        self.toast = message.toast
        self.clear_message = message.clear_message
        self.toast_text = message.toast_text
        self.showing = message.showing
        self.message_lasts = message.message_lasts
        self.refuse = message.refuse
        self.signal = self.signals.signal
        self.tower_test = self.signals.tower_test
        self.show_timer = self.signals.show_timer
        self.timer_beep = self.signals.timer_beep
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
        self.answered = self.timers.answered
        self.time_bar = self.timers.time_bar
        self.tint = self.scale.tint
        self.task_line = self.scale.task_line
        self.held_for = self.presses.held_for
        self.handle = self.presses.handle
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
        self.checked = self.resumer.checked

    # -- the parts' state the doors read (live: the parts replace these values) -------------------------
    @property
    def session(self) -> Session | None:
        """The game in play, if any."""
        return self.game.session

    @property
    def events(self) -> list[str]:
        """The game in play's outcomes, oldest first."""
        return self.game.events

    @property
    def seats(self) -> dict[str, str]:
        """Seat button → player name of the game in play."""
        return self.game.seats

    @property
    def last_result(self) -> dict[str, Any] | None:
        """The history entry of the game that ended last while running."""
        return self.game.last_result

    @property
    def result_on_screen(self) -> Session | None:
        """The game over whose result is on screen, not filed yet."""
        return self.game.result_on_screen

    @property
    def screens(self) -> list[Any]:
        """The screen stack, the one showing last."""
        return self.drawing.stack

    @property
    def display(self) -> DisplayService:
        """The panel's service."""
        return self.drawing.display

    @property
    def lights(self) -> Lights:
        """The tower's light."""
        return self.signals.lights

    @property
    def dimmed(self) -> bool:
        """Whether the screen is dimmed for being idle."""
        return self.dimmer.dimmed

    @property
    def tower_status(self) -> str:
        """The tower's link: ``ok`` or ``lost``."""
        return self.health.tower_status

    @property
    def storage_fault(self) -> str | None:
        """Why the last save failed, until one succeeds again."""
        return self.saving.storage_fault

    @property
    def storage_faults(self) -> int:
        """How many saves failed while running."""
        return self.saving.storage_faults

    @property
    def last_storage_fault(self) -> str | None:
        """The last failed save's message."""
        return self.saving.last_storage_fault

    @property
    def companion(self) -> Any:
        """The companion page, when it serves (set by whoever starts it)."""
        return self.pairing.companion

    @companion.setter
    def companion(self, page: Any) -> None:
        self.pairing.companion = page

    def snapshot(self) -> dict[str, Any]:
        """The table as plain data, for views other than the OLED (:mod:`firmware_host.runtime.snapshot`)."""
        from firmware_host.runtime.snapshot import table_snapshot  # the page's alone: not at start

        return table_snapshot(self)

    # -- life cycle -------------------------------------------------------------------------------
    async def run(self) -> None:
        """Bring the hardware up, resume or show the menu, serve until :meth:`stop`."""
        self.loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self.precedence.clock = self.loop.time
        interval = sdnotify.watchdog_interval()
        if interval:  # fed from the start on (systemd's watchdog runs from READY, sent before this)
            sdnotify.notify("WATCHDOG=1")
            self._tasks.append(asyncio.create_task(self._feed_watchdog(interval), name="watchdog"))
        if not getattr(self.loop, "inline_io", False):  # virtual time stays deterministic: inline
            self.store.writer = ThreadWriter()
        self.hw = build(
            self.config, self._edge_from_thread, self._tower_from_thread, self.loop.time, self.loop.call_later,
            loop=self.loop,
        )  # fmt: skip
        display = self.drawing.attach(self.hw.display_opener)
        self.signals.attach(self.hw.tower, self.settings["sound"])
        self.voice.start()
        self._tasks.append(asyncio.create_task(display.run(), name="display"))
        display.set_contrast(self.settings["brightness"])
        if self.hw.scale is not None:
            self.scale.attach(self.hw.scale, self._scale_sample_from_thread, self._scale_fault_from_thread)
        self.drawing.stack = [MainMenu(self)]
        await self.resumer.resume()
        self._tasks.extend(self.resumer.tasks)
        for problem in self.hw.problems:
            self.toast(problem)
        self.saving.show_problems()
        if self.signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self.loop.add_signal_handler(sig, self.stop, T("Stopped"))
        self._tasks.append(asyncio.create_task(self.drawing.swim(), name="burn-in"))
        self.dimmer.wake()
        self.redraw()
        self.game.changed()
        sdnotify.notify(sdnotify.UP)
        age = sdnotify.process_age() if self.signals_on else None
        if age is not None:
            log.info("the table is up %.2f s after its start", age)
        self.ready.set()
        try:
            await self._stopped.wait()
        finally:
            await self._shutdown()

    def stop(self, reason: str = T("Stopped")) -> None:
        """End :meth:`run` cleanly (SIGTERM, the end of a script); the journal is already durable."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self._stopped.set()

    async def stopped(self) -> None:
        """Wait until :meth:`stop` is called."""
        await self._stopped.wait()

    async def _shutdown(self) -> None:
        sdnotify.notify("STOPPING=1")
        self.timers.close()  # the clocks as they are at the stop, before anything else takes time
        with contextlib.suppress(OSError):
            self.game.file_over()  # a result left on screen is filed (else the next start files it)
        await self.saving.close(self.session.journal if self.session is not None else None)
        self.drawing.stack.append(Message(self, "tablemate", self.stop_reason or T("Stopped")))
        self.dimmer.close()
        self.drawing.draw()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.display.flush(), 2.0)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self.signals.close()
        self.voice.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.voice.wait_closed(), 2.0)
        if self.hw is not None:
            self.hw.close()
        if self.signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self.loop.remove_signal_handler(sig)

    async def _feed_watchdog(self, interval: float) -> None:
        while True:
            sdnotify.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    # -- the one door in from other threads ---------------------------------------------------------
    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop; the only way driver threads reach the device.

        From the loop's own thread (mock pins, the simulated scale) no wake-up is needed.
        """
        if threading.get_ident() == self._loop_thread:
            self.loop.call_soon(fn, *args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def _edge_from_thread(self, button: str, pressed: bool, t: float) -> None:
        self.precedence.hold()  # before it is posted: the page's work already queued waits behind it
        self.post(self.presses.edge, button, pressed, t)

    def _tower_from_thread(self, status: str, detail: str | None) -> None:
        self.post(self.health.on_tower, status, detail)

    def _scale_sample_from_thread(self, t: float, raw: int) -> None:
        self.post(self.scale.sample, t, raw)

    def _scale_fault_from_thread(self, reason: str) -> None:
        self.post(self.scale.on_fault, reason)

    def _scale_driver(self) -> Any:
        return self.hw.scale if self.hw is not None else None

    def _scale_held(self) -> bool:
        return any(getattr(screen, "uses_scale", False) for screen in self.screens)
