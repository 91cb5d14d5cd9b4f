"""``tablemate bench idle``: what the device costs when nobody presses anything.

Starts ``tablemate run --sim`` as a real process (simulated buttons, display, tower and scale;
the scale is powered down in the menu and in the Arschbombe game played), waits for its
``READY=1``, then reads the kernel's accounting of the process over a quiet stretch: CPU time
used (``/proc/PID/stat``) and resident memory (``/proc/PID/status``). Run it once in the main
menu and once with a game in play.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_host.cli.bench.process import running_device

TARGET_CPU_PERCENT = 1.0
TARGET_RSS_MB = 80.0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def _memory_mb(pid: int) -> tuple[float, float]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def measure(seconds: float, with_game: bool) -> dict[str, Any]:
    """Run the device headless for ``seconds`` after READY and report its CPU and memory use."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        if with_game:
            from firmware_host.core.session import Session
            from firmware_host.core.store import Store
            from games.workloads import PLAIN

            session = Session.start(Store(state), PLAIN.game, list(PLAIN.players), seed=1)
            session.apply(PLAIN.actions[0])
        with running_device(state, Path(tmp)) as (proc, startup):
            time.sleep(1.0)  # let start-up work (first frame, imports) finish
            cpu0, t0 = _cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            cpu1, t1 = _cpu_seconds(proc.pid), time.monotonic()
            rss, peak = _memory_mb(proc.pid)
    return {
        "state": "game in play" if with_game else "main menu",
        "seconds": round(t1 - t0, 1),
        "cpu_percent": round(100 * (cpu1 - cpu0) / (t1 - t0), 2),
        "rss_mb": round(rss, 1),
        "peak_rss_mb": round(peak, 1),
        "startup_s": round(startup, 2),
    }


def main(seconds: float = 30.0) -> int:
    """Print the idle figures for the menu and for a game in play; exit 1 if a target is missed."""
    ok = True
    print(
        f"tablemate run --sim, idle for {seconds:g} s after READY (targets: <{TARGET_CPU_PERCENT:g} % "
        f"of one core, <{TARGET_RSS_MB:g} MB resident)"
    )
    for with_game in (False, True):
        r = measure(seconds, with_game)
        good = r["cpu_percent"] < TARGET_CPU_PERCENT and r["peak_rss_mb"] < TARGET_RSS_MB
        ok &= good
        print(
            f"  {r['state']:13} cpu {r['cpu_percent']:5.2f} %  rss {r['rss_mb']:5.1f} MB  "
            f"peak {r['peak_rss_mb']:5.1f} MB  ready after {r['startup_s']:.2f} s  {'ok' if good else 'MISSED'}"
        )
    return 0 if ok else 1
