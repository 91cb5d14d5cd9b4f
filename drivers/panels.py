"""The panels the device can drive: each ``[display] kind`` → luma.oled class, size, mode and bus.

One table (:data:`PANELS`) says what each kind is; :func:`open_panel` opens one, real or as luma's
own ``dummy`` device of the same size. The 1-bit panels (``ssd1306``, ``sh1106``, ``ssd1309``,
``sh1107``) open through :func:`drivers.display.open_display` on either bus, so they get that
module's drivers (:mod:`drivers.oled`: only the changed rectangle is sent); the greyscale ones open
here on luma's own classes, whose default frame buffer (``diff_to_previous``) sends only the
changed boxes of four quarters of the picture. Every real panel keeps the set-up its driver sent
(:mod:`drivers.panel_setup`), sent again every few minutes and on waking from dim:

=========  ===============  ========  =====================================================
kind       panel            pixels    bus
=========  ===============  ========  =====================================================
ssd1306    0.96"            128×64    I2C (SPI modules exist; use ``interface = "spi"``)
sh1106     1.3"             128×64    I2C or SPI
ssd1309    2.42"            128×64    I2C or SPI (most 2.42" modules ship wired for SPI)
sh1107     1.3"–1.5"        128×128   I2C or SPI
ssd1327    1.5" greyscale   128×128   I2C or SPI
ssd1322    3.12" greyscale  256×64    SPI only (4-wire: MOSI, SCLK, CE0, DC, RES)
=========  ===============  ========  =====================================================

Every panel runs in luma's mode ``"1"``: the device draws 1-bit pictures, and luma's greyscale
drivers (SSD1322, SSD1327) have a monochrome path that lights a pixel at full brightness, so no
picture is converted on the way. SPI goes through ``luma.core.interface.serial.spi`` (spidev plus
a GPIO for DC and one for RES); its default pins (DC 24, RES 25) are the scale's, so the config
file names others (``dc``, ``reset``).

Reading the table costs little: luma's drivers are imported only when a panel is opened, so the
config file can be checked without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import drivers.luma_threads  # noqa: F401 - before luma.oled is ever imported: no idle luma threads


@dataclass(frozen=True)
class Panel:
    """One kind of panel: the luma.oled class that drives it, its pixels and the buses it has."""

    kind: str
    driver: str
    """The class in ``luma.oled.device``."""
    width: int
    height: int
    label: str
    """What it is called when bought (diagonal, colour depth)."""
    buses: tuple[str, ...] = ("i2c", "spi")
    """The buses its modules offer; the first is the default (``interface = "auto"``)."""

    @property
    def size(self) -> tuple[int, int]:
        """Width and height in pixels, unrotated."""
        return self.width, self.height

    def bus(self, interface: str) -> str:
        """The bus ``interface`` (``"auto"``, ``"i2c"``, ``"spi"``) means for this panel."""
        return self.buses[0] if interface == "auto" else interface


PANELS: dict[str, Panel] = {
    p.kind: p
    for p in (
        Panel("ssd1306", "ssd1306", 128, 64, '0.96" 128×64'),
        Panel("sh1106", "sh1106", 128, 64, '1.3" 128×64'),
        Panel("ssd1309", "ssd1309", 128, 64, '2.42" 128×64'),
        Panel("sh1107", "sh1107", 128, 128, '1.3" 128×128'),
        Panel("ssd1327", "ssd1327", 128, 128, '1.5" 128×128 greyscale'),
        Panel("ssd1322", "ssd1322", 256, 64, '3.12" 256×64 greyscale', buses=("spi",)),
    )
}
"""Every panel kind the config file may name (besides ``"sim"`` and ``"none"``)."""

SIM = PANELS["ssd1306"]
"""The panel ``kind = "sim"`` stands for when nothing else is said: the 0.96" 128×64."""


@dataclass(frozen=True)
class Wiring:
    """How the panel is reached: the bus and its settings (the ``[display]`` keys)."""

    interface: str = "auto"
    i2c_port: int = 1
    address: int = 0x3C
    spi_device: int = 0
    dc: int = 23
    reset: int = 15


def display_size(panel: Panel, rotation: int = 0) -> tuple[int, int]:
    """The picture size the device draws for ``panel`` turned by ``rotation`` degrees."""
    return (panel.height, panel.width) if rotation in (90, 270) else panel.size


def open_panel(
    panel: Panel,
    wiring: Wiring = Wiring(),
    rotation: int = 0,
    simulate: bool = False,
    serial_interface: Any = None,
) -> Any:
    """A luma device for ``panel``; ``simulate``: luma's ``dummy`` of the same size.

    ``serial_interface`` replaces the bus (tests hand in a capturing one). The device keeps its
    last frame on the panel when the process exits (``persist``), as :func:`open_display` does.
    """
    rotate = rotation // 90
    if simulate:
        from luma.core.device import dummy
        from luma.core.interface.serial import noop

        device = dummy(width=panel.width, height=panel.height, rotate=rotate, mode="1", serial_interface=noop())
        device.persist = True
        return device
    bus = panel.bus(wiring.interface)
    from drivers import display as one_bit

    if panel.kind in one_bit.PARTIAL_KINDS:  # the 1-bit panels' own drivers: partial updates
        serial = serial_interface or (_serial(bus, wiring) if bus == "spi" else None)
        return one_bit.open_display(panel.kind, wiring.i2c_port, wiring.address, rotation, serial, panel.size)
    from luma.oled import device as oled  # after drivers.luma_threads (imported above): no idle threads

    from drivers.panel_setup import made_with_setup

    serial = serial_interface or _serial(bus, wiring)
    driver = getattr(oled, panel.driver)
    device = made_with_setup(
        lambda bus: driver(bus, width=panel.width, height=panel.height, rotate=rotate, mode="1"), serial
    )
    device.persist = True
    return device


def _serial(bus: str, wiring: Wiring) -> Any:
    """luma's I2C or SPI interface for ``wiring`` (Pi-only: opens /dev/i2c-N or /dev/spidev0.N)."""
    if bus == "spi":
        from luma.core.interface.serial import spi

        return spi(port=0, device=wiring.spi_device, gpio_DC=wiring.dc, gpio_RST=wiring.reset)
    from luma.core.interface.serial import i2c

    return i2c(port=wiring.i2c_port, address=wiring.address)
