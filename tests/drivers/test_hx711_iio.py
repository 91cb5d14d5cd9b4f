"""The HX711 through the kernel's IIO driver: its algorithm on the simulated chip, and its files."""

from __future__ import annotations

import pytest

from drivers.scale.faults import NO_DATA
from drivers.scale.hx711 import HX711Unavailable
from drivers.scale.hx711_iio import (
    IIOError,
    IIOScale,
    KernelSim,
    SysfsHX711,
    find_iio_hx711,
    open_hx711_iio,
    signed,
)
from tests.hx711kit import ChipRig


class Rig(ChipRig):
    def __init__(self, rate: int = 10, gain: int = 128, grams: float = -250.0, noise: float = 0.0) -> None:
        super().__init__(rate, grams, noise)
        self.kernel = KernelSim(self.chip, self.clock)
        self.kernel.high_times = []
        self.attach(IIOScale(self.kernel, rate, gain, clock=self.clock))


def test_the_kernels_word_is_offset_binary() -> None:
    assert signed(0x800000) == 0 and signed(0x7FFFFF) == -1 and signed(0) == -0x800000


def test_the_kernel_algorithm_reads_signed_words_with_short_pulses() -> None:
    rig = Rig()
    rig.run(2.0)
    assert set(rig.samples) == {84_000 - 250 * 420}
    assert max(rig.kernel.high_times) == pytest.approx(2.5e-6)
    assert rig.chip.power_downs == 0


@pytest.mark.parametrize("gain", [32, 64])
def test_channel_b_and_gain_64_reach_the_chip(gain: int) -> None:
    rig = Rig(gain=gain, grams=0.0)
    rig.run(3.0)
    assert rig.chip.gain == gain
    assert rig.samples[-1] == round(84_000 * gain / 128)


def test_dout_stuck_high_is_an_eio_and_a_no_data_fault() -> None:
    rig = Rig(noise=150.0)
    rig.run(1.0)
    rig.chip.dout_stuck = "high"
    with pytest.raises(IIOError):
        rig.kernel.read_raw(0)
    rig.run(3.0)
    assert rig.faults == [NO_DATA]


def fake_sysfs(root, scales: str = "0.000077216 0.000154432") -> None:
    device = root / "sys/bus/iio/devices/iio:device3"
    device.mkdir(parents=True)
    (root / "sys/bus/iio/devices/iio:device0").mkdir()
    (root / "sys/bus/iio/devices/iio:device0/name").write_text("mcp3008\n")
    (device / "name").write_text("hx711\n")
    (device / "in_voltage0_raw").write_text(f"{0x800000 - 21000}\n")
    (device / "in_voltage0_scale_available").write_text(scales + " \n")
    (device / "in_voltage_scale").write_text("0.000077216\n")
    return device


def test_the_sysfs_device_is_found_by_name_and_read(tmp_path) -> None:
    device = fake_sysfs(tmp_path)
    assert find_iio_hx711(tmp_path) == device
    scale = open_hx711_iio(10, 64, root=tmp_path)
    assert (device / "in_voltage_scale").read_text() == "0.000154432\n"  # the larger scale is gain 64
    assert signed(scale.source.read_raw(0)) == -21000
    SysfsHX711(device).set_gain_a(128)
    assert (device / "in_voltage_scale").read_text() == "0.000077216\n"


def test_no_iio_device_names_the_overlay_and_the_key(tmp_path) -> None:
    with pytest.raises(HX711Unavailable, match=r'avia,hx711 overlay.*interface = "spi"'):
        open_hx711_iio(root=tmp_path)
