"""The time a paired phone gave the table, for a table whose clock never synced.

A Raspberry Pi has no real-time clock and an offline table never syncs (see
:mod:`firmware_host.core.wallclock`), but a phone that opens the page knows the time. The page
sends it (``POST /api/clock``, from a paired phone only); the device keeps it as an offset to its
own monotonic clock, never setting the system clock (it has no right to, and needs none), and
dates the games of this boot with it, marked ``"date_source": "phone"`` in the history.
"""

from __future__ import annotations

from firmware_host.core.wallclock import EARLIEST

LATEST = 4_102_444_800.0
"""2100-01-01 UTC: a phone's time past this is not believed."""


class PhoneClock:
    """The wall time as a phone gave it, kept as an offset to a monotonic clock."""

    def __init__(self) -> None:
        self._offset: float | None = None

    def set(self, epoch: float, mono: float) -> bool:
        """Take a phone's time ``epoch`` (seconds since 1970, UTC) given at monotonic ``mono``;
        ``False`` (and nothing kept) when it is not a believable date."""
        if not EARLIEST <= epoch < LATEST:
            return False
        self._offset = epoch - mono
        return True

    def now(self, mono: float) -> float | None:
        """The wall time at monotonic ``mono`` by the phone's clock, or ``None`` when no phone gave it."""
        return None if self._offset is None else mono + self._offset
