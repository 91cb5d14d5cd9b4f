"""adafruit's HX711 class with our fixes reads the simulated chip; the unfixed class does not.

Each of the five defects has a test that shows it on adafruit's own code (where the other defects
are neutralised so the one at hand shows) and a test that our subclass does not have it.
"""

from __future__ import annotations

import statistics
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from drivers.scale.hx711 import (
    HX711,
    MAX_HIGH,
    SETTLE_CONVERSIONS,
    NotReady,
    adafruit,
)
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock

A128, B32, A64 = HX711.CHAN_A_GAIN_128, HX711.CHAN_B_GAIN_32, HX711.CHAN_A_GAIN_64
GAIN = {A128: 128, B32: 32, A64: 64}


def rig(rate: int = 10, grams: float = 0.0, noise: float = 0.0) -> tuple[VirtualClock, HX711Chip, HX711]:
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=rate, load=LoadModel(grams=grams, noise_counts=noise))
    return clock, chip, HX711(chip.data_pin, chip.clock_pin, sps=rate, timing=clock)


def expected(chip: HX711Chip, gain: int = 128) -> int:
    load = chip.load
    return round((load.offset + load.grams * load.counts_per_gram) * gain / 128)


def unfixed(chip: HX711Chip, data_pin: Any = None) -> adafruit.HX711:
    """adafruit's own class on the chip (its __init__ would really sleep 1 ms, so it is skipped)."""
    hx = adafruit.HX711.__new__(adafruit.HX711)
    hx._data_pin, hx._clock_pin = data_pin or chip.data_pin, chip.clock_pin
    hx._tare_value_a = hx._tare_value_b = 0
    return hx


@pytest.fixture
def circuitpython(monkeypatch: pytest.MonkeyPatch) -> VirtualClock:
    """adafruit's module with a CircuitPython-like ``microcontroller`` on a virtual clock.

    Interrupts can be disabled and ``delay_us(1)`` takes 1 µs, as on a microcontroller: with
    defects 1 and 2 out of the way, the others show.
    """
    clock = VirtualClock()
    shim = SimpleNamespace(
        disable_interrupts=lambda: None,
        enable_interrupts=lambda: None,
        delay_us=lambda us: clock.advance(us * 1e-6),
    )
    monkeypatch.setattr(adafruit, "microcontroller", shim)
    return clock


def settled(clock: VirtualClock, chip: HX711Chip) -> None:
    clock.advance((SETTLE_CONVERSIONS + 0.5) * chip.period)


# -- reading right ------------------------------------------------------------------------------------
@pytest.mark.parametrize("rate", [10, 80])
@pytest.mark.parametrize("chan_gain", [A128, A64, B32])
@pytest.mark.parametrize("grams", [0.0, 1234.5, -250.0, -5000.0])
def test_fixed_class_reads_every_gain_and_rate_negative_loads_included(rate: int, chan_gain: int, grams: float) -> None:
    _, chip, hx = rig(rate, grams)
    values = [hx.read(chan_gain) for _ in range(3)]
    assert values == [expected(chip, GAIN[chan_gain])] * 3
    assert isinstance(hx, adafruit.HX711)


def test_fixed_class_keeps_adafruits_tare_fields() -> None:
    _, chip, hx = rig(grams=10.0)
    hx.tare_value_a = expected(chip)
    assert hx.read() == 0
    hx.tare_value_b = 100
    assert hx.read(B32) == expected(chip, 32) - 100


def test_noisy_readings_average_to_the_load() -> None:
    _, chip, hx = rig(80, grams=-42.0, noise=150.0)
    values = [hx.read() for _ in range(400)]
    assert abs(statistics.mean(values) - expected(chip)) < 30
    assert 100 < statistics.stdev(values) < 200


# -- defect 1: read_fast disables interrupts, which Blinka lacks ---------------------------------------------------
def test_defect1_unfixed_read_fast_raises_attribute_error_under_blinka() -> None:
    clock, chip, _ = rig()
    settled(clock, chip)
    assert not hasattr(adafruit.microcontroller, "disable_interrupts")  # Blinka's microcontroller
    with pytest.raises(AttributeError, match="disable_interrupts"):
        unfixed(chip)._read_channel_raw(A128)


def test_defect1_fixed_class_reads_under_blinka() -> None:
    _, chip, hx = rig()
    assert hx.read() == expected(chip)


# -- defect 2: delay_us(1) is time.sleep: far over 50 µs with the clock high ---------------------------------
def test_defect2_blinkas_delay_us_is_time_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(adafruit.microcontroller, "time", SimpleNamespace(sleep=slept.append))
    adafruit.microcontroller.delay_us(1)
    assert slept == [1e-6]


LINUX_SLEEP = 70e-6
"""What ``time.sleep(1e-6)`` takes on Linux (55–100 µs; median 68 µs on the machine it was measured)."""


