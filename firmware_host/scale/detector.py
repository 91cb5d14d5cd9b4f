"""The load-cell event detector: raw samples in, ``place`` / ``fall`` / ``fault`` events out.

Pure: no clock, no I/O; the same code runs live (:mod:`firmware_host.scale.service`) and in
``tablemate scale detect``. Time is whatever the caller says ``t`` is.

How it decides (``docs/detector.md`` has the reasons and the measured figures):

1. **Impossible codes** — ``-1`` (all ones: DOUT stuck high) and the full-scale codes
   ``0x7FFFFF`` / ``-0x800000`` — are dropped; a run of full-scale codes is a ``saturated`` fault.
2. **Reference** — the first second (at least 3 samples) is the bin standing still: its median is
   the first settled weight, its spread the first noise estimate, its timestamps the rate when
   none is given.
3. **Spikes** — while settled, a reading far (``spike_k`` noise deviations) from the rolling
   median is held back one reading: when the next one is back at the median it was a spike and
   is dropped; otherwise both go on (the load really moved).
4. **Stability** — over a window of at least ``window_min_samples`` readings and ``window_s``
   seconds: the medians of the window's halves agree (no trend; from 12 readings its outer
   thirds too: no bump) and its spread, less its farthest reading, is no wider than the noise
   allows (no hand on the pile) — or within ``settle_fraction`` of a piece, on a cell so quiet
   that the bin's last ringing would hold the decision up. Medians let a stray reading or two
   through without effect.
5. **Events** — only when a stable window's median differs from the last *reported* weight by
   half a piece (``min_step_grams`` without piece weights; never less than ``event_k`` standard
   errors), and the new level has held: 0.08 s for a fall; 0.2 s for a place of 1-3 whole
   pieces whose last half second of readings passes the hand test (:meth:`Detector._hand_like`:
   a hand wavers and drifts, a pile does not) and, at 40 SPS and more, that showed its landing
   (the bin rings when a piece drops); a doubtful place is judged again from 0.5 s on; 2 s when
   the rise is not a few whole pieces. ``place`` upward, ``fall`` downward, ``pieces`` the
   nearest whole number of one kind's pieces. Smaller differences — a hand that pressed and let
   go, creep, drift — are followed slowly (``track_s``), never in one jump.
   A place whose weight goes straight back within ``retract_s`` (no press in between), from a
   level that went again within ``hand_rest_s``, looked like a hand in hindsight (any sign of
   one up to ``hand_late_s``, a clear one later), or rested on the way back, is taken back:
   ``retract``. A drop straight back past the last two places, the second of them not whole
   pieces (a hand counted, then its drift counted too), takes both back.
   A fall decided within ``fall_join_s`` of the last one ``joins`` it (pieces of one fall
   sliding out apart). :func:`final_events` gives the events as they stand once nothing can be
   taken back, a joining fall added to the one before.
6. **Noise** — re-estimated every second (MAD of that second) and taken as the lower quartile
   of the last minute's estimates, so handling, even most of the time, does not inflate it.
7. **Faults** — a gap in the timestamps (read timeouts), the same raw value over and over
   (a stuck line), saturation and spike storms (every corrupted read counted: codes, short runs
   of -1, isolated or wild excursions, bit slips; a quarter of the readings over 1 s, or over
   2 s for a sparser storm) are each reported once, then not again until the sensor
   has been healthy for ``fault_clear_s``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from drivers.scale.faults import ALL_ONES, FULL_SCALE, MIN_CODE  # the HX711's codes: constants only
from games.core.text import T

PLACE, FALL, FAULT, RETRACT = "place", "fall", "fault", "retract"
SETTLED, DISTURBED = "settled", "disturbed"

FULL_SCALE_CODES = (FULL_SCALE, MIN_CODE)
"""The HX711's saturation codes (and a frequent bit-slip glitch)."""

GAP, STUCK, SATURATED, SPIKES = "gap", "stuck", "saturated", "spikes"
"""Fault kinds; each is reported once per episode."""

_MAD_TO_SIGMA = 1.4826
_MEDIAN_SE = 1.2533  # standard error of a median relative to that of a mean, for Gaussian noise


