"""luma's drivers of the 1-bit panels (SSD1306, SH1106, SSD1309, SH1107), sending only what changed.

luma's ``display()`` of these panels packs the picture pixel by pixel in Python (about 0.7 ms a
128×64 frame on a desktop, ~10× that on a Pi Zero; twice that for the SH1107's 128×128) and
sends the whole frame every time — 1,024 bytes (2,048 on the SH1107): 93 ms of bus time at
100 kHz, 23 ms at 400 kHz — although a menu step changes a few hundred bytes and a timer tick a
few dozen. These subclasses keep luma's drivers (their set-up, contrast, power, rotation and
serial interfaces) and replace only ``display()``:

- **Packing without a per-pixel loop.** The panel's memory is 8 pages of ``width`` bytes, one
  byte a column of 8 pixels, the top pixel in bit 0. Flipping the picture top to bottom and
  transposing it (:func:`pages_of`) makes each page's column byte a byte of ``tobytes()``
  (1-bit rows pack eight pixels a byte, the first in the top bit); PIL does the work in C.
- **Only the changed rectangle.** The new pages are compared with those last sent; the changed
  pages and the span of columns that changed are sent as one window (SSD1306: ``COLUMNADDR`` and
  ``PAGEADDR``, then the bytes), or one window per changed page where that is fewer bytes; the
  SSD1309 is an SSD1306 in this (luma's ``ssd1309`` is its ``ssd1306`` with another name). The
  SH1106 and SH1107 have no window: each changed page gets its page and column address, then its
  changed bytes (the SH1107's 16 pages, columns 0–127 without the SH1106's offset of 2).
- **A full frame when in doubt**: the first picture after opening (a reopen after an I2C error
  makes a new driver) and the next one after a failed send.
- **Working out and sending are apart.** :meth:`prepare` packs a picture and works out its bus
  writes (no I/O, a fraction of a millisecond: the display service does it on the event loop);
  :meth:`send` only puts those writes on the bus (the service's panel writer thread does it, as
  a menu step takes ~6 ms at 400 kHz). luma's ``display()`` is both, on the caller's thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from luma.oled.device import sh1106, sh1107, ssd1306, ssd1309
from PIL import Image

WINDOW_COST = 8
"""Bytes one more SSD1306 window costs on the wire (address and control bytes, 6 commands)."""


def pages_of(image: Image.Image, pages: int) -> list[bytes]:
    """The panel bytes of a 1-bit ``image``: ``pages`` rows of one byte a column, bit 0 on top."""
    width = image.size[0]
    # flipped top to bottom and transposed: row x of the result is column x, bottom pixel first;
    # its bytes are pages 7..0, each with the page's top pixel in bit 0
    data = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM).transpose(Image.Transpose.TRANSPOSE).tobytes()
    return [data[pages - 1 - p :: pages][:width] for p in range(pages)]


def _span(old: bytes, new: bytes) -> tuple[int, int] | None:
    """First and last column where ``old`` and ``new`` differ, or ``None``."""
    if old == new:
        return None
    n = len(new)
    first = next(i for i in range(n) if old[i] != new[i])
    last = next(i for i in range(n - 1, -1, -1) if old[i] != new[i])
    return first, last


@dataclass(frozen=True)
class Update:
    """One picture's bus writes, worked out by ``prepare()`` and put on the bus by ``send()``."""

    pages: list[bytes]
    """The panel's bytes once the writes have gone through."""
    writes: list[tuple[bool, list[int]]]
    """In order: (``True`` for a command write, ``False`` for a data write; its bytes)."""


