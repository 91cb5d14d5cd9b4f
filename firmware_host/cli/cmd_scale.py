"""The load cell: ``scale monitor`` (live) and ``scale detect`` (the event detector over a trace,
its output fixed by ``docs/commands.md``)."""

from __future__ import annotations

import argparse
import math

from firmware_host.cli.common import EXIT_OK, Fail, load_config, print_json


def cmd_scale_monitor(args: argparse.Namespace) -> int:
    """Show the load cell live: raw counts, grams, noise, stability and events."""
    from firmware_host.cli.monitor import MonitorError, run_monitor

    try:
        return run_monitor(load_config(args), args)
    except MonitorError as exc:
        raise Fail(f"monitor: {exc}") from None


def _positive(value: float | None, option: str, zero_ok: bool = False) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value == 0 or (value < 0 and not zero_ok):
        raise Fail(f"{option} must be a {'non-zero' if zero_ok else 'positive'} number, not {value:g}")


def cmd_scale_detect(args: argparse.Namespace) -> int:
    """Run the load-cell event detector over a recorded trace: one JSON object per event."""
    from firmware_host.scale.trace import TraceError, detect, read_trace

    _positive(args.counts_per_gram, "--counts-per-gram", zero_ok=True)
    _positive(args.piece_grams, "--piece-grams")
    _positive(args.sps, "--sps")
    try:
        times, raws = read_trace(args.trace)
    except TraceError as exc:
        raise Fail(str(exc)) from None
    for event in detect(times, raws, args.counts_per_gram, args.piece_grams, args.sps):
        print_json(event.to_json())
    return EXIT_OK
