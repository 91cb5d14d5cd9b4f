"""The parts' health: the tower's link, the marks in the title bar, the self-test's lines of the
scale, tower and display, and the doctor's checks of the running device (run once, off the loop)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.store import Store
from firmware_host.runtime.events import SpeakerStatus
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.runtime.parts.signals import Signals
from games.core import T

log = logging.getLogger(__name__)

DISPLAY_STATES = {"ok": T("ok"), "degraded": T("degraded"), "absent": T("absent")}
"""The display's state as the self-test shows it."""


class Health:
    """How the parts are (the self-test's :class:`~firmware_host.ui.table.SelfTestTable` door and
    the title bar's marks)."""

    def __init__(
        self,
        config: Config,
        store: Store,
        scale_driver: Callable[[], Any],
    ) -> None:
        self.config = config
        self.store = store
        self.scale_driver = scale_driver
        """The scale's driver, once the hardware is up (``None`` without a scale)."""
        self.tower_status = "ok"
        """The tower's link: ``ok``, or ``lost`` while it is unplugged."""
        self.speaker_status = "ok"
        """The voice's speaker: ``ok``, or ``lost`` while it is missing or failing."""
        self._checks: list[str] | None = None
        """The doctor's self-check lines, once run (:meth:`checks`)."""
        self._checks_running = False
        self._read_rates: Any = None
        """The scale's reads per minute for the Self-test (made when first asked)."""

    def setup(self, hub: Hub) -> None:
        """The parts whose health it tells, found by name."""
        self.saving: Saving = hub.lookup("saving")
        self.message: MessageLine = hub.lookup("message")
        self.screens: Screens = hub.lookup("screens")
        self.signals: Signals = hub.lookup("signals")
        self.scale: Any = hub.lookup("scale")
        hub.subscribe(SpeakerStatus, self.on_speaker)
        self.timers: Any = hub.lookup("timers")

    def on_tower(self, status: str, detail: str | None) -> None:
        """The tower's driver says how its link is (on the loop)."""
        if status != self.tower_status:
            self.tower_status = status
            if status == "lost":
                self.message.toast(T("Tower unplugged"))
            self.screens.redraw()

    def on_speaker(self, event: SpeakerStatus) -> None:
        """The voice's speaker was lost or found: said once, marked in the title bar."""
        if event.status != self.speaker_status:
            self.speaker_status = event.status
            if event.status == "lost":
                self.message.toast(T("Speaker lost"))
            self.screens.redraw()

    def title_note(self) -> str:
        """Marks for the title bar: parts that are degraded, then the turn timer's clock."""
        marks = []
        if self.saving.storage_fault:
            marks.append("F!")
        if self.tower_status == "lost":
            marks.append("T!")
        if self.scale.fault:
            marks.append("S!")
        if self.speaker_status == "lost":
            marks.append("V!")
        clock = self.timers.title_text()
        if clock:
            marks.append(clock)
        return " ".join(marks)

    def scale_line(self) -> str:
        """The scale reading for the self-test screen."""
        return self.scale.line()

    def parts(self) -> Sequence[str]:
        """The self-test's lines of the scale, the tower and the display."""
        status = self.screens.display.status
        display = DISPLAY_STATES.get(status, status)
        return (
            self.scale_line(),
            T("Tower {lights}", lights=self.signals.lights.showing.describe()),
            T("Display {state}", state=display),
        )

    def checks(self) -> Sequence[str] | None:
        """The doctor's self-checks, run once off the loop (they fsync in the state folder)."""
        if self._checks is None and not self._checks_running:
            from firmware_host.ops.doctor import System, selftest_lines

            self._checks_running = True
            system = System(state_dir=self.store.root)  # the folder this device really writes
            future = asyncio.get_running_loop().run_in_executor(None, selftest_lines, self.config, system)
            future.add_done_callback(self._checks_done)
        if self._checks is None:
            return None
        return [*self._read_rates_lines(), *self._checks]

    def _read_rates_lines(self) -> list[Any]:
        """The live scale's dropped and corrupt reads per minute (:mod:`firmware_host.scale.read_rates`)."""
        driver = self.scale_driver()
        if driver is None:
            return []
        if self._read_rates is None or self._read_rates.driver is not driver:
            from firmware_host.scale.read_rates import ReadRates

            self._read_rates = ReadRates(driver, asyncio.get_running_loop().time)
        return self._read_rates.lines()

    def _checks_done(self, future: asyncio.Future) -> None:
        self._checks_running = False
        try:
            self._checks = list(future.result())
        except Exception as exc:  # a check never raises; this is the last guard
            log.exception("self-checks")
            self._checks = [T("checks failed: {error}", error=type(exc).__name__)]
        self.screens.redraw()
