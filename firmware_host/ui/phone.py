"""Main menu → Phone: a QR code of the companion page with a one-time pairing code, and the code
in digits for typing.

The QR code holds the page's address by IP (``.local`` names are unreliable on Android) and the
code, written in QR's alphanumeric mode (``HTTP://192.168.1.20:8080/P/123456789012``) so it fits a
version 2 symbol (at error level L): 25 modules drawn 2 pixels each, 50 pixels, on a lit 64×64
square that leaves a quiet zone of 3½ modules round it, beside the code in groups of four and the
hints, each wrapped to the 60 pixels beside the square in the table's language. segno gives the
module matrix (imported only here, when the screen opens). ``ok`` asks for a new code; leaving
voids the code; a code that expired or paired a phone is shown void. The page must be serving;
else the screen says how to turn it on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from drivers.buttons import Press
from firmware_host.core.i18n import _
from firmware_host.ui.base import Screen
from firmware_host.ui.render import Frame, Panel, Row

if TYPE_CHECKING:
    from firmware_host.ui.table import MenuTable

MODULE_PX = 2
"""Pixels a QR module takes on the panel."""
SQUARE = 64
"""The lit square the code sits on (its quiet zone)."""
TEXT_PX = 60
"""Pixels of text beside the square."""
LINES = 7
"""Lines of text beside the square (9 pixels each)."""


def grouped(code: str) -> list[str]:
    """The code as it is read out: groups of four, two groups a line."""
    groups = [code[i : i + 4] for i in range(0, len(code), 4)]
    return [" ".join(groups[i : i + 2]) for i in range(0, len(groups), 2)]


def wrap(text: str, width: int = TEXT_PX) -> list[str]:
    """``text`` in lines of at most ``width`` pixels of the panel's small font (words kept whole
    where they fit a line; a longer word is cut)."""
    from luma.core.legacy import textsize
    from luma.core.legacy.font import LCD_FONT, proportional

    font = proportional(LCD_FONT)
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and textsize(joined, font=font)[0] <= width:
            lines[-1] = joined
            continue
        while textsize(word, font=font)[0] > width and len(word) > 1:
            word = word[:-1]
        lines.append(word)
    return lines


def qr_link(url: str) -> str:
    """The pairing link in the form QR's alphanumeric mode holds: upper case, the code as a path."""
    base, _, code = url.partition("pair?code=")
    return (base + "P/" + code).upper()


def qr_image(text: str) -> Image.Image:
    """A 64×64 1-bit picture: the QR code of ``text`` (dark modules on a lit square)."""
    import segno

    qr = segno.make(text, error="l", micro=False)
    size = qr.symbol_size(scale=MODULE_PX, border=0)[0]
    img = Image.new("1", (SQUARE, SQUARE), 1)
    draw = ImageDraw.Draw(img)
    x0 = y0 = (SQUARE - size) // 2
    for y, row in enumerate(qr.matrix_iter(scale=1, border=0)):
        for x, dark in enumerate(row):
            if dark:
                px, py = x0 + x * MODULE_PX, y0 + y * MODULE_PX
                draw.rectangle((px, py, px + MODULE_PX - 1, py + MODULE_PX - 1), fill=0)
    return img


class PhoneScreen(Screen):
    """The pairing code on the panel (see the module's docstring)."""

    table: MenuTable

    def __init__(self, table: MenuTable) -> None:
        super().__init__(table)
        self.offer = table.phone_offer()
        self._qr: Image.Image | None = None

    def press(self, press: Press) -> None:
        if press.button == "ok":
            self.offer = self.table.phone_offer()
            self._qr = None
        elif press.button == "back":
            self.table.withdraw_offer()
            self.table.pop()

    def frame(self) -> Frame:
        if self.offer is None:
            rows = (Row.of(_("The page is off:")), Row.of("[web] enabled"), Row.of(_("back: close")))
            return Frame(_("Phone"), rows)
        return Frame(_("Phone"), tuple(Row.of(line) for line in self.lines()))

    def lines(self) -> list[str]:
        """The words beside the QR code: how to pair and the code, or that the code is void."""
        assert self.offer is not None
        if self.table.phone_code_void():
            return [*wrap(_("This code is void.")), *wrap(_("ok: new code")), *wrap(_("back: close"))]
        return [*wrap(_("Scan, or type:")), *grouped(self.offer[1]), *wrap(_("ok: new")), *wrap(_("back: close"))]

    def picture_lines(self) -> list[str]:
        """The words :meth:`picture` draws beside the QR code, one line a row."""
        return [_("Phone"), *self.lines()][:LINES] if self.offer is not None else []

    def picture(self, panel: Panel) -> Image.Image | None:
        """The QR code beside the code in digits (``None``: the plain frame will do)."""
        if self.offer is None:
            return None
        from luma.core.legacy import text
        from luma.core.legacy.font import LCD_FONT, proportional

        if self._qr is None:
            self._qr = qr_image(qr_link(self.offer[0]))
        img = Image.new("1", (panel.width, panel.height), 0)
        if not self.table.phone_code_void():  # a void code is not offered to scan
            img.paste(self._qr, (0, (panel.height - SQUARE) // 2))
        draw = ImageDraw.Draw(img)
        lines = self.picture_lines()
        font = proportional(LCD_FONT)
        for i, line in enumerate(lines):
            text(draw, (SQUARE + 4, 2 + i * 9), line, fill=1, font=font)
        return img
