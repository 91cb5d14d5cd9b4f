"""The Python HX711 reader in a process of its own: the fallback when neither SPI nor IIO is there.

The GPIO path clocks each bit with Python calls to libgpiod (:mod:`drivers.scale.hx711`); each
call releases the GIL, and any other thread of the same interpreter may then hold PD_SCK high
for up to its 5 ms switch interval — past the chip's 60 µs power-down. Here the reader runs in a
child interpreter with nothing else in it (no display, journal or tower thread to take the GIL),
asking the kernel for ``SCHED_FIFO`` so that ordinary processes cannot preempt it either; where
the unit refuses realtime (``RestrictRealtime=yes``, no ``LimitRTPRIO=``) it runs at normal
priority and says so. Pulses can still stretch (an interrupt, a realtime thread of the kernel),
and the driver still drops a word with a pulse over 50 µs: this path is better, not safe.

The child is ``python -m drivers.scale.hx711_process``; it speaks one line per event on stdout::

    R <how it is scheduled>          once, at start
    S <t> <raw>                      a sample (t on CLOCK_MONOTONIC, shared by both processes)
    F <reason>                       a fault (as :class:`drivers.scale.faults.FaultWatch` says it)
    T <reads> <slow> <settling> <resets> <timeouts> <longest_high> <glitches>   counts, once a second
    E <message>                      it could not open the chip, and ends

and reads one byte a command on stdin: ``s`` stop (chip powered down), ``g`` go, ``q`` quit.
:class:`ProcessScale` is the parent's side, a :class:`drivers.scale.Scale`. ``--sim`` reads the
simulated chip on a virtual clock instead of the pins (the tests, the bench).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from drivers.scale import FaultHandler, SampleHandler
from drivers.scale.hx711 import ReadStats

RT_PRIORITY = 10
"""The ``SCHED_FIFO`` priority asked for (the unit's ``LimitRTPRIO=`` must allow it)."""
STATS_EVERY = 1.0


def realtime(priority: int = RT_PRIORITY) -> str:
    """Ask for ``SCHED_FIFO`` at ``priority``; what was granted, in words."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (PermissionError, OSError) as exc:
        return f"normal priority (SCHED_FIFO refused: {exc.strerror or exc}; the unit needs LimitRTPRIO=)"
    except AttributeError:
        return "normal priority (no SCHED_FIFO here)"
    return f"SCHED_FIFO {priority}"


# -- the child ---------------------------------------------------------------------------------------
def _open(args: argparse.Namespace) -> tuple[Any, Callable[[], float], Any]:
    """The reader (an :class:`~drivers.scale.hx711.HX711Scale`), its clock, and the sim chip or None."""
    if args.sim is None:
        from drivers.scale.hx711 import open_hx711

        return open_hx711(args.data, args.clock, args.sps, args.gain), time.monotonic, None
    from drivers.scale.hx711 import HX711, HX711Scale
    from drivers.scale.hx711_chip import HX711Chip, LoadModel, VirtualClock

    clock = VirtualClock(time.monotonic())
    chip = HX711Chip(clock, rate=args.sps, load=LoadModel(grams=args.sim, noise_counts=150.0), seed=args.seed)
    if args.stuck:
        chip.dout_stuck = args.stuck
    hx = HX711(chip.data_pin, chip.clock_pin, sps=args.sps, timing=clock)
    return HX711Scale(hx, args.gain, clock), clock, chip


def child(argv: list[str] | None = None) -> int:
    """The child process's loop."""
    parser = argparse.ArgumentParser(description="HX711 reader (run by tablemate, not by hand)")
    parser.add_argument("--data", type=int, default=19)
    parser.add_argument("--clock", type=int, default=20)
    parser.add_argument("--sps", type=int, default=10)
    parser.add_argument("--gain", type=int, default=128)
    parser.add_argument("--sim", type=float, metavar="GRAMS", help="read a simulated chip on virtual time")
    parser.add_argument("--stuck", choices=("high", "low"), help="with --sim: DOUT stuck")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--priority", type=int, default=RT_PRIORITY, help="SCHED_FIFO priority; 0: do not ask")
    args = parser.parse_args(argv)
    out = sys.stdout

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    say(f"R {realtime(args.priority) if args.priority > 0 else 'normal priority (not asked)'}")
    try:
        scale, clock, _chip = _open(args)
    except Exception as exc:
        say(f"E {' '.join(str(exc).split())}")
        return 1
    scale.prepare(lambda t, raw: say(f"S {t!r} {raw}"), lambda reason: say(f"F {' '.join(reason.split())}"))
    fd = sys.stdin.fileno()
    running, last = True, 0.0
    try:
        while True:
            if not running or select.select([fd], [], [], 0)[0]:
                command = os.read(fd, 1)
                if command in (b"q", b""):
                    break
                if command == b"s" and running:
                    scale.hx.sleep()
                    running = False
                elif command == b"g" and not running:
                    scale.hx.wake()
                    scale.watch.started(clock())
                    running = True
                continue
            scale.step()
            now = time.monotonic()
            if now - last >= STATS_EVERY:
                s = scale.stats
                glitches = scale.watch.glitches
                say(f"T {s.reads} {s.slow} {s.settling} {s.resets} {s.timeouts} {s.longest_high!r} {glitches}")
                last = now
    finally:
        scale.close()
    return 0


# -- the parent --------------------------------------------------------------------------------------
class ProcessScale:
    """The HX711 read by a child process (:func:`child`); callbacks run in a thread of this one."""

    def __init__(self, data: int, clock: int, sps: int = 10, gain: int = 128, sim: float | None = None, **extra: Any):
        self.sps = sps
        self.argv = [
            sys.executable,
            "-m",
            "drivers.scale.hx711_process",
            f"--data={data}",
            f"--clock={clock}",
            f"--sps={sps}",
            f"--gain={gain}",
        ]
        if sim is not None:
            self.argv += [f"--sim={sim}", "--priority=0"]  # a simulated chip needs no realtime
        for key, value in extra.items():
            self.argv.append(f"--{key}={value}")
        self.stats = ReadStats()
        """The child's counts, as of its last report (once a second)."""
        self.cpu_seconds: float | None = None
        self.glitches = 0
        """Glitch codes the child's fault rules refused, as of its last report."""
        self.scheduling = ""
        """How the child is scheduled (``SCHED_FIFO 10``, or why not)."""
        self.error: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None
        self._on_sample: SampleHandler = lambda t, raw: None
        self._on_fault: FaultHandler = lambda reason: None
        self._closed = False
        self._lock = threading.Lock()

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Start the child, or tell it to go on after :meth:`stop`."""
        if self._closed:
            return
        self._on_sample, self._on_fault = on_sample, on_fault
        if self._proc is None:
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
            self._thread = threading.Thread(
                target=self._read, args=(self._proc.stdout,), name="hx711-pipe", daemon=True
            )
            self._thread.start()
        else:
            self._send(b"g")

    def stop(self) -> None:
        """The child powers the chip down and waits."""
        self._send(b"s")

    def _send(self, command: bytes) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        with self._lock, contextlib.suppress(OSError):
            proc.stdin.write(command)
            proc.stdin.flush()

    def _read(self, pipe: IO[bytes] | None) -> None:
        assert pipe is not None
        for raw_line in pipe:
            kind, _, rest = raw_line.decode("utf-8", "replace").rstrip("\n").partition(" ")
            try:
                if kind == "S":
                    t, raw = rest.split()
                    self._on_sample(float(t), int(raw))
                elif kind == "F":
                    self._on_fault(rest)
                elif kind == "T":
                    reads, slow, settling, resets, timeouts, longest, glitches = rest.split()
                    self.stats = ReadStats(
                        int(reads), int(slow), int(settling), int(resets), int(timeouts), float(longest)
                    )
                    self.glitches = int(glitches)
                elif kind == "R":
                    self.scheduling = rest
                elif kind == "E":
                    self.error = rest
                    self._on_fault(f"reader stopped: {rest}")
            except ValueError:
                continue
        if not self._closed and self.error is None:
            code = self._proc.wait() if self._proc is not None else None
            self._on_fault(f"reader stopped: exit status {code}")

    def close(self) -> None:
        """Tell the child to quit (it powers the chip down), and wait for it; safe twice."""
        if self._closed:
            return
        self._closed = True
        proc = self._proc
        if proc is None:
            return
        self._send(b"q")
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


if __name__ == "__main__":
    sys.exit(child())
