"""An I2S amplifier on the Pi's PCM pins (the MAX98357A, for a Zero 2 W, which has no jack): the
pins it takes, the boot-config line that makes it an ALSA card, and that card's name.

The amplifier is a plain ALSA card once the device tree describes it: the voice plays to it like
to any other (``aplay -D plughw:CARD=MAX98357A``). On Raspberry Pi OS its own ``max98357a``
overlay does that; on the SD-card image (Debian's kernel and mainline trees) the image's
``tablemate-max98357a`` (``image/overlays/``) does the same with Debian's modules. Its pins are
SPI1's (``firmware_host.core.config.AMPLIFIER_PINS``): with it fitted the HX711 moves to SPI0
(``[scale] spi_bus = 0``; ``hardware/wiring.md``).
"""

from __future__ import annotations

from typing import Any

OVERLAYS = {"max98357a": "max98357a"}
"""Raspberry Pi OS's overlay for each amplifier ``[audio] amplifier`` names."""
IMAGE_OVERLAYS = {"max98357a": "tablemate-max98357a"}
"""The SD-card image's own overlay for each (written for Debian's device trees)."""
CARDS = {"max98357a": "MAX98357A"}
"""The ALSA card each makes (``plughw:CARD=NAME``)."""


def boot_config_lines(audio: dict[str, Any]) -> list[str]:
    """The ``config.txt`` lines Raspberry Pi OS needs for ``audio`` (the ``[audio]`` section)."""
    amp = audio.get("amplifier", "none")
    return [f"dtoverlay={OVERLAYS[amp]}"] if amp in OVERLAYS else []


def alsa_device(audio: dict[str, Any]) -> str | None:
    """The ALSA device that plays through the configured amplifier, or ``None`` without one."""
    amp = audio.get("amplifier", "none")
    return f"plughw:CARD={CARDS[amp]}" if amp in CARDS else None
