"""Running a whole Device on simulated hardware and virtual time, for tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.runtime.vtime import run_virtual
from firmware_host.ui.render import to_text


def run_device(
    state_dir: Path,
    body: Callable[[Device], Awaitable[Any]],
    config: configuration.Config | None = None,
    seed: int | None = 1,
    parts: Sequence[tuple[str, Any]] = (),
) -> Any:
    """Start a simulated device (with ``parts`` added to its own), run ``body(device)``, stop
    it as SIGTERM would."""

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        device = Device(
            (config or configuration.defaults()).with_sim(),
            Store(state_dir),
            seed=seed,
            wall=lambda: 1_700_000_000 + loop.time(),
            extra=parts,
        )
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        try:
            return await body(device)
        finally:
            device.stop()
            await task

    return run_virtual(main)


def run_device_in_real_time(state_dir: Path, body: Callable[[Device], Awaitable[Any]], timeout: float = 120.0) -> Any:
    """:func:`run_device` on a real event loop: the device's writer thread, its default pool and
    the processes it starts are the ones it has in service."""

    async def main() -> Any:
        device = Device(configuration.defaults().with_sim(), Store(state_dir), seed=1)
        task = asyncio.create_task(device.run())
        await asyncio.wait_for(device.ready.wait(), timeout)
        try:
            return await asyncio.wait_for(body(device), timeout)
        finally:
            device.stop()
            await task

    return asyncio.run(main())


async def press(device: Device, button: str, long: bool = False) -> None:
    """A press as a finger makes it: down, held, up."""
    device.hw.buttons.press(button)
    await asyncio.sleep(1.0 if long else 0.1)
    device.hw.buttons.release(button)
    await asyncio.sleep(0.05)


async def presses(device: Device, *buttons: str) -> None:
    """Several presses; a trailing ``!`` on a name makes that press long."""
    for b in buttons:
        await press(device, b.rstrip("!"), b.endswith("!"))


async def screen(device: Device) -> str:
    """The text rows of the frame showing now (from the frame model, not pixels)."""
    await device.door.flush()
    frame = device.door.frame()
    rows = [frame.title + ("  " + frame.title_right if frame.title_right else "")]
    rows += [" | ".join(r.cells) + ("  " + r.right if r.right else "") for r in frame.rows]
    return "\n".join(rows)


def pixels(device: Device) -> str:
    """The picture on the simulated panel as # and . text."""
    return to_text(device.door.display.shown)


async def choose_game(device: Device, title: str) -> None:
    """From the main menu: New game, then walk the game list to ``title`` and pick it."""
    await presses(device, "ok")
    for _ in range(10):
        if device.door.screens[-1].items()[device.door.screens[-1].index].label == title:
            break
        await presses(device, "next")
    await presses(device, "ok")
