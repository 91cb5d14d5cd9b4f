"""The page's answers a second over all addresses together, shared least-asking first.

However many addresses ask, the loop that runs the buttons gives the page a bounded share of its
time: a token bucket of :data:`PAGE_RATE` answers a second (a burst of :data:`PAGE_BURST`) for
the whole page. Requests past it wait, and the one that goes next belongs to the waiting address
that asked least lately (each request asked counts 1, answered or refused, and the count halves
every :data:`HALF_LIFE` seconds). A phone opening the page has asked almost nothing, so it is
answered within a turn or two, before any address of a flood, however many addresses flood. An
address that floods gets its fair share and no more: the more it asks, the later its next turn,
and asking on while refused only makes it heavier.

Of addresses that never asked before, the latest to come goes first. At a flood's start every
flooding address is as new as a phone that comes a moment later, and in the order they came the
phone waited behind them all: 164 first requests ahead, 0.66 s, under a flood from 200 addresses
begun 0.3 s before it (on loopback); and while only answers were counted, an address refused at
once stayed as new as the phone (1.0 s behind a storm from 2,000 addresses on virtual time,
1.5 s into it). A flood's addresses ask again at once and are new no longer.

Each address may have :data:`HELD_PER_GROUP` requests waiting; when :data:`MAX_HELD` wait in all,
the newest request of the address that asked most gives its place to one of an address that asked
less (it is refused, 429), and a request of an address no lighter than all those waiting is
refused itself; an address that never asked before is lighter than any. Waiting requests are let
go :data:`RELEASE_BATCH` a loop turn at most, so the page's work comes in short turns between the
buttons'. The WebSocket's updates to screens already open are not requests: they go on.

The counts are kept the way a decaying count can be compared without touching it
(:mod:`firmware_host.web.guards.decay`); the addresses with waiting requests are on a heap by them. The
table of addresses is bounded (:data:`MAX_ADDRESSES`); those that asked least are forgotten first,
which only makes them as new again.
"""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from itertools import count

from firmware_host.web.guards.decay import NEVER, Decaying

PAGE_RATE = 250.0
"""Answers a second the whole page gives, all addresses together (a table's few screens and
phones need a handful; the loop's share for the page stays bounded however many addresses ask)."""
PAGE_BURST = 20
"""Answers the page gives at once before the rest wait their turn."""
RELEASE_BATCH = 4
"""Waiting requests let go per loop turn at most (every 5 ms: up to 800 a second), so the page's
work comes in short turns between the buttons'."""
HELD_PER_GROUP = 8
"""Requests one address may have waiting for the page's budget; one more is refused (429)."""
MAX_HELD = 256
"""Requests waiting for the page's budget at once (all addresses)."""
HALF_LIFE = 10.0
"""Seconds in which an address's count of requests halves: a page load (five requests) or the
history (ten) weighs for a minute or so; a flood's steady asking weighs all the time."""
MAX_ADDRESSES = 1024
"""Addresses whose counts are kept before those that asked least are forgotten."""


