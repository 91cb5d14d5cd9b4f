"""The page's work in short loop turns: a few requests go on in one turn, the rest in the next ones.

asyncio runs every callback that is ready in one turn. After the loop was held up for a moment
(another process had the CPU), a flood has hundreds of requests ready at once: bytes read from as
many sockets, as many requests parsed, as many held requests whose time came. Answering or
refusing them all back to back made turns of 10-15 ms, and a button's press posted meanwhile
waited for the whole turn. A :class:`TurnShare` lets :data:`PER_TURN` of them go on in a turn and
queues the rest, in order, for the following turns, so the presses, the display and the journal
get the loop between every batch. It holds nothing for long and refuses nothing: a flood still
meets the caps, the rate limit and the page's budget (:mod:`firmware_host.web.gate`,
:mod:`firmware_host.web.ratelimit`).

The gate gives a connection's bytes to the HTTP parser in turn (:meth:`TurnShare.take`,
:meth:`TurnShare.later`); the server lets a request's handler begin, and go on after waiting for
its token, in turn (:meth:`TurnShare.begin`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

PER_TURN = 16
"""What may go on in one loop turn (a request's bytes parsed, or its handler run: about 0.1 ms each)."""


class TurnShare:
    """At most ``per_turn`` go on in one loop turn; the others wait for later turns, in order."""

    def __init__(self, per_turn: int = PER_TURN) -> None:
        if per_turn < 1:
            raise ValueError("per_turn ≥ 1")
        self.per_turn = per_turn
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
        if self._taken < self.per_turn and not self._waiting:
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

    def _new_turn(self) -> None:
        self._next = None
        self._taken = 0
        while self._waiting and self._taken < self.per_turn:
            if self._waiting.popleft()():
                self._taken += 1
        if self._taken:
            self._turn_ends()
