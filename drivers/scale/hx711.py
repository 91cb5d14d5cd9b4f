"""The HX711 on the Pi's GPIO: adafruit's driver class, with the fixes it needs under Blinka.

:class:`HX711` subclasses ``adafruit_hx711.hx711.HX711`` (same class, gain constants and tare
fields) and replaces what breaks on a Raspberry Pi (``hardware/hx711.md`` has the details):

1. ``read_fast`` calls ``microcontroller.disable_interrupts()``, which Blinka lacks → we clock
   the bits ourselves (:meth:`HX711._shift_in`);
2. ``microcontroller.delay_us(1)`` is ``time.sleep``: 55–100 µs on Linux, past the chip's 50 µs
   maximum clock-high and its 60 µs power-down → short busy-waits, every clock-high pulse timed,
   a reading with a pulse over :data:`MAX_HIGH` dropped and the chip reset, and the settling
   conversions after any reset or gain change dropped too;
3. ``value |= 0xFF000000`` makes every negative reading about 4.29e9 in CPython → proper 24-bit
   two's complement;
4. ``while self.is_busy: pass`` pins a core when DOUT never falls → :meth:`HX711.wait_ready`
   blocks in the kernel until DOUT's falling edge when the data pin can (``wait_for_low``, the
   libgpiod lines of :mod:`drivers.gpio.hx711_lines`), else sleeps to the expected conversion
   time and polls every millisecond; either way it gives up at a timeout;
5. ``read()`` converts twice per reading → one conversion per reading, the gain already set by
   the previous read's pulse count.

:class:`HX711Scale` reads it in a dedicated thread and implements the :class:`drivers.scale.Scale`
protocol, with the faults of :mod:`drivers.scale.faults`. :func:`open_hx711` opens the GPIO pins
through Blinka (imported only then, so a laptop never needs it).
"""

from __future__ import annotations

import contextlib
import io
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from drivers import blinka_chip
from drivers.scale.reader_thread import ReaderThread

log = logging.getLogger(__name__)

# Blinka's ``microcontroller`` (imported by adafruit's module) prints a platform warning to stdout
# on a laptop; keep it out of the CLI's output.
with contextlib.redirect_stdout(io.StringIO()) as _blinka_says:
    blinka_chip.remember()  # Blinka's board detection once, not ~220 times off a Pi
    from adafruit_hx711 import hx711 as adafruit
if _blinka_says.getvalue().strip():
    log.debug("blinka: %s", _blinka_says.getvalue().strip())

MAX_HIGH = 50e-6
"""Longest clock-high pulse the datasheet allows (T3 max); a longer one drops the reading."""
PULSE_HIGH = 1e-6
PULSE_LOW = 1e-6
"""Busy-wait after each clock edge (datasheet typical 1 µs, minimum 0.2 µs)."""
RESET_HIGH = 1e-3
"""How long a reset holds the clock high (power-down needs over 60 µs)."""
SETTLE_CONVERSIONS = 4
"""Conversions dropped after a reset or gain change (settling: 400 ms at 10 SPS, 50 ms at 80)."""
POLL = 1e-3
SLOW_POLL = 10e-3
"""Ready polling interval: every millisecond near the expected time, every 10 ms once overdue."""
EARLY = 0.9
"""Sleep until this fraction of a period after the last ready before polling for the next."""
GAIN_PULSES = {
    128: adafruit.HX711.CHAN_A_GAIN_128,
    64: adafruit.HX711.CHAN_A_GAIN_64,
    32: adafruit.HX711.CHAN_B_GAIN_32,
}
"""Config gain → pulses per read (channel A 128 or 64, channel B 32)."""


class HX711Error(Exception):
    """The HX711 cannot be read."""


class NotReady(HX711Error, TimeoutError):
    """DOUT did not fall (no conversion ready) before the timeout."""


class Timing(Protocol):
    """Where the driver's time comes from: the real clock on the Pi, virtual time in tests."""

    def now(self) -> float:
        """Seconds, high resolution."""

    def sleep(self, seconds: float) -> None:
        """Give the CPU away for about ``seconds``."""

    def spin(self, seconds: float) -> None:
        """Wait ``seconds`` without giving the CPU away (microseconds only)."""


