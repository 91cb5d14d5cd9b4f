"""``tablemate sim``: the device in a terminal, with the keyboard as its buttons.

The very runtime of the Pi runs on simulated drivers (gpiozero mock pins, luma's dummy display,
the simulated tower and scale). The panel, the status line and the keys fit whatever terminal
there is (:mod:`firmware_host.sim.fitting`: half blocks, quarter blocks or braille, the key help
shortened to ``? keys  x quit`` or the picture made smaller where it must be); a resize
(SIGWINCH) redraws at once. Keys are read whole (:mod:`firmware_host.sim.keys`) and each is a
press.

The simulated scale comes calibrated: when the state folder has no ``scale.json`` the simulator
writes one that matches the simulated cell, with every kind of piece weighing
:data:`SIM_PIECE_GRAMS`, so ``+`` and ``-`` put one piece in or take one out and the game counts it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import sys
import termios
import time
import tty
from collections import deque
from typing import Any

from firmware_host.core.config import Config
from firmware_host.core.i18n import _, tr
from firmware_host.core.store import Store
from firmware_host.runtime.device import DISPLAY_STATES, Device
from firmware_host.runtime.events import PageServing
from firmware_host.runtime.hub import Listener
from firmware_host.sim.fitting import SEPARATOR, Plan, cells, pack, panel_text, plan
from firmware_host.sim.keys import FLUSH_SECONDS, KeyReader
from firmware_host.sim.scale import SIM_PIECE_GRAMS, calibrate_sim_scale
from games.core import T

SHORT_KEYS = {"1": "p1", "2": "p2", "3": "p3", "4": "p4", "5": "p5", "6": "p6"}
LONG_KEYS = {"q": "p1", "w": "p2", "e": "p3", "r": "p4", "t": "p5", "y": "p6"}
DOWN_KEYS = {"Q": "p1", "W": "p2", "E": "p3", "R": "p4", "T": "p5", "Y": "p6"}
"""Shifted: the seat goes down and stays down until the same key again (a hold of any length:
the count of a card being recorded goes up while it is down)."""
NAV_KEYS = {
    "\x1b[D": ("prev", False),
    "\x1bOD": ("prev", False),
    ",": ("prev", False),
    "\x1b[C": ("next", False),
    "\x1bOC": ("next", False),
    ".": ("next", False),
    "\r": ("ok", False),
    "\n": ("ok", False),
    " ": ("ok", False),
    "o": ("ok", True),
    "<": ("prev", True),
    ">": ("next", True),  # held: the self-test's second page
    "\x7f": ("back", False),
    "\x08": ("back", False),
    "b": ("back", False),
    "B": ("back", True),
}
SCALE_KEYS = {"+": 1, "=": 1, "-": -1, "]": 10, "[": -10}
"""Key → pieces put in (negative: taken out)."""

KEYMAP = (
    T("seat 1-6 tap, q-y hold, Q-Y down/up  prev , <-  next . ->  ok Enter, o hold"),
    T("back b, B hold (undo)  prev < hold, next > hold (self-test page 2)"),
    T("scale + - one piece, ] [ ten, 0 empty  x quit"),
)
"""The keys, each line at most 80 characters (in every language), its parts two spaces apart
(a narrower terminal wraps them part by part)."""
SHORT_KEYMAP = T("? keys  x quit")
"""The key help where the panel needs the room of the whole one (``?`` shows it whole)."""
WHOLE_AT = T("as text: the picture whole in {columns}x{rows}")
"""Said below a panel the terminal could only show made smaller (unreadable): it shows the panel's
words instead, one line a row as drawn, and this names the terminal size that shows its picture."""
HELP_KEY = "?"
TAP_SECONDS = 0.08
"""How long a key's short press holds the button down (longer where the debounce is longer)."""
GAP_SECONDS = 0.05
"""How much longer than the buttons' debounce a button stays up, or a tap down."""


