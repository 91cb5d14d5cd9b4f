"""``tablemate bench resume``: what the table sees of a long game from the boot to the end of its check.

A long evening is tens of thousands of actions in one journal. This builds sessions of Trottelmütze
(:func:`games.workloads.long_session`, snapshots as the device writes them) of 100, 10,000 and
50,000 actions whose seals are void (written by other code: the first start after a software
update, or a journal of an older release), so that the device proves its resumed snapshot by the
replay of every action (:mod:`firmware_host.core.proof`). Then, on a real event loop with the
simulated hardware, started as ``tablemate run`` starts it (one worker for the default pool, the
collector settled once the table is up):

- **first start**: a ticker task asks the loop for a 1 ms sleep over and over from the moment the
  device starts; how late it wakes is how long the loop was blocked. Reported: the longest block
  before the table is up (start-up: the drivers opened, the first frame, the resume off the loop)
  and from then to the check's end, beside the idle floor (the same loop for a second after, with
  nothing to do: the machine's other work shows there); an undo asked for the moment the table is
  up (while the check runs), timed until it is journaled and shown; how long the check took;
- **second start** on the same folder: the same figures, and how many actions the device
  replayed from its start to the check's end (the checkpoints below the snapshot, at most a
  snapshot's span: the check itself is not made again);
- **whole-process CPU** (user + system, the check's own process included) of ``tablemate run
  --sim`` from its start to the table up and stopped (after the check when one runs), and of
  ``tablemate sim --script`` with one ``wait 1``, at each size, on the folder as the second start
  left it; and beside it the same of a first start.

The package's modules are compiled first, as pip compiles them on the device: a checkout run
with ``PYTHONDONTWRITEBYTECODE`` would compile every module it imports on the loop at start.
Building the sessions is not measured (their fsyncs are skipped); each start is a fresh interpreter
that has imported what ``tablemate run`` imports before its loop starts (the drivers' modules
too: :func:`~firmware_host.runtime.hardware.preload`).
"""

from __future__ import annotations

import asyncio
import compileall
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import firmware_host
from bench.undo import Ticker, build, timed_undo
from games.workloads import LONG_GAMES

SIZES = (100, 10_000, 50_000)
GAME = next(iter(LONG_GAMES))
"""The first game of the long-session benchmarks (Trottelmütze: the longest evenings, the dearest actions)."""
LOOP_TARGET_MS = 20.0
"""The loop's longest block from the boot to the check's end."""
UNDO_TARGET_MS = 50.0
"""An undo asked for while the check runs, until it is shown."""
CPU_RATIO = 1.5
"""Whole-process CPU at the largest sizes, against 100 actions (a start that proves nothing)."""
WAIT_SCRIPT = "wait 1\n"


def build_void(folder: Path, count: int) -> None:
    """A state folder holding a ``count``-action game whose seals were made by other code."""
    from firmware_host.core import verdict

    real = verdict.code
    verdict.code = lambda: b"other code"  # type: ignore[assignment]
    try:
        build(folder, GAME, count)
    finally:
        verdict.code = real  # type: ignore[assignment]


def compile_package() -> None:
    """Compile the package's modules, as pip does on install (see the module's docstring)."""
    root = Path(firmware_host.__file__).resolve().parents[1]
    for name in ("firmware_host", "drivers", "games"):
        if (root / name).is_dir():
            compileall.compile_dir(root / name, quiet=2, workers=1)


class Applies:
    """Counts the actions applied in this process (replays of the game included) while in use."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> Applies:
        from games.core.engine import Engine

        real = self._real = Engine.apply

        def counted(engine: Any, state: Any, action: Any) -> Any:
            self.count += 1
            return real(engine, state, action)

        Engine.apply = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        from games.core.engine import Engine

        Engine.apply = self._real  # type: ignore[method-assign]


async def _boot(folder: Path, apart: bool = True) -> dict[str, Any]:
    """Boot the device on ``folder`` as ``tablemate run`` does; the figures of one start (ms).
    ``apart=False``: the check replays on a thread of the device's process instead (to compare)."""
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store
    from firmware_host.runtime.device import Device
    from firmware_host.runtime.garbage import settle

    config = configuration.defaults().with_sim()
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(1, thread_name_prefix="display"))
    ticker = Ticker()
    beat = asyncio.create_task(ticker.run())
    started = time.perf_counter()
    with Applies() as applied:
        device = Device(config, Store(folder), seed=1)
        device.hub.lookup("resume").apart = apart
        task = asyncio.create_task(device.run())
        await device.ready.wait()
        out: dict[str, Any] = {"up_ms": (time.perf_counter() - started) * 1000, "start_loop_ms": ticker.worst * 1000}
        out["applied_up"] = applied.count
        ticker.reset()
        checking = not device.door.checked.is_set()
        settle()  # as `tablemate run` does once the table is up
        session = device.door.session
        assert session is not None and len(session.actions) > 1
        out["undo_ms"] = await timed_undo(device) * 1000
        out["undo_during_check"] = checking and not device.door.checked.is_set()
        await device.door.checked.wait()
        out["check_ms"] = (time.perf_counter() - started) * 1000 - out["up_ms"] if checking else 0.0
        out["loop_ms"] = ticker.worst * 1000
        out["checked"] = checking
        out["applied"] = applied.count
        ticker.reset()
        await asyncio.sleep(1.0)  # the floor: the same loop with nothing to work out (the machine's other work)
        out["idle_loop_ms"] = ticker.worst * 1000
        device.stop()
        await task
    ticker.running = False
    await beat
    return out


