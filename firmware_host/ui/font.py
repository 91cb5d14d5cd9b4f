"""The screen's font: luma's ``LCD_FONT`` (7 pixels tall, proportional) with the glyphs it lacks
or draws badly (capital umlauts, ``ß``, a round ``S``, a heart for a life) drawn here, and the
characters it has no room for written out (``Ł`` as ``L``). What :mod:`firmware_host.ui.render`
measures and draws text with.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from luma.core.legacy.font import LCD_FONT
from PIL import Image

from firmware_host.core.i18n import tr

GLYPH_H = 8
"""Pixels of a glyph's picture: the font's 7 and the blank line under them."""


SPELLED = {
    "Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d",
    "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "–": "-", "—": "-", "→": ">", "×": "x", "’": "'", "“": '"',
    "”": '"', "„": '"', "«": '"', "»": '"',
}  # fmt: skip
"""Characters the 7-pixel font has no room for, written out."""


def _picture(*lines: str) -> tuple[int, ...]:
    """Pixel columns of a glyph drawn as text, one string a row from the top (``#`` lit)."""
    return tuple(sum(1 << y for y, line in enumerate(lines) if line[x] == "#") for x in range(len(lines[0])))


DRAWN: dict[str, tuple[int, ...]] = {
    "±": (0x44, 0x44, 0x5F, 0x44, 0x44),
    "…": (0x40, 0x00, 0x40, 0x00, 0x40),
    "°": (0x06, 0x09, 0x09, 0x06),
    "·": (0x0C, 0x0C),
    # capital umlauts: the letter one pixel shorter, its dots on the top row (as a 5×7 LCD does)
    "Ä": _picture("#...#", ".###.", "#...#", "#...#", "#####", "#...#", "#...#"),
    "Ö": _picture("#...#", ".###.", "#...#", "#...#", "#...#", "#...#", ".###."),
    "Ü": _picture(".#.#.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "ß": _picture(".##..", "#..#.", "#..#.", "#.#..", "#..#.", "#...#", "#.##."),
    # the font's S is a 5 without its top corner (``8S`` read as ``85``): the S of a 5×7 LCD
    "S": _picture(".###.", "#...#", "#....", ".###.", "....#", "#...#", ".###."),
    "♥": _picture(".....", ".#.#.", "#####", "#####", ".###.", "..#..", "....."),  # a life (Bomb)
    "▲": _picture("..#..", "..#..", ".###.", ".###.", "#####", "#####", "....."),  # the dunce cap (Trottelmütze)
}
"""Glyphs the font lacks, drawn here: one byte a pixel column, bit 0 the top row (lowercase
umlauts are the font's letters with their dots added, see :func:`_columns`)."""


def _known(ch: str) -> bool:
    if ch in DRAWN or ord(ch) < 128:
        return True
    parts = unicodedata.normalize("NFKD", ch)
    return bool(parts) and ord(parts[0]) < 128


def _columns(ch: str) -> list[int]:
    """The font's pixel columns for ``ch``; accents become their base letter, a lowercase umlaut
    gets its two dots on the free top row."""
    if ch in DRAWN:
        return list(DRAWN[ch])
    code = ord(ch)
    if code < 128:
        return list(LCD_FONT[code])
    parts = unicodedata.normalize("NFKD", ch)
    base = parts[0] if parts and ord(parts[0]) < 128 else "?"
    columns = list(DRAWN.get(base) or LCD_FONT[ord(base)])
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
    img = Image.new("1", (len(columns) + 1, GLYPH_H))
    px = img.load()
    assert px is not None  # a picture in memory always loads
    for x, bits in enumerate(columns):
        for y in range(GLYPH_H):
            if bits >> y & 1:
                px[x, y] = 1
    return img


@lru_cache(maxsize=1024)
def char_width(ch: str) -> int:
    """Width in pixels of one character as drawn (a spelled-out letter counts its letters)."""
    return sum(_glyph(c).width for c in SPELLED.get(ch, ch))


def _spell(text: str) -> str:
    return "".join(SPELLED.get(ch, ch) for ch in text)


def text_width(text: str) -> int:
    """Width in pixels of ``text`` in the screen font."""
    return sum(char_width(ch) for ch in tr(text))


def missing_glyphs(text: str) -> str:
    """The characters of ``text`` the font can neither draw nor spell out."""
    return "".join(ch for ch in dict.fromkeys(text) if ch not in SPELLED and not _known(ch))
