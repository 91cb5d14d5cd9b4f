"""The doctor's "ok" means the service would work: every false "ok" of issue 20 is a failure here.

Each check runs on a fake Pi's ``/dev``, ``/sys``, ``/proc`` and ``/boot`` (``tests/ops/test_doctor.py``'s
``fake_pi``); the pins are requested on the libgpiod pin factory over a stand-in chip, and the SPI
panel is opened through luma itself.
"""

from __future__ import annotations

import dataclasses
import errno
from types import SimpleNamespace

import pytest

from firmware_host.core.config import BUTTONS, defaults, parse
from firmware_host.core.pi_layout import OLD_TOWER_PORT, REBOOT_MARKER, TOWER_LINK, UDEV_RULES
from firmware_host.ops.doctor import configured_lines, probes, request_with, run_checks
from tests.ops.test_doctor import by_part, fake_pi, spi_config, spi_pi

gpiod = pytest.importorskip("gpiod")
PI_4B = 0xC03111


class HeldChip:
    """A stand-in chip (``tests/gpiod_chip.py``) on which ``held`` lines belong to ``holder``,
    as ``gpioinfo`` would show them, or are refused with ``refuse`` (an errno)."""

    def __new__(cls, held=(), holder="w1-gpio", refuse=errno.EBUSY):
        from tests.gpiod_chip import StandInChip

        chip = StandInChip()
        request_lines = chip.request_lines

        def request(config, consumer=None, **kw):
            if refuse != errno.EBUSY and set(config) & set(held):
                raise PermissionError(refuse, "Permission denied")
            return request_lines(config, consumer=consumer, **kw)

        for pin in held:
            request_lines({pin: None}, consumer=holder)
        chip.request_lines = request
        chip.get_line_info = lambda pin: SimpleNamespace(consumer=holder if pin in held else None)
        return chip


def on_chip(chip):
    """The doctor's line requests, made on the libgpiod pin factory over ``chip``."""
    from drivers.gpio.gpiod_pins import GpiodFactory

    def request(lines, debounce, revision="auto"):
        factory = GpiodFactory(chip, revision=PI_4B if revision == "auto" else int(revision, 16))
        try:
            return request_with(factory, lines, debounce)
        finally:
            factory.close()

    return request


def pins_result(tmp_path, chip, config=None):
    system = dataclasses.replace(fake_pi(tmp_path), request_lines=on_chip(chip))
    return by_part(run_checks(config or defaults(), system))


# -- the button lines: requested as the service requests them ---------------------------------------
def test_every_button_line_is_requested_with_its_pull_up_and_released(tmp_path):
    chip = HeldChip()
    seen = []
    request_lines = chip.request_lines
    chip.request_lines = lambda config, consumer=None, **kw: seen.append(config) or request_lines(config, consumer)
    result = pins_result(tmp_path, chip)["pins"]
    assert result.status == "ok" and "10 lines" in result.found
    pins = {defaults()["buttons"][b] for b in BUTTONS}
    assert {offset for config in seen for offset in config} == pins
    pulled = {o for c in seen for o, s in c.items() if s.bias == gpiod.line.Bias.PULL_UP}
    assert pulled == pins  # a button reads its pull-up, as in the service
    assert chip.requests == {}  # all released: the service can start after the doctor


def test_a_button_line_another_driver_holds_fails_where_the_old_doctor_said_ok(tmp_path):
    # bug (issue 20): the doctor never requested the button lines; a pin held by an overlay or
    # another program passed, and the service then lost all ten buttons
    parts = pins_result(tmp_path, HeldChip(held=(16,), holder="w1-gpio"))
    assert parts["gpio"].status == "ok"  # /dev/gpiochip* is there and the group may use it...
    result = parts["pins"]
    assert result.failed and "GPIO 16 (button next): busy, held by w1-gpio" in result.found
    assert "gpioinfo" in result.fix


def test_a_line_the_running_service_holds_is_skipped_not_failed(tmp_path):
    result = pins_result(tmp_path, HeldChip(held=(5, 6), holder="tablemate"))["pins"]
    assert result.status == "skip" and "systemctl stop tablemate" in result.found


def test_a_line_refused_for_permission_gets_a_fix_that_survives_a_reboot(tmp_path):
    result = pins_result(tmp_path, HeldChip(held=(5,), refuse=errno.EACCES))["pins"]
    assert result.failed and "GPIO 5 (button p1)" in result.found
    assert UDEV_RULES in result.fix and "usermod -aG gpio" in result.fix and "chgrp" not in result.fix


def test_the_gpio_tower_lines_are_requested_as_outputs_at_their_idle_low(tmp_path):
    config = parse({"tower": {"backend": "gpio", "bar": [7, 8]}}, "config.toml")
    roles = {line.pin: line.role for line in configured_lines(config)}
    assert roles[17] == "tower red" and roles[23] == "tower buzzer" and roles[8] == "tower bar 2"
    chip = HeldChip()
    assert pins_result(tmp_path, chip, config)["pins"].status == "ok"
    assert not any(chip.levels.get(pin) for pin in (17, 27, 22, 23, 7, 8))  # never driven high: no chirp


