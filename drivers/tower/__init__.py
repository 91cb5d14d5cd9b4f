"""The LED tower light with buzzer: one small interface, three backends side by side.

- :mod:`drivers.tower.usb` — the USB-serial tri-colour tower (pyserial, one byte per command);
- :mod:`drivers.tower.gpio` — LEDs and a buzzer on GPIO pins (gpiozero), with an optional LED bar;
- :mod:`drivers.tower.sim` — records every state, for the simulator's status line and tests.

A backend only shows a :class:`TowerState`. Timed patterns (a beep count, a flash on an
explosion) are sequenced by the runtime's tower service, which sends one state after another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

OFF, ON, BLINK = "off", "on", "blink"
MODES = (OFF, ON, BLINK)
ELEMENTS = ("red", "yellow", "green", "buzzer")
STABLE_PORT = "/dev/tablemate-tower"
"""The USB tower's name by the installer's udev rule (``systemd/60-tablemate.rules``)."""
OLD_PORT = "/dev/ttyUSB0"
"""Where a USB tower shows up without that rule (the first USB-serial port)."""


@dataclass(frozen=True)
class TowerState:
    """What the tower shows: each light and the buzzer ``off``, ``on`` or ``blink``.

    ``bar`` is the remaining fraction of a turn timer (0..1), shown by a GPIO LED bar when one is
    wired, or ``None``.
    """

    red: str = OFF
    yellow: str = OFF
    green: str = OFF
    buzzer: str = OFF
    bar: float | None = None

    def __post_init__(self) -> None:
        for element in ELEMENTS:
            if getattr(self, element) not in MODES:
                raise ValueError(f"{element} must be one of {MODES}, not {getattr(self, element)!r}")

    def with_(self, **changes: object) -> TowerState:
        """A copy with some elements changed."""
        return replace(self, **changes)

    def describe(self) -> str:
        """A short text form: ``R* Y G- B*`` (``*`` blinking, ``-`` off)."""
        marks = {OFF: "-", ON: "", BLINK: "*"}
        return " ".join(e[0].upper() + marks[getattr(self, e)] for e in ELEMENTS)


DARK = TowerState()

StatusHandler = Callable[[str, str | None], None]
"""Called with (``"ok"`` | ``"lost"``, detail) when a backend gains or loses its device."""


class Tower(Protocol):
    """The tower interface every backend implements."""

    def show(self, state: TowerState) -> None:
        """Show ``state`` (returns at once; real I/O happens in the backend's own thread)."""

    def close(self) -> None:
        """Switch everything off and release the device; safe to call twice."""
