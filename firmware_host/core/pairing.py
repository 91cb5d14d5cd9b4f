"""Phones paired with the table: one-time codes shown on the OLED, tokens kept in the state folder.

The Phone screen asks for a code (:meth:`Pairings.new_code`): :data:`CODE_DIGITS` digits, good
for one pairing and for :data:`CODE_SECONDS`. Wrong codes do not void it: whoever sends them, from
however many addresses, the person at the table can still pair (nobody can jam pairing). Guessing
is bounded by the code's size instead: the page answers at most
:data:`~firmware_host.web.guards.budget.PAGE_RATE` requests a second in all, so an hour of guessing
tries at most 900,000 of 10¹² codes (below one chance in a million); each address is slowed to
:data:`~firmware_host.web.guards.ratelimit.PAIR_RATE` tries a second besides. A code is *void* once it
expired or paired a phone: :meth:`Pairings.void` says so, and the Phone screen shows it.
A phone that sends the code gets a token (32 random bytes, hex),
which the page keeps in an ``HttpOnly`` cookie. Only a hash of each token is stored
(``phones.json``), so the state folder read by someone else pairs nobody. At most
:data:`MAX_PHONES` phones are kept; pairing one more forgets the oldest. Settings → Phones →
forget all empties the list.

Pure bookkeeping: times come from the caller's clock and saving is the caller's ``save``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any

from firmware_host.core.validators import CODE_DIGITS

CODE_SECONDS = 300.0
"""How long a pairing code shown on the OLED stays good."""
MAX_PHONES = 16
"""Phones kept paired; the oldest is forgotten past this."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


class Pairings:
    """The paired phones and the one code on offer."""

    def __init__(self, doc: dict[str, Any], save: Callable[[dict[str, Any]], None]) -> None:
        """``doc``: ``phones.json`` as read (a bad one is treated as empty); ``save`` writes it."""
        phones = doc.get("phones") if isinstance(doc, dict) else None
        self._phones: list[dict[str, Any]] = [
            p
            for p in (phones if isinstance(phones, list) else [])
            if isinstance(p, dict) and isinstance(p.get("hash"), str)
        ][-MAX_PHONES:]
        self._save = save
        self._code: str | None = None
        self._until = 0.0
        self._offered = False
        """Whether a code was offered since the screen opened (so a void one can be said void)."""

    @property
    def count(self) -> int:
        """How many phones are paired."""
        return len(self._phones)

    def new_code(self, now: float) -> str:
        """A fresh one-time code (any code before it is void)."""
        self._code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        self._until, self._offered = now + CODE_SECONDS, True
        return self._code

    def void(self, now: float) -> bool:
        """Whether the code offered last pairs nobody any more (expired or used)."""
        return self._offered and (self._code is None or now > self._until)

    @property
    def expires(self) -> float:
        """When the code on offer expires (the caller's clock)."""
        return self._until

    def withdraw(self) -> None:
        """Void the code on offer (the Phone screen closed)."""
        self._code, self._offered = None, False

    def pair(self, code: str, now: float, wall: float) -> str | None:
        """A new token for a phone that sends the code on offer, else ``None`` (a wrong code
        changes nothing: the code stays good for the person at the table)."""
        if self._code is None or now > self._until:
            self._code = None
            return None
        if not hmac.compare_digest(code.encode(), self._code.encode()):
            return None
        self._code = None  # one phone per code
        token = secrets.token_hex(32)
        self._phones = [*self._phones, {"hash": _hash(token), "since": wall}][-MAX_PHONES:]
        self._save({"phones": list(self._phones)})
        return token

    def paired(self, token: str | None) -> bool:
        """Whether ``token`` is a paired phone's."""
        if not token:
            return False
        digest = _hash(token)
        return any(hmac.compare_digest(digest, p["hash"]) for p in self._phones)

    def forget_all(self) -> int:
        """Unpair every phone; how many there were."""
        count = len(self._phones)
        self._phones, self._code = [], None
        self._save({"phones": []})
        return count
