"""Readings in, samples and faults out: what a scale backend tells the runtime about its sensor.

Between the HX711 driver and the runtime's ``on_sample``/``on_fault`` callbacks (the reader thread
and the simulated scale both use it):

- a reading of a glitch code — −1 (0xFFFFFF: DOUT high through the read) or a full-scale code
  (0x7FFFFF, −0x800000) — is dropped; :data:`CODE_RUN` of the same code in a row is a fault
  (``all ones``, ``saturated``);
- the same raw value again is held back, not delivered, while it repeats; :data:`STUCK_SAMPLES`
  repeats spanning :data:`STUCK_SECONDS` is a fault (``stuck at N``: DOUT stuck low reads 0).
  A real cell's noise almost never repeats a 24-bit value; when it does, the held sample is
  delivered late, with its own time, as soon as a different value comes;
- no reading for :data:`NO_DATA_SECONDS` (DOUT stuck high, the chip unpowered or unplugged) is a
  fault (``no data``);
- the chip answering but every reading dropped by the driver for :data:`DROPPING_SECONDS` (clock
  pulses over 50 µs again and again: the Pi too busy, the GPIO library too slow) is a fault
  (``slow clock``).

A fault is reported once when it starts; the next good sample clears it (the runtime clears its
fault mark on every sample).
"""

from __future__ import annotations

from drivers.scale import FaultHandler, SampleHandler

NO_DATA_SECONDS = 0.5
"""No reading for this long is a ``no data`` fault (5 periods at 10 SPS, 40 at 80)."""
STUCK_SAMPLES = 5
STUCK_SECONDS = 0.4
"""The same raw value this many times over this long is a ``stuck`` fault."""
CODE_RUN = 3
"""This many glitch codes in a row is a fault rather than a glitch."""
DROPPING_SECONDS = 1.0
"""Every reading dropped for this long is a ``slow clock`` fault (settling alone takes 0.5 s)."""

ALL_ONES = -1
FULL_SCALE = 0x7FFFFF
MIN_CODE = -0x800000
GLITCH_CODES = (ALL_ONES, FULL_SCALE, MIN_CODE)

NO_DATA = "no data"
ALL_ONES_FAULT = "all ones"
SATURATED = "saturated"
SLOW_CLOCK = "slow clock"


def stuck(raw: int) -> str:
    """The fault line of a value that does not change."""
    return f"stuck at {raw}"


class FaultWatch:
    """Follows one sensor's readings and passes on good samples and fault changes."""

    def __init__(
        self,
        on_sample: SampleHandler,
        on_fault: FaultHandler,
        *,
        no_data_after: float = NO_DATA_SECONDS,
        stuck_samples: int = STUCK_SAMPLES,
        stuck_after: float = STUCK_SECONDS,
        code_run: int = CODE_RUN,
        dropping_after: float = DROPPING_SECONDS,
    ) -> None:
        self.on_sample = on_sample
        self.on_fault = on_fault
        self.no_data_after = no_data_after
        self.stuck_samples = stuck_samples
        self.stuck_after = stuck_after
        self.code_run = code_run
        self.dropping_after = dropping_after
        self.fault: str | None = None
        """The fault in force, or ``None``."""
        self.glitches = 0
        """Glitch codes dropped so far."""
        self._last_data: float | None = None
        self._last_reading: float | None = None
        self._prev: int | None = None
        self._run = 0
        self._run_start = 0.0
        self._held: list[tuple[float, int]] = []

    def started(self, t: float) -> None:
        """The sensor was (re)started at ``t``: the no-data clock starts now."""
        self._last_data = self._last_reading = t

    def alive(self, t: float) -> None:
        """The chip answered at ``t`` but the driver dropped the reading (settling, a slow pulse)."""
        self._answered(t)
        if self._last_reading is None:
            self._last_reading = t
        elif t - self._last_reading >= self.dropping_after and self.fault != SLOW_CLOCK:
            self._raise(SLOW_CLOCK)

    def _answered(self, t: float) -> None:
        if self._last_data is not None and t - self._last_data >= self.no_data_after:
            self._last_reading = t  # back after an outage: the chip settles before readings count
        self._last_data = t
        if self.fault == NO_DATA:
            self.fault = None

    def waiting(self, t: float) -> None:
        """No reading was ready at ``t``."""
        if self._last_data is None:
            self._last_data = t
        elif t - self._last_data >= self.no_data_after and self.fault != NO_DATA:
            self._raise(NO_DATA)

    def reading(self, t: float, raw: int) -> None:
        """One signed 24-bit reading taken at ``t``."""
        self._answered(t)
        self._last_reading = t
        if raw == self._prev:
            self._run += 1
        else:
            self._prev, self._run, self._run_start = raw, 1, t
            if self._held and self.fault is None:
                for held in self._held:
                    self._deliver(*held)
            self._held.clear()
        if raw in GLITCH_CODES:
            if self._run >= self.code_run:
                reason = ALL_ONES_FAULT if raw == ALL_ONES else SATURATED
                if self.fault != reason:
                    self._raise(reason)
            else:
                self.glitches += 1
            return
        if self._run > 1:
            if self._run >= self.stuck_samples and t - self._run_start >= self.stuck_after:
                self._held.clear()
                if self.fault is None or not self.fault.startswith("stuck"):
                    self._raise(stuck(raw))
            elif self.fault is None:
                self._held.append((t, raw))
            return
        self.fault = None
        self._deliver(t, raw)

    def _deliver(self, t: float, raw: int) -> None:
        self.on_sample(t, raw)

    def _raise(self, reason: str) -> None:
        self.fault = reason
        self.on_fault(reason)
