"""The real HX711 recordings of the Cambridge coffee pot, made into bench material.

The recordings (``bench/data/hx711-coffee-pot/``, Apache-2.0, see the README there) give four
things the synthetic traces are built from, each split into a **tuning** part and a **held-out**
part (:data:`TUNE`, :data:`HELD_OUT`) — the detector's constants were chosen on the tuning part
only, and the figures the bench reports come from the held-out part:

- :class:`NoiseClip` — the reading-to-reading noise, spikes and read glitches of a real HX711 on a
  Raspberry Pi, in counts of one channel;
- :class:`PressShape` — the force profile of a real hand pressing (the pot's pump plunger),
  normalised to a peak of 1, to be scaled to presses of 20–800 g on the pile;
- :class:`RealTrace` — whole recordings as ``scale detect`` traces (grams x 374, the recording's
  own calibration), with their settled changes labelled from the plateaus listed here.

Which part is which:

============================== ================================== ===============================
source                         tuning                             held-out
============================== ================================== ===============================
``save_1576677425.258.csv``    noise clip, real trace (no event)  —
``save_1576678474.837.csv``    —                                  noise clip (still stretches),
                                                                  2 press shapes, real trace
``2019-11-15_full_to_empty``   first 290 s: press shapes, trace   from 290 s: press shapes, trace
``2019-11-18_readings.txt``    channel 0 noise clip               channels 2 and 3 noise clips
============================== ================================== ===============================

Channel 1 of the readings log is left out: its load shifts (someone leaning on that corner) are
not noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from pathlib import Path

from bench.options import HELD_OUT, TUNE

COUNTS_PER_GRAM = 374.0
"""The recordings' own calibration: grams = sum of four tared channels / 374."""
CHANNEL_NOISE_PER_GRAM = COUNTS_PER_GRAM / 2
"""Counts of ONE channel per gram of the four-channel sum's noise: four independent channels add
up to twice one channel's noise, so one channel carries half of it."""
SPIKE_GRAMS = 15.0
"""A residual above this (grams of the sum) is a misread of one channel, not noise."""
TARE = (-396520, 271215, -261678, 655533)
"""The readings log's persisted tare per channel: raw code = logged value + tare."""
DATA_NAME = "hx711-coffee-pot"


def default_data_dir() -> Path | None:
    """``bench/data/hx711-coffee-pot`` beside this file, if there."""
    path = Path(__file__).resolve().parent / "data" / DATA_NAME
    return path if path.is_dir() else None


@dataclass(frozen=True)
class NoiseClip:
    """A real run of reading-to-reading deviations in counts of one HX711 channel.

    ``deviation[i]`` is added to the model's reading, unless ``codes[i]`` is set: then the
    reading IS that raw code (a real ``-1`` or ``0x7FFFFF`` read glitch).
    """

    name: str
    split: str
    deviation: tuple[float, ...]
    codes: dict[int, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.deviation)


@dataclass(frozen=True)
class PressShape:
    """A real press's force over time, normalised to a peak of 1 (times from its start)."""

    name: str
    split: str
    times: tuple[float, ...]
    force: tuple[float, ...]

    @property
    def duration(self) -> float:
        """Seconds from the first to the last point."""
        return self.times[-1]

    def at(self, t: float) -> float:
        """The force at ``t`` seconds into the press (linear between points, 0 outside)."""
        times = self.times
        if t <= 0 or t >= times[-1]:
            return 0.0
        lo, hi = 0, len(times) - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if times[mid] <= t:
                lo = mid
            else:
                hi = mid
        f = (t - times[lo]) / (times[hi] - times[lo])
        return self.force[lo] + f * (self.force[hi] - self.force[lo])


@dataclass(frozen=True)
class RealEvent:
    """A labelled settled change of a real recording: expected between ``after`` and ``settled``."""

    after: float
    """The end of the still stretch before it (seconds from the trace's start)."""
    settled: float
    """When the load had settled at its new weight."""
    grams: float
    """The change, measured as the difference of the two stretches' medians."""

    @property
    def kind(self) -> str:
        """``place`` or ``fall``."""
        return "place" if self.grams > 0 else "fall"


@dataclass(frozen=True)
class RealTrace:
    """A real recording as a ``scale detect`` trace (counts = grams x 374) and its labels."""

    name: str
    split: str
    times: tuple[float, ...]
    raw: tuple[int, ...]
    events: tuple[RealEvent, ...]

    @property
    def duration(self) -> float:
        """Seconds covered."""
        return self.times[-1] - self.times[0]


