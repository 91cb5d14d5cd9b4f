"""The HX711's two wires as one libgpiod v2 line request: read without polling.

DOUT is an input with a pull-up (a broken wire reads "not ready") and falling-edge detection;
PD_SCK an output, low. The pins look like Blinka's ``DigitalInOut`` to the driver (``value``,
``deinit``), and DOUT adds ``wait_for_low(timeout)``: the driver's wait for a conversion blocks
in the kernel until DOUT falls (one wake-up a sample) instead of sleeping and polling every
millisecond (:meth:`drivers.scale.hx711.HX711.wait_ready`).

DOUT also toggles while the 24 data bits are clocked out; those edges queue up in the kernel
and are dropped before each wait, so only a fall after the read counts. Not run on a Pi here.
"""

from __future__ import annotations

from typing import Any

import gpiod
from gpiod.line import Bias, Clock, Direction, Edge, Value

from drivers.gpio.gpiod_pins import find_chip

CONSUMER = "tablemate-hx711"


class HX711Lines:
    """DOUT (``data``) and PD_SCK (``clock``), BCM numbers on the Pi's header chip."""

    def __init__(self, data: int, clock: int, chip: Any = None) -> None:
        self._chip = gpiod.Chip(chip or find_chip()) if chip is None or isinstance(chip, str) else chip
        self.request = self._chip.request_lines(
            {
                data: gpiod.LineSettings(
                    direction=Direction.INPUT,
                    bias=Bias.PULL_UP,
                    edge_detection=Edge.FALLING,
                    event_clock=Clock.MONOTONIC,
                ),
                clock: gpiod.LineSettings(direction=Direction.OUTPUT, output_value=Value.INACTIVE),
            },
            consumer=CONSUMER,
        )
        self.data_pin = DataLine(self, data)
        self.clock_pin = ClockLine(self, clock)

    def release(self) -> None:
        """Give both lines back (safe twice)."""
        if self.request is not None:
            self.request.release()
            self.request = None
            self._chip.close()


class _Line:
    def __init__(self, lines: HX711Lines, offset: int) -> None:
        self._lines = lines
        self.offset = offset

    def deinit(self) -> None:
        """As ``DigitalInOut.deinit``: release the request."""
        self._lines.release()


class DataLine(_Line):
    """DOUT."""

    @property
    def value(self) -> bool:
        """DOUT's level: high while converting, low when a conversion is ready."""
        return self._lines.request.get_value(self.offset) == Value.ACTIVE

    def wait_for_low(self, timeout: float) -> bool:
        """Block until DOUT is low (a conversion is ready) or ``timeout`` seconds pass."""
        request = self._lines.request
        while request.wait_edge_events(0):  # edges of the last read's data bits
            request.read_edge_events()
        if not self.value:
            return True
        if timeout <= 0:
            return False
        if request.wait_edge_events(timeout):
            request.read_edge_events()
            return True
        return not self.value


class ClockLine(_Line):
    """PD_SCK."""

    def __init__(self, lines: HX711Lines, offset: int) -> None:
        super().__init__(lines, offset)
        self._value = False

    @property
    def value(self) -> bool:
        """The level last written."""
        return self._value

    @value.setter
    def value(self, high: bool) -> None:
        self._lines.request.set_value(self.offset, Value.ACTIVE if high else Value.INACTIVE)
        self._value = bool(high)
