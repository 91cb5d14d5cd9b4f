"""The HX711 on SPI1: the simulated chip decodes the very bytes the SPI path sends.

Every test runs the real encoding: :class:`SpiHX711` builds the MOSI bytes, :class:`SimSpiBus`
hands them to the simulated chip, which turns each bit into a PD_SCK level for one bit-time and
answers DOUT on MISO — power-down by a long high, gain by pulse count and the chip's faults come
from the chip's own model, not from the encoder's idea of it.
"""

from __future__ import annotations

import pytest

from drivers.scale.faults import NO_DATA, SLOW_CLOCK, stuck
from drivers.scale.hx711 import MAX_HIGH, HX711Scale, NotReady
from drivers.scale.hx711_chip import UNSETTLED
from drivers.scale.hx711_spi import (
    PROBE,
    RESET_BYTES,
    SPI_HZ,
    WORD_BYTES,
    WORDS,
    SimSpiBus,
    SpiHX711,
    decode,
    high_times,
    open_hx711_spi,
    pulse_bytes,
)
from tests.hx711kit import ChipRig


class Rig(ChipRig):
    """Chip, SPI bus, driver and reader on one virtual clock, stepped by hand."""

    def __init__(
        self,
        rate: int = 10,
        grams: float = 0.0,
        noise: float = 0.0,
        gain: int = 128,
        hz: int = SPI_HZ,
        gap: float = 0.0,
    ):
        super().__init__(rate, grams, noise)
        self.bus = SimSpiBus(self.chip, hz, byte_gap=gap)
        self.hx = SpiHX711(self.bus, sps=rate, timing=self.clock)
        self.attach(HX711Scale(self.hx, gain, clock=self.clock, pins=(self.bus,)))


def bits(data: bytes) -> str:
    return "".join(f"{b:08b}" for b in data)


def test_each_pulse_is_one_bit_high_one_low_and_every_byte_starts_and_ends_low() -> None:
    for pulses, word in WORDS.items():
        assert len(word) == WORD_BYTES == 9
        assert bits(word).count("1") == pulses and "11" not in bits(word)
        assert all(b & 0x81 == 0 for b in word)  # a pause between bytes only lengthens a low
        assert high_times(word, SPI_HZ) == [1e-6] * pulses
    assert WORDS[25] == bytes.fromhex("545454545454545440")
    assert WORDS[26] == bytes.fromhex("545454545454545450")
    assert WORDS[27] == bytes.fromhex("545454545454545454")
    with pytest.raises(ValueError):
        pulse_bytes(28)


def test_decode_reads_each_bit_in_the_low_bit_after_its_pulse() -> None:
    assert decode(bytes([0b00101010] * 8)) == 0xFFFFFF  # the low bits after the pulses: all data 1
    assert decode(bytes([0b01010100] * 8)) == 0  # the high bits themselves are ignored
    one = bytearray(9)
    one[0] = 0b00100000  # after the first pulse only: the MSB
    assert decode(bytes(one)) == 0x800000


def test_the_chip_decodes_a_word_and_the_value_is_signed() -> None:
    for grams, want in ((-250.0, 84_000 - 250 * 420), (100.0, 84_000 + 100 * 420)):
        rig = Rig(grams=grams)
        rig.run(1.0)
        assert rig.samples and set(rig.samples) == {want}
        assert rig.chip.words_read >= len(rig.samples)
        assert rig.chip.power_downs == 1  # the reset at open, nothing since


def test_pulse_count_selects_channel_and_gain_on_the_chip() -> None:
    for gain, pulses in ((32, 26), (64, 27), (128, 25)):
        rig = Rig(gain=gain)
        rig.run(2.0)
        assert rig.scale.pulses == pulses
        assert rig.chip.gain == gain
        assert rig.samples[-1] == round(84_000 * gain / 128)
        assert rig.hx.stats.slow == 0


def test_settling_conversions_after_the_reset_are_dropped() -> None:
    rig = Rig(rate=80)
    rig.run(0.2)
    assert rig.hx.stats.settling >= UNSETTLED
    assert set(rig.samples) == {84_000}  # no unsettled fraction of it got through


