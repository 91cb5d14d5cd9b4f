"""A simulated load cell: grams on the bin become raw counts with noise, on the runtime's clock.

The simulator's keys and the script command ``grams DELTA`` change :attr:`SimScale.grams`; the
scale turns the load into counts (offset plus grams times counts-per-gram, with seeded Gaussian
noise) at the nominal rate. It runs on the event loop's own timer (``call_later``), so scripted
sessions on virtual time stay deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from drivers.scale import FaultHandler, SampleHandler

DEFAULT_OFFSET = 84_000
DEFAULT_COUNTS_PER_GRAM = 420.0


class SimScale:
    """A load model sampled ``sps`` times a second."""

    def __init__(
        self,
        call_later: Callable[[float, Callable[[], None]], Any],
        clock: Callable[[], float],
        sps: int = 10,
        offset: int = DEFAULT_OFFSET,
        counts_per_gram: float = DEFAULT_COUNTS_PER_GRAM,
        noise_counts: float = 150.0,
        seed: int = 1,
    ) -> None:
        self.sps = sps
        self.grams = 0.0
        self.offset = offset
        self.counts_per_gram = counts_per_gram
        self.noise_counts = noise_counts
        self._call_later = call_later
        self._clock = clock
        self._rng = random.Random(seed)
        self._handle: Any = None
        self._on_sample: SampleHandler | None = None
        self.failed = False
        """Set to make the scale stop answering (a broken wire), for tests and the simulator."""

    def raw(self) -> int:
        """One conversion of the current load, with noise, clamped to 24 bits."""
        value = self.offset + self.grams * self.counts_per_gram + self._rng.gauss(0.0, self.noise_counts)
        return max(-0x800000, min(0x7FFFFF, round(value)))

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Deliver a sample every ``1/sps`` seconds."""
        self._on_sample = on_sample
        self._on_fault = on_fault
        self._schedule()

    def _schedule(self) -> None:
        self._handle = self._call_later(1.0 / self.sps, self._tick)

    def _tick(self) -> None:
        if self._on_sample is None:
            return
        if not self.failed:
            self._on_sample(self._clock(), self.raw())
        self._schedule()

    def close(self) -> None:
        """Stop sampling."""
        self._on_sample = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
