"""The seam between the layout and the panel: the panel a layout is made for, and a picture made
to fit the panel.

The screens lay out for the panel in force (:func:`firmware_host.ui.render.panel`): the device
draws at the configured panel's own size (:func:`layout_panel` of
:func:`firmware_host.runtime.hardware.panel_size`, kept as ``Device.panel_size``), so a 256×64
SSD1322 gets wider columns and more scores to a row, and a 128×128 SH1107/SSD1327 gets more lines
and its score grid and whose turn it is twice the size. A panel narrower or lower than 128×64
(a turned 256×64 is 64 wide) gets the 128×64 layout, scaled or cut to fit by :func:`to_panel`,
which passes a picture of the panel's size through unchanged.
"""

from __future__ import annotations

from PIL import Image

from firmware_host.ui.render import PANEL, Panel

LAYOUT_SIZE = (PANEL.width, PANEL.height)
"""The smallest size a layout is made for (128×64)."""


def layout_panel(size: tuple[int, int]) -> Panel:
    """The panel the screens lay out for on a panel of ``size`` pixels: that size, or 128×64 on
    a panel smaller either way."""
    if size[0] < LAYOUT_SIZE[0] or size[1] < LAYOUT_SIZE[1]:
        return PANEL
    return Panel(*size)


def scale_of(size: tuple[int, int], layout: tuple[int, int] = LAYOUT_SIZE) -> tuple[int, int]:
    """The whole-pixel factors (x, y) that fit ``layout`` into ``size`` (at least 1 each)."""
    return max(1, size[0] // layout[0]), max(1, size[1] // layout[1])


def to_panel(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` scaled by whole pixels and centred on a dark picture of ``size`` (same mode)."""
    if image.size == size:
        return image
    sx, sy = scale_of(size, image.size)
    scaled = image.resize((image.width * sx, image.height * sy), Image.Resampling.NEAREST)
    out = Image.new(image.mode, size)
    out.paste(scaled, ((size[0] - scaled.width) // 2, (size[1] - scaled.height) // 2))
    return out
