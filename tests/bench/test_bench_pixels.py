"""The pixels benchmark's yardsticks: luma's own driver sends the whole frame, ours the change."""

from __future__ import annotations

from bench.pixels import FULL_FRAME_BYTES, CountingBus, bare_luma
from drivers.display import open_display
from firmware_host.ui.render import Frame, Row, render


def test_bare_luma_sends_a_whole_frame_each_time_and_ours_only_the_change():
    bus = CountingBus()
    draw = bare_luma(["tablemate", "New game", "History"], bus)
    before = bus.bytes
    draw()
    assert bus.bytes - before == FULL_FRAME_BYTES
    ours = CountingBus()
    panel = open_display("ssd1306", serial_interface=ours)
    before = ours.bytes
    panel.display(render(Frame("tablemate", (Row.of("New game", invert=True), Row.of("History")))))
    step = ours.bytes
    panel.display(render(Frame("tablemate", (Row.of("New game"), Row.of("History", invert=True)))))
    assert 0 < ours.bytes - step <= 300 < FULL_FRAME_BYTES and step > before
