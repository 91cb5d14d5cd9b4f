"""Our libgpiod pin factory, driven through a stand-in chip that follows the gpiod v2 API."""

from __future__ import annotations

import asyncio
import os
import threading
from datetime import timedelta

import pytest

pytest.importorskip("gpiod")

from gpiod.line import Bias, Direction, Edge
from gpiozero import LED

from drivers.buttons import ButtonPanel
from drivers.gpio.gpiod_pins import GpiodFactory, ThreadWatcher, header_chip
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


def test_the_header_chip_is_rp1_on_a_pi_5_even_after_the_socs_own_chip():
    # Early Pi 5 images: gpiochip0 is the BCM2712's own GPIO (boot flash, PCIe...), gpiochip4 is
    # RP1, which carries the header. Buttons requested on gpiochip0 would never see a press.
    chips = {
        "/dev/gpiochip0": StandInChip("pinctrl-bcm2712", 32),
        "/dev/gpiochip1": StandInChip("gpio-brcmstb@107d508500", 32),
        "/dev/gpiochip4": StandInChip("pinctrl-rp1", 54),
    }
    assert header_chip(chips, chips.__getitem__) == "/dev/gpiochip4"
    pi4 = {
        "/dev/gpiochip0": StandInChip("pinctrl-bcm2711", 58),
        "/dev/gpiochip1": StandInChip("raspberrypi-exp-gpio", 8),
    }
    assert header_chip(pi4, pi4.__getitem__) == "/dev/gpiochip0"
    assert header_chip({}, {}.__getitem__) is None


def test_a_pin_closed_by_its_device_can_be_used_again():
    # gpiozero keeps a factory's pins after their device closes and hands the same object to the
    # next device on that pin (its own back ends "close" a pin by resetting it): a tower or panel
    # opened again on the same pins must work, and a closed pin holds no line in between.
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    with LED(17, pin_factory=factory):
        pass
    assert 17 not in chip.requests
    with LED(17, pin_factory=factory) as led:
        led.on()
        assert chip.levels[17] is True
    with ButtonPanel({"p1": 17}, lambda *edge: None, lambda: 0.0, factory, debounce=0.03):
        settings = chip.requests[17].settings[17]
        assert settings.direction == Direction.INPUT and settings.bias == Bias.PULL_UP
    factory.close()
    assert chip.requests == {}


def test_the_edge_thread_survives_a_pin_closed_before_it_was_watched():
    # watch() and unwatch() reach the thread as queued changes; a line released in between (a
    # panel that fails half-way through opening closes the pins it opened) leaves a closed
    # descriptor in the queue. That must not end the thread that reads every other pin's edges.
    watcher = ThreadWatcher()
    try:
        gone_r, gone_w = os.pipe()
        live_r, live_w = os.pipe()
        os.close(gone_r)  # released before the thread got to the watch() below
        os.close(gone_w)
        watcher.watch(gone_r, lambda: None)
        watcher.unwatch(gone_r)
        fired = threading.Event()
        watcher.watch(live_r, lambda: (os.read(live_r, 1), fired.set()))
        os.write(live_w, b"e")
        assert fired.wait(5.0)
        watcher.unwatch(live_r)
    finally:
        watcher.close()
    os.close(live_r)
    os.close(live_w)


def test_an_active_low_output_starts_off_without_a_blip():
    # A relay board or buzzer driven active-low is off while its pin is high. Switching the pin to
    # output low and then setting it high would click the relay (or chirp) at every start.
    class Recording(dict):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[tuple[int, bool]] = []

        def __setitem__(self, offset: int, high: bool) -> None:
            self.history.append((offset, high))
            super().__setitem__(offset, high)

    chip = StandInChip()
    chip.levels = Recording()
    factory = GpiodFactory(chip, revision=PI_3B)
    with LED(18, active_high=False, initial_value=False, pin_factory=factory):
        assert chip.levels.history == [(18, True)]
    factory.close()
