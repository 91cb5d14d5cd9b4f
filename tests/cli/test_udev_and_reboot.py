"""The udev rule (the tower's stable name, the buses' groups) and the reboot the installer asks for."""

from __future__ import annotations

import re
import shlex

from firmware_host.cli.install import Installer
from firmware_host.core.config import defaults
from firmware_host.core.pi_layout import (
    DEBIAN_REBOOT_MARKER,
    REBOOT_MARKER,
    SERVICE_GROUPS,
    SPI_GROUP,
    TOWER_LINK,
    TOWER_USB_IDS,
    UDEV_RULES,
)
from tests.cli.test_install import FakeSystem, pi_root
from tests.conftest import ROOT

RULES = ROOT / "systemd" / "60-tablemate.rules"
_KEY = re.compile(r'^(?P<key>[A-Z_]+)(\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"$')


def rules() -> list[dict[str, tuple[str, str]]]:
    """Each rule as ``{KEY or KEY{attr}: (operator, value)}``, parsed as udev reads the file."""
    parsed = []
    for line in RULES.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rule = {}
        for item in shlex.split(line.replace(",", " "), posix=False):
            match = _KEY.match(item)
            assert match, f"not a udev key: {item!r} in {line!r}"
            name = match["key"] + (f"{{{match['attr']}}}" if match["attr"] else "")
            rule[name] = (match["op"], match["value"])
        parsed.append(rule)
    return parsed


def test_the_tower_gets_its_stable_name_by_its_usb_ids_from_every_chip_the_docs_name():
    towers = [r for r in rules() if r.get("SUBSYSTEM") == ("==", "tty")]
    ids = {(r["ATTRS{idVendor}"][1], r["ATTRS{idProduct}"][1]) for r in towers}
    assert ids == set(TOWER_USB_IDS) == {("1a86", "7523"), ("10c4", "ea60")}  # CH340, CP210x
    for rule in towers:
        assert rule["ATTRS{idVendor}"][0] == rule["ATTRS{idProduct}"][0] == "=="  # matched, not assigned
        assert rule["SYMLINK"] == ("+=", TOWER_LINK.removeprefix("/dev/"))  # added to, never replacing
        assert rule["GROUP"] == ("=", "dialout") and rule["MODE"] == ("=", "0660")
    assert "CH340" in (ROOT / "hardware/bom.md").read_text()  # the chip the bill of materials names
    assert defaults()["tower"]["port"] == TOWER_LINK


def test_the_pins_and_buses_go_to_the_groups_the_unit_gives_the_service():
    by_subsystem = {r["SUBSYSTEM"][1]: r for r in rules() if r["SUBSYSTEM"][1] != "tty"}
    assert by_subsystem["gpio"]["KERNEL"] == ("==", "gpiochip*") and by_subsystem["gpio"]["GROUP"][1] == "gpio"
    assert by_subsystem["*gpiomem*"]["GROUP"][1] == "gpio"
    assert by_subsystem["i2c-dev"]["GROUP"][1] == "i2c" and by_subsystem["spidev"]["GROUP"][1] == SPI_GROUP
    for rule in by_subsystem.values():
        assert rule["MODE"] == ("=", "0660") and rule["GROUP"][1] in (*SERVICE_GROUPS, SPI_GROUP)
    unit = (ROOT / "systemd/tablemate.service").read_text()
    assert "SupplementaryGroups=gpio i2c dialout audio" in unit


def test_the_installer_lays_the_rule_down_once_tells_udev_and_uninstall_takes_it_away(tmp_path):
    root, system = pi_root(tmp_path), FakeSystem()
    done = Installer(ROOT, root, system).install()
    assert f"write /{UDEV_RULES}" in done
    assert (root / UDEV_RULES).read_bytes() == RULES.read_bytes()
    assert "udevadm control --reload" in system.log
    assert any(cmd.startswith("udevadm trigger") and "--subsystem-match=tty" in cmd for cmd in system.log)
    system.log.clear()
    assert Installer(ROOT, root, system).install() == [] and not any("udevadm" in c for c in system.log)
    Installer(ROOT, root, system).uninstall()
    assert not (root / UDEV_RULES).exists()


def test_the_installer_says_a_reboot_is_needed_and_leaves_word_for_the_doctor(tmp_path, cli):
    root = pi_root(tmp_path)
    installer = Installer(ROOT, root, FakeSystem())
    installer.install()
    assert installer.notes() == [
        "the Pi needs a reboot for the boot config's change to work "
        "(enable I2C; set the I2C bus to 400 kHz; add dtoverlay=spi1-1cs): sudo reboot"
    ]
    assert (root / REBOOT_MARKER).read_text() == "enable I2C\nset the I2C bus to 400 kHz\nadd dtoverlay=spi1-1cs\n"
    assert (root / DEBIAN_REBOOT_MARKER).exists()
    # run again before rebooting: nothing to change, nothing new to say, the word stays for the doctor
    again = Installer(ROOT, root, FakeSystem())
    again.install()
    assert again.notes() == [] and (root / REBOOT_MARKER).exists()
    # the command line says it too, and a dry run says it would
    fresh = pi_root(tmp_path / "fresh")
    result = cli("install", "--root", fresh, "--source", ROOT, "--dry-run")
    assert "the Pi would need a reboot" in result.out and not (fresh / REBOOT_MARKER).exists()


def test_the_default_port_falls_back_to_ttyusb0_where_the_rule_did_not_name_the_tower(monkeypatch):
    from drivers.tower import usb

    opened = []
    monkeypatch.setattr(usb.serial, "serial_for_url", lambda port, **kw: opened.append(port))
    monkeypatch.setattr(usb.os.path, "exists", lambda path: False)  # no rule: a laptop, another chip
    usb.open_port(TOWER_LINK)
    monkeypatch.setattr(usb.os.path, "exists", lambda path: path == TOWER_LINK)
    usb.open_port(TOWER_LINK)
    usb.open_port("/dev/ttyACM0")  # a port the config names is opened as named
    assert opened == ["/dev/ttyUSB0", TOWER_LINK, "/dev/ttyACM0"]
