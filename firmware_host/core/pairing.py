"""Phones paired with the table: one-time codes shown on the OLED, tokens kept in the state folder.

The Phone screen asks for a code (:meth:`Pairings.new_code`): six digits, good for one pairing,
for :data:`CODE_SECONDS`, and for :data:`CODE_TRIES` wrong guesses at most (a million codes and
five tries: a guess in 200,000). A phone that sends the code gets a token (32 random bytes, hex),
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

CODE_SECONDS = 300.0
"""How long a pairing code shown on the OLED stays good."""
CODE_TRIES = 5
"""Wrong codes accepted before the code shown is void (a new one must be asked for)."""
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
        self._tries = 0

    @property
    def count(self) -> int:
        """How many phones are paired."""
        return len(self._phones)

    def new_code(self, now: float) -> str:
        """A fresh one-time code (any code before it is void)."""
        self._code = f"{secrets.randbelow(10**6):06d}"
        self._until, self._tries = now + CODE_SECONDS, 0
        return self._code

    def withdraw(self) -> None:
        """Void the code on offer (the Phone screen closed)."""
        self._code = None

    def pair(self, code: str, now: float, wall: float) -> str | None:
        """A new token for a phone that sends the code on offer, else ``None`` (the code is then
        one try closer to void)."""
        if self._code is None or now > self._until:
            self._code = None
            return None
        if not hmac.compare_digest(code.encode(), self._code.encode()):
            self._tries += 1
            if self._tries >= CODE_TRIES:
                self._code = None
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
