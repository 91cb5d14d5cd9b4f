"""Labelled load-cell traces for the detector bench: a bin on a cell, pieces, hands and faults.

A trace is what the HX711 would have read under a Tonne bin during part of a game: the true load
(bin, pile, the pieces placed and fallen, hands pressing and brushing, creep, drift) converted to
counts at 10 or 80 samples per second, with **real** noise, spikes and read glitches replayed from
the coffee-pot recordings (:mod:`bench.recordings`) and, in the fault traces,
sensor faults. Each trace carries its labels (:class:`Truth`).

Everything random comes from one seeded ``random.Random``; the seed's split (``tune`` or
``held-out``) also picks which recordings the noise and the press shapes come from, so a
held-out trace shares neither seed nor real material with the traces the detector was tuned on.

Physical choices (and why):

- Cells: 1 kg at 1.0 mV/V ±15 % is about 2,150 counts per gram on the HX711 at gain 128;
  5 kg about 430. The sign is random (a cell mounted the other way round reads negative).
- Noise: one HX711 channel's real deviations (50–180 counts rms) times 1.0–1.6 for a worse
  installation; at 80 SPS times 1.8 more (the datasheet's 90 nV against 50 nV input noise).
- A conversion averages the load over its period (the HX711's filter), so a 30 ms knock does
  not read as a full-height spike.
- Pieces: one kind per trace, 3–12 g, each piece within ±8 % of its kind (wood).
- A piece landing rings the bin on the cell (8–25 Hz, 1–6 times its weight, dying in
  0.05–0.2 s); sometimes it bounces once; sometimes the placing hand touches the pile.
- A fall: 1–6 pieces slide off together (within 0.3 s), each kicking the bin; sometimes a hand
  is on the pile.
- A press: 20–800 g (log-uniform) for 0.3–5 s, either a real press shape or a hand model
  (rise, hold with drift, 8–12 Hz tremor, release), both with a hand's 0.5–2 g waver; a little
  hysteresis after.
- A brush: 5–100 g for 0.05–0.5 s, sometimes lifting (negative).
- A hand resting on the pile or the rim: 5–300 g for 1–3 s, trembling (the hand model), then
  lifted straight off — the case a quick place must not take for pieces.
- Places in a run: 2–4 pieces, each 2–4 s after the one before (a player working through what
  they owe).
- A place, then, after 1.5–3 s of stillness, a hand pressing on the pile knocks the same
  pieces out: the settled weight ends where it was before the place (both must be reported).
- Creep after a change (up to 1 % of it, 2–20 s; a third of the time also a slow one of up to
  2 % over 20–90 s), slow settling of the pile (up to 0.4 of a piece over 10–60 s, no event) and
  drift (up to ±2 g a minute).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.recordings import NoiseClip, PressShape, noise_clips, press_shapes

PLACE, FALL, PRESS, BRUSH, REST, CREEP = "place", "fall", "press", "brush", "rest", "creep"
HANDS = (PRESS, BRUSH, REST, CREEP)
"""Episodes that must give no event (a false event near one is counted against the hands)."""
GAP, STUCK, SATURATED, SPIKES = "gap", "stuck", "saturated", "spikes"
FAULT_KINDS = (GAP, STUCK, SATURATED, SPIKES)

CELLS = {"1kg": (1800.0, 2500.0, 150.0, 350.0), "5kg": (380.0, 480.0, 300.0, 900.0)}
"""Cell name -> counts per gram range and empty-bin weight range (grams)."""
NOISE_80_SPS = 1.8
"""HX711 input noise at 80 SPS relative to 10 SPS (datasheet: 90 nV against 50 nV rms)."""


@dataclass(frozen=True)
class Truth:
    """One labelled episode of a trace.

    For ``place`` / ``fall``: ``grams`` the settled change, ``pieces`` how many, ``settled`` when
    the load stayed within a tenth of a piece of its new weight. For ``press`` / ``brush``: the
    peak force, and ``settled`` when the hand left. For faults: the span of the fault.
    """

    kind: str
    start: float
    settled: float
    grams: float = 0.0
    pieces: int = 0


@dataclass
class Trace:
    """Samples and labels of one generated trace."""

    name: str
    split: str
    sps: int
    cell: str
    counts_per_gram: float
    piece_grams: float
    noise_grams: float
    times: list[float] = field(default_factory=list)
    raw: list[int] = field(default_factory=list)
    truth: list[Truth] = field(default_factory=list)

    @property
    def duration(self) -> float:
        """Seconds covered by the samples."""
        return self.times[-1] - self.times[0] if self.times else 0.0


# -- the load model -------------------------------------------------------------------------------
Force = Callable[[float], float]


@dataclass
class _Part:
    """A force on the cell from ``t0`` to ``t1`` (grams)."""

    t0: float
    t1: float
    force: Force


class _Load:
    """The true load: steps that stay, and parts that come and go."""

    def __init__(self, base: float) -> None:
        self.steps: list[tuple[float, float]] = []  # (t, grams), kept in time order by the builder
        self.parts: list[_Part] = []
        self.base = base
        self.drift: Force = lambda t: 0.0

    def step(self, t: float, grams: float) -> None:
        self.steps.append((t, grams))

    def add(self, t0: float, t1: float, force: Force) -> None:
        self.parts.append(_Part(t0, t1, force))

    def sampler(self) -> Callable[[float], float]:
        """A function of increasing ``t`` giving the load (sweeps the parts once)."""
        steps = sorted(self.steps)
        parts = sorted(self.parts, key=lambda p: p.t0)
        state = {"i": 0, "j": 0, "level": self.base}
        active: list[_Part] = []

        def at(t: float) -> float:
            while state["i"] < len(steps) and steps[state["i"]][0] <= t:
                state["level"] += steps[state["i"]][1]
                state["i"] += 1
            while state["j"] < len(parts) and parts[state["j"]].t0 <= t:
                active.append(parts[state["j"]])
                state["j"] += 1
            total = state["level"] + self.drift(t)
            for p in list(active):
                if t >= p.t1:
                    active.remove(p)
                else:
                    total += p.force(t)
            return total

        return at


def _ring(t0: float, amp: float, freq: float, tau: float) -> Force:
    """A damped oscillation of the bin on the cell after a knock."""
    w = 2 * math.pi * freq
    return lambda t: amp * math.exp(-(t - t0) / tau) * math.sin(w * (t - t0))


def _bump(t0: float, dur: float, amp: float) -> Force:
    """A half-sine push (a brush, a bounce)."""
    return lambda t: amp * math.sin(math.pi * (t - t0) / dur) if t0 <= t <= t0 + dur else 0.0


def _creep(t0: float, amp: float, tau: float) -> Force:
    """Load-cell creep after a change: approaches ``amp`` with time constant ``tau``."""
    return lambda t: amp * (1 - math.exp(-(t - t0) / tau)) if t >= t0 else 0.0


def _waver(rng: random.Random, seconds: float) -> Callable[[float], float]:
    """A hand's waver, whatever its force: 0.5-2 g, correlated over about 0.15 s (below ~5 % of a
    finger's strength a hand cannot hold a force steadier than about 0.01 N)."""
    sd = rng.uniform(0.5, 2.0)
    points = [0.0]
    for _ in range(int(seconds / 0.05) + 4):
        points.append(0.7 * points[-1] + rng.gauss(0.0, sd * math.sqrt(1 - 0.7**2)))

    def at(x: float) -> float:  # x: seconds since the hand arrived
        k = min(max(0, int(x / 0.05)), len(points) - 2)
        f = x / 0.05 - k
        return points[k] + f * (points[k + 1] - points[k])

    return at


