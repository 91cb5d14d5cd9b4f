"""The page's work in short loop turns: a few requests go on in one turn, the rest in the next ones.

asyncio runs every callback that is ready in one turn. After the loop was held up for a moment
(another process had the CPU), a flood has hundreds of requests ready at once: bytes read from as
many sockets, as many requests parsed, as many held requests whose time came. Answering or
refusing them all back to back made turns of 10-15 ms, and a button's press posted meanwhile
waited for the whole turn. A :class:`TurnShare` lets :data:`PER_TURN` of them go on in a turn and
queues the rest, in order, for the following turns, so the presses, the display and the journal
get the loop between every batch. It holds nothing for long and refuses nothing: a flood still
meets the caps, the rate limit and the page's budget (:mod:`firmware_host.web.guards.gate`,
:mod:`firmware_host.web.guards.ratelimit`).

The gate gives a connection's bytes to the HTTP parser in turn (:meth:`TurnShare.take`,
:meth:`TurnShare.later`); the server lets a request's handler begin, and go on after waiting for
its token, in turn (:meth:`TurnShare.begin`).

While the table has a press on its way to the panel (:class:`~firmware_host.web.door.TableFirst`,
held from the button's edge to the frame), no bytes are parsed and no handler goes on: what comes meanwhile waits
for the turns after, so a press no longer waits behind the page's share at each of its turns.

The garbage collector's young passes come in short steps too (:class:`YoungSteps`): while the
page is busy, every turn with page work in it may start one, at most every :data:`YOUNG_SECONDS`.
Left to itself, the collector starts a pass when more objects were made than freed since the
last; under a flood as many old ones are freed as new ones made, so its passes came about once a
second, each walking every request in flight (some 14,000 objects, 3-9 ms with the loop stopped).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware_host.web.door import TableFirst

PER_TURN = 16
"""What may go on in one loop turn (a request's bytes parsed, or its handler run: about 0.1 ms each)."""


YOUNG_SECONDS = 0.02
"""The least time between two young passes :class:`YoungSteps` starts (each walks only what the
page made since the last: a fraction of a millisecond under a flood)."""
MIDDLE_EVERY = 10
"""One pass in this many takes in the middle generation too (the collector's own ratio)."""


class YoungSteps:
    """The collector's young passes in small steps while the page works (see the module's docstring).

    :meth:`poke` is cheap and may be called often; the pass itself runs as a callback of its own
    between two of the loop's (never inside a handler). Nothing is done while the collector is off
    (a bulk read turns it off for a moment), and nothing at all while the page is idle: no wake-up.
    """

    def __init__(
        self,
        every: float = YOUNG_SECONDS,
        middle_every: int = MIDDLE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every, self.middle_every, self.clock = every, middle_every, clock
        self._last = float("-inf")
        self._queued: asyncio.Handle | None = None
        self.passes = 0
        """Passes started (for the tests and benches)."""

    def poke(self) -> None:
        """Start a young pass in this turn's wake, unless one ran less than ``every`` ago."""
        if self._queued is not None:
            return
        now = self.clock()
        if now - self._last >= self.every:
            self._last = now
            self._queued = asyncio.get_running_loop().call_soon(self._collect)

    def _collect(self) -> None:
        self._queued = None
        if gc.isenabled():
            self.passes += 1
            gc.collect(1 if self.passes % self.middle_every == 0 else 0)


YOUNG = YoungSteps()
"""The one the page's turns share (the collector is the process's)."""


class TurnShare:
    """At most ``per_turn`` go on in one loop turn; the others wait for later turns, in order."""

    def __init__(
        self, per_turn: int = PER_TURN, young: YoungSteps | None = YOUNG, first: TableFirst | None = None
    ) -> None:
        if per_turn < 1:
            raise ValueError("per_turn ≥ 1")
        self.per_turn = per_turn
        self.young = young
        """Poked once a turn with page work in it (``None``: the collector left to itself)."""
        self.first = first
        """The table's precedence: while it is busy, nothing goes on (``None``: no table to wait for)."""
        self._parked = False
        """Waiting for the table's precedence to end."""
        self._taken = 0
        """Places taken in this turn."""
        self._waiting: deque[Callable[[], bool]] = deque()
        self._next: asyncio.Handle | None = None
        self.deferred = 0
        """How many had to wait for a later turn, since the start (for the benches)."""

    @property
    def waiting(self) -> int:
        """How many wait for a later turn now."""
        return len(self._waiting)

    def take(self) -> bool:
        """Take a place in this turn: ``True`` when it has room and nobody waits (go on now)."""
        if self._taken < self.per_turn and not self._waiting and not (self.first is not None and self.first.busy()):
            self._taken += 1
            self._turn_ends()
            return True
        return False

    def later(self, resume: Callable[[], bool]) -> None:
        """Call ``resume`` at the start of a later turn with room, after those waiting before it; it
        returns whether it went on (``False``: it no longer needed its place, which goes to the next)."""
        self.deferred += 1
        self._waiting.append(resume)
        self._turn_ends()

    async def begin(self) -> None:
        """Return in this turn when it has room and nobody waits, else in a later turn, in order."""
        if self.take():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def resume() -> bool:
            if future.done():  # cancelled meanwhile
                return False
            future.set_result(None)
            return True

        self.later(resume)
        await future

    def _turn_ends(self) -> None:
        """Count afresh in the next turn (a callback queued now runs at that turn's start)."""
        if self._next is None:
            self._next = asyncio.get_running_loop().call_soon(self._new_turn)
            if self.young is not None:
                self.young.poke()

    def _new_turn(self) -> None:
        self._next = None
        self._taken = 0
        if self._waiting and self.first is not None and self.first.busy():
            if not self._parked:
                self._parked = True
                self.first.after(self._unpark)
            return
        while self._waiting and self._taken < self.per_turn:
            if self._waiting.popleft()():
                self._taken += 1
        if self._taken:
            self._turn_ends()

    def _unpark(self) -> None:
        self._parked = False
        self._turn_ends()