@dataclass(frozen=True)
class ScaleEvent:
    """A settled change of the pile (``place``, ``fall``) or a sensor ``fault``.

    ``t`` is the time of the sample at which the detector knew; ``grams`` the settled change
    (negative for a fall); ``pieces`` the whole number of pieces it stands for. ``joins``: a
    fall that is more of the fall just reported (pieces sliding out one after another), not a
    fall of its own — the game has ended the turn for that one already.
    """

    t: float
    event: str
    grams: float = 0.0
    pieces: int = 0
    reason: str = ""
    joins: bool = False

    def to_json(self) -> dict:
        """The ``scale detect`` output object of the contract."""
        out: dict = {"t": round(self.t, 3), "event": self.event, "grams": round(self.grams, 1), "pieces": self.pieces}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class Tuning:
    """The detector's constants. Tuned on the bench's tuning seeds (``tablemate bench scale``)."""

    reference_s: float = 1.0
    """The start of the trace that is taken as the still, loaded bin."""
    window_min_samples: int = 6
    """Stability window: at least this many samples ..."""
    window_s: float = 0.25
    """... and at least this long."""
    trend_k: float = 4.0
    """Halves (and, from 12 readings, outer thirds) of a stable window differ by at most this
    many standard errors."""
    spread_k: float = 2.0
    """A stable window's spread (RMS less its farthest reading) is at most this many noise deviations."""
    settle_fraction: float = 0.08
    """Trend and spread within this fraction of the lightest piece always count as stable."""
    recent_k: float = 3.0
    """From 12 readings, an event waits until the mean of the window's last quarter is within
    this many standard errors of the new level."""
    spike_k: float = 8.0
    """A sample this many noise deviations off the rolling median is held as a spike candidate."""
    spike_contrast: float = 4.0
    """For the storm count, a reading is a spike when it jumps away from both neighbours by this
    many times the neighbours' own difference (a trembling hand's readings do not)."""
    event_fraction: float = 0.5
    """An event needs a settled change of this fraction of the lightest piece ..."""
    event_k: float = 6.0
    """... and at least this many standard errors of a window's level."""
    min_step_grams: float = 1.5
    """Without piece weights: the smallest settled change reported (half of a 3 g piece)."""
    place_confirm_s: float = 0.2
    """A heavier settled weight that looks like 1-3 pieces must stay stable (within ``confirm_k``
    standard errors) this long, beyond one stable window, and pass the hand test
    (``hand_spread_k``, ``hand_trend_k``, ``hand_block_k``) before it is reported."""
    odd_place_confirm_s: float = 2.0
    """The same for a rise that does not look like pieces placed one by one (more than
    ``likely_place_pieces`` pieces, or further than ``likely_place_fit`` of a piece from a whole
    number): more likely a hand resting on the pile."""
    likely_place_pieces: int = 3
    """(Players place one piece at a time; two or three fall in together now and then.)"""
    likely_place_fit: float = 0.25
    fall_confirm_s: float = 0.08
    """The same for a lighter one: long enough that a rim lifted for a moment is not a fall,
    short enough to report a fall within half a second of the pile settling."""
    likely_fall_fit: float = 0.3
    """A drop further than this fraction of a piece from a whole number of pieces ..."""
    odd_fall_confirm_s: float = 0.5
    """... must hold this long (a rim lifted by a hand for half a second is not a fall)."""
    partial_fall_confirm_s: float = 1.0
    """A drop to a level between a place just counted (within ``retract_s``) and the weight
    before it must hold this long: a hand easing off in steps moves on, pieces stay."""
    confirm_k: float = 4.0
    """While confirming, the level stays within this many standard errors ..."""
    confirm_spread_k: float = 1.4
    """... and its readings' RMS about that level is at most this many noise deviations."""
    confirm_spread_fraction: float = 0.04
    """(The RMS may always reach this fraction of the lightest piece: creep and ringing.)"""
    hand_spread_k: float = 2.0
    """A place's readings (the stable window and the hold) scatter by at most this many noise
    deviations about their mean: a hand's waver (0.5-2 g) adds to the sensor's noise."""
    hand_trend_k: float = 4.0
    """... the means of their halves differ by at most this many standard errors: a hand drifts."""
    hand_block_k: float = 3.0
    """... and, from 16 readings, means of blocks of 4 scatter by at most this many times what the
    noise allows: a hand's waver is slow, so it survives the averaging that the noise does not."""
    doubtful_place_confirm_s: float = 0.5
    """A place that failed the hand test once is judged again on its latest readings after this."""
    retract_scale: float = 0.45
    """A place whose weight goes straight back from ``hand_rest_s`` to ``hand_late_s`` after it was
    reported is taken back when its level, seen over its life, looked like a hand by the hand test
    with its limits times this: tight limits, so the faintest waver or drift is a hand's (a hand
    that held still for half a second still rests there a second or two later; a piece falls
    out on its own at any time, as likely now as later)."""
    mid_retract_scale: float = 0.6
    """The same on a quiet cell (noise under ``quiet_noise_grams``): there a hand's waver shows
    plainly, so a level that did not waver was pieces."""
    quiet_noise_grams: float = 0.4
    """A hand cannot hold a force steadier than about 0.5 g (its waver, 0.5-2 g); with the cell's
    noise below this the hand test sees it, above it the waver hides in the noise and time decides."""
    late_retract_scale: float = 1.0
    """Later than ``hand_late_s`` the hand test's own limits: a hand rests a few seconds, so a level
    that stays longer must clearly have wavered to have been one."""
    unlanded_retract_scale: float = 0.75
    """The limits are times this for a place that showed no landing (at 40 SPS and more): more
    likely a hand, so judged tighter; a piece set down gently and then falling out on its own
    still lies as still as wood before it goes. Never tighter than ``retract_scale``, the
    faintest sign of a hand: tighter still, a noisy cell's own noise looks like one."""
    several_retract_scale: float = 0.6
    """The same for a place of two pieces or more (never tighter than ``retract_scale`` either):
    players place one piece at a time, two or three fall in together now and then, while a hand
    weighs tens of grams as often as a few, so a hand taken for pieces is taken for two or three
    as often as for one."""
    press_fraction: float = 0.5
    """A place whose level rose by more than this fraction of its weight (and half a piece) before
    it went is a fall, never a take-back: something pressed on the pile. A hand resting there
    drifts by about 8 % of its force a square-root second, under a third of it in 4 s."""
    press_k: float = 4.0
    """... and by this many times the scatter of the place's own readings (a hand that wavers by
    grams reaches grams higher without pressing)."""
    hand_rest_s: float = 2.5
    """A place whose weight goes straight back (no press seen, no ringing of the bin) this soon
    after it was reported is taken back whatever its level looked like: a hand held as still as
    wood for half a second lifts off within a second or two; later (up to ``retract_s``) only a
    place that wavered like a hand is."""
    hand_late_s: float = 3.25
    """From ``hand_rest_s`` to this the hand test is tight (``retract_scale``), after it loose
    (``late_retract_scale``)."""
    ring_s: float = 0.25
    """At 40 SPS and more a drop straight back is a piece falling out, never a hand lifting off,
    when in this long after the weight went the readings swing below the new level and back above
    it: a piece leaves the pile at once and the bin rings; a hand eases off over a tenth of a
    second or more and the bin follows it smoothly. (Below 40 SPS a conversion averages the
    ringing away.)"""
    ring_k: float = 4.0
    """The swing: two readings below the new level and one above it after them, each by this many
    noise deviations ..."""
    ring_fraction: float = 0.1
    """... and this fraction of the place's weight ..."""
    ring_cap: float = 4.0
    """... but within this many times its weight (a farther reading is a corrupted read, not the
    bin: a falling piece's kick reaches one to three times its weight)."""
    landing_overshoot: float = 0.5
    """At 40 SPS and more a place that did not overshoot its level by this much of the step
    (no ringing seen: perhaps a hand laid on the pile) is judged as a doubtful one."""
    hand_samples_s: float = 0.5
    """The hand test looks at the readings of at least this long (the window and the hold)."""
    retract_s: float = 4.0
    """A place that, in hindsight, wavered like a hand and whose weight goes straight back
    within this long is taken back (a ``retract`` event), not reported as a fall."""
    confirm_creep: float = 0.005
    """While confirming, the level may also creep by this fraction of the change (a heavy load
    settling into the cell); a hand drifts faster."""
    track_s: float = 2.0
    """Time constant with which the settled weight follows creep and drift."""
    noise_block_s: float = 1.0
    """The noise is estimated per block of at least this long ..."""
    noise_block_samples: int = 10
    """... and this many readings, ..."""
    noise_blocks: int = 60
    """... over the last this many blocks."""
    noise_growth: float = 3.0
    """The noise estimate stays below this multiple of the lowest one so far."""
    gap_s: float = 1.0
    """A gap between samples longer than this (and than ``gap_periods`` periods) is a fault."""
    gap_periods: float = 5.0
    stuck_s: float = 0.6
    """The same raw value for this long (and ``stuck_samples`` samples) is a stuck sensor."""
    stuck_samples: int = 6
    suspect_repeats: int = 5
    """From this many identical readings on, they are kept out of the window."""
    saturated_samples: int = 3
    storm_s: float = 1.0
    """Spike storm: over this span ..."""
    storm_fraction: float = 0.25
    """... at least this fraction of the readings bad (and ``storm_min`` of them)."""
    storm_min: int = 4
    storm_long_s: float = 2.0
    """A sparser storm: over this span, as large a share bad and at least ``storm_long_min``. At
    10 SPS, 6 of 20 readings: the recordings' own bad readings (about 1 %) never come more than
    3 in any 20, while a storm that shows only 3 bad reads in a second goes on showing them."""
    storm_long_min: int = 6
    storm_load_fraction: float = 0.2
    """An excursion counts towards a storm only when it is also this fraction of the load above
    the settled weight (a hand pressing 800 g jitters by tens of grams)."""
    storm_wild_pieces: float = 50.0
    """Excursions in a row count towards a storm when each is beyond both its neighbours, which
    differ by as much, by more than this many of the lightest piece (150-600 g: corrupted reads
    of thousands of grams; a brush of up to 100 g zigzags at 10 SPS, a press ramps)."""
    slip_bits: int = 8
    """A reading whose raw code ends in this many one-bits or more ..."""
    slip_k: float = 4.0
    """... and lies this many noise deviations above the window's level, in counts, is a bit slip
    (the HX711 shifted ones in: DOUT read high), a corrupted read for the storm count even when it
    is too small, or too near other bad reads, to count as an isolated excursion. On a still pile
    a real reading lies that far up about once in 30,000 and ends so once in 256 of those; under a
    hand, one in 256 of its readings (well under the recordings' own 0.9 % of bad reads)."""
    fault_clear_s: float = 5.0
    """A fault kind is reported again only after this long without a sign of it."""
    fall_join_s: float = 0.6
    """A fall decided within this long of the last reported fall (nothing reported between) is
    more of that fall: pieces of one fall slide out one after another, a few tenths of a second
    apart, while two falls of their own are a bin emptied and refilled apart."""


