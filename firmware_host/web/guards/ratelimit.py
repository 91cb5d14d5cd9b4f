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

Over all addresses together, the page's answers a second are bounded by
:class:`firmware_host.web.guards.budget.Budget`.
"""

from __future__ import annotations

RATE = 100.0
"""Requests a second one address may make, on average."""
BURST = 200
"""Requests one address may make at once before it is slowed down."""
MAX_WAIT = 2.0
"""Seconds a request may be held for its token; one that would wait longer is refused (429)."""
MAX_ADDRESSES = 1024
"""Addresses remembered before those with no debt are forgotten."""


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
