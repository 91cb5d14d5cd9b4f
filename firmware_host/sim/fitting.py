"""The simulated panel in a terminal of any size: drawn as characters, with the lines below it.

The panel is drawn in the finest form the terminal holds beside the lines below it: half blocks
(1×2 pixels a character) in a big terminal, quarter blocks (2×2) in a narrower one, braille dots
(2×4) in a standard 80×24 one. The lines below it are the status and the keys, wrapped to the
terminal's width; when the panel does not fit whole with all of them, the key help shrinks to one
short line (``? keys  x quit``: ``?`` shows them all), and when even braille does not fit, the
picture is made smaller until it does (every panel, in every terminal from 60×20 up).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

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
CELL = {"half": (1, 2), "quarter": (2, 2), "braille": (2, 4)}
"""Pixels across and down that one character of each drawing shows."""
DRAWINGS = ("half", "quarter", "braille")
"""The drawings, finest first."""
SEPARATOR = "  "
"""What parts of the status and the key help are joined with on a line."""
LIT = 0.3
"""A character cell of a made-smaller picture is lit when this share of its pixels is."""


def cells(size: tuple[int, int], kind: str) -> tuple[int, int]:
    """Characters across and down that a picture of ``size`` pixels takes drawn as ``kind``."""
    (w, h), (cw, ch) = size, CELL[kind]
    return math.ceil(w / cw), math.ceil(h / ch)


def pack(parts: Sequence[str], columns: int) -> list[str]:
    """``parts`` joined by :data:`SEPARATOR` into as few lines of at most ``columns`` as they go
    (a part longer than a line is wrapped at its spaces)."""
    lines: list[str] = []
    for part in parts:
        pieces = textwrap.wrap(part, max(1, columns)) or [""]
        for piece in pieces:
            if lines and len(lines[-1]) + len(SEPARATOR) + len(piece) <= columns:
                lines[-1] += SEPARATOR + piece
            else:
                lines.append(piece)
    return lines


@dataclass(frozen=True)
class Plan:
    """How the panel and the lines below it fit the terminal."""

    kind: str
    """The drawing: ``half``, ``quarter`` or ``braille``."""
    size: tuple[int, int]
    """The picture's size in pixels as drawn: the panel's, or smaller where it had to be."""
    below: tuple[str, ...]
    """The lines under the panel."""
    native: tuple[int, int]
    """The panel's own size."""

    @property
    def scaled(self) -> bool:
        """Whether the picture had to be made smaller."""
        return self.size != self.native


def plan(
    size: tuple[int, int],
    columns: int,
    rows: int,
    status: Sequence[str],
    keys: Sequence[str],
    short_keys: str,
) -> Plan:
    """The finest way ``size`` fits ``columns`` × ``rows`` with the lines below it.

    The lines below, most first: a blank, the status and every key; the status and every key;
    the status and ``short_keys``. The first of them with which some drawing shows the panel at
    its own size wins (the finest drawing that fits); when none does, braille made as small as
    it must be, beside the lines that leave it largest (the most of them, on a tie).
    """
    status_lines = pack(status, columns)
    key_lines = pack(keys, columns)
    choices = [
        ["", *status_lines, *key_lines],
        [*status_lines, *key_lines],
        [*status_lines, *pack([short_keys], columns)],
    ]
    for below in choices:
        room = rows - len(below)
        for kind in DRAWINGS:
            across, down = cells(size, kind)
            if across <= columns and down <= room:
                return Plan(kind, size, tuple(below), size)
    best: Plan | None = None
    w, h = size
    for below in choices:
        room = max(1, rows - len(below))
        factor = min(columns * CELL["braille"][0] / w, room * CELL["braille"][1] / h, 1.0)
        shrunk = (max(1, math.floor(w * factor)), max(1, math.floor(h * factor)))
        if best is None or shrunk[0] * shrunk[1] > best.size[0] * best.size[1]:
            best = Plan("braille", shrunk, tuple(below), size)
    assert best is not None
    return best


def shrink(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` (1-bit) made ``size``: each new pixel lit when :data:`LIT` of what it covers is
    (thin strokes stay, as far as they can)."""
    if image.size == size:
        return image
    grey = image.convert("L").resize(size, Image.Resampling.BOX)
    return grey.point(lambda v: 255 if v >= 255 * LIT else 0).convert("1")


def draw(image: Image.Image, kind: str) -> list[str]:
    """``image`` as lines of characters drawn as ``kind``."""
    px = image.convert("1").load()
    w, h = image.size

    def lit(x: int, y: int) -> bool:
        return x < w and y < h and px[x, y] > 0

    lines = []
    if kind == "half":
        for y in range(0, h, 2):
            lines.append("".join(HALF[(lit(x, y), lit(x, y + 1))] for x in range(w)))
    elif kind == "quarter":
        for y in range(0, h, 2):
            row = []
            for x in range(0, w, 2):
                bits = lit(x, y) | lit(x + 1, y) << 1 | lit(x, y + 1) << 2 | lit(x + 1, y + 1) << 3
                row.append(QUAD[bits])
            lines.append("".join(row))
    else:
        for y in range(0, h, 4):
            row = []
            for x in range(0, w, 2):
                bits = sum(b for dx, dy, b in BRAILLE_BITS if lit(x + dx, y + dy))
                row.append(chr(0x2800 + bits))
            lines.append("".join(row))
    return lines


def panel_text(image: Image.Image, fitted: Plan) -> list[str]:
    """The picture drawn as ``fitted`` says (made smaller first where it must be)."""
    return draw(shrink(image, fitted.size), fitted.kind)
