"""The ``tablemate`` command. Contracts of ``replay``, ``state``, ``sim`` and ``scale detect``
are fixed by ``docs/commands.md``; every failure is one line on stderr, never a traceback.

Exit status: 0 fine, 2 bad input (script, config, state folder), 3 a replay action refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.core.limits import one_line
from firmware_host.core.replay import Script, ScriptError, replay

if TYPE_CHECKING:
    from firmware_host.core import config as configuration
    from firmware_host.core.store import Store

# Each command imports what only it uses (asyncio, the config reader, the store, the drivers) in
# its own function: `replay` loads no asyncio, `state` no drivers (tests/test_process.py).
EXIT_OK, EXIT_BAD_INPUT, EXIT_REFUSED = 0, 2, 3
DEFAULT_CONFIG = "/etc/tablemate/config.toml"
"""``firmware_host.core.config.DEFAULT_PATH``, named here so the parser needs not load the config reader."""


class Fail(Exception):
    """A one-line failure with an exit status."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


def _print_json(data: Any) -> None:
    """One JSON document on a line; text that cannot be written as UTF-8 (a lone surrogate in an
    old file) is written as ``\\u`` escapes instead, still valid JSON."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data)
    sys.stdout.write(text + "\n")


def _say(message: str) -> None:
    """One line on stderr, whatever the message holds (line breaks and surrogates escaped)."""
    sys.stderr.write(one_line(message, 1000) + "\n")


def _store(args: argparse.Namespace, create: bool = True) -> Store:
    from firmware_host.core.store import Store, StoreError

    try:
        return Store(args.state_dir, create=create)
    except StoreError as exc:
        raise Fail(str(exc)) from None


@contextlib.contextmanager
def _held_store(args: argparse.Namespace) -> Iterator[Store]:
    """The state folder, held for writing while inside: one writer per folder, a second one is
    refused with one line naming the holder (see :mod:`firmware_host.core.folder_lock`)."""
    from firmware_host.core.folder_lock import FolderBusy, writing

    store = _store(args)
    try:
        with writing(store.root):
            yield store
    except FolderBusy as exc:
        raise Fail(str(exc)) from None


def _state_root(args: argparse.Namespace) -> Path:
    """The state folder named by ``--state-dir``, else the default one."""
    from firmware_host.core.store import default_state_dir

    return Path(args.state_dir) if args.state_dir else default_state_dir()


def _config(args: argparse.Namespace) -> configuration.Config:
    from firmware_host.core import config as configuration

    try:
        return configuration.load(args.config)
    except configuration.ConfigError as exc:
        raise Fail(f"config error: {exc}") from None


# -- replay, state, history -----------------------------------------------------------------------
def cmd_replay(args: argparse.Namespace) -> int:
    """Run a SCRIPT through the engine and print its summary."""
    try:
        script = Script.load(args.script)  # its errors name the file
    except ScriptError as exc:
        raise Fail(str(exc)) from None
    try:
        result = replay(script)
    except ScriptError as exc:  # the engine's: an unknown game, players or options it refuses
        raise Fail(f"{args.script}: {exc}") from None
    _print_json(result.summary)
    if result.failed_index is not None:
        _say(f"action {result.failed_index}: {result.reason}")
        return EXIT_REFUSED
    return EXIT_OK


def cmd_state(args: argparse.Namespace) -> int:
    """Print the game the device would resume, and the SCRIPT that rebuilds it (read only)."""
    from firmware_host.core.session import Session
    from firmware_host.core.store import StoreError

    root = _state_root(args)
    if args.state_dir is None and not root.exists():
        _print_json({"summary": None, "script": None})
        return EXIT_OK
    store = _store(args, create=False)
    try:
        journal = store.open_game()
        session = Session(store, journal) if journal is not None and not journal.ended else None
    except (StoreError, ScriptError) as exc:
        raise Fail(str(exc)) from None
    if session is not None and session.over:  # the device files it at its next start
        _note("state", "the game in game.jsonl is over and is filed in the history at the next start")
        session = None
    if session is None:
        _print_json({"summary": None, "script": None})
    else:
        _print_json({"summary": session.summary, "script": session.script().to_json()})
    for name in store.kept_files():
        _note("state", f"{name}: a damaged or unfiled file the device kept aside")
    return EXIT_OK


def _note(command: str, text: str) -> None:
    """A remark on stderr that leaves stdout's contract alone (damage found, files kept)."""
    sys.stderr.write(f"tablemate {command}: note: {text}\n")


