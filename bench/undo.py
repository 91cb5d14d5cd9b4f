"""``tablemate bench undo``: resume, ``state`` and undo of a long session, and how long the loop waits.

A long party evening is thousands of actions in one journal. This builds sessions of 1,000 and
10,000 legal actions of Trottelmütze and Antartik (:func:`games.workloads.long_session`, snapshots
written as the device writes them), then on a real event loop with the simulated hardware:

- **resume**: the device boots on that folder (the journal read from its last snapshot on, the
  lines before it proven by one CRC, the game rebuilt from that snapshot and the checkpoints
  just below it worked out, off the loop); the time :meth:`Session.resume` takes. The snapshot
  was sealed as it was written, so no replay of the whole game checks it (what a start that
  does costs the table, from the boot on, is ``tablemate bench resume``'s);
- **state**: what ``tablemate state`` does (read the journal from its last snapshot on, rebuild,
  print the SCRIPT of every action: the SCRIPT's cache up to that snapshot, the actions after it
  from the journal), timed in-process (the command runs in its own process, never on the
  device's loop), the best of :data:`STATE_RUNS` in a row;
- **undo**: :data:`UNDOS` undos in a row through :meth:`Device.undo`, each timed from the call
  until the undo is journaled and shown (the slowest is reported).

Each figure is the best of ``--repeat`` runs (default 3). A ticker task asks the loop for a
1 ms sleep over and over; how late it wakes is how long the loop was blocked, reported as the
worst during each of the three, beside the idle floor (the same loop with nothing to do: the
machine's other work shows there too). Building the session is not measured (its fsyncs are
skipped); the objects it leaves are frozen out of the garbage collector so the figures are those
of a device that has just booted.
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_host.core import fsio
from games.workloads import LONG_GAMES, long_session

SIZES = (1000, 10000)
UNDOS = 30
"""Undos in a row (at 10,000 actions they reach back past a snapshot)."""
STATE_RUNS = 5
"""``state`` runs in a row in each run (the best is taken: a few milliseconds, on a shared machine)."""
TARGET_MS = 50.0
LOOP_TARGET_MS = 20.0


def build(folder: Path, game: str, count: int) -> None:
    """A state folder holding an unfinished ``game`` of ``count`` actions (fsyncs skipped)."""
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store

    players, fallback = LONG_GAMES[game]
    workload = long_session(game, players, count, 1, fallback)
    real = fsio.fsync
    fsio.fsync = lambda fd: None
    try:
        session = Session.start(
            Store(folder), game, list(players), {}, 1, meta={"seats": {f"p{i + 1}": p for i, p in enumerate(players)}}
        )
        for action in workload.actions:
            session.apply(action)
        session.journal.close()
    finally:
        fsio.fsync = real


class Ticker:
    """Measures how late the loop wakes for 1 ms sleeps: the longest block since :meth:`reset`."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.running = True

    def reset(self) -> None:
        """Start a new measurement."""
        self.worst = 0.0

    async def run(self) -> None:
        """Tick until :attr:`running` is cleared."""
        while self.running:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - start - 0.001)


def _state(folder: Path) -> float:
    """Seconds ``tablemate state`` takes past its start-up: read, rebuild, print the SCRIPT."""
    from firmware_host.cli.cmd_records import state_text
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store

    start = time.perf_counter()
    store = Store(folder, create=False)
    journal = store.open_game(defer=True)
    assert journal is not None
    state_text(Session(store, journal))
    return time.perf_counter() - start


async def timed_undo(device: Any) -> float:
    """Ask ``device`` to undo its last move; seconds until the undo is worked out, durable and shown."""
    before = len(device.door.session.actions)
    start = time.perf_counter()
    device.door.undo()
    while (
        device.hub.lookup("game").busy is not None
        or device.hub.lookup("saving").inflight
        or len(device.door.session.actions) == before
    ):
        await asyncio.sleep(0.0005)
    return time.perf_counter() - start