class Terminal:
    """Keys in, frames out, around a running :class:`Device`.

    A key is a press: a key struck again while its button is still down from the last strike
    waits its turn (the button goes up, stays up a moment past the debounce, and goes down
    again), so ``Enter Enter`` is two presses however fast they come, and ``x`` quits once the
    keys struck before it are pressed. Keys it does not map (``F5``, ``Alt-1``, an arrow up) do
    nothing.
    """

    def __init__(self, device: Device) -> None:
        self.device = device
        self.reader = KeyReader()
        self.help = False
        """Whether the whole key help shows in place of the panel (``?``)."""
        self._last: Any = None
        self.page = ""
        """The companion page's address, shown on the status line when it serves."""
        self._down: set[str] = set()
        self._queues: dict[str, deque[str]] = {}
        """Button → the strokes still to make on it (``tap``, ``long``, ``toggle``), in order."""
        self._busy: set[str] = set()
        self._flush: asyncio.TimerHandle | None = None
        self._quitting = False
        """``x`` was struck: the device stops once the keys before it are pressed."""

    def key(self, data: bytes | str) -> None:
        """Handle what one read gave (bytes as read, or text)."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        for key in self.reader.feed(data):
            self._one(key)
        if self.reader.pending:  # a sequence cut by the read, or the Escape key: wait a moment
            self._flush = asyncio.get_running_loop().call_later(FLUSH_SECONDS, self._flushed)

    def _flushed(self) -> None:
        self._flush = None
        for key in self.reader.flush():
            self._one(key)

    def _one(self, key: str) -> None:
        dev = self.device
        if self._quitting:
            return
        if key in ("x", "\x03"):
            self._quitting = True  # once every key struck before it has been pressed
            self._quit_when_idle()
        elif key == HELP_KEY:
            self.help = not self.help
        elif key in SHORT_KEYS:
            self._stroke(SHORT_KEYS[key], "tap")
        elif key in LONG_KEYS:
            self._stroke(LONG_KEYS[key], "long")
        elif key in DOWN_KEYS:
            self._stroke(DOWN_KEYS[key], "toggle")
        elif key in NAV_KEYS:
            button, long = NAV_KEYS[key]
            self._stroke(button, "long" if long else "tap")
        elif key in SCALE_KEYS and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams = max(0.0, dev.hw.scale.grams + SCALE_KEYS[key] * SIM_PIECE_GRAMS)
        elif key == "0" and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams = 0.0

    # -- strokes: one press a key, in order ------------------------------------------------------------
    def _stroke(self, button: str, stroke: str) -> None:
        if self.device.hw is None or self.device.hw.buttons is None:
            return
        self._queues.setdefault(button, deque()).append(stroke)
        if button not in self._busy:
            self._next(button)

    def _next(self, button: str) -> None:
        """Make the next stroke queued on ``button``, if any."""
        buttons = self.device.hw.buttons if self.device.hw else None
        queue = self._queues.get(button)
        if buttons is None or not queue:
            self._busy.discard(button)
            self._quit_when_idle()
            return
        self._busy.add(button)
        loop = asyncio.get_running_loop()
        if button in self._down:  # a held seat goes up first, whatever comes next
            self._down.discard(button)
            buttons.release(button)
            if queue[0] == "toggle":
                queue.popleft()
            loop.call_later(self._gap(), self._next, button)
            return
        stroke = queue.popleft()
        buttons.press(button)
        if stroke == "toggle":
            self._down.add(button)
            self._busy.discard(button)  # stays down until its key again (or another stroke)
            return
        settings = self.device.config["buttons"]
        tap = max(TAP_SECONDS, settings["debounce"] + GAP_SECONDS)
        loop.call_later(settings["long_press"] + 0.1 if stroke == "long" else tap, self._up, button)

    def _quit_when_idle(self) -> None:
        if self._quitting and not self._busy:
            self.device.stop(T("Stopped"))

    def _up(self, button: str) -> None:
        buttons = self.device.hw.buttons if self.device.hw else None
        if buttons is not None:
            buttons.release(button)
        asyncio.get_running_loop().call_later(self._gap(), self._next, button)

    def _gap(self) -> float:
        """How long a button stays up before the next stroke on it: past the debounce."""
        return self.device.config["buttons"]["debounce"] + GAP_SECONDS

    # -- drawing ------------------------------------------------------------------------------------------
    def status_parts(self) -> list[str]:
        """The status line's parts: tower, display, the scale's load in pieces."""
        dev = self.device
        scale = dev.hw.scale if dev.hw else None
        grams = getattr(scale, "grams", None)
        display = tr(DISPLAY_STATES.get(dev.door.display.status, dev.door.display.status))
        parts = [
            _("tower {lights}").format(lights=dev.door.lights.showing.describe()),
            _("display {state}").format(state=display),
        ]
        if grams is not None:
            pieces = grams / SIM_PIECE_GRAMS
            if pieces == round(pieces):
                parts.append(_("bin {pieces:.0f} pcs").format(pieces=pieces))
            else:
                parts.append(_("bin {grams:+.1f} g").format(grams=grams))
        if dev.door.voice.status == "lost":
            parts.append(_("voice lost"))
        elif dev.door.voice.shown:  # no engine here: what the table would say
            parts.append(_("says: {words}").format(words=dev.door.voice.shown))
        if dev.door.dimmed:
            parts.append(_("(dimmed)"))
        if self.page:
            parts.append(self.page)
        return parts

    def status(self) -> str:
        """The status line: tower, display, the scale's load in pieces."""
        return SEPARATOR.join(self.status_parts())

    def key_parts(self) -> list[str]:
        """The key help's parts, in the players' language."""
        return [part.strip() for line in KEYMAP for part in tr(line).split(SEPARATOR) if part.strip()]

    def plan(self, columns: int, rows: int) -> Plan | None:
        """How the panel and the lines below it fit ``columns`` × ``rows`` (``None``: no picture yet).

        A panel the terminal could show only made smaller (a 256×64 or a 128×128 in 80×24) is
        shown as its words (:meth:`lines`), and says so below them, with the terminal size that
        shows its picture whole."""
        image = self.device.door.display.shown
        if image is None:
            return None
        status, keys, short = self.status_parts(), self.key_parts(), tr(SHORT_KEYMAP)
        fitted = plan(image.size, columns, rows, status, keys, short)
        if not fitted.scaled:
            return fitted
        return plan(image.size, columns, rows, [*status, self._advice(image.size)], keys, short)

    def _advice(self, size: tuple[int, int]) -> str:
        """Where the picture of a panel of ``size`` shows whole: the terminal size (:data:`WHOLE_AT`)."""
        across, down = cells(size, "braille")
        status = self.status_parts()
        below = len(pack(status, across)) + len(pack([tr(SHORT_KEYMAP)], across))  # as that wide a terminal packs them
        return tr(WHOLE_AT).format(columns=across, rows=down + below)

    def lines(self, columns: int, rows: int) -> list[str]:
        """Everything the terminal shows, for a terminal of ``columns`` × ``rows``."""
        image = self.device.door.display.shown
        fitted = self.plan(columns, rows)
        if self.help or fitted is None:
            shown = [*pack(self.key_parts(), columns), "", *pack(self.status_parts(), columns)]
        elif fitted.scaled:  # a picture made smaller is unreadable: the panel's words as drawn
            words = self.device.door.lines()
            shown = [*words, *self._below(len(words), columns, rows, image.size)]
        else:
            shown = [*panel_text(image, fitted), *fitted.below]
        return [line[:columns] for line in shown][:rows]

    def _below(self, used: int, columns: int, rows: int, size: tuple[int, int]) -> list[str]:
        """The lines under the panel's words (``used`` lines): the status with where its picture
        shows whole, and every key where they fit, else the short key help."""
        status = pack([*self.status_parts(), self._advice(size)], columns)
        keys = pack(self.key_parts(), columns)
        choices = [["", *status, *keys], [*status, *keys]]
        return next((c for c in choices if used + len(c) <= rows), [*status, *pack([tr(SHORT_KEYMAP)], columns)])

    def draw(self, force: bool = False) -> None:
        """Redraw when the picture or the status changed (or ``force``, after a resize)."""
        image = self.device.door.display.shown
        status = self.status()
        key = (id(image), status, self.help)
        if key == self._last and not force:
            return
        self._last = key
        columns, rows = shutil.get_terminal_size((80, 24))
        out = ["\x1b[2J" if force else "", "\x1b[H"]
        out.append("\x1b[K\r\n".join(self.lines(columns, rows)))
        out.append("\x1b[K\x1b[J")
        sys.stdout.write("".join(out))
        sys.stdout.flush()


