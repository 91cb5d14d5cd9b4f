"""Open the HX711 the way ``[scale] interface`` says: SPI, the kernel's IIO driver, or GPIO.

- ``"spi"`` (the default): PD_SCK on SPI1's MOSI, DOUT on its MISO; every pulse timed by the SPI
  clock (:mod:`drivers.scale.hx711_spi`);
- ``"iio"``: the kernel clocks the chip with interrupts off (:mod:`drivers.scale.hx711_iio`);
- ``"gpio"``: the Python reader of :mod:`drivers.scale.hx711`, in a process of its own with
  realtime priority where the unit grants it (:mod:`drivers.scale.hx711_process`).

``docs/hx711-timing.md`` has the measurements behind the choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from drivers.scale.hx711_spi import SPI_BUS, SPI_DEVICE


def describe(s: dict[str, Any]) -> str:
    """Where the configured HX711 is, in a few words (``s`` is the ``[scale]`` section)."""
    if s["interface"] == "spi":
        bus = s.get("spi_bus", SPI_BUS)
        return f"HX711 on SPI{bus} (/dev/spidev{bus}.{SPI_DEVICE}: DOUT GPIO {s['data']}, PD_SCK GPIO {s['clock']})"
    if s["interface"] == "iio":
        return "HX711 through the kernel's IIO hx711 driver"
    return f"HX711 on GPIO {s['data']} (DOUT) / {s['clock']} (PD_SCK), read in its own process"


def open_configured(s: dict[str, Any], stamps: Callable[[], float] = time.monotonic) -> Any:
    """The configured HX711 as a :class:`drivers.scale.Scale`; raises
    :class:`drivers.scale.hx711.HX711Unavailable` with the reason and its fix."""
    if s["interface"] == "spi":
        from drivers.scale.hx711_spi import open_hx711_spi

        return open_hx711_spi(s["sps"], s["gain"], stamps, bus=s.get("spi_bus", SPI_BUS))
    if s["interface"] == "iio":
        from drivers.scale.hx711_iio import open_hx711_iio

        return open_hx711_iio(s["sps"], s["gain"], stamps)
    from drivers.scale.hx711_process import ProcessScale

    return ProcessScale(s["data"], s["clock"], s["sps"], s["gain"])


SPI1_OVERLAY = "dtoverlay=spi1-1cs"
"""The ``config.txt`` line that gives ``/dev/spidev1.0`` (SPI1, CE0 on GPIO 18)."""
SPI0_LINE = "dtparam=spi=on"
"""Raspberry Pi OS's line that gives ``/dev/spidev0.0`` (SPI0: the HX711 with ``spi_bus = 0``)."""


def boot_config_lines(s: dict[str, Any]) -> list[str]:
    """The ``config.txt`` lines the configured HX711 path needs (for the installer): SPI1's
    overlay for ``"spi"``; nothing for ``"gpio"``; for ``"iio"`` an overlay of the user's own."""
    if s.get("backend") != "hx711" or s.get("interface") != "spi":
        return []
    return [SPI0_LINE] if s.get("spi_bus", SPI_BUS) == 0 else [SPI1_OVERLAY]
