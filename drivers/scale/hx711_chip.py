"""A simulated HX711 chip behind DigitalInOut-like pins, for the simulator and the tests.

The real adafruit driver (with our fixes, :mod:`drivers.scale.hx711`) talks to it exactly as it
talks to the chip on the Pi: it writes PD_SCK (``chip.clock_pin.value = True``) and reads DOUT
(``chip.data_pin.value``). The chip behaves as the datasheet says:

- it converts ``rate`` (10 or 80, the RATE pin) times a second from a :class:`LoadModel`
  (grams → counts: offset, counts per gram, Gaussian noise), clamped to the 24-bit range;
- DOUT goes low when a conversion is ready; each PD_SCK rising edge shifts the next of the 24
  bits out, MSB first; the 25th pulse pulls DOUT high again; 25, 26 or 27 pulses in all select
  channel A gain 128, channel B gain 32 or channel A gain 64 for the next conversion;
- a conversion that completes while a read is in progress is lost (the word being shifted stays);
- PD_SCK held high over 60 µs powers it down (DOUT high, no conversions); PD_SCK low again
  powers it up reset: channel A, gain 128, and the first :data:`UNSETTLED` conversions after a
  power-up or a gain change are not settled (they read a fraction of the true value);
- faults on demand: DOUT stuck high or low, glitch codes (−1 = 0xFFFFFF, 0x7FFFFF) and spikes on
  the next conversions, slow pulses (the host stalled with PD_SCK high).

The same chip also sits on an SPI bus (:meth:`HX711Chip.spi_exchange`): the bytes an SPI transfer
sends on MOSI become PD_SCK levels one bit-time each, and DOUT is sampled onto MISO mid-bit, so
the SPI path's encoding (:mod:`drivers.scale.hx711_spi`) is decoded by the chip's own rules.

Time is a clock function. In tests and the simulator it is a :class:`VirtualClock`, shared with the
driver: the driver's busy-waits and sleeps advance it, and the chip's power-down detection reads
it, so pulse timing is exact and deterministic and no test sleeps. A slow pulse "stalls" the host
by advancing that clock while PD_SCK is high. With a real clock (``time.perf_counter``) the chip
runs in real time and a stall busy-waits.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

POWER_DOWN_AFTER = 60e-6
"""PD_SCK high for longer than this powers the chip down (datasheet: 60 µs)."""
UNSETTLED = 3
"""Conversions after a power-up or gain change that are not yet settled (400 ms at 10 SPS)."""
GAIN_OF_PULSES = {25: 128, 26: 32, 27: 64}
"""Pulses per read → the gain of the next conversion (26 selects channel B)."""
FULL_SCALE = 0x7FFFFF
MIN_CODE = -0x800000


class VirtualClock:
    """Virtual seconds shared by the simulated chip and the driver; moves only when told to.

    It is also a driver timing source: :meth:`sleep` and :meth:`spin` advance it, so a driver
    reading the chip on this clock takes no real time.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def __call__(self) -> float:
        """The virtual time, in seconds (the clock is its own clock function)."""
        return self.t

    def now(self) -> float:
        """The virtual time, in seconds."""
        return self.t

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        if seconds > 0:
            self.t += seconds

    sleep = advance
    spin = advance

    def catch_up(self, t: float) -> None:
        """Move the clock to ``t`` unless it is already past it (it never goes back)."""
        if t > self.t:
            self.t = t


def busy_wait(clock: Callable[[], float]) -> Callable[[float], None]:
    """A stall that burns real time on ``clock``, for a chip running on a real clock."""

    def stall(seconds: float) -> None:
        end = clock() + seconds
        while clock() < end:
            pass

    return stall


@dataclass
class LoadModel:
    """What the load cell puts on the chip's input, in counts of channel A at gain 128.

    ``grams`` is the load on the cell (the simulator and the script change it); ``profile``, when
    set, adds a load that varies with time (grams as a function of the chip's clock).
    """

    grams: float = 0.0
    offset: int = 84_000
    counts_per_gram: float = 420.0
    noise_counts: float = 150.0
    profile: Callable[[float], float] | None = None

    def counts(self, t: float, gain: int, rng: random.Random) -> int:
        """One conversion at time ``t`` and ``gain``, with noise, clamped to 24 bits."""
        grams = self.grams + (self.profile(t) if self.profile is not None else 0.0)
        scale = gain / 128
        value = (self.offset + grams * self.counts_per_gram) * scale + rng.gauss(0.0, self.noise_counts) * scale
        if value != value:  # NaN
            value = 0.0
        return max(MIN_CODE, min(FULL_SCALE, round(value)))


