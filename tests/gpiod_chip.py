"""A stand-in for ``gpiod.Chip`` (libgpiod v2) with lines the test drives, for machines without a
GPIO chip (no ``/dev/gpiochip*``, no gpio-sim module here).

It follows the gpiod v2 Python API our factory uses, and nothing more: ``Chip.request_lines``
with ``{offset: gpiod.LineSettings}`` returns a request with ``fd``, ``get_value``,
``set_value``, ``reconfigure_lines``, ``wait_edge_events``, ``read_edge_events`` (real
``gpiod.EdgeEvent`` objects) and ``release``. The settings, enums and events are the real
package's. ``drive(offset, high, t)`` changes an input's level as a wire would; the request's
descriptor turns readable when an edge its settings detect is queued, as the kernel's does.
Debounce is recorded, not simulated.

The chip keeps a log of what the kernel was asked (:attr:`StandInChip.log`: every request and
reconfiguration with the settings it carried), and can refuse a line as the kernel does
(:attr:`StandInChip.refuse`: ``EBUSY`` for a line another process holds, ``EACCES`` before udev
has given the chip its group).
"""

from __future__ import annotations

import os
import select
from typing import Any

import gpiod
from gpiod.line import Bias, Direction, Edge, Value


class StandInRequest:
    """One line request."""

    def __init__(self, chip: StandInChip, config: dict[int, gpiod.LineSettings]) -> None:
        self.chip = chip
        self.settings = {offset: _copy(s) for offset, s in config.items()}
        self._r, self._w = os.pipe()
        self.events: list[gpiod.EdgeEvent] = []
        self.released = False

    @property
    def fd(self) -> int:
        """The descriptor that is readable while edge events are queued."""
        return self._r

    @property
    def offsets(self) -> list[int]:
        """The requested lines."""
        return list(self.settings)

    def get_value(self, offset: int) -> Value:
        """The line's level (an output reads back what was set)."""
        return Value.ACTIVE if self.chip.level(offset) else Value.INACTIVE

    def set_value(self, offset: int, value: Value) -> None:
        """Drive an output line."""
        assert self.settings[offset].direction == Direction.OUTPUT, "set_value on an input"
        self.chip.levels[offset] = value == Value.ACTIVE

    def reconfigure_lines(self, config: dict[int, gpiod.LineSettings]) -> None:
        """New settings for requested lines."""
        for offset, settings in config.items():
            assert offset in self.settings
            self.settings[offset] = _copy(settings)
            self.chip.log.append(("reconfigure", offset, _copy(settings)))
            if settings.direction == Direction.OUTPUT:
                self.chip.levels[offset] = settings.output_value == Value.ACTIVE

    def wait_edge_events(self, timeout: float | None = None) -> bool:
        """Whether edge events are queued, waiting up to ``timeout`` seconds (poll on the fd)."""
        return bool(select.select([self._r], [], [], timeout)[0])

    def read_edge_events(self, max_events: int | None = None) -> list[gpiod.EdgeEvent]:
        """The queued edges (blocks in the kernel when none is queued; the factory reads only
        when the descriptor is readable)."""
        n = len(self.events) if max_events is None else min(max_events, len(self.events))
        os.read(self._r, n)
        out, self.events = self.events[:n], self.events[n:]
        return out

    def edge(self, offset: int, rising: bool, t_ns: int) -> None:
        detect = self.settings[offset].edge_detection
        if detect == Edge.BOTH or detect == (Edge.RISING if rising else Edge.FALLING):
            kind = gpiod.EdgeEvent.Type.RISING_EDGE if rising else gpiod.EdgeEvent.Type.FALLING_EDGE
            self.chip.seqno += 1
            self.events.append(gpiod.EdgeEvent(kind.value, t_ns, offset, self.chip.seqno, self.chip.seqno))
            os.write(self._w, b"e")

    def release(self) -> None:
        """Give the line back."""
        if not self.released:
            self.released = True
            os.close(self._r)
            os.close(self._w)
            for offset in self.settings:
                self.chip.requests.pop(offset, None)


def _copy(s: gpiod.LineSettings) -> gpiod.LineSettings:
    return gpiod.LineSettings(
        direction=s.direction,
        edge_detection=s.edge_detection,
        bias=s.bias,
        drive=s.drive,
        active_low=s.active_low,
        debounce_period=s.debounce_period,
        event_clock=s.event_clock,
        output_value=s.output_value,
    )


class StandInChip:
    """A GPIO chip whose input lines the test drives."""

    def __init__(self, label: str = "pinctrl-bcm2711", num_lines: int = 58) -> None:
        self.requests: dict[int, StandInRequest] = {}
        self.levels: dict[int, bool] = {}
        self.log: list[tuple[str, int, gpiod.LineSettings]] = []
        """``("request" | "reconfigure", offset, settings)`` in the order the kernel was asked."""
        self.refuse: dict[int, int] = {}
        """Lines whose request fails with this errno (until the test removes them)."""
        self.seqno = 0
        self.closed = False
        self.info = gpiod.ChipInfo("gpiochip0", label, num_lines)

    def get_info(self) -> gpiod.ChipInfo:
        """The chip's name, label and number of lines (the real package's ``ChipInfo``)."""
        return self.info

    def __enter__(self) -> StandInChip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request_lines(self, config: dict[Any, gpiod.LineSettings | None], consumer: str | None = None, **_: Any):
        """Request lines, as ``gpiod.Chip.request_lines`` (busy lines refused with ``OSError``)."""
        config = {offset: settings or gpiod.LineSettings() for offset, settings in config.items()}
        for offset in config:
            if offset in self.refuse:
                raise OSError(self.refuse[offset], os.strerror(self.refuse[offset]))
            if offset in self.requests:
                raise OSError(16, "Device or resource busy")
        request = StandInRequest(self, config)
        for offset, settings in config.items():
            self.log.append(("request", offset, _copy(settings)))
            self.requests[offset] = request
            if settings.direction == Direction.OUTPUT:  # the kernel drives an output at once
                self.levels[offset] = settings.output_value == Value.ACTIVE
        return request

    def asked(self, offset: int) -> list[tuple[str, gpiod.LineSettings]]:
        """What the kernel was asked for line ``offset``, in order."""
        return [(what, settings) for what, o, settings in self.log if o == offset]

    def level(self, offset: int) -> bool:
        """What the line reads: driven level, else its pull."""
        if offset in self.levels:
            return self.levels[offset]
        request = self.requests.get(offset)
        return request is not None and request.settings[offset].bias == Bias.PULL_UP

    def drive(self, offset: int, high: bool, t: float) -> None:
        """The wire pulls the line ``high`` or low at monotonic time ``t`` (seconds)."""
        old = self.level(offset)
        self.levels[offset] = high
        request = self.requests.get(offset)
        if request is not None and old != high:
            request.edge(offset, high, round(t * 1e9))

    def close(self) -> None:
        """Close the chip."""
        self.closed = True
