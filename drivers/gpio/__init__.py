"""Which gpiozero pin factory drives the Pi's pins.

:func:`pin_factory` picks, in order: whatever ``GPIOZERO_PIN_FACTORY`` names (gpiozero's own
choice then); our libgpiod v2 factory (:mod:`drivers.gpio.gpiod_pins`: kernel debounce and time
stamps, edges read from the request's descriptor, no polling) where the ``gpiod`` package and a
``/dev/gpiochip*`` are present; gpiozero's lgpio factory where ``gpiod`` is missing (its alert
thread wakes every half millisecond); else gpiozero's default. The simulator and the tests use
gpiozero's ``MockFactory`` instead and never come here.
"""

from __future__ import annotations

import glob
import logging
import os
from typing import Any

log = logging.getLogger(__name__)


def pin_factory(loop: Any = None) -> tuple[Any, str]:
    """The pin factory for real pins and its name; ``None`` lets gpiozero choose. With ``loop``,
    the libgpiod factory reads edges on that asyncio loop (no thread)."""
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None, f"{os.environ['GPIOZERO_PIN_FACTORY']} (GPIOZERO_PIN_FACTORY)"
    if not glob.glob("/dev/gpiochip*"):
        return None, "gpiozero default (no /dev/gpiochip*)"
    try:
        from drivers.gpio.gpiod_pins import GpiodFactory

        return GpiodFactory(loop=loop), "gpiod"
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
