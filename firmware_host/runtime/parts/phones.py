"""The phones: pairing with the companion page (one-time codes shown on the Phone screen,
tokens kept in ``phones.json``) and the time a paired phone gives (to date this boot's games when
the table's clock never synced)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from firmware_host.core.pairing import Pairings
from firmware_host.core.phone_clock import PhoneClock
from firmware_host.core.store import Store
from firmware_host.runtime.hub import Hub
from firmware_host.runtime.parts.message import MessageLine
from firmware_host.runtime.parts.saving import Saving
from firmware_host.runtime.parts.screens import Screens
from games.core import T


class Phones:
    """The paired phones and the page's pairing offer (the menus' and the page's phone doors)."""

    def __init__(self, store: Store, wall: Callable[[], float]) -> None:
        self.wall = wall
        self.pairings = Pairings(store.read_doc("phones", repair=True), self._save)
        """The phones paired with the companion page (``phones.json``)."""
        self.clock = PhoneClock()
        """The time a paired phone gave (this boot's games are dated by it when the clock never synced)."""
        self.companion: Any = None
        """The companion page, when it serves (set by the page part): its ``url()``."""
        self._code_handle: asyncio.TimerHandle | None = None
        """The redraw that shows the pairing code void when it expires."""

    def setup(self, hub: Hub) -> None:
        """The parts a pairing reaches, found by name."""
        self.saving: Saving = hub.lookup("saving")
        self.message: MessageLine = hub.lookup("message")
        self.screens: Screens = hub.lookup("screens")

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def phone_offer(self) -> tuple[str, str] | None:
        """The page's pairing link and a new one-time code, or ``None`` when the page does not serve."""
        url = self.companion.url() if self.companion is not None else None
        if not url:
            return None
        code = self.pairings.new_code(self._now())
        if self._code_handle is not None:
            self._code_handle.cancel()
        loop = asyncio.get_running_loop()
        self._code_handle = loop.call_at(self.pairings.expires + 0.01, self.screens.redraw)  # the screen says "void"
        return f"{url}pair?code={code}", code

    def phone_code_void(self) -> bool:
        """Whether the code on offer pairs nobody any more (expired, or a phone paired with it)."""
        return self.pairings.void(self._now())

    def withdraw_offer(self) -> None:
        """The Phone screen closed: its code pairs nobody any more."""
        self.pairings.withdraw()

    def pair_phone(self, code: str) -> str | None:
        """A token for a phone that sends the code on offer, else ``None``."""
        token = self.pairings.pair(code, self._now(), self.wall())
        if token is not None:
            self.message.toast(T("Phone paired"))
            self.screens.redraw()
        return token

    def phone_paired(self, token: str | None) -> bool:
        """Whether ``token`` belongs to a paired phone."""
        return self.pairings.paired(token)

    def forget_phones(self) -> int:
        """Revoke every phone's pairing; how many there were."""
        return self.pairings.forget_all()

    def set_phone_time(self, epoch: float) -> bool:
        """A paired phone's time (seconds since 1970, UTC), kept as an offset to the loop's
        monotonic clock; the system clock is never set. ``False`` when it is not believable."""
        return self.clock.set(epoch, self._now())

    def _save(self, doc: dict[str, Any]) -> None:
        self.saving.save_doc("phones", doc)
