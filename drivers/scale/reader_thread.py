"""The life of a scale's reader thread, shared by the HX711 read paths that read in a thread.

:class:`ReaderThread` starts the thread, pauses it without a wake-up until the next start,
reports a reader that dies to the fault handler, and stops it on close. A read path gives one
:meth:`~ReaderThread.step` (one attempt at a reading) and, where the chip can, what a pause and
a resume do to it (:class:`drivers.scale.hx711.HX711Scale` powers the chip down;
:class:`drivers.scale.hx711_iio.IIOScale` drops the settling words after a resume).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from drivers.scale import FaultHandler, SampleHandler
from drivers.scale.faults import FaultWatch

log = logging.getLogger(__name__)


class ReaderThread:
    """Start, pause and close of a reader thread that calls :meth:`step` while wanted."""

    thread_name = "hx711"

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.watch: FaultWatch | None = None
        self.cpu_seconds = 0.0
        """CPU time the reader thread has used (``time.thread_time``)."""
        self.asleep = False
        """True while the reader is paused: the thread blocked (and the chip powered down, where it can be)."""
        self._stop = threading.Event()
        self._wanted = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def prepare(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Set the callbacks without starting the thread (tests call :meth:`step` themselves)."""
        self.watch = FaultWatch(on_sample, on_fault)
        self.watch.started(self.clock())
        self._resumed()

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Start the reader thread, or resume it after :meth:`stop`."""
        if self._closed:
            return
        self.prepare(on_sample, on_fault)
        self._wanted.set()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Pause: the thread finishes the read in hand and blocks (no wake-ups) until
        :meth:`start`. Returns at once."""
        self._wanted.clear()

    def step(self) -> None:
        """One attempt at a reading, passed on to :attr:`watch`."""
        raise NotImplementedError

    def _pause(self) -> None:
        """The reader pauses (in its thread): what the chip does meanwhile."""

    def _resume(self) -> None:
        """The reader resumes after a pause (in its thread), before the fault watch restarts."""

    def _resumed(self) -> None:
        """The fault watch (re)started: a read path's own fresh start."""

    def _run(self) -> None:
        cpu0 = time.thread_time()
        assert self.watch is not None
        try:
            while not self._stop.is_set():
                if not self._wanted.is_set():
                    self._pause()
                    self.asleep = True
                    self._wanted.wait()
                    self.asleep = False
                    if self._stop.is_set():
                        break
                    self._resume()
                    self.watch.started(self.clock())
                    self._resumed()
                    continue
                self.step()
                self.cpu_seconds = time.thread_time() - cpu0
        except Exception as exc:  # a GPIO or kernel error: report it, never die silently
            log.exception("%s reader stopped", self.thread_name)
            self.watch.on_fault(f"reader stopped: {exc}")
        finally:
            self.cpu_seconds = time.thread_time() - cpu0

    def _end_thread(self) -> bool:
        """Stop the thread for good (safe twice); whether it is gone (False: closed already, or
        it did not stop in time)."""
        if self._closed:
            return False
        self._closed = True
        self._stop.set()
        self._wanted.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=2.0)
            if thread.is_alive():
                log.warning("%s reader thread did not stop", self.thread_name)
                return False
        return True

    def close(self) -> None:
        """Stop the thread; safe to call twice."""
        self._end_thread()
