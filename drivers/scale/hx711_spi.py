"""The HX711 on an SPI bus: every PD_SCK pulse timed by the SPI peripheral, not by Python.

PD_SCK hangs on MOSI and DOUT on MISO (SCLK and the chip select stay unconnected). One word is one
SPI transfer of :data:`WORD_BYTES` bytes in mode 0, MSB first. Each clock pulse is the bit pair
``1 0`` — PD_SCK high for exactly one SPI bit-time, then low for one — and a byte carries up to
three of them between a low first bit and a low last bit (``0b01010100``, ``0x54``); the 25, 26
or 27 pulses that select the next conversion's channel and gain fill nine bytes::

    pulses 25:  54 54 54 54 54 54 54 54 40      (8 × 3 pulses + 1)
    pulses 26:  54 54 54 54 54 54 54 54 50
    pulses 27:  54 54 54 54 54 54 54 54 54

Every byte starts and ends low, so whatever MOSI does in a pause between bytes — keep the last
bit, or show the next byte's first one while the controller waits (a refilled FIFO, the delay
between chip select and the first clock) — it is low: a pause lengthens a low, never a high. The
longest high is one bit-time, set by the SPI clock (:data:`SPI_HZ`: 1 µs against the datasheet's
0.2–50 µs). The chip shifts data bit ``i`` out on rising edge ``i`` (valid within 0.1 µs); it is
read from MISO in the low bit after that pulse, 1.5 bit-times later (:func:`decode`). A one-byte
transfer of zeros reads DOUT's level without a pulse (:class:`SpiDout`, the driver's readiness
poll); a run of ones longer than 60 µs followed by a zero byte power-cycles the chip
(:data:`RESET_BYTES`).

Everything else — waiting for a conversion, settling after a reset or gain change, dropping a read,
the reader thread — is :class:`drivers.scale.hx711.HX711` and :class:`~drivers.scale.hx711.HX711Scale`
unchanged: :class:`SpiHX711` only replaces how a word is clocked and how the chip is reset.

Two buses behind one small interface (:class:`SpiBus`): :class:`SpidevBus`, the kernel's spidev
(``/dev/spidev1.0``, the Pi's auxiliary SPI1, so SPI0 stays free for a panel), and
:class:`SimSpiBus`, which hands the very bytes to the simulated chip
(:meth:`drivers.scale.hx711_chip.HX711Chip.spi_exchange`) to decode as edges on PD_SCK.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from drivers.scale.hx711 import HX711, SETTLE_CONVERSIONS, HX711Scale, HX711Unavailable, Timing

SPI_HZ = 1_000_000
"""SPI clock: one bit-time, which is one PD_SCK high, is 1 µs (the datasheet allows 0.2–50 µs)."""
SPI_BUS = 1
SPI_DEVICE = 0
"""``/dev/spidev1.0``: the auxiliary SPI1 (``dtoverlay=spi1-1cs``), leaving SPI0 to a panel."""
SPI_PINS = {"MISO": 19, "MOSI": 20, "SCLK": 21, "CE0": 18}
"""SPI1's pins (BCM): DOUT on MISO, PD_SCK on MOSI; SCLK and CE0 are taken by the overlay."""
MAX_PULSES = 27
PULSES_PER_BYTE = 3
"""Pulses a byte carries: ``0 10 10 10 0`` (bits 6, 4 and 2 high), its first and last bits low."""
WORD_BYTES = math.ceil(MAX_PULSES / PULSES_PER_BYTE)
"""Bytes in one word's transfer (9: 27 pulses, three a byte; fewer pulses are padded low)."""
PROBE = b"\x00"
"""Reads DOUT eight times with PD_SCK low: the readiness poll."""
RESET_HIGH_BITS = 1000
"""Bits of PD_SCK high in a reset: 1 ms at 1 MHz (power-down needs over 60 µs)."""
RESET_BYTES = b"\xff" * math.ceil(RESET_HIGH_BITS / 8) + b"\x00"
"""A reset: PD_SCK high for :data:`RESET_HIGH_BITS` bits, then low (the chip powers up)."""


class SpiTransferFailed(HX711Unavailable):
    """The SPI device opened, but a transfer on it failed (timed out, I/O error): the SPI
    controller's trouble, which no wiring of the HX711 causes (a chip that is not there reads as
    DOUT never falling). QEMU's BCM2837 shows it: its auxiliary SPI completes no transfer."""