def _hand(rng: random.Random, t0: float, peak: float, rise: float, hold: float, fall: float) -> Force:
    """A hand model: smooth rise, a hold that drifts and trembles, smooth release.

    The force drifts (a random walk of about 8 % of the force per square-root second), trembles
    (8-12 Hz, 1-3 %) and wavers (:func:`_waver`)."""
    walk = [0.0]
    for _ in range(int((rise + hold + fall) / 0.05) + 4):  # force drift: ~8 % of the force per sqrt(second)
        walk.append(walk[-1] + rng.gauss(0.0, 0.08 * math.sqrt(0.05)))
    waver = _waver(rng, rise + hold + fall)
    tremor_f = rng.uniform(8.0, 12.0)
    tremor_a = rng.uniform(0.01, 0.03)
    phase = rng.uniform(0, 2 * math.pi)
    t1, t2, t3 = t0 + rise, t0 + rise + hold, t0 + rise + hold + fall

    def force(t: float) -> float:
        if t < t0 or t > t3:
            return 0.0
        if t < t1:
            env = 0.5 - 0.5 * math.cos(math.pi * (t - t0) / rise)
        elif t <= t2:
            env = 1.0
        else:
            env = 0.5 + 0.5 * math.cos(math.pi * (t - t2) / fall)
        k = min(int((t - t0) / 0.05), len(walk) - 1)
        wobble = 1.0 + walk[k] + tremor_a * math.sin(2 * math.pi * tremor_f * t + phase)
        return max(0.0, env * (peak * max(0.2, wobble) + waver(t - t0)))

    return force


