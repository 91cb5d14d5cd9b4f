"""Our libgpiod pin factory, driven through a stand-in chip that follows the gpiod v2 API."""

from __future__ import annotations

import asyncio
import errno
import os
import threading
from datetime import timedelta

import pytest

pytest.importorskip("gpiod")

from gpiod.line import Bias, Clock, Direction, Edge, Value
from gpiozero import LED

from drivers.buttons import ButtonPanel
from drivers.gpio.gpiod_pins import GpiodFactory, ThreadWatcher, header_chip
from tests.gpiod_chip import StandInChip
from tests.waits import scaled

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
        assert two.wait(scaled(5.0))
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
        assert fired.wait(scaled(5.0))
        watcher.unwatch(live_r)
    finally:
        watcher.close()
    os.close(live_r)
    os.close(live_w)


class Recording(dict):
    """A stand-in chip's line levels that remember every level set, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.history: list[tuple[int, bool]] = []

    def __setitem__(self, offset: int, high: bool) -> None:
        self.history.append((offset, high))
        super().__setitem__(offset, high)


def test_an_active_low_output_starts_off_without_a_blip():
    # A relay board or buzzer driven active-low is off while its pin is high. Switching the pin to
    # output low and then setting it high would click the relay (or chirp) at every start.
    chip = StandInChip()
    chip.levels = Recording()
    factory = GpiodFactory(chip, revision=PI_3B)
    with LED(18, active_high=False, initial_value=False, pin_factory=factory):
        assert chip.levels.history == [(18, True)]
    factory.close()


TEN = {"p1": 5, "p2": 6, "p3": 13, "p4": 19, "p5": 26, "p6": 21, "prev": 20, "next": 16, "ok": 12, "back": 7}
DEBOUNCE = timedelta(seconds=0.03)


class FakeLater:
    """``loop.call_later`` on fake time: the test moves the clock and due callbacks run."""

    def __init__(self) -> None:
        self.now = 0.0
        self.due: list[tuple[float, object, list[bool]]] = []

    def __call__(self, delay, fn):
        cancelled = [False]
        self.due.append((self.now + delay, fn, cancelled))

        class Handle:
            def cancel(self) -> None:
                cancelled[0] = True

        return Handle()

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while True:
            ready = sorted((d for d in self.due if d[0] <= end), key=lambda d: d[0])
            if not ready:
                break
            when, fn, cancelled = ready[0]
            self.due.remove(ready[0])
            self.now = when
            if not cancelled[0]:
                fn()
        self.now = end

    @property
    def delays(self) -> list[float]:
        return sorted(round(d[0] - self.now, 6) for d in self.due if not d[2][0])


def test_each_button_line_is_requested_once_already_pulled_up_debounced_and_watching_both_edges():
    # gpiozero sets function, pull, bounce, edges, then when_changed: requested at the first step
    # and reconfigured at each later one, a button would float before its pull-up came, and edge
    # detection added to a debounced line is the path of CVE-2024-36898 (uninitialised kfifo).
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    with ButtonPanel(TEN, lambda *edge: None, lambda: 0.0, factory, debounce=0.03):
        for name, offset in TEN.items():
            asked = chip.asked(offset)
            assert [what for what, _ in asked] == ["request"], name  # once, never reconfigured
            settings = asked[0][1]
            assert settings.direction == Direction.INPUT and settings.bias == Bias.PULL_UP, name
            assert settings.edge_detection == Edge.BOTH and settings.debounce_period == DEBOUNCE, name
            assert settings.event_clock == Clock.MONOTONIC, name
            assert chip.level(offset) is True  # pulled up from the first moment: not pressed
    factory.close()


def test_each_tower_output_is_requested_once_at_its_idle_level_so_nothing_chirps():
    from drivers.tower.gpio import GpioTower

    chip = StandInChip()
    chip.levels = Recording()
    factory = GpiodFactory(chip, revision=PI_3B)
    outputs = {"red": 17, "yellow": 27, "green": 22, "buzzer": 18}
    tower = GpioTower(**outputs, bar=(23, 24), pin_factory=factory)
    for name, offset in [*outputs.items(), ("bar", 23), ("bar", 24)]:
        asked = chip.asked(offset)
        assert [what for what, _ in asked] == ["request"], name
        assert asked[0][1].direction == Direction.OUTPUT and asked[0][1].output_value == Value.INACTIVE, name
    assert not any(high for _, high in chip.levels.history)  # no output was ever driven high
    tower.close()
    factory.close()


def test_a_debounced_line_that_gains_edge_detection_later_is_requested_afresh_not_reconfigured():
    # Someone reads a debounced input before watching it: adding edges by reconfiguring would take
    # the CVE-2024-36898 path on kernels before 6.1.91 / 6.6.31, so the line is requested again.
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    pin = factory.pin(5)
    pin.function = "input"
    pin.pull = "up"
    pin.bounce = 0.03
    assert chip.asked(5) == []  # nothing asked of the kernel yet
    assert pin.state is True  # a read needs the line: requested with what is known so far
    pin.when_changed = lambda ticks, state: None
    asked = chip.asked(5)
    assert [what for what, _ in asked] == ["request", "request"]
    assert asked[1][1].edge_detection == Edge.BOTH and asked[1][1].debounce_period == DEBOUNCE
    assert asked[1][1].bias == Bias.PULL_UP
    pin.when_changed = None  # switching edges off is an ordinary reconfiguration
    assert chip.asked(5)[-1][0] == "reconfigure" and chip.asked(5)[-1][1].edge_detection == Edge.NONE
    factory.close()


def test_a_busy_button_is_left_out_the_others_work_and_it_comes_back_after_backoff():
    chip = StandInChip()
    chip.refuse[TEN["p3"]] = errno.EBUSY  # another process holds GPIO 13
    factory = GpiodFactory(chip, revision=PI_3B)
    later = FakeLater()
    got: list[tuple[str, bool, float]] = []
    seen = threading.Event()

    def on_edge(name: str, pressed: bool, t: float) -> None:
        got.append((name, pressed, t))
        seen.set()

    panel = ButtonPanel(TEN, on_edge, lambda: 0.0, factory, debounce=0.03, call_later=later, backoff=(1.0, 8.0))
    try:
        assert set(panel.buttons) == set(TEN) - {"p3"} and "busy" in panel.missing["p3"]
        chip.drive(TEN["ok"], False, 1.0)  # the nine others work meanwhile
        assert seen.wait(scaled(5.0)) and got == [("ok", True, 1.0)]
        assert later.delays == [1.0]
        later.advance(1.0)  # still busy: the next try waits twice as long, up to the limit
        assert later.delays == [2.0]
        later.advance(2.0)
        later.advance(4.0)
        assert later.delays == [8.0]
        later.advance(8.0)
        assert later.delays == [8.0]
        del chip.refuse[TEN["p3"]]  # the other process let go
        later.advance(8.0)
        assert "p3" in panel.buttons and panel.missing == {} and later.delays == []
        assert [what for what, _ in chip.asked(TEN["p3"])] == ["request"]  # the refusals left no trace
        seen.clear()
        chip.drive(TEN["p3"], False, 30.0)
        assert seen.wait(scaled(5.0)) and got[-1] == ("p3", True, 30.0)
    finally:
        panel.close()
        factory.close()
    assert chip.requests == {}


def test_buttons_refused_before_udev_set_the_group_all_come_back_and_a_closed_panel_stops_retrying():
    chip = StandInChip()
    for offset in TEN.values():
        chip.refuse[offset] = errno.EACCES
    factory = GpiodFactory(chip, revision=PI_3B)
    later = FakeLater()
    panel = ButtonPanel(TEN, lambda *edge: None, lambda: 0.0, factory, debounce=0.03, call_later=later)
    assert panel.buttons == {} and set(panel.missing) == set(TEN)
    chip.refuse.clear()
    later.advance(1.0)
    assert set(panel.buttons) == set(TEN)
    panel.close()
    chip.refuse[5] = errno.EACCES
    again = ButtonPanel({"p1": 5}, lambda *edge: None, lambda: 0.0, factory, call_later=later)
    again.close()
    later.advance(120.0)  # the cancelled retry never runs
    assert again.buttons == {} and 5 not in chip.requests
    factory.close()


def test_a_pin_the_configuration_gets_wrong_still_fails_the_panel_at_once():
    from gpiozero.exc import PinInvalidPin

    chip = StandInChip()
    factory = GpiodFactory(chip, revision=PI_3B)
    with pytest.raises(PinInvalidPin):
        ButtonPanel({"p1": 5, "p2": 99}, lambda *edge: None, lambda: 0.0, factory, call_later=FakeLater())
    assert chip.requests == {}  # what was opened is closed again
    factory.close()


def test_a_chip_that_cannot_be_opened_yet_is_opened_by_a_later_request(monkeypatch):
    # Before udev gave /dev/gpiochip* its group the chip itself refuses to open: the factory is made
    # all the same, each pin's request tries the chip again, and the buttons come back by retry.
    import drivers.gpio.gpiod_pins as gpiod_pins

    chip = StandInChip()
    allowed = [False]

    def open_chip(path: str) -> StandInChip:
        if not allowed[0]:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return chip

    monkeypatch.setattr(gpiod_pins.gpiod, "Chip", open_chip)
    factory = GpiodFactory("/dev/gpiochip0", revision=PI_3B)
    later = FakeLater()
    panel = ButtonPanel({"ok": 12}, lambda *edge: None, lambda: 0.0, factory, call_later=later)
    assert panel.buttons == {} and "Permission denied" in panel.missing["ok"]
    allowed[0] = True
    later.advance(1.0)
    assert "ok" in panel.buttons and factory.chip is chip
    panel.close()
    factory.close()
    assert chip.closed