def test_the_readiness_probe_clocks_no_pulse() -> None:
    rig = Rig()
    rig.clock.advance(0.15)
    before = rig.chip.words_read, rig.chip.dout_reads
    assert rig.bus.transfer(PROBE) == b"\x00"  # ready: DOUT low through all eight samples
    assert rig.chip.words_read == before[0]
    assert rig.hx.convert(25) is None  # settling, but a whole word was there to read


def test_a_reset_burst_powers_the_chip_down_and_up() -> None:
    rig = Rig(gain=64)
    rig.run(1.0)
    assert rig.chip.gain == 64
    downs = rig.chip.power_downs
    rig.bus.transfer(RESET_BYTES)
    assert rig.chip.power_downs == downs + 1 and rig.chip.powered
    assert rig.chip.gain == 128


def test_a_high_over_60_us_on_mosi_powers_the_chip_down() -> None:
    rig = Rig()
    rig.clock.advance(0.15)
    rig.bus.transfer(b"\xff" * 7 + b"\x80")  # 57 µs high, then low: a long pulse, still awake
    assert rig.chip.powered and rig.chip.power_downs == 1
    rig.bus.transfer(b"\xff" * 8)  # 64 µs, and MOSI keeps its last level after the transfer
    assert not rig.chip.powered and rig.chip.power_downs == 2


def test_pauses_between_bytes_never_stretch_a_high() -> None:
    # a controller pausing 100 µs between bytes with MOSI at the next byte's first bit: the words
    # still read (every byte starts low); the plain 0xAA pattern would power the chip down there
    rig = Rig(grams=-250.0, gap=100e-6)
    rig.run(1.0)
    assert set(rig.samples) == {84_000 - 250 * 420} and rig.chip.power_downs == 1
    rig.bus.transfer(b"\xaa\xaa")
    assert rig.chip.power_downs == 2


def test_an_spi_clock_too_slow_for_the_chip_is_a_slow_clock_fault() -> None:
    rig = Rig(hz=15_000)  # one bit-time is 67 µs: every pulse powers the chip down
    rig.run(3.0)
    assert rig.samples == []
    assert rig.hx.stats.longest_high > MAX_HIGH
    assert rig.chip.power_downs > 10
    assert SLOW_CLOCK in rig.faults


def test_dout_stuck_high_is_no_data_and_stuck_low_reads_zero() -> None:
    rig = Rig()
    rig.chip.dout_stuck = "high"
    with pytest.raises(NotReady):
        rig.hx.convert(25, 0.5)
    rig.run(1.0)
    assert rig.faults == [NO_DATA]
    rig = Rig(grams=5.0, noise=150.0)
    rig.run(1.0)
    rig.chip.dout_stuck = "low"
    rig.run(1.0)
    assert rig.faults == [stuck(0)]


def test_glitches_spikes_and_a_brown_out_reach_the_reader_as_on_the_pins() -> None:
    rig = Rig(grams=10.0)
    rig.run(1.0)
    good = rig.samples[-1]
    rig.chip.glitch(-1)
    rig.chip.spike(5000)
    rig.run(0.25)
    assert -1 not in rig.samples and good + 5000 in rig.samples
    rig.chip.brown_out()
    settling = rig.hx.stats.settling
    rig.run(1.0)
    assert rig.samples[-1] == good
    assert rig.hx.stats.settling == settling  # a brown-out's unsettled words are told by value only


def test_sleep_leaves_the_chip_converting_and_wake_resets_it() -> None:
    rig = Rig()
    rig.run(1.0)
    rig.hx.sleep()
    rig.clock.advance(1.0)
    assert rig.chip.powered
    rig.hx.wake()
    assert rig.chip.power_downs == 2
    rig.run(1.0)
    assert rig.samples[-1] == 84_000


def test_close_releases_the_bus() -> None:
    rig = Rig()
    rig.scale.close()
    assert rig.bus.closed


