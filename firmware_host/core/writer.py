"""Where the state folder's writes run: in order, on one writer thread or inline.

A journal append ends in an ``fsync``, which on an SD card takes 5–30 ms and sometimes over
100 ms. On the loop thread that would freeze buttons, display and scale for as long, so the
device hands its writes to one :class:`ThreadWriter`: jobs run one at a time in the order they
were given, and each returns a :class:`concurrent.futures.Future` the loop waits on (without
blocking) before it shows the effects of what was written.

A job that fails (a full disk, a read-only remount) breaks the chain: every job queued behind it
depended on it (a later action follows an earlier one), so they fail too, until the owner has put
its memory back to what is on disk and calls :meth:`Writer.reset`. Jobs given before the reset
still fail, even if they run after it; jobs given after it run normally.

:class:`Writer` itself runs each job at once in the caller's thread: command-line tools, tests
and the virtual-time loop (whose scripted runs must stay deterministic) use it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class Broken(OSError):
    """A job not run because an earlier one failed: carries the earlier error."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(getattr(cause, "errno", None), getattr(cause, "strerror", None) or str(cause))
        self.cause = cause


class Writer:
    """Runs write jobs in order, inline: each has run when :meth:`submit` returns."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoch = 0
        self._failed: BaseException | None = None
        self._last: BaseException | None = None
        """The last failure: what jobs given before a reset fail with."""

    def submit(self, job: Callable[[], Any]) -> Future:
        """Run ``job`` after every job given before it; its result or error is in the future."""
        future: Future = Future()
        with self._lock:
            epoch = self._epoch
        self._run(job, future, epoch)
        return future

    def _run(self, job: Callable[[], Any], future: Future, epoch: int) -> None:
        with self._lock:
            cause = self._failed if epoch == self._epoch else self._last
        if cause is not None:
            future.set_exception(Broken(cause))
            return
        try:
            result = job()
        except Exception as exc:
            with self._lock:
                if epoch == self._epoch:
                    self._failed = self._last = exc
            future.set_exception(exc)
            return
        future.set_result(result)

    def reset(self) -> None:
        """The owner has caught up with a failure: jobs given from now on run again."""
        with self._lock:
            self._epoch += 1
            self._failed = None

    @property
    def failed(self) -> BaseException | None:
        """The error that broke the chain, until :meth:`reset`."""
        return self._failed

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every job given so far has run; ``False`` on timeout."""
        return True

    def close(self) -> None:
        """Stop taking jobs (those given already run first)."""


class ThreadWriter(Writer):
    """Runs write jobs in order on one thread of its own, so the loop never waits on storage."""

    def __init__(self, name: str = "journal-writer") -> None:
        super().__init__()
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future, int] | None] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], Any]) -> Future:
        """Queue ``job`` behind the others; the future is done when it has run on the thread."""
        future: Future = Future()
        with self._lock:
            epoch = self._epoch
        with self._idle:
            self._pending += 1
        self._jobs.put((job, future, epoch))
        return future

    def _serve(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            try:
                self._run(*item)
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every job given so far has run; ``False`` on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Run the jobs given so far, then end the thread."""
        self._jobs.put(None)
        self._thread.join()
