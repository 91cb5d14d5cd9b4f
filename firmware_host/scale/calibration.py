"""Load-cell calibration as pure arithmetic: windows of raw samples in, a calibration or a refusal out.

Used by ``tablemate calibrate`` (terminal) and the device's "Calibrate scale" screen, which only
gather samples and show the words. The steps (:class:`CalibrationRun`):

1. the empty bin on the cell — its level is the **offset** (tare) and its spread the noise;
2. a known weight in the bin — the step gives **counts per gram** (negative when the cell is
   mounted the other way round or its wires are swapped: the sign is kept, not refused);
3. the weight taken out — the reading must come back to the tare;
4. one piece of each kind added in turn — each step gives that kind's **piece weight**.

A window is summarised by its median and the spread of its samples once read glitches (−1,
0x7FFFFF) and spikes (beyond six robust widths, 1.4826 × the median absolute deviation, of the
median) are left out, so a corrupted read moves neither. A step is
refused when it is lost in the noise or when the reading moved while it was measured.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from drivers.scale.faults import GLITCH_CODES
from games.core.text import T

"""Codes an HX711 gives on a bad read (all ones, full scale), never a real level."""
MIN_SAMPLES = 5
SPIKE_MADS = 6.0
"""A sample farther than this many robust widths from the median is a spike, left out."""
MEASURE_SECONDS = 2.0
"""How long one step is measured."""
SETTLE_SECONDS = 1.0
"""Samples this soon after the confirming key press are skipped (the hand is still near)."""
WEIGHT_SIGMAS = 20.0
"""The known weight must stand this many noise widths clear of the tare."""
PIECE_SIGMAS = 5.0
"""A piece must stand this many noise widths clear of the level before it."""
MOVING_FACTOR = 3.0
"""A window noisier than this many times the empty bin's noise was moving."""
UNLOAD_GRAMS = 1.0
"""How far from the tare the reading may come back after the weight is taken out."""
WEIGHTS = (20, 50, 100, 200, 500, 1000)
"""Known weights offered on the device, in grams."""


class CalibrationError(ValueError):
    """A step that cannot be used; the text says why and what to do (short enough for the OLED)."""


@dataclass(frozen=True)
class Level:
    """A still window: its median in counts, the noise of one sample, and how many samples."""

    counts: float
    noise: float
    n: int


def measure(samples: Sequence[int]) -> Level:
    """The level and noise of one window (read glitches dropped)."""
    good = [s for s in samples if s not in GLITCH_CODES]
    if len(good) < MIN_SAMPLES:
        raise CalibrationError(T("only {count} readings from the scale: is it connected?", count=len(good)))
    median = statistics.median(good)
    mad = statistics.median(abs(s - median) for s in good)
    kept = [s for s in good if abs(s - median) <= max(SPIKE_MADS * 1.4826 * mad, 3.0)]
    noise = statistics.stdev(kept) if len(kept) > 1 else 0.0
    return Level(float(statistics.median(kept)), max(noise, 0.5), len(kept))


def check_still(level: Level, reference: Level) -> None:
    """Refuse a window that is much noisier than the empty bin's: something moved."""
    if level.noise > MOVING_FACTOR * reference.noise + 2.0:
        raise CalibrationError(
            T("the reading moved (±{noise:.0f} counts): hands off the bin, measure again", noise=level.noise)
        )


def counts_per_gram(empty: Level, loaded: Level, grams: float) -> float:
    """Counts per gram from the empty bin and the bin with ``grams`` in it; sign kept."""
    if not grams > 0:
        raise CalibrationError("the known weight must be more than 0 g")
    step = loaded.counts - empty.counts
    noise = max(empty.noise, loaded.noise)
    if abs(step) < WEIGHT_SIGMAS * noise:
        raise CalibrationError(
            T(
                "the {grams:g} g step ({step:+.0f} counts) is lost in the noise (±{noise:.0f}): "
                "use a heavier weight, keep the bin still",
                grams=grams,
                step=step,
                noise=noise,
            )
        )
    return step / grams


def piece_grams(before: Level, after: Level, cpg: float, label: str = "piece") -> float:
    """The weight of one piece put in between two levels."""
    grams = (after.counts - before.counts) / cpg
    noise = max(before.noise, after.noise) / abs(cpg)
    if abs(grams) < PIECE_SIGMAS * noise:
        raise CalibrationError(
            T(
                "the {piece} ({grams:+.1f} g) is lost in the noise (±{noise:.1f} g)",
                piece=label,
                grams=grams,
                noise=noise,
            )
        )
    if grams < 0:
        raise CalibrationError(
            T("the load went down {grams:.1f} g: add the {piece}, take nothing out", grams=-grams, piece=label)
        )
    return grams


