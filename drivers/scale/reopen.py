"""A scale whose chip is opened again, with backoff, while it cannot be opened.

At boot the HX711's lines may be busy (another process still holds them) or refused (udev has not
yet given ``/dev/gpiochip*`` its group). :class:`ReopeningScale` is the runtime's scale from the
start: it tries ``opener`` at once and, while that fails, again after :class:`drivers.backoff.Backoff`
delays on the event loop's ``call_later``, with the rest of the device working meanwhile. While
someone wants readings and the chip is not open, the fault line says why; once it opens, a
started scale starts it and its samples clear the fault.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from drivers.backoff import Backoff
from drivers.scale import FaultHandler, SampleHandler, Scale

log = logging.getLogger(__name__)


class ReopeningScale:
    """The :class:`drivers.scale.Scale` of a chip ``opener`` opens, retried until it does."""

    def __init__(
        self,
        opener: Callable[[], Scale],
        sps: int,
        call_later: Callable[[float, Callable[[], None]], Any],
        backoff: tuple[float, float] = (1.0, 60.0),
    ) -> None:
        self.sps = sps
        self.scale: Scale | None = None
        """The open chip's scale (``None`` while it cannot be opened)."""
        self.error: str | None = None
        """Why the last attempt failed."""
        self._opener = opener
        self._call_later = call_later
        self._backoff = Backoff(*backoff)
        self._callbacks: tuple[SampleHandler, FaultHandler] | None = None
        self._handle: Any = None
        self._closed = False
        self._try()

    def _try(self) -> None:
        self._handle = None
        if self._closed:
            return
        try:
            scale = self._opener()
        except Exception as exc:  # lines busy, chip refused… tried again after the backoff
            first = self.error is None
            self.error = str(exc) or type(exc).__name__
            if first:
                log.error("scale unavailable: %s (retrying)", self.error)
            self._handle = self._call_later(self._backoff.next(), self._try)
            if self._callbacks is not None:
                self._callbacks[1](f"not open: {self.error}")
            return
        if self.error is not None:
            log.info("scale opened")
        self.scale, self.error = scale, None
        self._backoff.reset()
        if self._callbacks is not None:
            scale.start(*self._callbacks)
        else:
            scale.stop()  # powered down until someone wants readings

    def start(self, on_sample: SampleHandler, on_fault: FaultHandler) -> None:
        """Deliver samples (from the moment the chip is open; until then ``on_fault`` says why)."""
        self._callbacks = (on_sample, on_fault)
        if self.scale is not None:
            self.scale.start(on_sample, on_fault)
        elif self.error is not None:
            on_fault(f"not open: {self.error}")

    def stop(self) -> None:
        """Stop delivering samples (the chip, if open, powers down)."""
        self._callbacks = None
        if self.scale is not None:
            self.scale.stop()

    def close(self) -> None:
        """Stop retrying and release the chip; safe to call twice."""
        self._closed = True
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self.scale is not None:
            self.scale.close()
