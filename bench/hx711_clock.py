"""``tablemate bench hx711``: how long PD_SCK stays high on each HX711 path, with the service busy.

The HX711 powers down when PD_SCK stays high over 60 µs (the datasheet allows 50 µs), so every
pulse of every word counts. The bench clocks ``--words`` words on each path while ``--busy``
threads do what the service's other threads do (the event loop's Python work, a display frame
drawn and packed, journal lines written and fsynced, tower bytes), and prints, per path, the
PD_SCK high-time distribution (p50, p99, p99.9, max), the pulses over 50 µs, the words dropped
(a word with such a pulse is dropped by the driver) and the chip's power-downs.

How each path is timed here — say it with the figures:

- ``spi``: each high is one SPI bit-time, set by the SPI clock: the figures are computed from the
  very transfers the driver sends (decoded by the simulated chip on virtual time). Real SPI timing
  is the hardware's and was not measured on a Pi.
- ``iio``: the kernel's own algorithm (``hx711.c``) run on the simulated chip; its highs are the
  driver's ``ndelay`` (2.5 µs) with interrupts off. The GPIO write time on a Pi is not included
  and was not measured.
- ``gpio-process``: today's Python reader (``HX711._shift_in``) in a child process with nothing
  else in it (``SCHED_FIFO`` where granted, ``--realtime``), clocking the simulated chip on the
  real clock; each pin access makes a syscall that releases the GIL, as libgpiod's does.
- ``gpio-thread``: the same reader in a thread of this process, beside the busy threads: what the
  service did before.

The GPIO paths are measured here, in real time, on this machine; a simulated pin costs a Python
call, not a libgpiod ioctl, so on a Pi every figure is larger. Words are clocked back to back
(not waiting for DOUT), so ``--words`` 10,000 take seconds.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import select
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

LIMIT = 50e-6
"""The datasheet's longest PD_SCK high (T3 max); the driver drops a word with a longer one."""
PATHS = ("spi", "iio", "gpio-process", "gpio-thread")
BUSY_KINDS = ("loop", "display", "journal", "tower")


@dataclass
class PathResult:
    """One path's figures."""

    path: str
    words: int
    highs: Sequence[float]
    dropped: int
    power_downs: int
    how: str
    note: str = ""
    seconds: float = 0.0

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the high times (nearest rank)."""
        ordered = sorted(self.highs)
        if not ordered:
            return math.nan
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]

    @property
    def over(self) -> int:
        """Pulses over :data:`LIMIT`."""
        return sum(1 for h in self.highs if h > LIMIT)

    def to_json(self) -> dict[str, Any]:
        """The figures as one JSON object (times in µs)."""
        return {
            "path": self.path,
            "words": self.words,
            "pulses": len(self.highs),
            "high_us": {q: round(self.quantile(v) * 1e6, 2) for q, v in (("p50", 0.5), ("p99", 0.99), ("p99.9", 0.999))}
            | {"max": round(max(self.highs, default=math.nan) * 1e6, 2)},
            "pulses_over_50us": self.over,
            "dropped_words": self.dropped,
            "power_downs": self.power_downs,
            "how": self.how,
            "note": self.note,
            "seconds": round(self.seconds, 2),
        }


# -- the service's other threads, busy ----------------------------------------------------------------
@dataclass
class Busy:
    """Threads doing the service's kinds of work until stopped."""

    count: int
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)
    rounds: int = 0

    def _loop(self) -> None:  # the event loop: Python work in bursts
        while not self.stop.is_set():
            end = time.perf_counter() + 2e-3
            n = 0
            while time.perf_counter() < end:
                n += sum(i * i for i in range(50))
            self.rounds += 1
            time.sleep(1e-3)

    def _display(self) -> None:  # a frame drawn and packed for the panel
        from PIL import Image, ImageDraw

        while not self.stop.is_set():
            image = Image.new("1", (128, 64))
            draw = ImageDraw.Draw(image)
            for row in range(6):
                draw.text((0, row * 10), f"P{row + 1} score {self.rounds + row}", fill=1)
            bytes(image.tobytes())
            self.rounds += 1
            time.sleep(5e-3)

    def _journal(self) -> None:  # journal lines made durable
        fd, name = tempfile.mkstemp(prefix="tablemate-bench-")
        try:
            while not self.stop.is_set():
                line = json.dumps({"seq": self.rounds, "action": {"type": "score", "seat": "p1", "delta": 1}}) + "\n"
                os.write(fd, line.encode())
                os.fsync(fd)
                self.rounds += 1
                time.sleep(2e-3)
        finally:
            os.close(fd)
            os.unlink(name)

    def _tower(self) -> None:  # single command bytes to a serial port
        r, w = os.pipe()
        try:
            while not self.stop.is_set():
                os.write(w, b"\x14")
                os.read(r, 1)
                self.rounds += 1
                time.sleep(1e-3)
        finally:
            os.close(r)
            os.close(w)

    def __enter__(self) -> Busy:
        for i in range(self.count):
            kind = BUSY_KINDS[i % len(BUSY_KINDS)]
            thread = threading.Thread(target=getattr(self, f"_{kind}"), name=f"busy-{kind}", daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=5)


