"""The 1-bit OLEDs: luma.oled's ``ssd1306``, ``sh1106``, ``ssd1309`` or ``sh1107`` on I2C (or a
given bus), or luma's ``dummy`` device.

Opening is all this module does; keeping the panel alive through I2C errors, drawing only what
changed and dimming are the display service's job (:mod:`firmware_host.runtime.display_service`).
The real panels use luma's drivers with a ``display()`` that sends only the changed rectangle
(:mod:`drivers.oled`); a whole 128×64 frame is 1 KiB, about 23 ms at 400 kHz. Each keeps the
set-up its driver sent (:mod:`drivers.panel_setup`) to re-initialise the panel later.
"""

from __future__ import annotations

from typing import Any

import luma.core.error
from luma.core.device import dummy
from luma.core.interface.serial import noop

import drivers.luma_threads  # noqa: F401 - before luma.oled (imported below): no idle luma threads

WIDTH, HEIGHT = 128, 64

DisplayErrors = (OSError, luma.core.error.Error)
"""What a display call raises when the panel or its bus fails (luma turns EREMOTEIO, errno 121,
into ``DeviceNotFoundError`` for commands but lets ``OSError`` through for frame data)."""


PARTIAL_KINDS = ("ssd1306", "sh1106", "ssd1309", "sh1107")
"""The 1-bit panels opened here, on the drivers of :mod:`drivers.oled`."""


def open_display(
    kind: str,
    port: int = 1,
    address: int = 0x3C,
    rotation: int = 0,
    serial_interface: Any = None,
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> Any:
    """A luma device of ``kind`` and ``size``; ``serial_interface`` replaces the I2C bus (an SPI
    bus, or a capturing one in tests).

    The device keeps its last frame on the panel when the process exits (``persist``), so the
    "Stopped" frame stays visible after a clean shutdown.
    """
    rotate = rotation // 90
    if kind == "sim":
        device = dummy(width=WIDTH, height=HEIGHT, rotate=rotate, mode="1", serial_interface=noop())
    elif kind in PARTIAL_KINDS:
        from luma.core.interface.serial import i2c

        from drivers import oled
        from drivers.panel_setup import made_with_setup

        serial = serial_interface or i2c(port=port, address=address)
        driver = getattr(oled, kind.upper())
        device = made_with_setup(lambda bus: driver(bus, width=size[0], height=size[1], rotate=rotate), serial)
    else:
        raise ValueError(f"unknown display kind {kind!r}")
    device.persist = True
    return device
