"""How long to wait before trying a part again: the first delay, doubled after every failure up to
a limit, back to the first after a success. The display, each button, the scale and the USB tower
reopen on it.

Only numbers: whoever retries schedules the attempt on its own clock (the event loop's
``call_later``, a thread's wait), so tests drive it with fake time.
"""

from __future__ import annotations


class Backoff:
    """Delays between attempts: ``first``, doubled after each failure, never over ``limit``."""

    def __init__(self, first: float = 1.0, limit: float = 60.0) -> None:
        if not 0 < first <= limit:
            raise ValueError("backoff needs 0 < first <= limit")
        self.first, self.limit = first, limit
        self._delay = first

    def next(self) -> float:
        """The delay before the next attempt (after a failure); the one after it is doubled."""
        delay = self._delay
        self._delay = min(delay * 2, self.limit)
        return delay

    def reset(self) -> None:
        """The part works again: the next failure waits ``first`` again."""
        self._delay = self.first