class RealTiming:
    """``time.perf_counter``, ``time.sleep`` and a busy-wait."""

    now = staticmethod(time.perf_counter)
    sleep = staticmethod(time.sleep)

    @staticmethod
    def spin(seconds: float) -> None:
        """Busy-wait: ``time.sleep`` would overshoot a microsecond by 50 µs or more."""
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass


@dataclass
class ReadStats:
    """What the driver did, for measurements and ``scale monitor``."""

    reads: int = 0
    """Words clocked out of the chip."""
    slow: int = 0
    """Readings dropped because a clock-high pulse ran over :data:`MAX_HIGH`."""
    settling: int = 0
    """Readings dropped while the chip settled after a reset or gain change."""
    resets: int = 0
    timeouts: int = 0
    longest_high: float = 0.0
    """The longest clock-high pulse seen, in seconds."""


class HX711(adafruit.HX711):
    """adafruit's HX711 class, fixed for a Pi under Blinka (and for our simulated chip).

    ``sps`` is the rate the RATE pin selects (10 or 80); ``timing`` defaults to the real clock.
    """

    def __init__(self, data_pin: Any, clock_pin: Any, *, sps: int = 10, timing: Timing | None = None) -> None:
        self.timing: Timing = timing if timing is not None else RealTiming()
        self.sps = sps
        self.period = 1.0 / sps
        self.stats = ReadStats()
        self._chip_gain = self.CHAN_A_GAIN_128
        self._settle_left = SETTLE_CONVERSIONS
        self._last_ready: float | None = None
        self._asleep_since: float | None = None
        """When :meth:`sleep` raised PD_SCK (``None`` while awake)."""
        super().__init__(data_pin, clock_pin)  # calls _initialize(): a reset

    # -- reset and settling (fix 2: the chip may have reset; its first conversions are unsettled) --
    def _initialize(self) -> None:
        """Reset the chip (adafruit: clock high 1 ms with ``time.sleep``; here on ``timing``)."""
        self.reset()

    def reset(self) -> None:
        """Power the chip down and up: channel A, gain 128, settling again."""
        self.sleep()
        self.wake()  # holds PD_SCK high RESET_HIGH first
        self.stats.resets += 1

    def sleep(self) -> None:
        """Power the chip down: PD_SCK high (the chip sleeps once it has been high 60 µs)."""
        self.power_down(True)
        self._asleep_since = self.timing.now()

    def wake(self) -> None:
        """Power the chip up (PD_SCK low): it starts over at channel A, gain 128, settling.

        PD_SCK must have been high over 60 µs first: a shorter high is a clock pulse, which shifts
        a data bit out and leaves every later word one bit off. A wake that follows its sleep
        too soon (the reader stopped and wanted again at once) holds the clock high the rest of
        :data:`RESET_HIGH`.
        """
        since = self._asleep_since
        if since is not None:
            left = since + RESET_HIGH - self.timing.now()
            if left > 0:
                self.timing.sleep(left)
        self._asleep_since = None
        self.power_down(False)
        self._chip_gain = self.CHAN_A_GAIN_128
        self._settle_left = SETTLE_CONVERSIONS
        self._last_ready = self.timing.now()

    # -- waiting (fix 4) -----------------------------------------------------------------------------
    def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for DOUT to fall, without spinning; False on timeout.

        A data pin with ``wait_for_low(timeout)`` blocks until DOUT's falling edge (one wake-up a
        conversion). Otherwise: sleep until shortly before the next conversion is due, then poll
        every millisecond (every 10 ms once a period overdue). ``timeout`` 0 checks once.
        """
        timing = self.timing
        wait_for_low = getattr(self._data_pin, "wait_for_low", None)
        if wait_for_low is not None:
            if not wait_for_low(timeout):
                return False
            self._last_ready = timing.now()
            return True
        start = timing.now()
        deadline = start + timeout
        due = self._last_ready + self.period if self._last_ready is not None else start
        if timeout > 0 and self._last_ready is not None:
            wake = min(self._last_ready + EARLY * self.period, deadline)
            if wake > start:
                timing.sleep(wake - start)
        while self._data_pin.value:
            now = timing.now()
            if now >= deadline - 1e-9:
                return False
            timing.sleep(min(POLL if now < due + self.period else SLOW_POLL, deadline - now))
        self._last_ready = timing.now()
        return True

    # -- clocking (fixes 1, 2, 3) -------------------------------------------------------------------------
    def _shift_in(self, pulses: int) -> tuple[int, float]:
        """Clock ``pulses`` pulses, read 24 bits MSB first; returns (signed value, longest high)."""
        clock, data = self._clock_pin, self._data_pin
        now, spin = self.timing.now, self.timing.spin
        value = 0
        longest = 0.0
        for i in range(pulses):
            t0 = now()
            clock.value = True
            spin(PULSE_HIGH)
            if i < 24:
                value = (value << 1) | (1 if data.value else 0)
            clock.value = False
            high = now() - t0
            if high > longest:
                longest = high
            spin(PULSE_LOW)
        if value & 0x800000:  # 24-bit two's complement (adafruit: value |= 0xFF000000)
            value -= 0x1000000
        return value, longest

    def convert(self, chan_gain: int = adafruit.HX711.CHAN_A_GAIN_128, timeout: float = 1.0) -> int | None:
        """One conversion: the signed raw value, or ``None`` when it must be dropped.

        Dropped: a clock-high pulse ran over :data:`MAX_HIGH` (the chip is reset, so it is in a
        known state), the chip is still settling, or the word was converted at another gain
        (``chan_gain`` takes effect for the next conversion). Raises :class:`NotReady` when no
        conversion is ready within ``timeout`` seconds.
        """
        if not self.wait_ready(timeout):
            self.stats.timeouts += 1
            # the chip may have lost power (a brown-out, a loose plug): when it answers again it
            # is back at channel A, gain 128, and settling — believe nothing until then
            self._chip_gain = self.CHAN_A_GAIN_128
            self._settle_left = SETTLE_CONVERSIONS
            raise NotReady(f"HX711 not ready within {timeout:g} s (DOUT stays high)")
        value, longest = self._shift_in(chan_gain)
        stats = self.stats
        stats.reads += 1
        if longest > stats.longest_high:
            stats.longest_high = longest
        converted_at, self._chip_gain = self._chip_gain, chan_gain
        if longest > MAX_HIGH:
            stats.slow += 1
            self.reset()
            return None
        if converted_at != chan_gain:
            self._settle_left = SETTLE_CONVERSIONS
            stats.settling += 1
            return None
        if self._settle_left > 0:
            self._settle_left -= 1
            stats.settling += 1
            return None
        return value

    # -- adafruit's interface, one conversion per reading (fix 5) --------------------------------------------
    def _read_channel_raw(self, chan_gain: int) -> int:
        """The raw signed value of the next good conversion (raises :class:`NotReady` after
        waiting through the settling time and a second more)."""
        timing = self.timing
        deadline = timing.now() + (SETTLE_CONVERSIONS + 2) * self.period + 1.0
        while True:
            value = self.convert(chan_gain, max(0.0, deadline - timing.now()))
            if value is not None:
                return value

    def read_channel_blocking(self, chan_gain: int) -> int:
        """One reading at ``chan_gain``, tare subtracted (adafruit converted twice here)."""
        return self._read_channel(chan_gain)

    def read(self, chan_gain: int = adafruit.HX711.CHAN_A_GAIN_128) -> int:
        """One reading at ``chan_gain``, tare subtracted: one conversion, not two."""
        return self._read_channel(chan_gain)


class HX711Scale(ReaderThread):
    """Reads an :class:`HX711` in a dedicated thread; the :class:`drivers.scale.Scale` of the Pi.

    ``clock`` stamps the samples (``time.monotonic``, the device loop's clock). Callbacks run in
    the reader thread; the device hands them to its loop with ``call_soon_threadsafe``. A pause
    (:meth:`stop`) powers the chip down; a resume wakes it.
    """

    def __init__(
        self,
        hx: HX711,
        gain: int = 128,
        clock: Callable[[], float] = time.monotonic,
        pins: tuple[Any, ...] = (),
    ) -> None:
        if gain not in GAIN_PULSES:
            raise ValueError("gain must be 128, 64 (channel A) or 32 (channel B)")
        super().__init__(clock)
        self.hx = hx
        self.sps = hx.sps
        self.pulses = GAIN_PULSES[gain]
        self._pins = pins
        self._slice = 2 * hx.period
        """How long one step waits for a conversion before checking for faults and stop."""

    @property
    def stats(self) -> ReadStats:
        """The driver's counts."""
        return self.hx.stats

    def step(self) -> None:
        """One attempt: wait a short while for a conversion, read it, pass it on."""
        watch = self.watch
        assert watch is not None
        try:
            raw = self.hx.convert(self.pulses, self._slice)
        except NotReady:
            watch.waiting(self.clock())
            return
        if raw is None:
            watch.alive(self.clock())
        else:
            watch.reading(self.clock(), raw)

    def _pause(self) -> None:
        self.hx.sleep()

    def _resume(self) -> None:
        self.hx.wake()

    def close(self) -> None:
        """Stop the thread, power the chip down and release the pins; safe to call twice."""
        if not self._end_thread():
            return
        with contextlib.suppress(Exception):
            self.hx.power_down(True)
        for pin in self._pins:
            with contextlib.suppress(Exception):
                pin.deinit()


class HX711Unavailable(HX711Error):
    """The GPIO pins for the HX711 cannot be opened (no Blinka board, pin in use…)."""


def _gpiod_lines(data: int, clock: int) -> Any:
    """DOUT and PD_SCK as libgpiod lines, or ``None`` where libgpiod cannot give them."""
    import glob

    if not glob.glob("/dev/gpiochip*"):
        return None
    try:
        from drivers.gpio.hx711_lines import HX711Lines

        return HX711Lines(data, clock)
    except ImportError:
        return None
    except Exception as exc:  # lines busy, no such chip…: Blinka may still manage
        log.warning("HX711 through libgpiod unavailable (%s): trying Blinka", exc)
        return None


def hx711_on_lines(
    lines: Any, data: int, clock: int, sps: int = 10, gain: int = 128, stamps: Callable[[], float] = time.monotonic
) -> HX711Scale:
    """The reader of an HX711 on requested libgpiod ``lines`` (:class:`drivers.gpio.hx711_lines.HX711Lines`
    of GPIO ``data`` and ``clock``); the lines are released when the chip does not take its reset."""
    try:
        hx = HX711(lines.data_pin, lines.clock_pin, sps=sps)  # resets the chip on the lines
    except Exception as exc:
        lines.release()
        raise HX711Unavailable(f"GPIO {data}/{clock}: {exc}") from None
    return HX711Scale(hx, gain, stamps, pins=(lines.data_pin,))


def open_hx711(
    data: int, clock: int, sps: int = 10, gain: int = 128, stamps: Callable[[], float] = time.monotonic
) -> HX711Scale:
    """The HX711 on BCM GPIO ``data`` (DOUT) and ``clock`` (PD_SCK): through libgpiod v2 where
    the ``gpiod`` package and a GPIO chip are present (the reader then waits for DOUT's falling
    edge in the kernel), else through Blinka (the reader polls DOUT)."""
    lines = _gpiod_lines(data, clock)
    if lines is not None:
        return hx711_on_lines(lines, data, clock, sps, gain, stamps)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import board
            import digitalio
    except Exception as exc:  # Blinka raises NotImplementedError, RuntimeError… off a Pi
        raise HX711Unavailable(f"no GPIO ({exc})") from None
    pins: list[Any] = []
    try:
        for number in (data, clock):
            pin = getattr(board, f"D{number}", None)
            if pin is None:
                raise HX711Unavailable(f"no GPIO {number} on this board ({getattr(board, 'board_id', '?')})")
            pins.append(digitalio.DigitalInOut(pin))
        dout, sck = pins
        try:
            dout.switch_to_input(pull=digitalio.Pull.UP)  # a broken DOUT wire reads "not ready"
        except Exception:
            dout.switch_to_input()
        sck.switch_to_output(value=False)
        hx = HX711(dout, sck, sps=sps)
    except HX711Unavailable:
        for p in pins:
            p.deinit()
        raise
    except Exception as exc:
        for p in pins:
            with contextlib.suppress(Exception):
                p.deinit()
        raise HX711Unavailable(f"GPIO {data}/{clock}: {exc}") from None
    return HX711Scale(hx, gain, stamps, pins=(dout, sck))
