"""``tablemate bench …``: each benchmark's command, which loads its module only when it runs
(:mod:`firmware_host.cli.bench`; the detector's benchmark lives in the checkout's ``bench/``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware_host.cli.common import Fail, state_root


def cmd_bench_idle(args: argparse.Namespace) -> int:
    """Measure the device's idle CPU and memory."""
    from firmware_host.cli.bench.idle import main as bench_idle

    return bench_idle(args.seconds)


def cmd_bench_wakeups(args: argparse.Namespace) -> int:
    """Count the idle device's wake-ups per second, per thread."""
    from firmware_host.cli.bench.wakeups import main as bench_wakeups

    return bench_wakeups(args.seconds)


def cmd_bench_pixels(args: argparse.Namespace) -> int:
    """Measure press-to-display latency and the I2C bytes of typical changes."""
    from firmware_host.cli.bench.pixels import main as bench_pixels

    return bench_pixels(args.presses)


def cmd_bench_panels(args: argparse.Namespace) -> int:
    """Count the bus bytes of a menu step on every panel kind."""
    from firmware_host.cli.bench.panels import main as bench_panels

    return bench_panels(args.presses)


def cmd_bench_journal(args: argparse.Namespace) -> int:
    """Measure the journal's append-and-fsync time in the state folder."""
    from firmware_host.cli.bench.journal import main as bench_journal

    root = state_root(args)
    try:
        if args.slow_fsync:
            from firmware_host.cli.bench.loop import main as bench_loop

            return bench_loop(root, args.count, args.slow_fsync)
        return bench_journal(root, args.count)
    except OSError as exc:
        raise Fail(f"state folder {root}: {exc.strerror or exc}") from None


def cmd_bench_undo(args: argparse.Namespace) -> int:
    """Measure resume, ``state`` and undo of long sessions, and the loop's longest block."""
    from firmware_host.cli.bench.undo import main as bench_undo

    return bench_undo(tuple(args.actions) if args.actions else (1000, 10000), args.repeat)


def cmd_bench_resume(args: argparse.Namespace) -> int:
    """Measure what the table sees from the boot of a long game to the end of its check."""
    from firmware_host.cli.bench.resume import SIZES
    from firmware_host.cli.bench.resume import main as bench_resume

    return bench_resume(tuple(args.actions) if args.actions else SIZES, apart=not args.in_thread)


def cmd_bench_start(args: argparse.Namespace) -> int:
    """Measure start → READY of the device beside a bare import of the same libraries."""
    from firmware_host.cli.bench.start import main as bench_start

    return bench_start(args.runs)


def cmd_bench_voice(args: argparse.Namespace) -> int:
    """Measure press → first sample to ALSA beside the engine alone, the loop's block, CPU and RSS."""
    from firmware_host.cli.bench.voice import bench

    return bench(args.presses, args.runs)


def cmd_bench_web(args: argparse.Namespace) -> int:
    """Measure the companion page's cost: wake-ups, press latency under load, Chromium, bad input."""
    from firmware_host.cli.bench.web import main as bench_web

    return bench_web(
        args.presses,
        args.flood_seconds,
        args.seconds,
        args.malformed,
        args.dom_presses,
        args.attack_seconds,
        args.only_attacks,
        tuple(args.attacks.split(",")) if args.attacks else None,
    )


def cmd_bench_hx711(args: argparse.Namespace) -> int:
    """PD_SCK high times and dropped words of each HX711 path, with the service's threads busy."""
    from firmware_host.cli.bench.hx711 import PATHS
    from firmware_host.cli.bench.hx711 import main as bench_hx711

    paths = args.paths.split(",") if args.paths else list(PATHS)
    unknown = [p for p in paths if p not in PATHS]
    if unknown or args.words < 1 or args.busy < 0:
        raise Fail(f"--paths: one or more of {','.join(PATHS)}; --words positive; --busy 0 or more")
    return bench_hx711(args.words, args.busy, args.sps, paths, args.realtime, args.json)


def cmd_bench_scale(args: argparse.Namespace) -> int:
    """The detector benchmark on generated and real traces: it lives beside its data in the
    checkout's ``bench/``, not in the installed package, so it runs from a checkout."""
    checkout = Path.cwd()
    if not (checkout / "bench" / "scale.py").is_file():
        raise Fail("the detector benchmark runs from a checkout of tablemate: run `tablemate bench scale` there")
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    from bench.scale import main as bench_main

    return bench_main(args.rest)
