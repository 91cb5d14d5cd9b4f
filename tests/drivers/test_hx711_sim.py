"""The simulator's scale: the fixed adafruit driver reading the simulated chip on the loop's timer."""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from drivers.scale.sim import SimScale
from firmware_host.core import config as configuration
from firmware_host.core.config import defaults
from firmware_host.core.store import Store
from firmware_host.sim.script import parse, run_script


def record(virtual: Callable[..., Any], script: Callable[[SimScale], Any], sps: int = 10, **kw: Any) -> dict:
    """Run ``script(scale)`` (a coroutine) against a started SimScale on virtual time."""

    async def main() -> dict:
        loop = asyncio.get_running_loop()
        scale = SimScale(loop.call_later, loop.time, sps=sps, **kw)
        out: dict = {"samples": [], "faults": [], "scale": scale}
        scale.start(lambda t, raw: out["samples"].append((t, raw)), lambda r: out["faults"].append((loop.time(), r)))
        await script(scale)
        scale.close()
        scale.close()
        return out

    return virtual(main)


def mean_between(samples: list[tuple[float, int]], a: float, b: float) -> float:
    return statistics.mean(raw for t, raw in samples if a <= t < b)


def test_grams_steps_show_in_the_counts(virtual: Callable[..., Any]) -> None:
    async def script(scale: SimScale) -> None:
        await asyncio.sleep(2)
        scale.grams += 10
        await asyncio.sleep(2)
        scale.grams -= 30
        await asyncio.sleep(2)

    out = record(virtual, script)
    s = out["samples"]
    assert mean_between(s, 0, 2) == pytest.approx(84_000, abs=100)
    assert mean_between(s, 2.2, 4) == pytest.approx(84_000 + 4_200, abs=100)
    assert mean_between(s, 4.2, 6) == pytest.approx(84_000 - 8_400, abs=100)
    assert out["scale"].hx.stats.reads == len(s) + out["scale"].hx.stats.settling
    assert out["faults"] == []


@pytest.mark.parametrize("sps", [10, 80])
def test_samples_at_the_chips_rate(virtual: Callable[..., Any], sps: int) -> None:
    async def script(scale: SimScale) -> None:
        await asyncio.sleep(10)

    out = record(virtual, script, sps=sps)
    assert len(out["samples"]) == pytest.approx(10 * sps - 5, abs=2)


def test_same_seed_same_samples(virtual: Callable[..., Any]) -> None:
    async def script(scale: SimScale) -> None:
        await asyncio.sleep(3)

    assert record(virtual, script)["samples"] == record(virtual, script)["samples"]


def test_failed_scale_gives_no_data_within_a_second_and_recovers(virtual: Callable[..., Any]) -> None:
    async def script(scale: SimScale) -> None:
        await asyncio.sleep(2)
        scale.failed = True
        assert scale.failed
        await asyncio.sleep(3)
        scale.failed = False
        await asyncio.sleep(2)

    out = record(virtual, script)
    assert [r for _, r in out["faults"]] == ["no data"]
    assert 2.0 < out["faults"][0][0] < 3.0
    assert out["samples"][-1][0] > 6.0


def test_chip_faults_reach_the_simulator(virtual: Callable[..., Any]) -> None:
    async def script(scale: SimScale) -> None:
        await asyncio.sleep(1)
        scale.chip.glitch(-1)
        scale.chip.slow_pulse(100e-6)
        await asyncio.sleep(2)
        scale.chip.dout_stuck = "low"
        await asyncio.sleep(2)

    out = record(virtual, script)
    assert -1 not in [raw for _, raw in out["samples"]]
    assert out["scale"].hx.stats.slow == 1
    assert [r for _, r in out["faults"]] == ["stuck at 0"]


def test_sim_script_grams_reach_the_device(tmp_path: Path) -> None:
    commands = parse("start tonne Ann Ben\nwait 2\ngrams 25\nwait 2\n")
    device = run_script(defaults(), Store(tmp_path / "state"), commands, None)
    assert device.scale.raw == pytest.approx(84_000 + 25 * 420, abs=800)
    assert device.scale.fault is None


def test_the_scale_sleeps_in_the_menu_and_wakes_for_a_tonne_game(tmp_path: Path) -> None:
    device = run_script(defaults(), Store(tmp_path / "state"), parse("wait 5\ngrams 25\nwait 2\n"), None)
    assert device.scale.raw is None and not device.scale.reading  # nothing read in the menu
    device.hw.scale.vclock.advance(1e-3)
    # on SPI (the default) PD_SCK cannot be held high between transfers: the chip keeps converting,
    # unread; on the GPIO path PD_SCK is held high and the chip powers down
    assert device.hw.scale.chip.powered and device.hw.scale.chip.spi_bytes > 0
    gpio = configuration.parse({"scale": {"interface": "gpio"}}, "c.toml")
    device = run_script(gpio, Store(tmp_path / "s1"), parse("wait 5\ngrams 25\nwait 2\n"), None)
    device.hw.scale.vclock.advance(1e-3)
    assert not device.hw.scale.chip.powered
    device = run_script(defaults(), Store(tmp_path / "s2"), parse("start tonne Ann Ben\nwait 2\n"), None)
    assert device.scale.reading and device.scale.raw is not None
