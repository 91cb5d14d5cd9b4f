"""The display service: keeps the OLED showing the newest picture, whatever the I2C bus does.

- Only a picture that differs from the last one sent goes out, and never two within
  ``min_interval`` (a full frame takes about 23 ms at 400 kHz).
- The bus I/O runs off the loop, on one long-lived panel writer thread (:class:`PanelWriter`)
  that blocks on a queue while nothing is sent; the loop hands it only bus bytes. A driver with
  ``prepare()``/``send()`` (:mod:`drivers.oled`) packs the picture and works out the changed
  window on the loop (a fraction of a millisecond, no I/O); the writer only sends it (~6 ms for a
  menu step at 400 kHz). Any other luma device (the simulator's ``dummy``) is handed whole.
- One frame is in flight at a time; while it is, newer pictures replace each other and only the
  newest goes next.
- An I2C error (``OSError`` errno 121, or luma's ``DeviceNotFoundError``) marks the display
  degraded: the device is dropped and reopened with exponential backoff while the game goes on;
  the newest picture is shown as soon as it is back.
- Contrast is sent only when it changes.
- The panel is re-initialised every ``reinit_every`` seconds (five minutes) and when the device
  wakes from dim (:meth:`DisplayService.reinit`): its set-up again, the contrast and a whole
  picture (:mod:`drivers.panel_setup`), so a panel that a brown-out or a static discharge reset
  without an I2C error — dark, its memory lost, every write still acknowledged — comes back.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PIL import Image

from drivers import panel_setup
from drivers.backoff import Backoff
from drivers.display import DisplayErrors
from firmware_host.runtime.vtime import inline_io

log = logging.getLogger(__name__)

OK, DEGRADED, ABSENT = "ok", "degraded", "absent"
REINIT_EVERY = 300.0
"""Seconds between two re-initialisations of a panel that is working."""

T = TypeVar("T")


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class PanelWriter:
    """Runs the panel's bus I/O in order on one thread of its own, started with the first job.

    The thread blocks on a queue while there is nothing to send (no wake-ups); each job's result
    or error comes back to the loop as a future. On a loop that runs blocking work inline
    (virtual time: ``inline_io``) a job runs at once on the loop's thread instead."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._inline = inline_io(loop)
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], asyncio.Future] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """Queue ``job`` behind the others; the future is done when it has run."""
        future: asyncio.Future[T] = self._loop.create_future()
        if self._inline:
            try:
                future.set_result(job())
            except Exception as exc:  # handed to the awaiting coroutine, as the thread would
                future.set_exception(exc)
            return future
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="display", daemon=True)
            self._thread.start()
        self._jobs.put((job, future))
        return future

    def _serve(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, future = item
            result, error = None, None
            try:
                result = job()
            except Exception as exc:
                error = exc
            try:
                self._loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                return

    def close(self) -> None:
        """End the thread once the jobs given so far have run (a hung bus keeps it, not us)."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None


class DisplayService:
    """Shows pictures on a luma device opened by ``opener`` (``None``: no display configured)."""

    def __init__(
        self,
        opener: Callable[[], Any] | None,
        min_interval: float = 0.03,
        backoff: tuple[float, float] = (1.0, 60.0),
        reinit_every: float = REINIT_EVERY,
    ) -> None:
        self._opener = opener
        self._min_interval = min_interval
        self._backoff = Backoff(*backoff)
        self._reinit_every = reinit_every
        self._reinit_due = False
        self._reinit_timer: asyncio.TimerHandle | None = None
        self.reinits = 0
        """Re-initialisations sent (the periodic ones and those on waking)."""
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
        self._writer: PanelWriter | None = None
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

    def reinit(self) -> None:
        """Send the panel's set-up again soon, then the picture whole (waking from dim)."""
        if self._opener is not None:
            self._reinit_due = True
            self._poke()

    async def flush(self) -> None:
        """Wait until everything asked for is on the panel (or the panel is unreachable)."""
        while (self._pending() or self._reinit_due) and self.status != ABSENT:
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
        self._writer = PanelWriter(loop)
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self.device is None or self._pending() or self._reinit_due:
                    if self.device is None:
                        delay = self._retry_at - loop.time()
                        if delay > 0:
                            self._idle.set()
                            await asyncio.sleep(delay)
                        await self._open()
                        continue
                    if self._reinit_due:
                        await self._reinit()
                        continue
                    await self._send()
                    await asyncio.sleep(self._min_interval)
                self._idle.set()
        finally:
            if self._reinit_timer is not None:
                self._reinit_timer.cancel()
            self._writer.close()

    def _schedule_reinit(self) -> None:
        """The next periodic re-initialisation, ``reinit_every`` from now."""
        if self._reinit_timer is not None:
            self._reinit_timer.cancel()
        self._reinit_due = False
        self._reinit_timer = asyncio.get_running_loop().call_later(self._reinit_every, self.reinit)

    async def _reinit(self) -> None:
        device, writer = self.device, self._writer
        assert writer is not None
        try:
            await writer.run(lambda: panel_setup.reinit(device))
        except DisplayErrors as exc:
            self._fail(exc)
            return
        self.reinits += 1
        self._contrast = None  # the set-up held luma's default contrast: ours goes next,
        self._shown_bytes = None  # and the picture whole (the panel's memory may be lost)
        self._schedule_reinit()

    async def _open(self) -> None:
        assert self._writer is not None and self._opener is not None
        try:
            self.device = await self._writer.run(self._opener)
        except DisplayErrors as exc:
            self._fail(exc)
            return
        self._contrast = None
        self._shown_bytes = None
        if self.status != OK:
            log.info("display ready")
        self.status, self.error = OK, None
        self._backoff.reset()
        self._schedule_reinit()  # a fresh driver has just set the panel up

    async def _send(self) -> None:
        image, device, writer = self.wanted, self.device, self._writer
        assert image is not None and writer is not None
        level = self._wanted_contrast if self._contrast != self._wanted_contrast else None
        data = image.tobytes()
        picture = data != self._shown_bytes
        show: Callable[[], None] | None = None
        if picture:
            mode = getattr(device, "mode", image.mode)  # a greyscale or colour panel takes its own mode
            prepare = getattr(device, "prepare", None)
            if prepare is None:  # luma's whole display() on the writer
                show = lambda: device.display(image if image.mode == mode else image.convert(mode))  # noqa: E731
            else:
                update = prepare(image if image.mode == mode else image.convert(mode))  # on the loop: no I/O
                show = lambda: device.send(update)  # noqa: E731

        def write() -> None:
            if level is not None:
                device.contrast(level)
            if show is not None:
                show()

        try:
            await writer.run(write)
        except DisplayErrors as exc:
            self._fail(exc)
            return
        if level is not None:
            self._contrast = level
        if picture:
            self._shown_bytes = data
            self.shown = image
            self.frames_sent += 1

    def _fail(self, exc: BaseException) -> None:
        loop = asyncio.get_running_loop()
        if self.status != DEGRADED or self.error is None:
            log.warning("display degraded: %s (retrying)", exc)
        self.status, self.error = DEGRADED, str(exc) or type(exc).__name__
        self.device = None
        self._reinit_due = False  # a reopen sets the panel up anyway
        self._retry_at = loop.time() + self._backoff.next()
