"""``tablemate scale monitor``: the load cell live in a terminal, for wiring and mounting it.

Every sample shows the raw counts, the grams (once a counts-per-gram is known: ``--counts-per-gram``
or the calibration in the state folder), the noise over the last second and the detector's
stability (``settled`` / ``disturbed``); the detector's events (``place``, ``fall``, ``fault``) and
the driver's faults (``no data``, ``stuck at N``…) get lines of their own. On a terminal the sample
line refreshes in place; piped, or with ``--lines``, it is one line per sample.

``--sim`` reads the simulated HX711 chip (the real driver, a simulated cell with a little story:
pieces placed, a hand press, a brush, a fall, the bin emptied), so it runs on a laptop;
``--virtual`` runs that on virtual time, as fast as it computes (with ``--seconds`` or
``--samples``). Ctrl-C ends it with exit status 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import queue
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TextIO

from firmware_host.core.config import Config
from firmware_host.scale.calibration import Calibration
from firmware_host.scale.detector import FAULT, Detector

DEMO_PIECE_GRAMS = 5.0
ZERO_SAMPLES = 5
"""The grams shown are relative to the median of the first samples (tared at start)."""


class MonitorError(Exception):
    """The monitor cannot run: one line saying why."""


def demo_load(t: float) -> float:
    """The simulated bin's story in grams, repeating every 24 s (a 5 g piece is one piece)."""
    s = t % 24.0
    pile = 0.0
    for at, grams in ((3.0, 5.0), (6.0, 10.0), (12.0, 5.0), (18.0, -15.0), (21.0, -5.0)):
        if s >= at:
            pile += grams
    if 9.0 <= s < 9.8:
        pile += 300.0  # a hand pressing on the pile
    if 15.0 <= s < 15.3:
        pile += 40.0  # a brush
    return pile


def calibration(state_dir: str | None) -> dict[str, Any]:
    """The calibration document ``scale.json`` of the state folder, or ``{}`` (never creates it)."""
    from firmware_host.core.store import Store, StoreError

    try:
        return Store(state_dir, create=False).read_doc("scale")
    except StoreError:  # no state folder (yet): not calibrated
        return {}


class Monitor:
    """Turns samples and faults into terminal lines."""

    def __init__(
        self,
        out: TextIO,
        sps: int,
        counts_per_gram: float | None,
        piece_grams: float | list[float] | None,
        refresh: bool,
    ) -> None:
        self.out = out
        self.sps = sps
        self.counts_per_gram = counts_per_gram
        self.refresh = refresh
        self.detector = Detector(counts_per_gram, piece_grams, sps) if counts_per_gram else None
        self.samples = 0
        self.events: list[str] = []
        self._recent: deque[int] = deque(maxlen=max(2, sps))
        self._first: list[int] = []
        self._zero: float | None = None
        self._pending_line = False

    def header(self, source: str) -> None:
        """The first line: what is being read and how grams are known."""
        if self.counts_per_gram:
            how = f"{self.counts_per_gram:g} counts/g, grams from the first samples"
        else:
            how = "no counts-per-gram (give --counts-per-gram or calibrate): raw counts only"
        self._line(f"scale monitor: {source}; {how}; Ctrl-C stops")

    def sample(self, t: float, raw: int) -> None:
        """One sample from the scale."""
        self.samples += 1
        self._recent.append(raw)
        if self._zero is None:
            self._first.append(raw)
            if len(self._first) >= ZERO_SAMPLES:
                self._zero = statistics.median(self._first)
        events = self.detector.feed(t, raw) if self.detector else []
        self._status(t, raw)
        for e in events:
            if e.event == FAULT:
                self.event(t, f"FAULT  {e.reason or 'detector'}")
            else:
                pieces = f"  {e.pieces} piece{'s' if e.pieces != 1 else ''}" if e.pieces else ""
                self.event(e.t, f"{e.event.upper():5}  {e.grams:+.1f} g{pieces}")

    def fault(self, t: float, reason: str) -> None:
        """A fault from the driver."""
        self.event(t, f"FAULT  {reason}")

    def event(self, t: float, text: str) -> None:
        """An event on a line of its own."""
        line = f"{t:9.2f} s  {text}"
        self.events.append(text)
        self._line(line)

    def _status(self, t: float, raw: int) -> None:
        noise = statistics.pstdev(self._recent) if len(self._recent) > 1 else 0.0
        parts = [f"{t:9.2f} s", f"raw {raw:9d}"]
        cpg = self.counts_per_gram
        if cpg:
            grams = (raw - self._zero) / cpg if self._zero is not None else 0.0
            parts.append(f"{grams:+9.1f} g")
            parts.append(f"noise {noise / abs(cpg):5.2f} g")
        else:
            parts.append(f"noise {noise:7.1f} counts")
        if self.detector is not None:
            parts.append(self.detector.state)
        text = "  ".join(parts)
        if self.refresh:
            self.out.write("\r" + text + "\x1b[K")
            self.out.flush()
            self._pending_line = True
        else:
            self.out.write(text + "\n")

    def _line(self, text: str) -> None:
        if self._pending_line:
            self.out.write("\r\x1b[K")
            self._pending_line = False
        self.out.write(text + "\n")
        self.out.flush()

    def finish(self, stats: Any = None, cpu_seconds: float | None = None, seconds: float = 0.0) -> None:
        """End the refreshing line; with the driver's ``stats``, a last line of what it dropped."""
        if self._pending_line:
            self.out.write("\n")
            self._pending_line = False
        if stats is not None:
            line = (
                f"driver: {stats.reads} reads, {stats.slow} dropped for a slow clock pulse, "
                f"{stats.settling} while settling, longest clock-high {stats.longest_high * 1e6:.1f} µs"
            )
            if cpu_seconds is not None and seconds > 0:
                line += f", reader CPU {cpu_seconds / seconds * 100:.1f} % of a core"
            self.out.write(line + "\n")
        self.out.flush()


