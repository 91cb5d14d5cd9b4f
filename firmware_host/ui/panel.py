"""The seam between the layout and the panel: the frame size, and a picture made to fit it.

The screens lay out a 128×64 picture (:data:`LAYOUT_SIZE`, :func:`firmware_host.ui.render.render`).
A bigger panel shows that picture scaled by whole pixels — twice as wide on a 256×64 SSD1322,
twice as tall on a 128×128 SH1107/SSD1327 — so every screen works on every panel and reads from
further away. A layout that uses the room differently (more lines, larger scores) asks
:func:`firmware_host.runtime.hardware.panel_size` (the device keeps it as ``Device.panel_size``)
and draws at that size; :func:`to_panel` passes a picture of the panel's size through unchanged.
"""

from __future__ import annotations

from PIL import Image

LAYOUT_SIZE = (128, 64)
"""The size the screens' layout draws at today."""


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
