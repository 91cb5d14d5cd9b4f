"""The simulated HX711 chip behaves as the datasheet says, seen from its two pins."""

from __future__ import annotations

import pytest

from drivers.scale.hx711_chip import UNSETTLED, HX711Chip, LoadModel, VirtualClock


def make(rate: int = 10, grams: float = 0.0, offset: int = 84_000) -> tuple[VirtualClock, HX711Chip]:
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=rate, load=LoadModel(grams=grams, offset=offset, noise_counts=0))
    return clock, chip


def settle(clock: VirtualClock, chip: HX711Chip) -> None:
    """Let the power-on settling pass and a settled conversion be ready."""
    clock.advance((UNSETTLED + 1) * chip.period + chip.period / 2)


def shift(clock: VirtualClock, chip: HX711Chip, pulses: int = 25, high: float = 1e-6) -> tuple[int, bool]:
    """Clock a read by hand: the 24 bits (unsigned) and DOUT after the last pulse."""
    word = 0
    for i in range(pulses):
        chip.clock_pin.value = True
        clock.advance(high)
        if i < 24:
            word = word << 1 | chip.data_pin.value
        chip.clock_pin.value = False
        clock.advance(1e-6)
    return word, chip.data_pin.value


def test_dout_falls_when_a_conversion_is_ready_at_the_rate() -> None:
    for rate in (10, 80):
        clock, chip = make(rate)
        assert chip.data_pin.value is True
        clock.advance(0.99 / rate)
        assert chip.data_pin.value is True
        clock.advance(0.02 / rate)
        assert chip.data_pin.value is False


def test_shifts_24_bits_msb_first_and_the_25th_pulse_raises_dout() -> None:
    clock, chip = make(grams=-250.0)  # 84000 - 250 * 420 = -21000
    settle(clock, chip)
    word, after = shift(clock, chip)
    assert word == -21000 & 0xFFFFFF
    assert after is True  # busy until the next conversion


def test_pulse_count_selects_the_gain_of_the_next_conversion() -> None:
    clock, chip = make(offset=84_000)
    settle(clock, chip)
    for pulses, gain in ((26, 32), (27, 64), (25, 128)):
        shift(clock, chip, pulses)
        clock.advance(chip.period)
        assert chip.gain == gain
        clock.advance(UNSETTLED * chip.period)  # the new gain settles
        word, _ = shift(clock, chip, pulses)
        assert word == 84_000 * gain // 128
        clock.advance(chip.period)


def test_clock_high_over_60_us_powers_down_and_power_up_settles_again() -> None:
    clock, chip = make()
    settle(clock, chip)
    shift(clock, chip, 27)  # gain 64 for the next conversion
    chip.clock_pin.value = True
    clock.advance(59e-6)
    assert chip.powered
    clock.advance(2e-6)
    assert not chip.powered
    assert chip.data_pin.value is True
    chip.clock_pin.value = False
    assert chip.powered
    assert chip.gain == 128  # reset: channel A, gain 128
    clock.advance(chip.period * 1.01)
    first, _ = shift(clock, chip)
    assert first != 84_000  # not settled yet
    clock.advance(UNSETTLED * chip.period)
    word, _ = shift(clock, chip)
    assert word == 84_000


def test_a_conversion_completing_during_a_read_is_lost() -> None:
    clock, chip = make()
    settle(clock, chip)
    chip.clock_pin.value = True
    clock.advance(1e-6)
    chip.clock_pin.value = False
    clock.advance(chip.period)  # the next conversion completes mid-read
    chip.data_pin.value  # noqa: B018 - the chip looks at its clock when a pin is touched
    assert chip.lost == 1
    assert chip.powered


def test_stuck_dout_and_glitches_and_spikes() -> None:
    clock, chip = make()
    settle(clock, chip)
    chip.dout_stuck = "low"
    assert shift(clock, chip)[0] == 0
    clock.advance(chip.period)
    chip.dout_stuck = "high"
    assert shift(clock, chip)[0] == 0xFFFFFF
    clock.advance(chip.period)
    chip.dout_stuck = None
    chip.glitch(-1)
    chip.glitch(0x7FFFFF)
    chip.spike(1000)
    for expected in (0xFFFFFF, 0x7FFFFF, 85_000, 84_000):
        clock.advance(chip.period)
        assert shift(clock, chip)[0] == expected


def test_slow_pulse_stalls_the_shared_clock_while_high() -> None:
    clock, chip = make()
    settle(clock, chip)
    chip.slow_pulse(100e-6, pulse=3)
    shift(clock, chip)
    assert chip.power_downs == 1


def test_load_saturates_at_full_scale() -> None:
    clock, chip = make(grams=1e6)
    settle(clock, chip)
    assert shift(clock, chip)[0] == 0x7FFFFF
    chip.load.grams = -1e6
    clock.advance(chip.period)
    assert shift(clock, chip)[0] == 0x800000


def test_rate_is_10_or_80() -> None:
    with pytest.raises(ValueError, match="10 or 80"):
        HX711Chip(VirtualClock(), rate=40)


def test_data_pin_is_an_input() -> None:
    _, chip = make()
    with pytest.raises(AttributeError, match="Not an output"):
        chip.data_pin.value = True
