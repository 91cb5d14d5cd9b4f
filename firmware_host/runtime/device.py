"""The device: one asyncio loop that owns the game, the screen, the tower, timers and input.

This is the composition root: it builds the services and the screens and is the one object
that implements their doors — :class:`~firmware_host.scale.service.ScaleHost`,
:class:`~firmware_host.timers.service.TimerHost` and the screens' tables
(:mod:`firmware_host.ui.table`). None of them holds the device itself. Driver threads and
gpiozero callbacks cross into the loop at one place, :meth:`Device.post`
(``loop.call_soon_threadsafe``); everything else runs on the loop. Every action, whatever
brought it, goes through :meth:`Device.apply`, which hands it to the session (engine check,
durable journal) before its effects show.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import signal as signals
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from PIL import Image

from drivers.buttons import Press, PressDecoder
from drivers.tower import TowerState
from firmware_host.core.config import BUTTONS, TIMER_SOUNDS, Config
from firmware_host.core.fsio import storage_message
from firmware_host.core.i18n import LANGUAGES, set_language, tr
from firmware_host.core.pairing import Pairings
from firmware_host.core.phone_clock import PhoneClock
from firmware_host.core.replay import Script, ScriptError
from firmware_host.core.session import Session
from firmware_host.core.store import Store, StoreError
from firmware_host.core.writer import Broken, ThreadWriter, Writer
from firmware_host.runtime import sdnotify
from firmware_host.runtime.display_service import DisplayService
from firmware_host.runtime.hardware import Hardware, build, panel_size
from firmware_host.runtime.lights import Lights
from firmware_host.scale.service import ScaleService
from firmware_host.timers.service import TimerService
from firmware_host.ui.base import Confirm, Message, Screen
from firmware_host.ui.game import GameScreen
from firmware_host.ui.menus import GameMenu, GameOver, MainMenu, final_words
from firmware_host.ui.panel import layout_panel, to_panel
from firmware_host.ui.render import Frame, Row, compose, naming, on_panel, render
from games.core import Action, Effect, Option, Refused, T, Task, Text, join
from games.core.text import Joined

log = logging.getLogger(__name__)

SHIFT_EVERY = 60.0
"""Seconds between moves of the picture against burn-in."""
SHIFTS = ((0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1))
TOAST_SECONDS = 2.5
"""How long a passing message (a refusal, a fault, a setting changed) stays on its line."""
UNDO_ON_LOOP = 20
"""Actions an undo may replay on the loop (a few milliseconds); a longer replay runs off it."""
MESSAGE_PARTS = 6
"""The most messages of one moment shown together (the newest): more than two lines hold."""
TOAST_CHARS = 160
"""The longest message: more than its two lines show, short enough to fit in a blink."""
EVENTS_KEPT = 40
"""Outcomes of the game in play kept for the game menu's "What happened" screen."""
DISPLAY_STATES = {"ok": T("ok"), "degraded": T("degraded"), "absent": T("absent")}
"""The display's state as the self-test shows it."""


def _cut(text: str) -> str:
    """``text`` shortened to :data:`TOAST_CHARS` (a message longer than its lines anyway)."""
    return text if len(text) <= TOAST_CHARS else text[: TOAST_CHARS - 1] + "…"


