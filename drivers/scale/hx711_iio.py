"""The HX711 through the kernel's IIO ``hx711`` driver (``drivers/iio/adc/hx711.c``).

Where the device tree has an ``avia,hx711`` node (an overlay naming ``sck-gpios`` and
``dout-gpios``), the kernel clocks the chip itself and offers each conversion as
``/sys/bus/iio/devices/iio:deviceN/in_voltage0_raw`` (channel A; ``in_voltage1_raw`` is channel B,
gain 32). What the kernel does on each read, from its source:

- waits for DOUT low, checking it every 10 ms (``msleep(10)``) for up to a second; only when it
  never falls does it reset the chip (PD_SCK high 10 ms) and wait again; ``-EIO`` after that;
- clocks 24 bits and then 1–3 gain pulses, each pulse with interrupts off on its CPU
  (``local_irq_save``): PD_SCK high, ``ndelay(1e9 / clock-frequency)`` (2.5 µs at the default
  400 kHz), PD_SCK low — so no thread, and no interrupt on that CPU, stretches a high;
- returns the 24-bit word with its sign bit flipped (offset binary: 0x800000 is zero);
- switching channel A↔B costs one read and one wait inside the same call.

So a read blocks until the next conversion and the sample time is when it returns: at 80 SPS
the 10 ms poll misses conversions (the bench counts them). :class:`KernelSim` runs that very
algorithm against the simulated chip's pins on a virtual clock, so tests and the bench see the
waveform the kernel makes; :class:`SysfsHX711` reads the real files. :class:`IIOScale` is the
reader thread for either, behind :class:`drivers.scale.Scale`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from drivers.scale.hx711 import SETTLE_CONVERSIONS, HX711Unavailable, ReadStats
from drivers.scale.reader_thread import ReaderThread

log = logging.getLogger(__name__)

IIO_DEVICES = "/sys/bus/iio/devices"
KERNEL_CLOCK_HZ = 400_000
"""The kernel driver's default ``clock-frequency``: PD_SCK high for 2.5 µs a pulse."""
KERNEL_POLL = 10e-3
"""The kernel checks DOUT every ``msleep(10)`` (at least 10 ms) while waiting for a conversion."""
KERNEL_WAIT_POLLS = 100
KERNEL_RESET_HIGH = 10e-3
OFFSET = 0x800000


class IIOError(OSError):
    """A read the kernel refused (``-EIO``: DOUT never fell within its second)."""


class HX711Source(Protocol):
    """Where the IIO reader's words come from: the sysfs files, or the kernel's algorithm simulated."""

    def read_raw(self, channel: int) -> int:
        """The next conversion of ``channel`` (0 = A, 1 = B), offset binary as the kernel gives it;
        blocks until one is ready, :class:`IIOError` when none comes."""

    def set_gain_a(self, gain: int) -> None:
        """Channel A's gain: 128 or 64."""


def find_iio_hx711(root: Path = Path("/")) -> Path | None:
    """The IIO device folder whose ``name`` is ``hx711``, or ``None``."""
    base = root / IIO_DEVICES.lstrip("/")
    for device in sorted(base.glob("iio:device*")):
        with contextlib.suppress(OSError):
            if (device / "name").read_text(encoding="ascii").strip() == "hx711":
                return device
    return None


def signed(raw: int) -> int:
    """The kernel's offset-binary word as a signed 24-bit count."""
    return raw - OFFSET


class SysfsHX711:
    """The kernel driver's files under ``device`` (``/sys/bus/iio/devices/iio:deviceN``)."""

    def __init__(self, device: Path) -> None:
        self.device = device

    def read_raw(self, channel: int) -> int:
        """Read ``in_voltage<channel>_raw`` (blocks in the kernel until a conversion is ready)."""
        try:
            text = (self.device / f"in_voltage{channel}_raw").read_text(encoding="ascii")
        except OSError as exc:
            if exc.errno == errno.EIO:
                raise IIOError(errno.EIO, "HX711 not ready (the kernel waited 1 s)") from None
            raise
        return int(text.strip())

    def set_gain_a(self, gain: int) -> None:
        """Write channel A's scale: the smaller of the two offered is gain 128, the larger 64."""
        offered = (self.device / "in_voltage0_scale_available").read_text(encoding="ascii").split()
        scales = sorted(offered, key=float)
        want = scales[0] if gain == 128 else scales[-1]
        (self.device / "in_voltage_scale").write_text(want + "\n", encoding="ascii")


