"""A gpiozero pin factory on libgpiod v2 (the ``gpiod`` package): kernel debounce, kernel time
stamps, and edges read from the line request's file descriptor — nothing polls.

gpiozero's lgpio back end watches pins from a thread that wakes every half millisecond (lg
issue 26; gpiozero issue 840 and PRs 1165/1185 ask for a libgpiod factory for this reason).
Here each pin is one libgpiod line request on the Pi's GPIO chip (line offset = BCM number):

- **one request per line, with its final settings.** gpiozero configures a pin one attribute at
  a time (an input device sets ``function``, ``pull``, ``bounce``, ``edges``, then
  ``when_changed``; an output device calls ``output_with_state``). Requesting the line at the
  first of these and reconfiguring it at each later one would leave a button unpulled and an
  output floating for a moment (a buzzer chirps), and would add edge detection to a line that
  already has a debounce period: on kernels before 6.1.91 and 6.6.31 that reconfiguration leaves
  the request's event kfifo unallocated and edges are read from uninitialised memory
  (CVE-2024-36898, "gpiolib: cdev: fix uninitialised kfifo"). So a pin only records settings
  until the line is needed — edge detection switched on (the last step of an input device), an
  output's first level, the first read — and requests it then, once, with direction, bias,
  edges, debounce and output level together. A later change is a reconfiguration, except one
  that adds edge detection to a debounced line, which requests the line afresh;
- the kernel debounces (``debounce_period``), so contact bounce never wakes the process, and
  stamps each edge on ``CLOCK_MONOTONIC`` (``event_clock``), the clock of ``time.monotonic`` and
  of the asyncio loop — so :attr:`GpiodFactory.ticks` are comparable with ``loop.time()``
  (``monotonic_ticks``);
- a request with edge detection has a file descriptor that becomes readable when edges are
  queued; :class:`LoopWatcher` reads it on the asyncio loop (``loop.add_reader``: no thread at
  all), :class:`ThreadWatcher` from one thread blocked in ``select`` on every pin's descriptor;
- the chip is opened when first needed, and again at the next request after a failure: a
  ``/dev/gpiochip*`` that udev has not yet given the ``gpio`` group (EACCES) makes each pin's
  request fail, and the pins' owners retry them (:mod:`drivers.buttons`), instead of the whole
  factory being unusable;
- no PWM (libgpiod has none): gpiozero's ``LED.blink`` toggles the pin from its own thread,
  which works; ``PWMLED`` does not.

Not run on a Raspberry Pi here (no GPIO chip in the development machine): the tests drive this
factory through a stand-in for ``gpiod.Chip`` that follows the gpiod v2 API (``tests/gpiod_chip.py``)
and records every request and reconfiguration.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
import selectors
import threading
from collections.abc import Callable, Iterable
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

PI_CHIP_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
"""Labels of the chip whose lines are the header's BCM GPIOs, best first: the Pi 5's RP1, the Pi
4's SoC, the Pi 1-3 and Zero's SoC. The Pi 5's own SoC chips (``pinctrl-bcm2712``, ``gpio-brcmstb``)
are not the header, and early Pi 5 images list one as ``gpiochip0``, before RP1's ``gpiochip4``."""
CONSUMER = "tablemate"

PULLS = {"up": Bias.PULL_UP, "down": Bias.PULL_DOWN, "floating": Bias.DISABLED}
EDGES = {"both": Edge.BOTH, "rising": Edge.RISING, "falling": Edge.FALLING, "none": Edge.NONE}


def header_chip(paths: Iterable[str] | None = None, open_chip: Callable[[str], Any] = gpiod.Chip) -> str | None:
    """The path of the GPIO chip that carries the Pi's header pins, or ``None`` when no chip has
    a known label. Of several, the best label wins, then the most lines (``paths``: default every
    ``/dev/gpiochip*``). A chip that cannot be opened is passed over."""
    found = []
    for path in sorted(glob.glob("/dev/gpiochip*") if paths is None else paths):
        try:
            with open_chip(path) as chip:
                info = chip.get_info()
        except OSError:
            continue
        if info.label in PI_CHIP_LABELS:
            found.append((PI_CHIP_LABELS.index(info.label), -info.num_lines, path))
    return min(found)[2] if found else None


def _value(high: float) -> Value:
    return Value.ACTIVE if high else Value.INACTIVE