class _Partial:
    """What both drivers share: the pages last sent, and which of them changed."""

    _shown: list[bytes] | None = None
    """The pages last sent (``None``: unknown, so the next picture goes whole)."""

    def prepare(self, image: object) -> Update:
        """The writes that show ``image`` after what was last sent (no I/O)."""
        raise NotImplementedError

    def send(self, update: Update) -> None:
        """Put ``update``'s writes on the bus, in order; after a failure the next goes whole.

        One update at a time, each prepared after the previous one was sent."""
        self._shown = None  # until this send has gone through
        for command, payload in update.writes:
            if command:
                self.command(*payload)
            else:
                self.data(payload)
        self._shown = update.pages

    def display(self, image: Image.Image) -> None:
        """Show a 1-bit ``image``: the changed bytes, or everything after a reopen or error."""
        self.send(self.prepare(image))

    def forget(self) -> None:
        """The panel's memory is unknown (re-initialised: it may have been reset): the next
        picture goes whole."""
        self._shown = None

    def _diff(self, image: Image.Image) -> tuple[list[bytes], dict[int, tuple[int, int]] | None]:
        """The pages of a 1-bit ``image`` (the panel's size and mode) and what changed in them."""
        assert image.mode == self.mode  # luma's device gives mode, size, preprocess
        assert image.size == self.size
        pages = pages_of(self.preprocess(image), self._pages)
        return pages, self._changes(pages)

    def _changes(self, pages: list[bytes]) -> dict[int, tuple[int, int]] | None:
        """Changed pages → their column spans; ``None`` when a full frame must go."""
        if self._shown is None:
            return None
        out = {}
        for p, (old, new) in enumerate(zip(self._shown, pages, strict=True)):
            span = _span(old, new)
            if span is not None:
                out[p] = span
        return out


class SSD1306(_Partial, ssd1306):
    """luma's ``ssd1306`` whose ``display()`` sends only the changed window."""

    def prepare(self, image: Image.Image) -> Update:
        """The windows that show a 1-bit ``image``: the changed rectangle, or everything after a
        reopen or error."""
        pages, changes = self._diff(image)
        windows = [(0, self._pages - 1, 0, self._w - 1)] if changes is None else _windows(changes)
        start, writes = self._colstart, []
        for p0, p1, c0, c1 in windows:
            writes.append((True, [self._const.COLUMNADDR, start + c0, start + c1, self._const.PAGEADDR, p0, p1]))
            writes.append((False, list(b"".join(pages[p][c0 : c1 + 1] for p in range(p0, p1 + 1)))))
        return Update(pages, writes)


def _windows(changes: dict[int, tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """The windows (first page, last page, first column, last column) that cover ``changes``
    in the fewer bytes: one bounding window, or one window per changed page."""
    if not changes:
        return []
    ps = sorted(changes)
    whole = (ps[0], ps[-1], min(c[0] for c in changes.values()), max(c[1] for c in changes.values()))
    each = [(p, p, *changes[p]) for p in ps]

    def cost(windows: list[tuple[int, int, int, int]]) -> int:
        return sum(WINDOW_COST + (p1 - p0 + 1) * (c1 - c0 + 1) for p0, p1, c0, c1 in windows)

    return [whole] if cost([whole]) <= cost(each) else each


class SSD1309(SSD1306, ssd1309):
    """luma's ``ssd1309`` (an ``ssd1306`` with another name) whose ``display()`` sends only the
    changed window."""


class _PageAddressed(_Partial):
    """A panel without windows: each changed page gets its page and column address."""

    _column_offset = 0
    """Columns of the controller's memory left of the glass (the SH1106's 132 for 128: 2)."""

    def prepare(self, image: Image.Image) -> Update:
        """The page writes that show a 1-bit ``image``: the changed bytes, or everything after a
        reopen or error."""
        pages, changes = self._diff(image)
        if changes is None:
            changes = {p: (0, self._w - 1) for p in range(self._pages)}
        writes = []
        for p, (c0, c1) in sorted(changes.items()):
            column = self._column_offset + c0
            writes.append((True, [0xB0 + p, column & 0x0F, 0x10 | (column >> 4)]))
            writes.append((False, list(pages[p][c0 : c1 + 1])))
        return Update(pages, writes)


class SH1106(_PageAddressed, sh1106):
    """luma's ``sh1106`` whose ``display()`` sends only the changed bytes of the changed pages."""

    @property
    def _column_offset(self) -> int:  # type: ignore[override]
        return self._page_address_offset


class SH1107(_PageAddressed, sh1107):
    """luma's ``sh1107`` whose ``display()`` sends only the changed bytes of the changed pages
    (luma's addresses each page as column 0: ``0x10, 0x00, 0xB0 | page``)."""