def _median_sorted(s: Sequence[float]) -> float:
    n = len(s)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def _scatter(values: Sequence[float], detrend: bool = False) -> float:
    """The standard deviation of ``values`` about their mean, or (``detrend``) about the straight
    line that fits them best: over seconds a pile creeps and the cell drifts along a line, while a
    hand's waver goes up and down."""
    n = len(values)
    mean = sum(values) / n
    if not detrend or n < 4:
        return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    xm = (n - 1) / 2
    sxx = sum((i - xm) ** 2 for i in range(n))
    slope = sum((i - xm) * (v - mean) for i, v in enumerate(values)) / sxx
    return math.sqrt(sum((v - mean - slope * (i - xm)) ** 2 for i, v in enumerate(values)) / (n - 2))


def piece_fit(grams: float, weights: Sequence[float]) -> tuple[int, float]:
    """The whole number of pieces of one kind that ``grams`` (either sign) stands for, and how
    far off that is, as a fraction of a piece.

    With several kinds, the kind whose multiple comes closest (relative to its weight) wins;
    ties go to fewer pieces. At least 1: an event is never smaller than half a piece.
    """
    size = abs(grams)
    best = (math.inf, 0)
    for w in weights:
        n = max(1, math.floor(size / w + 0.5))
        best = min(best, (abs(size - n * w) / w, n))
    return best[1], best[0]


def piece_count(grams: float, weights: Sequence[float]) -> int:
    """The whole number of pieces ``grams`` stands for (0 when no piece weight is known)."""
    return piece_fit(grams, weights)[0] if weights else 0