# -- the files ------------------------------------------------------------------------------------
def load_grams(path: Path) -> tuple[list[float], list[float]]:
    """A ``unix_ts,grams`` recording as times from its first sample and grams.

    Samples whose timestamp is not after the previous one (the logger's clock stepped back a
    few times) are left out: a trace's time must increase.
    """
    times: list[float] = []
    grams: list[float] = []
    t0: float | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        ts, g = line.split(",")
        t = float(ts)
        if t0 is None:
            t0 = t
        if times and t - t0 <= times[-1]:
            continue
        times.append(t - t0)
        grams.append(float(g))
    return times, grams


def load_channels(path: Path) -> list[tuple[int, int, int, int]]:
    """The raw codes of the four channels from the readings log, one tuple per reading."""
    out = []
    for m in re.finditer(r"get_weight readings \[ ([^\]]*) \]", path.read_text(encoding="utf-8")):
        logged = [int(x) for x in m.group(1).split(",")]
        raw = [v + tare for v, tare in zip(logged, TARE, strict=True)]
        out.append((raw[0], raw[1], raw[2], raw[3]))
    return out


def rolling_median(values: list[float], width: int = 31) -> list[float]:
    """A centred running median (the edges use the part of the window inside the data)."""
    half = width // 2
    out = []
    for i in range(len(values)):
        s = sorted(values[max(0, i - half) : i + half + 1])
        n = len(s)
        out.append(s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2)
    return out


# -- the material ---------------------------------------------------------------------------------
STILL_FILE = "save_1576677425.258.csv"
POURS_FILE = "save_1576678474.837.csv"
LIFTS_FILE = "2019-11-15_full_to_empty.csv"
READINGS_FILE = "2019-11-18_readings.txt"
LIFTS_SPLIT_AT = 290.0
"""``full_to_empty`` is cut here (inside a still stretch): before is tuning, after held-out."""

# Still stretches (start, end, seconds from the first sample), read off a plateau segmentation
# (2.5 s windows whose spread, less the extremes, is under 8 g) and checked by eye.
PLATEAUS: dict[str, tuple[tuple[float, float], ...]] = {
    STILL_FILE: ((0.0, 1051.0),),
    POURS_FILE: ((0.0, 368.8), (376.1, 624.8), (633.4, 1049.3)),
    LIFTS_FILE: (
        (0.0, 14.2),
        (15.41, 26.15),
        (27.5, 29.91),
        (35.92, 45.65),
        (46.45, 50.47),
        (53.44, 62.14),
        (62.41, 66.98),
        (72.12, 76.0),
        (76.67, 82.36),
        (84.79, 90.84),
        (104.22, 114.14),
        (125.55, 137.52),
        (150.02, 156.03),
        (170.09, 179.32),
        (192.55, 202.38),
        (216.4, 229.36),
        (245.59, 262.73),
        (280.18, 292.5),
        (315.14, 326.03),
        (327.47, 335.59),
        (336.67, 355.13),
        (355.4, 358.35),
        (360.02, 371.4),
        (371.6, 377.23),  # something of 7 g was put on the platform at 371.5 s
        (377.5, 406.25),
        (407.87, 422.11),
        (431.27, 444.26),
        (445.07, 623.47),
    ),
}
# the pump presses of the pours: (start, end) of the excursion above the still weight
PRESSES: dict[str, tuple[tuple[float, float], ...]] = {
    POURS_FILE: ((368.7, 376.1), (624.8, 633.4)),
    LIFTS_FILE: (
        (92.3, 103.0),
        (114.1, 120.2),
        (137.5, 149.8),
        (156.0, 169.2),
        (179.3, 192.6),
        (202.4, 216.5),
        (229.4, 245.2),
        (262.7, 280.3),
        (292.5, 314.9),
        (422.0, 431.4),
    ),
}


def _split_of(name: str, t: float) -> str:
    if name == STILL_FILE:
        return TUNE
    if name == POURS_FILE:
        return HELD_OUT
    return TUNE if t < LIFTS_SPLIT_AT else HELD_OUT


def _median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _between(times: list[float], grams: list[float], a: float, b: float) -> list[float]:
    return [g for t, g in zip(times, grams, strict=True) if a <= t <= b]


