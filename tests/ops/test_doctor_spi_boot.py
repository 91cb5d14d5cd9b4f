"""The doctor's reboot check knows the HX711's boot line: ``dtoverlay=spi1-1cs`` in config.txt (as
the firmware reads it for this board) against the running kernel's ``/dev/spidev1.0``."""

from __future__ import annotations

from firmware_host.cli.install import Installer
from firmware_host.core.config import defaults, parse
from firmware_host.core.pi_layout import REBOOT_MARKER
from firmware_host.ops.doctor import check_reboot, run_checks
from tests.cli.test_install import FakeSystem
from tests.conftest import ROOT
from tests.ops.test_doctor import by_part, fake_pi

I2C = "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"


def reboot_result(tmp_path, boot: str, *, node: bool = False, sys_node: bool = False, config=None):
    system = fake_pi(tmp_path)
    (system.root / "boot/firmware/config.txt").write_text(boot)
    if not node:
        (system.root / "dev/spidev1.0").unlink()
    if sys_node:
        (system.root / "sys/class/spidev/spidev1.0").mkdir(parents=True)
    return check_reboot(config or defaults(), system)


def test_the_overlay_in_config_txt_without_spidev1_asks_for_a_reboot(tmp_path):
    result = reboot_result(tmp_path, I2C + "dtoverlay=spi1-1cs\n")
    assert result.failed and result.fix == "sudo reboot"
    assert "dtoverlay=spi1-1cs (no /dev/spidev1.0 for the HX711)" in result.found and "Pi 4B" in result.found


def test_the_kernels_spidev1_in_sys_is_the_overlay_in_force(tmp_path):
    assert reboot_result(tmp_path, I2C + "dtoverlay=spi1-1cs\n", sys_node=True).status == "ok"
    assert reboot_result(tmp_path / "b", I2C + "dtoverlay=spi1-1cs,cs0_pin=18\n", node=True).status == "ok"


def test_no_overlay_in_config_txt_names_the_installer_even_with_spidev1_there(tmp_path):
    # a /dev/spidev1.0 from `sudo dtoverlay spi1-1cs` by hand is gone after the next reboot
    for n, boot in enumerate((I2C, I2C + "#dtoverlay=spi1-1cs\n", I2C + "[cm5]\ndtoverlay=spi1-1cs\n")):
        result = reboot_result(tmp_path / str(n), boot, node=True)
        assert result.failed and "dtoverlay=spi1-1cs" in result.found and "Pi 4B" in result.found, boot
        assert "install.sh" in result.fix and "reboot" in result.fix


def test_a_scale_on_gpio_or_simulated_needs_no_overlay(tmp_path):
    for n, scale in enumerate(({"interface": "gpio", "data": 19, "clock": 20}, {"backend": "sim"})):
        config = parse({"scale": scale}, "config.toml")
        assert reboot_result(tmp_path / str(n), I2C, config=config).status == "ok"


def test_installer_then_doctor_then_reboot(tmp_path):
    # the Pi as it comes: no overlay, no /dev/spidev1.0
    system = fake_pi(tmp_path)
    (system.root / "boot/firmware/config.txt").write_text("[all]\ndtparam=audio=on\n" + I2C)
    (system.root / "dev/spidev1.0").unlink()
    assert "install.sh" in by_part(run_checks(defaults(), system))["reboot"].fix
    installer = Installer(ROOT, system.root, FakeSystem())
    installer.install()
    assert "add dtoverlay=spi1-1cs" in installer.notes()[0]
    waiting = by_part(run_checks(defaults(), system))["reboot"]
    assert waiting.failed and "add dtoverlay=spi1-1cs" in waiting.found and waiting.fix == "sudo reboot"
    (system.root / REBOOT_MARKER).unlink()  # /run is emptied by the reboot...
    assert "no /dev/spidev1.0" in by_part(run_checks(defaults(), system))["reboot"].found  # ...not rebooted yet
    (system.root / "dev/spidev1.0").write_bytes(b"")  # the kernel made it at boot
    assert by_part(run_checks(defaults(), system))["reboot"].status == "ok"