def _shape(rng: random.Random, shape: PressShape, t0: float, peak: float, stretch: float) -> Force:
    """A real press shape scaled to ``peak``; a pump press of 10 kg wavers by a few percent, which
    scaled down to a few tens of grams is steadier than a hand: the hand's waver is added."""
    waver = _waver(rng, shape.duration * stretch)

    def force(t: float) -> float:
        f = shape.at((t - t0) / stretch)
        return max(0.0, peak * f + min(1.0, 5 * f) * waver(t - t0))

    return force


# -- the builder ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """What kind of trace to make."""

    split: str
    seed: int
    sps: int
    cell: str
    minutes: float
    mode: str = "game"
    """``game`` (places, falls, presses, brushes), ``quiet`` (no pile change: presses, brushes,
    creep and drift only) or ``faults`` (a game with sensor faults in it)."""


def make_trace(plan: Plan, data_dir: Path) -> Trace:
    """Generate one labelled trace."""
    rng = random.Random(f"{plan.split}/{plan.seed}/{plan.sps}/{plan.cell}/{plan.mode}")
    clips = [c for c in noise_clips(data_dir) if c.split == plan.split]
    shapes = [s for s in press_shapes(data_dir) if s.split == plan.split]
    lo, hi, bin_lo, bin_hi = CELLS[plan.cell]
    cpg = rng.uniform(lo, hi) * (-1 if rng.random() < 0.3 else 1)
    offset = rng.uniform(-300_000, 300_000)
    kind_w = rng.uniform(3.0, 12.0)
    clip = rng.choice(clips)
    noise_factor = rng.uniform(1.0, 1.6) * (NOISE_80_SPS if plan.sps == 80 else 1.0)
    base = rng.uniform(bin_lo, bin_hi) + sum(rng.uniform(3.0, 12.0) for _ in range(rng.randint(0, 12)))
    load = _Load(base)
    rate = rng.uniform(-2.0, 2.0) / 60.0
    wave_a, wave_p = rng.uniform(0.0, 0.5), rng.uniform(200.0, 900.0)
    load.drift = lambda t: rate * t + wave_a * math.sin(2 * math.pi * t / wave_p)
    duration = plan.minutes * 60.0
    truth: list[Truth] = []
    faults: list[Truth] = []

    def piece() -> float:
        return kind_w * min(1.08, max(0.92, rng.gauss(1.0, 0.03)))

    t = 3.0  # the first seconds stand still (the reference)
    while True:
        t += rng.uniform(2.0, 10.0)
        if t > duration - 8.0:
            break
        roll = rng.random()
        if plan.mode == "quiet":
            roll = 0.72 + 0.28 * roll  # hands and creep only
        if roll < 0.40:
            t = _place(rng, load, truth, t, piece, kind_w)
        elif roll < 0.48:
            t = _place_run(rng, load, truth, t, piece, kind_w)
        elif roll < 0.54:
            t = _place_then_fall(rng, load, truth, t, piece, kind_w)
        elif roll < 0.72:
            t = _fall(rng, load, truth, t, piece, kind_w)
        elif roll < 0.82:
            t = _press(rng, load, truth, t, shapes)
        elif roll < 0.90:
            t = _rest(rng, load, truth, t)
        elif roll < 0.97:
            t = _brush(rng, load, truth, t)
        else:
            t = _settling(rng, load, truth, t, kind_w)
        if plan.mode == "faults" and rng.random() < 0.25 and t < duration - 30.0:
            kind = FAULT_KINDS[len(faults) % len(FAULT_KINDS)]
            start = t + rng.uniform(3.0, 6.0)
            span = {GAP: (1.5, 6.0), STUCK: (2.0, 8.0), SATURATED: (1.0, 5.0), SPIKES: (5.0, 15.0)}[kind]
            faults.append(Truth(kind, start, start + rng.uniform(*span)))
            t = faults[-1].settled + 3.0

    trace = Trace(
        f"{plan.split}/{plan.mode}/seed{plan.seed}/{plan.sps}sps/{plan.cell}",
        plan.split,
        plan.sps,
        plan.cell,
        cpg,
        kind_w,
        _clip_rms(clip) * noise_factor / abs(cpg),
    )
    trace.truth = sorted(truth + faults, key=lambda u: u.start)
    _sample(rng, trace, load, clip, noise_factor, offset, duration, faults)
    return trace