HISTORY_FIELDS = ("date", "game", "duration", "players", "scores", "winners", "reason", "time")
MAX_SHOWN_SECONDS = 10 * 366 * 86400
"""A duration longer than this is not believed (a wall clock that jumped), and shown as ``?``."""


def _number(value: Any) -> float | None:
    """A finite number from a history field, else ``None`` (the file is read, not trusted)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _text(value: Any) -> str:
    """A history field as one printable line."""
    return one_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 200)


def _names(value: Any) -> str:
    return ", ".join(_text(v) for v in value) if isinstance(value, list) else ""


def _duration(seconds: Any) -> str:
    from firmware_host.timers.stats import clock_text

    s = _number(seconds)
    return "?" if s is None or not 0 <= s <= MAX_SHOWN_SECONDS else clock_text(round(s * 1000))


def _date(entry: dict[str, Any]) -> str:
    """The start date in local time; ``?`` when unreadable, marked when the clock was not set."""
    started = _number(entry.get("started"))
    try:
        text = time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started is not None else "?"
    except (OverflowError, OSError, ValueError):
        text = "?"
    return text + (" (clock unset)" if entry.get("clock_synced") is False else "")


def _time_used(entry: dict[str, Any]) -> str:
    """Each player's time on the turn timer (empty when no timer ran)."""

    timer = entry.get("timer")
    players = timer.get("players") if isinstance(timer, dict) else None
    if not isinstance(players, dict):
        return ""
    return ", ".join(
        f"{_text(p)} {_duration(v.get('total_s') or 0)}" for p, v in players.items() if isinstance(v, dict)
    )


def _unit(entry: dict[str, Any]) -> str:
    """``drinks: `` before the scores of a game whose number alone would not say what it counts."""
    from games import unit_of

    unit = unit_of(entry.get("game"))
    return f"{unit}: " if unit else ""


