"""Presses: the buttons' edges decoded into presses, the press that only wakes the dimmed panel,
presses held while a write is in flight, and each press handed to the screen on top.

A bug in a screen never stops the device: the table goes back to the start and says so.
"""

from __future__ import annotations

import asyncio
import logging

from drivers.buttons import Press, PressDecoder
from firmware_host.core.config import BUTTONS, Config
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.dimmer import Dimmer
from firmware_host.runtime.parts.game import GameLife
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from firmware_host.ui.render import on_panel
from games.core import T

log = logging.getLogger(__name__)


class Presses:
    """From the GPIO edge to the screen on top (the game screen's ``held_for``)."""

    def __init__(self, config: Config) -> None:
        buttons = config["buttons"]
        self.decoders = {b: PressDecoder(b, buttons["long_press"], buttons["debounce"]) for b in BUTTONS}
        self._asleep: set[str] = set()
        """Buttons whose press woke the dimmed screen: that press only wakes it."""

    def setup(self, hub: Hub) -> None:
        """The parts a press reaches, found by name."""
        self.game: GameLife = hub.lookup("game")
        self.dimmer: Dimmer = hub.lookup("dimmer")
        self.screens: Screens = hub.lookup("screens")
        self.saving: Saving = hub.lookup("saving")
        self.message: MessageLine = hub.lookup("message")

    def edge(self, button: str, pressed: bool, t: float) -> None:
        """A button went down or up at ``t`` (on the loop)."""
        press = self.decoders[button].edge(pressed, t)
        if pressed:
            if self.dimmer.dimmed:
                self._asleep.add(button)
            self.dimmer.wake()
            if button not in self._asleep:
                self._down(button)
        if press is not None:
            if button in self._asleep:
                self._asleep.discard(button)  # the press that woke the screen only wakes it
                self.screens.redraw()
                return
            self.handle(press)

    def _down(self, button: str) -> None:
        """Tell the screen on top that a button went down (a held seat counting its answer)."""
        top = self.screens.top()
        if top is None:
            return
        try:
            top.button_down(button)
        except Exception:
            log.exception("button %s down failed", button)

    def held_for(self, button: str) -> float | None:
        """How long ``button`` has been held down now, or ``None`` when it is up."""
        since = self.decoders[button].pressed_at
        return None if since is None else asyncio.get_running_loop().time() - since

    def handle(self, press: Press) -> None:
        """One finished press, to the screen on top. A bug in a screen never stops the device.

        While a game is in play, a long ``ok`` pauses or resumes its turn timer on every screen
        (screens that read raw buttons, like the self-test, excepted); a short ``ok`` picks.
        """
        self.dimmer.wake()
        if self.game.busy is not None:  # resuming or undoing off the loop: answered, not acted on
            self.message.toast(self.game.busy, now=True)
            return
        if self.saving.inflight:  # the last action is not durable yet: this one waits its turn
            self.saving.hold(press)
            return
        self.message.clear_message()  # the next input: the last outcome has been seen
        self.game.move = 0
        try:
            with on_panel(self.screens.panel):  # a screen opened by this press lays out for the panel
                self._press(press)
        finally:
            self.game.move = None
        self.screens.redraw()

    def _press(self, press: Press) -> None:
        top = self.screens.top()
        try:
            if (
                press.button == "ok"
                and press.long
                and self.game.session is not None
                and not (top is not None and top.raw_buttons)
            ):
                self.game.timers.toggle_pause()
            elif top is not None:
                top.press(press)
        except OSError as exc:  # a save outside the journal (settings, calibration)
            self.saving.storage_error(exc)
        except Exception:
            log.exception("press %s failed", press)
            self.game.home()
            self.message.refuse(T("Internal error: back to the start"))