def find_chip() -> str:
    """The header's GPIO chip (:func:`header_chip`), else ``/dev/gpiochip0``."""
    return header_chip() or "/dev/gpiochip0"


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
                # a line released before its watch() got here: its unwatch() follows in the queue
                with contextlib.suppress(OSError, ValueError):
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
        self._path: str | None = chip if isinstance(chip, str) else None
        self._chip: Any = None if chip is None or isinstance(chip, str) else chip
        if self._chip is None:
            try:
                self._open_chip()
            except OSError as exc:  # EACCES before udev set the group: each request tries again
                log.warning("GPIO chip not open yet (%s): pins will try again", exc)
        self.watcher: LoopWatcher | ThreadWatcher = LoopWatcher(loop) if loop is not None else ThreadWatcher()
        self.pin_class = GpiodPin

    def _open_chip(self) -> Any:
        if self._chip is None:
            self._chip = gpiod.Chip(self._path or find_chip())
        return self._chip

    @property
    def chip(self) -> Any:
        """The ``gpiod.Chip`` the pins are requested on, opened now if it could not be before
        (raises ``OSError`` while it still cannot be)."""
        return self._open_chip()

    def _get_revision(self) -> int:
        return self._revision if self._revision is not None else super()._get_revision()

    def close(self) -> None:
        """Release every pin, stop watching, close the chip."""
        super().close()
        self.watcher.close()
        if self._chip is not None:
            with contextlib.suppress(Exception):
                self._chip.close()


class GpiodPin(LocalPiPin):
    """One header pin as one libgpiod line request, made once its device has said what it wants.

    As with gpiozero's own back ends, :meth:`close` resets the pin rather than ending it: gpiozero
    keeps the pin object and hands it to the next device on that pin. Here closing releases the
    line (no request held meanwhile) and the next device's settings make the next request.
    """

    def __init__(self, factory: GpiodFactory, info: Any) -> None:
        super().__init__(factory, info)
        self._offset = self._number
        self._request: Any = None
        self._reset()

    def _reset(self) -> None:
        self._settings = gpiod.LineSettings(direction=Direction.INPUT, bias=Bias.DISABLED, event_clock=Clock.MONOTONIC)
        self._edges = Edge.BOTH
        self._watching = False

    def _line(self) -> Any:
        """The line's request, made now with the settings recorded so far if there is none."""
        if self._request is None:
            self._request = self.factory.chip.request_lines({self._offset: self._settings}, consumer=CONSUMER)
        return self._request

    def close(self) -> None:
        """Release the line (if requested) and forget its settings and handler; the pin may be
        used again (gpiozero's own pins drop ``when_changed`` on close too: a handler left behind
        would stop the next device's ``when_changed`` from switching edge detection on)."""
        with self._when_changed_lock:
            self._when_changed = None
        if self._request is not None:
            self._unwatch()
            self._request.release()
            self._request = None
        self._reset()

    def _apply(self, **changes: Any) -> None:
        """Record new settings; a requested line is reconfigured, except that a debounced line
        gaining edge detection is requested afresh (see the module's note on CVE-2024-36898)."""
        adds = changes.get("edge_detection", Edge.NONE)
        gains_edges = adds != Edge.NONE and self._settings.edge_detection == Edge.NONE
        for key, value in changes.items():
            setattr(self._settings, key, value)
        if self._request is None:
            return  # requested when the line is needed, with everything recorded by then
        if gains_edges and self._settings.debounce_period:
            self._unwatch()
            self._request.release()
            self._request = None
            self._line()
        else:
            self._request.reconfigure_lines({self._offset: self._settings})

    def _get_function(self) -> str:
        return "output" if self._settings.direction == Direction.OUTPUT else "input"

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise PinInvalidFunction(f'invalid function "{value}" for pin {self!r}')
        if value == "output":  # an output is requested at once (at its recorded level, else low)
            self._unwatch()
            self._apply(direction=Direction.OUTPUT, edge_detection=Edge.NONE)
            self._line()
        else:
            self._apply(direction=Direction.INPUT)

    def output_with_state(self, state: bool) -> None:
        """Output at ``state`` in one step (gpiozero's default sets the function, then the state:
        an active-low device would blip on first): an output's line is first requested here,
        already driving its idle level."""
        self._unwatch()
        self._apply(direction=Direction.OUTPUT, edge_detection=Edge.NONE, output_value=_value(state))
        self._line()

    def _get_state(self) -> bool:
        return self._line().get_value(self._offset) == Value.ACTIVE

    def _set_state(self, value: float) -> None:
        if self._get_function() == "input":
            raise PinSetInput(f"cannot set state of pin {self!r}")
        self._settings.output_value = _value(value)  # a later reconfigure keeps the level
        self._line().set_value(self._offset, self._settings.output_value)

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
        """gpiozero's last step for an input device: the line is requested here, with its pull,
        debounce and edges together."""
        self._apply(edge_detection=self._edges)
        fd = self._line().fd
        self._watching = True
        self.factory.watcher.watch(fd, self._read_edges)

    def _disable_event_detect(self) -> None:
        self._unwatch()
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
