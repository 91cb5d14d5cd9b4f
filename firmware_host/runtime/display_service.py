"""The display service: keeps the OLED showing the newest picture, whatever the I2C bus does.

- Only a picture that differs from the last one sent goes out, and never two within
  ``min_interval`` (a full frame takes about 23 ms at 400 kHz).
- Every luma call runs off the loop (``asyncio.to_thread``), as PiKVM's OLED service does.
- An I2C error (``OSError`` errno 121, or luma's ``DeviceNotFoundError``) marks the display
  degraded: the device is dropped and reopened with exponential backoff while the game goes on;
  the newest picture is shown as soon as it is back.
- Contrast is sent only when it changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from PIL import Image

from drivers.display import DisplayErrors

log = logging.getLogger(__name__)

OK, DEGRADED, ABSENT = "ok", "degraded", "absent"


class DisplayService:
    """Shows pictures on a luma device opened by ``opener`` (``None``: no display configured)."""

    def __init__(
        self,
        opener: Callable[[], Any] | None,
        min_interval: float = 0.03,
        backoff: tuple[float, float] = (1.0, 60.0),
    ) -> None:
        self._opener = opener
        self._min_interval = min_interval
        self._backoff = backoff
        self._delay = backoff[0]
        self.device: Any = None
        self.status = ABSENT if opener is None else DEGRADED
        self.error: str | None = None
        self.wanted: Image.Image | None = None
        self.shown: Image.Image | None = None
        self._shown_bytes: bytes | None = None
        self._contrast: int | None = None
        self._wanted_contrast = 255
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._retry_at = 0.0
        self.frames_sent = 0

    # -- what callers use -----------------------------------------------------------------------
    def show(self, image: Image.Image) -> None:
        """Make ``image`` the picture to show (sent soon, if it differs)."""
        self.wanted = image
        self._poke()

    def set_contrast(self, level: int) -> None:
        """Panel brightness 0..255 (sent only when it changes)."""
        self._wanted_contrast = max(0, min(255, int(level)))
        self._poke()

    async def flush(self) -> None:
        """Wait until everything asked for is on the panel (or the panel is unreachable)."""
        while self._pending() and self.status != ABSENT:
            if self.status == DEGRADED and asyncio.get_running_loop().time() < self._retry_at:
                return
            self._idle.clear()
            self._poke()
            await self._idle.wait()

    # -- the service --------------------------------------------------------------------------------
    def _poke(self) -> None:
        self._wake.set()

    def _pending(self) -> bool:
        if self.wanted is None:
            return False
        return self._shown_bytes != self.wanted.tobytes() or self._contrast != self._wanted_contrast

    async def run(self) -> None:
        """Serve until cancelled: open (and reopen) the panel, send what changed."""
        if self._opener is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.device is None or self._pending():
                if self.device is None:
                    delay = self._retry_at - loop.time()
                    if delay > 0:
                        self._idle.set()
                        await asyncio.sleep(delay)
                    await self._open()
                    continue
                await self._send()
                await asyncio.sleep(self._min_interval)
            self._idle.set()

    async def _open(self) -> None:
        try:
            self.device = await asyncio.to_thread(self._opener)
        except DisplayErrors as exc:
            self._fail(exc)
            return
        self._contrast = None
        self._shown_bytes = None
        if self.status != OK:
            log.info("display ready")
        self.status, self.error = OK, None
        self._delay = self._backoff[0]

    async def _send(self) -> None:
        image = self.wanted
        assert image is not None
        try:
            if self._contrast != self._wanted_contrast:
                level = self._wanted_contrast
                await asyncio.to_thread(self.device.contrast, level)
                self._contrast = level
            data = image.tobytes()
            if data != self._shown_bytes:
                mode = getattr(self.device, "mode", image.mode)
                await asyncio.to_thread(self.device.display, image if image.mode == mode else image.convert(mode))
                self._shown_bytes = data
                self.shown = image
                self.frames_sent += 1
        except DisplayErrors as exc:
            self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        loop = asyncio.get_running_loop()
        if self.status != DEGRADED or self.error is None:
            log.warning("display degraded: %s (retrying)", exc)
        self.status, self.error = DEGRADED, str(exc) or type(exc).__name__
        self.device = None
        self._retry_at = loop.time() + self._delay
        self._delay = min(self._delay * 2, self._backoff[1])
