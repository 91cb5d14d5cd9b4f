"""The device: one asyncio loop that owns the game, the screen, the tower, timers and input.

This is the composition root: it builds the parts (:mod:`firmware_host.runtime.parts`) and the
services (scale, timers), adds each to the hub by name (:mod:`firmware_host.runtime.hub`), and
runs the loop; each part does one job, and tells the others through the hub's events
(:mod:`firmware_host.runtime.events`: the tower and the message line hear every durable action).
Driver threads cross into the loop at one place, :meth:`Device.post`; every press enters through
the ``inputs`` part; every action goes through ``apply`` (:meth:`GameLife.apply
<firmware_host.runtime.parts.game.GameLife.apply>`), which journals it durably before its
effects show. ``docs/architecture.md`` traces one press.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal as signals
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.store import Store
from firmware_host.core.writer import ThreadWriter
from firmware_host.runtime import sdnotify
from firmware_host.runtime.doors import Door
from firmware_host.runtime.events import TableReady, TableStop
from firmware_host.runtime.hardware import Hardware, build, panel_size
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.dimmer import Dimmer
from firmware_host.runtime.parts.game import GameLife
from firmware_host.runtime.parts.health import DISPLAY_STATES, Health
from firmware_host.runtime.parts.inputs import Inputs
from firmware_host.runtime.parts.message import TOAST_CHARS, MessageLine
from firmware_host.runtime.parts.page import Page
from firmware_host.runtime.parts.phones import Phones
from firmware_host.runtime.parts.presses import Presses
from firmware_host.runtime.parts.resume import Resume
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.settings import TableSettings
from firmware_host.runtime.parts.signals import Signals
from firmware_host.runtime.parts.timing import TimerNews
from firmware_host.runtime.parts.voice import VoicePart, options_from
from firmware_host.runtime.precedence import Precedence
from firmware_host.runtime.vtime import inline_io
from firmware_host.scale.service import ScaleService
from firmware_host.timers.service import TimerService
from firmware_host.ui.base import Message
from firmware_host.ui.menus import MainMenu
from games.core import T

__all__ = ["DISPLAY_STATES", "TOAST_CHARS", "Device"]

log = logging.getLogger(__name__)


class Device:
    """The running device. Build it (``extra``: more parts, each a name and a part), then
    ``await run()``; :meth:`stop` ends it. Its parts are on :attr:`hub`, by name."""

    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        seed: int | None = None,
        wall: Callable[[], float] = time.time,
        signals_on: bool = False,
        extra: Sequence[tuple[str, Any]] = (),
        served: bool = False,
    ) -> None:
        self.config = config
        self.store = store
        self._seed = seed
        self.wall = wall
        self._signals_on = signals_on
        self._served = served
        """Run as the service: the page (when ``[web]`` enables it), one worker thread, the
        collector settled once up."""
        self.stop_reason: str | None = None
        self._stopped = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self.ready = asyncio.Event()
        self.hw: Hardware | None = None
        self._pool: ThreadPoolExecutor | None = None
        with contextlib.suppress(RuntimeError):  # built on a running loop: posts reach it before run()
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
        self.door = Door()
        """What the screens, the services and the page are built with (:mod:`firmware_host.runtime.doors`)."""
        self.hub = hub = Hub()
        """The parts by name, and the events they publish (:mod:`firmware_host.runtime.events`)."""
        add = hub.add
        # the state folder's documents are read in this order: their problems are named in it
        self._prefs = add("prefs", TableSettings(config, store))
        self._signals = add("signals", Signals())
        self._message = add("message", MessageLine())
        self._drawing = add("screens", Screens(panel_size(config)))
        self._precedence = add("precedence", Precedence())
        """Held from a button's edge until its frame is handed to the display: the page waits meanwhile."""
        self._saving = add("saving", Saving(store, self.post, self.door))
        self._pairing = add("phones", Phones(store, wall))
        store.read_doc("scale", repair=True)  # a damaged calibration is kept aside and named
        self._scale = add("scale", ScaleService(self.door, store, self._scale_driver, self._scale_held))
        self._timers = add("timers", TimerService(self.door, config.timers, config["timers"]["save_every"]))
        self._dimmer = add("dimmer", Dimmer(config["display"], self._prefs.settings))
        self._health = add("health", Health(config, store, self._scale_driver))
        self._game = add("game", GameLife(config, store, self.door, seed, wall))
        self._resumer = add("resume", Resume(store, self._game, wall, self._stopped.is_set))
        self._presses = add("presses", Presses(config))
        self._inputs = add("inputs", Inputs(self.post, "sim" if config["buttons"]["backend"] == "sim" else "gpio"))
        add("timer news", TimerNews())
        self._voice = add("voice", VoicePart(options_from(config["voice"], self._prefs.saved), self._game.in_play))
        if served and config["web"]["enabled"]:
            add("page", Page(self.door, config["web"], self._settle))
        for name, part in extra:  # a test's or a later listener's parts
            add(name, part)
        self._extra = tuple(name for name, _ in extra)
        hub.setup()  # each part finds the parts it tells by name, and subscribes to what it hears
        self.door.open(hub)

    # -- life cycle -------------------------------------------------------------------------------
    async def run(self) -> None:
        """Bring the hardware up, resume or show the menu, serve until :meth:`stop`."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._precedence.clock = self._loop.time
        interval = sdnotify.watchdog_interval()
        if interval:  # fed from the start on (systemd's watchdog runs from READY, sent before this)
            sdnotify.notify("WATCHDOG=1")
            self._tasks.append(asyncio.create_task(self._feed_watchdog(interval), name="watchdog"))
        if not inline_io(self._loop):  # virtual time stays deterministic: inline
            self.store.writer = ThreadWriter()
            if self._served:  # the display and the journal have writer threads of their own: the
                # default pool serves only the resume, the journal's drain at stop and the page's plots
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="display")
                self._loop.set_default_executor(self._pool)
        self.hw = build(
            self.config, self._inputs.edge_from_thread, self._tower_from_thread, self._loop.time, self._loop.call_later,
            loop=self._loop,
        )  # fmt: skip
        display = self._drawing.attach(self.hw.display_opener)
        self._signals.attach(self.hw.tower, self._prefs.settings["sound"])
        self._tasks.append(asyncio.create_task(display.run(), name="display"))
        display.set_contrast(self._prefs.settings["brightness"])
        if self.hw.scale is not None:
            self._scale.attach(self.hw.scale, self._scale_sample_from_thread, self._scale_fault_from_thread)
        self._drawing.replace([MainMenu(self.door)])
        await self._resumer.resume()
        self._tasks.extend(self._resumer.tasks)
        for problem in self.hw.problems:
            self._message.toast(problem)
        self._saving.show_problems()
        if self._signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self._loop.add_signal_handler(sig, self.stop, T("Stopped"))
        self._tasks.append(asyncio.create_task(self._drawing.swim(), name="burn-in"))
        self._dimmer.wake()
        self._drawing.redraw()
        self._game.changed("resumed" if self._game.session is not None else "changed")
        sdnotify.notify(sdnotify.UP)
        age = sdnotify.process_age() if self._signals_on else None
        if age is not None:
            log.info("the table is up %.2f s after its start", age)
        self.hub.start()
        for name, task in self.hub.each("task"):
            self._tasks.append(asyncio.create_task(task(), name=name))
        self.ready.set()
        self.hub.publish(TableReady(self._prefs.settings["language"]))
        if self.hub.get("page") is None:
            self._settle()
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
        self.hub.publish(TableStop(self.stop_reason or T("Stopped")))
        self._timers.close()  # the clocks as they are at the stop, before anything else takes time
        with contextlib.suppress(OSError):
            self._game.file_over()  # a result left on screen is filed (else the next start files it)
        session = self._game.session
        await self._saving.close(session.journal if session is not None else None)
        self._drawing.replace([*self._drawing.stack, Message(self.door, "tablemate", self.stop_reason or T("Stopped"))])
        self._dimmer.close()
        self._drawing.draw()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._drawing.display.flush(), 2.0)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self.hub.close(self._extra)
        self._signals.close()
        self._voice.close()  # its child processes end with the table
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._voice.wait_closed(), 2.0)
        if self.hw is not None:
            self.hw.close()
        if self._signals_on:
            for sig in (signals.SIGTERM, signals.SIGINT):
                self._loop.remove_signal_handler(sig)

    def _settle(self) -> None:
        """Once up (and the page serving): a fresh pool (the resume's worker would idle on as a
        fourth thread; a new pool starts one when asked), the collector settled."""
        if self._pool is None:
            return
        from firmware_host.runtime.garbage import settle

        self._pool.shutdown(wait=False)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="display")
        self._loop.set_default_executor(self._pool)
        settle()

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
            self._loop.call_soon(fn, *args)
        else:
            self._loop.call_soon_threadsafe(fn, *args)

    def _tower_from_thread(self, status: str, detail: str | None) -> None:
        self.post(self._health.on_tower, status, detail)

    def _scale_sample_from_thread(self, t: float, raw: int) -> None:
        self.post(self._scale.sample, t, raw)

    def _scale_fault_from_thread(self, reason: str) -> None:
        self.post(self._scale.on_fault, reason)

    def _scale_driver(self) -> Any:
        return self.hw.scale if self.hw is not None else None

    def _scale_held(self) -> bool:
        return any(screen.uses_scale for screen in self._drawing.stack)
