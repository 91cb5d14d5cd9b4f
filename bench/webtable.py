"""The device and its companion page on a real clock, served by a thread's event loop: what the
page's benchmarks (and its browser tests) drive from outside, as a phone and a finger would."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from firmware_host.core import config as configuration
from firmware_host.core.store import Store
from firmware_host.runtime.device import Device
from firmware_host.web.server import Companion


class LiveTable:
    """``Device`` + ``Companion`` on 127.0.0.1 (a free port), served by a thread's event loop;
    ``bind="::"``: on every loopback address, IPv4 and IPv6 (``url`` stays 127.0.0.1)."""

    def __init__(
        self, state: Path, config: configuration.Config | None = None, seed: int = 1, bind: str = "127.0.0.1"
    ) -> None:
        self.state, self.seed, self.bind = state, seed, bind
        self.config = (config or configuration.defaults()).with_sim()
        self.loop = asyncio.new_event_loop()
        self.device: Device | None = None
        self.page: Companion | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="live-table", daemon=True)

    def __enter__(self) -> LiveTable:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the device did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.call(self._stop)
        self._thread.join(30)

    @property
    def url(self) -> str:
        """The page's base URL (no trailing slash)."""
        assert self.page is not None
        return f"http://127.0.0.1:{self.page.port}"

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._main())
        self.loop.close()

    async def _main(self) -> None:
        self.device = Device(self.config, Store(self.state), seed=self.seed)
        task = asyncio.create_task(self.device.run())
        await self.device.ready.wait()
        self.page = Companion(self.device, self.bind, 0)
        await self.page.start()
        self.device.companion = self.page
        from firmware_host.runtime.garbage import settle

        settle()  # as `tablemate run` does once started
        self._ready.set()
        await task

    async def _stop(self) -> None:
        assert self.page is not None and self.device is not None
        await self.page.close()
        self.device.stop()

    def call(self, fn: Callable[[], Awaitable[Any]] | Callable[[], Any]) -> Any:
        """Run ``fn`` on the device's loop (a coroutine function is awaited); its result."""

        async def run() -> Any:
            out = fn()
            return await out if asyncio.iscoroutine(out) else out

        future: Future = asyncio.run_coroutine_threadsafe(run(), self.loop)
        return future.result(60)

    def press(self, button: str, long: bool = False) -> float:
        """Press and release a button as a finger would; the wall time the press ended."""
        assert self.device is not None and self.device.hw is not None
        buttons = self.device.hw.buttons
        buttons.press(button)  # from this thread, as a driver thread does: stamped now, posted to the loop
        time.sleep(1.0 if long else 0.08)
        ended = time.time()
        buttons.release(button)
        time.sleep(0.05)  # the finger lifts before the next press
        return ended
