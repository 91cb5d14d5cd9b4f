"""``[scale] interface``: which path clocks the HX711, and the pins each path takes."""

from __future__ import annotations

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.config import SCALE_SPI_PINS, ConfigError


def load(tmp_path, text: str) -> configuration.Config:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return configuration.load(path)


def test_spi_is_the_default_on_spi1_with_the_default_buttons_free_of_it(tmp_path):
    c = load(tmp_path, "")
    assert c["scale"]["interface"] == "spi"
    assert (c["scale"]["data"], c["scale"]["clock"]) == (SCALE_SPI_PINS["MISO"], SCALE_SPI_PINS["MOSI"])
    buttons = {c["buttons"][b] for b in configuration.BUTTONS}
    assert not buttons & set(SCALE_SPI_PINS.values())


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[scale]\ninterface = "usb"\n', '[scale] interface: expected one of "spi", "iio", "gpio", got \'usb\''),
        ("[scale]\ndata = 5\n", "[scale] data: the SPI interface has the HX711's DOUT on SPI1 MISO, GPIO 19, not 5"),
        ("[scale]\nclock = 6\n", 'set clock = 20 or interface = "gpio"'),
        ("[buttons]\np6 = 21\n", '[buttons] p6 and [scale] interface "spi" (SPI1 SCLK) both use GPIO 21'),
        (
            '[tower]\nbackend = "gpio"\nbuzzer = 18\n',
            '[tower] buzzer and [scale] interface "spi" (SPI1 CE0) both use GPIO 18',
        ),
        ('[scale]\ninterface = "gpio"\ndata = 5\n', "[buttons] p1 and [scale] data both use GPIO 5"),
        ('[scale]\ninterface = "iio"\nclock = 12\n', "[buttons] ok and [scale] clock both use GPIO 12"),
    ],
)
def test_a_bad_scale_interface_names_the_key_and_the_file(tmp_path, text, needle):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert str(err.value).startswith(str(tmp_path / "config.toml") + ": ")
    assert needle in str(err.value)


def test_gpio_and_iio_take_only_data_and_clock(tmp_path):
    for interface in ("gpio", "iio"):
        c = load(tmp_path, f'[scale]\ninterface = "{interface}"\n[buttons]\np6 = 21\n[tower]\nbackend = "gpio"\n')
        assert c["scale"]["interface"] == interface


def test_a_scale_that_is_not_an_hx711_takes_no_pin(tmp_path):
    c = load(tmp_path, '[scale]\nbackend = "none"\n[tower]\nbackend = "gpio"\n')
    assert c["tower"]["buzzer"] == 23


def test_the_default_gpio_tower_works_beside_the_default_spi_scale(tmp_path):
    # bug: the buzzer's default was SPI1's CE0, so switching to the GPIO tower refused to start
    c = load(tmp_path, '[tower]\nbackend = "gpio"\n')
    assert c["tower"]["buzzer"] == 23 and c["scale"]["interface"] == "spi"


def test_the_spi_path_asks_the_boot_config_for_spi1(tmp_path):
    from drivers.scale.hx711_open import boot_config_lines

    assert boot_config_lines(load(tmp_path, "")["scale"]) == ["dtoverlay=spi1-1cs"]
    assert boot_config_lines(load(tmp_path, '[scale]\ninterface = "gpio"\n')["scale"]) == []
    assert boot_config_lines(load(tmp_path, '[scale]\nbackend = "none"\n')["scale"]) == []


AMP_AND_SPI0 = '[audio]\namplifier = "max98357a"\n[scale]\nspi_bus = 0\ndata = 9\nclock = 10\n'
"""The I2S amplifier fitted, the HX711 moved to SPI0 (hardware/wiring.md)."""


def test_an_amplifier_beside_the_hx711_on_spi1_is_refused_with_the_move_that_fixes_it(tmp_path):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, '[audio]\namplifier = "max98357a"\n')
    said = str(err.value)
    assert said.startswith(f"{tmp_path / 'config.toml'}: [audio] amplifier: the MAX98357A takes GPIO 18, 19 and 21")
    assert '[scale] interface = "spi" has the HX711' in said and "[scale] spi_bus = 0, data = 9, clock = 10" in said


def test_the_amplifier_with_the_hx711_on_spi0_takes_pcm_and_spi0_pins(tmp_path):
    c = load(tmp_path, AMP_AND_SPI0)
    assert c["audio"]["amplifier"] == "max98357a" and c["scale"]["spi_bus"] == 0
    assert load(tmp_path, '[audio]\namplifier = "max98357a"\n[scale]\ninterface = "gpio"\ndata = 17\nclock = 27\n')


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            AMP_AND_SPI0.replace("data = 9", "data = 19"),
            "[scale] data: the SPI interface has the HX711's DOUT on SPI0 MISO, GPIO 9, not 19",
        ),
        (
            AMP_AND_SPI0 + '[display]\nkind = "ssd1322"\n',
            '[scale] interface "spi" (SPI0 MOSI) and [display] SPI MOSI both use GPIO 10',
        ),
        (
            AMP_AND_SPI0 + "[buttons]\np4 = 19\n",
            '[buttons] p4 and [audio] amplifier "max98357a" (PCM_FS) both use GPIO 19',
        ),
        (
            '[audio]\namplifier = "max98357a"\n[scale]\ninterface = "gpio"\ndata = 21\nclock = 27\n',
            '[audio] amplifier "max98357a" (PCM_DOUT) and [scale] data both use GPIO 21',
        ),
        ('[audio]\namplifier = "pam8302"\n', '[audio] amplifier: expected one of "none", "max98357a"'),
        ("[scale]\nspi_bus = 2\n", "[scale] spi_bus"),
    ],
)
def test_a_pin_the_amplifier_and_another_part_both_want_names_both_keys_and_the_file(tmp_path, text, needle):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert str(err.value).startswith(str(tmp_path / "config.toml") + ": ")
    assert needle in str(err.value)


def test_the_boot_config_asks_for_spi0_and_the_amplifier_on_raspberry_pi_os(tmp_path):
    from drivers.scale.hx711_open import boot_config_lines
    from drivers.voice.i2s import alsa_device
    from drivers.voice.i2s import boot_config_lines as audio_boot_lines

    c = load(tmp_path, AMP_AND_SPI0)
    assert boot_config_lines(c["scale"]) == ["dtparam=spi=on"]
    assert audio_boot_lines(c["audio"]) == ["dtoverlay=max98357a"]
    assert audio_boot_lines(load(tmp_path, "")["audio"]) == []
    assert alsa_device(c["audio"]) == "plughw:CARD=MAX98357A"
