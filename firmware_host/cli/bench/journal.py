"""``tablemate bench journal``: how long making one action durable takes on this storage.

Every accepted action is appended to the journal and fsynced (on the device's writer thread)
before its effects show. This measures that write where the state folder lives (run it on the
Pi's SD card: that is the figure that matters). With ``--slow-fsync MS`` the command measures
instead how long the event loop is blocked per action while each fsync takes MS longer
(:mod:`bench.loop`).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from firmware_host.core.journal import Journal


def measure(folder: Path, count: int = 200) -> dict[str, float]:
    """Append ``count`` typical action records to a scratch journal in ``folder``; milliseconds."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        journal = Journal.create(Path(tmp) / "bench.jsonl", {"game": "bench", "players": ["A", "B"]})
        times = []
        for _ in range(count):
            record = {"a": {"type": "jump", "jumper": "rascal", "special": False, "result": "A"}, "t": time.time()}
            start = time.perf_counter()
            journal.append(record)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "median_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "max_ms": times[-1],
    }


def main(folder: Path, count: int = 200) -> int:
    """Print the figures for ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    r = measure(folder, count)
    print(
        f"journal append + fsync in {folder} ({count} actions): median {r['median_ms']:.2f} ms, "
        f"p95 {r['p95_ms']:.2f} ms, max {r['max_ms']:.2f} ms"
    )
    return 0
