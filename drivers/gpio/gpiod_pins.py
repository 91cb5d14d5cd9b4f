"""A gpiozero pin factory on libgpiod v2 (the ``gpiod`` package): kernel debounce, kernel time
stamps, and edges read from the line request's file descriptor — nothing polls.

gpiozero's lgpio back end watches pins from a thread that wakes every half millisecond (lg
issue 26; gpiozero issue 840 and PRs 1165/1185 ask for a libgpiod factory for this reason).
Here each pin is one libgpiod line request on the Pi's GPIO chip (line offset = BCM number):

- edge detection, bias (pull) and the debounce period are the request's line settings, changed
  with ``reconfigure_lines``; the kernel debounces (``debounce_period``), so contact bounce never
  wakes the process, and stamps each edge on ``CLOCK_MONOTONIC`` (``event_clock``), the clock of
  ``time.monotonic`` and of the asyncio loop — so :attr:`GpiodFactory.ticks` are comparable with
  ``loop.time()`` (``monotonic_ticks``);
- a request with edge detection has a file descriptor that becomes readable when edges are
  queued; :class:`LoopWatcher` reads it on the asyncio loop (``loop.add_reader``: no thread at
  all), :class:`ThreadWatcher` from one thread blocked in ``select`` on every pin's descriptor;
- no PWM (libgpiod has none): gpiozero's ``LED.blink`` toggles the pin from its own thread,
  which works; ``PWMLED`` does not.

Not run on a Raspberry Pi here (no GPIO chip in the development machine): the tests drive this
factory through a stand-in for ``gpiod.Chip`` that follows the gpiod v2 API (``tests/gpiod_chip.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
import selectors
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import gpiod
from gpiod.line import Bias, Clock, Direction, Edge, Value
from gpiozero.exc import (
    PinFixedPull,
    PinInvalidBounce,
    PinInvalidEdges,
    PinInvalidFunction,
    PinInvalidPull,
    PinPWMUnsupported,
    PinSetInput,
)
from gpiozero.pins.local import LocalPiFactory, LocalPiPin

log = logging.getLogger(__name__)

PI_CHIP_LABELS = ("pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-bcm2712", "pinctrl-rp1")
"""Labels of the chip whose lines are the header's BCM GPIOs (Pi 1–3 and Zero, 4, 5)."""
CONSUMER = "tablemate"

PULLS = {"up": Bias.PULL_UP, "down": Bias.PULL_DOWN, "floating": Bias.DISABLED}
EDGES = {"both": Edge.BOTH, "rising": Edge.RISING, "falling": Edge.FALLING, "none": Edge.NONE}


def find_chip() -> str:
    """The path of the GPIO chip that carries the Pi's header pins (``/dev/gpiochip0`` if none
    has a known label)."""
    for path in sorted(glob.glob("/dev/gpiochip*")):
        try:
            with gpiod.Chip(path) as chip:
                if chip.get_info().label in PI_CHIP_LABELS:
                    return path
        except OSError:
            continue
    return "/dev/gpiochip0"


