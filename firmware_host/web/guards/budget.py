"""The page's answers a second over all addresses together, shared least-used first.

However many addresses ask, the loop that runs the buttons gives the page a bounded share of its
time: a token bucket of :data:`PAGE_RATE` answers a second (a burst of :data:`PAGE_BURST`) for
the whole page. Requests past it wait, and the one that goes next belongs to the waiting address
that has had the fewest answers lately (each answer counts 1 and the count halves every
:data:`HALF_LIFE` seconds; ties go in the order they came). A phone opening the page has had
almost none, so it is answered within a turn or two, before any address of a flood, however many
addresses flood: when 200 addresses each had one request waiting, served in turn, a new client
waited 0.8 s behind them all, and past 250 addresses over a second. An address that floods gets
its fair share and no more: the more it was answered, the later its next turn.

Each address may have :data:`HELD_PER_GROUP` requests waiting; when :data:`MAX_HELD` wait in all,
the newest request of the most answered address gives its place to one of a less answered
address (it is refused, 429), and a request of an address no lighter than all those waiting is
refused itself. Waiting requests are let go :data:`RELEASE_BATCH` a loop turn at most, so the
page's work comes in short turns between the buttons'. The WebSocket's updates to screens
already open are not requests: they go on.

The counts are kept the way a decaying count can be compared without touching it: per address one
number, ``ln(count) + λ·t`` at its last answer, whose order stays the order of the counts as they
halve together; the addresses with waiting requests are on a heap by it. The table of addresses
is bounded (:data:`MAX_ADDRESSES`); those with the fewest answers are forgotten first, which only
makes them as new again.
"""

from __future__ import annotations

import asyncio
import heapq
import math
from collections import deque
from itertools import count

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
"""Seconds in which an address's count of answers halves: a page load (five requests) or the
history (ten) weighs for a minute or so; a flood's steady asking weighs all the time."""
MAX_ADDRESSES = 1024
"""Addresses whose counts are kept before the least answered are forgotten."""

_NEW = float("-inf")
"""The key of an address with no answer counted: before every other."""


class Budget:
    """The page's budget (see the module's docstring): :meth:`ask` says go (``True``), refused
    (``None``), or hands a future that comes true when the request's turn comes (``False``: it
    gave its place to a less answered address's request and is refused)."""

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
        self.decay = math.log(2) / half_life
        self.max_addresses = max_addresses
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._keys: dict[str, float] = {}
        """Per address: ``ln(answers counted) + decay·t`` at its last answer (their order is the counts')."""
        self._queues: dict[str, deque[asyncio.Future[bool]]] = {}
        """Waiting requests per address, oldest first."""
        self._heap: list[tuple[float, int, str]] = []
        """``(key, order, address)`` of the addresses with requests waiting (stale entries skipped)."""
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
        return math.exp(self._keys.get(key, _NEW) - self.decay * now)  # a new address: exp(-inf) = 0

    def ask(self, key: str) -> bool | asyncio.Future[bool] | None:
        """A token for a request of address ``key`` now, a future for its turn, or ``None``."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._refill(now)
        if not self._held and self._tokens >= 1:
            self._tokens -= 1
            self._count(key, now)
            return True
        queue = self._queues.get(key)
        mine = len(queue) if queue else 0
        if mine >= self.per_group:
            return None
        if self._held >= self.max_held and not self._give_way(key, mine):
            return None
        future: asyncio.Future[bool] = loop.create_future()
        if queue is None:
            queue = self._queues[key] = deque()
            self._push(key)
        queue.append(future)
        self._held += 1
        self._schedule()
        return future

    # -- the counts --------------------------------------------------------------------------------
    def _count(self, key: str, now: float) -> None:
        """One more answer for ``key`` at ``now``."""
        if key not in self._keys and len(self._keys) >= self.max_addresses:
            self._forget()
        self._keys[key] = math.log(self.answers(key, now) + 1.0) + self.decay * now

    def _forget(self) -> None:
        """Keep the most answered half of the addresses (and every one with a request waiting)."""
        ranked = sorted(self._keys.items(), key=lambda item: item[1])
        cut = len(ranked) - self.max_addresses // 2
        self._keys = {a: k for i, (a, k) in enumerate(ranked) if i >= cut or a in self._queues}

    # -- who waits, who goes -----------------------------------------------------------------------
    def _push(self, key: str) -> None:
        order = next(self._order)
        self._entry[key] = order
        heapq.heappush(self._heap, (self._keys.get(key, _NEW), order, key))
        if len(self._heap) > 2 * len(self._entry) + 64:  # stale entries of addresses that gave way
            self._heap = [e for e in self._heap if self._entry.get(e[2]) == e[1]]
            heapq.heapify(self._heap)

    def _give_way(self, key: str, mine: int) -> bool:
        """Room for one more request of ``key``: the most answered waiting address's newest gives
        way when it was answered more than ``key`` (or as much, with more waiting)."""

        def weight(address: str) -> tuple[float, int]:
            return self._keys.get(address, _NEW), len(self._queues[address])

        heaviest = max(self._queues, key=weight)
        if weight(heaviest) <= (self._keys.get(key, _NEW), mine + 1):
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
                self._count(key, now)
            if queue:
                self._push(key)
            else:
                del self._queues[key], self._entry[key]
        self._schedule()
