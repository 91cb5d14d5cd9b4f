"""Who holds the page's connections, and who gives way when it is full.

The page holds :data:`MAX_CONNECTIONS` connections at most (fewer under a low descriptor limit:
:func:`firmware_host.web.guards.gate.connection_budget`). They are shared the way the page's answers are
(:mod:`firmware_host.web.guards.budget`): by what each holder has, not first come, first served.

- **Holders.** An address holds at most :data:`PER_ADDRESS` (:func:`group`: an IPv4 address, an
  IPv6 address whole). An IPv6 /64 (:func:`network`) holds at most :data:`PER_NETWORK` over all
  its addresses: a guest can make thousands of addresses in its /64 (privacy addresses), so a
  /64 is one guest to the rest of the page — yet on a LAN it is often everybody's prefix, so its
  addresses share what it holds by the same rule as the page's (next point). An IPv4 address is
  its own network: link-local IPv4 gives a guest thousands of addresses too, and nothing tells
  them from the table's phones; the rule below holds whatever their number.
- **When full, the lighter takes the place of the heaviest.** A new connection when the page (or
  its /64) holds all it may takes the place of one held by the heaviest holder — the /64 or IPv4
  address holding the most, and within a /64 its address holding the most — when that holder has
  more than the newcomer's own (so an address that holds nothing takes the place of one that holds
  something, and nothing moves between equals).
- **The slowest goes first.** Of the heaviest holders' connections, the one that has waited
  longest for a request's head (it opened and sent nothing whole, or waits idle for the next
  request; a second at least: :data:`GRACE`) or with answers its client does not read goes first.
  When none is so slow: of their newest, a screen (a WebSocket), then one waiting for a request's
  head, before a request under way, and of those the one whose address was turned away most
  lately (a storm's, that come and go, before a phone's just let in); a screen that stays open is
  older than all of them. No set of addresses can hold every place while another
  waits: a phone that holds nothing always gets one.
- **Storms do not take turns.** An address turned away lately (its connections refused, given
  away to a lighter address, or closed for holding one without a request: :data:`TURN_LIMIT`
  times, halving every :data:`TURN_HALF_LIFE`) takes nobody's place: it gets one only when one is
  free. Else a storm's thousand addresses without a place take each other's places for as long as
  it lasts (35,000 times in 30 s under the storm from 2,000 addresses: 45 % of a core).
- **Equals keep theirs.** A newcomer holding as much as the heaviest is refused (a reset).

:class:`Shares` only counts and chooses; :class:`firmware_host.web.guards.gate.Gate` accepts, closes and
keeps the time.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
from collections import Counter
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from firmware_host.web.guards.decay import Decaying

MAX_CONNECTIONS = 512
"""Connections held at once, from everyone (WebSocket screens included)."""
PER_ADDRESS = 16
"""Connections one address may hold: a browser opens at most six to a page, a screen one more;
two tabs and a phone's page stay under it."""
PER_NETWORK = 128
"""Connections one IPv6 /64 may hold over all its addresses (a quarter of the page: a LAN's
phones in one prefix fit, and a guest's thousand addresses cannot take the rest)."""


GRACE = 1.0
"""Seconds a connection may wait for a request's head before it counts as slow (a phone's
request comes within moments of its connection, or of its last answer)."""
RECENT = 16
"""The newest connections looked at for one to give way when none is slow."""
TURN_LIMIT = 4
"""Times an address may have been turned away lately and still take another's place when the page
is full (each counts 1, halving every :data:`TURN_HALF_LIFE`): a phone is not turned away at all,
or once when the page was full; a storm's address is, again and again."""
TURN_HALF_LIFE = 30.0
"""Seconds in which an address's count of being turned away halves."""
MAX_TURNED = 4096
"""Addresses whose turns away are counted at most (the lighter half forgotten when full)."""


def group(address: str) -> str:
    """The address a cap counts: IPv4 as is (also when IPv4-mapped), IPv6 whole (without its zone)."""
    return place(address)[0]


def network(address: str) -> str:
    """The network an address shares its /64's cap with: an IPv6 address's /64, else its :func:`group`."""
    return place(address)[1]


@functools.lru_cache(maxsize=4096)
def place(address: str) -> tuple[str, str]:
    """``address``'s :func:`group` and :func:`network` (kept for the addresses seen lately: a storm's
    every connection asks)."""
    if ":" not in address and "%" not in address:
        with contextlib.suppress(ValueError):
            return (key := str(ipaddress.IPv4Address(address))), key
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address, address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            key = str(ip.ipv4_mapped)
            return key, key
        return str(ip), str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip), str(ip)


class Seat(Protocol):
    """A held connection as :class:`Shares` sees it."""

    key: str
    """Its address (:func:`group`)."""
    net: str
    """Its network (:func:`network`)."""

    def waiting(self) -> bool:
        """Whether it waits for a request's head, or its answers stopped leaving."""
        ...

    def slow(self, now: float) -> bool:
        """Whether it has waited for a request's head :data:`GRACE` seconds or more at ``now``,
        or its client is not reading its answers."""
        ...

    def screen(self) -> bool:
        """Whether it is a screen (a WebSocket: open for as long as it follows the table)."""
        ...


S = TypeVar("S", bound=Seat)


@dataclass(frozen=True)
class Verdict(Generic[S]):
    """What :meth:`Shares.ask` decided: a place (taking ``victim``'s when it is set), or a refusal."""

    admitted: bool
    victim: S | None = None
    why: str = ""
    """Why it was refused (a tally's words)."""


