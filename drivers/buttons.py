"""The ten buttons: one per seat (p1..p6) and prev/next/ok/back.

Each is a gpiozero :class:`~gpiozero.DigitalInputDevice` (internal pull-up, pressed pulls the pin
low), not a :class:`~gpiozero.Button`: a ``Button`` starts a ``HoldThread`` that wakes every 0.1 s
for ``when_held``, which we never use (a long press would also fire pressed). Every edge is
stamped and handed on; :class:`PressDecoder` debounces the edge stream and decides short or long
on release, from those timestamps alone, so tests control time exactly.

The stamp is the injected clock read when the edge arrives, except on a pin factory that says its
edges carry the kernel's ``CLOCK_MONOTONIC`` time (``monotonic_ticks``, our libgpiod factory in
:mod:`drivers.gpio`): there the kernel's own timestamp is used, and the factory's kernel debounce
(``kernel_debounce``) gets the debounce time too, so contact bounce never wakes the process.

A button whose pin cannot be opened (``EBUSY``: another process holds the line; ``EACCES``: udev
has not yet given the chip its group) is left out and tried again with backoff
(:mod:`drivers.backoff`) while the other buttons work; a pin the configuration gets wrong
(no such pin, two buttons on one) still fails the panel at once.

Real and simulated panels are the same class: the simulated one runs on gpiozero's
``MockFactory`` pins and is pressed with :meth:`ButtonPanel.press` / :meth:`ButtonPanel.release`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice
from gpiozero.pins.mock import MockFactory

from drivers.backoff import Backoff

log = logging.getLogger(__name__)

CallLater = Callable[[float, Callable[[], None]], Any]
"""``loop.call_later``: schedules a retry (its result has ``cancel()``)."""


def retryable(exc: BaseException) -> bool:
    """Whether a pin that failed to open with ``exc`` may open later: the kernel refused the line
    (busy, permission, the chip not there yet), not the configuration named a wrong pin."""
    return isinstance(exc, OSError) or type(exc).__module__ == "lgpio"  # lgpio.error: "GPIO busy"


EdgeHandler = Callable[[str, bool, float], None]
"""Called with (button name, pressed, timestamp) for every edge: from the pin factory's thread, or
on the event loop when the libgpiod factory reads edges there; callers hand it on with
``call_soon_threadsafe`` either way."""


@dataclass(frozen=True)
class Press:
    """A finished press: which button, whether it was long, and when it was released."""

    button: str
    long: bool
    t: float
    duration: float


class PressDecoder:
    """Turns one button's timestamped edges into presses.

    An edge closer than ``debounce`` to the last accepted one is contact bounce and ignored. If a
    bounce hid the real release (the next edge repeats the state we are in), the release is taken
    to have happened at the last ignored edge. A press held ``long_press`` seconds or more is long.
    """

    def __init__(self, button: str, long_press: float = 0.8, debounce: float = 0.03) -> None:
        self.button = button
        self.long_press = long_press
        self.debounce = debounce
        self.pressed_at: float | None = None
        self._last_edge: float | None = None
        self._ignored: float | None = None

    @property
    def is_pressed(self) -> bool:
        """Whether the button is held down now."""
        return self.pressed_at is not None

    def edge(self, pressed: bool, t: float) -> Press | None:
        """Feed one edge; returns the press it completes, if any."""
        if self._last_edge is not None and t - self._last_edge < self.debounce:
            self._ignored = t
            return None
        out = None
        if pressed:
            if self.pressed_at is not None and self._ignored is not None:
                out = self._finish(self._ignored)  # the release we missed in a bounce
            self.pressed_at = t
        elif self.pressed_at is not None:
            out = self._finish(t)
        self._last_edge = t
        self._ignored = None
        return out

    def _finish(self, t: float) -> Press:
        duration = t - self.pressed_at  # type: ignore[operator]
        self.pressed_at = None
        return Press(self.button, duration >= self.long_press, t, duration)


class Switch(DigitalInputDevice):
    """A push button on a pulled-up pin, as a gpiozero input device with no thread of its own.

    ``on_edge(pressed, ticks)`` is called for every change, with the pin factory's ticks of the
    moment it happened (the kernel's timestamp on factories that have one).
    """

    def __init__(
        self,
        pin: int,
        on_edge: Callable[[bool, float], None],
        *,
        bounce_time: float | None = None,
        pin_factory: object | None = None,
    ) -> None:
        self._on_edge: Callable[[bool, float], None] | None = None
        super().__init__(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
        self._on_edge = on_edge

    def _fire_events(self, ticks: float, new_active: bool) -> None:
        changed = self._last_active is not None and self._last_active != new_active
        super()._fire_events(ticks, new_active)
        if changed and self._on_edge is not None:
            self._on_edge(new_active, ticks)


class ButtonPanel:
    """gpiozero input devices for the named pins; every edge goes to ``on_edge`` with a timestamp.

    ``pin_factory=None`` uses gpiozero's default (the real pins); :func:`drivers.gpio.pin_factory`
    picks the best one for the Pi; pass ``MockFactory()`` (or use :meth:`simulated`) for the
    simulator and tests. ``debounce`` goes to the factory's kernel debounce where it has one.

    A button whose pin the kernel refuses is named in :attr:`missing` and, given ``call_later``
    (the event loop's), opened again after ``backoff`` delays until it works.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        on_edge: EdgeHandler,
        clock: Callable[[], float],
        pin_factory: object | None = None,
        debounce: float | None = None,
        call_later: CallLater | None = None,
        backoff: tuple[float, float] = (1.0, 60.0),
    ) -> None:
        self._on_edge = on_edge
        self._clock = clock
        self._pins = dict(pins)
        self._factory = pin_factory
        self._call_later = call_later
        self._kernel_stamps = bool(getattr(pin_factory, "monotonic_ticks", False))
        self._bounce = debounce if getattr(pin_factory, "kernel_debounce", False) else None
        self.buttons: dict[str, Switch] = {}
        self.missing: dict[str, str] = {}
        """Buttons whose pin could not be opened (yet), with the reason."""
        self._backoff = {name: Backoff(*backoff) for name in pins}
        self._retries: dict[str, Any] = {}
        self._closed = False
        try:
            for name in pins:
                self._open(name)
        except Exception:
            self.close()
            raise

    def _open(self, name: str) -> None:
        """Open ``name``'s pin; a refusal the kernel may lift is noted and retried later."""
        pin = self._pins[name]
        try:
            self.buttons[name] = Switch(pin, self._handler(name), bounce_time=self._bounce, pin_factory=self._factory)
        except Exception as exc:
            if not retryable(exc):
                raise
            first = name not in self.missing
            self.missing[name] = str(exc) or type(exc).__name__
            if self._call_later is None:
                log.error("button %s (GPIO %s) unavailable: %s", name, pin, exc)
                return
            delay = self._backoff[name].next()
            if first:
                log.error("button %s (GPIO %s) unavailable: %s (retrying)", name, pin, exc)
            self._retries[name] = self._call_later(delay, lambda: self._retry(name))
            return
        if self.missing.pop(name, None) is not None:
            log.info("button %s (GPIO %s) works again", name, pin)
        self._backoff[name].reset()

    def _retry(self, name: str) -> None:
        self._retries.pop(name, None)
        if self._closed or name in self.buttons:
            return
        try:
            self._open(name)
        except Exception:  # not the kernel's refusal any more: say so and give up on this button
            log.exception("button %s cannot be opened", name)

    @classmethod
    def simulated(cls, pins: Mapping[str, int], on_edge: EdgeHandler, clock: Callable[[], float]) -> ButtonPanel:
        """A panel on gpiozero mock pins, pressed from code."""
        return cls(pins, on_edge, clock, MockFactory())

    def _handler(self, name: str) -> Callable[[bool, float], None]:
        def handler(pressed: bool, ticks: float) -> None:
            self._on_edge(name, pressed, ticks if self._kernel_stamps else self._clock())

        return handler

    def press(self, name: str) -> None:
        """Push a simulated button down (drives its mock pin low)."""
        self.buttons[name].pin.drive_low()

    def release(self, name: str) -> None:
        """Let a simulated button go (drives its mock pin high)."""
        self.buttons[name].pin.drive_high()

    def close(self) -> None:
        """Release the pins and stop retrying; safe to call twice."""
        self._closed = True
        for handle in self._retries.values():
            handle.cancel()
        self._retries.clear()
        # Each button's hold thread polls its stop event every 0.1 s: tell them all first, then
        # close (as gpiozero's own shutdown does), so ten buttons stop in 0.1 s, not 1 s.
        for button in self.buttons.values():
            thread = getattr(button, "_hold_thread", None)
            if thread is not None:
                thread.stopping.set()
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
