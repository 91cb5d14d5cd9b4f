"""The table's work before the page's: from a button's edge until its answer is on its way to the panel.

A press reaches the display through several loop turns: its edge, its record made durable by the
writer thread, the frame drawn. The companion page shares the loop, and under a flood each of
those turns also carried a share of the page's work (a few requests parsed or answered, a few
connections accepted): a press waited behind it at every step. :class:`Precedence` is held from
the moment a button's edge is seen (on the driver's thread, before the edge is posted to the
loop) until the frame it leads to is handed to the display, or :data:`LONGEST` at most; while it
is held, the page defers its parsing and its handlers to the turns after
(:mod:`firmware_host.web.guards.pacing`; accepting goes on): nothing is refused, only later, and
the page cannot starve: a press holds it off for a few milliseconds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

LONGEST = 0.05
"""Seconds a press holds the page off at most (a write to a slow card, a press that shows nothing)."""


class Precedence:
    """Held by the table's input (:meth:`hold`, from any thread), released by its frame (:meth:`release`);
    the page asks :meth:`busy` and is called back by :meth:`after` once it is free again.

    ``clock``: the loop's clock (seconds); it is read from the driver threads too.
    """

    def __init__(self, longest: float = LONGEST, clock: Callable[[], float] = time.monotonic) -> None:
        self.longest, self.clock = longest, clock
        self._since: float | None = None
        self._waiting: list[Callable[[], None]] = []
        self._timer: asyncio.TimerHandle | None = None

    def hold(self) -> None:
        """The table has input on its way (a button's edge): the page waits. Safe from any thread."""
        self._since = self.clock()

    def release(self) -> None:
        """The table's answer is on its way to the panel: the page goes on (on the loop)."""
        self._since = None
        if self._waiting:
            self._over()

    def busy(self) -> bool:
        """Whether the page should wait now."""
        since = self._since
        return since is not None and self.clock() - since < self.longest

    def after(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` on the loop once the page may go on (soon, if it may now)."""
        loop = asyncio.get_running_loop()
        if not self.busy():
            loop.call_soon(fn)
            return
        self._waiting.append(fn)
        if self._timer is None:
            self._timer = loop.call_later(self._left(), self._over)

    def _left(self) -> float:
        """Seconds until the hold lasted :data:`LONGEST` (it is held)."""
        since = self._since
        return 0.0 if since is None else max(0.0, since + self.longest - self.clock())

    def _over(self) -> None:
        """The hold ended (released, or it lasted :data:`LONGEST`): the waiting go on."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.busy():  # held again by a newer edge meanwhile: wait for that one
            self._timer = asyncio.get_running_loop().call_later(max(0.001, self._left()), self._over)
            return
        waiting, self._waiting = self._waiting, []
        for fn in waiting:
            fn()
