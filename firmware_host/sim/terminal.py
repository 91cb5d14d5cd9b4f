"""``tablemate sim``: the device in a terminal, with the keyboard as its buttons.

The very runtime of the Pi runs on simulated drivers (gpiozero mock pins, luma's dummy display,
the simulated tower and scale). The OLED is drawn in the finest form the terminal holds with the
status line and the keys below it: half blocks (1×2 pixels a character, 128×32 characters) in a
big terminal, quarter blocks (2×2, 64×32) in a tall one, braille dots (2×4, 64×16) in a standard
80×24 one. A resize (SIGWINCH) redraws at once.

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
from typing import Any

from PIL import Image

from firmware_host.core.config import Config
from firmware_host.core.i18n import _, tr
from firmware_host.core.store import Store
from firmware_host.runtime.device import DISPLAY_STATES, Device
from games.core import T

SHORT_KEYS = {"1": "p1", "2": "p2", "3": "p3", "4": "p4", "5": "p5", "6": "p6"}
LONG_KEYS = {"q": "p1", "w": "p2", "e": "p3", "r": "p4", "t": "p5", "y": "p6"}
DOWN_KEYS = {"Q": "p1", "W": "p2", "E": "p3", "R": "p4", "T": "p5", "Y": "p6"}
"""Shifted: the seat goes down and stays down until the same key again (a hold of any length:
the count of a card being recorded goes up while it is down)."""
NAV_KEYS = {
    "\x1b[D": ("prev", False),
    ",": ("prev", False),
    "\x1b[C": ("next", False),
    ".": ("next", False),
    "\r": ("ok", False),
    "\n": ("ok", False),
    " ": ("ok", False),
    "o": ("ok", True),
    "\x7f": ("back", False),
    "\x08": ("back", False),
    "b": ("back", False),
    "B": ("back", True),
}
SIM_PIECE_GRAMS = 5.0
"""What one piece of any kind weighs on the simulated scale (its calibration says so)."""
SCALE_KEYS = {"+": 1, "=": 1, "-": -1, "]": 10, "[": -10}
"""Key → pieces put in (negative: taken out)."""

KEYMAP = (
    T("seat 1-6 tap, q-y hold, Q-Y down/up  prev , <-  next . ->  ok Enter, o hold"),
    T("back b, B hold (undo)  scale + - one piece, ] [ ten, 0 empty  x quit"),
)
"""The keys, each line at most 80 characters (in every language)."""

HALF = {(0, 0): " ", (1, 0): "▀", (0, 1): "▄", (1, 1): "█"}
QUAD = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
BRAILLE_BITS = (
    (0, 0, 0x01),
    (0, 1, 0x02),
    (0, 2, 0x04),
    (1, 0, 0x08),
    (1, 1, 0x10),
    (1, 2, 0x20),
    (0, 3, 0x40),
    (1, 3, 0x80),
)
"""(dx, dy, bit) of each dot of a braille character (Unicode's dot numbering)."""
BELOW = 2 + len(KEYMAP)
"""Lines under the panel: a blank, the status line, the keys."""


def sim_calibration(kinds: list[str]) -> dict[str, Any]:
    """A ``scale.json`` that fits the simulated cell, each kind of piece :data:`SIM_PIECE_GRAMS`."""
    from drivers.scale.sim import DEFAULT_COUNTS_PER_GRAM, DEFAULT_OFFSET

    return {
        "counts_per_gram": DEFAULT_COUNTS_PER_GRAM,
        "offset": DEFAULT_OFFSET,
        "noise": 150.0,
        "pieces": {k: SIM_PIECE_GRAMS for k in kinds},
        "weight_grams": 100,
    }


def drawing(size: tuple[int, int], columns: int, rows: int) -> str:
    """Which drawing fits ``columns`` × ``rows`` with the lines below it: half, quarter or braille."""
    w, h = size
    if columns >= w and rows >= h // 2 + BELOW:
        return "half"
    if columns >= w // 2 and rows >= h // 2 + BELOW:
        return "quarter"
    return "braille"


def frame_text(image: Image.Image, columns: int, rows: int = 10_000) -> list[str]:
    """The picture as characters: the finest drawing that leaves room below it in the terminal."""
    px = image.convert("1").load()
    w, h = image.size
    kind = drawing(image.size, columns, rows)
    lines = []
    if kind == "half":
        for y in range(0, h, 2):
            lines.append("".join(HALF[(px[x, y] > 0, px[x, y + 1] > 0)] for x in range(w)))
    elif kind == "quarter":
        for y in range(0, h, 2):
            row = []
            for x in range(0, w, 2):
                bits = (px[x, y] > 0) | (px[x + 1, y] > 0) << 1 | (px[x, y + 1] > 0) << 2 | (px[x + 1, y + 1] > 0) << 3
                row.append(QUAD[bits])
            lines.append("".join(row))
    else:
        for y in range(0, h, 4):
            row = []
            for x in range(0, w, 2):
                bits = sum(b for dx, dy, b in BRAILLE_BITS if y + dy < h and px[x + dx, y + dy] > 0)
                row.append(chr(0x2800 + bits))
            lines.append("".join(row))
    return lines


class Terminal:
    """Keys in, frames out, around a running :class:`Device`."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._pending = ""
        self._last: Any = None
        self.page = ""
        """The companion page's address, shown on the status line when it serves."""
        self._down: set[str] = set()

    def key(self, data: str) -> None:
        """Handle the characters one read gave."""
        self._pending += data
        while self._pending:
            chunk = self._take()
            if chunk is None:
                break
            self._one(chunk)

    def _take(self) -> str | None:
        p = self._pending
        if p.startswith("\x1b["):
            if len(p) < 3:
                return None
            chunk, self._pending = p[:3], p[3:]
            return chunk
        chunk, self._pending = p[0], p[1:]
        return chunk

    def _one(self, key: str) -> None:
        dev = self.device
        if key in ("x", "\x03"):
            dev.stop(T("Stopped"))
        elif key in SHORT_KEYS:
            self._press(SHORT_KEYS[key], False)
        elif key in LONG_KEYS:
            self._press(LONG_KEYS[key], True)
        elif key in DOWN_KEYS:
            self._toggle(DOWN_KEYS[key])
        elif key in NAV_KEYS:
            self._press(*NAV_KEYS[key])
        elif key in SCALE_KEYS and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams = max(0.0, dev.hw.scale.grams + SCALE_KEYS[key] * SIM_PIECE_GRAMS)
        elif key == "0" and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams = 0.0

    def _press(self, button: str, long: bool) -> None:
        buttons = self.device.hw.buttons if self.device.hw else None
        if buttons is None:
            return
        buttons.press(button)
        hold = self.device.config["buttons"]["long_press"] + 0.1 if long else 0.08
        asyncio.get_running_loop().call_later(hold, buttons.release, button)

    def status(self) -> str:
        """The status line: tower, display, the scale's load in pieces."""
        dev = self.device
        scale = dev.hw.scale if dev.hw else None
        grams = getattr(scale, "grams", None)
        display = tr(DISPLAY_STATES.get(dev.display.status, dev.display.status))
        parts = [
            _("tower {lights}").format(lights=dev.lights.showing.describe()),
            _("display {state}").format(state=display),
        ]
        if grams is not None:
            pieces = grams / SIM_PIECE_GRAMS
            if pieces == round(pieces):
                parts.append(_("bin {pieces:.0f} pcs").format(pieces=pieces))
            else:
                parts.append(_("bin {grams:+.1f} g").format(grams=grams))
        if dev.dimmed:
            parts.append(_("(dimmed)"))
        if self.page:
            parts.append(self.page)
        return "  ".join(parts)

    def lines(self, columns: int, rows: int) -> list[str]:
        """Everything the terminal shows, for a terminal of ``columns`` × ``rows``."""
        image = self.device.display.shown
        panel = frame_text(image, columns, rows) if image is not None else []
        return [line[:columns] for line in (*panel, "", self.status(), *map(tr, KEYMAP))][:rows]

    def _toggle(self, button: str) -> None:
        buttons = self.device.hw.buttons if self.device.hw else None
        if buttons is None:
            return
        if button in self._down:
            self._down.discard(button)
            buttons.release(button)
        else:
            self._down.add(button)
            buttons.press(button)

    def draw(self, force: bool = False) -> None:
        """Redraw when the picture or the status changed (or ``force``, after a resize)."""
        image = self.device.display.shown
        status = self.status()
        key = (id(image), status)
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

    if not store.read_doc("scale"):  # the simulated cell comes calibrated: + and - count pieces
        from firmware_host.ui.calibrate import kind_labels

        store.write_doc("scale", sim_calibration(list(kind_labels())))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        device = Device(config.with_sim(), store, seed=seed, wall=time.time)
        page = None
        if config["web"]["enabled"]:  # the page beside the terminal (aiohttp loaded only then)
            from firmware_host.web.server import start_page

            page = device.companion = await start_page(device, config.with_sim()["web"], sim=True)
        term = Terminal(device)
        term.page = page.url() if page is not None else ""
        loop.add_signal_handler(signal.SIGWINCH, lambda: term.draw(force=True))
        task = asyncio.create_task(device.run())
        ready = asyncio.create_task(device.ready.wait())
        await asyncio.wait([task, ready], return_when=asyncio.FIRST_COMPLETED)
        if task.done():  # the device failed before it was ready: say why, do not wait forever
            ready.cancel()
            task.result()
            return
        loop.add_reader(fd, lambda: term.key(os.read(fd, 64).decode("utf-8", "ignore")))
        try:
            while not task.done():
                term.draw()
                await asyncio.wait([task], timeout=0.05)
        finally:
            loop.remove_reader(fd)
            loop.remove_signal_handler(signal.SIGWINCH)
            device.stop(T("Stopped"))
            await task
            if page is not None:
                await page.close()
            term.draw(force=True)

    try:
        tty.setcbreak(fd)
        sys.stdout.write("\x1b[?1049h\x1b[?25l\x1b[2J")
        asyncio.run(main())
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write("\x1b[?25h\x1b[?1049l")
        sys.stdout.flush()
    print("tablemate sim: stopped; the game is kept in", store.root)
    return 0
