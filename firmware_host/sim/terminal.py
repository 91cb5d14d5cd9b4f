"""``tablemate sim``: the device in a terminal, with the keyboard as its buttons.

The very runtime of the Pi runs on simulated drivers (gpiozero mock pins, luma's dummy display,
the simulated tower and scale). The OLED is drawn with half-block characters (two pixels per
character cell), or quarter blocks in a narrow terminal; the tower shows in a status line.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import termios
import time
import tty
from typing import Any

from PIL import Image

from firmware_host.core.config import Config
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device

SHORT_KEYS = {"1": "p1", "2": "p2", "3": "p3", "4": "p4", "5": "p5", "6": "p6"}
LONG_KEYS = {"q": "p1", "w": "p2", "e": "p3", "r": "p4", "t": "p5", "y": "p6"}
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
SCALE_KEYS = {"+": 5.0, "=": 5.0, "-": -5.0, "]": 50.0, "[": -50.0}

KEYMAP = (
    "seats: 1-6 tap, q w e r t y hold  |  prev: , or <-  next: . or ->  ok: Enter/space, o hold (pause)",
    "back: Backspace/b, B hold (undo)  |  scale: + - (5 g)  ] [ (50 g)  0 empty  |  x quit",
)

HALF = {(0, 0): " ", (1, 0): "▀", (0, 1): "▄", (1, 1): "█"}
QUAD = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"


def frame_text(image: Image.Image, columns: int) -> list[str]:
    """The picture as block characters: half blocks when ``columns`` allows 128, else quarters."""
    px = image.convert("1").load()
    w, h = image.size
    lines = []
    if columns >= w + 2:
        for y in range(0, h, 2):
            lines.append("".join(HALF[(px[x, y] > 0, px[x, y + 1] > 0)] for x in range(w)))
    else:
        for y in range(0, h, 2):
            row = []
            for x in range(0, w, 2):
                bits = (px[x, y] > 0) | (px[x + 1, y] > 0) << 1 | (px[x, y + 1] > 0) << 2 | (px[x + 1, y + 1] > 0) << 3
                row.append(QUAD[bits])
            lines.append("".join(row))
    return lines


class Terminal:
    """Keys in, frames out, around a running :class:`Device`."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._pending = ""
        self._last: Any = None

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
            dev.stop("Stopped")
        elif key in SHORT_KEYS:
            self._press(SHORT_KEYS[key], False)
        elif key in LONG_KEYS:
            self._press(LONG_KEYS[key], True)
        elif key in NAV_KEYS:
            self._press(*NAV_KEYS[key])
        elif key in SCALE_KEYS and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams += SCALE_KEYS[key]
        elif key == "0" and dev.hw and dev.hw.scale is not None:
            dev.hw.scale.grams = 0.0

    def _press(self, button: str, long: bool) -> None:
        buttons = self.device.hw.buttons if self.device.hw else None
        if buttons is None:
            return
        buttons.press(button)
        hold = self.device.config["buttons"]["long_press"] + 0.1 if long else 0.08
        asyncio.get_running_loop().call_later(hold, buttons.release, button)

    def draw(self, force: bool = False) -> None:
        """Redraw when the picture or the status changed."""
        dev = self.device
        image = dev.display.shown
        scale = dev.hw.scale if dev.hw else None
        grams = getattr(scale, "grams", None)
        status = f"tower {dev.lights.showing.describe():14}  display {dev.display.status:8}"
        if grams is not None:
            status += f"  scale {grams:+.0f} g"
        if dev.dimmed:
            status += "  (dimmed)"
        key = (id(image), status)
        if key == self._last and not force:
            return
        self._last = key
        columns = shutil.get_terminal_size((80, 24)).columns
        out = ["\x1b[H"]
        if image is not None:
            out += [line + "\x1b[K\n" for line in frame_text(image, columns)]
        out += ["\x1b[K\n", status + "\x1b[K\n"]
        out += [line[:columns] + "\x1b[K\n" for line in KEYMAP]
        out.append("\x1b[J")
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

    async def main() -> None:
        loop = asyncio.get_running_loop()
        device = Device(config.with_sim(), store, seed=seed, wall=time.time)
        term = Terminal(device)
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
            device.stop("Stopped")
            await task
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