class Budget:
    """The page's budget (see the module's docstring): :meth:`ask` says go (``True``), refused
    (``None``), or hands a future that comes true when the request's turn comes (``False``: it
    gave its place to a lighter address's request and is refused)."""

    def __init__(
        self,
        rate: float = PAGE_RATE,
        burst: int = PAGE_BURST,
        max_held: int = MAX_HELD,
        per_group: int = HELD_PER_GROUP,
        half_life: float = HALF_LIFE,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        if rate <= 0 or burst < 1 or max_held < 1 or per_group < 1 or half_life <= 0 or max_addresses < 2:
            raise ValueError("rate, half_life > 0; burst, max_held, per_group ≥ 1; max_addresses ≥ 2")
        self.rate, self.burst, self.max_held, self.per_group = rate, burst, max_held, per_group
        self.max_addresses = max_addresses
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._answered = Decaying(half_life, max_addresses)
        """Per address: its answers lately."""
        self._asked = Decaying(half_life, max_addresses)
        """Per address: its requests lately, answered or refused."""
        self._queues: dict[str, deque[asyncio.Future[bool]]] = {}
        """Waiting requests per address, oldest first."""
        self._heap: list[tuple[tuple[float, float], int, str]] = []
        """``(weight, order, address)`` of the addresses with requests waiting (stale entries skipped;
        the order is negative for an address that never asked before: the latest first)."""
        self._entry: dict[str, int] = {}
        """Per address waiting: the order of its entry on the heap that holds."""
        self._order = count()
        self._held = 0
        self._timer: asyncio.TimerHandle | None = None

    @property
    def held(self) -> int:
        """Requests waiting now."""
        return self._held

    def answers(self, key: str, now: float) -> float:
        """The answers counted for address ``key`` at ``now`` (halving every half-life)."""
        return self._answered.count(key, now)

    def asked(self, key: str, now: float) -> float:
        """The requests counted for address ``key`` at ``now``, answered or refused (halving
        every half-life)."""
        return self._asked.count(key, now)

    def ask(self, key: str) -> bool | asyncio.Future[bool] | None:
        """A token for a request of address ``key`` now, a future for its turn, or ``None``."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._refill(now)
        weight = self._weight(key)  # what it had before this request
        self._count(self._asked, key, now)
        if not self._held and self._tokens >= 1:
            self._tokens -= 1
            self._count(self._answered, key, now)
            return True
        queue = self._queues.get(key)
        mine = len(queue) if queue else 0
        if mine >= self.per_group:
            return None
        if self._held >= self.max_held and not self._give_way(key, weight, mine):
            return None
        future: asyncio.Future[bool] = loop.create_future()
        if queue is None:
            queue = self._queues[key] = deque()
            self._push(key, weight)
        queue.append(future)
        self._held += 1
        self._schedule()
        return future

    # -- the counts --------------------------------------------------------------------------------
    def _weight(self, key: str) -> tuple[float, float]:
        """``key``'s answers, then its requests, as the keys they are kept by (the lighter goes first)."""
        return self._answered.key(key), self._asked.key(key)

    def _count(self, table: Decaying, key: str, now: float) -> None:
        """One more for ``key`` at ``now`` in ``table`` (its answers or its requests); a full table
        keeps the addresses that asked most and those with requests waiting."""
        before = len(self._asked.keys)
        table.bump(key, now, keep=self._queues.__contains__)
        if table is self._asked and len(self._asked.keys) < before:
            self._answered.forget_but(self._asked.keys)

    # -- who waits, who goes -----------------------------------------------------------------------
    def _push(self, key: str, weight: tuple[float, float]) -> None:
        """``key`` waits with ``weight`` (what it had before its oldest waiting request): the
        lightest goes first; of addresses that never asked before, the latest to come."""
        order = next(self._order)
        if weight[1] == NEVER:
            order = -order
        self._entry[key] = order
        heapq.heappush(self._heap, (weight, order, key))
        if len(self._heap) > 2 * len(self._entry) + 64:  # stale entries of addresses that gave way
            self._heap = [e for e in self._heap if self._entry.get(e[2]) == e[1]]
            heapq.heapify(self._heap)

    def _give_way(self, key: str, weight: tuple[float, float], mine: int) -> bool:
        """Room for one more request of ``key``, of ``weight`` with ``mine`` waiting: the
        heaviest waiting address's newest gives way when it is heavier (answered more, or as
        much and asked more, or as much of both with more waiting) and not ``key`` itself."""

        def heft(address: str) -> tuple[float, float, int]:
            return *self._weight(address), len(self._queues[address])

        heaviest = max(self._queues, key=heft)
        if heaviest == key or heft(heaviest) <= (*weight, mine + 1):
            return False
        queue = self._queues[heaviest]
        queue.pop().set_result(False)
        self._held -= 1
        if not queue:
            del self._queues[heaviest], self._entry[heaviest]
        return True

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def _schedule(self) -> None:
        if self._timer is None and self._held:
            wait = max(0.0, (1 - self._tokens) / self.rate)
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.005), self._release)

    def _release(self) -> None:
        self._timer = None
        now = asyncio.get_running_loop().time()
        self._refill(now)
        released = 0
        while self._tokens >= 1 and self._heap and released < RELEASE_BATCH:
            _, order, key = heapq.heappop(self._heap)
            if self._entry.get(key) != order:
                continue  # it gave way meanwhile
            queue = self._queues[key]
            future = queue.popleft()
            self._held -= 1
            if not future.done():  # not cancelled (its client went away): it goes, and counts
                future.set_result(True)
                self._tokens -= 1
                released += 1
                self._count(self._answered, key, now)
            if queue:
                self._push(key, self._weight(key))
            else:
                del self._queues[key], self._entry[key]
        self._schedule()
