"""How often one address may ask the page: a token bucket per address, kept as one number.

The page is served by the loop that also runs the buttons, so a machine that floods it must not
be able to take the loop's time. Each address has a bucket of :data:`BURST` requests that refills
at :data:`RATE` a second (a page load is about five requests, the history with its plots about
ten; the live view is one WebSocket, so a person never meets the limit). A request over the limit
is *delayed* until its token is due: the client waits on a timer, which costs the loop nothing,
so fifty flooding connections get :data:`RATE` answers a second between them however fast they
ask. A request that would wait longer than :data:`MAX_WAIT` is refused (429) instead.

The bucket is kept the GCRA way: per address only the time its next token is due, so checking a
request is a subtraction and the table of addresses stays small (addresses with no debt are
forgotten when it grows).

Over all addresses together, :class:`Budget` bounds the page's answers a second: however many
addresses ask, the loop gives the page a bounded share of its time, and the requests past the
budget wait their turn address by address (or are refused, 429), so a new client is not stuck
behind a flood. The WebSocket's updates to screens already open are not requests: they go on.
"""

from __future__ import annotations

import asyncio
from collections import deque

RATE = 100.0
"""Requests a second one address may make, on average."""
BURST = 200
"""Requests one address may make at once before it is slowed down."""
MAX_WAIT = 2.0
"""Seconds a request may be held for its token; one that would wait longer is refused (429)."""
MAX_ADDRESSES = 1024
"""Addresses remembered before those with no debt are forgotten."""
MAX_HELD = 256
"""Requests held for the page's budget at once (all addresses)."""


class RateLimit:
    """A token bucket per address (:meth:`reserve`): how long a request waits, or that it is refused."""

    def __init__(
        self, rate: float = RATE, burst: int = BURST, max_wait: float = MAX_WAIT, max_addresses: int = MAX_ADDRESSES
    ) -> None:
        if rate <= 0 or burst < 1 or max_wait < 0:
            raise ValueError("rate > 0, burst ≥ 1 and max_wait ≥ 0")
        self.interval = 1.0 / rate
        self.tolerance = (burst - 1) * self.interval
        self.max_wait = max_wait
        self.max_addresses = max_addresses
        self._due: dict[str, float] = {}
        """Per address: when its bucket is full again (the time its debt is paid)."""

    def reserve(self, address: str, now: float) -> float | None:
        """Take a token for a request of ``address`` at ``now`` (seconds, any monotonic clock): the
        seconds it must wait for it (0: none), or ``None`` when it would wait over ``max_wait``
        (nothing is taken then: a refused request costs its address nothing more)."""
        due = max(self._due.get(address, now), now)
        wait = due - self.tolerance - now
        if wait > self.max_wait:
            return None
        if address not in self._due and len(self._due) >= self.max_addresses:
            self._forget(now)
        self._due[address] = due + self.interval
        return max(0.0, wait)

    def _forget(self, now: float) -> None:
        self._due = {a: t for a, t in self._due.items() if t > now}
        if len(self._due) >= self.max_addresses:  # every address is in debt: keep the deepest half
            kept = sorted(self._due.items(), key=lambda item: item[1])[self.max_addresses // 2 :]
            self._due = dict(kept)

    def __len__(self) -> int:
        return len(self._due)


PAIR_RATE = 1.0
"""Pairing codes a second one address may send (after :data:`PAIR_BURST`): a person types one."""
PAIR_BURST = 5
"""Pairing codes one address may send at once."""
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


class Budget:
    """The page's budget, shared fairly: a token bucket for all, and a queue per address served in
    turn, so a new client waits behind at most one request of each address that floods.

    :meth:`ask` says go (``True``), refused (``None``), or hands a future that comes true when the
    request's turn comes (``False``: it was pushed out for an address with fewer waiting).
    """

    def __init__(
        self,
        rate: float = PAGE_RATE,
        burst: int = PAGE_BURST,
        max_held: int = MAX_HELD,
        per_group: int = HELD_PER_GROUP,
    ) -> None:
        self.rate, self.burst, self.max_held, self.per_group = rate, burst, max_held, per_group
        self._tokens = float(burst)
        self._stamp: float | None = None
        self._queues: dict[str, deque[asyncio.Future[bool]]] = {}
        """Waiting requests per address, in the order their addresses are served."""
        self._held = 0
        self._timer: asyncio.TimerHandle | None = None

    @property
    def held(self) -> int:
        """Requests waiting now."""
        return self._held

    def _refill(self, now: float) -> None:
        if self._stamp is not None:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def ask(self, key: str) -> bool | asyncio.Future[bool] | None:
        """A token for a request of address ``key`` now, a future for its turn, or ``None``."""
        loop = asyncio.get_running_loop()
        self._refill(loop.time())
        if not self._held and self._tokens >= 1:
            self._tokens -= 1
            return True
        queue = self._queues.get(key)
        mine = len(queue) if queue else 0
        if mine >= self.per_group:
            return None
        if self._held >= self.max_held and not self._push_out(mine):
            return None
        future: asyncio.Future[bool] = loop.create_future()
        self._queues.setdefault(key, deque()).append(future)
        self._held += 1
        self._schedule()
        return future

    def _push_out(self, mine: int) -> bool:
        """Room for one more by refusing the newest request of the address with the most waiting."""
        queue = max(self._queues.values(), key=len)
        if len(queue) <= mine + 1:
            return False
        queue.pop().set_result(False)
        self._held -= 1
        return True

    def _schedule(self) -> None:
        if self._timer is None and self._held:
            wait = max(0.0, (1 - self._tokens) / self.rate)
            self._timer = asyncio.get_running_loop().call_later(max(wait, 0.005), self._release)

    def _release(self) -> None:
        self._timer = None
        self._refill(asyncio.get_running_loop().time())
        released = 0
        while self._tokens >= 1 and self._queues and released < RELEASE_BATCH:
            key = next(iter(self._queues))
            queue = self._queues.pop(key)
            future = queue.popleft()
            self._held -= 1
            if queue:
                self._queues[key] = queue  # to the end of the turn
            if not future.done():
                future.set_result(True)
                self._tokens -= 1
                released += 1
        self._schedule()