def _place(
    rng: random.Random,
    load: _Load,
    truth: list[Truth],
    t: float,
    piece: Callable[[], float],
    w: float,
    out: list[float] | None = None,
) -> float:
    n = 1 if rng.random() < 0.9 else rng.choice((2, 2, 2, 3))
    grams = [piece() for _ in range(n)]
    if out is not None:
        out += grams
    start = t
    land = t + rng.uniform(0.3, 1.0)
    settle = land
    if rng.random() < 0.3:  # the placing hand touches the pile
        touch = rng.uniform(5.0, 40.0)
        t0 = land - rng.uniform(0.1, 0.5)
        rise, hold, fall = rng.uniform(0.05, 0.2), rng.uniform(0.1, 0.6), rng.uniform(0.05, 0.2)
        load.add(t0, t0 + rise + hold + fall, _hand(rng, t0, touch, rise, hold, fall))
        settle = max(settle, t0 + rise + hold + fall)
    for g in grams:
        tl = land + rng.uniform(0.0, 0.1)
        load.step(tl, g)
        amp, freq, tau = g * rng.uniform(1.0, 6.0), rng.uniform(8.0, 25.0), rng.uniform(0.05, 0.2)
        load.add(tl, tl + 8 * tau, _ring(tl, amp, freq, tau))
        settle = max(settle, tl + tau * math.log(max(1.0, amp / (0.1 * w))))
        if rng.random() < 0.2:  # a bounce: the piece is in the air for a moment
            tb, db = tl + rng.uniform(0.03, 0.1), rng.uniform(0.03, 0.08)
            load.add(tb, tb + db, _bump(tb, db, -g))
            settle = max(settle, tb + db)
        _add_creep(rng, load, tl, g)
    truth.append(Truth(PLACE, start, settle, sum(grams), n))
    return settle