def run_monitor(config: Config, args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``scale monitor`` with parsed ``args``; returns the exit status."""
    out = out or sys.stdout
    if args.seconds is not None and not 0 < args.seconds < math.inf:
        raise MonitorError("--seconds must be a number of seconds above 0")
    if args.samples is not None and args.samples < 1:
        raise MonitorError("--samples must be 1 or more")
    if args.virtual and not args.sim:
        raise MonitorError("--virtual needs --sim (real hardware runs in real time)")
    if args.virtual and args.seconds is None and args.samples is None:
        raise MonitorError("--virtual needs --seconds or --samples (it would never end)")
    s = config["scale"]
    sps, gain = s["sps"], s["gain"]
    saved = Calibration.from_json(calibration(args.state_dir))  # what `tablemate calibrate` wrote
    cpg = args.counts_per_gram if args.counts_per_gram is not None else (saved.counts_per_gram if saved else None)
    piece = args.piece_grams if args.piece_grams is not None else (saved.weights() if saved else None)
    if cpg is not None and (cpg == 0 or not math.isfinite(cpg)):
        raise MonitorError("--counts-per-gram must be a number other than 0")
    refresh = out.isatty() and not args.lines
    if args.sim:
        from drivers.scale.sim import DEFAULT_COUNTS_PER_GRAM

        if cpg is None:
            cpg = DEFAULT_COUNTS_PER_GRAM * gain / 128  # the simulated cell's own counts per gram
            piece = piece if piece is not None else DEMO_PIECE_GRAMS
        monitor = Monitor(out, sps, cpg, piece, refresh)
        monitor.header(f"simulated HX711 at {sps} SPS, gain {gain}{', virtual time' if args.virtual else ''}")
        return _run_sim(monitor, args, sps, gain, s["interface"])
    from drivers.scale.hx711 import HX711Unavailable
    from drivers.scale.hx711_open import describe, open_configured

    try:
        scale = open_configured({**s, "sps": sps, "gain": gain}, time.monotonic)
    except HX711Unavailable as exc:
        raise MonitorError(f"{describe(s)}: {exc}") from None
    monitor = Monitor(out, sps, cpg, piece, refresh)
    monitor.header(f"{describe(s)}, {sps} SPS, gain {gain}")
    return _run_hardware(monitor, scale, args)


def _stop_after(monitor: Monitor, args: argparse.Namespace) -> Callable[[float, float], bool]:
    def done(start: float, now: float) -> bool:
        if args.samples is not None and monitor.samples >= args.samples:
            return True
        return args.seconds is not None and now - start >= args.seconds

    return done


def _run_sim(monitor: Monitor, args: argparse.Namespace, sps: int, gain: int, interface: str = "gpio") -> int:
    from drivers.scale.sim import SimScale

    done = _stop_after(monitor, args)
    stats: list[Any] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        finished = asyncio.Event()
        scale = SimScale(loop.call_later, loop.time, sps=sps, gain=gain, interface=interface)
        scale.load.profile = lambda t: demo_load(t - start)

        def on_sample(t: float, raw: int) -> None:
            monitor.sample(t - start, raw)
            if done(start, t):
                finished.set()

        def on_fault(reason: str) -> None:
            monitor.fault(loop.time() - start, reason)

        scale.start(on_sample, on_fault)
        stats.append(scale.hx.stats)
        try:
            if args.seconds is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(finished.wait(), args.seconds)
            else:
                await finished.wait()
        finally:
            scale.close()

    try:
        if args.virtual:
            from firmware_host.runtime.vtime import run_virtual

            run_virtual(main)
        else:
            asyncio.run(main())
    except KeyboardInterrupt:
        pass
    finally:
        monitor.finish(stats[0] if stats else None)
    return 0


def _run_hardware(monitor: Monitor, scale: Any, args: argparse.Namespace) -> int:
    items: queue.SimpleQueue[tuple[str, float, Any]] = queue.SimpleQueue()
    done = _stop_after(monitor, args)
    start = time.monotonic()
    scale.start(
        lambda t, raw: items.put(("sample", t, raw)),
        lambda reason: items.put(("fault", time.monotonic(), reason)),
    )
    try:
        while not done(start, time.monotonic()):
            try:
                kind, t, value = items.get(timeout=0.2)
            except queue.Empty:
                continue
            if kind == "sample":
                monitor.sample(t - start, value)
            else:
                monitor.fault(t - start, value)
    except KeyboardInterrupt:
        pass
    finally:
        scale.close()
        monitor.finish(scale.stats, scale.cpu_seconds, time.monotonic() - start)
    return 0
