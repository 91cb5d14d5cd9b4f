"""``tablemate doctor``: each part checked as the service sees it, on a fake Pi's /dev and /sys."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from firmware_host.cli import install
from firmware_host.core.config import defaults, parse
from firmware_host.ops.doctor import CHECKS, System, run_checks, selftest_lines
from firmware_host.ops.scale_check import WordReport
from tests.conftest import ROOT

PI_GROUPS = {"tablemate", "gpio", "i2c", "dialout", "audio"}


def fake_pi(tmp_path: Path, *, hz: int = 400_000, dout: str = "low") -> System:
    """A Pi as the installer leaves it: device nodes owned by the service's groups, I2C at ``hz``,
    SPI1's overlay for the HX711 in force (``/dev/spidev1.0``)."""
    root = tmp_path / "pi"
    for node in ("dev/gpiochip0", "dev/gpiochip4", "dev/i2c-1", "dev/ttyUSB0", "dev/spidev1.0"):
        path = root / node
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        path.chmod(0o660)
    node = root / "sys/class/i2c-dev/i2c-1/device/of_node"
    node.mkdir(parents=True)
    (node / "clock-frequency").write_bytes(hz.to_bytes(4, "big"))  # device-tree cells are big-endian
    (root / "dev/tablemate-tower").symlink_to("ttyUSB0")  # the udev rule's name for the tower
    for relative, data in (
        ("boot/firmware/config.txt", b"dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\ndtoverlay=spi1-1cs\n"),
        ("proc/device-tree/system/linux,revision", (0xC03111).to_bytes(4, "big")),  # a Pi 4B
        ("etc/udev/rules.d/60-tablemate.rules", (ROOT / "systemd/60-tablemate.rules").read_bytes()),
    ):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    unit = root / "etc/systemd/system/tablemate.service"
    unit.parent.mkdir(parents=True, exist_ok=True)
    unit.write_bytes((ROOT / "systemd/tablemate.service").read_bytes())
    state = tmp_path / "state"
    state.mkdir()
    return System(
        root=root,
        state_dir=state,
        user_groups=lambda user: PI_GROUPS if user == "tablemate" else None,
        group_name=lambda gid: "gpio",
        i2c_answers=lambda port, address: (port, address) == (1, 0x3C),
        hx711_words=lambda s, seconds: WordReport(
            seconds, busy=dout == "busy", words=0 if dout == "high" else 30, samples=26
        ),
        gpiozero_factory=lambda: "LGPIOFactory",
        blinka_pins=lambda: "RASPBERRY_PI_4B via adafruit_blinka.microcontroller.generic_linux.raspberry_pi_pin",
        request_lines=lambda lines, debounce, revision="auto": {},
        open_spi=lambda config: None,
        fsync_ms=lambda folder: 4.0,
        disk_free=lambda folder: 8_000_000_000,
    )


def by_part(results):
    return {r.part: r for r in results}


def test_a_pi_set_up_by_the_installer_is_all_well(tmp_path):
    results = run_checks(defaults(), fake_pi(tmp_path))
    statuses = {r.part: r.status for r in results}
    assert statuses.pop("voice") == "skip"  # off by default
    assert list(statuses.values()) == ["ok"] * (len(CHECKS) - 1), [r.line() for r in results]
    parts = by_part(results)
    assert "at 400 kHz" in parts["i2c speed"].found
    assert "LGPIOFactory" in parts["backends"].found and "raspberry_pi_pin" in parts["backends"].found


@pytest.mark.parametrize(
    ("breakage", "part", "says", "fix"),
    [
        (lambda root: (root / "dev/i2c-1").unlink(), "display", "no /dev/i2c-1", "then reboot"),
        (lambda root: [p.unlink() for p in (root / "dev").glob("gpiochip*")], "gpio", "no /dev/gpiochip", "on the Pi"),
        (
            lambda root: [(root / "dev" / n).unlink() for n in ("tablemate-tower", "ttyUSB0")],
            "tower",
            "no /dev/tablemate-tower",
            "/dev/serial/by-id/",
        ),
        (lambda root: (root / "dev/i2c-1").chmod(0o600), "display", "mode 600", "usermod -aG i2c"),
        (
            lambda root: (root / "etc/systemd/system/tablemate.service").write_text("[Service]\nExecStart=/bin/true\n"),
            "service",
            "LG_WD",
            "install.sh",
        ),
    ],
)
def test_each_missing_part_is_named_with_its_fix(tmp_path, breakage, part, says, fix):
    system = fake_pi(tmp_path)
    breakage(system.root)
    results = by_part(run_checks(defaults(), system))
    assert results[part].failed and says in results[part].found and fix in results[part].fix
    assert [r.part for r in results.values() if r.failed] == [part]