def _fall(
    rng: random.Random,
    load: _Load,
    truth: list[Truth],
    t: float,
    piece: Callable[[], float],
    w: float,
    these: list[float] | None = None,
) -> float:
    k = rng.randint(1, 6) if these is None else len(these)
    grams = [piece() for _ in range(k)] if these is None else these
    start = t
    first = t + rng.uniform(0.2, 1.0)
    settle = first
    if these is not None or rng.random() < 0.3:  # a hand on the pile set it off, and leaves within half a second
        peak = math.exp(rng.uniform(math.log(20.0), math.log(300.0)))
        t0 = first - rng.uniform(0.2, 0.8)
        rise, fall = rng.uniform(0.1, 0.3), rng.uniform(0.1, 0.3)
        hold = max(0.1, first + rng.uniform(0.0, 0.5) - t0 - rise)
        load.add(t0, t0 + rise + hold + fall, _hand(rng, t0, peak, rise, hold, fall))
        settle = max(settle, t0 + rise + hold + fall)
    for g in grams:
        tl = first + rng.uniform(0.0, 0.3)
        load.step(tl, -g)
        amp, freq, tau = g * rng.uniform(0.5, 3.0), rng.uniform(8.0, 25.0), rng.uniform(0.05, 0.2)
        load.add(tl, tl + 8 * tau, _ring(tl, amp * rng.choice((-1, 1)), freq, tau))
        settle = max(settle, tl + tau * math.log(max(1.0, amp / (0.1 * w))))
        _add_creep(rng, load, tl, -g)
    truth.append(Truth(FALL, start, settle, -sum(grams), k))
    return settle


def _place_run(
    rng: random.Random, load: _Load, truth: list[Truth], t: float, piece: Callable[[], float], w: float
) -> float:
    """2-4 places, each begun 2-4 s after the one before."""
    end = t
    for _ in range(rng.randint(2, 4)):
        end = _place(rng, load, truth, t, piece, w)
        t = max(t + rng.uniform(2.0, 4.0), end + 0.3)
    return end


def _place_then_fall(
    rng: random.Random, load: _Load, truth: list[Truth], t: float, piece: Callable[[], float], w: float
) -> float:
    """A place; 1.5-3 s of stillness; a hand presses on the pile and knocks those pieces out."""
    placed: list[float] = []
    end = _place(rng, load, truth, t, piece, w, placed)
    return _fall(rng, load, truth, end + rng.uniform(1.5, 3.0), piece, w, placed)


def _rest(rng: random.Random, load: _Load, truth: list[Truth], t: float) -> float:
    """A hand resting on the pile or the bin's rim for 1-3 s, trembling, then lifted off."""
    peak = math.exp(rng.uniform(math.log(5.0), math.log(300.0)))
    rise, hold, fall = rng.uniform(0.1, 0.4), rng.uniform(1.0, 3.0), rng.uniform(0.1, 0.4)
    end = t + rise + hold + fall
    load.add(t, end, _hand(rng, t, peak, rise, hold, fall))
    truth.append(Truth(REST, t, end, peak))
    return end


def _settling(rng: random.Random, load: _Load, truth: list[Truth], t: float, w: float) -> float:
    """The pile settling slowly (a piece sliding into a gap): up to 0.4 of a piece over 10-60 s."""
    amp = w * rng.uniform(0.1, 0.4) * rng.choice((-1, 1))
    dur = rng.uniform(10.0, 60.0)
    load.add(t, t + dur, lambda x: amp * (x - t) / dur)
    load.step(t + dur, amp)
    truth.append(Truth(CREEP, t, t + dur, amp))
    return t + dur


def _press(rng: random.Random, load: _Load, truth: list[Truth], t: float, shapes: list[PressShape]) -> float:
    peak = math.exp(rng.uniform(math.log(20.0), math.log(800.0)))
    if shapes and rng.random() < 0.5:  # a real press, scaled and stretched
        shape = rng.choice(shapes)
        stretch = rng.uniform(0.3, 5.0) / shape.duration
        end = t + shape.duration * stretch
        load.add(t, end, _shape(rng, shape, t, peak, stretch))
    else:
        rise, hold, fall = rng.uniform(0.1, 0.5), rng.uniform(0.2, 4.0), rng.uniform(0.1, 0.4)
        end = t + rise + hold + fall
        load.add(t, end, _hand(rng, t, peak, rise, hold, fall))
    hysteresis = peak * rng.uniform(0.0, 0.0005)
    load.add(end, end + 60.0, lambda x: hysteresis * math.exp(-(x - end) / 5.0))
    truth.append(Truth(PRESS, t, end, peak))
    return end


