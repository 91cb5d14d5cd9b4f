"""A board that is not a Pi (QEMU's virt board with its PL061 chip, another single-board computer):
``[gpio] revision`` names the Pi header its chip follows, the config checks it, and the doctor
names the key and the file when it is missing."""

from __future__ import annotations

import dataclasses

import pytest
from gpiozero import DigitalInputDevice
from gpiozero.exc import PinUnknownPi
from gpiozero.pins.local import LocalPiFactory

from firmware_host.core.config import ConfigError, defaults, parse
from firmware_host.ops.doctor import run_checks
from tests.ops.test_doctor import by_part, fake_pi

gpiod = pytest.importorskip("gpiod")


@pytest.fixture
def not_a_pi(monkeypatch):
    """This machine as a board with a GPIO chip and no Pi revision, as gpiozero reports it."""

    def no_revision(self):
        raise PinUnknownPi("unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo")

    monkeypatch.setattr(LocalPiFactory, "_get_revision", no_revision)


def test_the_revision_key_takes_a_known_code_and_names_key_and_file_otherwise():
    assert defaults()["gpio"]["revision"] == "auto"
    assert parse({"gpio": {"revision": "0xA02082"}}, "/etc/tablemate/config.toml")["gpio"]["revision"] == "a02082"
    for bad in ("pi3", 3, "123"):
        with pytest.raises(ConfigError) as err:
            parse({"gpio": {"revision": bad}}, "/etc/tablemate/config.toml")
        assert str(err.value).startswith("/etc/tablemate/config.toml: [gpio] revision: expected ")
        assert "a02082" in str(err.value)


def test_buttons_open_on_a_chip_with_no_pi_revision_once_the_revision_is_given(not_a_pi):
    from drivers.gpio import board_revision
    from drivers.gpio.gpiod_pins import GpiodFactory
    from tests.gpiod_chip import StandInChip

    bare = GpiodFactory(StandInChip())
    with pytest.raises(PinUnknownPi):
        DigitalInputDevice(5, pull_up=True, pin_factory=bare)
    bare.close()
    chip = StandInChip()
    factory = GpiodFactory(chip, revision=board_revision("a02082"))
    button = DigitalInputDevice(5, pull_up=True, pin_factory=factory)
    assert set(chip.requests) == {5} and not button.is_active  # requested, pulled up, not pressed
    button.close()
    factory.close()


def test_the_doctor_names_the_revision_key_and_the_file_on_a_board_with_no_pi_revision(tmp_path, not_a_pi):
    from tests.ops.test_doctor_honest import HeldChip, on_chip

    system = dataclasses.replace(fake_pi(tmp_path), request_lines=on_chip_without_revision(HeldChip()))
    config = parse({}, "/etc/tablemate/config.toml")
    pins = by_part(run_checks(config, system))["pins"]
    assert pins.failed and "Pi revision" in pins.found
    assert "[gpio] revision in /etc/tablemate/config.toml" in pins.fix and "held" not in pins.fix
    given = parse({"gpio": {"revision": "a02082"}}, "/etc/tablemate/config.toml")
    system = dataclasses.replace(system, request_lines=on_chip(HeldChip()))
    assert by_part(run_checks(given, system))["pins"].status == "ok"


def on_chip_without_revision(chip):
    """The doctor's line requests on the libgpiod factory over ``chip``, revision as configured."""
    from drivers.gpio import board_revision
    from drivers.gpio.gpiod_pins import GpiodFactory
    from firmware_host.ops.doctor import request_with

    def request(lines, debounce, revision="auto"):
        factory = GpiodFactory(chip, revision=board_revision(revision))
        try:
            return request_with(factory, lines, debounce)
        finally:
            factory.close()

    return request


def test_the_backends_line_never_gives_an_empty_reason(tmp_path):
    def blinka_on_a_board_it_does_not_know():
        raise NotImplementedError("\n        Blinka does not know this board: generic_linux\n")

    system = dataclasses.replace(fake_pi(tmp_path), blinka_pins=blinka_on_a_board_it_does_not_know)
    backends = by_part(run_checks(defaults(), system))["backends"]
    assert backends.failed and "Blinka: Blinka does not know this board" in backends.found
    assert 'backend = "none"' in backends.fix and "install.sh" not in backends.fix
