"""The HX711 reader: samples and faults as the runtime sees them, from its own thread."""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from typing import Any

import pytest

from drivers.scale.faults import NO_DATA, FaultWatch
from drivers.scale.hx711 import HX711, HX711Scale, RealTiming
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock, real_time_chip
from firmware_host.core.config import defaults, parse
from firmware_host.runtime import hardware
from tests.waits import scaled


class Rig:
    """A simulated chip, the fixed driver and the reader, stepped by hand on virtual time."""

    def __init__(self, rate: int = 10, grams: float = 0.0, noise: float = 150.0, gain: int = 128) -> None:
        self.clock = VirtualClock()
        self.chip = HX711Chip(self.clock, rate=rate, load=LoadModel(grams=grams, noise_counts=noise))
        self.hx = HX711(self.chip.data_pin, self.chip.clock_pin, sps=rate, timing=self.clock)
        self.scale = HX711Scale(self.hx, gain, clock=self.clock)
        self.samples: list[tuple[float, int]] = []
        self.faults: list[tuple[float, str]] = []
        self.scale.prepare(lambda t, raw: self.samples.append((t, raw)), self.fault)

    def fault(self, reason: str) -> None:
        self.faults.append((self.clock(), reason))

    def run(self, seconds: float) -> None:
        end = self.clock() + seconds
        while self.clock() < end:
            self.scale.step()

    def raws(self, since: float = 0.0) -> list[int]:
        return [raw for t, raw in self.samples if t >= since]


def test_reader_delivers_every_conversion_with_its_time() -> None:
    for rate in (10, 80):
        rig = Rig(rate, grams=-20.0)
        rig.run(10.0)
        times = [t for t, _ in rig.samples]
        assert len(times) == pytest.approx(10 * rate - 5, abs=3)  # all but the start's settling
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert max(gaps) < 1.5 / rate
        assert rig.faults == []


def test_glitch_codes_are_dropped_without_a_fault() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.glitch(-1)
    rig.run(0.5)
    rig.chip.glitch(0x7FFFFF)
    rig.run(0.5)
    rig.chip.glitch(-0x800000, count=2)
    rig.run(1.0)
    assert not {-1, 0x7FFFFF, -0x800000} & set(rig.raws())
    assert rig.faults == []
    assert rig.scale.watch is not None and rig.scale.watch.glitches == 4


def test_a_run_of_all_ones_is_a_fault_then_samples_resume() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.glitch(-1, count=10)
    rig.run(2.0)
    assert [r for _, r in rig.faults] == ["all ones"]
    assert -1 not in rig.raws()
    assert rig.samples[-1][0] > rig.faults[0][0]


def test_saturation_is_a_fault() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.load.grams = 50_000.0
    start = rig.clock()
    rig.run(2.0)
    assert [r for _, r in rig.faults] == ["saturated"]
    assert rig.faults[0][0] - start < 1.0
    assert 0x7FFFFF not in rig.raws()


def test_spikes_pass_through_for_the_detector() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.spike(50_000)
    rig.run(1.0)
    assert max(rig.raws()) > 84_000 + 45_000
    assert rig.faults == []


def test_slow_pulse_drops_the_reading_and_the_settling_after_it() -> None:
    rig = Rig(80, grams=12.0)
    rig.run(1.0)
    before = len(rig.samples)
    rig.chip.slow_pulse(120e-6, pulse=12)
    rig.run(1.0)
    assert rig.hx.stats.slow == 1
    assert rig.hx.stats.settling == 2 * 4
    assert len(rig.samples) - before <= 80 - 5
    assert all(abs(raw - (84_000 + 12 * 420)) < 5 * 150 for raw in rig.raws())  # nothing unsettled
    assert rig.faults == []


def test_every_reading_dropped_for_slow_pulses_is_a_slow_clock_fault() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.slow_pulse(100e-6, pulse=3, count=25)  # every read for about 2.5 s
    start = rig.clock()
    rig.run(4.0)
    assert [r for _, r in rig.faults] == ["slow clock"]
    assert 1.0 <= rig.faults[0][0] - start < 1.5
    assert rig.hx.stats.slow == 25
    assert rig.samples[-1][0] > start + 3.0


def test_dout_stuck_high_is_no_data_within_a_second_without_spinning() -> None:
    rig = Rig()
    rig.run(1.0)
    reads = rig.chip.dout_reads
    rig.chip.dout_stuck = "high"
    start = rig.clock()
    rig.run(5.0)
    assert [r for _, r in rig.faults] == [NO_DATA]
    assert rig.faults[0][0] - start < 1.0
    assert (rig.chip.dout_reads - reads) / 5.0 < 200  # polls per second: it sleeps between them
    rig.chip.dout_stuck = None
    rig.run(1.0)
    assert rig.samples[-1][0] > start + 5.0