@cache
def noise_clips(data_dir: Path) -> tuple[NoiseClip, ...]:
    """Every noise clip, tuning and held-out."""
    clips = []
    for name, split in ((STILL_FILE, TUNE), (POURS_FILE, HELD_OUT)):
        times, grams = load_grams(data_dir / name)
        base = rolling_median(grams)
        for a, b in PLATEAUS[name]:
            dev = []
            for t, g, m in zip(times, grams, base, strict=True):
                if a + 2.0 <= t <= b - 2.0:  # keep clear of the presses
                    r = g - m
                    dev.append(r * COUNTS_PER_GRAM if abs(r) > SPIKE_GRAMS else r * CHANNEL_NOISE_PER_GRAM)
            if len(dev) > 600:
                clips.append(NoiseClip(f"{name}@{a:g}s", split, tuple(dev)))
    channels = load_channels(data_dir / READINGS_FILE)
    for ch, split in ((0, TUNE), (2, HELD_OUT), (3, HELD_OUT)):
        raw = [float(r[ch]) for r in channels]
        clean = [v for v in raw if v not in (-1.0, float(0x7FFFFF))]
        base = rolling_median(clean)
        it = iter(base)
        dev: list[float] = []
        codes: dict[int, int] = {}
        for i, v in enumerate(raw):
            if v in (-1.0, float(0x7FFFFF)):
                codes[i] = int(v)
                dev.append(0.0)
            else:
                dev.append(v - next(it))
        clips.append(NoiseClip(f"{READINGS_FILE}#ch{ch}", split, tuple(dev), codes))
    return tuple(clips)


@cache
def press_shapes(data_dir: Path) -> tuple[PressShape, ...]:
    """The real presses, each normalised to a peak force of 1."""
    shapes = []
    for name, presses in PRESSES.items():
        times, grams = load_grams(data_dir / name)
        for a, b in presses:
            still = PLATEAUS[name]
            p0 = max((p for p in still if p[1] <= a + 0.5), key=lambda p: p[1])
            p1 = min((p for p in still if p[0] >= b - 0.5), key=lambda p: p[0])
            before = _median(_between(times, grams, max(p0[0], p0[1] - 5.0), p0[1]))
            after = _median(_between(times, grams, p1[0], min(p1[1], p1[0] + 5.0)))
            pts = [(t, g) for t, g in zip(times, grams, strict=True) if a <= t <= b]
            # a three-point median takes out the odd misread inside the press
            vals = [g for _, g in pts]
            smooth = [_median(vals[max(0, i - 1) : i + 2]) for i in range(len(vals))]
            force = [
                max(0.0, g - before - (after - before) * (t - a) / (b - a))
                for (t, _), g in zip(pts, smooth, strict=True)
            ]
            peak = max(force)
            ts = (0.0, *(t - a + 0.05 for t, _ in pts), b - a + 0.1)
            fs = (0.0, *(f / peak for f in force), 0.0)
            shapes.append(PressShape(f"{name}@{a:g}s", _split_of(name, a), ts, fs))
    return tuple(shapes)


@cache
def real_traces(data_dir: Path) -> tuple[RealTrace, ...]:
    """The recordings as labelled traces (``full_to_empty`` cut in two at its split point)."""
    out = []
    for name in (STILL_FILE, POURS_FILE, LIFTS_FILE):
        times, grams = load_grams(data_dir / name)
        pieces = [(0.0, LIFTS_SPLIT_AT), (LIFTS_SPLIT_AT, times[-1] + 1)] if name == LIFTS_FILE else [(0.0, 1e9)]
        for lo, hi in pieces:
            plateaus = [p for p in PLATEAUS[name] if lo <= p[0] < hi or p[0] <= lo <= p[1]]
            events = []
            for (a0, a1), (b0, b1) in pairwise(plateaus):
                before = _median(_between(times, grams, max(a0, a1 - 5.0), a1))
                after = _median(_between(times, grams, b0, min(b1, b0 + 5.0)))
                if abs(after - before) >= 5.0:
                    events.append(RealEvent(a1 - lo, b0 - lo, after - before))
            idx = [i for i, t in enumerate(times) if lo <= t < hi]
            out.append(
                RealTrace(
                    f"{name}" + (f"@{lo:g}s" if lo else ""),
                    _split_of(name, lo),
                    tuple(times[i] - lo for i in idx),
                    tuple(round(grams[i] * COUNTS_PER_GRAM) for i in idx),
                    tuple(events),
                )
            )
    return tuple(out)
