#!/usr/bin/env python3
"""Measure the HX711 driver against the simulated chip: rates, CPU, fault times.

    .venv/bin/python bench/hx711.py [--seconds S]

Prints, one figure a line:

- what Blinka's ``microcontroller.delay_us(1)`` really takes here (``time.sleep``);
- reads per second at 80 SPS on virtual time: adafruit's ``read()`` against ours;
- DOUT checks a sample besides the 24 data bits on virtual time, polling and waiting for the
  edge (each poll is a wake-up of the reader thread);
- in real time, a reader thread against a simulated chip on ``time.perf_counter``, at 10 and
  80 SPS, polling DOUT and waiting for its falling edge (as on libgpiod): samples per second
  delivered, conversions the chip made that were never read, the reader thread's CPU use, slow
  pulses dropped and the longest clock-high pulse;
- in real time, DOUT stuck high and stuck low: the time to the fault and the reader's CPU use,
  and adafruit's bare ``is_busy`` loop for comparison;
- the simulator's cost: CPU microseconds per simulated sample on virtual time.

The chip is simulated: pin accesses cost what Python attribute calls cost, not what Blinka's
GPIO calls cost on a Pi, so the real-time figures are a lower bound for the Pi's CPU use.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from types import SimpleNamespace
from typing import Any

from drivers.scale.hx711 import HX711, HX711Scale, RealTiming, adafruit
from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock, real_time_chip
from drivers.scale.sim import SimScale
from firmware_host.runtime.vtime import run_virtual


def delay_us_figures() -> str:
    """Blinka's delay_us(1), timed."""
    d = []
    for _ in range(200):
        t = time.perf_counter()
        adafruit.microcontroller.delay_us(1)
        d.append(time.perf_counter() - t)
    d.sort()
    us = [x * 1e6 for x in d]
    return f"min {us[0]:.0f} µs, median {statistics.median(us):.0f} µs, p95 {us[189]:.0f} µs, max {us[-1]:.0f} µs"


def virtual_reads_per_second() -> tuple[float, float]:
    """adafruit's read() and ours at 80 SPS, on virtual time (interrupts and delay_us made to work)."""
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=80, load=LoadModel(noise_counts=0), pin_seconds=10e-6)
    saved = adafruit.microcontroller
    adafruit.microcontroller = SimpleNamespace(
        disable_interrupts=lambda: None, enable_interrupts=lambda: None, delay_us=lambda us: clock.advance(us * 1e-6)
    )
    try:
        clock.advance(0.1)
        old = adafruit.HX711.__new__(adafruit.HX711)
        old._data_pin, old._clock_pin, old._tare_value_a, old._tare_value_b = chip.data_pin, chip.clock_pin, 0, 0
        old.read()
        start = clock()
        for _ in range(80):
            old.read()
        theirs = 80 / (clock() - start)
    finally:
        adafruit.microcontroller = saved
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=80, load=LoadModel(noise_counts=0), pin_seconds=10e-6)
    hx = HX711(chip.data_pin, chip.clock_pin, sps=80, timing=clock)
    hx.read()
    start = clock()
    for _ in range(80):
        hx.read()
    return theirs, 80 / (clock() - start)


def dout_checks(rate: int, edges: bool) -> float:
    """DOUT reads a sample besides the 24 data bits, over 10 s of virtual time."""
    clock = VirtualClock()
    chip = HX711Chip(clock, rate=rate, load=LoadModel(noise_counts=150), edges=edges)
    hx = HX711(chip.data_pin, chip.clock_pin, sps=rate, timing=clock)
    scale = HX711Scale(hx, clock=clock)
    scale.prepare(lambda t, raw: None, lambda reason: None)
    while clock() < 10.0:
        scale.step()
    return (chip.dout_reads - 24 * hx.stats.reads) / hx.stats.reads


