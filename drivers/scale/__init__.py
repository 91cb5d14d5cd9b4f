"""The load cell under the bin: raw HX711 counts in, one sample at a time.

The chip is read only while the runtime asks for it (:meth:`Scale.start`) and powered down
otherwise (:meth:`Scale.stop`: PD_SCK held high), so an idle device does not wake for it.

Every backend delivers ``(t, raw)`` samples — ``t`` on the runtime's clock, ``raw`` signed 24-bit
counts — to an ``on_sample`` callback, and problems (no data, a stuck line) to ``on_fault``. The
runtime turns samples into grams and events (:mod:`firmware_host.scale.service`).

- :mod:`drivers.scale.hx711` — the HX711 on the Pi's GPIO: adafruit's driver class with our
  fixes, read in a thread (``hardware/hx711.md``);
- :mod:`drivers.scale.sim` — the same driver reading a simulated chip on the event loop's timer,
  with grams the simulator and tests put on it;
- :mod:`drivers.scale.hx711_chip` — the simulated HX711 chip behind DigitalInOut-like pins;
- :mod:`drivers.scale.faults` — readings to samples and fault lines, shared by both backends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

SampleHandler = Callable[[float, int], None]
FaultHandler = Callable[[str], None]


class Scale(Protocol):
    """The interface of every scale backend."""

    sps: int
    """Nominal samples per second (10 or 80, the HX711's RATE pin)."""

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Begin (or, after :meth:`stop`, resume) delivering samples: the chip is powered up."""

    def stop(self) -> None:
        """Stop delivering samples and power the chip down until :meth:`start`; nothing wakes
        meanwhile. Safe to call when stopped."""

    def close(self) -> None:
        """Stop delivering samples and release the hardware; safe to call twice."""
