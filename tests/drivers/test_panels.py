"""Bigger panels: each kind on luma's own driver over a capturing bus, and at its real size."""

from __future__ import annotations

import pytest

from drivers.panels import PANELS, Panel, display_size, open_panel
from firmware_host.core import config as configuration
from firmware_host.ui.panel import to_panel
from firmware_host.ui.render import Frame, Row, render
from tests.devicekit import run_device
from tests.drivers.test_display import CapturingBus


def picture():
    return render(Frame("tablemate", (Row.of("New game", invert=True), Row.of("History"))))


@pytest.mark.parametrize("kind", sorted(PANELS))
def test_each_panel_opens_on_its_luma_driver_and_takes_a_picture_of_its_size(kind):
    panel: Panel = PANELS[kind]
    bus = CapturingBus()
    device = open_panel(panel, serial_interface=bus)
    import luma.oled.device

    assert isinstance(device, getattr(luma.oled.device, panel.driver))
    assert device.size == panel.size and device.mode == "1"
    assert bus.commands  # the driver's own start-up sequence went out
    before = bus.frames
    device.display(to_panel(picture(), device.size))
    assert bus.frames > before  # and the picture followed


@pytest.mark.parametrize("kind", sorted(PANELS))
def test_a_simulated_panel_is_lumas_dummy_at_the_real_size(kind):
    device = open_panel(PANELS[kind], simulate=True)
    assert type(device).__name__ == "dummy" and device.size == PANELS[kind].size
    device.display(to_panel(picture(), device.size))
    assert device.image.getbbox() is not None


def test_the_layout_is_scaled_by_whole_pixels_to_fill_a_bigger_panel():
    small = picture()
    wide = to_panel(small, (256, 64))
    tall = to_panel(small, (128, 128))
    assert wide.size == (256, 64) and tall.size == (128, 128)
    for x, y in [(3, 3), (10, 12), (40, 20)]:
        assert wide.getpixel((2 * x, y)) == wide.getpixel((2 * x + 1, y)) == small.getpixel((x, y))
        assert tall.getpixel((x, 2 * y)) == tall.getpixel((x, 2 * y + 1)) == small.getpixel((x, y))
    assert to_panel(small, (128, 64)) is small


def test_a_turned_panel_swaps_width_and_height():
    assert display_size(PANELS["ssd1322"], 90) == (64, 256)
    assert display_size(PANELS["ssd1322"], 180) == (256, 64)


@pytest.mark.parametrize(("kind", "size"), [("ssd1322", (256, 64)), ("sh1107", (128, 128)), ("ssd1309", (128, 64))])
def test_the_simulated_device_draws_the_configured_panel_at_its_size(tmp_path, kind, size):
    config = configuration.parse({"display": {"kind": kind}}, "config.toml")

    async def body(device):
        await device.flush()
        return device.panel_size, device.display.shown.size, device.display.device.size

    assert run_device(tmp_path, body, config) == (size, size, size)


def test_sim_panel_picks_the_size_of_a_plain_sim_display(tmp_path):
    config = configuration.parse({"display": {"kind": "sim", "sim_panel": "ssd1327"}}, "config.toml")
    assert config.with_sim()["display"]["sim_panel"] == "ssd1327"

    async def body(device):
        await device.flush()
        return device.display.shown.size

    assert run_device(tmp_path, body, config) == (128, 128)


def test_a_panel_without_the_bus_asked_for_is_refused_naming_the_key():
    with pytest.raises(configuration.ConfigError) as err:
        configuration.parse({"display": {"kind": "ssd1322", "interface": "i2c"}}, "/etc/tablemate/config.toml")
    assert "/etc/tablemate/config.toml: [display] interface" in str(err.value) and '"spi"' in str(err.value)


def test_spi_pins_may_not_clash_with_a_button():
    with pytest.raises(configuration.ConfigError) as err:
        configuration.parse({"display": {"kind": "ssd1322", "dc": 12}}, "c.toml")
    assert "[buttons] ok and [display] dc both use GPIO 12" in str(err.value)


def test_the_default_spi_wiring_is_free_of_every_default_pin():
    # the GPIO tower's buzzer (23) is an SPI panel's DC: with both, one of them moves
    tower_gpio = {
        "display": {"kind": "ssd1322"},
        "tower": {"backend": "gpio", "buzzer": 18},
        "scale": {"interface": "gpio"},
    }
    config = configuration.parse(tower_gpio, "c.toml")
    assert config["display"]["dc"] == 23 and config["display"]["reset"] == 15


