"""The 128×64 OLED: luma.oled's ``ssd1306`` or ``sh1106`` on I2C, or luma's ``dummy`` device.

Opening is all this module does; keeping the panel alive through I2C errors, drawing only what
changed and dimming are the display service's job (:mod:`firmware_host.runtime.display_service`).
The real panels use luma's drivers with a ``display()`` that sends only the changed rectangle
(:mod:`drivers.oled`); a whole frame is 1 KiB, about 23 ms at 400 kHz.
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


def open_display(
    kind: str,
    port: int = 1,
    address: int = 0x3C,
    rotation: int = 0,
    serial_interface: Any = None,
) -> Any:
    """A luma device of ``kind``; ``serial_interface`` replaces the I2C bus (tests).

    The device keeps its last frame on the panel when the process exits (``persist``), so the
    "Stopped" frame stays visible after a clean shutdown.
    """
    rotate = rotation // 90
    if kind == "sim":
        device = dummy(width=WIDTH, height=HEIGHT, rotate=rotate, mode="1", serial_interface=noop())
    elif kind in ("ssd1306", "sh1106"):
        from luma.core.interface.serial import i2c

        from drivers.oled import SH1106, SSD1306

        serial = serial_interface or i2c(port=port, address=address)
        driver = SSD1306 if kind == "ssd1306" else SH1106
        device = driver(serial, width=WIDTH, height=HEIGHT, rotate=rotate)
    else:
        raise ValueError(f"unknown display kind {kind!r}")
    device.persist = True
    return device