def test_dout_stuck_low_is_a_stuck_value_within_a_second() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.chip.dout_stuck = "low"
    start, reads = rig.clock(), rig.hx.stats.reads
    rig.run(5.0)
    assert [r for _, r in rig.faults] == ["stuck at 0"]
    assert rig.faults[0][0] - start < 1.0
    assert rig.raws(start).count(0) <= 1  # one zero gets through before it repeats; then held
    assert rig.hx.stats.reads - reads < 5 * 10 * 1.2  # it still sleeps to the conversion times


def test_reader_thread_delivers_and_closes_twice() -> None:
    rig = Rig(80)
    got = threading.Event()
    samples: list[tuple[float, int]] = []

    def on_sample(t: float, raw: int) -> None:
        samples.append((t, raw))
        if len(samples) >= 50:
            got.set()

    rig.scale.start(on_sample, lambda reason: None)
    assert got.wait(scaled(10.0))
    rig.scale.close()
    rig.scale.close()
    assert rig.scale._thread is not None and not rig.scale._thread.is_alive()
    assert [t for t, _ in samples] == sorted(t for t, _ in samples)
    assert rig.chip.clock_pin.value is True  # powered down on close


def test_a_paused_reader_powers_the_chip_down_and_reads_again_when_asked() -> None:
    rig = Rig(80)
    got = threading.Semaphore(0)
    rig.scale.start(lambda t, raw: got.release(), lambda reason: None)
    try:
        for _ in range(10):
            assert got.acquire(timeout=scaled(10.0))
        rig.scale.stop()
        for _ in range(10_000):  # the thread finishes its read, then sleeps
            if rig.scale.asleep:
                break
            time.sleep(0.001)
        assert rig.scale.asleep and rig.chip.clock_pin.value is True  # PD_SCK high: powered down
        reads, settling = rig.hx.stats.reads, rig.hx.stats.settling
        time.sleep(0.05)
        assert rig.hx.stats.reads == reads  # nothing is read while paused
        again = threading.Semaphore(0)
        rig.scale.start(lambda t, raw: again.release(), lambda reason: None)
        assert again.acquire(timeout=scaled(10.0))
        assert rig.hx.stats.settling == settling + 4  # a woken chip settles before its readings count
    finally:
        rig.scale.close()
    assert rig.chip.clock_pin.value is True


def test_with_dout_edges_the_reader_waits_for_each_conversion_without_polling() -> None:
    clock = VirtualClock()
    polled = HX711Chip(clock, rate=80, load=LoadModel(grams=0.0, noise_counts=150))
    edges_clock = VirtualClock()
    edged = HX711Chip(edges_clock, rate=80, load=LoadModel(grams=0.0, noise_counts=150), edges=True)
    counts = {}
    for name, chip, c in (("poll", polled, clock), ("edge", edged, edges_clock)):
        hx = HX711(chip.data_pin, chip.clock_pin, sps=80, timing=c)
        scale = HX711Scale(hx, clock=c)
        got: list[int] = []
        scale.prepare(lambda t, raw, got=got: got.append(raw), lambda reason: None)
        while c() < 10.0:
            scale.step()
        counts[name] = (len(got), chip.dout_reads / max(1, hx.stats.reads), chip.lost)
    n, reads_a_sample, lost = counts["edge"]
    assert n >= 790 and lost == 0  # every conversion of 10 s at 80 SPS, settling aside
    # DOUT reads besides the 24 data bits: a check or two, not a poll loop
    assert reads_a_sample - 24 <= 2 < counts["poll"][1] - 24, counts


class BrokenPin:
    @property
    def value(self) -> bool:
        raise OSError("GPIO gone")


def test_reader_thread_reports_a_gpio_error_as_a_fault() -> None:
    clock = VirtualClock()
    chip = HX711Chip(clock)
    hx = HX711(chip.data_pin, chip.clock_pin, timing=clock)
    hx._data_pin = BrokenPin()
    scale = HX711Scale(hx, clock=clock)
    faults: list[str] = []
    done = threading.Event()
    scale.start(lambda t, raw: None, lambda reason: (faults.append(reason), done.set()))
    assert done.wait(scaled(10.0))
    scale.close()
    assert faults == ["reader stopped: GPIO gone"]