# -- the panel on its real bus -----------------------------------------------------------------------
def test_an_spi_panel_that_cannot_open_fails_where_the_old_doctor_said_ok(tmp_path):
    # bug (issue 20): /dev/spidev0.0 and its group were all the doctor looked at; luma's SPI
    # interface (spidev, RPi.GPIO for DC and RES) then failed in the service, the panel stayed dark.
    # Here the doctor opens the bus through luma itself -- which cannot work on this machine.
    system = dataclasses.replace(spi_pi(tmp_path), open_spi=probes.open_spi)
    result = by_part(run_checks(spi_config(), system))["display"]
    assert result.failed and "does not open" in result.found and "spidev" in result.fix


def test_an_spi_panel_whose_gpio_library_says_unsupported_names_it(tmp_path):
    from luma.core.error import UnsupportedPlatform

    def pi5(config):
        raise UnsupportedPlatform("GPIO access not available")  # luma on a Pi 5 with the old RPi.GPIO

    system = dataclasses.replace(spi_pi(tmp_path), open_spi=pi5)
    result = by_part(run_checks(spi_config(), system))["display"]
    assert result.failed and "UnsupportedPlatform: GPIO access not available" in result.found
    assert "rpi-lgpio" in result.fix


# -- the reboot the boot config needs ---------------------------------------------------------------
def test_the_installers_word_that_a_reboot_is_due_fails_until_the_reboot(tmp_path):
    system = fake_pi(tmp_path)
    (system.root / REBOOT_MARKER).parent.mkdir(parents=True, exist_ok=True)
    (system.root / REBOOT_MARKER).write_text("enable I2C\n")
    result = by_part(run_checks(defaults(), system))["reboot"]
    assert result.failed and "enable I2C" in result.found and result.fix == "sudo reboot"


@pytest.mark.parametrize(
    ("boot", "says"),
    [
        ("dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n", "I2C at 400 kHz (runs at 100 kHz)"),
        ("dtparam=i2c_arm=on,i2c_arm_baudrate=100000\ndtparam=spi=on\n", "SPI on"),
    ],
)
def test_a_boot_config_the_running_kernel_does_not_have_yet_asks_for_a_reboot(tmp_path, boot, says):
    system = fake_pi(tmp_path, hz=100_000)
    (system.root / "boot/firmware/config.txt").write_text(boot + "dtoverlay=spi1-1cs\n")  # the scale's
    result = by_part(run_checks(defaults(), system))["reboot"]
    assert result.failed and says in result.found and "Pi 4B" in result.found and result.fix == "sudo reboot"


def test_i2c_on_only_for_a_cm5_is_not_taken_as_a_pending_reboot_on_a_pi_4(tmp_path):
    system = fake_pi(tmp_path)
    (system.root / "boot/firmware/config.txt").write_text("dtoverlay=spi1-1cs\n[cm5]\ndtparam=i2c_arm=on\n")
    assert by_part(run_checks(defaults(), system))["reboot"].status == "ok"
    assert by_part(run_checks(defaults(), fake_pi(tmp_path / "b")))["reboot"].status == "ok"


# -- the tower by its stable name --------------------------------------------------------------------
def test_a_tower_without_the_udev_rule_fails_with_the_installer_as_fix(tmp_path):
    system = fake_pi(tmp_path)
    (system.root / "dev/tablemate-tower").unlink()
    (system.root / UDEV_RULES).unlink()
    result = by_part(run_checks(defaults(), system))["tower"]
    assert result.failed and f"no {TOWER_LINK}" in result.found and "install.sh" in result.fix


def test_a_tower_of_another_chip_works_at_its_old_name_and_is_told_how_to_pin_it(tmp_path):
    system = fake_pi(tmp_path)
    (system.root / "dev/tablemate-tower").unlink()
    result = by_part(run_checks(defaults(), system))["tower"]
    assert result.status == "ok" and OLD_TOWER_PORT in result.found and "/dev/serial/by-id/" in result.found


def test_an_existing_config_naming_ttyusb0_keeps_working_and_is_pointed_at_the_stable_name(tmp_path):
    config = parse({"tower": {"port": OLD_TOWER_PORT}}, "config.toml")
    result = by_part(run_checks(config, fake_pi(tmp_path)))["tower"]
    assert result.status == "ok" and f'port = "{TOWER_LINK}"' in result.found


# -- no fix the next reboot undoes -------------------------------------------------------------------
def test_no_fix_is_a_chgrp_or_chmod_that_a_reboot_undoes(tmp_path):
    breakages = [
        lambda root: [(root / "dev" / n).chmod(0o600) for n in ("gpiochip0", "gpiochip4", "i2c-1", "ttyUSB0")],
        lambda root: (root / "dev/i2c-1").unlink(),
        lambda root: (root / "etc/systemd/system/tablemate.service").unlink(),
    ]
    fixes = []
    for n, breakage in enumerate(breakages):
        system = fake_pi(tmp_path / str(n))
        breakage(system.root)
        fixes += [r.fix for r in run_checks(defaults(), system) if r.failed]
    assert len(fixes) >= 4
    assert not [fix for fix in fixes if "chgrp" in fix or "chmod" in fix]