class _Pin:
    """What our pins share with ``digitalio.DigitalInOut``: direction, pull, context manager."""

    def __init__(self, chip: HX711Chip) -> None:
        self._chip = chip
        self.direction: Any = None
        self.pull: Any = None
        self.drive_mode: Any = None

    def switch_to_input(self, pull: Any = None) -> None:
        """As DigitalInOut: make the pin an input."""
        self.direction = "input"
        self.pull = pull

    def switch_to_output(self, value: bool = False, drive_mode: Any = None) -> None:
        """As DigitalInOut: make the pin an output at ``value``."""
        self.direction = "output"
        self.drive_mode = drive_mode
        self.value = value

    def deinit(self) -> None:
        """As DigitalInOut: release the pin (nothing to release here)."""

    def __enter__(self) -> _Pin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.deinit()


class DataPin(_Pin):
    """The chip's DOUT, as the host's input pin."""

    @property
    def value(self) -> bool:
        """DOUT: high while converting (busy), low when ready, then the data bits."""
        return self._chip._dout()

    @value.setter
    def value(self, val: bool) -> None:
        raise AttributeError("Not an output")


class EdgeDataPin(DataPin):
    """DOUT behind a GPIO library that reports its falling edge (libgpiod's edge events): the
    wait blocks until the next conversion is ready instead of polling."""

    def wait_for_low(self, timeout: float) -> bool:
        """Block until DOUT is low or ``timeout`` seconds pass (as a thread blocked in the kernel)."""
        chip = self._chip
        if not self.value:
            return True
        if timeout <= 0:
            return False
        due = chip.next_conversion()
        wait = timeout if due is None or chip.dout_stuck else min(timeout, due - chip.now() + 1e-6)
        chip._block(wait)
        return not self.value


class ClockPin(_Pin):
    """The chip's PD_SCK, as the host's output pin."""

    @property
    def value(self) -> bool:
        """The level last written."""
        return self._chip._sck

    @value.setter
    def value(self, val: bool) -> None:
        self._chip._set_sck(bool(val))