def test_the_default_100_khz_bus_fails_with_the_dtparam_fix(tmp_path):
    result = by_part(run_checks(defaults(), fake_pi(tmp_path, hz=100_000)))["i2c speed"]
    assert result.failed and "100 kHz" in result.found and "i2c_arm_baudrate=400000" in result.fix


def test_an_hx711_whose_dout_never_falls_fails_and_a_pin_the_service_holds_is_skipped(tmp_path):
    dead = by_part(run_checks(defaults(), fake_pi(tmp_path / "a", dout="high")))["scale"]
    assert dead.failed and "never falls" in dead.found and "DOUT and PD_SCK wires" in dead.fix
    busy = by_part(run_checks(defaults(), fake_pi(tmp_path / "b", dout="busy")))["scale"]
    assert busy.status == "skip" and not busy.failed


def test_user_outside_a_group_gets_the_usermod_line(tmp_path):
    system = fake_pi(tmp_path)
    system.user_groups = lambda user: {"tablemate", "gpio"}
    result = by_part(run_checks(defaults(), system))["user"]
    assert result.failed and result.fix == "sudo usermod -aG i2c,dialout,audio tablemate"


def test_a_missing_gpio_library_names_the_pi_extra(tmp_path):
    system = fake_pi(tmp_path)

    def no_gpiod():
        raise ModuleNotFoundError("No module named 'gpiod'")

    system.blinka_pins = no_gpiod
    result = by_part(run_checks(defaults(), system))["backends"]
    assert result.failed and "gpiod" in result.found and "pi extra" in result.fix


def test_slow_or_full_state_folder_fails(tmp_path):
    system = fake_pi(tmp_path)
    system.fsync_ms = lambda folder: 250.0
    assert "faster SD card" in by_part(run_checks(defaults(), system))["state"].fix
    system.fsync_ms, system.disk_free = (lambda folder: 3.0), (lambda folder: 10_000_000)
    assert "10 MB free" in by_part(run_checks(defaults(), system))["state"].found


def test_simulated_parts_are_not_checked(tmp_path):
    results = run_checks(defaults().with_sim(), fake_pi(tmp_path))
    skipped = {r.part for r in results if r.status == "skip"}
    assert {"display", "i2c speed", "tower", "scale", "backends"} <= skipped


def test_selftest_lines_put_failures_first_and_fit_the_panel(tmp_path):
    system = fake_pi(tmp_path)
    (system.root / "dev/tablemate-tower").unlink()
    (system.root / "dev/ttyUSB0").unlink()
    system.i2c_answers = None  # the running device holds the bus
    lines = selftest_lines(defaults(), system)
    assert lines[0] == "tower FAIL" and all(len(line) <= 21 for line in lines)
    assert "scale ok" not in lines and "display ok" not in lines


def test_doctor_runs_here_and_names_every_missing_part_with_its_fix(cli, tmp_path):
    result = cli("doctor", "--state-dir", tmp_path)
    lines = result.out.splitlines()
    assert len(lines) == len(CHECKS) + 1 and result.err == ""
    failing = [line for line in lines[:-1] if " FAIL " in line]
    assert all(" -- fix: " in line for line in failing)
    assert result.status == (1 if failing else 0)
    if not Path("/dev/gpiochip0").exists() and os.name == "posix":  # this machine: no Pi
        assert result.status == 1 and lines[-1].endswith("to fix")


def test_the_self_test_shows_the_doctors_checks_on_its_second_page(tmp_path, monkeypatch):
    import asyncio
    import pwd

    def no_such_user(name):
        raise KeyError(name)

    # the same on every machine: one where tablemate is installed (a Pi) has the user
    monkeypatch.setattr(pwd, "getpwnam", no_such_user)

    from firmware_host.ui.menus import SelfTest
    from tests.devicekit import presses, run_device, screen

    async def body(dev):
        dev.door.push(SelfTest(dev.door))
        first = await screen(dev)
        await presses(dev, "next!")  # hold next: the second page
        for _ in range(200):  # the checks run off the loop (they fsync in the state folder)
            text = await screen(dev)
            if "checking" not in text:
                break
            await asyncio.sleep(0.05)
        await presses(dev, "next")  # the lines that did not fit
        more = await screen(dev)
        await presses(dev, "next!")  # and back to the live parts
        return first, text, more, await screen(dev)

    first, checks, more, back = run_device(tmp_path, body)
    assert "1/2" in first and "Tower" in first
    assert "Checks 1-5/" in checks and "user FAIL" in checks  # failures first, each part a line
    assert "Checks 6-" in more and "state ok" in more  # this device's own state folder
    assert "1/2" in back


