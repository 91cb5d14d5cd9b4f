"""The installer sets the Pi up for the HX711 on SPI1: its overlay in config.txt for every board,
the reboot that needs, and the service in the ``spi`` group."""

from __future__ import annotations

import pytest

from firmware_host.cli.install import SPI_DROP_IN_TEXT, Installer, boot_config_edit, scale_boot_lines
from firmware_host.core.boot_config import BOARDS, overlays
from firmware_host.core.config import load
from firmware_host.core.pi_layout import REBOOT_MARKER, SPI_DROP_IN
from tests.cli.test_install import FakeSystem, pi_root
from tests.conftest import ROOT

OVERLAY = "dtoverlay=spi1-1cs"
BOOKWORM_TAIL = "[cm4]\notg_mode=1\n\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n\n[all]\n"
I2C_DONE = "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n"


def with_scale(root, scale: str) -> None:
    """An installed configuration whose [scale] section is ``scale``."""
    (root / "etc/tablemate").mkdir(parents=True)
    (root / "etc/tablemate/config.toml").write_text(f"[scale]\n{scale}\n")


def test_the_default_scale_gets_spi1s_overlay_the_spi_group_and_a_reboot_once(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    installer = Installer(ROOT, root, system)
    done = installer.install()
    boot = (root / "boot/firmware/config.txt").read_text()
    assert boot.endswith(f"{I2C_DONE}{OVERLAY}\n")  # after the dtparams: they stay the base tree's
    assert "dtparam=spi=on" not in boot  # SPI0 stays as it was: it is the panel's
    assert f"add {OVERLAY} in /boot/firmware/config.txt" in done
    assert all("spi1-1cs" in overlays(boot, board) for board in BOARDS)
    assert "spi" in system.users["tablemate"] and "create group spi" in done
    assert (root / SPI_DROP_IN).read_text() == SPI_DROP_IN_TEXT
    assert f"add {OVERLAY}" in installer.notes()[0] and f"add {OVERLAY}" in (root / REBOOT_MARKER).read_text()
    again = Installer(ROOT, root, system)
    assert again.install() == [] and again.notes() == []
    assert (root / "boot/firmware/config.txt").read_text().count("spi1-1cs") == 1


def test_a_scale_on_gpio_or_none_leaves_spi_alone(tmp_path):
    for n, scale in enumerate(('interface = "gpio"\ndata = 19\nclock = 20', 'backend = "none"')):
        root, system = pi_root(tmp_path / str(n)), FakeSystem()
        with_scale(root, scale)
        load(root / "etc/tablemate/config.toml")  # a usable configuration, not one read as none
        done = Installer(ROOT, root, system).install()
        assert "spi1" not in (root / "boot/firmware/config.txt").read_text()
        assert "spi" not in system.users["tablemate"] and not (root / SPI_DROP_IN).exists(), done


def test_a_broken_config_asks_for_no_overlay():
    assert scale_boot_lines(ROOT / "hardware/config.toml") == [OVERLAY]
    assert scale_boot_lines(ROOT / "no-such-config.toml") == []


@pytest.mark.parametrize(
    ("boot", "added"),
    [
        (f"{I2C_DONE}{OVERLAY}\n", False),  # there
        (f"{I2C_DONE}{OVERLAY},cs0_pin=18 # mine\n", False),  # there, with a parameter of its own
        (f"{I2C_DONE}{OVERLAY}.dtbo\n", False),
        (f"{I2C_DONE}#{OVERLAY}\n", True),  # a comment
        (f"{I2C_DONE}[pi4]\n{OVERLAY}\n", True),  # a Pi 5 would not load it
        (f"{I2C_DONE}[EDID=DEL-U2422H]\n{OVERLAY}\n", True),  # only with that monitor
        (f"{I2C_DONE}[none]\n{OVERLAY}\n", True),
        (f"{I2C_DONE}dtoverlay=spi1-2cs\n", True),  # another overlay
    ],
)
def test_the_overlay_counts_only_where_every_board_loads_it(boot, added):
    edited, changes = boot_config_edit(boot, overlays=[OVERLAY])
    assert changes == ([f"add {OVERLAY}"] if added else [])
    if added:
        assert edited.startswith(boot) and edited.endswith(f"{OVERLAY}\n")
        assert all("spi1-1cs" in overlays(edited, board, u) for board in BOARDS for u in (False, True))
        assert boot_config_edit(edited, overlays=[OVERLAY])[1] == []  # and only once
    else:
        assert edited == boot


def test_bookworms_own_config_gets_the_overlay_after_all_with_the_i2c_lines():
    text = "dtparam=audio=on\ndtoverlay=vc4-kms-v3d\n" + BOOKWORM_TAIL
    edited, changes = boot_config_edit(text, overlays=[OVERLAY])
    assert edited == text + f"{I2C_DONE}{OVERLAY}\n"
    assert changes == ["enable I2C", "set the I2C bus to 400 kHz", f"add {OVERLAY}"]
    # a file ending inside a filter gets an [all] before the overlay
    edited, _ = boot_config_edit(f"{I2C_DONE}[cm5]\notg_mode=1\n", overlays=[OVERLAY])
    assert edited.endswith(f"[cm5]\notg_mode=1\n[all]\n{OVERLAY}\n")
