"""Timer presets in the config file and the settings: checked, with one-line errors."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.tower.gpio import GpioTower
from firmware_host.core.config import ConfigError, parse
from firmware_host.runtime.lights import TIMER, Lights
from firmware_host.timers.clocks import Preset
from firmware_host.timers.presets import PresetError, parse_preset, saved_presets, to_table
from games import ENGINES


def test_a_full_preset_and_the_section_keys():
    config = parse(
        {
            "timers": {
                "sound": "timeout",
                "save_every": 10,
                "arschbombe": {"mode": "bank", "seconds": 300, "increment": 5, "warn": 30, "phase": 0},
            }
        },
        "config.toml",
    )
    assert config["timers"] == {"sound": "timeout", "save_every": 10.0}
    assert config.timers["arschbombe"] == Preset("bank", 300.0, 5.0, 0.0, "soft", 30.0, 0.0)
    assert config.with_sim().timers == config.timers


def test_every_game_is_off_by_default_and_modes_bring_their_own_time():
    assert parse({}, "c").timers == {}
    assert parse_preset("bomb", {"mode": "bank"}).seconds == 600
    assert parse_preset("bomb", {"mode": "countup"}).seconds == 0
    assert parse_preset("bomb", {"warn": "12.5%", "mode": "turn"}).warn == "12.5%"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"arschbombe": {"mode": "sand"}},
            'mode: expected one of "off", "turn", "hourglass", "bank", "countup", got \'sand\'',
        ),
        (
            {"arschbombe": {"mode": "turn", "seconds": 0}},
            "seconds: expected a number of seconds from 1 to 86400, got 0",
        ),
        (
            {"arschbombe": {"mode": "turn", "increment": 5}},
            'increment: expected 0 unless mode = "bank" (mode is "turn"), got 5',
        ),
        ({"arschbombe": {"timeout": "fatal"}}, 'timeout: expected "soft" or "hard", got \'fatal\''),
        (
            {"arschbombe": {"timeout": "hard"}},
            "timeout: expected \"soft\" (Arschbombe gives running out of time no consequence), got 'hard'",
        ),
        (
            {"arschbombe": {"warn": "120%"}},
            "warn: expected seconds left like 10, or a share of the time like \"20%\", got '120%'",
        ),
        ({"arschbombe": {"phase": -1}}, "phase: expected a number of seconds from 0 to 3600 (0: untimed), got -1"),
        ({"arschbombe": {"seconds": True}}, "seconds: expected a number of seconds from 1 to 86400, got True"),
        (
            {"arschbombe": {"bonus": 3}},
            "unknown key 'bonus' (known: mode, seconds, increment, delay, timeout, warn, phase)",
        ),
    ],
)
def test_bad_presets_name_file_table_key_and_form(table, message):
    with pytest.raises(ConfigError) as err:
        parse({"timers": table}, "/etc/tablemate/config.toml")
    assert str(err.value) == f"/etc/tablemate/config.toml: [timers.arschbombe] {message}"
    assert "\n" not in str(err.value)


def test_unknown_games_and_bad_section_keys():
    with pytest.raises(ConfigError, match=r"^c.toml: \[timers.chess\] unknown game \(known: tonne, bomb"):
        parse({"timers": {"chess": {"mode": "bank"}}}, "c.toml")
    with pytest.raises(ConfigError, match=r"^c.toml: \[timers\] sound: expected one of \"all\", \"timeout\", \"off\""):
        parse({"timers": {"sound": "loud"}}, "c.toml")
    with pytest.raises(ConfigError, match=r"^c.toml: \[timers\] save_every: expected a number of seconds from 1 to 60"):
        parse({"timers": {"save_every": 0.5}}, "c.toml")


def test_hard_mode_is_open_to_games_with_a_timeout_rule(monkeypatch):
    monkeypatch.setitem(ENGINES, "tick", "tests.timer_game")
    assert parse_preset("tick", {"mode": "turn", "timeout": "hard"}).timeout == "hard"
    with pytest.raises(PresetError, match="Bomb gives running out of time no consequence"):
        parse_preset("bomb", {"mode": "turn", "timeout": "hard"})


def test_saved_presets_round_trip_and_a_bad_one_is_skipped():
    preset = Preset("bank", 120.0, 0.0, 3.0, "soft", "30%", 15.0)
    assert parse_preset("arschbombe", to_table(preset)) == preset
    saved = saved_presets({"timers": {"arschbombe": to_table(preset), "bomb": {"mode": "nope"}}})
    assert saved == {"arschbombe": preset}


def test_the_gpio_led_bar_shows_the_time_left():
    async def main() -> list[int]:
        tower = GpioTower(17, 27, 22, 18, bar=[5, 6, 13, 19, 26], pin_factory=MockFactory())
        lights = Lights(tower)
        lit = []
        for fraction in (1.0, 0.6, 0.2, 0.0):
            lights.set_timer(TIMER["running"].with_(bar=fraction))
            lit.append(sum(1 for led in tower._bar if led.value))
        lights.close()
        return lit

    import asyncio

    assert asyncio.run(main()) == [5, 3, 1, 0]


def test_use_config_file_keeps_the_clocks_when_the_preset_does_not_change(tmp_path):
    import asyncio

    from firmware_host.core.config import parse
    from tests.devicekit import run_device

    config = parse({"timers": {"arschbombe": {"mode": "bank", "seconds": 300}}}, "t.toml")

    async def body(dev):
        dev.start_named("arschbombe", ["Ann", "Ben"])
        await asyncio.sleep(100)
        dev.timers.forget_preset("arschbombe")  # Settings > Turn timer > Use config file: no change
        await asyncio.sleep(0)
        return dev.timers.clocks.remaining()

    assert run_device(tmp_path, body, config) <= 200_000 + 10  # Ann's 100 s stay spent