def test_an_unknown_panel_kind_names_the_kinds():
    with pytest.raises(configuration.ConfigError) as err:
        configuration.parse({"display": {"kind": "ssd1351"}}, "c.toml")
    assert '"ssd1322"' in str(err.value) and "[display] kind" in str(err.value)


def test_a_broken_config_is_drawn_on_a_big_spi_panel_at_its_size(cli, tmp_path, monkeypatch):
    """`tablemate run` with a broken file: the SSD1322 it names shows the error, 256 pixels wide."""
    import drivers.panels

    buses, devices = [], []
    real_open = drivers.panels.open_panel

    def capture(bus, wiring):
        buses.append((bus, wiring.dc, wiring.reset))
        return CapturingBus()

    def open_and_keep(*args, **kwargs):
        devices.append(real_open(*args, **kwargs))
        return devices[-1]

    monkeypatch.setattr(drivers.panels, "_serial", capture)
    monkeypatch.setattr(drivers.panels, "open_panel", open_and_keep)
    path = tmp_path / "config.toml"
    path.write_text("[display]\nkind = 'ssd1322'\ndc = 22\n[buttons]\nokk = 3\n")
    result = cli("run", "--config", path, "--state-dir", tmp_path / "state")
    assert result.status == 2 and "[buttons] unknown key 'okk'" in result.err
    assert buses == [("spi", 22, 15)]  # the bus and pins the file names, though the file is broken
    assert devices[0].size == (256, 64) and type(devices[0]).__name__ == "ssd1322"


def test_a_rotation_that_makes_a_portrait_too_narrow_for_the_screens_is_refused():
    """Before, rotation = 90 on a 128×64 panel stopped the display with an assertion in luma."""
    with pytest.raises(configuration.ConfigError) as err:
        configuration.parse({"display": {"rotation": 90}}, "c.toml")
    assert str(err.value).startswith("c.toml: [display] rotation: 90 turns the 128×64 panel into a 64×128")
    square = configuration.parse({"display": {"kind": "sh1107", "rotation": 270}}, "c.toml")
    assert square["display"]["rotation"] == 270


def test_a_square_panel_turned_a_quarter_draws_at_its_size(tmp_path):
    config = configuration.parse({"display": {"kind": "ssd1327", "rotation": 90}}, "config.toml")

    async def body(device):
        await device.flush()
        return device.display.status, device.display.shown.size

    assert run_device(tmp_path, body, config) == ("ok", (128, 128))


@pytest.mark.parametrize(("kind", "full"), [("ssd1309", 1024), ("sh1107", 2048), ("ssd1327", 8192), ("ssd1322", 8192)])
def test_what_a_whole_new_picture_costs_on_the_wire(kind, full):
    """hardware/wiring.md's figures: the greyscale panels send 4 bits a pixel even in mode "1"."""
    from PIL import Image

    bus = CapturingBus()
    device = open_panel(PANELS[kind], serial_interface=bus)
    bus.sent.clear()
    device.display(Image.new("1", device.size, 1))
    pixels = sum(len(d) for d in bus.sent if isinstance(d, bytes))
    assert full <= pixels <= full + 16  # the SSD1322 sends its window addresses as data too


def test_an_spi_panels_libraries_are_in_the_pi_extra_and_the_installer_takes_spidev_from_apt():
    # luma.core's SPI interface needs its `gpio` (DC and RES) and `spi` extras; nothing named them,
    # so on a Pi 5 the system's RPi.GPIO raised, luma said UnsupportedPlatform and the panel stayed dark
    import tomllib
    from importlib.metadata import requires
    from pathlib import Path

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[2]
    pi = [
        Requirement(r)
        for r in tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]
    ]
    ours = {r.name.lower(): r for r in pi}
    luma_wants = [Requirement(r) for r in requires("luma.core") or []]
    for extra in ("gpio", "spi"):
        names = [
            r.name.lower()
            for r in luma_wants
            if r.marker and r.marker.evaluate({"extra": extra, "platform_system": "Linux"})
        ]
        assert names, extra
        for name in names:
            assert name in ours, name
            marker = ours[name].marker
            assert marker is not None and marker.evaluate({"platform_machine": "aarch64"})
            assert not marker.evaluate({"platform_machine": "x86_64"})  # never on a laptop
    assert "3.6" in ours["spidev"].specifier  # Debian bookworm's python3-spidev satisfies it
    assert "python3-spidev" in (root / "systemd/install.sh").read_text()