# -- the paths ------------------------------------------------------------------------------------------
def run_spi(words: int, sps: int) -> PathResult:
    """The SPI path's driver and encoding against the simulated chip on virtual time."""
    from drivers.scale.hx711 import HX711Scale
    from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock
    from drivers.scale.hx711_spi import SPI_HZ, SimSpiBus, SpiHX711

    clock = VirtualClock()
    chip = HX711Chip(clock, rate=sps, load=LoadModel(grams=50.0))
    hx = SpiHX711(SimSpiBus(chip, SPI_HZ), sps=sps, timing=clock)
    downs = chip.power_downs  # the reset at open
    hx.high_times = []
    scale = HX711Scale(hx, 128, clock)
    scale.prepare(lambda t, raw: None, lambda reason: None)
    start = time.perf_counter()
    while hx.stats.reads < words:
        scale.step()
    return PathResult(
        "spi",
        hx.stats.reads,
        array("d", hx.high_times),
        hx.stats.slow,
        chip.power_downs - downs,
        f"computed from the simulated SPI transfers at {SPI_HZ / 1e6:g} MHz (hardware-timed; not measured on a Pi)",
        seconds=time.perf_counter() - start,
    )


def run_iio(words: int, sps: int) -> PathResult:
    """The kernel driver's algorithm against the simulated chip on virtual time."""
    from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock
    from drivers.scale.hx711_iio import KERNEL_CLOCK_HZ, IIOScale, KernelSim

    clock = VirtualClock()
    chip = HX711Chip(clock, rate=sps, load=LoadModel(grams=50.0))
    kernel = KernelSim(chip, clock)
    kernel.high_times = []
    scale = IIOScale(kernel, sps, 128, clock)
    scale.prepare(lambda t, raw: None, lambda reason: None)
    start = time.perf_counter()
    while scale.stats.reads < words:
        scale.step()
    highs = kernel.high_times
    pulses = len(highs)
    dropped = words_over(highs)
    return PathResult(
        "iio",
        scale.stats.reads,
        array("d", kernel.high_times),
        dropped,
        chip.power_downs,
        f"computed: the kernel's ndelay at clock-frequency {KERNEL_CLOCK_HZ / 1e3:g} kHz, interrupts off "
        "(GPIO write time on a Pi not included, not measured)",
        note=f"{chip.conversions - scale.stats.reads} of {chip.conversions} conversions not read ({pulses} pulses)",
        seconds=time.perf_counter() - start,
    )


def _gil_release() -> None:
    """A syscall with the GIL released, as libgpiod's line ioctl makes (returns at once)."""
    select.select((), (), (), 0)


class _TimedPins:
    """The simulated chip's pins behind GIL-releasing calls, each high timed with ``perf_counter``."""

    def __init__(self, chip: Any) -> None:
        self.chip = chip
        self.highs = array("d")
        self._rose = 0.0
        self.clock_pin = self._Clock(self)
        self.data_pin = self._Data(self)

    class _Clock:
        def __init__(self, pins: _TimedPins) -> None:
            self.pins = pins

        @property
        def value(self) -> bool:
            return self.pins.chip.clock_pin.value

        @value.setter
        def value(self, high: bool) -> None:
            pins = self.pins
            if high:
                pins.chip.clock_pin.value = True
                pins._rose = time.perf_counter()
                _gil_release()
            else:
                _gil_release()
                pins.chip.clock_pin.value = False
                pins.highs.append(time.perf_counter() - pins._rose)

    class _Data:
        def __init__(self, pins: _TimedPins) -> None:
            self.pins = pins

        @property
        def value(self) -> bool:
            _gil_release()
            return self.pins.chip.data_pin.value


def clock_gpio(words: int, sps: int) -> tuple[array, int, int]:
    """Clock ``words`` words back to back with today's driver on GIL-releasing simulated pins, in
    real time; the highs, the words with a high over :data:`LIMIT`, the chip's power-downs."""
    from drivers.scale.hx711 import HX711, RealTiming
    from drivers.scale.hx711_chip import LoadModel, real_time_chip

    chip = real_time_chip(sps, LoadModel(grams=50.0))
    pins = _TimedPins(chip)
    hx = HX711(pins.data_pin, pins.clock_pin, sps=sps, timing=RealTiming())
    downs = chip.power_downs
    pins.highs = array("d")
    for _ in range(words):
        hx._shift_in(25)
    return pins.highs, words_over(pins.highs), chip.power_downs - downs


def words_over(highs: Sequence[float], pulses: int = 25) -> int:
    """Words (``pulses`` highs each) with a high over :data:`LIMIT`: the words the driver drops."""
    return sum(1 for i in range(0, len(highs), pulses) if max(highs[i : i + pulses]) > LIMIT)


