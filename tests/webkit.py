"""The companion page on a simulated device, for tests: a real aiohttp server on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from firmware_host.web.server import Companion


@contextlib.asynccontextmanager
async def page(device: Any) -> AsyncIterator[tuple[Companion, aiohttp.ClientSession, str]]:
    """Serve ``device``'s page on 127.0.0.1 (a free port); yield it, a client session and its base URL."""
    companion = Companion(device.door, "127.0.0.1", 0)
    await companion.start()
    device.door.companion = companion
    base = f"http://127.0.0.1:{companion.port}"
    try:
        jar = aiohttp.CookieJar(unsafe=True)  # a browser keeps cookies of an IP address too
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None), cookie_jar=jar) as session:
            yield companion, session, base
    finally:
        device.door.companion = None
        await companion.close()


async def pair(device: Any, session: aiohttp.ClientSession, base: str) -> None:
    """Pair ``session`` as a phone would: the code the Phone screen shows, sent from the page."""
    offer = device.door.phone_offer()
    assert offer is not None
    async with session.post(f"{base}/api/pair", json={"code": offer[1]}, headers={"Origin": base}) as r:
        assert r.status == 200, await r.text()
