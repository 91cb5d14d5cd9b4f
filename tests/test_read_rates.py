"""The Self-test's scale line: dropped and corrupt reads per minute of the running reader."""

from __future__ import annotations

from drivers.scale.hx711 import HX711, HX711Scale
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock
from firmware_host.core.i18n import tr
from firmware_host.scale.read_rates import ReadRates, read_counts


def rig() -> tuple[VirtualClock, HX711Chip, HX711Scale]:
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=10, load=LoadModel(grams=20.0))
    scale = HX711Scale(HX711(chip.data_pin, chip.clock_pin, sps=10, timing=clock), 128, clock)
    scale.prepare(lambda t, raw: None, lambda reason: None)
    return clock, chip, scale


def run(clock: VirtualClock, scale: HX711Scale, seconds: float) -> None:
    end = clock() + seconds
    while clock() < end:
        scale.step()


def test_stretched_pulses_and_glitch_codes_are_counted_per_minute() -> None:
    clock, chip, scale = rig()
    rates = ReadRates(scale, clock)
    assert rates.line() is None  # no rate from one snapshot
    run(clock, scale, 5.0)
    chip.slow_pulse(100e-6, pulse=3, count=3)  # the host stalled with PD_SCK high: 3 words dropped
    run(clock, scale, 10.0)
    chip.glitch(-1, count=2)
    run(clock, scale, 15.0)
    assert tr(rates.line()) == "Scale/min 6 lost 4 bad"  # 3 and 2 in the 30 s since the first look
    run(clock, scale, 60.0)
    assert tr(rates.line()) == "Scale/min 0 lost 0 bad"  # a minute later, all clean


def test_a_driver_without_counts_gives_no_line() -> None:
    assert read_counts(object()) is None
    assert ReadRates(object(), VirtualClock()).line() is None
