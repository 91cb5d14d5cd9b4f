"""``tablemate bench wakeups``: how often the idle device wakes, per thread.

Starts ``tablemate run --sim`` as a real process (simulated buttons, display, tower, and an HX711
chip at 10 samples per second), waits for its ``READY=1``, lets start-up settle, then reads the
kernel's count of context switches of every thread (``/proc/PID/task/TID/status``) over a quiet
stretch. A thread that sleeps and is woken counts one *voluntary* switch: those are its wake-ups.
Two states: the main menu, and a Tonne game waiting for the first player's pieces (the scale is
read then, so its rate is the floor).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_host.cli.bench.process import running_device

MENU_TARGET = 0.5
"""Wake-ups per second of the whole process, idle in the main menu."""
MENU_THREADS = 3
GAME_FACTOR = 1.5
"""With the scale read at SPS samples a second: at most this many times SPS wake-ups a second."""
SPS = 10


def switches(pid: int) -> dict[int, tuple[int, int]]:
    """Voluntary and involuntary context switches of each thread of ``pid`` so far."""
    out: dict[int, tuple[int, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:
            continue  # the thread ended meanwhile
        values = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        out[int(task.name)] = (
            int(values["voluntary_ctxt_switches"]),
            int(values["nonvoluntary_ctxt_switches"]),
        )
    return out


def _weighing_game_waiting_for_pieces(state: Path) -> None:
    """The weighing workload's game, calibrated, past its bin fill and card reveal: pieces owed."""
    from firmware_host.core.session import Session
    from firmware_host.core.store import Store
    from games import scale_pieces
    from games.core import Task
    from games.workloads import WEIGHING

    store = Store(state)
    store.write_doc(
        "scale",
        {
            "counts_per_gram": 420.0,
            "offset": 84000,
            "noise": 150,
            "weight_grams": 100,
            "pieces": {kind: piece.grams for kind, piece in scale_pieces().items()},
        },
    )
    session = Session.start(store, WEIGHING.game, list(WEIGHING.players), seed=1)
    prompt = session.prompt()
    if isinstance(prompt, Task):
        session.confirm_task(prompt.key)
    for action in WEIGHING.actions:
        session.apply(action)


def measure(seconds: float, game: bool) -> dict[str, Any]:
    """Run the device for ``seconds`` after READY; its wake-ups per second, whole and per thread."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        if game:
            _weighing_game_waiting_for_pieces(state)
        with running_device(state, Path(tmp)) as (proc, _):
            time.sleep(2.0)  # the first frame, the chip settling
            before, t0 = switches(proc.pid), time.monotonic()
            time.sleep(seconds)
            after, t1 = switches(proc.pid), time.monotonic()
    dt = t1 - t0
    threads = []
    for tid, (vol, invol) in sorted(after.items()):
        v0, i0 = before.get(tid, (0, 0))
        name = "main (event loop)" if tid == proc.pid else f"thread {tid}"
        threads.append((name, (vol - v0) / dt, (invol - i0) / dt))
    return {
        "state": f"Tonne, waiting for pieces ({SPS} SPS)" if game else "main menu",
        "seconds": dt,
        "threads": threads,
        "wakeups": sum(v for _, v, _ in threads),
        "preempted": sum(i for _, _, i in threads),
    }


def main(seconds: float = 20.0) -> int:
    """Print wake-ups in the main menu and in a Tonne game; exit 1 if a target is missed."""
    print(f"tablemate run --sim, {seconds:g} s after READY: wake-ups = voluntary context switches")
    ok = True
    for game in (False, True):
        r = measure(seconds, game)
        if game:
            limit, good = GAME_FACTOR * SPS, r["wakeups"] <= GAME_FACTOR * SPS
            target = f"≤ {limit:g}/s"
        else:
            good = r["wakeups"] <= MENU_TARGET and len(r["threads"]) <= MENU_THREADS
            target = f"≤ {MENU_TARGET:g}/s, ≤ {MENU_THREADS} threads"
        ok &= good
        print(
            f"  {r['state']}: {r['wakeups']:.2f} wake-ups/s ({r['preempted']:.2f}/s preempted), "
            f"{len(r['threads'])} threads  (target {target})  {'ok' if good else 'MISSED'}"
        )
        for name, vol, invol in r["threads"]:
            print(f"      {name:18} {vol:7.2f}/s  preempted {invol:.2f}/s")
    return 0 if ok else 1
