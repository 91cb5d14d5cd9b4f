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
    assert rates.lines() == []  # no rate from one snapshot
    run(clock, scale, 5.0)
    chip.slow_pulse(100e-6, pulse=3, count=3)  # the host stalled with PD_SCK high: 3 words dropped
    run(clock, scale, 10.0)
    chip.glitch(-1, count=2)
    run(clock, scale, 15.0)
    assert [tr(line) for line in rates.lines()] == ["Scale lost 6/min", "Scale bad 4/min"]  # 3 and 2 in 30 s
    run(clock, scale, 60.0)
    assert [tr(line) for line in rates.lines()] == ["Scale lost 0/min", "Scale bad 0/min"]  # a minute on


def test_a_driver_without_counts_gives_no_line() -> None:
    assert read_counts(object()) is None
    assert ReadRates(object(), VirtualClock()).lines() == []


def test_the_self_tests_checks_page_leads_with_the_scales_reads_per_minute(tmp_path) -> None:
    import asyncio

    from firmware_host.ui.menus import SelfTest
    from tests.devicekit import presses, run_device, screen

    async def body(dev):
        dev.push(SelfTest(dev))  # the self-test reads the scale while it shows
        await presses(dev, "next!")
        for _ in range(200):
            text = await screen(dev)
            if "checking" not in text and "Scale lost" in text:
                break
            await asyncio.sleep(0.05)
        dev.hw.scale.chip.glitch(-1, count=2)  # two corrupt words from the simulated chip
        await asyncio.sleep(3.0)
        return text, await screen(dev)

    before, after = run_device(tmp_path, body)
    assert before.splitlines()[1:3] == ["Scale lost 0/min", "Scale bad 0/min"]  # the page's first lines
    assert after.splitlines()[1] == "Scale lost 0/min" and after.splitlines()[2] != "Scale bad 0/min"
