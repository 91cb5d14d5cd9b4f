"""The scale service serves any engine that declares scale use: here a test game, not Tonne."""

from __future__ import annotations

from typing import Any

import pytest

from firmware_host.runtime.device import Device
from firmware_host.sim.script import ScriptRunner
from games import ENGINES, scale_kinds
from tests.runtime.test_tonne_device import run_device

SETTLE = 4.0
CALIBRATION = {"counts_per_gram": 420.0, "offset": 84000, "noise": 150, "pieces": {"block": 10.0}, "weight_grams": 100}


@pytest.fixture
def weigh_game(monkeypatch):
    monkeypatch.setitem(ENGINES, "weigh", "tests.scale_game")


def run(state, body) -> None:
    run_device(state, body, calibration=CALIBRATION)


def test_a_game_declaring_scale_use_gets_its_own_actions_from_the_scale(tmp_path, weigh_game):
    seen: dict[str, Any] = {}

    async def body(device: Device, run: ScriptRunner) -> None:
        await run.start("weigh", ("Ann", "Ben"))
        await run.wait(SETTLE)
        await run.grams(20.0)  # two blocks
        await run.wait(SETTLE)
        seen["two"] = [dict(a) for a in device.session.actions]
        await run.grams(-15.0)  # a fall: this game gives it no action
        await run.wait(SETTLE)
        seen["after_fall"] = len(device.session.actions)
        await run.grams(30.0)  # three blocks, but Ann owes one: one is counted
        await run.wait(SETTLE)
        seen["actions"] = [dict(a) for a in device.session.actions]
        seen["turn"] = device.session.summary["turn"]

    run(tmp_path, body)
    assert seen["two"] == [{"type": "drop", "n": 2}]
    assert seen["after_fall"] == 1
    assert seen["actions"] == [{"type": "drop", "n": 2}, {"type": "drop", "n": 1}]
    assert seen["turn"] == "Ben"


def test_the_calibration_asks_for_the_pieces_of_every_game_that_weighs_them(weigh_game):
    kinds = scale_kinds()
    assert kinds["block"] == "wooden block"
    assert {"milk", "can", "bottle", "apple"} <= set(kinds)  # Tonne's, declared by its engine