class KernelSim:
    """``hx711.c``'s read, step for step, on the simulated chip's pins and virtual clock.

    ``high_times``, when a list, gets every PD_SCK high the kernel makes: its ``ndelay`` plus
    ``gpio_seconds`` for the GPIO write that ends it (interrupts are off in between).
    """

    def __init__(self, chip: Any, clock: Any, clock_hz: int = KERNEL_CLOCK_HZ, gpio_seconds: float = 0.0) -> None:
        self.chip = chip
        self.clock = clock
        self.delay = 1.0 / clock_hz
        self.gpio_seconds = gpio_seconds
        self.gain_set = 128
        self.gain_a = 128
        self.high_times: list[float] | None = None

    def _cycle(self) -> int:
        chip, clock = self.chip, self.clock
        t0 = clock()
        chip.clock_pin.value = True
        clock.advance(self.delay + self.gpio_seconds)
        chip.clock_pin.value = False
        if self.high_times is not None:
            self.high_times.append(clock() - t0)
        clock.advance(self.delay)
        return 1 if chip.data_pin.value else 0

    def _read(self) -> int:
        if self.chip.data_pin.value:
            raise IIOError(errno.EIO, "DOUT high at the read")
        value = 0
        for _ in range(24):
            value = value << 1 | self._cycle()
        for _ in range({128: 1, 32: 2, 64: 3}[self.gain_set]):
            self._cycle()
        return value ^ OFFSET

    def _wait_ready(self) -> None:
        for _ in range(KERNEL_WAIT_POLLS):
            if not self.chip.data_pin.value:
                return
            self.clock.advance(KERNEL_POLL)
        raise IIOError(errno.EIO, "HX711 not ready (the kernel waited 1 s)")

    def read_raw(self, channel: int) -> int:
        """One ``in_voltage<channel>_raw`` read, as ``hx711_reset_read`` does it."""
        try:
            self._wait_ready()
        except IIOError:
            self.chip.clock_pin.value = True
            self.clock.advance(KERNEL_RESET_HIGH)
            self.chip.clock_pin.value = False
            self.gain_set = 128
            self._wait_ready()
        want = 32 if channel == 1 else self.gain_a
        if (self.gain_set == 32) != (want == 32):
            self.gain_set = want
            self._read()
            self._wait_ready()
        return self._read()

    def set_gain_a(self, gain: int) -> None:
        """Channel A's gain, as writing ``in_voltage_scale`` sets it (one read at the new gain)."""
        if gain != self.gain_set and gain != 32:
            self.gain_a = self.gain_set = gain
            with contextlib.suppress(IIOError):
                self._read()


class IIOScale(ReaderThread):
    """Reads an :class:`HX711Source` in a thread: the :class:`drivers.scale.Scale` of the IIO path.

    The kernel gives no way to power the chip down, so :meth:`stop` only stops reading. The first
    :data:`~drivers.scale.hx711.SETTLE_CONVERSIONS` words after a start are dropped (the chip may
    have just powered up or changed gain).
    """

    thread_name = "hx711-iio"

    def __init__(
        self, source: HX711Source, sps: int = 10, gain: int = 128, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if gain not in (128, 64, 32):
            raise ValueError("gain must be 128, 64 (channel A) or 32 (channel B)")
        super().__init__(clock)
        self.source = source
        self.sps = sps
        self.channel = 1 if gain == 32 else 0
        if gain != 32:
            source.set_gain_a(gain)
        self.stats = ReadStats()
        """Words read (``reads``), dropped while settling, refused by the kernel (``timeouts``)."""
        self._settle = SETTLE_CONVERSIONS

    def _resumed(self) -> None:
        self._settle = SETTLE_CONVERSIONS

    def step(self) -> None:
        """One read: blocks until the kernel has a word, then passes it on."""
        watch = self.watch
        assert watch is not None
        try:
            raw = self.source.read_raw(self.channel)
        except IIOError:
            self.stats.timeouts += 1
            watch.waiting(self.clock())
            return
        self.stats.reads += 1
        if self._settle > 0:
            self._settle -= 1
            self.stats.settling += 1
            watch.alive(self.clock())
            return
        watch.reading(self.clock(), signed(raw))


def open_hx711_iio(
    sps: int = 10, gain: int = 128, stamps: Callable[[], float] = time.monotonic, root: Path = Path("/")
) -> IIOScale:
    """The HX711 the kernel's ``hx711`` driver reads, found by its IIO ``name``."""
    device = find_iio_hx711(root)
    if device is None:
        raise HX711Unavailable(
            f"no IIO hx711 device under {IIO_DEVICES} (an avia,hx711 overlay in config.txt, then reboot; "
            'or [scale] interface = "spi")'
        )
    return IIOScale(SysfsHX711(device), sps, gain, stamps)
