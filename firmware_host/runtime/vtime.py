"""An asyncio event loop on virtual time, for scripted simulator sessions and tests.

The loop's clock only moves when nothing is ready to run: where a real loop would sleep in
``select()`` until its next timer, this one polls without blocking and jumps its clock to that
timer instead. ``await asyncio.sleep(3600)`` returns at once with ``loop.time()`` an hour later,
and every timer due in between fires in order, exactly as it would have in real time.

Work handed to the default executor (``asyncio.to_thread``, ``run_in_executor(None, …)``) runs
inline on the loop's thread, so a display write or a serial write cannot race the virtual clock;
``inline_io`` tells the device to write its journal inline too, instead of on its writer thread.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class InlineExecutor(ThreadPoolExecutor):
    """An executor that runs each job at once, in the caller's thread."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Run ``fn`` now; its result or exception is in the returned future."""
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the awaiting coroutine, as a thread would
            future.set_exception(exc)
        return future


class _VirtualSelector(selectors.DefaultSelector):
    """A selector that never blocks while the loop has a timer to jump to."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: VirtualTimeLoop | None = None

    def select(self, timeout: float | None = None) -> list:
        if timeout is None:  # nothing scheduled: only another thread can wake us
            return super().select(None)
        events = super().select(0)
        if not events and timeout > 0 and self.loop is not None:
            self.loop.advance(timeout)
        return events


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is virtual and jumps over idle waits."""

    inline_io = True
    """Blocking work (the journal's writes too) runs inline, so scripted runs stay deterministic."""

    def __init__(self, start: float = 0.0) -> None:
        selector = _VirtualSelector()
        super().__init__(selector)
        selector.loop = self
        self._now = start
        self.set_default_executor(InlineExecutor(max_workers=1))

    def time(self) -> float:
        """The virtual clock, in seconds."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the virtual clock forward."""
        self._now += max(0.0, seconds)


def run_virtual(main: Callable[[], Any], start: float = 0.0) -> Any:
    """Run the coroutine function ``main`` to completion on a fresh virtual-time loop."""
    loop = VirtualTimeLoop(start)
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main())
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def inline_io(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether blocking work runs inline on ``loop`` (the virtual-time loop), not on threads."""
    return isinstance(loop, VirtualTimeLoop)
