"""Deployment on Raspberry Pi OS: the unit runs where lgpio can make its pipes, the installer
brings every GPIO library and sets I2C to 400 kHz atomically, and the HX711 library is one
whose private methods our subclass overrides."""

from __future__ import annotations

import inspect
import os
import re
import tomllib
from importlib.metadata import version

import pytest
from packaging.requirements import Requirement

from firmware_host.cli.install import BAUD_LINE, I2C_LINE, SPI_DROP_IN, SPI_LINE, Installer, boot_config_edit
from tests.cli.test_install import FakeSystem, pi_root
from tests.conftest import ROOT

UNIT = (ROOT / "systemd" / "tablemate.service").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
INSTALL_SH = (ROOT / "systemd" / "install.sh").read_text()


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in UNIT.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.startswith("#"):
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_unit_runs_in_a_folder_it_may_write_and_lgpio_makes_its_pipes_there():
    s = unit_settings()
    assert "ProtectSystem" in s and s["ProtectSystem"] == ["strict"]  # still strict
    (cwd,) = s["WorkingDirectory"]
    # the working directory is one of the folders systemd makes writable for the service
    writable = {f"/run/{d}" for d in s.get("RuntimeDirectory", [])} | {
        f"/var/lib/{d}" for d in s.get("StateDirectory", [])
    }
    assert cwd in writable
    # lgpio's C side makes .lgd-nfy* in $LG_WD, its Python side opens them relative to the cwd
    assert f"LG_WD={cwd}" in s["Environment"]


def requirement(extra: str, name: str) -> Requirement:
    for text in PYPROJECT["project"]["optional-dependencies"][extra]:
        req = Requirement(text)
        if req.name.lower() == name.lower():
            return req
    raise AssertionError(f"extra {extra!r} does not name {name}")


def test_the_pi_extra_has_every_gpio_library_the_back_ends_need():
    gpiod = requirement("pi", "gpiod")  # Blinka 10's Pi pins: libgpiod v2 bindings
    assert "2.2" in gpiod.specifier and "1.6.3" not in gpiod.specifier
    assert "10.0.0" in requirement("pi", "Adafruit-Blinka").specifier  # board, digitalio
    assert requirement("pi", "lgpio")  # gpiozero's pin factory on Bookworm and the Pi 5
    for name in ("gpiod", "Adafruit-Blinka", "lgpio"):
        marker = requirement("pi", name).marker
        assert marker is not None and marker.evaluate({"platform_machine": "aarch64"})
        assert not marker.evaluate({"platform_machine": "x86_64"})


def test_install_sh_installs_the_pi_extra_on_every_release():
    installs = [line for line in INSTALL_SH.splitlines() if "pip install" in line and "$SRC" in line]
    assert installs and all('"$SRC[pi]"' in line for line in installs)
    assert "python3-lgpio" in INSTALL_SH


def test_pyproject_no_longer_says_rpi_lgpio_serves_blinka():
    text = (ROOT / "pyproject.toml").read_text()
    assert "rpi-lgpio" not in text or "Blinka" not in text.split("rpi-lgpio")[1][:120]


