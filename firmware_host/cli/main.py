"""The ``tablemate`` command: the parser of every subcommand and the dispatch. Contracts of
``replay``, ``state``, ``sim`` and ``scale detect`` are fixed by ``docs/commands.md``; every
failure is one line on stderr, never a traceback.

The commands live by family: :mod:`~firmware_host.cli.cmd_records` (replay, state, history),
:mod:`~firmware_host.cli.cmd_play` (run, sim), :mod:`~firmware_host.cli.cmd_setup` (install,
wheelhouse, doctor, calibrate), :mod:`~firmware_host.cli.cmd_scale` (scale monitor, scale
detect), :mod:`~firmware_host.cli.cmd_bench` (bench …); what they share in
:mod:`~firmware_host.cli.common`.

Exit status: 0 fine, 2 bad input (script, config, state folder), 3 a replay action refused.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from firmware_host.cli.cmd_bench import (
    cmd_bench_hx711,
    cmd_bench_idle,
    cmd_bench_journal,
    cmd_bench_panels,
    cmd_bench_pixels,
    cmd_bench_resume,
    cmd_bench_scale,
    cmd_bench_start,
    cmd_bench_undo,
    cmd_bench_voice,
    cmd_bench_wakeups,
    cmd_bench_web,
)
from firmware_host.cli.cmd_play import cmd_run, cmd_sim
from firmware_host.cli.cmd_records import cmd_history, cmd_replay, cmd_state
from firmware_host.cli.cmd_scale import cmd_scale_detect, cmd_scale_monitor
from firmware_host.cli.cmd_setup import cmd_calibrate, cmd_doctor, cmd_install, cmd_wheelhouse
from firmware_host.cli.common import DEFAULT_CONFIG, EXIT_OK, Fail, say

__all__ = ["DEFAULT_CONFIG", "build_parser", "main"]


def state_dir(p: argparse.ArgumentParser) -> None:
    """The ``--state-dir`` option."""
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where journals live (default: systemd's STATE_DIRECTORY, else ~/.local/state/tablemate)",
    )


def config(p: argparse.ArgumentParser) -> None:
    """The ``--config`` option."""
    p.add_argument("--config", metavar="FILE", help=f"configuration file (default {DEFAULT_CONFIG})")


LEAF_COMMANDS = ("replay", "state", "history", "run", "sim", "install", "wheelhouse", "doctor", "calibrate")
"""The commands without subcommands of their own: :func:`main` builds only the one asked for."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every subcommand, or with ``only`` (one of :data:`LEAF_COMMANDS`)
    of that one alone: the same parser for it, without building 23 others (a fifth of a second of
    the service's start on an emulated arm64 board)."""
    parser = argparse.ArgumentParser(prog="tablemate", description="Board-game table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    unused: list[argparse.ArgumentParser] = []

    def add(name: str, handler: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
        if only is not None and name != only:
            if not unused:  # one parser takes every other command's arguments, and is dropped
                unused.append(argparse.ArgumentParser(add_help=False, conflict_handler="resolve"))
            return unused[0]
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(handler=handler)
        return p

    p = add("replay", cmd_replay, "run a recorded game SCRIPT.json through the engine")
    p.add_argument("script", metavar="SCRIPT.json")

    p = add("state", cmd_state, "print the game the device would resume, with its SCRIPT")
    state_dir(p)

    p = add("history", cmd_history, "print finished games")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="as one JSON array")
    form.add_argument("--csv", action="store_true", help="as CSV with a header line")
    state_dir(p)

    p = add("run", cmd_run, "run the device (what the systemd service starts)")
    p.add_argument("--sim", action="store_true", help="on simulated hardware, headless")
    config(p)
    state_dir(p)

    p = add("sim", cmd_sim, "the simulator: play in the terminal, or run a --script")
    p.add_argument("--script", metavar="FILE", help="run these commands on virtual time instead of the keyboard")
    p.add_argument("--frames", metavar="DIR", help="where 'snap LABEL' writes LABEL.png")
    p.add_argument("--seed", type=int, help="seed of new games (default: random)")
    p.add_argument("--realtime", action="store_true", help="play a --script at the speed of the clock")
    config(p)
    state_dir(p)
    bench_sub = _bench(sub) if only is None else None

    p = add("install", cmd_install, "set the Pi up to boot into tablemate (idempotent)")
    p.add_argument("--uninstall", action="store_true", help="stop and remove the service")
    p.add_argument("--purge", action="store_true", help="with --uninstall: also config, state, user, /opt")
    p.add_argument("--source", metavar="DIR", help="the tablemate checkout (default: found from here)")
    p.add_argument("--root", metavar="DIR", default="/", help=argparse.SUPPRESS)
    p.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")

    p = add("wheelhouse", cmd_wheelhouse, "download every wheel the Pi needs, to install it with no network")
    p.add_argument("dir", metavar="DIR", help="the folder to fill (then: sudo systemd/install.sh --wheelhouse DIR)")
    p.add_argument("--source", metavar="DIR", help="the tablemate checkout (default: found from here)")
    p.add_argument(
        "--python",
        action="append",
        metavar="X.Y[:MACHINE[:GLIBC]]",
        help="a target Python (repeatable; default 3.11 and 3.13 on aarch64: Bookworm and Trixie)",
    )
    p.add_argument("--extra", action="append", metavar="NAME", help="the project's extras to include (default: pi)")

    p = add("doctor", cmd_doctor, "check each part as the service sees it; one line per part with its fix")
    config(p)
    state_dir(p)

    p = add("calibrate", cmd_calibrate, "calibrate the load cell: empty bin, a known weight, one piece of each kind")
    p.add_argument("--sim", action="store_true", help="on the simulated scale (it puts each load on itself)")
    p.add_argument("--weight", type=float, metavar="GRAMS", help="the known weight in grams (else asked)")
    config(p)
    state_dir(p)

    if only is None:
        _scale(sub, bench_sub)
    return parser


def _bench(sub: Any) -> Any:
    """The ``bench`` family (its ``scale`` is added by :func:`_scale`); returns its subparsers."""
    bench = sub.add_parser("bench", help="measure speed and accuracy", description="Benchmarks.")
    bench_sub = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    p = bench_sub.add_parser("idle", help="CPU and memory of `run --sim` while idle")
    p.add_argument("--seconds", type=float, default=30.0, help="how long to watch (default 30)")
    p.set_defaults(handler=cmd_bench_idle)
    p = bench_sub.add_parser("wakeups", help="wake-ups per second and per thread of `run --sim` while idle")
    p.add_argument("--seconds", type=float, default=20.0, help="how long to watch each state (default 20)")
    p.set_defaults(handler=cmd_bench_wakeups)
    p = bench_sub.add_parser("voice", help="press -> first sample to ALSA beside eSpeak NG alone; block, CPU, RSS")
    p.add_argument("--presses", type=int, default=40, help="how many moves to time (default 40)")
    p.add_argument("--runs", type=int, default=5, help="runs of each phrase by the engine alone (default 5)")
    p.set_defaults(handler=cmd_bench_voice)
    p = bench_sub.add_parser("pixels", help="press-to-display latency and I2C bytes per change, beside bare luma")
    p.add_argument("--presses", type=int, default=400, help="how many presses to time (default 400)")
    p.set_defaults(handler=cmd_bench_pixels)
    p = bench_sub.add_parser("panels", help="bus bytes of a menu step on every panel kind, beside luma's own drivers")
    p.add_argument("--presses", type=int, default=20, help="menu steps to take the median of (default 20)")
    p.set_defaults(handler=cmd_bench_panels)
    p = bench_sub.add_parser("journal", help="time to make one action durable in the state folder")
    p.add_argument("--count", type=int, default=200, help="how many actions (default 200)")
    p.add_argument("--state-dir", metavar="DIR", help="the storage to measure (default: the state folder)")
    p.add_argument(
        "--slow-fsync",
        metavar="MS",
        type=float,
        action="append",
        help="instead: loop blocking per journaled action with each fsync slowed by MS (repeatable)",
    )
    p.set_defaults(handler=cmd_bench_journal)
    p = bench_sub.add_parser("undo", help="resume, state and undo of 1,000- and 10,000-action sessions")
    p.add_argument("--actions", type=int, action="append", help="session length (repeatable; default 1000, 10000)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each, the best figure kept (default 3)")
    p.set_defaults(handler=cmd_bench_undo)
    p = bench_sub.add_parser(
        "resume", help="loop blocks, first undo and CPU from the boot of a long game to the end of its check"
    )
    p.add_argument("--actions", type=int, action="append", help="session length (repeatable; default 100 10000 50000)")
    p.add_argument("--in-thread", action="store_true", help="the check on a thread of the device instead (to compare)")
    p.set_defaults(handler=cmd_bench_resume)
    p = bench_sub.add_parser("start", help="start → READY of `run --sim` beside a bare import of its libraries")
    p.add_argument("--runs", type=int, default=7, help="starts to take the median of (default 7)")
    p.set_defaults(handler=cmd_bench_start)
    p = bench_sub.add_parser("hx711", help="PD_SCK high times and dropped words of each HX711 path, threads busy")
    p.add_argument("--words", type=int, default=10_000, help="words clocked on each path (default 10000)")
    p.add_argument("--busy", type=int, default=4, help="busy threads beside the reader (default 4)")
    p.add_argument("--sps", type=int, choices=(10, 80), default=80, help="the chip's rate (default 80)")
    p.add_argument("--paths", metavar="P,P", help="spi,iio,gpio-process,gpio-thread (default: all)")
    p.add_argument("--realtime", action="store_true", help="gpio-process asks for SCHED_FIFO, as the service does")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    p.set_defaults(handler=cmd_bench_hx711)

    p = bench_sub.add_parser(
        "web", help="the companion page: wake-ups, press latency with clients, Chromium, bad input"
    )
    p.add_argument("--presses", type=int, default=400, help="presses timed per load, in 8 rounds (default 400)")
    p.add_argument("--flood-seconds", type=float, default=60.0, help="how long the HTTP flood lasts (default 60)")
    p.add_argument("--seconds", type=float, default=20.0, help="how long to count idle wake-ups (default 20)")
    p.add_argument("--malformed", type=int, default=10_000, help="malformed requests and frames (default 10000)")
    p.add_argument("--dom-presses", type=int, default=100, help="presses timed to the DOM in Chromium (default 100)")
    p.add_argument(
        "--attack-seconds", type=float, default=30.0, help="how long each attack lasts (default 30; 0: none)"
    )
    p.add_argument("--only-attacks", action="store_true", help="run the attacks only")
    p.add_argument("--attacks", metavar="A,A", help="the attacks to run, by name (default: all)")
    p.set_defaults(handler=cmd_bench_web)
    return bench_sub


def _scale(sub: Any, bench_sub: Any) -> None:
    """The ``scale`` family, and ``bench scale``."""
    help = "the load cell: a live monitor, the event detector over a trace"
    scale = sub.add_parser("scale", help=help, description=help)
    scale_sub = scale.add_subparsers(dest="scale_command", required=True, metavar="SUBCOMMAND")
    help = "show the load cell live: raw counts, grams, noise, stability, events (Ctrl-C stops)"
    p = scale_sub.add_parser("monitor", help=help, description=help)
    p.set_defaults(handler=cmd_scale_monitor)
    p.add_argument("--sim", action="store_true", help="read the simulated HX711 chip instead of the GPIO pins")
    p.add_argument("--virtual", action="store_true", help="with --sim: run on virtual time, as fast as it computes")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--samples", type=int, metavar="N", help="stop after N samples")
    p.add_argument("--counts-per-gram", type=float, metavar="G", help="raw counts per gram (default: calibration)")
    p.add_argument("--piece-grams", type=float, metavar="W", help="weight of one piece, for the detector's counts")
    p.add_argument("--lines", action="store_true", help="one line per sample even on a terminal")
    config(p)
    state_dir(p)

    p = scale_sub.add_parser(
        "detect",
        help="run the event detector over a recorded trace (t,raw CSV)",
        description="Run the device's load-cell event detector over TRACE.csv (header 't,raw'; the first "
        "second is the still, loaded bin) and print one JSON object per event.",
    )
    p.set_defaults(handler=cmd_scale_detect)
    p.add_argument("trace", metavar="TRACE.csv")
    p.add_argument(
        "--counts-per-gram",
        type=float,
        default=1.0,
        metavar="G",
        help="raw counts per gram, may be negative (default 1: raw is taken as grams)",
    )
    p.add_argument(
        "--piece-grams",
        type=float,
        metavar="W",
        help="weight of one piece (default: none; events then need 1.5 g and report 0 pieces)",
    )
    p.add_argument("--sps", type=float, metavar="N", help="nominal samples per second (default: from the timestamps)")

    p = bench_sub.add_parser(
        "scale",
        add_help=False,
        help="the event detector on labelled traces it has never seen",
        description="Generate labelled load-cell traces, run the event detector, print recall, false "
        "events, piece counts, latency and cost. Reports on the held-out seeds unless --split tune.",
    )
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own options (--help lists them)")
    p.set_defaults(handler=cmd_bench_scale)


def _contract(args: argparse.Namespace) -> bool:
    """Whether the command's output is a fixed contract (``docs/commands.md``): one line a failure."""
    return args.command in ("replay", "state", "history", "scale") or (
        args.command == "sim" and getattr(args, "script", None) is not None
    )


@contextlib.contextmanager
def _logs_off_stderr() -> Iterator[None]:
    """Keep the runtime's log lines (``save failed: …``) off stderr, where a contract command
    promises one line for a failure; the failure itself is still said, once, by the command."""
    root = logging.getLogger()
    quiet = logging.NullHandler()
    root.addHandler(quiet)
    try:
        yield
    finally:
        root.removeHandler(quiet)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tablemate`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in LEAF_COMMANDS else None)
    if argv[:2] == ["bench", "scale"]:  # its options belong to the benchmark, --help included
        args = argparse.Namespace(command="bench", handler=cmd_bench_scale, rest=argv[2:])
    else:
        args = parser.parse_args(argv)
    try:
        if _contract(args):
            with _logs_off_stderr():
                return args.handler(args)
        return args.handler(args)
    except Fail as exc:
        say(f"tablemate {args.command}: {exc}")
        return exc.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
