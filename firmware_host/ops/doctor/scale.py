"""The scale: HX711 words clocked through the configured path."""

from __future__ import annotations

from firmware_host.core.config import Config
from firmware_host.ops.doctor.base import (
    FAIL,
    REINSTALL,
    SKIP,
    Result,
    reason,
)
from firmware_host.ops.doctor.system import System

SPI_TRANSFER_FIX = (
    "`dmesg | grep -i spi` names the SPI controller's error: a kernel or device-tree matter, not the "
    "HX711's wiring (a chip that is missing or unpowered reads as DOUT never falling)"
)
"""The fix when ``/dev/spidev1.0`` opens but a transfer on it fails."""


def check_hx711(config: Config, system: System) -> Result:
    """HX711 words clocked through the configured path: dropped and corrupt reads per minute
    (:mod:`firmware_host.ops.scale_check`; a low DOUT alone is no answer)."""
    from drivers.scale.hx711_open import describe
    from drivers.scale.hx711_spi import SpiTransferFailed
    from firmware_host.ops.scale_check import check_seconds, judge

    s = config["scale"]
    if s["backend"] != "hx711":
        return Result("scale", SKIP, f"scale backend {s['backend']}")
    path = describe(s)
    try:
        report = system.hx711_words(s, check_seconds(s["sps"]))
    except SpiTransferFailed as exc:
        return Result("scale", FAIL, f"{path}: {reason(exc)}", SPI_TRANSFER_FIX)
    except Exception as exc:
        fix = {
            "spi": f"{REINSTALL} (dtoverlay=spi1-1cs in config.txt, the spi group, pi extra: spidev), then sudo reboot",
            "iio": "the overlay in docs/hx711-timing.md (the iio path)",
        }.get(s["interface"], f"{REINSTALL} (pi extra: gpiod) and run on the Pi")
        return Result("scale", FAIL, f"{path}: {reason(exc)}", fix)
    status, found, fix = judge(s, report, path)
    return Result("scale", status, found, fix)
