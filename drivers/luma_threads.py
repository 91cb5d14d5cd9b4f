"""luma without its idle threads: the worker pool of ``luma.core.virtual`` starts when first used.

``luma.core.virtual`` makes ``pool = threadpool(4)`` at import, and both ``luma.oled.device`` and
``luma.core.legacy`` (where the screen font lives) import it: four threads blocked forever in a
queue, in every process that draws, although only luma's ``viewport`` hotspots ever use them
(we never do). Importing this module first swaps luma's ``threadpool`` class for one that starts
the same pool on its first task, so the behaviour is luma's own and the threads exist only if
something needs them. It must be imported before ``luma.core.virtual``; importing it later
changes nothing (the pool is already running).
"""

from __future__ import annotations

from typing import Any

import luma.core.threadpool as _luma_threadpool

_LumaPool = _luma_threadpool.threadpool


class LazyThreadpool:
    """luma's ``threadpool`` with the same methods, whose threads start at the first task."""

    def __init__(self, num_threads: int) -> None:
        self.num_threads = num_threads
        self._pool: Any = None

    @property
    def started(self) -> bool:
        """Whether the threads are running (something handed the pool a task)."""
        return self._pool is not None

    def add_task(self, func: Any, *args: Any, **kargs: Any) -> None:
        """Start the pool if needed, then queue ``func(*args, **kargs)`` as luma's pool does."""
        if self._pool is None:
            self._pool = _LumaPool(self.num_threads)
        self._pool.add_task(func, *args, **kargs)

    def wait_completion(self) -> None:
        """Wait for every queued task (nothing to wait for before the first)."""
        if self._pool is not None:
            self._pool.wait_completion()


_luma_threadpool.threadpool = LazyThreadpool  # type: ignore[misc,assignment]
