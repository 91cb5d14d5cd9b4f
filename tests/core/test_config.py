"""Configuration: every problem is one line naming the file, the key and the expected form."""

from __future__ import annotations

import pytest

from firmware_host.core import config as configuration
from firmware_host.core.config import ConfigError


def load(tmp_path, text: str) -> configuration.Config:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return configuration.load(path)


def test_the_shipped_default_config_loads_and_matches_the_defaults(tmp_path):
    from pathlib import Path

    shipped = configuration.load(Path(__file__).resolve().parents[2] / "hardware" / "config.toml")
    assert shipped.sections == configuration.defaults().sections


def test_values_override_defaults(tmp_path):
    c = load(tmp_path, '[display]\nkind = "sh1106"\naddress = 0x3D\n[table]\nnames = { p1 = "Ann", p2 = "Ben" }\n')
    assert c["display"]["kind"] == "sh1106" and c["display"]["address"] == 0x3D
    assert c.seat_name("p1") == "Ann" and c.seat_name("p3") == "P3"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[display]\nadress = 0x3C\n", "[display] unknown key 'adress'"),
        ("[dispaly]\nkind = 'sim'\n", "unknown section [dispaly]"),
        ("[display]\nkind = 'oled'\n", '[display] kind: expected one of "ssd1306"'),
        ("[display]\naddress = 300\n", "[display] address: expected an I2C address"),
        ("[display]\nrotation = 45\n", "[display] rotation: expected 0, 90, 180 or 270"),
        ("[buttons]\np1 = 40\n", "[buttons] p1: expected a BCM GPIO number"),
        ("[buttons]\np1 = 6\n", "[buttons] p1 and [buttons] p2 both use GPIO 6"),
        ("[buttons]\nok = 2\n", "I2C bus"),
        ("[scale]\nsps = 20\n", "[scale] sps: expected 10 or 80"),
        ("[table]\nseats = ['p1', 'p9']\n", "[table] seats: expected a list of different seats"),
        ("[table]\nnames = { p1 = 'Al', p2 = 'Al' }\n", "[table] names: expected different names"),
        ("[games.chess]\nfoo = 1\n", "[games.chess] unknown game"),
        ("[games.bomb]\nwhite_die = []\n", "[games.bomb] unknown option 'white_die' (known: red, white)"),
        ("[display\nkind = 1\n", "invalid TOML"),
        ("[tower]\nsound = 'yes'\n", "[tower] sound: expected true or false"),
    ],
)
def test_each_mistake_names_file_and_key(tmp_path, text, needle):
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert needle in message
    assert str(tmp_path / "config.toml") in message
    assert "\n" not in message


def test_a_broken_config_exits_2_with_one_line_and_no_traceback(cli, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[display]\nkind = 'oled'\n")
    for command in (["run", "--sim"], ["sim", "--script", str(tmp_path / "none.txt")]):
        result = cli(*command, "--config", path, "--state-dir", tmp_path / "state")
        assert result.status == 2
        assert result.err.count("\n") == 1 and "Traceback" not in result.err
        assert "[display] kind" in result.err and str(path) in result.err


def test_missing_config_file_is_named(cli, tmp_path):
    result = cli("run", "--sim", "--config", tmp_path / "nope.toml", "--state-dir", tmp_path)
    assert result.status == 2 and "nope.toml" in result.err


def test_a_broken_config_is_shown_on_the_oled_of_the_device(cli, tmp_path, monkeypatch):
    """`tablemate run` (not --sim) draws the error on the configured panel, which keeps it."""
    from luma.core.device import dummy

    import drivers.display

    panels = []

    def fake_open(kind, port, address, rotation, serial_interface=None, size=(128, 64)):
        panels.append((kind, address))
        panels.append(dummy(width=128, height=64, mode="1"))
        return panels[-1]

    monkeypatch.setattr(drivers.display, "open_display", fake_open)
    path = tmp_path / "config.toml"
    path.write_text("[display]\nkind = 'sh1106'\naddress = 0x3D\n[buttons]\nokk = 3\n")
    result = cli("run", "--config", path, "--state-dir", tmp_path / "state")
    assert result.status == 2 and "[buttons] unknown key 'okk'" in result.err
    assert panels[0] == ("sh1106", 0x3D)  # the panel the file names, though the file is broken
    assert panels[1].image is not None and panels[1].image.getbbox() is not None  # something drawn