def run_terminal(config: Config, store: Store, seed: int | None = None) -> int:
    """Play on the keyboard until ``x``; needs a terminal."""
    if not sys.stdin.isatty():
        sys.stderr.write("tablemate sim: the interactive simulator needs a terminal (or use --script FILE)\n")
        return 2
    logging.basicConfig(filename=str(store.root / "sim.log"), level=logging.INFO)
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)

    calibrate_sim_scale(store)  # the simulated cell comes calibrated: + and - count pieces
    in_play = False
    # whether a game was in play when the simulator stopped (the quit line says where it is kept)

    async def main() -> None:
        nonlocal in_play
        loop = asyncio.get_running_loop()
        term: Terminal | None = None

        def serving(page: PageServing) -> None:  # the page beside the terminal, once the table is up
            if term is not None:
                term.page = page.url

        device = Device(
            config.with_sim(), store, seed=seed, wall=time.time, served=True,
            extra=[("page address", Listener(PageServing, serving))],
        )  # fmt: skip
        term = Terminal(device)
        loop.add_signal_handler(signal.SIGWINCH, lambda: term.draw(force=True))
        task = asyncio.create_task(device.run())
        ready = asyncio.create_task(device.ready.wait())
        await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
        if task.done():  # the device failed before it was ready: say why, do not wait forever
            ready.cancel()
            task.result()
            return
        loop.add_reader(fd, lambda: term.key(os.read(fd, 256)))
        try:
            while not task.done():
                term.draw()
                await asyncio.wait([task], timeout=0.05)
        finally:
            loop.remove_reader(fd)
            loop.remove_signal_handler(signal.SIGWINCH)
            device.stop(T("Stopped"))
            await task
            in_play = device.door.session is not None
            term.draw(force=True)

    try:
        tty.setcbreak(fd)
        sys.stdout.write("\x1b[?1049h\x1b[?25l\x1b[2J")
        asyncio.run(main())
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write("\x1b[?25h\x1b[?1049l")
        sys.stdout.flush()
    if in_play:
        print("tablemate sim: stopped; the game is kept in", store.root)
    else:
        print("tablemate sim: stopped; no game in play (the history and settings are in", f"{store.root})")
    return 0
