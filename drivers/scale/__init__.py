"""The load cell under the bin: raw HX711 counts in, one sample at a time.

Every backend delivers ``(t, raw)`` samples — ``t`` on the runtime's clock, ``raw`` signed 24-bit
counts — to an ``on_sample`` callback, and problems (no data, a stuck line) to ``on_fault``. The
runtime turns samples into grams and events (:mod:`firmware_host.scale`).

- :mod:`drivers.scale.sim` — a load model the simulator and tests put grams on;
- the HX711 on GPIO is its own module (issue: Ab in die Tonne with the load cell).
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
        """Begin delivering samples."""

    def close(self) -> None:
        """Stop delivering samples and release the hardware; safe to call twice."""