class HX711Chip:
    """One simulated HX711 and its load cell; ``data_pin`` and ``clock_pin`` go to the driver."""

    def __init__(
        self,
        clock: Callable[[], float] | None = None,
        *,
        rate: int = 10,
        load: LoadModel | None = None,
        seed: int = 1,
        stall: Callable[[float], None] | None = None,
        pin_seconds: float = 0.0,
        edges: bool = False,
    ) -> None:
        if rate not in (10, 80):
            raise ValueError("the HX711 converts at 10 or 80 samples per second (its RATE pin)")
        self.now: Callable[[], float] = clock if clock is not None else VirtualClock()
        self.rate = rate
        self.period = 1.0 / rate
        self._slack = 1e-9 * self.period  # float rounding must not hide a conversion that is due
        self.load = load if load is not None else LoadModel()
        self._rng = random.Random(seed)
        self._stall = stall or getattr(self.now, "advance", None) or busy_wait(self.now)
        self.pin_seconds = pin_seconds
        """Time each pin access takes (models a slow GPIO library; 0 = instant)."""
        self.data_pin = EdgeDataPin(self) if edges else DataPin(self)
        """DOUT; with ``edges`` it can wait for its falling edge (``wait_for_low``), as libgpiod can."""
        self.clock_pin = ClockPin(self)
        self._stuck: str | None = None
        self._queued: deque[tuple[str, int]] = deque()
        self._slow: deque[tuple[int, float]] = deque()
        # the chip's state
        self._sck = False
        self._high_since = 0.0
        self._powered = True
        self._t0 = self.now()
        self._done = 0
        self._gain = 128
        self._unsettled = UNSETTLED
        self._word: int | None = None
        self._shift = 0
        self._last_edge = self._t0
        self._next_due = self._t0 + self.period
        # what happened, for tests and measurements
        self.conversions = 0
        self.lost = 0
        self.power_downs = 0
        self.words_read = 0
        self.dout_reads = 0
        self.spi_bytes = 0
        """Bytes clocked through :meth:`spi_exchange`."""
        self.gain_used: list[int] = []

    # -- faults (each applies from now on: conversions already due are done first) ---------------
    @property
    def dout_stuck(self) -> str | None:
        """``"high"`` or ``"low"`` forces DOUT (a broken or shorted wire); ``None`` is healthy."""
        return self._stuck

    @dout_stuck.setter
    def dout_stuck(self, level: str | None) -> None:
        if level not in (None, "high", "low"):
            raise ValueError('DOUT can be stuck "high" or "low" (or None)')
        self._update(self.now())
        self._stuck = level

    def brown_out(self) -> None:
        """The supply dipped: the chip restarts as at power-up (channel A, gain 128, settling)."""
        self._update(self.now())
        self._gain = 128
        self._unsettled = UNSETTLED

    def glitch(self, code: int = -1, count: int = 1) -> None:
        """The next ``count`` conversions read ``code`` (−1 is 0xFFFFFF; 0x7FFFFF full scale).

        Glitches and spikes queue up: each conversion takes the next one injected.
        """
        self._update(self.now())
        self._queued.extend([("glitch", code & 0xFFFFFF)] * count)

    def spike(self, counts: int, count: int = 1) -> None:
        """The next ``count`` conversions are off by ``counts`` (a corrupted or shaken read)."""
        self._update(self.now())
        self._queued.extend([("spike", counts)] * count)

    def slow_pulse(self, seconds: float = 100e-6, pulse: int = 1, count: int = 1) -> None:
        """In the next ``count`` reads, the host stalls ``seconds`` with PD_SCK high on pulse ``pulse``."""
        self._slow.extend([(pulse, seconds)] * count)

    # -- what the chip's schedule says -----------------------------------------------------------
    @property
    def powered(self) -> bool:
        """Whether the chip is awake (not powered down by a long PD_SCK high)."""
        self._update(self.now())
        return self._powered

    @property
    def gain(self) -> int:
        """The gain of the conversion ready or next (128 and 64 on channel A, 32 on channel B)."""
        self._update(self.now())
        return self._gain

    def next_conversion(self) -> float | None:
        """When the next conversion completes, on the chip's clock; ``None`` while powered down."""
        self._update(self.now())
        return self._next_due if self._powered else None

    # -- the pins' side ---------------------------------------------------------------------------
    def _block(self, seconds: float) -> None:
        """The host waits ``seconds`` without using the CPU (virtual time moves; real time sleeps)."""
        advance = getattr(self.now, "advance", None)
        if advance is not None:
            advance(seconds)
        elif seconds > 0:
            time.sleep(seconds)

    def _access(self) -> float:
        if self.pin_seconds:
            self._stall(self.pin_seconds)
        return self.now()

    def _dout(self) -> bool:
        self.dout_reads += 1
        return self._level(self._access())

    def _level(self, now: float) -> bool:
        """DOUT at ``now``."""
        self._update(now)
        if self._stuck is not None:
            return self._stuck == "high"
        if not self._powered or self._word is None:
            return True
        if self._shift == 0:
            return False
        if self._shift <= 24:
            return bool((self._word >> (24 - self._shift)) & 1)
        return True

    def _set_sck(self, high: bool) -> None:
        shifted = self._edge(high, self._access())
        if shifted and self._slow and self._word is not None and self._shift == self._slow[0][0]:
            _, seconds = self._slow.popleft()
            self._stall(seconds)

    def _edge(self, high: bool, now: float) -> bool:
        """PD_SCK goes to ``high`` at ``now``; True when that was a rising edge that shifted a bit."""
        self._update(now)
        if high == self._sck:
            return False
        self._sck = high
        if not high:
            if not self._powered:
                self._power_up(now)
            return False
        self._high_since = now
        if not self._powered or self._word is None:
            return False
        self._shift += 1
        self._last_edge = now
        if self._shift == 24:
            self.words_read += 1
        return True

    # -- the chip on an SPI bus (PD_SCK on MOSI, DOUT on MISO) ---------------------------------------
    def spi_exchange(self, mosi: bytes, hz: float, start: float | None = None, byte_gap: float = 0.0) -> bytes:
        """What the chip does with one SPI transfer (mode 0, MSB first) whose MOSI drives PD_SCK
        and whose MISO samples DOUT: the MISO bytes.

        Bit ``k`` sets PD_SCK to the MOSI bit from ``start + k / hz`` and samples DOUT half a bit
        later (mode 0 samples on SCLK's rising edge, mid-bit). A run of 1 bits is one PD_SCK high
        as long as the run: over 60 µs it powers the chip down, as on the wire. PD_SCK keeps the
        last bit's level after the transfer (what MOSI does between transfers is not assumed
        low: an encoding that ends high leaves the chip powering down). ``byte_gap`` seconds pass
        between bytes with MOSI already at the next byte's first bit: the worst a controller that
        pauses between bytes can do.
        """
        if hz <= 0:
            raise ValueError("the SPI clock must be positive")
        bit = 1.0 / hz
        t = self.now() if start is None else start
        out = bytearray()
        for n, byte in enumerate(mosi):
            if n and byte_gap > 0:
                self._edge(bool(byte >> 7 & 1), t)
                t += byte_gap
            got = 0
            for i in range(7, -1, -1):
                self._edge(bool(byte >> i & 1), t)
                got = got << 1 | (1 if self._level(t + bit / 2) else 0)
                t += bit
            out.append(got)
        self.spi_bytes += len(mosi)
        return bytes(out)

    # -- inside the chip ----------------------------------------------------------------------------
    def _update(self, now: float) -> None:
        """Bring the chip up to ``now``: completed conversions, then a power-down."""
        if not self._powered:
            return
        pd_at = self._high_since + POWER_DOWN_AFTER if self._sck else math.inf
        limit = now if now < pd_at else pd_at
        if limit >= self._next_due - self._slack:
            due = math.floor((limit - self._t0) * self.rate + 1e-9)
            while self._done < due:
                self._done += 1
                self._complete(self._t0 + self._done * self.period)
            self._next_due = self._t0 + (self._done + 1) * self.period
        if now > pd_at:
            self._power_down()

    def _complete(self, t: float) -> None:
        """One conversion finishes at ``t``."""
        self.conversions += 1
        reading = 0 < self._shift <= 24 and self._word is not None
        if reading and t - self._last_edge < self.period:
            self.lost += 1  # the word being shifted stays; this conversion is lost
            self._draw(t)
            return
        if self._word is not None and self._shift >= 25:
            gain = GAIN_OF_PULSES[min(self._shift, 27)]
            if gain != self._gain:
                self._gain = gain
                self._unsettled = UNSETTLED
        self._word = self._draw(t) & 0xFFFFFF
        self._shift = 0
        self.gain_used.append(self._gain)

    def _draw(self, t: float) -> int:
        value = self.load.counts(t, self._gain, self._rng)
        if self._unsettled > 0:
            value = round(value * (UNSETTLED + 1 - self._unsettled) / (UNSETTLED + 1))
            self._unsettled -= 1
        if self._queued:
            kind, n = self._queued.popleft()
            value = n if kind == "glitch" else max(MIN_CODE, min(FULL_SCALE, value + n))
        return value

    def _power_down(self) -> None:
        self._powered = False
        self.power_downs += 1
        self._word = None
        self._shift = 0

    def _power_up(self, now: float) -> None:
        self._powered = True
        self._t0 = now
        self._done = 0
        self._next_due = now + self.period
        self._gain = 128
        self._unsettled = UNSETTLED


def real_time_chip(rate: int = 10, load: LoadModel | None = None, seed: int = 1, edges: bool = False) -> HX711Chip:
    """A simulated chip on the real high-resolution clock (for benchmarks and live demos)."""
    return HX711Chip(time.perf_counter, rate=rate, load=load, seed=seed, edges=edges)