class Device:
    """The running device. Build it, then ``await run()``; :meth:`stop` ends it."""

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
        self.session: Session | None = None
        self.seats: dict[str, str] = {}
        """Seat button → player name of the game in play."""
        self.screens: list[Screen] = []
        self._history: tuple[tuple[int, int, int], list[dict[str, Any]]] | None = None
        """The history as last read, keyed on its file's inode, mtime and size."""
        self.saved_settings = store.read_doc("settings", repair=True)
        """``settings.json`` as read once at start; :meth:`save_settings` is its one writer."""
        self.settings = {
            "brightness": config["display"]["brightness"],
            "sound": config["tower"]["sound"],
            "timer_sound": config["timers"]["sound"],
            "language": config["display"]["language"],
        }
        self._take_settings()
        self.names: dict[str, str] = self._saved_names()
        """Seat names set from a paired phone (``settings.json``), over the config file's."""
        self.last_result: dict[str, Any] | None = None
        """The history entry of the game that ended last while running (its result on the page)."""
        self.watchers: list[Callable[[], None]] = []
        """Called after every frame drawn: the views that render :meth:`snapshot` (the page)."""
        self.companion: Any = None
        """The companion page, when it serves (set by whoever starts it): its ``url()``."""
        self.phones = Pairings(store.read_doc("phones", repair=True), self._save_phones)
        self.phone_clock = PhoneClock()
        """The time a paired phone gave (this boot's games are dated by it when the clock never synced)."""
        self._code_handle: asyncio.TimerHandle | None = None
        """The redraw that shows the pairing code void when it expires."""
        """The phones paired with the companion page (``phones.json``)."""
        store.read_doc("scale", repair=True)  # a damaged calibration is kept aside and named
        set_language(self.settings["language"])
        self.decoders = {
            b: PressDecoder(b, config["buttons"]["long_press"], config["buttons"]["debounce"]) for b in BUTTONS
        }
        self.hw: Hardware | None = None
        self.panel_size = panel_size(config)
        """The size of the panel's picture (rotation applied): what every frame is drawn to."""
        self.panel = layout_panel(self.panel_size)
        """The panel the screens lay out for (the configured one's size, see :mod:`firmware_host.ui.panel`)."""
        self.display = DisplayService(None)
        self.lights = Lights(None)
        self.tower_status = "ok"
        self.scale = ScaleService(self, store, self._scale_driver, self._scale_held)
        self.timers = TimerService(self, config.timers, config["timers"]["save_every"])
        self.stop_reason: str | None = None
        self._stopped = asyncio.Event()
        self._message = ""
        self._parts: list[str] = []
        """The messages of one moment that show together on the message line."""
        self._message_at = -1.0
        self._message_sticky = False
        self._message_handle: asyncio.TimerHandle | None = None
        self.events: list[str] = []
        """The game in play's outcomes, oldest first (what its engine said), for "What happened"."""
        self.said: list[str] = []
        """What the last action's engine said (the game-over screen shows it under the result)."""
        self._asleep: set[str] = set()
        """Buttons whose press woke the dimmed screen: that press only wakes it."""
        self._dirty = False
        self._shift = 0
        self._dimmed = False
        self._dim_handle: asyncio.TimerHandle | None = None
        self._tasks: list[asyncio.Task] = []
        self.ready = asyncio.Event()
        self.checked = asyncio.Event()
        """Set once a game resumed from a snapshot has been checked against its replay (at once
        when there is none to check)."""
        self.storage_fault: str | None = None
        """Why the last save failed ("Cannot save: disk full"…), until one succeeds again."""
        self.storage_faults = 0
        """How many saves failed while running (``sim --script`` exits 2 when any did)."""
        self.last_storage_fault: str | None = None
        self._inflight = 0
        """Journal writes handed to the writer and not yet durable."""
        self._when_saved: list[Callable[[], None]] = []
        """What shows once every write in flight is durable (an action's effects)."""
        self._held: list[Press] = []
        """Presses that arrived while a write was in flight, in order."""
        self._draw_held = False
        self._shown_problems: set[str] = set()
        self._checks: list[str] | None = None
        """The doctor's self-check lines, once run (:meth:`checks`)."""
        self._checks_running = False
        self._read_rates: Any = None
        """The scale's reads per minute for the Self-test (made when first asked)."""
        self._over: tuple[Session, dict[str, Any], float, float] | None = None
        """The game whose result is on screen, not filed yet (its last move can be undone), with
        the timer's figures, when it ended and the seconds it had been in play."""
        self._busy: str | None = None
        """What the device is working out off the loop ("Resuming…", "Undoing…"), if anything:
        presses are answered with it, actions refused until it is done."""
        self._move: int | None = None
        """Actions applied by the press being handled (``None`` outside a press): the second and
        later are automatic ones of the same move, taken back with it by one undo."""

    def _take_settings(self) -> None:
        """The saved settings over the config's, each checked: a bad value is named, not used."""
        checks: dict[str, Callable[[Any], bool]] = {
            "brightness": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255,
            "sound": lambda v: isinstance(v, bool),
            "timer_sound": lambda v: v in TIMER_SOUNDS,
            "language": lambda v: v in LANGUAGES,
        }
        for key, ok in checks.items():
            if key not in self.saved_settings:
                continue
            value = self.saved_settings[key]
            if ok(value):
                self.settings[key] = value
            else:
                shown = value if not isinstance(value, float) or math.isfinite(value) else "too big"
                self.store.problems.append(
                    T("settings.json: {key} {value} unusable, default kept", key=key, value=repr(shown))
                )
                del self.saved_settings[key]

    def _saved_names(self) -> dict[str, str]:
        """The seat names of ``settings.json``, checked as the config file's are (else dropped, named)."""
        from firmware_host.core.validators import ValidatorError, check_seat_names

        saved = self.saved_settings.get("names")
        if saved is None or saved == {}:
            return {}
        try:
            return check_seat_names(saved, {})
        except ValidatorError as exc:
            self.store.problems.append(
                T("settings.json: {key} {value} unusable, default kept", key="names", value=str(exc))
            )
            del self.saved_settings["names"]
            return {}

    # -- life cycle -------------------------------------------------------------------------------
    async def run(self) -> None:
        """Bring the hardware up, resume or show the menu, serve until :meth:`stop`."""
        self.loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        if not getattr(self.loop, "inline_io", False):  # virtual time stays deterministic: inline
            self.store.writer = ThreadWriter()
        self.hw = build(
            self.config,
            self._edge_from_thread,
            self._tower_from_thread,
            self.loop.time,
            self.loop.call_later,
            loop=self.loop,
        )
        self.display = DisplayService(self.hw.display_opener)
        self.lights = Lights(self.hw.tower, self.settings["sound"])
        self._tasks.append(asyncio.create_task(self.display.run(), name="display"))
        self.display.set_contrast(self.settings["brightness"])
        if self.hw.scale is not None:
            self.scale.attach(self.hw.scale, self._scale_sample_from_thread, self._scale_fault_from_thread)
        self.screens = [MainMenu(self)]
        await self._resume()
        for problem in self.hw.problems:
            self.toast(problem)
        self._show_problems()
        if self.signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self.loop.add_signal_handler(sig, self.stop, T("Stopped"))
        interval = sdnotify.watchdog_interval()
        if interval:
            self._tasks.append(asyncio.create_task(self._feed_watchdog(interval), name="watchdog"))
        self._tasks.append(asyncio.create_task(self._swim(), name="burn-in"))
        self._wake()
        self.redraw()
        self._changed()
        sdnotify.notify("READY=1\nSTATUS=ready")
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
            self._file_over()  # a result left on screen is filed (else the next start files it)
        await self._close_writer()
        self.screens.append(Message(self, "tablemate", self.stop_reason or T("Stopped")))
        self._dimmed = False
        self.display.set_contrast(self.settings["brightness"])
        self._draw()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.display.flush(), 2.0)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._dim_handle is not None:
            self._dim_handle.cancel()
        self.lights.close()
        if self.hw is not None:
            self.hw.close()
        if self.signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self.loop.remove_signal_handler(sig)

    async def _close_writer(self) -> None:
        """Let the writes in flight finish (they were accepted), close the journal and the writer."""
        writer = self.store.writer
        if self.session is not None:
            journal = self.session.journal
            writer.submit(journal.close)
        if isinstance(writer, ThreadWriter):
            drained = await asyncio.get_running_loop().run_in_executor(None, writer.drain, 5.0)
            if drained:  # else the storage hangs: leave its (daemon) thread rather than hang the stop
                writer.close()
            else:
                log.error("stopping with journal writes still in flight (the storage does not answer)")
        if writer.failed is not None:  # a save of the stop (the filing) failed: the exit status says so
            self._count_fault(writer.failed)
        self.store.writer = Writer()

    async def _feed_watchdog(self, interval: float) -> None:
        while True:
            sdnotify.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    async def _resume(self) -> None:
        """Resume the game left in the state folder, off the loop (the panel says so meanwhile)."""
        self._busy = T("Resuming…")
        self.toast(self._busy, until_input=True)
        try:
            session = await self.loop.run_in_executor(None, Session.resume, self.store, self.wall, self.loop.time)
        except (StoreError, ScriptError) as exc:
            self.store.writer.reset()  # a write the resume needed failed: the next start tries afresh
            log.error("cannot resume: %s", exc)
            self._shown_problems.add(str(exc))
            self.push(Message(self, T("Cannot resume"), str(exc), on_ok=self.home))
            return
        except Exception as exc:  # the boot goes on whatever the files hold
            log.exception("cannot resume")
            self.push(Message(self, T("Cannot resume"), f"{type(exc).__name__}: {exc}"[:200], on_ok=self.home))
            return
        finally:
            self._busy = None
            self.clear_message()
        if session is not None and not getattr(self.loop, "inline_io", False):
            gc.freeze()  # the journal read lives as long as the game: later collections skip it
        if session is not None:
            self._enter(session)
            if session.skipped:
                self.toast(session.skipped)
            if session.unchecked is not None:
                self._tasks.append(asyncio.create_task(self._check_resume(session), name="resume-check"))
                return
        self.checked.set()

    async def _check_resume(self, session: Session) -> None:
        """A game rebuilt from a snapshot: replay its actions from the first, off the loop (on a
        thread of its own: undos and the page keep the default one) and compare. A snapshot is
        only a shortcut: where they differ the replay's state is kept, and a fresh snapshot saved."""
        at = session.snapshot_used
        try:
            if getattr(self.loop, "inline_io", False):  # virtual time stays deterministic: inline
                replay = session.replay_whole(lambda: False)
            else:
                with ThreadPoolExecutor(1, thread_name_prefix="resume-check") as pool:
                    replay = await self.loop.run_in_executor(pool, session.replay_whole, self._stopped.is_set)
            while self._busy is not None:  # an undo is being worked out: it must not see the game change
                await asyncio.sleep(0.05)
            if replay is None or session.unchecked is None or self.session is not session:
                return
            if not session.agrees(replay):
                log.warning("the snapshot resumed at action %d is not what its actions lead to: replayed instead", at)
                self.events = self._past_events(session)
                self._after_change()
        except Exception:  # the check is a safeguard: it never stops the table
            log.exception("checking the resumed game failed")
        finally:
            self.checked.set()

    def _show_problems(self) -> None:
        """Damaged files found and kept aside (or settings not used): one message to read."""
        new = [p for p in self.store.problems if p not in self._shown_problems]
        if not new:
            return
        for problem in new:
            log.warning("state folder: %s", problem)
            self._shown_problems.add(problem)
        self.push(Message(self, T("Files checked"), join(new, "\n"), on_ok=self.pop))

    # -- saving -------------------------------------------------------------------------------------
    def _watch(self, future: Future) -> None:
        """Take a journal write in flight: effects and presses wait until it is durable."""
        self._inflight += 1
        future.add_done_callback(lambda f: self.post(self._written, f))

    def _when_durable(self, then: Callable[[], None]) -> None:
        """Run ``then`` once every write in flight is on disk (at once when none is)."""
        if self._inflight:
            self._when_saved.append(then)
        else:
            then()

    def _written(self, future: Future) -> None:
        self._inflight -= 1
        error = future.exception()
        if error is not None:
            self._save_failed(error)
        elif self.storage_fault is not None and not self.store.writer.failed and future.result() is not False:
            self.storage_fault = None
            self.toast(T("Saving again"))
        if any(p not in self._shown_problems for p in self.store.problems):  # a file kept aside meanwhile
            self._show_problems()
        if self._inflight:
            return
        waiting, self._when_saved = self._when_saved, []
        for then in waiting:
            then()
        while self._held and not self._inflight:
            self.handle(self._held.pop(0))
        if self._draw_held:
            self._draw_held = False
            self.redraw()

    def _storage_error(self, exc: OSError, refuse: bool = True) -> None:
        """A save outside the journal failed: say why (refusing what needed it)."""
        message = storage_message(exc)
        log.error("save failed: %s", exc)
        self.last_storage_fault = message
        self.storage_faults += 1
        if refuse:
            self.refuse(message)
        else:
            self.toast(message, now=True)

    def _count_fault(self, error: BaseException) -> str:
        """Log and count one failed save (``sim --script`` and ``run`` exit 2 when any did); its message."""
        cause = error.cause if isinstance(error, Broken) else error
        message = storage_message(cause)
        log.error("save failed: %s", cause)
        self.last_storage_fault = message
        self.storage_faults += 1
        return message

    def _save_failed(self, error: BaseException) -> None:
        """A write failed: back to what is on disk, say why, pause the turn timer, refuse play
        until saving works (the next action tries again)."""
        if self.store.writer.failed is None:
            return  # a write given before the failure was handled: nothing new
        message = self.storage_fault = self._count_fault(error)
        self._when_saved.clear()
        self._held.clear()
        session = self.session
        if session is not None:  # back to what is on disk (a game that ended keeps its result shown)
            session.rollback()
            created = session.journal.created
            if created is not None and created.done() and created.exception() is not None:
                self.session = None  # the game never started on disk
            self.home()
        self.store.writer.reset()
        self._changed()
        if self.timers.clocks is not None and not self.timers.paused:
            self.timers.toggle_pause()  # the game is paused: nobody's clock runs while play is refused
        self.refuse(message)

    # -- the one door in from other threads ---------------------------------------------------------
    @staticmethod
    def _mono() -> float:
        """The loop's monotonic clock (virtual in the simulator): what game durations are measured on."""
        return asyncio.get_running_loop().time()

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop; the only way driver threads reach the device.

        From the loop's own thread (mock pins, the simulated scale) no wake-up is needed.
        """
        if threading.get_ident() == self._loop_thread:
            self.loop.call_soon(fn, *args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def _edge_from_thread(self, button: str, pressed: bool, t: float) -> None:
        self.post(self._edge, button, pressed, t)

    def _tower_from_thread(self, status: str, detail: str | None) -> None:
        self.post(self._tower_status, status, detail)

    def _scale_sample_from_thread(self, t: float, raw: int) -> None:
        self.post(self.scale.sample, t, raw)

    def _scale_fault_from_thread(self, reason: str) -> None:
        self.post(self.scale.on_fault, reason)

    # -- input --------------------------------------------------------------------------------------
    def _edge(self, button: str, pressed: bool, t: float) -> None:
        press = self.decoders[button].edge(pressed, t)
        if pressed:
            if self._dimmed:
                self._asleep.add(button)
            self._wake()
            if button not in self._asleep:
                self._down(button)
        if press is not None:
            if button in self._asleep:
                self._asleep.discard(button)  # the press that woke the screen only wakes it
                self.redraw()
                return
            self.handle(press)

    def _down(self, button: str) -> None:
        """Tell the screen on top that a button went down (a held seat counting its answer)."""
        down = getattr(self.screens[-1], "button_down", None) if self.screens else None
        if down is None:
            return
        try:
            down(button)
        except Exception:
            log.exception("button %s down failed", button)

    def held_for(self, button: str) -> float | None:
        """How long ``button`` has been held down now, or ``None`` when it is up."""
        since = self.decoders[button].pressed_at
        return None if since is None else self.loop.time() - since

    def handle(self, press: Press) -> None:
        """One finished press, to the screen on top. A bug in a screen never stops the device.

        While a game is in play, a long ``ok`` pauses or resumes its turn timer on every screen
        (screens that read raw buttons, like the self-test, excepted); a short ``ok`` picks.
        """
        self._wake()
        if self._busy is not None:  # resuming or undoing off the loop: answered, not acted on
            self.toast(self._busy, now=True)
            return
        if self._inflight:  # the last action is not durable yet: this one waits its turn
            self._held.append(press)
            return
        self.clear_message()  # the next input: the last outcome has been seen
        self._move = 0
        try:
            with on_panel(self.panel):  # a screen opened by this press lays out for the panel
                self._press(press)
        finally:
            self._move = None
        self.redraw()

    def _press(self, press: Press) -> None:
        top = self.screens[-1] if self.screens else None
        try:
            if (
                press.button == "ok"
                and press.long
                and self.session is not None
                and not getattr(top, "raw_buttons", False)
            ):
                self.timers.toggle_pause()
            elif top is not None:
                top.press(press)
        except OSError as exc:  # a save outside the journal (settings, calibration)
            self._storage_error(exc)
        except Exception:
            log.exception("press %s failed", press)
            self.home()
            self.refuse(T("Internal error: back to the start"))

    def _tower_status(self, status: str, detail: str | None) -> None:
        if status != self.tower_status:
            self.tower_status = status
            if status == "lost":
                self.toast(T("Tower unplugged"))
            self.redraw()

    # -- games ------------------------------------------------------------------------------------------
    def start_game(
        self,
        game: str,
        seats: list[str],
        start: str | None = None,
        options: dict[str, Any] | None = None,
        names: dict[str, str] | None = None,
    ) -> bool:
        """Start a game with the players of ``seats`` (``start``: the seat that begins, else random).

        An unfinished game is ended early first. Seat order is the clockwise order; the list of
        players is turned so the starting seat comes first.
        """
        if not seats:
            self.refuse(T("no seats in play"))
            return False
        names = names or {s: self.config.seat_name(s) for s in seats}
        order = list(seats)
        if start is None:
            start = order[(self.seed if self.seed is not None else int(self.wall() * 1000)) % len(order)]
        if start in order:
            i = order.index(start)
            order = order[i:] + order[:i]
        options = {**self.config.games.get(game, {}), **(options or {})}
        players = [names[s] for s in order]
        try:
            Script(game, players, 0, options).start()  # a game that cannot start ends nothing
        except ScriptError as exc:
            self._cannot_start(game, exc)
            return False
        ended = self.session is not None or self._over is not None
        self._file_over()
        if self.session is not None:
            self.end_early()
        try:
            session = Session.start(
                self.store,
                game,
                players,
                options,
                self.seed,
                self.wall,
                meta={"seats": {s: names[s] for s in seats}},
                watch=self._watch,
                settle=not ended,
                mono=self._mono,
            )
        except ScriptError as exc:
            self.refuse(str(exc))
            return False
        except OSError as exc:  # the journal could not be made (or a game left unfiled be filed)
            self._storage_error(exc)
            self.storage_fault = self.last_storage_fault  # shown until a save works again
            self.store.writer.reset()  # nothing of it is in memory: the next start tries afresh
            return False
        self._enter(session)
        self._changed()
        return True

    def _cannot_start(self, game: str, error: ScriptError) -> None:
        """A game's options refused: the reason whole, on a screen of its own, naming the config
        file and its section when the options came from there (a toast would cut it)."""
        path = self.config.path
        text = str(error)
        if path is not None and self.config.games.get(game):
            text = T("{file} [games.{game}]: {error}", file=path.name, game=game, error=text)
        self.lights.signal("refused")
        self.push(Message(self, T("Cannot start"), text, on_ok=self.pop))

    def start_named(self, game: str, names: list[str]) -> bool:
        """Start ``game`` with these players on seats p1, p2… in order (the script's ``start``)."""
        if len(names) > 6:
            self.refuse(T("at most 6 seats"))
            return False
        seats = [f"p{i + 1}" for i in range(len(names))]
        return self.start_game(game, seats, seats[0] if seats else None, None, dict(zip(seats, names, strict=True)))

    def _enter(self, session: Session) -> None:
        self.session = session
        self.events = self._past_events(session)
        session.watch = self._watch
        seats = session.journal.last_meta("seats")
        if not seats:
            seats = {f"p{i + 1}": p for i, p in enumerate(session.base.players)}
        self.seats = dict(seats)
        self.screens = [MainMenu(self), GameScreen(self)]
        self.redraw()

    def player_of(self, button: str) -> str | None:
        """The player at a seat button, in the game in play."""
        return self.seats.get(button)

    def confirm_question(self, action: Action) -> str | None:
        """The game's question before ``action``, when it cannot be taken back at a glance."""
        session = self.session
        return session.engine.confirm.get(action.get("type", "")) if session is not None else None

    def apply(self, action: Action) -> bool:
        """Hand one action to the game: checked, journaled, then shown. False when refused."""
        if self.session is None:
            self.toast(T("No game in play"))
            return False
        if self._busy is not None:  # the game is being worked out off the loop
            self.refuse(self._busy)
            return False
        try:
            effects = self.session.apply(action, joins=bool(self._move))
        except Refused as exc:
            self.refuse(str(exc))
            return False
        if self._move is not None:
            self._move += 1
        if self._message_at != self.loop.time():
            self.clear_message()  # the state changed: what an earlier message said may no longer hold
        self._when_durable(lambda: self._applied(effects))
        return True

    def _applied(self, effects: list[Effect]) -> None:
        """An action is durable: now its effects show."""
        if self.session is None:
            return
        self._play(effects)
        self._after_change()

    def refuse(self, reason: str) -> None:
        """Show why an action was refused, at once, with the tower's refusal signal."""
        self.toast(reason, now=True)
        self.lights.signal("refused")

    def _play(self, effects: list[Effect]) -> None:
        self.said = [e.value for e in effects if e.kind == "say"]
        for effect in effects:
            if effect.kind == "signal":
                self.lights.signal(effect.value)
            elif effect.kind == "say":
                self.events.append(effect.value)
                del self.events[:-EVENTS_KEPT]
                self.toast(effect.value, until_input=True)

    @staticmethod
    def _past_events(session: Session) -> list[str]:
        """The outcomes of the game in play so far (the session keeps them from its own replay)."""
        return session.outcomes()[-EVENTS_KEPT:]

    def _after_change(self) -> None:
        session = self.session
        assert session is not None
        if session.over:  # filed when the table leaves its result (the last move can still be undone)
            final = session.view()
            extra = self._history_extra()
            session.note("meta", {"over": {"at": len(session.actions), "extra": extra}})
            self._over = (session, extra, self.wall(), session.elapsed())
            self.session = None
            entry = session.history_entry("over", self._over[2], extra)
            self.last_result = entry
            self.screens = [
                MainMenu(self),
                GameOver(self, entry, final_words(final, self.said), undo=self.ask_undo),
            ]
            self.clear_message()  # what the last move brought is on the game-over screen now
        else:
            top = self._game_screen()
            if top is not None:
                top.reset()
        self._changed()
        self.redraw()

    def _history_extra(self) -> dict[str, Any]:
        """What the history keeps beside the session's own: the turn timers' figures, and the
        game's dates by a phone's clock when the table's never synced (see :meth:`set_phone_time`)."""
        extra = dict(self.timers.history_extra())
        session, now = self.session, self.phone_clock.now(self.loop.time())
        if session is not None and now is not None and not session.synced():
            extra.update({"started": round(now - session.elapsed(), 3), "ended": round(now, 3), "date_source": "phone"})
        return extra

    def set_phone_time(self, epoch: float) -> bool:
        """A paired phone's time (seconds since 1970, UTC), kept as an offset to the loop's
        monotonic clock; the system clock is never set. ``False`` when it is not believable."""
        return self.phone_clock.set(epoch, self.loop.time())

    def _game_screen(self) -> GameScreen | None:
        return next((s for s in self.screens if isinstance(s, GameScreen)), None)

    def _changed(self) -> None:
        self.timers.changed()
        self.scale.changed(self.session)
        self.update_mood()

    def update_mood(self) -> None:
        """Set the tower's lasting light from the screen on top (it changed, or its inputs did)."""
        top = self.screens[-1] if self.screens else None
        self.lights.set_mood(top.mood if top else "idle")

    def confirm_task(self, key: str) -> None:
        """The table did the job a :class:`~games.core.Task` prompt asked for: journal it, go on.

        Confirming changes no game state; the prompt that follows the job shows next.
        """
        if self.session is None:
            return
        self.session.confirm_task(key)
        self._when_durable(self._after_change_if_playing)

    def _after_change_if_playing(self) -> None:
        if self.session is not None:
            self._after_change()

    def ask_undo(self) -> None:
        """Ask the table to confirm undoing the last action, saying what it will take back (at
        game over too: its result stays on screen until the table says yes)."""
        session = self.session or self.result_on_screen
        if session is None or not session.actions:
            self.toast(T("Nothing to undo"))
            return
        said = session.last_move_said()
        question = T("Take back the last action?")
        if said:
            question = T("Take back the last action? {what}", what=join(list(said), " · "))
        self.push(Confirm(self, T("Undo"), question, self.undo if self.session is not None else self.undo_game_over))

    def undo(self, why: str | None = None) -> bool:
        """Take back the last move (an action and the automatic ones it caused), computed once;
        ``why``: the table is told the reason instead of what was undone (the scale took a place
        back).

        A long replay (far from a checkpoint) is worked out off the loop while the panel says
        "Undoing…" and presses are answered; then the undo is journaled and shown.
        """
        session = self.session
        if session is None or self._busy is not None or not session.actions:
            return False
        if session.undo_cost() <= UNDO_ON_LOOP:
            return self._undo(session, None, why)
        self._busy = T("Undoing…")
        self.toast(self._busy, until_input=True)
        future = self.loop.run_in_executor(None, session.prepare_undo)
        future.add_done_callback(lambda f: self._undo_prepared(session, f, why))
        return True

    def _undo_prepared(self, session: Session, future: asyncio.Future, why: str | None = None) -> None:
        self._busy = None
        self.clear_message()
        if self.session is not session:
            return
        if future.cancelled():  # the worker went away (a stop): the game stays as it is
            return
        error = future.exception()
        if error is not None:  # not tried again on the loop: it would fail the same way, there
            log.error("undo failed: %r", error)
            self.refuse(T("Cannot undo: {reason}", reason=f"{type(error).__name__}: {error}"[:120]))
            return
        self._undo(session, future.result(), why)

    def _undo(self, session: Session, prepared: Any, why: str | None = None) -> bool:
        if not session.undo(prepared):
            return False
        self.events = self._past_events(session)
        self.clear_message()
        said = session.undone_said
        self._when_durable(lambda: self._undone(said, why))
        return True

    def undo_game_over(self) -> None:
        """At game over (the result still on screen, not yet filed): take the last move back."""
        if self._over is None:
            return
        session, self._over = self._over[0], None
        self.session = session
        self.last_result = None  # in play again: no longer a result
        self.screens = [MainMenu(self), GameScreen(self)]
        if not self.undo():
            self._changed()
            self.redraw()

    @property
    def result_on_screen(self) -> Session | None:
        """The game over whose result is on screen, not filed yet (its last move can be undone)."""
        return self._over[0] if self._over is not None else None

    def _file_over(self) -> None:
        """File the game whose result is on screen (the table left it, or a new game starts)."""
        if self._over is not None:
            session, extra, ended, played = self._over
            self._over = None
            session.finish("over", extra, at=ended, played=played)

    def _undone(self, said: tuple[str, ...] = (), why: str | None = None) -> None:
        if why is not None:
            self.toast(why)
        else:
            self.toast(T("Undone: {what}", what=join(list(said), " · ")) if said else T("Undone"))
        screen = self._game_screen()
        if screen is not None:
            screen.reset()
        self._changed()
        self.redraw()

    def end_early(self) -> None:
        """End the game in play now; it goes to the history as ended early."""
        if self.session is None:
            return
        entry = self.session.finish("abandoned", self._history_extra())
        self.last_result = entry
        self.session = None
        self.screens = [MainMenu(self), GameOver(self, entry)]
        self._changed()
        self.redraw()

    def open_game_menu(self) -> None:
        """The in-game menu."""
        self.push(GameMenu(self))

    # -- screens ------------------------------------------------------------------------------------------
    def push(self, screen: Screen) -> None:
        """Show ``screen`` on top."""
        self.screens.append(screen)
        self._screen_changed()

    def pop(self) -> None:
        """Leave the screen on top."""
        if len(self.screens) > 1:
            self.screens.pop()
        self._screen_changed()

    def home(self) -> None:
        """Back to the game in play, or the main menu (a game over left is filed now)."""
        self._file_over()
        self.screens = [MainMenu(self)]
        if self.session is not None:
            self.screens.append(GameScreen(self))
        self._screen_changed()

    def _screen_changed(self) -> None:
        if self.screens:
            self.screens[-1].shown()
        self.update_mood()
        self.redraw()

    def toast(self, text: str, seconds: float = TOAST_SECONDS, now: bool = False, until_input: bool = False) -> None:
        """Show ``text`` on the message line (above the hint and the highlighted option).

        A new message replaces the one showing, except that messages of the same moment (the
        outcomes of one action) are shown together. A refusal or a fault (``now``) always
        replaces. An outcome (``until_input``) stays until the next press; any other message
        goes after ``seconds``.
        """
        if not isinstance(text, Text):  # a refusal may quote a player's input: keep fitting it cheap
            text = _cut(text)
        elif len(text) > TOAST_CHARS and not isinstance(text, Joined):  # its quoted values cut, still translatable
            text = Text(text.msgid, **{k: _cut(v) if type(v) is str else v for k, v in text.values.items()})
        loop = asyncio.get_running_loop()
        t = loop.time()
        parts = [text]
        if self._message and not now and self._message_at == t:
            if text in self._parts:
                return
            parts = [*self._parts[-(MESSAGE_PARTS - 1) :], text]  # each part is translated when drawn
            until_input = until_input or self._message_sticky
        self._parts = parts
        message = parts[0] if len(parts) == 1 else join(parts, " · ")
        self._message, self._message_at, self._message_sticky = message, t, until_input
        if self._message_handle is not None:
            self._message_handle.cancel()
            self._message_handle = None
        if not until_input:
            self._message_handle = loop.call_later(seconds, self.clear_message)
        self.redraw()

    def clear_message(self) -> None:
        """Take the message off its line (its time is up, or the state it spoke of changed)."""
        if self._message_handle is not None:
            self._message_handle.cancel()
            self._message_handle = None
        if self._message:
            self._message, self._message_sticky = "", False
            self.redraw()

    def toast_text(self) -> str | None:
        """The message showing now, if any."""
        return _cut(self._message) if self._message else None

    def title_note(self) -> str:
        """Marks for the title bar: parts that are degraded, then the turn timer's clock."""
        marks = []
        if self.storage_fault:
            marks.append("F!")
        if self.tower_status == "lost":
            marks.append("T!")
        if self.scale.fault:
            marks.append("S!")
        clock = self.timers.title_text()
        if clock:
            marks.append(clock)
        return " ".join(marks)

    def answered(self, players: tuple[str, ...], locked: frozenset[str]) -> None:
        """The game screen's hook: of a simultaneous choice's ``players``, ``locked`` have answered."""
        self.timers.answered(players, locked)

    def time_bar(self) -> float | None:
        """The turn timer's remaining fraction, for the bar beside the scores."""
        return self.timers.time_bar()

    def scale_line(self) -> str:
        """The scale reading for the self-test screen."""
        return self.scale.line()

    def _scale_driver(self) -> Any:
        return self.hw.scale if self.hw is not None else None

    def _scale_held(self) -> bool:
        return any(getattr(screen, "uses_scale", False) for screen in self.screens)

    # -- the doors' small members (see firmware_host.ui.table) ---------------------------------------
    def signal(self, name: str) -> None:
        """Play one of the tower's signals."""
        self.lights.signal(name)

    def on_top(self, screen: Screen) -> bool:
        """Whether ``screen`` is the one showing."""
        return bool(self.screens) and self.screens[-1] is screen

    def call_later(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle:
        """Run ``fn`` on the loop in ``delay`` seconds."""
        return self.loop.call_later(delay, fn)

    def now(self) -> float:
        """The loop's monotonic clock."""
        return self.loop.time()

    def show_timer(self, level: str | None, bar: float | None) -> None:
        """The tower's timer light (the timer service's door)."""
        self.lights.show_timer(level, bar)

    def timer_beep(self, level: str, bar: float | None) -> None:
        """The tower's timer beeps (the timer service's door)."""
        self.lights.timer_beep(level, bar)

    def has_timer(self) -> bool:
        """Whether a turn timer runs for the game in play."""
        return self.timers.clocks is not None

    def tint(self, mood: str) -> str:
        """The game's mood as the scale makes it."""
        return self.scale.tint(mood)

    def task_line(self, task: Task) -> str | None:
        """What the scale sees of a table job."""
        return self.scale.task_line(task)

    def parts(self) -> Sequence[str]:
        """The self-test's lines of the scale, the tower and the display."""
        display = DISPLAY_STATES.get(self.display.status, self.display.status)
        return (
            self.scale_line(),
            T("Tower {lights}", lights=self.lights.showing.describe()),
            T("Display {state}", state=display),
        )

    def tower_test(self, steps: Sequence[tuple[TowerState, float]]) -> None:
        """Play a pattern of tower states (the self-test)."""
        self.lights.play(list(steps))

    def checks(self) -> Sequence[str] | None:
        """The doctor's self-checks, run once off the loop (they fsync in the state folder)."""
        if self._checks is None and not self._checks_running:
            from firmware_host.runtime.doctor import System, selftest_lines

            self._checks_running = True
            system = System(state_dir=self.store.root)  # the folder this device really writes
            future = self.loop.run_in_executor(None, selftest_lines, self.config, system)
            future.add_done_callback(self._checks_done)
        if self._checks is None:
            return None
        return [*self._read_rates_lines(), *self._checks]

    def _read_rates_lines(self) -> list[Any]:
        """The live scale's dropped and corrupt reads per minute (:mod:`firmware_host.scale.read_rates`)."""
        driver = self._scale_driver()
        if driver is None:
            return []
        if self._read_rates is None or self._read_rates.driver is not driver:
            from firmware_host.scale.read_rates import ReadRates

            self._read_rates = ReadRates(driver, self.loop.time)
        return self._read_rates.lines()

    def _checks_done(self, future: asyncio.Future) -> None:
        self._checks_running = False
        try:
            self._checks = list(future.result())
        except Exception as exc:  # a check never raises; this is the last guard
            log.exception("self-checks")
            self._checks = [T("checks failed: {error}", error=type(exc).__name__)]
        self.redraw()

    def seat_name(self, seat: str) -> str:
        """The name of a seat: set from a phone, else the config file's."""
        return self.names.get(seat) or self.config.seat_name(seat)

    # -- the other views' door (firmware_host.web.door) ------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The table as plain data, for views other than the OLED (:mod:`firmware_host.runtime.snapshot`)."""
        from firmware_host.runtime.snapshot import table_snapshot

        return table_snapshot(self)

    def watch(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn`` after every frame drawn; returns the function that stops it."""
        self.watchers.append(fn)
        return lambda: self.watchers.remove(fn) if fn in self.watchers else None

    def set_names(self, names: dict[str, str]) -> None:
        """Seat names from a paired phone (checked by the caller): kept in ``settings.json``, over
        the config file's, and shown on the panel at once. A game in play keeps its players' names."""
        self.names.update(names)
        self.saved_settings["names"] = dict(self.names)
        self.save_settings()
        shown = ", ".join(name for _, name in sorted(names.items()))
        self.toast(T("Names: {names}", names=shown), seconds=2 * TOAST_SECONDS, now=True)

    def set_timer_preset(self, game: str, preset: Any) -> None:
        """A turn-timer preset from a paired phone (checked by the caller), as the settings menu saves it."""
        self.timers.set_preset(game, preset)
        self.redraw()

    def phone_offer(self) -> tuple[str, str] | None:
        """The page's pairing link and a new one-time code, or ``None`` when the page does not serve."""
        url = self.companion.url() if self.companion is not None else None
        if not url:
            return None
        code = self.phones.new_code(self.loop.time())
        if self._code_handle is not None:
            self._code_handle.cancel()
        self._code_handle = self.loop.call_at(self.phones.expires + 0.01, self.redraw)  # the screen says "void"
        return f"{url}pair?code={code}", code

    def phone_code_void(self) -> bool:
        """Whether the code on offer pairs nobody any more (expired, or a phone paired with it)."""
        return self.phones.void(self.loop.time())

    def withdraw_offer(self) -> None:
        """The Phone screen closed: its code pairs nobody any more."""
        self.phones.withdraw()

    def pair_phone(self, code: str) -> str | None:
        """A token for a phone that sends the code on offer, else ``None``."""
        token = self.phones.pair(code, self.loop.time(), self.wall())
        if token is not None:
            self.toast(T("Phone paired"))
            self.redraw()
        return token

    def phone_paired(self, token: str | None) -> bool:
        """Whether ``token`` belongs to a paired phone."""
        return self.phones.paired(token)

    def forget_phones(self) -> int:
        """Revoke every phone's pairing; how many there were."""
        return self.phones.forget_all()

    def _save_phones(self, doc: dict[str, Any]) -> None:
        self._save_doc("phones", doc)

    def table_seats(self) -> list[str]:
        """The seats the config file puts at the table."""
        return list(self.config["table"]["seats"])

    def game_options(self, game: str) -> dict[str, Any]:
        """The config file's options of ``game``."""
        return dict(self.config.games.get(game, {}))

    def history(self) -> list[dict[str, Any]]:
        """Finished games, oldest first (read again only when the file changed: the page asks
        on every request, on the loop). Shared: callers must not change the list."""
        try:
            st = self.store.history_path.stat()
        except OSError:  # no history yet, or unreadable: the store says which
            return self.store.history()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._history is None or self._history[0] != key:
            self._history = (key, self.store.history())
        return self._history[1]

    def anytime(self) -> list[Option]:
        """The options the game in play offers at any time."""
        session = self.session
        return session.engine.anytime(session.state) if session is not None else []

    def back_to_game(self) -> None:
        """Leave the menus for the game screen (an in-game menu option was picked)."""
        while len(self.screens) > 1 and not isinstance(self.screens[-1], GameScreen):
            self.pop()

    def frame(self) -> Frame:
        """The frame of the screen on top, laid out for the panel."""
        if not self.screens:
            return Frame("tablemate", (Row.of(T("Starting")),))
        names = self.session.base.players if self.session is not None else ()
        with on_panel(self.panel) as panel, naming(names):  # a line too long shortens their names first
            frame = self.screens[-1].frame()
            if self._message and not frame.message:
                frame = replace(frame, message=_cut(tr(self._message)))
            return compose(frame, panel)

    # -- drawing, dimming, burn-in ------------------------------------------------------------------
    def redraw(self) -> None:
        """Draw the screen soon (several changes in one loop turn draw once)."""
        if not self._dirty:
            self._dirty = True
            asyncio.get_running_loop().call_soon(self._draw)

    def _draw(self) -> None:
        self._dirty = False
        # every change of screens ends in a draw: the screens that read the scale want it now
        reads = any(getattr(s, "reads_scale", False) or getattr(s, "uses_scale", False) for s in self.screens)
        self.scale.want("screen", reads)
        if self._inflight:  # what changed shows once it is durable
            self._draw_held = True
            return
        self.display.show(to_panel(self._picture(), self.panel_size))
        for watcher in list(self.watchers):  # the other views, after the panel has its picture
            try:
                watcher()
            except Exception:
                log.exception("a view of the table failed")

    def _picture(self) -> Image.Image:
        """The picture of the screen on top: its own (the Phone screen's QR code), else its frame drawn."""
        own = getattr(self.screens[-1], "picture", None) if self.screens else None
        picture = own(self.panel) if own is not None else None
        return picture if picture is not None else render(self.frame(), SHIFTS[self._shift], self.panel)

    async def flush(self) -> None:
        """Wait until the current frame is on the display."""
        await asyncio.sleep(0)
        if self._dirty:
            self._draw()
        await self.display.flush()

    async def _swim(self) -> None:
        while True:
            await asyncio.sleep(SHIFT_EVERY)
            self._shift = (self._shift + 1) % len(SHIFTS)
            self.redraw()

    def _wake(self) -> None:
        if self._dimmed:
            self._dimmed = False
            self.display.set_contrast(self.settings["brightness"])
            self.display.reinit()  # a panel reset while it sat dim shows again
        if self._dim_handle is not None:
            self._dim_handle.cancel()
        self._dim_handle = asyncio.get_running_loop().call_later(self.config["display"]["dim_after"], self._dim)

    def _dim(self) -> None:
        self._dimmed = True
        self.display.set_contrast(self.config["display"]["dim_brightness"])

    @property
    def dimmed(self) -> bool:
        """Whether the screen is dimmed for being idle."""
        return self._dimmed

    def save_settings(self) -> None:
        """Write :attr:`saved_settings` (the settings menu's changes) to the state folder.

        Written on the store's writer (the loop never waits for the SD card), in order with the
        journal; when it cannot be written the change holds until the device stops, and the panel
        says so. A failure here is the settings' own: it does not stop the journal's writes.
        """
        self._save_doc("settings", dict(self.saved_settings))

    def _save_doc(self, name: str, doc: dict[str, Any]) -> None:
        """Write the state folder's document ``name`` on the store's writer; the outcome comes
        back to the loop as a settings save's does (:meth:`_settings_saved`)."""

        def write() -> OSError | None:
            try:
                self.store.write_doc(name, doc)
            except OSError as exc:
                return exc
            return None

        future = self.store.writer.submit(write)
        future.add_done_callback(lambda f: self.post(self._settings_saved, f))

    def _settings_saved(self, future: Future) -> None:
        error = future.exception() or future.result()
        if isinstance(error, OSError):
            self._storage_error(error, refuse=False)

    def change_setting(self, key: str, value: Any) -> None:
        """Change and save one setting of the settings menu."""
        self.settings[key] = value
        self.saved_settings[key] = value
        self.save_settings()
        if key == "brightness" and not self._dimmed:
            self.display.set_contrast(value)
        if key == "sound":
            self.lights.set_sound(value)
        if key == "language":
            set_language(value)
        self.redraw()
