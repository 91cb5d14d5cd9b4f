"""Presses timed on the live table (:class:`~bench.webtable.LiveTable`) for
``tablemate bench web``: the time from a button's release to the frame handed to the display,
whether another process preempted the loop's thread in between, actions accepted, the loop's
lateness and longest stretch of work, garbage collections and errors logged.

Whether a press was preempted is read from the loop thread's involuntary context switches
(``/proc/self/task/TID/status``) when the frame is handed over, on the loop's own thread: read
later, after the frame woke this thread and the display's writer, it counted the switches those
wake-ups cause on any machine, and no press of a quiet machine was ever "not preempted".
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.workloads import PLAIN


def timed(
    show: Callable[[Any], None], frames: list[tuple[float, int]], frame: threading.Event, switches: Callable[[], int]
) -> Callable[[Any], None]:
    """``show`` that first notes when each frame came and the loop thread's involuntary switches
    until then (``switches()``), then wakes the waiting bench (``frame``) and hands the frame on:
    neither wake-up can count against the press."""

    def timed_show(image: Any) -> None:
        frames.append((time.perf_counter(), switches()))
        frame.set()
        show(image)

    return timed_show


def first_frame(frames: list[tuple[float, int]], released: float, before: int) -> tuple[float, bool] | None:
    """The first frame after ``released``: the seconds it took, and whether the loop's thread was
    not preempted from ``before`` (its involuntary switches at the release) until it; ``None``
    when no frame came yet."""
    for at, switched in frames:
        if at > released:
            return at - released, switched == before
    return None


class PressTiming:
    """Hooks on the live device: frames handed to the display, actions accepted, loop lateness."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.shown: list[tuple[float, int]] = []
        """Per frame handed to the display: when, and the loop thread's involuntary switches until then."""
        self.accepted = 0
        self.refused = 0
        self.worst_block = 0.0
        """The longest the loop ran late past a 5 ms heartbeat (its own work, or waiting for a CPU)."""
        self.worst_busy = 0.0
        """The most CPU the loop's thread spent between two heartbeats: its own longest stretch of work."""
        self.worst_gc = 0.0
        self.worst_gc_generation = None
        """The longest garbage collection (it stops the loop like any other work)."""
        self.gc_counts = [0, 0, 0]
        """Garbage collections per generation (on any thread of the process: the collector holds
        the interpreter, so each stops the loop)."""
        self.gc_cpu = [0.0, 0.0, 0.0]
        """The longest collection per generation, in CPU seconds of the thread that ran it (no other
        process's time in it, unlike :attr:`worst_gc`)."""
        self.errors = 0
        self.frame = threading.Event()
        self.tid = 0
        self.quiet: list[bool] = []
        """Per press: whether the loop's thread ran it without being preempted by another process."""

    def install(self) -> None:
        """Hook the device's display and ``apply``, watch the loop and the collector (on the loop's thread)."""
        device = self.table.device
        show, apply = device.display.show, device.apply

        def counted_apply(action: Any) -> bool:
            ok = apply(action)
            self.accepted += ok
            self.refused += not ok
            return ok

        self.tid = threading.get_native_id()
        device.display.show, device.apply = timed(show, self.shown, self.frame, self._preempted), counted_apply
        asyncio.get_running_loop().create_task(self._watch_loop())
        import gc

        started = [0.0, 0.0]

        def collected(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                started[:] = time.perf_counter(), time.thread_time()
            else:
                took = time.perf_counter() - started[0]
                generation = min(2, max(0, info.get("generation", 0)))
                self.gc_counts[generation] += 1
                self.gc_cpu[generation] = max(self.gc_cpu[generation], time.thread_time() - started[1])
                if took > self.worst_gc:
                    self.worst_gc, self.worst_gc_generation = took, info.get("generation")

        gc.callbacks.append(collected)
        timing = self

        class Count(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if record.exc_info or record.levelno >= logging.ERROR:
                    timing.errors += 1

        logging.getLogger().addHandler(Count())
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: setattr(self, "errors", self.errors + 1))

    def reset_worst(self) -> None:
        """Start the worst figures (lateness, busy stretch, collections) afresh."""
        self.worst_block = self.worst_busy = self.worst_gc = 0.0
        self.worst_gc_generation = None
        self.gc_counts, self.gc_cpu = [0, 0, 0], [0.0, 0.0, 0.0]

    async def _watch_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t, cpu = loop.time(), time.thread_time()
            await asyncio.sleep(0.005)
            self.worst_block = max(self.worst_block, loop.time() - t - 0.005)
            self.worst_busy = max(self.worst_busy, time.thread_time() - cpu)

    def press(self, button: str) -> float:
        """One press; seconds from its release to the next frame handed to the display."""
        table = self.table
        buttons = table.device.hw.buttons
        buttons.press(button)  # from this thread, as a driver thread does: stamped now, posted to the loop
        time.sleep(0.06)
        self.frame.clear()
        before = self._preempted()
        released = time.perf_counter()
        buttons.release(button)
        deadline = released + 3.0
        while time.perf_counter() < deadline:  # no busy wait: this thread must not take the GIL from the loop's
            self.frame.wait(max(0.0, deadline - time.perf_counter()))
            self.frame.clear()
            found = first_frame(self.shown[-5:], released, before)
            if found is not None:
                self.quiet.append(found[1])
                time.sleep(0.04)  # the finger lifts; the display service's pause between frames
                return found[0]
        self.quiet.append(False)
        return float("nan")

    def _preempted(self) -> int:
        """Involuntary context switches of the loop's thread so far (another process took its CPU)."""
        try:
            status = Path(f"/proc/self/task/{self.tid}/status").read_text()
        except OSError:
            return 0
        return int(next(x for x in status.splitlines() if x.startswith("nonvoluntary")).split()[1])

    def jump(self) -> list[float]:
        """One jump (two presses: the jumper, then where it landed); a new game when one ends."""
        device = self.table.device
        for _ in range(300):  # the last jump durable first: a game it ended is over only then
            if not self.table.call(lambda: device.saving.inflight):
                break
            time.sleep(0.01)
        if self.table.call(lambda: self.table.device.session is None):
            self.table.call(lambda: self.table.device.start_named(PLAIN.game, list(PLAIN.players)))
            time.sleep(0.1)
        return [self.press("ok"), self.press("ok")]