def real_reader(rate: int, seconds: float, stuck: str | None = None, edges: bool = False) -> dict[str, Any]:
    """A reader thread against a chip on the real clock (``edges``: DOUT's fall ends the wait)."""
    chip = real_time_chip(rate, LoadModel(grams=100.0), edges=edges)
    hx = HX711(chip.data_pin, chip.clock_pin, sps=rate, timing=RealTiming())
    scale = HX711Scale(hx, clock=time.monotonic)
    samples: list[float] = []
    faults: list[tuple[float, str]] = []
    if stuck:
        chip.dout_stuck = stuck
    start = time.monotonic()
    scale.start(lambda t, raw: samples.append(t), lambda r: faults.append((time.monotonic() - start, r)))
    time.sleep(seconds)
    scale.close()
    wall = time.monotonic() - start
    steady = (len(samples) - 1) / (samples[-1] - samples[0]) if len(samples) > 1 else 0.0
    return {
        "sps": steady,
        "cpu": scale.cpu_seconds / wall,
        "faults": faults,
        "stats": hx.stats,
        "lost": chip.lost,
        "conversions": chip.conversions,
    }


def unfixed_spin_cpu(seconds: float) -> float:
    """adafruit's bare ``while self.is_busy: pass`` on a stuck DOUT, for ``seconds``: CPU share."""
    chip = real_time_chip(10)
    chip.dout_stuck = "high"
    end = time.perf_counter() + seconds

    class Dout:
        @property
        def value(self) -> bool:
            if time.perf_counter() > end:
                raise TimeoutError
            return chip.data_pin.value

    old = adafruit.HX711.__new__(adafruit.HX711)
    old._data_pin, old._clock_pin = Dout(), chip.clock_pin
    used: list[float] = []

    def run() -> None:
        cpu = time.thread_time()
        try:
            old._read_channel_raw(25)
        except TimeoutError:
            used.append(time.thread_time() - cpu)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return used[0] / seconds


def simulator_cost(sps: int, virtual_seconds: float) -> float:
    """CPU µs per sample of the simulator's scale on virtual time."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        scale = SimScale(loop.call_later, loop.time, sps=sps)
        n = [0]
        scale.start(lambda t, raw: n.__setitem__(0, n[0] + 1), lambda r: None)
        await asyncio.sleep(virtual_seconds)
        scale.close()
        return n[0]

    cpu = time.process_time()
    n = run_virtual(main)
    return (time.process_time() - cpu) / n * 1e6


def main() -> int:
    """Run every measurement and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="real-time run length of each reader test")
    args = parser.parse_args()
    s = args.seconds
    print(f"blinka delay_us(1) = time.sleep(1e-6): {delay_us_figures()}")
    theirs, ours = virtual_reads_per_second()
    print(f"80 SPS chip, virtual time: adafruit read() {theirs:.1f}/s, ours {ours:.1f}/s")
    checks = {(r, e): dout_checks(r, e) for r in (10, 80) for e in (False, True)}
    print(
        "DOUT checks a sample besides the data bits, 10 / 80 SPS: polling "
        f"{checks[10, False]:.1f} / {checks[80, False]:.1f}, waiting for the edge {checks[10, True]:.1f} / "
        f"{checks[80, True]:.1f}"
    )
    for rate, edges in ((10, False), (80, False), (10, True), (80, True)):
        r = real_reader(rate, s, edges=edges)
        st = r["stats"]
        how = "waiting for DOUT's edge" if edges else "polling DOUT"
        print(
            f"real time, {rate} SPS, {how}, {s:g} s: {r['sps']:.2f} samples/s once settled, "
            f"conversions missed {r['lost']} of {r['conversions']}, "
            f"reader CPU {r['cpu'] * 100:.2f} % of a core, "
            f"slow pulses dropped {st.slow} of {st.reads} reads, longest clock-high {st.longest_high * 1e6:.1f} µs, "
            f"faults {r['faults']}"
        )
    for stuck in ("high", "low"):
        r = real_reader(10, s, stuck)
        first = r["faults"][0] if r["faults"] else None
        print(
            f"real time, DOUT stuck {stuck} from power-up, {s:g} s: fault {first[1]!r} after {first[0]:.2f} s, "
            f"reader CPU {r['cpu'] * 100:.2f} % of a core"
            if first
            else f"real time, DOUT stuck {stuck}: no fault!"
        )
    spin = min(s, 2.0)
    print(f"adafruit's bare is_busy loop, DOUT stuck high, {spin:g} s: CPU {unfixed_spin_cpu(spin) * 100:.0f} %")
    for sps in (10, 80):
        print(f"simulator cost at {sps} SPS: {simulator_cost(sps, 600.0):.0f} µs CPU per sample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
