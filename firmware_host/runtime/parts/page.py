"""The companion page as one of the device's parts: it starts once the table is up (aiohttp is
imported only then, so the menu is not delayed by it), serves until the device stops, and closes
with it. A page that cannot listen is logged and the table goes on without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from firmware_host.runtime.events import PageServing
from firmware_host.runtime.hub import Hub

log = logging.getLogger(__name__)


class Page:
    """The page on the ``[web]`` settings given (``bind``, ``port``: ``None`` the device's own,
    ``0`` a free one), served with ``door`` (what the page may ask and tell)."""

    def __init__(self, door: Any, settings: Mapping[str, Any], then: Callable[[], None] = lambda: None) -> None:
        self._door = door
        self._settings = dict(settings)
        self._then = then
        """Called once the page serves, or could not (the device settles after it)."""
        self.companion: Any = None
        """The page's server while it serves (:class:`~firmware_host.web.server.Companion`)."""

    def setup(self, hub: Hub) -> None:
        """Tell the phones part where the page is (its QR code); publish where it serves."""
        self._phones = hub.lookup("phones")
        self._publish = hub.publish

    def url(self) -> str | None:
        """The page's address on the LAN while it serves."""
        return self.companion.url() if self.companion is not None else None

    async def task(self) -> None:
        """Serve until the device stops (this task is cancelled), then close."""
        from firmware_host.web.server import start_page  # the page's modules: not before the table is up

        self.companion = await start_page(self._door, self._settings)
        self._then()
        if self.companion is None:
            return
        self._phones.companion = self.companion
        self._publish(PageServing(self.companion.url(), self.companion.port))
        try:
            await asyncio.Event().wait()
        finally:
            self._phones.companion = None
            page, self.companion = self.companion, None
            await page.close()
