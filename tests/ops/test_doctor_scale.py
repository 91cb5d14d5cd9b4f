"""The doctor's scale check clocks real words: against the simulated chip on the SPI path's bus."""

from __future__ import annotations

from drivers.scale.hx711 import HX711Scale
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock
from drivers.scale.hx711_spi import SimSpiBus, SpiHX711
from firmware_host.core.config import defaults, parse
from firmware_host.ops.doctor import System, check_hx711
from firmware_host.ops.scale_check import WordReport, check_seconds, clock_words


def chip_system(setup=lambda chip: None, hz: int = 1_000_000, sps: int = 10) -> System:
    """A System whose word probe reads the simulated chip through the SPI path's real encoding."""

    def words(s, seconds: float) -> WordReport:
        clock = VirtualClock()
        chip = HX711Chip(clock, rate=s["sps"], load=LoadModel(grams=50.0))
        setup(chip)
        bus = SimSpiBus(chip, hz)
        scale = HX711Scale(SpiHX711(bus, sps=s["sps"], timing=clock), s["gain"], clock, pins=(bus,))
        return clock_words(scale, seconds, clock)

    return System(hx711_words=words)


def test_a_healthy_chip_is_ok_with_its_words_per_minute() -> None:
    result = check_hx711(defaults(), chip_system())
    assert result.status == "ok", result.line()
    assert "HX711 on SPI1" in result.found
    assert "30 words in 3 s, 0 dropped/min, 0 corrupt/min, longest PD_SCK high 1.0 µs" in result.found


def test_dout_held_low_is_a_failure_not_an_ok() -> None:
    # the old check passed on one low DOUT level; a chip answering zeros, or a short, fails now
    result = check_hx711(defaults(), chip_system(lambda chip: setattr(chip, "dout_stuck", "low")))
    assert result.failed
    assert "stuck at 0" in result.found and "short to GND" in result.found
    assert "corrupt/min" in result.found


def test_dout_never_falling_fails_with_the_wiring_fix() -> None:
    result = check_hx711(defaults(), chip_system(lambda chip: setattr(chip, "dout_stuck", "high")))
    assert result.failed and "DOUT never falls, no word in 3 s" in result.found
    assert "wiring.md" in result.fix


def test_glitches_are_counted_as_corrupt_reads_per_minute() -> None:
    result = check_hx711(defaults(), chip_system(lambda chip: chip.glitch(-1, count=6)))
    assert result.failed  # 2 of 30 words (the first 4 fall in the settling after the reset): over 1 %
    assert "40 corrupt/min" in result.found


def test_pulses_too_long_for_the_chip_are_dropped_words() -> None:
    config = parse({"scale": {"sps": 80}}, "c.toml")
    result = check_hx711(config, chip_system(hz=15_000))  # 67 µs a bit: each pulse powers it down
    assert result.failed
    assert "0 words" not in result.found and "longest PD_SCK high 66.7 µs" in result.found


def test_a_chip_the_service_holds_is_skipped() -> None:
    system = System(hx711_words=lambda s, seconds: WordReport(seconds, busy=True))
    result = check_hx711(defaults(), system)
    assert result.status == "skip" and not result.failed


def test_an_unopenable_path_names_the_overlay() -> None:
    def no_spidev(s, seconds):
        raise OSError(2, "No such file or directory")

    result = check_hx711(defaults(), System(hx711_words=no_spidev))
    assert result.failed and "dtoverlay=spi1-1cs" in result.fix
    iio = check_hx711(parse({"scale": {"interface": "iio"}}, "c.toml"), System(hx711_words=no_spidev))
    assert iio.failed and "docs/hx711-timing.md" in iio.fix


def test_a_spi_device_that_opens_but_completes_no_transfer_names_the_controller_not_the_overlay() -> None:
    # QEMU's BCM2837 (dev.py vm --board raspi3b): /dev/spidev1.0 opens, every transfer times out
    from drivers.scale.hx711_spi import SpiTransferFailed

    def timed_out(s, seconds):
        raise SpiTransferFailed("/dev/spidev1.0 opened, but a transfer failed: Connection timed out")

    result = check_hx711(defaults(), System(hx711_words=timed_out))
    assert result.failed and "opened, but a transfer failed: Connection timed out" in result.found
    assert "dmesg" in result.fix and "dtoverlay" not in result.fix and "wiring" in result.fix


def test_the_check_runs_30_words_at_10_sps_and_2_s_at_80() -> None:
    assert check_seconds(10) == 3.0 and check_seconds(80) == 2.0