async def _measure(folder: Path) -> dict[str, Any]:
    from firmware_host.core import config as configuration
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device

    ticker = Ticker()
    beat = asyncio.create_task(ticker.run())
    resumed: list[float] = []
    blocked: list[float] = []
    real_resume = Session.resume

    def timed_resume(*args: Any, **kwargs: Any) -> Any:
        ticker.reset()  # the loop's longest block while the game is resumed (off the loop)
        start = time.perf_counter()
        try:
            return real_resume(*args, **kwargs)
        finally:
            resumed.append(time.perf_counter() - start)
            blocked.append(ticker.worst)

    Session.resume = timed_resume  # type: ignore[method-assign]
    try:
        device = Device(configuration.defaults().with_sim(), Store(folder), seed=1)
        task = asyncio.create_task(device.run())
        await device.ready.wait()
    finally:
        Session.resume = real_resume  # type: ignore[method-assign]
    out: dict[str, Any] = {"resume_ms": resumed[0] * 1000, "resume_loop_ms": blocked[0] * 1000}
    assert device.door.session is not None and len(device.door.session.actions) > UNDOS
    await device.door.checked.wait()  # (at once: the snapshot is sealed, see above)
    await asyncio.sleep(0.5)
    ticker.reset()
    await asyncio.sleep(1.0)  # the floor: the same loop, idle (drawing, the machine's other work)
    out["idle_loop_ms"] = ticker.worst * 1000
    ticker.reset()
    loop = asyncio.get_running_loop()
    out["state_ms"] = min([await loop.run_in_executor(None, _state, folder) for _ in range(STATE_RUNS)]) * 1000
    out["state_loop_ms"] = ticker.worst * 1000
    ticker.reset()
    slowest = 0.0
    for _ in range(UNDOS):
        slowest = max(slowest, await timed_undo(device))
        await asyncio.sleep(0.02)  # the table reads the message before the next undo
    out["undo_ms"] = slowest * 1000
    out["undo_loop_ms"] = ticker.worst * 1000
    device.stop()
    await task
    ticker.running = False
    await beat
    return out


def measure(game: str, count: int, folder: Path | None = None) -> dict[str, Any]:
    """Build a session of ``count`` actions of ``game`` and measure it (milliseconds)."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        build(Path(tmp), game, count)
        gc.collect()
        gc.freeze()  # what building left is not the booted device's
        try:
            return asyncio.run(_measure(Path(tmp)))
        finally:
            gc.unfreeze()


def best(game: str, count: int, repeat: int, folder: Path | None = None) -> dict[str, Any]:
    """Each figure's best of ``repeat`` runs: on a shared machine the other processes' share of
    the CPU shows as the loop's blocks (the idle floor says how much)."""
    runs = [measure(game, count, folder) for _ in range(max(1, repeat))]
    return {key: min(r[key] for r in runs) for key in runs[0]}


def ratios(game: str, small: dict[str, Any], large: dict[str, Any], few: int, many: int) -> str:
    """How much longer resume, ``state`` and the slowest undo take with ``many`` actions than with
    ``few``, in this process: what grows with the journal, whatever the machine's other work."""
    parts = [
        f"{name} x{large[key] / max(small[key], 1e-6):.1f}"
        for name, key in (("resume", "resume_ms"), ("state", "state_ms"), ("undo", "undo_ms"))
    ]
    return f"{game} {many}/{few} actions, in-process ratios: " + ", ".join(parts)


def main(sizes: tuple[int, ...] = SIZES, repeat: int = 3, folder: Path | None = None) -> int:
    """Print the figures for each game and size; exit 1 when a target is missed."""
    missed = False
    for game in LONG_GAMES:
        figures: dict[int, dict[str, Any]] = {}
        for count in sizes:
            r = figures[count] = best(game, count, repeat, folder)
            ok = all(r[k] <= TARGET_MS for k in ("resume_ms", "state_ms", "undo_ms")) and all(
                r[k] <= LOOP_TARGET_MS for k in ("resume_loop_ms", "state_loop_ms", "undo_loop_ms")
            )
            missed |= not ok
            print(
                f"{game} {count} actions: resume {r['resume_ms']:.0f} ms (loop blocked max "
                f"{r['resume_loop_ms']:.1f} ms), state {r['state_ms']:.0f} ms ({r['state_loop_ms']:.1f} ms), "
                f"undo max of {UNDOS} {r['undo_ms']:.0f} ms ({r['undo_loop_ms']:.1f} ms); "
                f"idle loop blocked max {r['idle_loop_ms']:.1f} ms"
                + ("" if ok else f"  MISSED (targets {TARGET_MS:g} ms, loop {LOOP_TARGET_MS:g} ms)")
            )
        if len(figures) > 1:
            print(ratios(game, figures[min(figures)], figures[max(figures)], min(figures), max(figures)))
    return 1 if missed else 0
