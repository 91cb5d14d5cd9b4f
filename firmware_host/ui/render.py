"""Drawing frames for the 128×64 OLED.

A :class:`Frame` is what a screen wants to show, as data: a title bar and up to six rows of text,
each row one cell or two columns, some inverted. :func:`render` draws it into a 1-bit image with
luma's ``LCD_FONT`` (7 pixels tall, proportional), shifted by a small offset that the display
service moves now and then so no pixel stays lit for hours (burn-in).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from luma.core.legacy.font import LCD_FONT
from PIL import Image

from drivers.display import HEIGHT, WIDTH

MARGIN = 2
"""The picture is drawn in a 126×62 area and moved by up to this many pixels against burn-in."""
ROW = 8
ROWS = 6
CONTENT_W = WIDTH - MARGIN


@dataclass(frozen=True)
class Row:
    """One line of text: one cell, or two columns; ``right`` is right-aligned."""

    cells: tuple[str, ...] = ("",)
    right: str = ""
    invert: bool = False

    @classmethod
    def of(cls, text: str = "", right: str = "", invert: bool = False) -> Row:
        """A one-cell row."""
        return cls((text,), right, invert)


@dataclass(frozen=True)
class Frame:
    """A whole screen: title bar, rows, and an optional time bar (0..1) on the right edge."""

    title: str
    rows: tuple[Row, ...] = ()
    title_right: str = ""
    bar: float | None = None


SPELLED = {"Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
"""Letters the 7-pixel font has no room for, written out."""


def _columns(ch: str) -> list[int]:
    """The font's pixel columns for ``ch``; accents become their base letter, a lowercase umlaut
    gets its two dots on the free top row."""
    code = ord(ch)
    if code < 128:
        return list(LCD_FONT[code])
    parts = unicodedata.normalize("NFKD", ch)
    base = parts[0] if parts and ord(parts[0]) < 128 else "?"
    columns = list(LCD_FONT[ord(base)])
    if "\u0308" in parts and not any(c & 1 for c in columns):
        used = [i for i, c in enumerate(columns) if c]
        if used:
            left, right = used[0], used[-1]
            columns[left + 1] |= 1
            columns[right - 1] |= 1
    return columns


@lru_cache(maxsize=512)
def _glyph(ch: str) -> Image.Image:
    columns = _columns(ch)
    while columns and columns[-1] == 0:
        columns.pop()
    lead = 0
    while lead < len(columns) and columns[lead] == 0:
        lead += 1
    columns = columns[lead:] if columns else []
    if not columns:
        columns = [0, 0, 0]  # space
    img = Image.new("1", (len(columns) + 1, ROW))
    px = img.load()
    for x, bits in enumerate(columns):
        for y in range(ROW):
            if bits >> y & 1:
                px[x, y] = 1
    return img


def _spell(text: str) -> str:
    return "".join(SPELLED.get(ch, ch) for ch in text)


def text_width(text: str) -> int:
    """Width in pixels of ``text`` in the screen font."""
    return sum(_glyph(ch).width for ch in _spell(text))


def fit(text: str, width: int) -> str:
    """``text`` cut (with ``…`` as ``.``) to fit ``width`` pixels."""
    if text_width(text) <= width:
        return text
    while text and text_width(text + ".") > width:
        text = text[:-1]
    return text + "."


def draw_text(img: Image.Image, x: int, y: int, text: str, width: int | None = None) -> int:
    """Paste ``text`` at (x, y) in white, clipped to ``width``; returns the x after it."""
    limit = x + (width if width is not None else img.width - x)
    for ch in _spell(text):
        glyph = _glyph(ch)
        if x + glyph.width - 1 > limit:
            break
        img.paste(1, (x, y), glyph)
        x += glyph.width
    return x


def wrap(text: str, width: int = CONTENT_W - 2) -> list[str]:
    """``text`` broken into lines that fit ``width`` pixels."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split():
            candidate = f"{line} {word}" if line else word
            if text_width(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            while text_width(word) > width:  # a word longer than the screen
                cut = len(word)
                while cut > 1 and text_width(word[:cut]) > width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


def _row(img: Image.Image, x0: int, y: int, row: Row, width: int) -> None:
    if row.invert:  # the bar leaves its last line dark, so stacked bars stay apart
        img.paste(1, (x0, y, x0 + width, y + ROW - 1))
    cell_w = width // len(row.cells)
    right_w = text_width(row.right) if row.right else 0
    canvas = Image.new("1", (width, ROW))
    for i, cell in enumerate(row.cells):
        room = cell_w - 2 - (right_w + 2 if row.right and i == len(row.cells) - 1 else 0)
        draw_text(canvas, 1 + i * cell_w, 0, fit(cell, room), room)
    if row.right:
        draw_text(canvas, width - right_w - 1, 0, row.right)
    if row.invert:
        img.paste(0, (x0, y), canvas)
    else:
        img.paste(1, (x0, y), canvas)


def render(frame: Frame, offset: tuple[int, int] = (0, 0)) -> Image.Image:
    """The 128×64 1-bit picture of ``frame``, shifted by ``offset`` (each 0..MARGIN)."""
    img = Image.new("1", (WIDTH, HEIGHT))
    ox, oy = offset
    bar_w = 3 if frame.bar is not None else 0
    width = CONTENT_W - bar_w
    _row(img, ox, oy, Row.of(frame.title, frame.title_right, invert=True), width)
    for i, row in enumerate(frame.rows[:ROWS]):
        _row(img, ox, oy + ROW * (i + 1), row, width)
    if frame.bar is not None:
        height = ROW * (ROWS + 1)
        filled = round(max(0.0, min(1.0, frame.bar)) * height)
        x = ox + width + 1
        img.paste(1, (x, oy, x + 1, oy + height), None)  # frame line
        if filled:
            img.paste(1, (x, oy + height - filled, x + 2, oy + height))
    return img


def to_text(img: Image.Image) -> str:
    """The picture as text (``#`` lit, ``.`` dark), for tests and debugging."""
    px = img.load()
    return "\n".join("".join("#" if px[x, y] else "." for x in range(img.width)) for y in range(img.height))
