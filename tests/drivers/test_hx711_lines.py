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


def test_a_late_data_bit_edge_does_not_count_as_a_conversion(monkeypatch):
    # The kernel stamps and queues edges from an interrupt; the fall of the last data bit can be
    # queued just after the reader dropped the old ones. DOUT is back high then: no conversion is
    # ready, and the wait must go on (or time out) instead of letting the driver read a word.
    chip = StandInChip()
    lines = HX711Lines(5, 6, chip)
    request = chip.requests[5]
    chip.drive(5, True, 1.0)
    drain = request.wait_edge_events

    def late_edge(timeout=None):
        ready = drain(timeout)
        if timeout == 0 and not ready:  # the reader has just dropped the old edges
            request.edge(5, False, round(1.001 * 1e9))  # a bit's fall, delivered late
        return ready

    monkeypatch.setattr(request, "wait_edge_events", late_edge)
    assert lines.data_pin.value
    assert not lines.data_pin.wait_for_low(0.01)


def test_lines_that_fail_while_the_chip_is_reset_are_given_back(monkeypatch):
    # open_hx711 resets the chip on the lines it requested; if that fails the lines must not stay
    # requested (a retry, Blinka or the doctor would find them busy) and the error is one line.
    from drivers.scale import hx711
    from tests.gpiod_chip import StandInRequest

    chip = StandInChip()
    monkeypatch.setattr(hx711, "_gpiod_lines", lambda data, clock: HX711Lines(data, clock, chip))

    def broken(self, offset, value):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(StandInRequest, "set_value", broken)
    with pytest.raises(hx711.HX711Unavailable, match="Input/output error"):
        hx711.open_hx711(5, 6)
    assert chip.requests == {}