def _brush(rng: random.Random, load: _Load, truth: list[Truth], t: float) -> float:
    peak = rng.uniform(5.0, 100.0) * (-1 if rng.random() < 0.2 else 1)
    end = t
    for _ in range(rng.choice((1, 1, 2))):
        dur = rng.uniform(0.05, 0.5)
        load.add(end, end + dur, _bump(end, dur, peak * rng.uniform(0.5, 1.0)))
        end += dur + rng.uniform(0.0, 0.2)
    truth.append(Truth(BRUSH, t, end, abs(peak)))
    return end


def _add_creep(rng: random.Random, load: _Load, t: float, grams: float) -> None:
    amp, tau = grams * rng.uniform(0.0, 0.01), rng.uniform(2.0, 20.0)
    load.add(t, t + 10 * tau, _creep(t, amp, tau))
    load.step(t + 10 * tau, amp)
    if rng.random() < 0.33:  # a slow creep as well
        amp, tau = grams * rng.uniform(0.0, 0.02), rng.uniform(20.0, 90.0)
        load.add(t, t + 10 * tau, _creep(t, amp, tau))
        load.step(t + 10 * tau, amp)


def _clip_rms(clip: NoiseClip) -> float:
    small = sorted(abs(d) for d in clip.deviation)[: int(0.98 * len(clip))]
    return math.sqrt(sum(d * d for d in small) / len(small))


def _sample(
    rng: random.Random,
    trace: Trace,
    load: _Load,
    clip: NoiseClip,
    factor: float,
    offset: float,
    duration: float,
    faults: list[Truth],
) -> None:
    """Convert the load to readings: conversion averaging, real noise and glitches, faults."""
    at = load.sampler()
    sps = trace.sps
    period = 1.0 / (sps * rng.uniform(0.99, 1.04))  # the HX711's own clock is not exact
    rms = _clip_rms(clip)
    spike = 8.0 * rms
    pos = rng.randrange(len(clip))
    extra_glitch = 0.0 if clip.codes else rng.uniform(0.0005, 0.003)
    cpg = trace.counts_per_gram
    fault_iter = iter(faults)
    fault = next(fault_iter, None)
    stuck: tuple[Truth, int] | None = None
    saturated = rng.choice((0x7FFFFF, -0x800000))
    t = 0.0
    while t < duration:
        t += period
        while fault is not None and t > fault.settled:
            fault = next(fault_iter, None)
        in_fault = fault is not None and fault.start <= t
        if in_fault and fault is not None and fault.kind == GAP:
            continue
        if rng.random() < 0.003:  # a reading the driver dropped (a slow clock pulse)
            continue
        sub = [at(t - period * (0.875 - 0.25 * i)) for i in range(4)]
        grams = sum(sub) / 4
        pos = (pos + 1) % len(clip)
        dev = clip.deviation[pos]
        code = clip.codes.get(pos)
        value = offset + grams * cpg + (dev if abs(dev) > spike else dev * factor)
        raw = max(-0x800000, min(0x7FFFFF, round(value)))
        if code is not None:
            raw = code
        elif rng.random() < extra_glitch:
            raw = rng.choice((-1, 0x7FFFFF))
        if in_fault and fault is not None:
            if fault.kind == STUCK:
                if stuck is None or stuck[0] is not fault:  # DOUT low, DOUT high, or a frozen value
                    stuck = (fault, rng.choice((0, -1, raw)))
                raw = stuck[1]
            elif fault.kind == SATURATED:
                raw = saturated
            elif fault.kind == SPIKES and rng.random() < 0.5:
                raw = _garble(rng, raw)
        trace.times.append(round(t, 4))
        trace.raw.append(raw)


def _garble(rng: random.Random, raw: int) -> int:
    """A corrupted read: a bit slip (ones shifted in), an all-ones or full-scale code, or noise."""
    roll = rng.random()
    if roll < 0.3:
        return rng.choice((-1, 0x7FFFFF))
    if roll < 0.7:
        bits = rng.randint(8, 22)
        value = (raw & 0xFFFFFF) | ((1 << bits) - 1)
        return value - 0x1000000 if value & 0x800000 else value
    return rng.randint(-0x800000, 0x7FFFFF)