def run_gpio_thread(words: int, sps: int) -> PathResult:
    """Today's reader in a thread of this process, beside the busy threads."""
    out: list[tuple[array, int, int]] = []
    start = time.perf_counter()
    thread = threading.Thread(target=lambda: out.append(clock_gpio(words, sps)), name="hx711")
    thread.start()
    thread.join()
    highs, dropped, downs = out[0]
    return PathResult(
        "gpio-thread",
        words,
        highs,
        dropped,
        downs,
        "measured here in real time: Python reader in a thread beside the busy ones, simulated pins",
        seconds=time.perf_counter() - start,
    )


def run_gpio_process(words: int, sps: int, realtime: bool) -> PathResult:
    """Today's reader in a child process with nothing else in it."""
    start = time.perf_counter()
    argv = [sys.executable, "-m", "bench.hx711_clock", "--child", str(words), str(sps), str(int(realtime))]
    proc = subprocess.run(argv, capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or "child failed")
    head, _, body = proc.stdout.partition(b"\n")
    meta = json.loads(head)
    highs = array("d")
    highs.frombytes(body)
    return PathResult(
        "gpio-process",
        words,
        highs,
        meta["dropped"],
        meta["power_downs"],
        f"measured here in real time: Python reader alone in a process, {meta['scheduling']}, simulated pins",
        seconds=time.perf_counter() - start,
    )


def _child(words: int, sps: int, realtime: bool) -> int:
    from drivers.scale.hx711_process import realtime as ask_realtime

    scheduling = ask_realtime() if realtime else "normal priority (not asked)"
    highs, dropped, downs = clock_gpio(words, sps)
    out = sys.stdout.buffer
    out.write(json.dumps({"dropped": dropped, "power_downs": downs, "scheduling": scheduling}).encode() + b"\n")
    out.write(highs.tobytes())
    out.flush()
    return 0


# -- the report ------------------------------------------------------------------------------------------
def machine() -> str:
    """This machine in a few words."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
        for line in info:
            if line.startswith(("model name", "Model")):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def table(results: Sequence[PathResult]) -> Iterator[str]:
    """The printed report."""
    yield (
        f"{'path':<13} {'words':>6} {'pulses':>7}  {'PD_SCK high µs: p50':>19} {'p99':>7} {'p99.9':>8} {'max':>9}  "
        + (f"{'>50µs':>6} {'dropped':>7} {'power-downs':>11}")
    )
    for r in results:
        q = [r.quantile(0.5), r.quantile(0.99), r.quantile(0.999), max(r.highs, default=math.nan)]
        yield (
            f"{r.path:<13} {r.words:>6} {len(r.highs):>7}  {q[0] * 1e6:>19.2f} {q[1] * 1e6:>7.2f} {q[2] * 1e6:>8.2f} "
            f"{q[3] * 1e6:>9.1f}  {r.over:>6} {r.dropped:>7} {r.power_downs:>11}"
        )
    for r in results:
        yield f"  {r.path}: {r.how}" + (f"; {r.note}" if r.note else "") + f" ({r.seconds:.1f} s)"


RUNNERS: dict[str, Callable[..., PathResult]] = {
    "spi": lambda words, sps, realtime: run_spi(words, sps),
    "iio": lambda words, sps, realtime: run_iio(words, sps),
    "gpio-process": run_gpio_process,
    "gpio-thread": lambda words, sps, realtime: run_gpio_thread(words, sps),
}


def measure(paths: Sequence[str], words: int, busy: int, sps: int, realtime: bool) -> list[PathResult]:
    """Each path's figures, every one run while ``busy`` threads work."""
    results = []
    with Busy(busy):
        for path in paths:
            results.append(RUNNERS[path](words, sps, realtime))
    return results


def main(
    words: int = 10_000,
    busy: int = 4,
    sps: int = 80,
    paths: Sequence[str] = PATHS,
    realtime: bool = False,
    as_json: bool = False,
) -> int:
    """Run the bench and print its report; 1 when the chosen path (SPI) had a pulse over 50 µs."""
    if words < 1 or busy < 0:
        raise ValueError("--words must be positive and --busy not negative")
    results = measure(paths, words, busy, sps, realtime)
    if as_json:
        print(json.dumps({"machine": machine(), "busy": busy, "sps": sps, "paths": [r.to_json() for r in results]}))
    else:
        print(
            f"tablemate bench hx711: {words} words a path at {sps} SPS, {busy} busy threads "
            f"({', '.join(BUSY_KINDS[i % 4] for i in range(busy)) or 'none'}); {machine()}"
        )
        for line in table(results):
            print(line)
    chosen = [r for r in results if r.path == "spi"]
    return 1 if chosen and chosen[0].over else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        sys.exit(_child(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"))
    sys.exit(main())