def test_defect2_unfixed_read_with_linux_sleeps_powers_the_chip_down(
    circuitpython: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = circuitpython
    blinka = sys.modules["microcontroller"]
    linux = SimpleNamespace(sleep=lambda s: clock.advance(max(s, LINUX_SLEEP)))
    monkeypatch.setattr(blinka, "time", linux)
    monkeypatch.setattr(adafruit.microcontroller, "delay_us", blinka.delay_us)  # Blinka's own delay_us
    chip = HX711Chip(clock, load=LoadModel(grams=-250.0, noise_counts=0))
    settled(clock, chip)
    value = unfixed(chip)._read_channel_raw(A128)
    assert chip.power_downs >= 1
    assert value != expected(chip) & 0xFFFFFFFF  # garbage: the chip reset in the first pulse


def test_defect2_fixed_class_times_pulses_and_drops_a_slow_one_with_the_settling_after() -> None:
    _, chip, hx = rig(grams=-250.0)
    assert hx.read() == expected(chip)
    for stall in (55e-6, 100e-6):  # over the 50 µs limit; over the 60 µs power-down
        chip.slow_pulse(stall, pulse=7)
        before = hx.stats.slow
        results = [hx.convert(A128) for _ in range(SETTLE_CONVERSIONS + 1)]
        assert hx.stats.slow == before + 1
        assert results == [None] * (SETTLE_CONVERSIONS + 1)  # the slow one, then the settling
        assert [hx.convert(A128) for _ in range(3)] == [expected(chip)] * 3
    assert hx.stats.longest_high > MAX_HIGH
    assert hx.stats.resets == 3  # at start, then a deliberate reset after each slow pulse
    assert chip.power_downs == 4  # those three, and the chip's own in the 100 µs pulse


def test_fixed_class_never_returns_an_unsettled_value_after_resets() -> None:
    _, chip, hx = rig(80, grams=300.0)
    good = expected(chip)
    seen = []
    for i in range(200):
        if i % 17 == 0:
            chip.slow_pulse(80e-6, pulse=1 + i % 25)
        value = hx.convert(A128)
        if value is not None:
            seen.append(value)
    assert set(seen) == {good}
    assert hx.stats.slow == 12


def test_gain_change_drops_the_settling_conversions() -> None:
    _, chip, hx = rig()
    assert hx.read(A128) == expected(chip)
    before = hx.stats.settling
    assert hx.read(A64) == expected(chip, 64)
    assert hx.stats.settling - before == 1 + SETTLE_CONVERSIONS  # converted at the old gain, then settling


# -- defect 3: value |= 0xFF000000 makes negative readings about 4.29e9 ---------------------------------------
def test_defect3_unfixed_turns_a_negative_load_into_4e9(circuitpython: VirtualClock) -> None:
    chip = HX711Chip(circuitpython, load=LoadModel(grams=-250.0, noise_counts=0))
    settled(circuitpython, chip)
    value = unfixed(chip)._read_channel_raw(A128)
    assert value == 2**32 + expected(chip)  # -21000 read as 4294946296
    assert value > 4.29e9


def test_defect3_fixed_is_twos_complement_at_the_ends_of_the_range() -> None:
    _, chip, hx = rig()
    for grams, value in ((-1e6, -0x800000), (1e6, 0x7FFFFF), (-84_001 / 420, -1)):
        chip.load.grams = grams
        readings = [hx.convert(A128) for _ in range(6)]
        assert readings[-1] == value


# -- defect 4: is_busy polled in a bare loop ----------------------------------------------------------------
class Spinning(Exception):
    pass


class CountingPin:
    """DOUT that counts reads, and stops a loop that reads it many times with no time passing."""

    def __init__(self, pin: Any, clock: VirtualClock, limit: int = 100_000) -> None:
        self.pin, self.clock, self.limit = pin, clock, limit
        self.reads = 0
        self._same = 0
        self._last = clock()

    @property
    def value(self) -> bool:
        self.reads += 1
        self._same = self._same + 1 if self.clock() == self._last else 0
        self._last = self.clock()
        if self._same >= self.limit:
            raise Spinning(f"{self.reads} reads of DOUT without giving up the CPU")
        return self.pin.value


def test_defect4_unfixed_spins_forever_on_a_stuck_dout(circuitpython: VirtualClock) -> None:
    chip = HX711Chip(circuitpython)
    chip.dout_stuck = "high"
    dout = CountingPin(chip.data_pin, circuitpython)
    start = circuitpython()
    with pytest.raises(Spinning):
        unfixed(chip, dout)._read_channel_raw(A128)
    assert circuitpython() == start  # not one sleep in 100,000 reads


def test_defect4_fixed_waits_with_a_timeout_and_sleeps_between_polls() -> None:
    clock = VirtualClock()
    chip = HX711Chip(clock)
    dout = CountingPin(chip.data_pin, clock, limit=2)
    hx = HX711(dout, chip.clock_pin, timing=clock)
    chip.dout_stuck = "high"
    start = clock()
    with pytest.raises(NotReady, match="DOUT stays high"):
        hx.convert(A128, timeout=1.0)
    assert clock() - start == pytest.approx(1.0, abs=0.002)
    assert dout.reads < 300  # 1 ms polls near the due time, then 10 ms
    with pytest.raises(NotReady):
        hx.read()


# -- defect 5: read() converts twice -------------------------------------------------------------------------------
def test_defect5_unfixed_read_takes_two_conversions(circuitpython: VirtualClock) -> None:
    # each pin access takes 10 µs, so adafruit's busy loop lets time pass while it spins
    chip = HX711Chip(circuitpython, rate=80, load=LoadModel(noise_counts=0), pin_seconds=10e-6)
    settled(circuitpython, chip)
    hx = unfixed(chip)
    start, words = circuitpython(), chip.words_read
    for _ in range(40):
        hx.read()
    assert chip.words_read - words == 80
    assert 40 / (circuitpython() - start) == pytest.approx(40, rel=0.05)  # reads per second at 80 SPS


def test_defect5_fixed_read_takes_one_conversion() -> None:
    clock, chip, hx = rig(80)
    chip.pin_seconds = 10e-6
    hx.read()
    start, words = clock(), chip.words_read
    for _ in range(80):
        assert hx.read() == expected(chip)
    assert chip.words_read - words == 80
    assert 80 / (clock() - start) == pytest.approx(80, rel=0.05)