def test_no_spidev_package_is_a_clear_unavailable() -> None:
    pytest.importorskip("drivers.scale.hx711")
    try:
        import spidev  # noqa: F401
    except ImportError:
        from drivers.scale.hx711 import HX711Unavailable

        with pytest.raises(HX711Unavailable, match="spidev"):
            open_hx711_spi()
    else:
        pytest.skip("spidev is installed here")


def test_the_simulator_reads_its_chip_through_the_spi_encoding_when_configured() -> None:
    from drivers.scale.sim import SimScale
    from firmware_host.runtime.vtime import run_virtual

    async def main() -> tuple[list[int], SimScale]:
        import asyncio

        loop = asyncio.get_running_loop()
        scale = SimScale(loop.call_later, loop.time, sps=10, noise_counts=0.0, interface="spi")
        scale.grams = 10.0
        got: list[int] = []
        scale.start(lambda t, raw: got.append(raw), lambda reason: None)
        await asyncio.sleep(2.0)
        scale.close()
        return got, scale

    got, scale = run_virtual(main)
    assert isinstance(scale.hx, SpiHX711) and scale.chip.spi_bytes > 0
    assert got and set(got) == {84_000 + 10 * 420}


class StubSpiDev:
    """The few members of ``spidev.SpiDev`` our bus uses (the package ships no test double), on a
    real file so that the lock is the kernel's."""

    path = ""

    def __init__(self) -> None:
        self.mode = self.bits_per_word = self.max_speed_hz = None
        self.lsbfirst = True
        self.sent: list[list[int]] = []
        self._fd = -1

    def open(self, bus: int, device: int) -> None:
        import os

        self.opened = (bus, device)
        self._fd = os.open(self.path, os.O_RDWR)

    def fileno(self) -> int:
        return self._fd

    def xfer2(self, data: list[int]) -> list[int]:
        self.sent.append(data)
        return [0] * len(data)

    def close(self) -> None:
        import os

        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def test_the_spidev_bus_runs_mode_0_at_1_mhz_and_locks_the_device(monkeypatch, tmp_path) -> None:
    import types

    from drivers.scale.hx711_spi import HX711Busy, SpidevBus

    node = tmp_path / "spidev1.0"
    node.write_bytes(b"")
    StubSpiDev.path = str(node)
    monkeypatch.setitem(__import__("sys").modules, "spidev", types.SimpleNamespace(SpiDev=StubSpiDev))
    bus = SpidevBus()
    dev = bus._dev
    assert dev.opened == (1, 0) and (dev.mode, dev.bits_per_word, dev.max_speed_hz, dev.lsbfirst) == (
        0,
        8,
        SPI_HZ,
        False,
    )
    assert bus.transfer(WORDS[25]) == bytes(9) and dev.sent == [list(WORDS[25])]
    with pytest.raises(HX711Busy, match="another process"):
        SpidevBus()  # the doctor while the service reads: refused, not interleaved
    bus.close()
    bus.close()
    SpidevBus().close()  # free again once closed


def test_a_spidev_that_opens_but_times_out_is_a_transfer_failure_not_a_missing_overlay(monkeypatch, tmp_path) -> None:
    # what QEMU's BCM2837 does: the node is there, the auxiliary SPI completes no transfer
    import errno
    import types

    from drivers.scale.hx711_spi import SpiTransferFailed, open_hx711_spi

    class TimingOut(StubSpiDev):
        def xfer2(self, data: list[int]) -> list[int]:
            raise OSError(errno.ETIMEDOUT, "Connection timed out")

    node = tmp_path / "spidev1.0"
    node.write_bytes(b"")
    TimingOut.path = str(node)
    monkeypatch.setitem(__import__("sys").modules, "spidev", types.SimpleNamespace(SpiDev=TimingOut))
    with pytest.raises(SpiTransferFailed, match="opened, but a transfer failed: Connection timed out") as err:
        open_hx711_spi()
    assert "dtoverlay" not in str(err.value)
