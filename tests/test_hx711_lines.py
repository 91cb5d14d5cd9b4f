"""The HX711's wires on libgpiod: DOUT's falling edge ends the wait (through the stand-in chip)."""

from __future__ import annotations

import pytest

pytest.importorskip("gpiod")

from gpiod.line import Bias, Direction, Edge

from drivers.gpio.hx711_lines import HX711Lines
from tests.gpiod_chip import StandInChip


def test_dout_waits_for_its_falling_edge_and_ignores_the_data_bits_edges():
    chip = StandInChip()
    lines = HX711Lines(5, 6, chip)
    dout = chip.requests[5].settings[5]
    assert dout.direction == Direction.INPUT and dout.bias == Bias.PULL_UP and dout.edge_detection == Edge.FALLING
    assert chip.requests[6].settings[6].direction == Direction.OUTPUT
    assert lines.data_pin.value and not lines.data_pin.wait_for_low(0)  # pulled up: converting
    chip.drive(5, False, 1.0)  # a conversion is ready
    assert lines.data_pin.wait_for_low(1.0)
    lines.clock_pin.value = True
    assert chip.levels[6] is True and lines.clock_pin.value
    lines.clock_pin.value = False
    for level in (True, False, True, False, True):  # data bits shifted out, then DOUT high again
        chip.drive(5, level, 1.001)
    assert not lines.data_pin.wait_for_low(0)  # those falls were bits, not a new conversion
    chip.drive(5, False, 1.1)
    assert lines.data_pin.wait_for_low(0.5)
    lines.data_pin.deinit()
    lines.clock_pin.deinit()  # twice is fine
    assert chip.requests == {} and chip.closed
