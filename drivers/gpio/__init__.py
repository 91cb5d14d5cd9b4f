"""Which gpiozero pin factory drives the Pi's pins.

:func:`pin_factory` picks, in order: whatever ``GPIOZERO_PIN_FACTORY`` names (gpiozero's own
choice then); our libgpiod v2 factory (:mod:`drivers.gpio.gpiod_pins`: kernel debounce and time
stamps, edges read from the request's descriptor, no polling) where the ``gpiod`` package and a
``/dev/gpiochip*`` are present; gpiozero's lgpio factory where ``gpiod`` is missing (its alert
thread wakes every half millisecond); else gpiozero's default. The simulator and the tests use
gpiozero's ``MockFactory`` instead and never come here.

gpiozero maps BCM numbers to a header by the Pi's board revision, read from the device tree. A
board that is not a Pi (QEMU's virt board and its PL061 chip, another single-board computer) has
none: ``[gpio] revision`` names the Pi revision whose header its chip's lines follow (line
offset = BCM number), and :func:`pin_factory` hands it to the libgpiod factory.
"""

from __future__ import annotations

import glob
import logging
import os
from typing import Any

log = logging.getLogger(__name__)


def board_revision(text: str) -> int | None:
    """``[gpio] revision`` as gpiozero takes it: ``None`` for ``"auto"`` (read the Pi's own)."""
    return None if text == "auto" else int(text, 16)


def pin_factory(loop: Any = None, revision: str = "auto") -> tuple[Any, str]:
    """The pin factory for real pins and its name; ``None`` lets gpiozero choose. With ``loop``,
    the libgpiod factory reads edges on that asyncio loop (no thread); ``revision`` is
    ``[gpio] revision`` (``"auto"``: the Pi's own)."""
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None, f"{os.environ['GPIOZERO_PIN_FACTORY']} (GPIOZERO_PIN_FACTORY)"
    if not glob.glob("/dev/gpiochip*"):
        return None, "gpiozero default (no /dev/gpiochip*)"
    try:
        from drivers.gpio.gpiod_pins import GpiodFactory

        factory = GpiodFactory(loop=loop, revision=board_revision(revision))
        return factory, "gpiod" if revision == "auto" else f"gpiod (revision {revision})"
    except ImportError:
        log.info("gpiod (libgpiod v2) not installed: trying lgpio")
    except Exception as exc:  # a chip we cannot open, a Pi revision unknown…
        log.warning("libgpiod pin factory unavailable: %s", exc)
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory(), "lgpio"
    except Exception as exc:
        log.warning("lgpio pin factory unavailable: %s", exc)
    return None, "gpiozero default"
