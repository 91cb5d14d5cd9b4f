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
