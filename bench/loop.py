"""``tablemate bench journal --slow-fsync MS``: how long the loop is blocked per journaled action.

Runs the device on simulated hardware and a real event loop, with every ``fsync`` of the state
folder slowed to ``MS`` milliseconds (an SD card on a bad day), and plays journaled actions
through :meth:`Device.apply` — whole Arschbombe games, so starts, ends and filing are in it too.
A heartbeat task asks the loop for a 1 ms sleep over and over; how late it wakes is how long the
loop was blocked (by anything: the journal, drawing frames, other processes on a busy machine —
an idle run first gives that floor). The time the loop spends in the action path itself
(``Device.apply``, starting a game, and showing an action once it is durable) is timed apart.
The same run is made twice: with the journal on its writer thread (how the device runs) and
inline on the loop (how it ran before), so the difference is what the writer thread buys.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_host.core import fsio
from firmware_host.core.writer import Writer
from games.workloads import PLAIN


async def _play(folder: Path, count: int, threaded: bool) -> dict[str, Any]:
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device

    loop = asyncio.get_running_loop()
    device = Device(configuration.defaults().with_sim(), Store(folder), seed=1)
    task = asyncio.create_task(device.run())
    await device.ready.wait()
    if not threaded:  # the way it was: every write inline on the loop
        device.store.writer.close()
        device.store.writer = Writer()
    stalls: list[float] = []
    beating = True
    on_loop: list[float] = []
    """Seconds the loop spent in the action path itself (apply, and showing it once durable)."""

    def timed(fn: Any) -> Any:
        def call(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args)
            finally:
                on_loop.append(time.perf_counter() - start)

        return call

    device.apply = timed(device.apply)
    device.start_named = timed(device.start_named)
    device.saving._written = timed(device.saving._written)  # type: ignore[method-assign]

    async def heartbeat() -> None:
        while beating:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            stalls.append(max(0.0, time.perf_counter() - start - 0.001))

    beat = loop.create_task(heartbeat())
    durable: list[float] = []
    if count == 0:  # the floor: the same loop, idle, for a second
        await asyncio.sleep(1.0)
        durable.append(0.0)
        on_loop.append(0.0)
    for i in range(count):
        if device.session is None:
            device.start_named(PLAIN.game, list(PLAIN.players))
            await _settled(device)
        sent = time.perf_counter()
        device.apply(PLAIN.actions[i % len(PLAIN.actions)])  # a game is exactly its actions
        await _settled(device)
        durable.append(time.perf_counter() - sent)
        await asyncio.sleep(0.02)
    beating = False
    await beat
    device.stop()
    await task
    stalls.sort()
    return {
        "mode": "writer thread" if threaded else "inline on the loop",
        "max_block_ms": stalls[-1] * 1000,
        "p99_block_ms": stalls[int(0.99 * (len(stalls) - 1))] * 1000,
        "durable_median_ms": statistics.median(durable) * 1000,
        "apply_max_ms": max(on_loop) * 1000,
    }


async def _settled(device: Any) -> None:
    while device.saving.inflight:
        await asyncio.sleep(0.001)


def measure(folder: Path, count: int, fsync_ms: float, threaded: bool) -> dict[str, Any]:
    """One run of ``count`` actions with every fsync taking at least ``fsync_ms``."""
    real = fsio.fsync

    def slow(fd: int) -> None:
        real(fd)
        time.sleep(fsync_ms / 1000)

    fsio.fsync = slow
    try:
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            return asyncio.run(_play(Path(tmp), count, threaded))
    finally:
        fsio.fsync = real


def main(folder: Path, count: int, delays: list[float]) -> int:
    """Print loop blocking per journaled action for each injected fsync delay, both ways."""
    folder.mkdir(parents=True, exist_ok=True)
    idle = measure(folder, 0, 0.0, True)
    print(
        f"no actions (the floor: scheduling, drawing): loop blocked max {idle['max_block_ms']:.1f} ms, "
        f"p99 {idle['p99_block_ms']:.1f} ms"
    )
    for ms in delays:
        for threaded in (True, False):
            r = measure(folder, count, ms, threaded)
            print(
                f"fsync +{ms:g} ms, {count} actions, {r['mode']}: action path on the loop max "
                f"{r['apply_max_ms']:.1f} ms; loop blocked (anything) max {r['max_block_ms']:.1f} ms, "
                f"p99 {r['p99_block_ms']:.1f} ms; durable after {r['durable_median_ms']:.0f} ms (median)"
            )
    return 0