class Detector:
    """Follows one load cell's samples and reports settled changes.

    ``counts_per_gram`` converts raw counts to grams (its sign is the cell's wiring);
    ``piece_grams`` is the weight of one piece, or a list of the weights of several kinds
    (``None``: events carry ``pieces`` 0 and need a change of ``min_step_grams``); ``sps`` the
    nominal sample rate (``None``: measured over the reference second).
    """

    def __init__(
        self,
        counts_per_gram: float,
        piece_grams: float | Sequence[float] | None = None,
        sps: float | None = None,
        tuning: Tuning | None = None,
    ) -> None:
        if not math.isfinite(counts_per_gram) or counts_per_gram == 0:
            raise ValueError("counts per gram must be a non-zero number")
        if sps is not None and not (math.isfinite(sps) and sps > 0):
            raise ValueError("samples per second must be a positive number")
        self.counts_per_gram = float(counts_per_gram)
        self.piece_grams = piece_grams
        self.piece_weights: tuple[float, ...] = _weights(piece_grams)
        self.sps = float(sps) if sps is not None else None
        self.tuning = tuning or Tuning()
        self.state = DISTURBED
        """``settled`` while the last window was stable, else ``disturbed``."""
        self.settled_grams: float | None = None
        """The last settled weight, in grams of raw / counts_per_gram (None before the reference)."""
        self.zero_grams: float | None = None
        """The reference weight (the first second, or the last :meth:`rezero`)."""
        self.grams: float | None = None
        """The latest accepted reading in grams (for a live monitor)."""
        self.noise_grams: float | None = None
        """The current estimate of the noise of one reading (standard deviation, grams)."""
        self.samples = 0
        """Samples fed so far."""
        self.dropped = 0
        """Samples dropped as impossible codes, spikes or a stuck line."""
        # the noise is never taken below a third of a count (whole counts: a quiet cell can read
        # the same value twice); readings with fractions (a trace already in grams) lower it
        self._sigma_floor = 0.3 / abs(self.counts_per_gram)
        self._last_t: float | None = None
        self._ref: list[tuple[float, float]] = []
        self._ref_t0: float | None = None
        self._window: deque[float] = deque()
        self._history: deque[float] = deque(maxlen=1)  # the last second of readings (sized with the rate)
        self._n = 0  # window length in samples, fixed once the rate is known
        self._median = 0.0
        self._held: float | None = None
        self._last2: tuple[float | None, float | None] = (None, None)
        self._slip_before = False
        """Whether the reading before this one was a bit slip (judged with it, on the next one)."""
        self._run_raw: float | None = None
        self._run_n = 0
        self._run_t0 = 0.0
        self._block: list[float] = []
        self._block_t0: float | None = None
        self._noise: deque[float] = deque(maxlen=self.tuning.noise_blocks)
        self._noise_low = math.inf
        tu = self.tuning
        self._storm_bars = (_BadShare(tu.storm_s, tu.storm_min), _BadShare(tu.storm_long_s, tu.storm_long_min))
        """A storm's two bars: a quarter of the last second's readings, or of the last two's."""
        self._faults: dict[str, float] = {}  # kind -> last time a sign of it was seen
        self._candidate: _Change | None = None
        """A change being confirmed."""
        self._landing: bool | None = None
        """Whether the change being confirmed showed a landing (None: not judged yet)."""
        self._plateau: _Plateau | None = None
        """The level of the last place reported, while it may still be taken back."""
        self._last_fall: float | None = None
        """When the last event reported was a fall, its time (for :attr:`Tuning.fall_join_s`)."""
        self._rezero = False

    # -- public -------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """True once the reference second has been taken."""
        return self.settled_grams is not None

    @property
    def net_grams(self) -> float | None:
        """The settled weight above the reference (``None`` before the reference)."""
        if self.settled_grams is None or self.zero_grams is None:
            return None
        return self.settled_grams - self.zero_grams

    def rezero(self, now: bool = False) -> None:
        """Take the next settled weight as the new reference, without an event.

        For after the bin was emptied and refilled: the handling in between reports nothing.
        ``now``: when the pile is settled, its level this moment is the reference at once (the
        refill was just confirmed on that level: a piece placed a moment later must count, not
        sink into a reference still to be taken).
        """
        self._candidate = None
        self._landing = None
        self._plateau = None
        if now and self.state == SETTLED and self.settled_grams is not None and len(self._window) >= self._n:
            self._rezero = False
            self.settled_grams = self.zero_grams = self._median
            return
        self._rezero = True

    def fault(self, t: float, reason: str) -> list[ScaleEvent]:
        """A fault the driver saw (a read timeout); reported once like the detector's own."""
        return self._raise(t, reason.split(":", 1)[0].strip() or "driver", reason)

    def feed(self, t: float, raw: float) -> list[ScaleEvent]:
        """One sample; returns the events it completes (usually none)."""
        if self._last_t is not None and not t > self._last_t:
            return []  # time must increase; a sample from the past is ignored
        tu = self.tuning
        self.samples += 1
        events: list[ScaleEvent] = []
        if self._last_t is not None:
            gap = t - self._last_t
            period = 1.0 / self.sps if self.sps else 0.0
            if gap > max(tu.gap_s, tu.gap_periods * period):
                events += self._raise(t, GAP, T("gap: no samples for {seconds:.1f} s", seconds=gap))
                self._restart()
        self._last_t = t
        self._clear_faults(t)

        # 1. impossible codes and stuck lines
        if raw == self._run_raw:
            self._run_n += 1
        else:
            if self._run_raw == ALL_ONES and 1 < self._run_n < tu.suspect_repeats:
                # a short run of -1 that ended: no stuck line but corrupted reads, each of them
                # (its first was counted as it came)
                for _ in range(self._run_n - 1):
                    events += self._storm_note(t, True)
            self._run_raw, self._run_n, self._run_t0 = raw, 1, t
        if raw in FULL_SCALE_CODES:
            if self._run_n < tu.saturated_samples:
                return events + self._drop(t)  # a glitch
            self.dropped += 1
            return events + self._raise(t, SATURATED, T("saturated: full-scale readings"))
        # real readings always wobble by a count or more: a repeated value is a stuck line
        # (unless the trace's noise is below a count, as in a trace rounded to whole grams)
        if (raw == ALL_ONES or self._noise_counts() >= 2.0) and self._run_n >= tu.suspect_repeats:
            self.dropped += 1
            if self._run_n >= tu.stuck_samples and t - self._run_t0 >= tu.stuck_s:
                events += self._raise(
                    t, STUCK, T("stuck: raw {raw:g} for {seconds:.1f} s", raw=raw, seconds=t - self._run_t0)
                )
            return events
        if raw == ALL_ONES:
            if self._run_n > 1:  # perhaps the start of a stuck line: judged when the run ends
                self.dropped += 1
                return events
            return events + self._drop(t)
        if self._sigma_floor > 1e-6 and raw != int(raw):
            self._sigma_floor = 1e-6
        grams = raw / self.counts_per_gram

        # 2. the reference second
        if self.settled_grams is None:
            self._reference(t, grams)
            return events

        # 3. spikes: count isolated excursions (for storms); while settled, hold a far sample
        # back one sample and drop it when the next one is back at the median
        events += self._storm_note(t, self._isolated(grams) or self._slip_before)
        self._slip_before = self._slipped(raw)
        if self._held is not None:
            held, self._held = self._held, None
            if abs(grams - self._median) <= self._spike_limit():
                self.dropped += 1  # the held sample was a spike
            else:
                self._push(held)  # the load really moved
        elif self.state == SETTLED and len(self._window) >= self._n and abs(grams - self._median) > self._spike_limit():
            self._held = grams
            return events
        self._push(grams)
        self._note_noise(t, grams)
        return events + self._evaluate(t)

    # -- internals ----------------------------------------------------------------------------
    def _reference(self, t: float, grams: float) -> None:
        if self._ref_t0 is None:
            self._ref_t0 = t
        self._ref.append((t, grams))
        if t - self._ref_t0 < self.tuning.reference_s or len(self._ref) < 3:
            return
        times = [x[0] for x in self._ref]
        values = [x[1] for x in self._ref]
        if self.sps is None:
            steps = sorted(b - a for a, b in pairwise(times))
            self.sps = 1.0 / _median_sorted(steps)
        self._n = max(self.tuning.window_min_samples, math.ceil(self.tuning.window_s * self.sps - 1e-9))
        level = _median_sorted(sorted(values))
        mad = _median_sorted(sorted(abs(v - level) for v in values))
        self._noise.append(max(_MAD_TO_SIGMA * mad, self._sigma_floor))
        self._set_noise()
        self.settled_grams = self.zero_grams = level
        self._median = level
        self._window = deque(values[-self._n :], maxlen=self._n)
        self._history = deque(maxlen=max(1, math.ceil(self.sps)))
        self.grams = values[-1]
        self.state = SETTLED
        self._ref = []

    def _restart(self) -> None:
        """After a gap: the window starts afresh (the settled weight is kept)."""
        self._window.clear()
        self._held = None
        self._last2 = (None, None)
        self._slip_before = False
        self._candidate = None
        if self.settled_grams is not None:
            self.state = DISTURBED

    def _push(self, grams: float) -> None:
        self._window.append(grams)
        self._history.append(grams)
        self.grams = grams

    def _drop(self, t: float) -> list[ScaleEvent]:
        self.dropped += 1
        return self._storm_note(t, True)

    def _isolated(self, grams: float) -> bool:
        """Whether the previous reading was an isolated excursion (away from both neighbours,
        which agree with each other, by more than a spike and half a piece: smaller ones, like a
        trembling hand's readings at 10 SPS, cannot upset a count); judged on the next reading.

        A reading judged bad is no neighbour for the next one (as an impossible code is none):
        in a storm a small bit slip next to a wild read is judged against the good reading
        before the wild one. And two or three wild reads in a row, each beyond both its
        neighbours and those neighbours as far apart (corrupted reads disagree with each other),
        by more than ``storm_wild_pieces`` pieces, count too: no hand or landing moves a pile
        that far and back within one reading."""
        tu = self.tuning
        before, current = self._last2
        self._last2 = (current, grams)
        if before is None or current is None:
            return False
        jump = min(abs(current - before), abs(current - grams))
        # a hand pressing hard jitters in proportion to its force: a fifth of the load above the
        # settled weight is not a corrupted read (the load as the nearer neighbour has it: the
        # other may be a corrupted read itself)
        settled = self.settled_grams if self.settled_grams is not None else before
        load = min(abs(before - settled), abs(grams - settled))
        # a still pile has no hand on it: there an excursion of a spike's size counts (a bit slip
        # of a gram or two); while it moves only one that could upset a count
        floor = 0.0 if self.state == SETTLED else tu.event_fraction * self._unit()
        limit = max(self._spike_limit(), floor, tu.storm_load_fraction * load)
        if jump <= limit:
            return False
        bad = abs(grams - before) * tu.spike_contrast < jump
        if not bad:
            wild = max(limit, tu.storm_wild_pieces * self._unit())
            bad = jump > wild and abs(grams - before) > wild and (current - before) * (current - grams) > 0
        if bad:
            self._last2 = (before, grams)
        return bad

    def _slipped(self, raw: float) -> bool:
        """Whether a reading is a bit slip: its code ends in ``slip_bits`` one-bits or more and it
        lies ``slip_k`` noise deviations above the window's level (a slip only ever sets bits, so
        it reads higher in counts whatever the cell's wiring)."""
        tu = self.tuning
        if raw != int(raw) or self.settled_grams is None:
            return False
        ones = (1 << tu.slip_bits) - 1
        if int(raw) & ones != ones:
            return False
        return raw - self._median * self.counts_per_gram > tu.slip_k * self._noise_counts()

    def _storm_note(self, t: float, dropped: bool) -> list[ScaleEvent]:
        """Keep the share of bad readings (impossible codes, isolated excursions, bit slips) over
        the last ``storm_s`` and ``storm_long_s``; a storm of them is a fault."""
        for bar in self._storm_bars:
            bar.note(t, dropped)
        if not dropped:
            return []
        if SPIKES in self._faults:
            self._faults[SPIKES] = t  # the storm goes on: every bad reading is a sign of it
        fraction = self.tuning.storm_fraction
        for bar in self._storm_bars:
            if bar.bad >= bar.least and bar.bad >= fraction * len(bar.readings):
                share = 100.0 * bar.bad / len(bar.readings)
                return self._raise(t, SPIKES, T("spikes: {share:.0f}% of readings dropped", share=share))
        return []

    def _noise_counts(self) -> float:
        return (self.noise_grams or 0.0) * abs(self.counts_per_gram)

    def _sigma(self) -> float:
        return self.noise_grams or self._sigma_floor

    def _spike_limit(self) -> float:
        return self.tuning.spike_k * self._sigma()

    def _note_noise(self, t: float, grams: float) -> None:
        """Every ``noise_block_s`` (and ``noise_block_samples``), one more noise estimate."""
        if self._block_t0 is None:
            self._block_t0 = t
        self._block.append(grams)
        tu = self.tuning
        if t - self._block_t0 < tu.noise_block_s or len(self._block) < tu.noise_block_samples:
            return
        self._noise.append(self._block_sigma(self._block))
        self._set_noise()
        self._block = []
        self._block_t0 = None

    def _block_sigma(self, values: list[float]) -> float:
        s = sorted(values)
        m = _median_sorted(s)
        mad = _median_sorted(sorted(abs(v - m) for v in s))
        return max(_MAD_TO_SIGMA * mad, self._sigma_floor)

    def _set_noise(self) -> None:
        """The noise is the lower quartile of the recent estimates, corrected for that choice.

        Seconds in which a hand or a landing piece moved the load only raise the upper part of the
        estimates; as long as a quarter of the recent seconds were still, the estimate holds.
        The lower quartile of MAD estimates from n Gaussian readings is about 1 - 1.05/sqrt(n)
        of the true deviation (checked by simulation for n from 10 to 100). A bin handled from
        the start could still inflate it: it never exceeds ``noise_growth`` times the lowest
        estimate so far (noisier surroundings then make the detector slower, never looser).
        """
        s = sorted(self._noise)
        n = max(10, self.tuning.noise_block_samples)
        estimate = max(s[len(s) // 4] / (1.0 - 1.05 / math.sqrt(n)), self._sigma_floor)
        self._noise_low = min(self._noise_low, estimate)
        self.noise_grams = min(estimate, self.tuning.noise_growth * self._noise_low)

    def _evaluate(self, t: float) -> list[ScaleEvent]:
        window = self._window
        n = len(window)
        if n < self._n:
            self.state = DISTURBED
            return []
        tu = self.tuning
        values = list(window)
        level = _median_sorted(sorted(values))
        self._median = level
        if self._plateau is not None:
            self._plateau.peak = max(self._plateau.peak, level)
        half = n // 2
        first = _median_sorted(sorted(values[:half]))
        second = _median_sorted(sorted(values[n - half :]))
        sigma = self._sigma()
        floor = tu.settle_fraction * self._unit()
        trend_limit = max(tu.trend_k * _MEDIAN_SE * sigma * math.sqrt(2.0 / half), floor)
        unstable = abs(second - first) > trend_limit
        if not unstable and n >= 12:
            # a long window also compares its outer thirds: a bump (a rim lifted for a moment)
            # has halves that agree
            third = n // 3
            a = _median_sorted(sorted(values[:third]))
            c = _median_sorted(sorted(values[n - third :]))
            limit3 = max(tu.trend_k * _MEDIAN_SE * sigma * math.sqrt(2.0 / third), floor)
            unstable = abs(c - a) > limit3
        # spread: RMS about the median, leaving out the one farthest reading
        squares = sorted((v - level) ** 2 for v in values)
        spread = math.sqrt(sum(squares[:-1]) / (n - 1))
        if unstable or spread > max(tu.spread_k * sigma, floor):
            # a change being confirmed waits: a hand that pressed and left, a knock, does not
            # restart it when the level comes back to it (its hold still counts from the start)
            self.state = DISTURBED
            return []
        assert self.settled_grams is not None
        self.state = SETTLED
        if self._rezero:
            self._rezero = False
            self._plateau = None
            self.settled_grams = self.zero_grams = level
            return []
        step = level - self.settled_grams
        threshold = self._event_threshold(n)
        plateau = self._plateau
        if plateau is not None:
            # a place may be taken back when its level starts to go within retract_s (a drop that
            # began in time and is confirmed a moment later still counts), not when it goes later
            age = t - plateau.t
            if age > tu.retract_s + tu.odd_place_confirm_s or (age > tu.retract_s and abs(step) < threshold):
                self._plateau = plateau = None
            elif abs(step) < threshold:
                plateau.readings.append(values[-1])
        if plateau is not None and abs(step) >= threshold and abs(level - plateau.before) >= threshold:
            plateau.wandered = True  # still at a level that is neither: a hand easing off
        if abs(step) < threshold:
            # creep, drift, a hand that left a trace: followed slowly, never in one jump (a
            # brush could otherwise walk the settled weight up in sub-threshold steps)
            self._candidate = None
            self._landing = None
            self.settled_grams += step / max(1.0, tu.track_s * (self.sps or 10.0))
            return []
        if step < 0:
            fits = not self.piece_weights or piece_fit(step, self.piece_weights)[1] <= tu.likely_fall_fit
            confirm = tu.fall_confirm_s if fits else tu.odd_fall_confirm_s
            if plateau is not None and level - plateau.before >= threshold:
                # part of a place just counted goes again: perhaps a hand easing off in steps
                confirm = max(confirm, tu.partial_fall_confirm_s)
        elif self._likely_place(step):
            confirm = tu.place_confirm_s
        else:
            confirm = tu.odd_place_confirm_s
        # in a long window the latest readings must agree with the new level: the median lags,
        # and a rim lifted for a moment is already coming back when the median gets there
        if n >= 12:
            m = n // 4
            recent = sum(values[-m:]) / m
            if abs(recent - level) > max(tu.recent_k * sigma / math.sqrt(m), floor):
                return []
        if not self._confirmed(t, level, step, threshold, confirm, n, values):
            return []
        cand = self._candidate
        assert cand is not None
        if step > 0 or len(cand.readings) >= 2 * n:
            # the mean of the readings it held for: a finer level than one window's median
            level = cand.mean
            step = level - self.settled_grams
        self._candidate = None
        self._landing = None
        before = self.settled_grams
        self.settled_grams = level
        undone = self._undone(plateau, level, threshold, t) if step < 0 and plateau is not None else []
        if undone:
            self._plateau = None
            self._last_fall = None
            return [ScaleEvent(t, RETRACT, -p.grams, p.pieces, "a hand, not pieces") for p in undone]
        pieces = piece_count(step, self.piece_weights)
        if step > 0:
            if plateau is not None:
                plateau.prior = None  # a chain of two at most: the place before may be the same hand
            self._plateau = _Plateau(
                t, before, level, step, pieces, list(cand.readings), level, not cand.unlanded, prior=plateau
            )
            self._last_fall = None
            return [ScaleEvent(t, PLACE, step, pieces)]
        self._plateau = None
        joins = self._last_fall is not None and t - self._last_fall <= tu.fall_join_s
        if not joins:
            self._last_fall = t  # a joined piece does not stretch the fall further
        return [ScaleEvent(t, FALL, step, pieces, joins=joins)]

    def _confirmed(
        self, t: float, level: float, step: float, threshold: float, confirm: float, n: int, window: list[float]
    ) -> bool:
        """Whether a changed level has held long enough, near enough and still enough.

        The stable readings since the change was first seen (with the window it was seen in) are
        kept; the window's level must stay within ``tolerance`` of their mean. A fall only has to
        hold (a tenth of a second is too short to judge a hand by, and a fall must be quick). A
        place must also look like pieces (:meth:`_hand_like`): a hand wavers and drifts, a pile of
        pieces does not. One that looks like a hand is given the odd places' longer hold and
        judged again over all of it.
        """
        tu = self.tuning
        sigma = self._sigma()
        se = _MEDIAN_SE * sigma / math.sqrt(n)
        tolerance = max(tu.confirm_k * se, 0.1 * threshold, tu.confirm_creep * abs(step))
        assert self.grams is not None
        cand = self._candidate
        if cand is not None and abs(level - cand.mean) > tolerance:
            cand = None
        if cand is None:
            # a spike that came while the pile moved is still in the window (the spike filter
            # holds readings back only while settled): the median shrugs it off, the candidate's
            # mean would not, and every next window would seem to have left it. A fall's mean
            # leaves out the farthest reading if that is a spike (a place's keeps it: a place
            # seen again from a clean window passes the hand test sooner)
            far = max(window, key=lambda v: abs(v - level))
            spike = step < 0 and abs(far - level) > self._spike_limit()
            total = sum(window) - (far if spike else 0.0)
            self._candidate = _Change(t, list(window), total, len(window) - spike)
            if step > 0 and self._landing is None:  # judged once per change, at its first level
                self._landing = self._landed(level, step, n)
            if step > 0 and not self._landing:
                self._candidate.doubtful = self._candidate.unlanded = True
            return False
        cand.readings.append(self.grams)
        cand.total += self.grams
        cand.count += 1
        held = t - cand.since
        if cand.doubtful:
            confirm = max(confirm, tu.doubtful_place_confirm_s)
        if held < confirm:
            return False
        if step < 0:
            return True
        need = math.ceil(tu.hand_samples_s * (self.sps or 10.0))
        if len(cand.readings) < need:
            return False
        if not self._hand_like(cand.readings[-need:] if cand.doubtful else cand.readings, step):
            return True
        # it wavered or drifted as readings do not: perhaps a hand. Judged again on the latest
        # readings as they come, but only after the odd places' longer hold
        cand.doubtful = True
        return False

    def _hand_like(self, values: list[float], step: float, scale: float = 1.0, hindsight: bool = False) -> bool:
        """Whether readings at a new level waver or drift more than the sensor's noise lets them.

        Three tests, each in noise deviations: the scatter about the mean (leaving out the
        farthest reading: a spike), the difference of the halves' means (a hand drifts; a pile
        creeps only by ``confirm_creep`` of the change) and, from 16 readings, the scatter of the
        means of blocks of 4 (a hand's waver is slow: it survives averaging, the noise does not).
        """
        tu = self.tuning
        sigma = self._sigma()
        floor = tu.confirm_spread_fraction * self._unit()
        k = len(values)
        mean = sum(values) / k
        squares = sorted((v - mean) ** 2 for v in values)
        # leave out the farthest reading (a spike); over seconds of readings the farthest 2 %
        # (a real cell's noise has heavy tails)
        keep = k - (max(1, k // 50) if hindsight else 1)
        spread = math.sqrt(sum(squares[:keep]) / keep)
        if spread > scale * max(tu.hand_spread_k * sigma, floor):
            return True
        half = k // 2
        trend = abs(sum(values[k - half :]) / half - sum(values[:half]) / half)
        trend_floor = tu.settle_fraction * self._unit()
        if trend > scale * max(tu.hand_trend_k * sigma * math.sqrt(2.0 / half), trend_floor) + tu.confirm_creep * abs(
            step
        ):
            return True
        if k >= 16:
            blocks = [sum(values[i : i + 4]) / 4 for i in range(0, k - 3, 4)]
            bspread = _scatter(blocks, detrend=hindsight)
            if bspread > scale * max(tu.hand_block_k * sigma / 2, floor):
                return True
        return False

    def _landed(self, level: float, step: float, n: int) -> bool:
        """Whether, at 40 SPS and more, the second before the new level shows a landing: the bin
        rings when a piece drops onto the pile, and the readings overshoot the new level by
        ``landing_overshoot`` of the step (3-reading means, so the noise does not); a hand laid
        on the pile rises smoothly to its force. Below 40 SPS a conversion averages the ringing
        away: always True."""
        if (self.sps or 0.0) < 40.0:
            return True
        before = list(self._history)[:-n]
        if len(before) < 3:
            return True
        peak = max(sum(before[i : i + 3]) / 3 for i in range(len(before) - 2))
        return peak >= level + self.tuning.landing_overshoot * step

    def _undone(self, plateau: _Plateau, level: float, threshold: float, t: float) -> list[_Plateau]:
        """The places a drop to ``level`` takes back, the last first: the place just reported
        (:meth:`_taken_back`), or that one and the place before it, when the last one was a rise
        of a fraction of a piece (a level that drifted up after it was counted: a hand; a rise of
        more than a piece that is not whole pieces is a hand pressing, which knocks pieces out)
        and the weight goes straight back to where it was before both, with no press seen and no
        ringing of the bin."""
        if self._taken_back(plateau, level, threshold, t):
            return [plateau]
        prior = plateau.prior
        if (
            prior is not None
            and plateau.grams < self._unit()
            and not self._likely_place(plateau.grams)
            and t - prior.t <= self.tuning.retract_s + self.tuning.odd_place_confirm_s
            and abs(level - prior.before) < threshold
            and not self._pressed(plateau, self._own_readings(plateau, threshold), threshold)
            and not self._rang(plateau, level, t)
        ):
            return [plateau, prior]
        return []

    def _taken_back(self, plateau: _Plateau, level: float, threshold: float, t: float) -> bool:
        """Whether a drop undoes the place just reported: straight back to the weight before it
        (no press on the pile in between: a press that knocks pieces out is a fall; and, at 40 SPS
        and more, no ringing of the bin as it went: a falling piece kicks it), from a level
        that rested on the way back, went again as soon as a resting hand lifts off
        (``hand_rest_s``), or, seen over its whole life, wavered like a hand: on any sign up to
        ``hand_late_s`` (a plain one on a quiet cell), on a clear one later, judged tighter for a
        place that showed no landing or stood for several pieces (but never tighter than the
        faintest sign)."""
        if abs(level - plateau.before) >= threshold:
            return False
        own = self._own_readings(plateau, threshold)
        if self._pressed(plateau, own, threshold) or self._rang(plateau, level, t):
            return False
        if plateau.wandered:
            # the level rested on the way back: pieces fall out at once, a hand eases off
            return True
        tu = self.tuning
        if t - plateau.t <= tu.hand_rest_s:
            # a resting hand lifts off within a second or two of being counted; a piece falls out
            # on its own that soon only when knocked, and a knock is a press seen above
            return True
        # later, landed or not (a piece set down gently does not ring the bin): only a level that
        # wavered or drifted like a hand over its whole life was one; a piece lies still
        if t - plateau.t > tu.hand_late_s:
            scale = tu.late_retract_scale
        elif self._sigma() < tu.quiet_noise_grams:
            scale = tu.mid_retract_scale
        else:
            scale = tu.retract_scale
        if not plateau.landed:
            scale *= tu.unlanded_retract_scale
        if plateau.pieces >= 2:
            scale *= tu.several_retract_scale
        scale = max(scale, tu.retract_scale)  # tighter still, a noisy cell's noise looks like a hand
        return self._hand_like(own, plateau.grams, scale, hindsight=True)

    def _rang(self, plateau: _Plateau, level: float, t: float) -> bool:
        """Whether, at 40 SPS and more, the bin rang as the weight of a place went back to
        ``level``: within ``ring_s`` of the first reading since the place nearer ``level``, two readings
        swing below ``level`` and one after them above it, each by ``ring_k`` noise deviations and
        ``ring_fraction`` of the place (readings beyond ``ring_cap`` places are corrupted reads).
        A piece that falls out kicks the bin; a hand lifts off smoothly."""
        tu = self.tuning
        if (self.sps or 0.0) < 40.0:
            return False
        history = list(self._history)
        middle = (plateau.level + level) / 2
        since = max(0, len(history) - int((t - plateau.t) * self.sps))
        gone = next((i for i in range(since, len(history)) if history[i] < middle), len(history))
        step = plateau.grams
        swing = max(tu.ring_k * self._sigma(), tu.ring_fraction * step)
        after = [x - level for x in history[gone : gone + int(tu.ring_s * self.sps)]]
        after = [x for x in after if abs(x) < tu.ring_cap * step]
        below = [i for i, x in enumerate(after) if x < -swing]
        return len(below) >= 2 and any(x > swing for x in after[below[0] + 1 :])

    def _own_readings(self, plateau: _Plateau, threshold: float) -> list[float]:
        """The readings of a place's level itself, from its second window on (the first one may
        still hold the landing's last ringing) to the first reading of its last window that is
        half a piece off: the window's median lags, so the last window may already hold the
        first readings of what came next, a drop or a press (at 80 SPS a falling piece's kick
        rings the bin for a tenth of a second and more, and a pressing hand rises for as long:
        neither is the level's own waver)."""
        n = self._n
        v = plateau.readings[n:] if len(plateau.readings) >= 3 * n else plateau.readings
        for i in range(max(0, len(v) - n), len(v)):
            if abs(v[i] - plateau.level) > threshold:
                return v[:i] if i >= n else v
        return v

    def _pressed(self, plateau: _Plateau, v: list[float], threshold: float) -> bool:
        """Whether something pressed on the level of a place before it went: its window's level
        rose by half a piece, by ``press_fraction`` of the place and by ``press_k`` times the
        scatter of its own readings ``v`` (a resting hand's drift and waver reach that far)."""
        tu = self.tuning
        mean = sum(v) / len(v)
        scatter = math.sqrt(sum((x - mean) ** 2 for x in v) / len(v))
        rise = plateau.peak - plateau.level
        return rise > max(threshold, tu.press_fraction * plateau.grams, tu.press_k * scatter)

    def _likely_place(self, step: float) -> bool:
        """A rise that looks like pieces placed one by one: a few of them, near a whole number."""
        if not self.piece_weights:
            return True
        n, off = piece_fit(step, self.piece_weights)
        return n <= self.tuning.likely_place_pieces and off <= self.tuning.likely_place_fit

    def _unit(self) -> float:
        """The lightest piece (without piece weights: twice the smallest step reported)."""
        return min(self.piece_weights) if self.piece_weights else 2 * self.tuning.min_step_grams

    def _event_threshold(self, n: int) -> float:
        tu = self.tuning
        return max(tu.event_fraction * self._unit(), tu.event_k * _MEDIAN_SE * self._sigma() / math.sqrt(n))

    def _raise(self, t: float, kind: str, reason: str) -> list[ScaleEvent]:
        seen = self._faults.get(kind)
        self._faults[kind] = t
        if seen is not None:
            return []
        return [ScaleEvent(t, FAULT, 0.0, 0, reason)]

    def _clear_faults(self, t: float) -> None:
        if not self._faults:
            return
        limit = self.tuning.fault_clear_s
        for kind in [k for k, seen in self._faults.items() if t - seen > limit]:
            del self._faults[kind]


class _BadShare:
    """The bad readings among those of the last ``span`` seconds (one bar of a spike storm)."""

    def __init__(self, span: float, least: int) -> None:
        self.span = span
        self.least = least
        """A storm needs at least this many bad readings, besides their share."""
        self.readings: deque[tuple[float, bool]] = deque()
        self.bad = 0

    def note(self, t: float, bad: bool) -> None:
        """Count a reading at ``t`` and forget those older than ``span``."""
        self.readings.append((t, bad))
        self.bad += bad
        while self.readings[0][0] < t - self.span:
            self.bad -= self.readings.popleft()[1]


@dataclass
class _Change:
    """A new level being confirmed: since when, its readings (from the window it was first seen
    in), their sum, and whether it has once looked like a hand."""

    since: float
    readings: list[float]
    total: float
    count: int
    """How many readings ``total`` sums (the readings but a spike in the first window)."""
    doubtful: bool = False
    unlanded: bool = False

    @property
    def mean(self) -> float:
        """The level it has held at."""
        return self.total / self.count


@dataclass
class _Plateau:
    """The level a place was reported at, followed while it may still be taken back."""

    t: float
    before: float
    level: float
    grams: float
    pieces: int
    readings: list[float]
    peak: float
    landed: bool = True
    wandered: bool = False
    prior: _Plateau | None = None
    """The place reported just before this one, while it could still be taken back."""


def final_events(events: Sequence[ScaleEvent]) -> list[ScaleEvent]:
    """The events as they stand once nothing more can be taken back: a place followed by its
    ``retract`` is left out, and so is the ``retract``; a fall that ``joins`` the one before is
    added to it (one fall of all its pieces, at the first one's time). What ``scale detect``
    prints, and what the bench scores."""
    out: list[ScaleEvent] = []
    for e in events:
        if e.joins:
            i = next((i for i in range(len(out) - 1, -1, -1) if out[i].event == FALL), None)
            if i is not None:
                first = out[i]
                out[i] = replace(first, grams=first.grams + e.grams, pieces=first.pieces + e.pieces)
                continue
        if e.event == RETRACT:
            for i in range(len(out) - 1, -1, -1):
                if out[i].event == PLACE:
                    del out[i]
                    break
            continue
        out.append(e)
    return out


def _weights(piece_grams: float | Sequence[float] | None) -> tuple[float, ...]:
    if piece_grams is None:
        return ()
    values = (piece_grams,) if isinstance(piece_grams, int | float) else tuple(piece_grams)
    out = tuple(float(w) for w in values)
    if any(not (math.isfinite(w) and w > 0) for w in out):
        raise ValueError("piece weights must be positive numbers")
    return out
