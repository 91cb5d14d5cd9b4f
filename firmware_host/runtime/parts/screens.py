"""The screens: the stack of screens, drawing the one on top to the panel, the other views.

A change of any kind asks for :meth:`Screens.redraw`; several in one loop turn draw once. What
an action changed is drawn only once the action is durable (the saving part says when:
:attr:`Screens.writing`), and the picture moves a few pixels every minute against burn-in. The
views other than the panel (the companion page) are told after every frame drawn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PIL import Image

from firmware_host.core.i18n import tr
from firmware_host.runtime.display_service import DisplayService
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.message import MessageLine, cut
from firmware_host.runtime.parts.signals import Signals
from firmware_host.ui.game import GameScreen
from firmware_host.ui.panel import layout_panel, to_panel
from firmware_host.ui.render import Frame, Row, compose, drawn_lines, naming, on_panel, render
from firmware_host.ui.table import Screen
from games.core import T

log = logging.getLogger(__name__)

SHIFT_EVERY = 60.0
"""Seconds between moves of the picture against burn-in."""
SHIFTS = ((0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1))


class Screens:
    """The screen stack and the panel it is drawn to (the screens' :class:`~firmware_host.ui.table.Table`
    door: push, pop, on top, redraw, the loop's clock and timers). The one owner of the stack (the
    navigator): every other part changes it through :meth:`push`, :meth:`pop` and :meth:`replace`."""

    def __init__(self, panel_size: tuple[int, int]) -> None:
        self.stack: list[Screen] = []
        """The screens, the one showing last."""
        self.panel_size = panel_size
        """The size of the panel's picture (rotation applied): what every frame is drawn to."""
        self.panel = layout_panel(panel_size)
        """The panel the screens lay out for (see :mod:`firmware_host.ui.panel`)."""
        self.display = DisplayService(None)
        self.watchers: list[Callable[[], None]] = []
        """Called after every frame drawn: the views that render the table's snapshot (the page)."""
        self.want_scale: Callable[[str, bool], None] = lambda reason, on: None
        """Ask for the scale's readings, or give the ask back (the scale service's ``want``)."""
        self.writing: Callable[[], bool] = lambda: False
        """Whether writes are in flight (the saving part's): what changed shows once they are durable."""
        self.frame_handed: Callable[[], None] = lambda: None
        """Called after each frame is handed to the display (the table's precedence ends)."""
        self.players: Callable[[], Sequence[str]] = tuple
        """The players of the game in play (a line too long shortens their names first)."""
        self._shown: Frame | list[str] = []
        """What the panel shows: the frame drawn last, or the words of a picture a screen drew itself."""
        self._dirty = False
        self._held = False
        self._shift = 0

    def setup(self, hub: Hub) -> None:
        """Find the parts it asks: the message line and the tower (drawn and lit with the screen
        on top), the scale (for its readings), the saving part (writes in flight), the game (the
        names a line shortens first), the table's precedence."""
        self.message: MessageLine = hub.lookup("message")
        self.signals: Signals = hub.lookup("signals")
        saving, game = hub.lookup("saving"), hub.lookup("game")
        self.want_scale = hub.lookup("scale").want
        self.writing = lambda: bool(saving.inflight)
        self.players = game.names_at_table
        self.frame_handed = hub.lookup("precedence").release

    def attach(self, opener: Callable[[], Any] | None) -> DisplayService:
        """Draw to the panel ``opener`` opens from now on; its service (to run on the loop)."""
        self.display = DisplayService(opener)
        return self.display

    # -- the stack ------------------------------------------------------------------------------------
    def push(self, screen: Screen) -> None:
        """Show ``screen`` on top."""
        self.stack.append(screen)
        self.changed()

    def replace(self, screens: Sequence[Screen]) -> None:
        """Show ``screens`` in place of the whole stack, the last on top (a game started, resumed,
        over or left). The caller says when it is drawn (:meth:`changed`, :meth:`redraw`)."""
        self.stack = list(screens)

    def pop(self) -> None:
        """Leave the screen on top."""
        if len(self.stack) > 1:
            self.stack.pop()
        self.changed()

    def changed(self) -> None:
        """The screen on top changed: tell it, set the tower's mood, draw."""
        if self.stack:
            self.stack[-1].shown()
        self.update_mood()
        self.redraw()

    def on_top(self, screen: Screen) -> bool:
        """Whether ``screen`` is the one showing."""
        return bool(self.stack) and self.stack[-1] is screen

    def top(self) -> Screen | None:
        """The screen showing, if any."""
        return self.stack[-1] if self.stack else None

    def back_to_game(self) -> None:
        """Leave the menus for the game screen (an in-game menu option was picked)."""
        while len(self.stack) > 1 and not isinstance(self.stack[-1], GameScreen):
            self.pop()

    def game_screen(self) -> GameScreen | None:
        """The game screen in the stack, if any."""
        return next((s for s in self.stack if isinstance(s, GameScreen)), None)

    def update_mood(self) -> None:
        """Set the tower's lasting light from the screen on top (it changed, or its inputs did)."""
        top = self.top()
        self.signals.set_mood(top.mood if top else "idle")

    def call_later(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle:
        """Run ``fn`` on the loop in ``delay`` seconds."""
        return asyncio.get_running_loop().call_later(delay, fn)

    def now(self) -> float:
        """The loop's monotonic clock."""
        return asyncio.get_running_loop().time()

    # -- drawing --------------------------------------------------------------------------------------
    def frame(self) -> Frame:
        """The frame of the screen on top, laid out for the panel."""
        if not self.stack:
            return Frame("tablemate", (Row.of(T("Starting")),))
        with on_panel(self.panel) as panel, naming(self.players()):  # a line too long shortens names first
            frame = self.stack[-1].frame()
            if self.message.text and not frame.message:
                frame = replace(frame, message=cut(tr(self.message.text)))
            return compose(frame, panel)

    def redraw(self) -> None:
        """Draw the screen soon (several changes in one loop turn draw once)."""
        if not self._dirty:
            self._dirty = True
            asyncio.get_running_loop().call_soon(self.draw)

    def draw(self) -> None:
        """Draw the screen on top now (unless writes are in flight), then tell the other views."""
        self._dirty = False
        # every change of screens ends in a draw: the screens that read the scale want it now
        reads = any(s.reads_scale or s.uses_scale for s in self.stack)
        self.want_scale("screen", reads)
        if self.writing():  # what changed shows once it is durable
            self._held = True
            return
        self.display.show(to_panel(self._picture(), self.panel_size))
        self.frame_handed()
        for watcher in list(self.watchers):  # the other views, after the panel has its picture
            try:
                watcher()
            except Exception:
                log.exception("a view of the table failed")

    def durable(self) -> None:
        """The writes in flight are durable: a draw held for them happens now."""
        if self._held:
            self._held = False
            self.redraw()

    def _picture(self) -> Image.Image:
        """The picture of the screen on top: its own (the Phone screen's QR code), else its frame drawn."""
        picture = self.stack[-1].picture(self.panel) if self.stack else None
        if picture is not None:
            self._shown = list(self.stack[-1].picture_lines())
            return picture
        self._shown = frame = self.frame()
        return render(frame, SHIFTS[self._shift], self.panel)

    def lines(self) -> list[str]:
        """What a player reads on the panel now, one line a row
        (:func:`~firmware_host.ui.render.drawn_lines` of the frame drawn last)."""
        if isinstance(self._shown, Frame):
            with on_panel(self.panel) as panel:
                return drawn_lines(self._shown, panel)
        return list(self._shown)

    async def flush(self) -> None:
        """Wait until the current frame is on the display."""
        await asyncio.sleep(0)
        if self._dirty:
            self.draw()
        await self.display.flush()

    async def swim(self) -> None:
        """Move the picture a few pixels every :data:`SHIFT_EVERY` seconds, against burn-in (a task)."""
        while True:
            await asyncio.sleep(SHIFT_EVERY)
            self._shift = (self._shift + 1) % len(SHIFTS)
            self.redraw()

    def watch(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn`` after every frame drawn; returns the function that stops it."""
        self.watchers.append(fn)
        return lambda: self.watchers.remove(fn) if fn in self.watchers else None
