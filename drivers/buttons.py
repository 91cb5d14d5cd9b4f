"""The ten buttons: one per seat (p1..p6) and prev/next/ok/back.

Each is a gpiozero :class:`~gpiozero.Button` (internal pull-up, pressed pulls the pin low). We do
not use gpiozero's ``bounce_time`` (its mock pins ignore it) nor ``when_held`` (it fires from a
background thread, and a long press would also fire pressed). Instead every edge is stamped with
an injected clock and handed on; :class:`PressDecoder` debounces the edge stream and decides short
or long on release, from those timestamps alone, so tests control time exactly.

Real and simulated panels are the same class: the simulated one runs on gpiozero's
``MockFactory`` pins and is pressed with :meth:`ButtonPanel.press` / :meth:`ButtonPanel.release`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gpiozero import Button
from gpiozero.pins.mock import MockFactory

EdgeHandler = Callable[[str, bool, float], None]
"""Called with (button name, pressed, timestamp) for every edge, from gpiozero's thread."""


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


class ButtonPanel:
    """gpiozero Buttons for the named pins; every edge goes to ``on_edge`` with a timestamp.

    ``pin_factory=None`` uses gpiozero's default (the real pins); pass ``MockFactory()`` (or use
    :meth:`simulated`) for the simulator and tests.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        on_edge: EdgeHandler,
        clock: Callable[[], float],
        pin_factory: object | None = None,
    ) -> None:
        self._on_edge = on_edge
        self._clock = clock
        self.buttons: dict[str, Button] = {}
        try:
            for name, pin in pins.items():
                button = Button(pin, pull_up=True, pin_factory=pin_factory)
                button.when_pressed = self._handler(name, True)
                button.when_released = self._handler(name, False)
                self.buttons[name] = button
        except Exception:
            self.close()
            raise

    @classmethod
    def simulated(cls, pins: Mapping[str, int], on_edge: EdgeHandler, clock: Callable[[], float]) -> ButtonPanel:
        """A panel on gpiozero mock pins, pressed from code."""
        return cls(pins, on_edge, clock, MockFactory())

    def _handler(self, name: str, pressed: bool) -> Callable[[], None]:
        def handler() -> None:
            self._on_edge(name, pressed, self._clock())

        return handler

    def press(self, name: str) -> None:
        """Push a simulated button down (drives its mock pin low)."""
        self.buttons[name].pin.drive_low()

    def release(self, name: str) -> None:
        """Let a simulated button go (drives its mock pin high)."""
        self.buttons[name].pin.drive_high()

    def close(self) -> None:
        """Release the pins; safe to call twice."""
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
