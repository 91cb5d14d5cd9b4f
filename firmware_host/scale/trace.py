"""Recorded load-cell traces (``t,raw`` CSV) for ``tablemate scale detect``.

A trace is a header line ``t,raw`` and one sample per line: ``t`` seconds, ``raw`` signed HX711
counts. What counts as malformed — each is one line on stderr naming the line, exit status 2,
nothing on stdout:

- a file that cannot be read, or is not UTF-8 text;
- no header, or a first line other than ``t,raw`` (spaces around the names and a byte-order mark
  are allowed);
- a line that does not have exactly two comma-separated fields;
- a ``t`` or ``raw`` that is not a finite decimal number (``raw`` may have a fraction: a trace
  already in grams, read with the default ``--counts-per-gram 1``);
- a ``t`` not greater than the one before it (time must increase).

Blank lines are skipped. A header with no samples is a valid, empty trace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from firmware_host.scale.detector import Detector, ScaleEvent, final_events

HEADER = ("t", "raw")


class TraceError(Exception):
    """A trace that cannot be used; the message is one line."""


def _number(text: str, name: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise TraceError(f"{where}: {name} {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise TraceError(f"{where}: {name} {text.strip()!r} is not a finite number")
    return value


def read_trace(path: Path | str) -> tuple[list[float], list[float]]:
    """The times and raw values of a trace file, checked line by line."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise TraceError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{name}: is a directory, not a trace") from None
    except UnicodeDecodeError:
        raise TraceError(f"{name}: not a text file (UTF-8)") from None
    except OSError as exc:
        raise TraceError(f"{name}: cannot read ({exc.strerror or exc})") from None
    return parse_trace(text.splitlines(), name)


def parse_trace(lines: Sequence[str], name: str = "trace") -> tuple[list[float], list[float]]:
    """Parse the lines of a trace (see the module's rules)."""
    times: list[float] = []
    raws: list[float] = []
    header_seen = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split(",")
        where = f"{name} line {number}"
        if not header_seen:
            if tuple(f.strip() for f in fields) != HEADER:
                raise TraceError(f"{where}: the header must be 't,raw', not {line.strip()[:40]!r}")
            header_seen = True
            continue
        if len(fields) != 2:
            raise TraceError(f"{where}: expected 2 fields 't,raw', found {len(fields)}")
        t = _number(fields[0], "t", where)
        raw = _number(fields[1], "raw", where)
        if times and t <= times[-1]:
            raise TraceError(f"{where}: t {fields[0].strip()} is not after the previous {times[-1]:g}")
        times.append(t)
        raws.append(int(raw) if raw.is_integer() else raw)
    if not header_seen:
        raise TraceError(f"{name}: empty, expected the header 't,raw'")
    return times, raws


def detect(
    times: Sequence[float],
    raws: Sequence[float],
    counts_per_gram: float = 1.0,
    piece_grams: float | None = None,
    sps: float | None = None,
) -> list[ScaleEvent]:
    """Every event of a trace, in time order, as the device's detector reports them live.

    A place the detector took back as a hand (a ``retract``) is left out, with its ``retract``
    (:func:`~firmware_host.scale.detector.final_events`): the device takes that count back too.
    """
    detector = Detector(counts_per_gram, piece_grams, sps)
    events: list[ScaleEvent] = []
    for t, raw in zip(times, raws, strict=True):
        events += detector.feed(t, raw)
    return final_events(events)
