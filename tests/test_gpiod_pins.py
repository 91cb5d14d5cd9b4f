"""Our libgpiod pin factory, driven through a stand-in chip that follows the gpiod v2 API."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest

pytest.importorskip("gpiod")

from gpiod.line import Bias, Direction, Edge
from gpiozero import LED

from drivers.buttons import ButtonPanel
from drivers.gpio.gpiod_pins import GpiodFactory
from tests.gpiod_chip import StandInChip

PI_3B = 0xA02082


def test_buttons_get_kernel_debounce_and_kernel_time_stamps_from_one_thread():
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    got: list[tuple[str, bool, float]] = []
    two = threading.Event()

    def on_edge(name: str, pressed: bool, t: float) -> None:
        got.append((name, pressed, t))
        if len(got) == 2:
            two.set()

    before = threading.active_count()
    with ButtonPanel({"p1": 5, "ok": 12}, on_edge, lambda: -1.0, factory, debounce=0.03):
        settings = chip.requests[5].settings[5]
        assert settings.direction == Direction.INPUT and settings.bias == Bias.PULL_UP
        assert settings.edge_detection == Edge.BOTH and settings.debounce_period == timedelta(seconds=0.03)
        chip.drive(5, False, 100.25)  # pressed: the pulled-up line falls
        chip.drive(5, True, 100.5)
        assert two.wait(5.0)
        assert got == [("p1", True, 100.25), ("p1", False, 100.5)]  # the kernel's stamps, not the clock
    assert threading.active_count() == before  # the panel and its pins start no thread
    factory.close()
    assert chip.requests == {} and chip.closed


def test_on_the_event_loop_edges_are_read_without_any_thread():
    async def main() -> list[tuple[str, bool, float]]:
        loop = asyncio.get_running_loop()
        chip = StandInChip()
        before = threading.active_count()
        factory = GpiodFactory(chip, loop=loop, revision=PI_3B)
        got: list[tuple[str, bool, float]] = []
        seen = asyncio.Event()

        def on_edge(name: str, pressed: bool, t: float) -> None:
            assert threading.current_thread() is threading.main_thread()
            got.append((name, pressed, t))
            seen.set()

        panel = ButtonPanel({"back": 13}, on_edge, loop.time, factory)
        await asyncio.sleep(0)  # the loop adds the reader
        assert threading.active_count() == before
        chip.drive(13, False, 7.0)
        await asyncio.wait_for(seen.wait(), 5.0)
        panel.close()
        factory.close()
        assert chip.requests == {}
        return got

    assert asyncio.run(main()) == [("back", True, 7.0)]


def test_outputs_drive_their_lines_and_are_released():
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    with LED(17, pin_factory=factory) as led:
        led.on()
        assert chip.levels[17] is True
        led.off()
        assert chip.levels[17] is False
    assert 17 not in chip.requests
    factory.close()
