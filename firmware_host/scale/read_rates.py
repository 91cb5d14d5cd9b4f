"""Dropped and corrupt HX711 reads per minute of the running scale, for the Self-test screen.

The reader counts as it goes: words dropped for a PD_SCK high over 50 µs (``stats.slow``) and
corrupt words refused by the fault rules (``watch.glitches``: all ones, full scale). The
Self-test's second page shows both as rates over the last minute (one short line each) (over what there is of it
while the device has run less), next to the doctor's checks, while the scale is being read.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from games.core import T, Text

WINDOW = 60.0
"""Seconds the rates are taken over."""


def read_counts(driver: Any) -> tuple[int, int, int] | None:
    """``(reads, dropped, corrupt)`` so far of a scale driver, or ``None`` when it counts nothing."""
    stats = getattr(driver, "stats", None)
    if stats is None:
        stats = getattr(getattr(driver, "hx", None), "stats", None)
    if stats is None:
        return None
    watch = getattr(driver, "watch", None)
    corrupt = getattr(watch, "glitches", 0) if watch is not None else getattr(driver, "glitches", 0)
    return stats.reads, stats.slow, corrupt


class ReadRates:
    """Per-minute rates of a driver's counts, from snapshots taken when asked (``line``)."""

    def __init__(self, driver: Any, clock: Callable[[], float]) -> None:
        self.driver = driver
        self.clock = clock
        self._marks: deque[tuple[float, tuple[int, int, int]]] = deque()

    def rates(self) -> tuple[float, float, float] | None:
        """``(reads, dropped, corrupt)`` per minute, or ``None`` before two snapshots a second apart."""
        counts = read_counts(self.driver)
        if counts is None:
            return None
        now = self.clock()
        self._marks.append((now, counts))
        while len(self._marks) > 2 and now - self._marks[1][0] >= WINDOW:
            self._marks.popleft()
        t0, first = self._marks[0]
        if now - t0 < 1.0:
            return None
        per = 60.0 / (now - t0)
        return tuple((b - a) * per for a, b in zip(first, counts, strict=True))  # type: ignore[return-value]

    def lines(self) -> list[Text]:
        """``Scale lost 0/min`` and ``Scale bad 0/min`` for the Self-test (two short lines, so
        that three-digit rates fit a 128-pixel row in either language); none before a rate."""
        rates = self.rates()
        if rates is None:
            return []
        _, dropped, corrupt = rates
        return [T("Scale lost {count:.0f}/min", count=dropped), T("Scale bad {count:.0f}/min", count=corrupt)]