class HX711Busy(HX711Unavailable):
    """Another process holds the SPI device (the running service, seen by ``tablemate doctor``)."""


class SpiBus(Protocol):
    """A full-duplex SPI transfer at a fixed clock (mode 0, MSB first, 8-bit words)."""

    hz: int

    def transfer(self, data: bytes) -> bytes:
        """Clock ``data`` out on MOSI; the bytes read on MISO meanwhile."""

    def close(self) -> None:
        """Release the bus (safe twice)."""


def pulse_bytes(pulses: int) -> bytes:
    """MOSI bytes for ``pulses`` PD_SCK pulses of one bit-time high and one low, three a byte
    between a low first and last bit."""
    if not 1 <= pulses <= MAX_PULSES:
        raise ValueError(f"1 to {MAX_PULSES} pulses")
    out = bytearray()
    for first in range(0, pulses, PULSES_PER_BYTE):
        k = min(PULSES_PER_BYTE, pulses - first)
        out.append(int(("0" + "10" * k).ljust(8, "0"), 2))
    return bytes(out)


WORDS = {pulses: pulse_bytes(pulses).ljust(WORD_BYTES, b"\x00") for pulses in (25, 26, 27)}
"""The transfer of one word for each pulse count (every one :data:`WORD_BYTES` long)."""