def test_stuck_dout_costs_the_reader_thread_little_cpu_in_real_time() -> None:
    """The one real-time test: a reader on the real clock waits out a stuck DOUT for its fault.

    The thread measures its own CPU time (``time.thread_time``); a busy loop would use about all
    of the wall time it waited, the fixed driver a few per cent.
    """
    chip = real_time_chip(10)
    chip.dout_stuck = "high"
    hx = HX711(chip.data_pin, chip.clock_pin, sps=10, timing=RealTiming())
    scale = HX711Scale(hx, clock=time.monotonic)
    fault = threading.Event()
    reasons: list[str] = []
    start = time.monotonic()
    scale.start(lambda t, raw: None, lambda reason: (reasons.append(reason), fault.set()))
    try:
        assert fault.wait(scaled(10.0))
        waited = time.monotonic() - start
    finally:
        scale.close()
    assert reasons == [NO_DATA]
    assert scale.cpu_seconds < 0.2 * waited


def test_fault_watch_holds_back_repeats_and_delivers_them_late() -> None:
    got: list[tuple[float, int]] = []
    faults: list[str] = []
    watch = FaultWatch(lambda t, r: got.append((t, r)), faults.append)
    for t, raw in enumerate([5, 7, 7, 9, 9, 9, 9, 9, 9, 9, 4]):
        watch.reading(float(t) / 10, raw)
    assert got == [(0.0, 5), (0.1, 7), (0.2, 7), (0.3, 9), (1.0, 4)]
    assert faults == ["stuck at 9"]


# -- wiring -------------------------------------------------------------------------------------------------
def test_hardware_builds_the_hx711_backend_on_spi_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    made: dict[str, Any] = {}

    def fake_open(sps: int, gain: int, stamps: Any, bus: int) -> str:
        made.update(sps=sps, gain=gain, bus=bus)
        return "scale"

    monkeypatch.setattr("drivers.scale.hx711_spi.open_hx711_spi", fake_open)
    problems: list[str] = []
    assert hardware._scale(defaults(), time.monotonic, None, problems) == "scale"
    assert made == {"sps": 10, "gain": 128, "bus": 1}  # SPI1 by default
    assert problems == []


def test_the_gpio_interface_reads_in_a_process_of_its_own() -> None:
    from drivers.scale.hx711_process import ProcessScale

    config = parse({"scale": {"interface": "gpio", "data": 5, "clock": 6}, "buttons": {"backend": "sim"}}, "c.toml")
    scale = hardware._scale(config, time.monotonic, None, [])
    assert isinstance(scale, ProcessScale)
    assert "--data=5" in scale.argv and "--clock=6" in scale.argv
    scale.close()  # never started: nothing to stop


def test_the_iio_interface_without_the_kernels_device_notes_the_overlay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("drivers.scale.hx711_iio.IIO_DEVICES", "/nonexistent/iio/devices")
    config = parse({"scale": {"interface": "iio"}}, "c.toml")
    problems: list[str] = []
    assert hardware._scale(config, time.monotonic, None, problems) is None
    assert len(problems) == 1 and "avia,hx711 overlay" in str(problems[0])


def test_hardware_without_gpio_notes_a_problem_and_runs_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from drivers.scale.hx711 import HX711Unavailable

    def no_spi(*args: Any, **kwargs: Any) -> None:
        raise HX711Unavailable("/dev/spidev1.0: No such file or directory")

    monkeypatch.setattr("drivers.scale.hx711_spi.open_hx711_spi", no_spi)
    problems: list[str] = []
    assert hardware._scale(defaults(), time.monotonic, None, problems) is None
    assert problems == ["scale: /dev/spidev1.0: No such file or directory"]


def test_after_a_brown_out_only_readings_at_the_set_gain_get_through() -> None:
    rig = Rig(grams=100.0, noise=10.0, gain=64)
    rig.run(2.0)
    level = rig.raws()[-1]
    rig.chip.dout_stuck = "high"  # the supply dips: no conversions…
    rig.run(2.0)
    rig.chip.brown_out()  # …and the chip comes back at its power-up gain, 128
    rig.chip.dout_stuck = None
    since = rig.clock()
    rig.run(3.0)
    after = rig.raws(since)
    assert after and all(abs(raw - level) < 200 for raw in after)  # never a gain-128 or settling word


def test_a_quick_stop_and_start_really_powers_the_chip_down_and_reads_aligned_words() -> None:
    # The reader pauses (sleep: PD_SCK high) and is wanted again at once (wake: PD_SCK low). A
    # high shorter than 60 µs is not a power-down but a clock pulse: it would shift one data bit
    # out, and every later word would be read one bit off while the driver thinks gain 128.
    rig = Rig(grams=50.0)
    rig.run(1.0)
    before, downs = statistics.median(rig.raws()), rig.chip.power_downs
    rig.hx.sleep()
    rig.hx.wake()
    assert rig.chip.power_downs == downs + 1
    since = rig.clock()
    rig.run(2.0)
    after = rig.raws(since)
    assert len(after) >= 10 and statistics.median(after) == pytest.approx(before, rel=0.02)
    assert rig.faults == []