# -- the bigger panels: any panel on I2C is checked on its bus, a panel on SPI by its spidev node ------
def spi_pi(tmp_path: Path, *, node: bool = True, drop_in: bool = True) -> System:
    """A Pi the installer set up for an SPI panel: /dev/spidev0.0 of group spi, the user in spi
    and the unit's drop-in giving the service that group."""
    system = fake_pi(tmp_path)
    if node:
        (system.root / "dev/spidev0.0").write_bytes(b"")
        (system.root / "dev/spidev0.0").chmod(0o660)
    if drop_in:
        (system.root / install.SPI_DROP_IN).parent.mkdir(parents=True)
        (system.root / install.SPI_DROP_IN).write_text(install.SPI_DROP_IN_TEXT)
    return dataclasses.replace(
        system,
        user_groups=lambda user: PI_GROUPS | {"spi"} if user == "tablemate" else None,
        group_name=lambda gid: "spi",
    )


def spi_config():
    return parse({"display": {"kind": "ssd1322"}}, "config.toml")


def test_an_spi_panel_set_up_by_the_installer_is_well(tmp_path):
    parts = by_part(run_checks(spi_config(), spi_pi(tmp_path)))
    assert parts["display"].status == "ok" and "ssd1322 opens on /dev/spidev0.0" in parts["display"].found
    assert parts["i2c speed"].status == "skip"


def test_an_spi_panel_without_spi_on_or_its_group_is_named_with_the_fix(tmp_path):
    missing = by_part(run_checks(spi_config(), spi_pi(tmp_path / "a", node=False)))["display"]
    assert missing.failed and "no /dev/spidev0.0" in missing.found and "then reboot" in missing.fix
    no_group = by_part(run_checks(spi_config(), spi_pi(tmp_path / "b", drop_in=False)))["display"]
    assert no_group.failed and "group spi" in no_group.found and "install.sh" in no_group.fix


def test_a_bigger_panel_on_i2c_is_checked_on_the_i2c_bus(tmp_path):
    config = parse({"display": {"kind": "ssd1309"}}, "config.toml")
    parts = by_part(run_checks(config, fake_pi(tmp_path)))
    assert parts["display"].status == "ok" and "ssd1309 answers at 0x3C" in parts["display"].found
    assert parts["i2c speed"].status == "ok"


# -- the voice's speaker ------------------------------------------------------------------------------
def voice_pi(tmp_path: Path, cards: str = "", programs: tuple[str, ...] = ("espeak-ng", "aplay")) -> System:
    system = fake_pi(tmp_path)
    for program in programs:
        (system.root / "usr/bin").mkdir(parents=True, exist_ok=True)
        (system.root / "usr/bin" / program).write_bytes(b"")
    (system.root / "proc/asound").mkdir(parents=True, exist_ok=True)
    (system.root / "proc/asound/cards").write_text(cards, encoding="utf-8")
    return system


USB_CARD = " 0 [Device         ]: USB-Audio - USB Audio Device\n                      GeneralPlus USB Audio Device\n"
AMP_CARD = " 0 [MAX98357A      ]: simple-card - MAX98357A\n                      MAX98357A\n"
VOICE_ON = {"voice": {"enabled": True, "device": "plughw:CARD=Device"}}
AMPLIFIED = {
    "voice": {"enabled": True},
    "audio": {"amplifier": "max98357a"},
    "scale": {"spi_bus": 0, "data": 9, "clock": 10},
}


def test_a_usb_speaker_the_service_may_use_is_well(tmp_path):
    result = by_part(run_checks(parse(VOICE_ON, "config.toml"), voice_pi(tmp_path, USB_CARD)))["voice"]
    assert result.status == "ok" and "Device" in result.found and "plughw:CARD=Device" in result.found


@pytest.mark.parametrize(
    ("config", "cards", "programs", "says", "fix"),
    [
        (VOICE_ON, USB_CARD, ("aplay",), "espeak-ng not installed", "apt install espeak-ng alsa-utils"),
        (VOICE_ON, "--- no soundcards ---\n", ("espeak-ng", "aplay"), "no sound card", "USB speaker"),
        (AMPLIFIED, USB_CARD, ("espeak-ng", "aplay"), "no MAX98357A sound card (cards: Device)", "tablemate-max98357a"),
    ],
)
def test_a_voice_that_cannot_speak_is_named_with_its_fix(tmp_path, config, cards, programs, says, fix):
    result = by_part(run_checks(parse(config, "config.toml"), voice_pi(tmp_path, cards, programs)))["voice"]
    assert result.failed and says in result.found and fix in result.fix


def test_the_amplifiers_card_and_the_audio_group(tmp_path):
    system = voice_pi(tmp_path, AMP_CARD)
    assert by_part(run_checks(parse(AMPLIFIED, "config.toml"), system))["voice"].status == "ok"
    system = dataclasses.replace(system, user_groups=lambda user: PI_GROUPS - {"audio"})
    result = by_part(run_checks(parse(AMPLIFIED, "config.toml"), system))["voice"]
    assert result.failed and "audio group" in result.found and "usermod -aG audio tablemate" in result.fix