def sample_index(pulse: int) -> int:
    """The transfer bit (0 = the first clocked) that reads the data bit of ``pulse`` (0-based):
    the low bit right after it."""
    return 8 * (pulse // PULSES_PER_BYTE) + 2 + 2 * (pulse % PULSES_PER_BYTE)


def miso_bit(miso: bytes, index: int) -> int:
    """Bit ``index`` of the transfer (0 = the first bit clocked, MSB of byte 0)."""
    return miso[index // 8] >> (7 - index % 8) & 1


def decode(miso: bytes) -> int:
    """The 24 data bits (unsigned) from a word's MISO bytes: bit ``i`` read in the low bit after
    pulse ``i`` (:func:`sample_index`)."""
    value = 0
    for i in range(24):
        value = value << 1 | miso_bit(miso, sample_index(i))
    return value


def high_times(mosi: bytes, hz: float) -> list[float]:
    """Every PD_SCK high in a transfer, in seconds: its runs of 1 bits over the bit rate."""
    runs, run = [], 0
    for byte in mosi:
        for i in range(7, -1, -1):
            if byte >> i & 1:
                run += 1
            elif run:
                runs.append(run / hz)
                run = 0
    if run:
        runs.append(run / hz)
    return runs


class SpiDout:
    """DOUT as the driver's data pin: its level, read from MISO by a one-byte transfer."""

    def __init__(self, bus: SpiBus) -> None:
        self._bus = bus

    @property
    def value(self) -> bool:
        """DOUT: high while converting, low when a conversion is ready."""
        return bool(self._bus.transfer(PROBE)[0] & 1)


class SpiHX711(HX711):
    """:class:`drivers.scale.hx711.HX711` clocking each word in one SPI transfer.

    PD_SCK cannot be held high between transfers (what MOSI does then is the controller's), so
    :meth:`sleep` leaves the chip converting (1.5 mA) and :meth:`wake` power-cycles it with a
    timed burst (:data:`RESET_BYTES`) instead.
    """

    def __init__(self, bus: SpiBus, *, sps: int = 10, timing: Timing | None = None) -> None:
        self.bus = bus
        self.high_times: list[float] | None = None
        """When a list, every PD_SCK high of every word is appended (the bench's distribution)."""
        super().__init__(SpiDout(bus), None, sps=sps, timing=timing)

    def power_down(self, down: bool) -> None:
        """Nothing on the wire: a timed reset is :meth:`wake`'s, and a held high is not possible."""

    def sleep(self) -> None:
        """Stop reading; the chip keeps converting."""
        self._asleep_since = None

    def wake(self) -> None:
        """Power-cycle the chip (PD_SCK high 1 ms by the SPI clock): channel A, gain 128, settling."""
        self.bus.transfer(RESET_BYTES)
        self._chip_gain = self.CHAN_A_GAIN_128
        self._settle_left = SETTLE_CONVERSIONS
        self._last_ready = self.timing.now()

    def _shift_in(self, pulses: int) -> tuple[int, float]:
        mosi = WORDS[pulses]
        value = decode(self.bus.transfer(mosi))
        highs = high_times(mosi, self.bus.hz)
        if self.high_times is not None:
            self.high_times.extend(highs)
        if value & 0x800000:
            value -= 0x1000000
        return value, max(highs)


class SimSpiBus:
    """SPI1 with the simulated chip on it: each transfer's bytes go to the chip as PD_SCK edges
    (:meth:`~drivers.scale.hx711_chip.HX711Chip.spi_exchange`), which answers on MISO. On a
    virtual clock the transfer takes its bit-time (the clock advances by it), as the kernel call
    blocks for it on the Pi."""

    def __init__(self, chip: Any, hz: int = SPI_HZ, byte_gap: float = 0.0) -> None:
        self.chip = chip
        self.hz = hz
        self.byte_gap = byte_gap
        """A pause between bytes, MOSI at the next byte's first bit meanwhile (a worst case)."""
        self.transfers = 0
        self.closed = False

    def transfer(self, data: bytes) -> bytes:
        """Clock ``data`` through the simulated chip."""
        if self.closed:
            raise OSError("SPI bus closed")
        miso = self.chip.spi_exchange(bytes(data), self.hz, byte_gap=self.byte_gap)
        advance = getattr(self.chip.now, "advance", None)
        if advance is not None:
            advance(len(data) * 8 / self.hz + (len(data) - 1) * self.byte_gap)
        self.transfers += 1
        return miso

    def close(self) -> None:
        """Close the bus (safe twice)."""
        self.closed = True

    deinit = close


class SpidevBus:
    """``/dev/spidev<bus>.<device>`` through the ``spidev`` package (the ``pi`` extra)."""

    def __init__(self, bus: int = SPI_BUS, device: int = SPI_DEVICE, hz: int = SPI_HZ) -> None:
        import spidev

        self.hz = hz
        self._dev: Any = spidev.SpiDev()
        self._dev.open(bus, device)
        try:
            self._lock()
            self._dev.mode = 0
            self._dev.bits_per_word = 8
            self._dev.lsbfirst = False
            self._dev.max_speed_hz = hz
        except Exception:
            self._dev.close()
            raise

    def _lock(self) -> None:
        """Hold the device node exclusively: spidev lets two processes interleave transfers,
        which would corrupt both readers' words (the doctor's, the service's)."""
        import fcntl

        fileno = getattr(self._dev, "fileno", None)
        if fileno is None:
            return
        try:
            fcntl.flock(fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise HX711Busy("held by another process (the running service?)") from None

    def transfer(self, data: bytes) -> bytes:
        """One transfer, chip select held throughout (``xfer2``); the MISO bytes."""
        return bytes(self._dev.xfer2(list(data)))

    def close(self) -> None:
        """Close the device node (safe twice)."""
        if self._dev is not None:
            self._dev.close()
            self._dev = None

    deinit = close


def open_hx711_spi(
    sps: int = 10,
    gain: int = 128,
    stamps: Any = None,
    bus: int = SPI_BUS,
    device: int = SPI_DEVICE,
) -> HX711Scale:
    """The HX711 on ``/dev/spidev<bus>.<device>`` (PD_SCK on MOSI, DOUT on MISO), read in a thread."""
    import time

    try:
        spi = SpidevBus(bus, device)
    except HX711Busy as exc:
        raise HX711Busy(f"/dev/spidev{bus}.{device}: {exc}") from None
    except ImportError:
        raise HX711Unavailable("no spidev package (install tablemate's pi extra)") from None
    except OSError as exc:
        raise HX711Unavailable(
            f"/dev/spidev{bus}.{device}: {exc.strerror or exc} "
            f"({'dtparam=spi=on' if bus == 0 else 'dtoverlay=spi1-1cs'} in config.txt, then reboot)"
        ) from None
    try:
        hx = SpiHX711(spi, sps=sps)
    except OSError as exc:  # opened, but the controller did not complete the reset's transfer
        spi.close()
        raise SpiTransferFailed(
            f"/dev/spidev{bus}.{device} opened, but a transfer failed: {exc.strerror or exc}"
        ) from None
    except Exception as exc:
        spi.close()
        raise HX711Unavailable(f"/dev/spidev{bus}.{device}: {exc}") from None
    return HX711Scale(hx, gain, stamps or time.monotonic, pins=(spi,))