def boot(folder: Path, apart: bool = True) -> dict[str, Any]:
    """:func:`_boot` in a fresh interpreter, as the device starts (its figures)."""
    code = "import sys; from bench.resume import boot_here; boot_here(sys.argv[1], sys.argv[2])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder), "apart" if apart else "thread"],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def boot_here(folder: str, how: str = "apart") -> None:
    """Print the figures of :func:`_boot` on ``folder`` as one JSON line (the child of :func:`boot`),
    started as ``tablemate run`` starts the device (its drivers' modules imported first)."""
    from firmware_host.core import config as configuration
    from firmware_host.runtime.hardware import preload

    preload(configuration.defaults().with_sim())
    print(json.dumps(asyncio.run(_boot(Path(folder), how == "apart"))))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_of_run(state: Path, tmp: Path) -> float:
    """CPU seconds of ``tablemate run --sim`` on ``state``: started the way systemd starts it, up,
    its check (if it makes one) ended, stopped by SIGTERM."""
    from firmware_host.runtime import sdnotify
    from firmware_host.runtime.parts.resume import CHECKED, CHECKING

    sock_path = tmp / f"notify-{time.monotonic_ns()}"
    log_path = tmp / f"run-{time.monotonic_ns()}.log"
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path))
    cmd = [sys.executable, "-m", "firmware_host", "run", "--sim", "--state-dir", str(state)]
    before = _children_cpu()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock, open(log_path, "wb") as err:
        sock.bind(str(sock_path))
        sock.settimeout(600)
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            while not sdnotify.is_up(sock.recv(4096)):
                pass
            deadline = time.monotonic() + 600
            while CHECKING in log_path.read_text(errors="replace") and CHECKED not in log_path.read_text(
                errors="replace"
            ):
                if time.monotonic() > deadline or proc.poll() is not None:
                    break
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
            sock_path.unlink(missing_ok=True)
    return _children_cpu() - before


def cpu_of_sim(state: Path, tmp: Path) -> float:
    """CPU seconds of ``tablemate sim --script`` with one ``wait 1`` on ``state``."""
    script = tmp / "wait.txt"
    script.write_text(WAIT_SCRIPT)
    before = _children_cpu()
    cmd = [sys.executable, "-m", "firmware_host", "sim", "--script", str(script), "--state-dir", str(state)]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=600)
    return _children_cpu() - before


def measure(count: int, folder: Path | None = None, apart: bool = True) -> dict[str, Any]:
    """Both starts of a ``count``-action session, and the CPU of each kind of start (see the
    module's docstring)."""
    with tempfile.TemporaryDirectory(dir=folder) as name:
        tmp = Path(name)
        void = tmp / "void"
        build_void(void, count)
        first = tmp / "first"
        shutil.copytree(void, first)
        out: dict[str, Any] = {"count": count, "first": boot(first, apart), "second": boot(first, apart)}
        for kind, cpu in (("run", cpu_of_run), ("sim", cpu_of_sim)):
            fresh = tmp / f"fresh-{kind}"
            shutil.copytree(void, fresh)
            out[f"{kind}_first_cpu"] = cpu(fresh, tmp)  # proves the snapshot, keeps the verdict
            out[f"{kind}_cpu"] = min(cpu(fresh, tmp) for _ in range(3))
    return out


def _line(r: dict[str, Any], which: str) -> str:
    b = r[which]
    check = f"check {b['check_ms'] / 1000:.1f} s" if b["checked"] else "no check"
    during = " (during the check)" if b["undo_during_check"] else ""
    return (
        f"  {which} start: up in {b['up_ms']:.0f} ms (loop blocked max {b['start_loop_ms']:.1f} ms), then "
        f"{check}, loop blocked max {b['loop_ms']:.1f} ms (idle floor {b['idle_loop_ms']:.1f} ms); "
        f"first undo {b['undo_ms']:.1f} ms{during}; "
        f"actions replayed in the device's process {b['applied_up']:,} until up, {b['applied']:,} with the undo"
    )


def main(sizes: tuple[int, ...] = SIZES, folder: Path | None = None, apart: bool = True) -> int:
    """Print the figures for each size; exit 1 when a target is missed. ``apart=False``: the check
    on a thread of the device's process (what the process replaced), to compare."""
    compile_package()
    results = [measure(count, folder, apart) for count in sizes]
    if not apart:
        print("the check replayed on a thread of the device's process (--in-thread)")
    missed = False
    for r in results:
        print(f"{GAME} {r['count']:,} actions")
        print(_line(r, "first"))
        print(_line(r, "second"))
        for which in ("first", "second"):
            b = r[which]
            worst = max(b["start_loop_ms"], b["loop_ms"])
            missed |= worst > LOOP_TARGET_MS or b["undo_ms"] > UNDO_TARGET_MS
        missed |= r["second"]["checked"]
        print(
            f"  whole-process CPU: run --sim {r['run_cpu']:.2f} s (first start {r['run_first_cpu']:.2f} s), "
            f"sim --script with one wait {r['sim_cpu']:.2f} s (first start {r['sim_first_cpu']:.2f} s)"
        )
    small = results[0]
    for r in results[1:]:
        run, sim = r["run_cpu"] / small["run_cpu"], r["sim_cpu"] / small["sim_cpu"]
        missed |= run > CPU_RATIO or sim > CPU_RATIO
        ratio = f"run --sim x{run:.2f}, sim --script x{sim:.2f}"
        print(f"{r['count']:,}/{small['count']:,} actions, whole-process CPU: {ratio}")
    print(
        f"targets: loop blocked <= {LOOP_TARGET_MS:g} ms from the boot to the check's end, an undo <= "
        f"{UNDO_TARGET_MS:g} ms, no check at the second start, CPU within x{CPU_RATIO:g} of "
        f"{small['count']:,} actions: {'MISSED' if missed else 'met'}"
    )
    with contextlib.suppress(Exception):
        print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 1 if missed else 0
