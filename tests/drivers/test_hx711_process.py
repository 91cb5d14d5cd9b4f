"""The GPIO fallback in a process of its own: the real child, reading the simulated chip."""

from __future__ import annotations

import statistics
import threading

from drivers.scale.faults import NO_DATA
from drivers.scale.hx711_process import ProcessScale, realtime
from tests.waits import scaled


class Collect:
    def __init__(self, want: int) -> None:
        self.samples: list[int] = []
        self.faults: list[str] = []
        self.want = want
        self.enough = threading.Event()

    def sample(self, t: float, raw: int) -> None:
        self.samples.append(raw)
        if len(self.samples) >= self.want:
            self.enough.set()

    def fault(self, reason: str) -> None:
        self.faults.append(reason)
        self.enough.set()


def test_the_child_reads_the_chip_and_says_how_it_is_scheduled() -> None:
    got = Collect(50)
    scale = ProcessScale(19, 20, sps=80, sim=100.0)
    try:
        scale.start(got.sample, got.fault)
        assert got.enough.wait(scaled(30))
    finally:
        scale.close()
    assert got.faults == []
    assert abs(statistics.median(got.samples) - (84_000 + 100 * 420)) < 300
    assert scale.scheduling.startswith(("SCHED_FIFO", "normal priority"))
    assert scale.stats.reads >= 1  # the child reports its counts (the Self-test's rates)
    assert scale._proc is not None and scale._proc.returncode == 0


def test_a_dead_chip_in_the_child_is_a_fault_in_the_parent() -> None:
    got = Collect(1)
    scale = ProcessScale(19, 20, sim=0.0, stuck="high")
    try:
        scale.start(got.sample, got.fault)
        assert got.enough.wait(scaled(30))
    finally:
        scale.close()
    assert got.faults[:1] == [NO_DATA] and got.samples == []


def test_a_child_that_cannot_open_the_pins_says_why() -> None:
    got = Collect(1)
    scale = ProcessScale(19, 20)  # no GPIO chip here: the real open fails
    try:
        scale.start(got.sample, got.fault)
        assert got.enough.wait(scaled(30))
    finally:
        scale.close()
    assert got.faults and got.faults[0].startswith("reader stopped:")
    assert scale.error


def test_realtime_says_what_it_got() -> None:
    assert realtime(0).startswith(("SCHED_FIFO", "normal priority"))  # priority 0 is refused: normal