def history_rows(entries: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """History entries as flat text fields for the table and CSV (a wrongly typed field shows
    as ``?`` or empty: the history file is read, not trusted)."""
    rows = []
    for e in entries:
        scores = e.get("scores")
        over = e.get("reason") == "over"
        rows.append(
            {
                "date": _date(e),
                "game": _text(e.get("game", "")),
                "duration": _duration(e.get("duration_s", 0)),
                "players": _names(e.get("players")),
                "scores": _unit(e) + ", ".join(f"{_text(p)} {_text(v)}" for p, v in scores.items())
                if isinstance(scores, dict)
                else "",
                "winners": _names(e.get("winners")) or ("-" if over else ""),
                "reason": "finished" if over else "ended early",
                "time": _time_used(e),
            }
        )
    return rows


def cmd_history(args: argparse.Namespace) -> int:
    """Print finished games as a table, JSON or CSV."""
    root = _state_root(args)
    entries = [] if args.state_dir is None and not root.exists() else _history(args)
    if args.json:
        _print_json(entries)
        return EXIT_OK
    rows = history_rows(entries)
    if args.csv:
        import csv
        import io

        out = io.StringIO()
        writer = csv.DictWriter(out, HISTORY_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        sys.stdout.write(out.getvalue())
        return EXIT_OK
    if not rows:
        print("No finished games yet.")
        return EXIT_OK
    widths = {f: max(len(f), *(len(r[f]) for r in rows)) for f in HISTORY_FIELDS}
    print("  ".join(f.ljust(widths[f]) for f in HISTORY_FIELDS).rstrip())
    for r in rows:
        print("  ".join(r[f].ljust(widths[f]) for f in HISTORY_FIELDS).rstrip())
    return EXIT_OK


def _history(args: argparse.Namespace) -> list[dict[str, Any]]:
    from firmware_host.core.store import StoreError

    try:
        store = _store(args, create=False)
        entries = store.history()
    except StoreError as exc:
        raise Fail(str(exc)) from None
    for problem in store.problems:
        _note("history", problem)
    return entries


# -- the device ------------------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    """Run the device: real hardware, or simulated with ``--sim``."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = _config(args)
    except Fail as exc:
        if not args.sim:
            from firmware_host.runtime.errors import show_on_display

            show_on_display(args.config, str(exc))
        raise
    if args.sim:
        config = config.with_sim()
    with _held_store(args) as store:
        return _serve(config, store)


def _serve(config: configuration.Config, store: Store) -> int:
    """Run the device on ``store`` until it stops; exit 2 with one line when a save failed."""
    import asyncio

    from firmware_host.runtime.device import Device

    device = Device(config, store, signals_on=True)

    async def serve() -> None:
        from concurrent.futures import ThreadPoolExecutor

        # the display and the journal have writer threads of their own; the default pool serves
        # only the journal's drain at stop (and the page's plots): one worker (asyncio's would start up to 6)
        pool = ThreadPoolExecutor(1, thread_name_prefix="display")
        asyncio.get_running_loop().set_default_executor(pool)
        from firmware_host.runtime.garbage import settle as settle_garbage

        run = asyncio.create_task(device.run())
        ready = asyncio.create_task(device.ready.wait())
        await asyncio.wait([run, ready], return_when=asyncio.FIRST_COMPLETED)
        page = None
        # the page starts once the table is ready (READY is not delayed by aiohttp's import)
        if ready.done() and not run.done() and config["web"]["enabled"]:
            from firmware_host.web.server import start_page

            page = device.companion = await start_page(device, config["web"])
            if page is not None:
                _say(f"tablemate run: companion page at {page.url()}")
        ready.cancel()
        # the resume ran in the pool: its worker would idle on as a fourth thread; a new pool starts one when asked
        pool.shutdown(wait=False)
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(1, thread_name_prefix="display"))
        settle_garbage()
        try:
            await run
        finally:
            if page is not None:
                await page.close()

    asyncio.run(serve())
    return _saves_said(device, store)


def _saves_said(device: Any, store: Store) -> int:
    """The exit status of a device that stopped: 2 (raised, one line) when any save failed,
    the filing at the stop included."""
    if device.storage_faults:
        raise Fail(f"{device.last_storage_fault} ({device.storage_faults} failed saves, state folder {store.root})")
    return EXIT_OK


def cmd_sim(args: argparse.Namespace) -> int:
    """The simulator: interactive in a terminal, or fed by ``--script``."""
    config = _config(args)
    if args.script is None:
        from firmware_host.sim.terminal import run_terminal

        with _held_store(args) as store:
            return run_terminal(config, store, args.seed)
    from firmware_host.sim.script import SimScriptError, load, run_script

    try:
        commands = load(Path(args.script))
    except SimScriptError as exc:
        raise Fail(str(exc)) from None
    with _held_store(args) as store:
        try:
            frames = Path(args.frames) if args.frames else None
            device = run_script(config, store, commands, frames, args.seed, args.realtime)
        except OSError as exc:
            from firmware_host.core.fsio import storage_message

            raise Fail(f"{storage_message(exc)} ({getattr(exc, 'filename', None) or store.root})") from None
        return _saves_said(device, store)


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

    root = _state_root(args)
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


def cmd_bench_start(args: argparse.Namespace) -> int:
    """Measure start → READY of the device beside a bare import of the same libraries."""
    from firmware_host.cli.bench.start import main as bench_start

    return bench_start(args.runs)


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


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check each part as the service sees it; one line per part with its fix."""
    from firmware_host.cli.doctor import main as doctor

    return doctor(_config(args), args.state_dir)


def cmd_install(args: argparse.Namespace) -> int:
    """Install (or remove) the systemd service on a Raspberry Pi."""
    import os

    from firmware_host.cli.install import CommandFailed, Installer, find_source

    source = Path(args.source) if args.source else find_source(Path.cwd())
    if source is None or not (source / "systemd" / "tablemate.service").is_file():
        raise Fail("cannot find the tablemate checkout: run from it or pass --source DIR")
    root = Path(args.root)
    if str(root) == "/" and not args.dry_run and os.geteuid() != 0:
        raise Fail("needs root: run it with sudo (or use systemd/install.sh)")
    # systemd/install.sh sets TABLEMATE_CODE_CHANGED=1 when pip changed the installed package
    code_changed = os.environ.get("TABLEMATE_CODE_CHANGED") == "1"
    installer = Installer(source.resolve(), root, dry_run=args.dry_run, code_changed=code_changed)
    from firmware_host.core.folder_lock import FolderBusy

    try:
        done = installer.uninstall(args.purge) if args.uninstall else installer.install()
    except FolderBusy as exc:
        raise Fail(str(exc)) from None
    except CommandFailed as exc:  # what was done before it is shown, then the one failing command
        for line in installer.done[:-1]:
            print(line)
        raise Fail(f"{installer.done[-1]}: {exc}" if installer.done else str(exc), status=1) from None
    for line in done:
        print(("would " if args.dry_run else "") + line)
    for line in installer.notes():
        print(line)
    if not done:
        print("nothing to do: already " + ("removed" if args.uninstall else "installed"))
    return EXIT_OK


def cmd_wheelhouse(args: argparse.Namespace) -> int:
    """Fill a folder with every wheel the Pi needs, for ``install.sh --wheelhouse`` offline."""
    import subprocess

    from firmware_host.cli.install import find_source
    from firmware_host.cli.wheelhouse import main as wheelhouse

    source = Path(args.source) if args.source else find_source(Path.cwd())
    if source is None:
        raise Fail("cannot find the tablemate checkout: run from it or pass --source DIR")
    try:
        return wheelhouse(args.dir, source.resolve(), args.python, args.extra or ["pi"])
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        raise Fail(f"wheelhouse: {exc}") from None


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Calibrate the load cell step by step; saves ``scale.json`` in the state folder."""
    from firmware_host.cli.calibrate import Cancelled, calibrate
    from firmware_host.scale.calibration import CalibrationError

    config = _config(args)
    with _held_store(args) as store:
        try:
            calibrate(config, store, args.weight, args.sim)
        except (Cancelled, CalibrationError) as exc:
            raise Fail(str(exc)) from None
    return EXIT_OK


# -- the load cell ---------------------------------------------------------------------------------
def cmd_scale_monitor(args: argparse.Namespace) -> int:
    """Show the load cell live: raw counts, grams, noise, stability and events."""
    from firmware_host.cli.monitor import MonitorError, run_monitor

    try:
        return run_monitor(_config(args), args)
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
        _print_json(event.to_json())
    return EXIT_OK


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


# -- the parser ------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="tablemate", description="Board-game table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(handler=handler)
        return p

    def state_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--state-dir",
            metavar="DIR",
            help="where journals live (default: systemd's STATE_DIRECTORY, else ~/.local/state/tablemate)",
        )

    def config(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", metavar="FILE", help=f"configuration file (default {DEFAULT_CONFIG})")

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
    bench = sub.add_parser("bench", help="measure speed and accuracy", description="Benchmarks.")
    bench_sub = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    p = bench_sub.add_parser("idle", help="CPU and memory of `run --sim` while idle")
    p.add_argument("--seconds", type=float, default=30.0, help="how long to watch (default 30)")
    p.set_defaults(handler=cmd_bench_idle)
    p = bench_sub.add_parser("wakeups", help="wake-ups per second and per thread of `run --sim` while idle")
    p.add_argument("--seconds", type=float, default=20.0, help="how long to watch each state (default 20)")
    p.set_defaults(handler=cmd_bench_wakeups)
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
    p.set_defaults(handler=cmd_bench_web)

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
    return parser


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
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
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
        _say(f"tablemate {args.command}: {exc}")
        return exc.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
