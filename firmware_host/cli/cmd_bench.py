"""``tablemate bench …``: each benchmark's command, which loads its module only when it runs.

Three benchmarks measure what only the device itself has -- its CPU and memory at rest
(``idle``), its SD card's fsync (``journal``), its start to ``READY`` (``start``) -- and ship
in the package (:mod:`firmware_host.cli.bench`), so an installed Pi runs them. The others are
the lab: they live in the checkout's ``bench/`` (never installed) and run only from a checkout;
elsewhere :func:`checkout` says so.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import firmware_host
from firmware_host.cli.common import Fail, state_root


def checkout(bench: str) -> Path:
    """The checkout of tablemate whose ``bench/`` holds ``bench``, put on the import path (and, run
    from elsewhere, on the children's: some benchmarks start ``python -m bench…``): the current
    folder, else the one this package was installed from in editable mode. ``Fail`` where there is
    none."""
    for root in (Path.cwd(), Path(firmware_host.__file__).resolve().parents[1]):
        if (root / "bench" / "__init__.py").is_file() and (root / "firmware_host").is_dir():
            break
    else:
        raise Fail(
            f"`tablemate bench {bench}` runs from a checkout of tablemate (its bench/ is not installed): "
            "run it in the checkout's folder"
        )
    where = str(root)
    if where not in sys.path:
        sys.path.insert(0, where)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if root != Path.cwd() and where not in paths:  # in the checkout, ``python -m`` finds it by itself
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (where, *paths) if p)
    return root


def cmd_bench_idle(args: argparse.Namespace) -> int:
    """Measure the device's idle CPU and memory."""
    from firmware_host.cli.bench.idle import main as bench_idle

    return bench_idle(args.seconds)


def cmd_bench_wakeups(args: argparse.Namespace) -> int:
    """Count the idle device's wake-ups per second, per thread."""
    checkout("wakeups")
    from bench.wakeups import main as bench_wakeups

    return bench_wakeups(args.seconds)


def cmd_bench_pixels(args: argparse.Namespace) -> int:
    """Measure press-to-display latency and the I2C bytes of typical changes."""
    checkout("pixels")
    from bench.pixels import main as bench_pixels

    return bench_pixels(args.presses)


def cmd_bench_panels(args: argparse.Namespace) -> int:
    """Count the bus bytes of a menu step on every panel kind."""
    checkout("panels")
    from bench.panels import main as bench_panels

    return bench_panels(args.presses)


def cmd_bench_journal(args: argparse.Namespace) -> int:
    """Measure the journal's append-and-fsync time in the state folder."""
    from firmware_host.cli.bench.journal import main as bench_journal

    root = state_root(args)
    try:
        if args.slow_fsync:
            checkout("journal --slow-fsync")
            from bench.loop import main as bench_loop

            return bench_loop(root, args.count, args.slow_fsync)
        return bench_journal(root, args.count)
    except OSError as exc:
        raise Fail(f"state folder {root}: {exc.strerror or exc}") from None


def cmd_bench_undo(args: argparse.Namespace) -> int:
    """Measure resume, ``state`` and undo of long sessions, and the loop's longest block."""
    checkout("undo")
    from bench.undo import main as bench_undo

    return bench_undo(tuple(args.actions) if args.actions else (1000, 10000), args.repeat)


def cmd_bench_resume(args: argparse.Namespace) -> int:
    """Measure what the table sees from the boot of a long game to the end of its check."""
    checkout("resume")
    from bench.resume import SIZES
    from bench.resume import main as bench_resume

    return bench_resume(tuple(args.actions) if args.actions else SIZES, apart=not args.in_thread)


def cmd_bench_start(args: argparse.Namespace) -> int:
    """Measure start → READY of the device beside a bare import of the same libraries."""
    from firmware_host.cli.bench.start import main as bench_start

    return bench_start(args.runs)


def cmd_bench_voice(args: argparse.Namespace) -> int:
    """Measure press → first sample to ALSA beside the engine alone, the loop's block, CPU and RSS."""
    checkout("voice")
    from bench.voice import bench

    return bench(args.presses, args.runs)


def cmd_bench_web(args: argparse.Namespace) -> int:
    """Measure the companion page's cost: wake-ups, press latency under load, Chromium, bad input."""
    checkout("web")
    from bench.web import main as bench_web

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
    checkout("hx711")
    from bench.hx711_clock import PATHS
    from bench.hx711_clock import main as bench_hx711

    paths = args.paths.split(",") if args.paths else list(PATHS)
    unknown = [p for p in paths if p not in PATHS]
    if unknown or args.words < 1 or args.busy < 0:
        raise Fail(f"--paths: one or more of {','.join(PATHS)}; --words positive; --busy 0 or more")
    return bench_hx711(args.words, args.busy, args.sps, paths, args.realtime, args.json)


def cmd_bench_scale(args: argparse.Namespace) -> int:
    """The detector benchmark on generated and real traces (beside its data in the checkout)."""
    checkout("scale")
    from bench.scale import main as bench_main

    return bench_main(args.rest)
