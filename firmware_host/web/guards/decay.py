"""Counts per address that halve every half-life, compared without being touched.

The page weighs its guests by what they did lately: the requests an address asked and was
answered (:mod:`firmware_host.web.guards.budget`), the connections it opened (:mod:`firmware_host.web.guards.shares`).
Each count grows by one at each event and halves every half-life, so a phone's page load weighs
for a minute or so and a flood's steady asking weighs all the time. A count is kept as one number,
``ln(count) + λ·t`` at its last event: as all counts halve together, their order is the order of
these numbers, which never change between events (nothing to update as time passes). An address
never counted has ``-inf``, lighter than any. The table is bounded: when it is full, the lighter
half is forgotten (which only makes those addresses as new again).
"""

from __future__ import annotations

import math
from collections.abc import Callable

NEVER = float("-inf")
"""The key of an address never counted: lighter than every other."""


class Decaying:
    """Counts per address halving every ``half_life`` seconds, at most ``max_keys`` kept."""

    def __init__(self, half_life: float, max_keys: int) -> None:
        if half_life <= 0 or max_keys < 2:
            raise ValueError("half_life > 0, max_keys ≥ 2")
        self.decay = math.log(2) / half_life
        self.max_keys = max_keys
        self.keys: dict[str, float] = {}
        """Per address: ``ln(count) + decay·t`` at its last event (their order is the counts')."""

    def key(self, name: str) -> float:
        """``name``'s count as its comparable key (:data:`NEVER` when never counted)."""
        return self.keys.get(name, NEVER)

    def count(self, name: str, now: float) -> float:
        """``name``'s count at ``now``."""
        return math.exp(self.key(name) - self.decay * now)  # never counted: exp(-inf) = 0

    def bump(self, name: str, now: float, keep: Callable[[str], bool] | None = None) -> None:
        """One more for ``name`` at ``now``; when the table is full, its lighter half is forgotten
        first but those ``keep`` holds to."""
        if name not in self.keys and len(self.keys) >= self.max_keys:
            self.trim(keep)
        self.keys[name] = math.log(self.count(name, now) + 1.0) + self.decay * now

    def trim(self, keep: Callable[[str], bool] | None = None) -> None:
        """Keep the heavier half of the addresses, and every one ``keep`` holds to."""
        ranked = sorted(self.keys.items(), key=lambda item: item[1])
        cut = len(ranked) - self.max_keys // 2
        self.keys = {a: k for i, (a, k) in enumerate(ranked) if i >= cut or (keep is not None and keep(a))}

    def forget_but(self, kept: dict[str, float]) -> None:
        """Forget every address that ``kept`` (another table's keys) does not have."""
        self.keys = {a: k for a, k in self.keys.items() if a in kept}