@dataclass(frozen=True)
class Calibration:
    """What ``scale.json`` holds: the cell's scale, the empty bin, the pieces' weights."""

    counts_per_gram: float
    offset: float
    """Raw counts of the empty bin."""
    noise: float = 0.0
    """Noise of one sample of the empty bin, in counts."""
    pieces: dict[str, float] = field(default_factory=dict)
    """Kind → grams of one piece."""
    weight_grams: float = 0.0
    """The known weight used."""

    def grams(self, counts: float) -> float:
        """The load on the empty bin, in grams, for a raw level."""
        return (counts - self.offset) / self.counts_per_gram

    def weights(self) -> list[float] | None:
        """Every kind's piece weight, lightest first, for the detector (``None`` when none)."""
        return sorted(self.pieces.values()) or None

    @property
    def lightest(self) -> float | None:
        """The lightest piece's weight, if the pieces are known."""
        return min(self.pieces.values()) if self.pieces else None

    def to_json(self) -> dict[str, Any]:
        """The ``scale.json`` document."""
        return {
            "counts_per_gram": round(self.counts_per_gram, 4),
            "offset": round(self.offset, 1),
            "noise": round(self.noise, 2),
            "pieces": {k: round(v, 2) for k, v in self.pieces.items()},
            "weight_grams": self.weight_grams,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibration | None:
        """A calibration from ``scale.json``; ``None`` when absent or unusable."""

        def number(v: Any) -> bool:  # json reads NaN and Infinity too: never a calibration
            return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)

        cpg, offset = data.get("counts_per_gram"), data.get("offset")
        if not number(cpg) or cpg == 0 or not number(offset):
            return None
        pieces = data.get("pieces") or {}
        if not isinstance(pieces, dict):
            pieces = {}
        pieces = {str(k): float(v) for k, v in pieces.items() if number(v) and v > 0}
        noise = data.get("noise", 0.0)
        weight = data.get("weight_grams", 0.0)
        return cls(
            float(cpg),
            float(offset),
            float(noise) if number(noise) else 0.0,
            pieces,
            float(weight) if number(weight) else 0.0,
        )


@dataclass(frozen=True)
class Step:
    """One step of a calibration: what it measures and what the person does first."""

    name: str
    """``tare``, ``weight``, ``unload`` or ``piece``."""
    text: str
    kind: str | None = None


class CalibrationRun:
    """The steps of one calibration; :meth:`take` measures the current step's window.

    A refused window raises :class:`CalibrationError` and the step stays, to be measured again.
    """

    def __init__(self, weight_grams: float, kinds: Mapping[str, str]) -> None:
        if not weight_grams > 0:
            raise CalibrationError("the known weight must be more than 0 g")
        self.weight_grams = float(weight_grams)
        w = weight_grams
        self.steps = [
            Step("tare", T("Empty the bin")),
            Step("weight", T("Put the {grams:g} g weight in the bin", grams=w)),
            Step("unload", T("Take the {grams:g} g weight out", grams=w)),
            *(Step("piece", T("Add one {piece}", piece=label), kind) for kind, label in kinds.items()),
        ]
        self.labels = dict(kinds)
        self.index = 0
        self.empty: Level | None = None
        self.previous: Level | None = None
        self.cpg: float | None = None
        self.pieces: dict[str, float] = {}

    @property
    def step(self) -> Step:
        """The step to measure next."""
        return self.steps[min(self.index, len(self.steps) - 1)]

    @property
    def done(self) -> bool:
        """Whether every step is measured."""
        return self.index >= len(self.steps)

    def take(self, samples: Sequence[int]) -> str:
        """Measure the current step from its window; returns what was found, and moves on."""
        if self.done:
            raise CalibrationError("the calibration is complete")
        level = measure(samples)
        step = self.step
        if step.name == "tare":
            self.empty = level
            message = T("empty bin: {counts:.0f} counts (noise ±{noise:.0f})", counts=level.counts, noise=level.noise)
        else:
            assert self.empty is not None and self.previous is not None
            check_still(level, self.empty)
            if step.name == "weight":
                self.cpg = counts_per_gram(self.empty, level, self.weight_grams)
                message = T("{cpg:.2f} counts per gram", cpg=self.cpg)
            elif step.name == "unload":
                assert self.cpg is not None
                off = (level.counts - self.empty.counts) / self.cpg
                if abs(off) > UNLOAD_GRAMS:
                    raise CalibrationError(
                        T("not back to empty ({grams:+.1f} g): take all out, measure again", grams=off)
                    )
                message = T("back to empty ({grams:+.1f} g)", grams=off)
            else:
                assert self.cpg is not None and step.kind is not None
                label = self.labels[step.kind]
                grams = piece_grams(self.previous, level, self.cpg, label)
                self.pieces[step.kind] = grams
                message = T("{piece}: {grams:.1f} g", piece=label, grams=grams)
        self.previous = level
        self.index += 1
        return message

    def result(self) -> Calibration:
        """The finished calibration."""
        if not self.done or self.empty is None or self.cpg is None:
            raise CalibrationError("the calibration is not complete")
        return Calibration(self.cpg, self.empty.counts, self.empty.noise, dict(self.pieces), self.weight_grams)
