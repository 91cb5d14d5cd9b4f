"""The simulator's load cell: the real HX711 driver reading a simulated HX711 chip.

The simulator's keys and the script command ``grams DELTA`` change :attr:`SimScale.grams`; the
chip (:mod:`drivers.scale.hx711_chip`) turns the load into counts (offset plus grams times
counts-per-gram, with seeded Gaussian noise) at its conversion rate, and adafruit's HX711 class
with our fixes (:mod:`drivers.scale.hx711`) clocks them out bit by bit, exactly as on the Pi.

With ``interface="spi"`` (the configuration's default) the driver is the SPI path's
(:class:`drivers.scale.hx711_spi.SpiHX711`) and the chip decodes its SPI transfers; otherwise the
GPIO path's, pin by pin.

No thread: the scale runs on the event loop's own timer (``call_later``), waking at the chip's
conversion times, so scripted sessions on virtual time stay deterministic. The chip and the
driver share a :class:`VirtualClock` that catches up with the loop's clock at each wake-up and
advances by the driver's microsecond waits during a read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.scale import FaultHandler, SampleHandler
from drivers.scale.faults import FaultWatch
from drivers.scale.hx711 import GAIN_PULSES, HX711, NotReady
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock

DEFAULT_OFFSET = 84_000
DEFAULT_COUNTS_PER_GRAM = 420.0
WAKE_AFTER = 1e-6
"""Wake this long after a conversion is due (float rounding must not make it early)."""


class SimScale:
    """A simulated HX711 and load cell read by the real driver on the loop's timer."""

    def __init__(
        self,
        call_later: Callable[[float, Callable[[], None]], Any],
        clock: Callable[[], float],
        sps: int = 10,
        offset: int = DEFAULT_OFFSET,
        counts_per_gram: float = DEFAULT_COUNTS_PER_GRAM,
        noise_counts: float = 150.0,
        seed: int = 1,
        gain: int = 128,
        interface: str = "gpio",
    ) -> None:
        self.sps = sps
        self._call_later = call_later
        self._clock = clock
        self.load = LoadModel(offset=offset, counts_per_gram=counts_per_gram, noise_counts=noise_counts)
        self.vclock = VirtualClock(clock())
        self.chip = HX711Chip(self.vclock, rate=sps, load=self.load, seed=seed)
        """The simulated chip: inject faults here (``chip.glitch(-1)``, ``chip.slow_pulse()``…)."""
        if interface == "spi":  # the SPI path's very bytes, decoded by the chip
            from drivers.scale.hx711_spi import SimSpiBus, SpiHX711

            self.hx: HX711 = SpiHX711(SimSpiBus(self.chip), sps=sps, timing=self.vclock)
        else:
            self.hx = HX711(self.chip.data_pin, self.chip.clock_pin, sps=sps, timing=self.vclock)
        self.pulses = GAIN_PULSES[gain]
        self.watch: FaultWatch | None = None
        self._handle: Any = None
        self._asleep = False

    @property
    def grams(self) -> float:
        """The load on the cell, in grams."""
        return self.load.grams

    @grams.setter
    def grams(self, value: float) -> None:
        self.load.grams = value

    @property
    def counts_per_gram(self) -> float:
        """Counts per gram of the simulated cell (channel A, gain 128)."""
        return self.load.counts_per_gram

    @property
    def failed(self) -> bool:
        """True while the scale does not answer (DOUT stuck high, as with a broken wire)."""
        return self.chip.dout_stuck == "high"

    @failed.setter
    def failed(self, value: bool) -> None:
        self.chip.dout_stuck = "high" if value else None

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Read the chip at each of its conversions, from now on (powering it up if it sleeps)."""
        if self._handle is not None:
            self._handle.cancel()
        self._follow_loop()
        if self._asleep:
            self.hx.wake()
            self._asleep = False
        self.watch = FaultWatch(on_sample, on_fault)
        self.watch.started(self._clock())
        self._schedule()

    def stop(self) -> None:
        """Stop reading and power the chip down (no timer runs until :meth:`start`)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.watch = None
        if not self._asleep:
            self._follow_loop()
            self.hx.sleep()
            self._asleep = True

    def _follow_loop(self) -> None:
        """Bring the chip's clock up to the loop's (a read leaves it a few microseconds ahead)."""
        self.vclock.catch_up(self._clock())

    def _schedule(self) -> None:
        due = self.chip.next_conversion()
        delay = self.hx.period if due is None else max(0.0, due - self._clock())
        self._handle = self._call_later(delay + WAKE_AFTER, self._tick)

    def _tick(self) -> None:
        self._handle = None
        watch = self.watch
        if watch is None:
            return
        self._follow_loop()
        t = self._clock()
        try:
            raw = self.hx.convert(self.pulses, 0.0)
        except NotReady:
            watch.waiting(t)
        else:
            if raw is None:
                watch.alive(t)
            else:
                watch.reading(t, raw)
        self._schedule()

    def close(self) -> None:
        """Stop reading; safe to call twice."""
        self.watch = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
