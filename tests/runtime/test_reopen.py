"""Parts that fail to open at boot come back by themselves: the scale retried with backoff."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from drivers.backoff import Backoff
from drivers.scale.hx711 import HX711Unavailable
from drivers.scale.reopen import ReopeningScale
from drivers.scale.sim import SimScale
from firmware_host.core.config import defaults
from firmware_host.runtime import hardware
from firmware_host.runtime.vtime import run_virtual


def test_backoff_doubles_up_to_its_limit_and_starts_over_after_a_success():
    backoff = Backoff(1.0, 5.0)
    assert [backoff.next() for _ in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    backoff.reset()
    assert backoff.next() == 1.0
    with pytest.raises(ValueError):
        Backoff(0.0, 1.0)


def test_a_scale_whose_lines_are_busy_at_boot_is_opened_later_and_its_samples_come(monkeypatch):
    # The HX711's lines are still held by another process when the service starts: the device
    # notes it, goes on without readings, and the scale is read as soon as the lines are free.
    busy_until = 10.0
    attempts: list[float] = []

    async def main() -> tuple[list[str], list[float], list[str], int, float]:
        loop = asyncio.get_running_loop()

        def open_hx711_spi(sps: int, gain: int, stamps: Any, bus: int = 1) -> SimScale:  # the default path: SPI1
            attempts.append(loop.time())
            if loop.time() < busy_until:
                raise HX711Unavailable("/dev/spidev1.0: [Errno 16] Device or resource busy")
            return SimScale(loop.call_later, loop.time, sps, gain=gain)

        monkeypatch.setattr("drivers.scale.hx711_spi.open_hx711_spi", open_hx711_spi)
        config = defaults()
        config.sections["scale"]["backend"] = "hx711"
        problems: list[str] = []
        scale = hardware._scale(config, loop.time, loop.call_later, problems, retry=True)
        assert isinstance(scale, ReopeningScale) and scale.scale is None
        faults: list[str] = []
        samples: list[float] = []
        scale.start(lambda t, raw: samples.append(t), faults.append)
        await asyncio.sleep(30.0)
        scale.close()
        count = len(samples)
        await asyncio.sleep(10.0)  # closed: no more samples, no more attempts
        return [str(p) for p in problems], attempts[:], faults, count - len(samples), min(samples)

    problems, tried, faults, after_close, first_sample = run_virtual(main)
    assert problems == ["scale: /dev/spidev1.0: [Errno 16] Device or resource busy"]
    assert tried == [0.0, 1.0, 3.0, 7.0, 15.0]  # backoff 1, 2, 4, 8 s; open at the fifth
    assert faults and all(f.startswith("not open: /dev/spidev1.0") for f in faults)
    assert 15.0 <= first_sample < 16.0 and after_close == 0


def test_a_stopped_scale_that_opens_late_stays_powered_down_until_wanted():
    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        tries = [0]

        def opener() -> SimScale:
            tries[0] += 1
            if tries[0] == 1:
                raise OSError(13, "Permission denied")
            return SimScale(loop.call_later, loop.time, 10)

        samples: list[float] = []
        scale = ReopeningScale(opener, 10, loop.call_later)
        scale.start(lambda t, raw: samples.append(t), lambda reason: None)
        scale.stop()
        await asyncio.sleep(5.0)
        idle = len(samples)
        scale.start(lambda t, raw: samples.append(t), lambda reason: None)
        await asyncio.sleep(2.0)
        scale.close()
        return idle, len(samples)

    idle, later = run_virtual(main)
    assert idle == 0 and later > 0