class LoopWatcher:
    """Edge descriptors read on an asyncio loop (callbacks run on the loop's thread)."""

    def __init__(self, loop: Any) -> None:
        self.loop = loop

    def _on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            fn(*args)  # at once: a released request's descriptor number may be reused soon
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def watch(self, fd: int, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever ``fd`` is readable."""
        self._on_loop(self.loop.add_reader, fd, callback)

    def unwatch(self, fd: int) -> None:
        """Stop watching ``fd``."""
        self._on_loop(self.loop.remove_reader, fd)

    def close(self) -> None:
        """Nothing of its own to release."""


class ThreadWatcher:
    """Edge descriptors read by one thread blocked in ``select`` (callbacks run on it)."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._changes: list[tuple[int, Callable[[], None] | None]] = []
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="gpiod-edges", daemon=True)
        self._thread.start()

    def _change(self, fd: int, callback: Callable[[], None] | None) -> None:
        with self._lock:
            self._changes.append((fd, callback))
        os.write(self._wake_w, b"x")

    def watch(self, fd: int, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on the watcher thread) whenever ``fd`` is readable."""
        self._change(fd, callback)

    def unwatch(self, fd: int) -> None:
        """Stop watching ``fd``."""
        self._change(fd, None)

    def _run(self) -> None:
        while not self._closed:
            for key, _ in self._selector.select():
                if key.data is None:
                    os.read(self._wake_r, 512)
                    self._apply()
                else:
                    try:
                        key.data()
                    except Exception:  # one pin's handler must not stop every pin's edges
                        log.exception("gpiod edge handler failed")

    def _apply(self) -> None:
        with self._lock:
            changes, self._changes = self._changes, []
        for fd, callback in changes:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(fd)
            if callback is not None:
                self._selector.register(fd, selectors.EVENT_READ, callback)

    def close(self) -> None:
        """Stop the thread."""
        if self._closed:
            return
        self._closed = True
        os.write(self._wake_w, b"x")
        self._thread.join(2.0)
        self._selector.close()
        os.close(self._wake_r)
        os.close(self._wake_w)


class GpiodFactory(LocalPiFactory):
    """gpiozero pins on libgpiod v2. ``chip``: a path or a ``gpiod.Chip``-like object (default:
    the Pi's header chip); ``loop``: read edges on this asyncio loop, else on one thread;
    ``revision``: the Pi's board revision (default: read from the device tree)."""

    monotonic_ticks = True
    """Edge ticks are the kernel's ``CLOCK_MONOTONIC`` time stamps, in seconds."""
    kernel_debounce = True
    """A pin's ``bounce`` is the kernel's debounce period: bounces are never delivered."""

    def __init__(self, chip: Any = None, loop: Any = None, revision: int | None = None) -> None:
        super().__init__()
        self._revision = revision
        self._chip = gpiod.Chip(chip or find_chip()) if chip is None or isinstance(chip, str) else chip
        self.watcher: LoopWatcher | ThreadWatcher = LoopWatcher(loop) if loop is not None else ThreadWatcher()
        self.pin_class = GpiodPin

    @property
    def chip(self) -> Any:
        """The ``gpiod.Chip`` the pins are requested on."""
        return self._chip

    def _get_revision(self) -> int:
        return self._revision if self._revision is not None else super()._get_revision()

    def close(self) -> None:
        """Release every pin, stop watching, close the chip."""
        super().close()
        self.watcher.close()
        with contextlib.suppress(Exception):
            self._chip.close()


class GpiodPin(LocalPiPin):
    """One header pin as one libgpiod line request."""

    def __init__(self, factory: GpiodFactory, info: Any) -> None:
        super().__init__(factory, info)
        self._offset = self._number
        self._settings = gpiod.LineSettings(direction=Direction.INPUT, bias=Bias.DISABLED, event_clock=Clock.MONOTONIC)
        self._edges = Edge.BOTH
        self._watching = False
        self._request = factory.chip.request_lines({self._offset: self._settings}, consumer=CONSUMER)

    def close(self) -> None:
        """Release the line."""
        if self._request is None:
            return
        self._unwatch()
        self._request.release()
        self._request = None

    def _apply(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self._settings, key, value)
        self._request.reconfigure_lines({self._offset: self._settings})

    def _get_function(self) -> str:
        return "output" if self._settings.direction == Direction.OUTPUT else "input"

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise PinInvalidFunction(f'invalid function "{value}" for pin {self!r}')
        if value == "output":
            self._unwatch()
            self._apply(direction=Direction.OUTPUT, edge_detection=Edge.NONE, output_value=Value.INACTIVE)
        else:
            self._apply(direction=Direction.INPUT)

    def _get_state(self) -> bool:
        return self._request.get_value(self._offset) == Value.ACTIVE

    def _set_state(self, value: float) -> None:
        if self._get_function() == "input":
            raise PinSetInput(f"cannot set state of pin {self!r}")
        self._request.set_value(self._offset, Value.ACTIVE if value else Value.INACTIVE)

    def _get_pull(self) -> str:
        return {Bias.PULL_UP: "up", Bias.PULL_DOWN: "down"}.get(self._settings.bias, "floating")

    def _set_pull(self, value: str) -> None:
        if self._get_function() != "input":
            raise PinFixedPull(f"cannot set pull on non-input pin {self!r}")
        if self.info.pull not in (value, ""):
            raise PinFixedPull(f"{self!r} has a physical pull-{self.info.pull} resistor")
        if value not in PULLS:
            raise PinInvalidPull(f'invalid pull "{value}" for pin {self!r}')
        self._apply(bias=PULLS[value])

    def _get_frequency(self) -> None:
        return None

    def _set_frequency(self, value: float | None) -> None:
        if value is not None:
            raise PinPWMUnsupported(f"libgpiod has no PWM (pin {self!r})")

    def _get_bounce(self) -> float | None:
        seconds = self._settings.debounce_period.total_seconds()
        return seconds or None

    def _set_bounce(self, value: float | None) -> None:
        if value is not None and value < 0:
            raise PinInvalidBounce("bounce must be 0 or greater")
        self._apply(debounce_period=timedelta(seconds=value or 0))

    def _get_edges(self) -> str:
        return next(name for name, edge in EDGES.items() if edge == self._edges)

    def _set_edges(self, value: str) -> None:
        if value not in EDGES:
            raise PinInvalidEdges(f'invalid edges "{value}" for pin {self!r}')
        self._edges = EDGES[value]
        if self._watching:
            self._apply(edge_detection=self._edges)

    def _enable_event_detect(self) -> None:
        self._apply(edge_detection=self._edges)
        self._watching = True
        self.factory.watcher.watch(self._request.fd, self._read_edges)

    def _disable_event_detect(self) -> None:
        self._unwatch()
        if self._request is not None:
            self._apply(edge_detection=Edge.NONE)

    def _unwatch(self) -> None:
        if self._watching:
            self._watching = False
            self.factory.watcher.unwatch(self._request.fd)

    def _read_edges(self) -> None:
        """The request's descriptor is readable: hand each queued edge to gpiozero."""
        request = self._request
        if request is None:
            return
        for event in request.read_edge_events():
            rising = event.event_type == event.Type.RISING_EDGE
            self._call_when_changed(event.timestamp_ns / 1e9, rising)