class Shares(Generic[S]):
    """The connections held, by address and by network, and who gives way (module docstring)."""

    def __init__(
        self, total: int = MAX_CONNECTIONS, per_address: int = PER_ADDRESS, per_network: int = PER_NETWORK
    ) -> None:
        self.max_total, self.per_address, self.per_network = total, per_address, per_network
        self.total = 0
        self.held: Counter[str] = Counter()
        """Connections held per address (admitted, seated or not yet)."""
        self.nets: Counter[str] = Counter()
        """Connections held per network."""
        self.turned = Decaying(TURN_HALF_LIFE, MAX_TURNED)
        """How often each address was turned away lately (:meth:`turn_away`)."""
        self._members: dict[str, Counter[str]] = {}
        """Each network holding a place: its addresses' places."""
        self._seats: dict[S, None] = {}
        """The connections seated, oldest first (a place admitted becomes a seat once its
        connection is made; only seats give way)."""
        self._waiting: dict[S, None] = {}
        """The seats waiting for a request's head or for their answers to drain, in the order
        they began to wait."""

    def ask(self, key: str, net: str, now: float) -> Verdict[S]:
        """Whether a new connection of address ``key`` in network ``net`` gets a place, and
        whose it takes when the page or the network is full (a refusal turns it away at ``now``)."""
        if self.held[key] >= self.per_address:
            return self._refuse(key, now, "connections refused (one address holds all it may)")
        network_full = self.nets[net] >= self.per_network
        if not network_full and self.total < self.max_total:
            return Verdict(True)
        victim = None
        if self.turned.count(key, now) < TURN_LIMIT:
            victim = self._heaviest(key, net, network_full, now)
        if victim is not None:
            self.turn_away(victim.key, now)
            return Verdict(True, victim)
        if network_full:
            return self._refuse(key, now, "connections refused (one network holds all it may)")
        return self._refuse(key, now, "connections refused (the page holds all it may)")

    def turn_away(self, key: str, now: float) -> None:
        """Count that ``key`` was turned away at ``now`` (a connection refused, given away, or
        closed for holding a place without a request)."""
        self.turned.bump(key, now, keep=self.held.__contains__)

    def _refuse(self, key: str, now: float, why: str) -> Verdict[S]:
        self.turn_away(key, now)
        return Verdict(False, why=why)

    def take(self, key: str, net: str) -> None:
        """A place for ``key`` in ``net`` (after :meth:`ask` admitted it and its victim left)."""
        self.total += 1
        self.held[key] += 1
        self.nets[net] += 1
        self._members.setdefault(net, Counter())[key] += 1

    def sit(self, seat: S) -> None:
        """The connection of a place taken is made: it may be chosen to give way from now on."""
        self._seats[seat] = None
        self.mark(seat)

    def mark(self, seat: S) -> None:
        """``seat`` may have begun to wait, or stopped (its request head came, its answers drain)."""
        if seat not in self._seats:
            return
        if not seat.waiting():
            self._waiting.pop(seat, None)
        elif seat not in self._waiting:
            self._waiting[seat] = None

    def give_back(self, key: str, net: str, seat: S | None = None) -> None:
        """A place of ``key`` in ``net`` is free again (its connection, ``seat``, closed or never came)."""
        if seat is not None:
            self._seats.pop(seat, None)
            self._waiting.pop(seat, None)
        self.total -= 1
        members = self._members.get(net)
        for counts, name in ((self.held, key), (self.nets, net), (members, key)):
            if counts is None:
                continue
            counts[name] -= 1
            if counts[name] <= 0:
                del counts[name]
        if members is not None and not members:
            del self._members[net]

    def _heaviest(self, key: str, net: str, within: bool, now: float) -> S | None:
        """The seat that gives way to a newcomer of ``key`` in ``net`` (``within``: its network is
        full): of the heaviest holders heavier than the newcomer, the seat slow the longest, else
        of their :data:`RECENT` newest seats a screen, then one waiting for a request's head, before
        a request under way, and the one whose address was turned away most lately (of as often,
        the oldest)."""
        nets, held = self.nets, self.held
        top_net = net
        if not within:
            heaviest = max(nets.values(), default=0)
            if heaviest > nets[net]:
                top_net = ""  # another network: every one as heavy
        if top_net:
            members = self._members.get(net)
            heaviest = max(members.values(), default=0) if members else 0
            if heaviest <= held[key]:
                return None

            def gives(seat: S) -> bool:
                return seat.net == net and held[seat.key] == heaviest

        else:
            tops: dict[str, int] = {}

            def gives(seat: S) -> bool:
                other = seat.net
                if nets[other] != heaviest or other == net:
                    return False
                if other == seat.key:  # an IPv4 address: its own network
                    return True
                if other not in tops:  # its heaviest address gives way
                    tops[other] = max(self._members[other].values())
                return held[seat.key] == tops[other]

        for seat in self._waiting:  # those waiting longest first
            if seat.slow(now) and gives(seat):
                return seat
        best: S | None = None
        most = (False, False, -1)
        for n, seat in enumerate(reversed(self._seats)):  # newest first
            if n >= RECENT and best is not None:
                break
            if gives(seat):
                # a screen, then one waiting for a head, before a request under way; then the
                # address turned away most (as often: the older seat, not a phone's just let in)
                rank = (seat.screen(), seat.waiting(), round(self.turned.count(seat.key, now)))
                if rank >= most:
                    best, most = seat, rank
        return best
