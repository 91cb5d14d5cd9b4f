"""The doctor's scale check: clock real HX711 words through the configured path and count them.

One low DOUT level says only that something pulls the line low — a chip with a conversion ready,
or a wire shorted to ground, or a chip that answers every word with zeros. So the check opens the
HX711 exactly as the service does (``[scale] interface``: SPI, IIO or GPIO), reads words for a few
seconds through the same reader and fault rules, and reports what a table would notice: words
clocked, words dropped for a clock pulse over 50 µs, corrupt words (glitch codes, a value stuck),
each per minute, and the longest PD_SCK high.

:func:`clock_words` does the counting on any reader with ``prepare``/``step`` (the tests give it
the simulated chip on the SPI bus); :func:`probe_words` opens the real one; :func:`judge` turns a
:class:`WordReport` into the doctor's line.
"""

from __future__ import annotations

import contextlib
import errno
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BAD_SHARE = 0.01
"""More than this share of words dropped or corrupt fails the check."""


@dataclass
class WordReport:
    """What clocking words for ``seconds`` showed."""

    seconds: float
    words: int = 0
    """Words clocked out of the chip (settling ones included)."""
    samples: int = 0
    """Readings the fault rules passed on."""
    dropped: int = 0
    """Words dropped for a PD_SCK high over 50 µs (the chip may have powered down)."""
    corrupt: int = 0
    """Glitch codes and words stuck at one value."""
    longest_high: float = 0.0
    fault: str | None = None
    busy: bool = False
    """The running service holds the chip: nothing was clocked."""

    def per_minute(self, count: int) -> float:
        """``count`` over the run, per minute."""
        return count * 60.0 / self.seconds if self.seconds > 0 else 0.0


def clock_words(scale: Any, seconds: float, clock: Callable[[], float] = time.monotonic) -> WordReport:
    """Step ``scale`` (an :class:`~drivers.scale.hx711.HX711Scale` or
    :class:`~drivers.scale.hx711_iio.IIOScale`) for ``seconds`` of ``clock`` and count."""
    report = WordReport(seconds)
    faults: list[str] = []
    readings = [0]

    def sample(t: float, raw: int) -> None:
        report.samples += 1

    scale.prepare(sample, faults.append)
    watch = scale.watch
    passed_on = watch.reading

    def reading(t: float, raw: int) -> None:
        readings[0] += 1
        passed_on(t, raw)

    watch.reading = reading
    start = clock()
    while clock() - start < seconds:
        scale.step()
    stats = scale.stats
    report.words = stats.reads
    report.dropped = stats.slow
    report.longest_high = stats.longest_high
    report.corrupt = readings[0] - report.samples  # glitch codes, and a value repeated (stuck)
    report.fault = faults[-1] if faults else None
    return report


class Busy(Exception):
    """The chip is held by another process (the running service)."""


def open_for_check(s: dict[str, Any]) -> Any:
    """The configured HX711's reader, unstarted, as the service opens it; :class:`Busy` when the
    running service holds it. The GPIO path is read in this process: the doctor has no other
    threads to stretch a pulse."""
    from drivers.scale.hx711 import HX711Unavailable

    if s["interface"] == "spi":
        from drivers.scale.hx711_spi import HX711Busy, open_hx711_spi

        try:
            return open_hx711_spi(s["sps"], s["gain"])
        except HX711Busy as exc:
            raise Busy(str(exc)) from None
    if s["interface"] == "iio":
        from drivers.scale.hx711_iio import open_hx711_iio

        return open_hx711_iio(s["sps"], s["gain"])
    from drivers.gpio.hx711_lines import HX711Lines
    from drivers.scale.hx711 import hx711_on_lines

    try:
        lines = HX711Lines(s["data"], s["clock"])
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise Busy(f"GPIO {s['data']}/{s['clock']} held by another process") from None
        raise HX711Unavailable(f"GPIO {s['data']}/{s['clock']}: {exc.strerror or exc}") from None
    return hx711_on_lines(lines, s["data"], s["clock"], s["sps"], s["gain"])


def check_seconds(sps: int) -> float:
    """How long the doctor clocks words: 30 words at 10 SPS, 2 s at 80 SPS."""
    return max(2.0, 30.0 / sps)


def probe_words(s: dict[str, Any], seconds: float) -> WordReport:
    """Open the configured HX711, clock words for ``seconds``, close it."""
    try:
        scale = open_for_check(s)
    except Busy:
        return WordReport(seconds, busy=True)
    try:
        return clock_words(scale, seconds)
    finally:
        with contextlib.suppress(Exception):
            scale.close()


def judge(s: dict[str, Any], report: WordReport, path: str) -> tuple[str, str, str]:
    """``(status, found, fix)`` of the scale's doctor line; ``path`` says where the chip is."""
    if report.busy:
        return "skip", f"{path}: held by the running service (sudo systemctl stop tablemate)", ""
    wiring = "check the HX711's VCC/GND and its DOUT and PD_SCK wires (hardware/wiring.md)"
    if report.words == 0:
        return "FAIL", f"{path}: DOUT never falls, no word in {report.seconds:g} s", wiring
    figures = (
        f"{report.words} words in {report.seconds:g} s, "
        f"{report.per_minute(report.dropped):.0f} dropped/min, {report.per_minute(report.corrupt):.0f} corrupt/min, "
        f"longest PD_SCK high {report.longest_high * 1e6:.1f} µs"
    )
    if report.samples == 0 or report.fault:
        why = report.fault or "no reading passed"
        hint = " (DOUT held low: a short to GND, or no chip)" if why.startswith("stuck at 0") else ""
        return "FAIL", f"{path}: {figures}; {why}{hint}", wiring
    bad = report.dropped + report.corrupt
    if bad > BAD_SHARE * report.words:
        fix = (
            '[scale] interface = "spi" (hardware-timed pulses; docs/hx711-timing.md)'
            if report.dropped and s["interface"] == "gpio"
            else wiring + "; keep the HX711's leads short and away from mains"
        )
        return "FAIL", f"{path}: {figures}", fix
    return "ok", f"{path}: {figures}", ""
