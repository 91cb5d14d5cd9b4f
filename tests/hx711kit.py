"""A simulated HX711 on a virtual clock and a reader of it, stepped by hand (the read-path tests' rig)."""

from __future__ import annotations

from typing import Any

from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock


class ChipRig:
    """The chip and its clock; a read path's rig adds its driver and calls :meth:`attach`."""

    def __init__(self, rate: int = 10, grams: float = 0.0, noise: float = 0.0) -> None:
        self.clock = VirtualClock()
        self.chip = HX711Chip(self.clock, rate=rate, load=LoadModel(grams=grams, noise_counts=noise))
        self.samples: list[int] = []
        self.faults: list[str] = []
        self.scale: Any = None

    def attach(self, scale: Any) -> None:
        """Read through ``scale``: its raw words go to :attr:`samples`, its faults to :attr:`faults`."""
        self.scale = scale
        scale.prepare(lambda t, raw: self.samples.append(raw), self.faults.append)

    def run(self, seconds: float) -> None:
        """Step the reader for ``seconds`` of virtual time."""
        end = self.clock() + seconds
        while self.clock() < end:
            self.scale.step()