def test_dry_run_plan_turns_i2c_on_at_400_khz_and_install_does_it_once(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    plan = Installer(ROOT, root, system, dry_run=True).install()
    assert "set the I2C bus to 400 kHz in /boot/firmware/config.txt" in plan
    assert "enable I2C in /boot/firmware/config.txt" in plan
    assert (root / "boot/firmware/config.txt").read_text() == "[all]\ndtparam=audio=on\n"  # dry: untouched
    Installer(ROOT, root, system).install()
    assert BAUD_LINE in (root / "boot/firmware/config.txt").read_text().splitlines()
    assert Installer(ROOT, root, system, dry_run=True).install() == []


def test_a_slower_baudrate_is_raised_in_place_and_a_combined_line_is_understood():
    text, changes = boot_config_edit("dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=100000\n")
    assert text == "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"
    assert changes == ["set the I2C bus to 400 kHz (was 100 kHz)"]
    text, changes = boot_config_edit("dtparam=i2c_arm=on,i2c_arm_baudrate=100000\n")
    assert text == "dtparam=i2c_arm=on,i2c_arm_baudrate=400000\n" and len(changes) == 1
    assert boot_config_edit("dtparam=audio=on\n#dtparam=i2c_arm_baudrate=10000\n")[0].endswith(
        "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"
    )


def test_lines_are_not_appended_inside_a_model_filter():
    # Bookworm's config.txt has [cm4], [cm5] and [pi4] sections: a line after [cm5] is ignored on
    # every other Pi
    text, _ = boot_config_edit("[cm5]\ndtoverlay=dwc2,dr_mode=host\n")
    assert text == "[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"


# -- SPI for a panel on SPI (the 3.12" SSD1322, or another with interface = "spi") ---------------------
def spi_pi(tmp_path, config: str):
    """A Pi whose /etc/tablemate/config.toml is ``config`` (the installer keeps an existing one)."""
    root = pi_root(tmp_path)
    (root / "etc/tablemate").mkdir(parents=True)
    (root / "etc/tablemate/config.toml").write_text(config)
    return root


def test_an_spi_panel_gets_spi_turned_on_and_the_service_its_group_once(tmp_path):
    root, system = spi_pi(tmp_path, '[display]\nkind = "ssd1322"\n'), FakeSystem()
    plan = Installer(ROOT, root, system, dry_run=True).install()
    assert "enable SPI in /boot/firmware/config.txt" in plan and "enable I2C in /boot/firmware/config.txt" in plan
    assert "add tablemate to spi" in plan and f"write /{SPI_DROP_IN}" in plan
    assert SPI_LINE not in (root / "boot/firmware/config.txt").read_text()  # dry: untouched
    Installer(ROOT, root, system).install()
    boot = (root / "boot/firmware/config.txt").read_text().splitlines()
    assert boot[:2] == ["[all]", "dtparam=audio=on"] and SPI_LINE in boot and "dtparam=i2c_arm=on" in boot
    assert "spi" in system.users["tablemate"] and "spi" in system.groups
    assert (root / SPI_DROP_IN).read_text().splitlines()[1:] == ["[Service]", "SupplementaryGroups=spi"]
    assert "systemctl daemon-reload" in system.log
    assert Installer(ROOT, root, system).install() == []


def test_a_panel_on_i2c_leaves_spi_alone(tmp_path):
    scale = '[scale]\ninterface = "gpio"\n'  # the default scale is on SPI1 (tests/cli/test_install_scale_spi.py)
    for config in (
        '[display]\nkind = "ssd1309"\n' + scale,
        scale,
        '[display]\nkind = "sim"\n' + scale,
        "[display\nbroken",
    ):
        root, system = spi_pi(tmp_path / str(len(config)), config), FakeSystem()
        done = Installer(ROOT, root, system).install()
        assert not any("SPI" in step or "spi" in step for step in done), config
        assert SPI_LINE not in (root / "boot/firmware/config.txt").read_text()
        assert not (root / SPI_DROP_IN).exists() and "spi" not in system.users["tablemate"]


def test_any_panel_wired_for_spi_turns_spi_on_and_uninstall_takes_the_drop_in_away(tmp_path):
    root, system = spi_pi(tmp_path, '[display]\nkind = "sh1107"\ninterface = "spi"\n'), FakeSystem()
    Installer(ROOT, root, system).install()
    assert SPI_LINE in (root / "boot/firmware/config.txt").read_text().splitlines()
    Installer(ROOT, root, system).uninstall()
    assert not (root / SPI_DROP_IN).exists() and not (root / SPI_DROP_IN).parent.exists()


def test_spi_turned_off_is_turned_on_in_place_and_a_combined_line_is_understood():
    text, changes = boot_config_edit("dtparam=i2c_arm=on,i2c_arm_baudrate=400000\ndtparam=spi=off\n", spi=True)
    assert text == "dtparam=i2c_arm=on,i2c_arm_baudrate=400000\ndtparam=spi=on\n"
    assert changes == ["enable SPI (was off)"]
    assert boot_config_edit("dtparam=i2c_arm=on,spi=on,i2c_arm_baudrate=400000\n", spi=True)[1] == []
    appended = "[all]\n" + "\n".join((I2C_LINE, BAUD_LINE, SPI_LINE)) + "\n"
    assert boot_config_edit("[pi4]\narm_boost=1\n", spi=True)[0].endswith(appended)  # never under [pi4]
    assert boot_config_edit("dtparam=i2c_arm=on,i2c_arm_baudrate=400000\ndtparam=spi=off\n")[1] == []  # not asked


def test_boot_config_is_replaced_atomically_so_a_failure_leaves_the_old_one(tmp_path, monkeypatch):
    root, system = pi_root(tmp_path), FakeSystem()
    boot = root / "boot/firmware/config.txt"
    before = boot.read_text()

    def power_cut(src, dst):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError):
        Installer(ROOT, root, system).install()
    assert boot.read_text() == before  # never half-written
    assert sorted(p.name for p in boot.parent.iterdir()) == ["config.txt"]  # no temp file left


# -- the HX711 library whose private methods we override -------------------------------------------
def test_installed_hx711_library_is_in_the_pinned_range():
    (text,) = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("adafruit-circuitpython-hx711")]
    spec = Requirement(text).specifier
    assert spec.contains(version("adafruit-circuitpython-hx711")), f"installed outside {spec}"
    assert not spec.contains("1.2.0") and not spec.contains("1.0.8")  # a range read, not open-ended


def test_the_private_names_our_subclass_relies_on_are_still_there():
    from drivers.scale.hx711 import HX711, adafruit

    base = adafruit.HX711
    for name in ("_initialize", "_read_channel_raw"):  # overridden by drivers/scale/hx711.py
        assert callable(getattr(base, name, None)), f"adafruit's HX711 has no {name} to override"
        assert getattr(HX711, name) is not getattr(base, name)
    assert callable(getattr(base, "_read_channel", None))  # called by our read()
    # and the library still reaches them the way our fixes assume
    init, read_channel = inspect.getsource(base.__init__), inspect.getsource(base._read_channel)
    assert "self._initialize()" in init
    assert re.search(r"self\._data_pin\s*=", init) and re.search(r"self\._clock_pin\s*=", init)
    assert "self._read_channel_raw(" in read_channel
